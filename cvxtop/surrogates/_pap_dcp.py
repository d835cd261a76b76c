"""cvxpy forms of the pAp@k surrogates (Hiranandani et al. 2020): pair epigraphs, one LP
block per negative row.

The forms of max, TS, the ramp's convex part and pauc-struct need one epigraph variable
per (positive, negative) pair; the sizes in each docstring leave out the n score variables
that :func:`pair_scores` adds when the score expression is not itself a variable.
"""

from __future__ import annotations

import cvxpy as cp

__all__ = ["sum_largest", "pair_scores", "largest_pair_rows", "top_k_pair_hinges", "avg",
           "pap_max", "tight_struct", "pauc_struct"]


def sum_largest(rows: cp.Expression, k: int) -> cp.Expression:
    """``cp.sum_largest(rows, k)``, as a plain sum when k takes every entry: cvxpy 1.9's
    canonicalization of ``sum_largest(x, len(x))`` fails once x holds a value (a re-solve)."""
    return cp.sum(rows) if k == rows.shape[0] else cp.sum_largest(rows, k)


def pair_scores(pos, neg, s: cp.Expression
                ) -> tuple[cp.Expression, cp.Expression, list[cp.Constraint]]:
    """Positive and negative scores for pair constraints, bound to a score variable.

    Each pair constraint then touches one score per side instead of a copy of the affine
    expression (d + 1 entries per side for s = Xw): O(n₊·n₋ + n·d) nonzeros in place of
    O(n₊·n₋·d), at the price of n variables and n equalities (none if s is a variable).
    """
    if isinstance(s, cp.Variable):
        return s[pos], s[neg], []
    score = cp.Variable(s.shape)
    return score[pos], score[neg], [score == s]


def largest_pair_rows(s_pos: cp.Expression, s_neg: cp.Expression, margin: float, m: int
                      ) -> tuple[cp.Expression, list[cp.Constraint]]:
    """For each negative j an upper bound ``r_j`` on ``sum_largest_i((margin + s_j − s_i)₊, m)``
    whose minimum over the auxiliary variables is exact.

    Epigraph variables ``H_ij >= 0``, ``H_ij >= margin + s_j − s_i − t_j`` and (when m < n₊)
    ``t_j >= 0`` give ``r_j = m·t_j + Σ_i H_ij``: the LP form
    ``sum_largest(v, m) = min_t m·t + Σ_i (v_i − t)₊``, whose minimizer (the m-th largest
    entry of v ≥ 0) is ≥ 0, so ``t_j >= 0`` loses nothing and ``(v_i − t)₊`` with
    ``v_i = (x)₊`` equals ``max(0, x − t)``. For m = n₊ the sum of all entries needs no t.
    Size: n₊·n₋ pair variables, plus n₋ when m < n₊.
    """
    n_pos, n_neg = s_pos.shape[0], s_neg.shape[0]
    hinge = cp.Variable((n_neg, n_pos), nonneg=True)
    margins = margin + s_neg[:, None] - s_pos[None, :]
    if m == n_pos:
        return cp.sum(hinge, axis=1), [hinge >= margins]
    level = cp.Variable(n_neg, nonneg=True)
    return m * level + cp.sum(hinge, axis=1), [hinge >= margins - level[:, None]]


def top_k_pair_hinges(pos, neg, s: cp.Expression, k: int
                      ) -> tuple[cp.Expression, list[cp.Constraint]]:
    """``Σ_{j ∈ top-k} Σ_{all i} (1 + s_j − s_i)₊`` (unnormalized): n₊·n₋ pair variables."""
    s_pos, s_neg, bind = pair_scores(pos, neg, s)
    rows, constraints = largest_pair_rows(s_pos, s_neg, 1.0, s_pos.shape[0])
    return sum_largest(rows, k), bind + constraints


def avg(pos, neg, s: cp.Expression, k: int) -> tuple[cp.Expression, list]:
    """Eq. (10): ``sum_largest(pos(1 + s⁻ − mean(s⁺)), k)/k``, O(n) variables and
    coefficients. The mean is a variable of its own, bound to the positives' scores by one
    equality: written into every negative's entry, it put the n₊ positive scores in each of
    the n₋ rows (n₊·n₋ coefficients: 82 million on MAGIC, 12 GB in cvxpy's
    canonicalization)."""
    mean = cp.Variable()
    return (sum_largest(cp.pos(1 + s[neg] - mean), k) / k,
            [mean == cp.sum(s[pos]) / len(pos)])


def pap_max(pos, neg, s: cp.Expression, k: int) -> tuple[cp.Expression, list]:
    """``sum_largest(r, k)/(βk)`` with the per-row epigraphs of :func:`largest_pair_rows`
    (m = β): n₊·n₋ + n₋ variables (n₊·n₋ when n₊ <= k), plus n₋ + 1 for ``sum_largest``."""
    s_pos, s_neg, bind = pair_scores(pos, neg, s)
    beta = min(len(pos), k)
    rows, constraints = largest_pair_rows(s_pos, s_neg, 1.0, beta)
    return sum_largest(rows, k) / (beta * k), bind + constraints


def tight_struct(pos, neg, s: cp.Expression, k: int) -> tuple[cp.Expression, list]:
    """``sum_largest(maximum(a − c, b), k)/(βk)`` with pair epigraphs for ``a`` and ``b``:
    2·n₊·n₋ variables (n₊·n₋ when n₊ <= k, where c = 0 and a >= b), plus O(n₋) for
    ``maximum``/``sum_largest``; no k·n₋ term."""
    s_pos, s_neg, constraints = pair_scores(pos, neg, s)
    n_pos = len(pos)
    beta = min(n_pos, k)
    a, a_constraints = largest_pair_rows(s_pos, s_neg, 1.0, n_pos)
    constraints += a_constraints
    if beta < n_pos:
        b, b_constraints = largest_pair_rows(s_pos, s_neg, 0.0, n_pos)
        a, constraints = cp.maximum(a - (n_pos - beta), b), constraints + b_constraints
    return sum_largest(a, k) / (beta * k), constraints


def pauc_struct(pos, neg, s: cp.Expression, k: int) -> tuple[cp.Expression, list]:
    """``sum_largest(Σ_i H_ij, k)/(n₊k)`` with n₊·n₋ pair variables."""
    total, constraints = top_k_pair_hinges(pos, neg, s, k)
    return total / (len(pos) * k), constraints

"""cvxpy forms of the pAp@k surrogates (Hiranandani et al. 2020): pair epigraphs, one LP
block per negative row, or the same blocks on k levels that stand in for the top-k negatives.

The forms of max, TS, the ramp's convex part and pauc-struct are sums over the k highest
negative scores of one convex, nondecreasing row function ``φ`` of that score (given the
positives' scores), e.g. ``φ(x) = Σ_i (1 + x − s_i)₊``. Written on the negatives
themselves, each row needs one epigraph variable per positive: n₊·n₋ pair variables. Written
on k free levels ``ζ`` with the constraints

    ``ζ_1 + … + ζ_m >= sum_largest(s⁻, m)``  for m = 1, …, k,

it needs n₊·k, plus ``(k − 1)(n₋ + 1)`` for the constraints (:func:`top_levels`). The
minimum of ``Σ_l φ(ζ_l)`` over those levels is ``Σ_{l ≤ k} φ(z_(l))``, the sum over the
top-k negatives, exactly: the sorted top-k scores ``z`` are feasible, and for any feasible
``ζ``, with ``d_l = φ'(z_(l))`` (a right derivative; nonnegative, and nonincreasing in l
because ``φ'`` is nondecreasing and ``z`` sorted), convexity and Abel summation give

    ``Σ_l φ(ζ_l) − φ(z_(l)) >= Σ_l d_l (ζ_l − z_(l)) = Σ_m (d_m − d_{m+1}) Δ_m >= 0``,

with ``d_{k+1} = 0`` and ``Δ_m = Σ_{l≤m} (ζ_l − z_(l)) >= 0``.
:func:`._pap_dcp_size.uses_levels` picks the smaller of the two forms. The sizes in each
docstring leave out the n score variables that :func:`pair_scores` adds when the score
expression is not itself a variable.
"""

from __future__ import annotations

from typing import Callable

import cvxpy as cp

from ._pap_dcp_size import uses_levels

__all__ = ["sum_largest", "pair_scores", "largest_pair_rows", "top_k_pair_hinges", "avg",
           "pap_max", "tight_struct", "pauc_struct", "top_levels"]


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


def top_levels(s_neg: cp.Expression, k: int) -> tuple[cp.Variable, list[cp.Constraint]]:
    """k levels ``ζ`` with ``ζ_1 + … + ζ_m >= sum_largest(s⁻, m)`` for m = 1, …, k: the sum
    of a convex nondecreasing row function over the levels, minimized over them, is its sum
    over the top-k negatives (module docstring). (k − 1)(n₋ + 1) auxiliary variables."""
    levels = cp.Variable(k)
    constraints = [levels[0] >= s_neg]
    constraints += [cp.sum(levels[:m]) >= sum_largest(s_neg, m) for m in range(2, k + 1)]
    return levels, constraints


def _rows_on(s_neg: cp.Expression, k: int, n_pos: int, matrices: int, levels: bool | None
             ) -> tuple[cp.Expression, Callable[[cp.Expression], cp.Expression], list]:
    """The scores the rows are written on (the negatives' or k levels'; ``levels`` None
    picks the smaller form), the sum of their top-k rows, and the levels' constraints."""
    if levels is None:
        levels = uses_levels(n_pos, s_neg.shape[0], k, matrices)
    if levels:
        on, constraints = top_levels(s_neg, k)
        return on, cp.sum, constraints
    return s_neg, lambda rows: sum_largest(rows, k), []


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


def top_k_pair_hinges(pos, neg, s: cp.Expression, k: int, levels: bool | None = None
                      ) -> tuple[cp.Expression, list[cp.Constraint]]:
    """``Σ_{j ∈ top-k} Σ_{all i} (1 + s_j − s_i)₊`` (unnormalized): n₊·n₋ pair variables, or
    n₊·k on levels (:func:`_rows_on`)."""
    s_pos, s_neg, bind = pair_scores(pos, neg, s)
    on, top_k, constraints = _rows_on(s_neg, k, len(pos), 1, levels)
    rows, row_constraints = largest_pair_rows(s_pos, on, 1.0, s_pos.shape[0])
    return top_k(rows), bind + constraints + row_constraints


def avg(pos, neg, s: cp.Expression, k: int) -> tuple[cp.Expression, list]:
    """Eq. (10): ``sum_largest(pos(1 + s⁻ − mean(s⁺)), k)/k``, O(n) variables and
    coefficients. The mean is a variable of its own, bound to the positives' scores by one
    equality: written into every negative's entry, it put the n₊ positive scores in each of
    the n₋ rows (n₊·n₋ coefficients: 82 million on MAGIC, 12 GB in cvxpy's
    canonicalization)."""
    mean = cp.Variable()
    return (sum_largest(cp.pos(1 + s[neg] - mean), k) / k,
            [mean == cp.sum(s[pos]) / len(pos)])


def pap_max(pos, neg, s: cp.Expression, k: int, levels: bool | None = None
            ) -> tuple[cp.Expression, list]:
    """``sum_largest(r, k)/(βk)`` with the per-row epigraphs of :func:`largest_pair_rows`
    (m = β): n₊·n₋ + n₋ variables (n₊·n₋ when n₊ <= k), plus n₋ + 1 for ``sum_largest``;
    on levels (:func:`_rows_on`) n₊·k + k, plus those of the levels."""
    s_pos, s_neg, bind = pair_scores(pos, neg, s)
    beta = min(len(pos), k)
    on, top_k, constraints = _rows_on(s_neg, k, len(pos), 1, levels)
    rows, row_constraints = largest_pair_rows(s_pos, on, 1.0, beta)
    return top_k(rows) / (beta * k), bind + constraints + row_constraints


def tight_struct(pos, neg, s: cp.Expression, k: int, levels: bool | None = None
                 ) -> tuple[cp.Expression, list]:
    """``sum_largest(maximum(a − c, b), k)/(βk)`` with pair epigraphs for ``a`` and ``b``:
    2·n₊·n₋ variables (n₊·n₋ when n₊ <= k, where c = 0 and a >= b), plus O(n₋) for
    ``maximum``/``sum_largest``; no k·n₋ term. On levels (:func:`_rows_on`) 2·n₊·k (n₊·k),
    plus those of the levels."""
    s_pos, s_neg, constraints = pair_scores(pos, neg, s)
    n_pos = len(pos)
    beta = min(n_pos, k)
    on, top_k, level_constraints = _rows_on(s_neg, k, n_pos, 2 if beta < n_pos else 1,
                                            levels)
    constraints += level_constraints
    a, a_constraints = largest_pair_rows(s_pos, on, 1.0, n_pos)
    constraints += a_constraints
    if beta < n_pos:
        b, b_constraints = largest_pair_rows(s_pos, on, 0.0, n_pos)
        a, constraints = cp.maximum(a - (n_pos - beta), b), constraints + b_constraints
    return top_k(a) / (beta * k), constraints


def pauc_struct(pos, neg, s: cp.Expression, k: int, levels: bool | None = None
                ) -> tuple[cp.Expression, list]:
    """``sum_largest(Σ_i H_ij, k)/(n₊k)`` with n₊·n₋ pair variables, or n₊·k on levels."""
    total, constraints = top_k_pair_hinges(pos, neg, s, k, levels)
    return total / (len(pos) * k), constraints

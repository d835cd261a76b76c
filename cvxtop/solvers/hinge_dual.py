"""SVMperf's prec@k loss solved over the irrelevant items where no relevant item is
predicted, for the cutting plane's tail.

SVMperf's loss (Joachims 2005; :mod:`cvxtop.surrogates.prec_svmperf`) is a maximum over
labelings predicting ``a`` relevant and ``b`` irrelevant items. Those with ``a = 0`` (and so
``b >= k``) score ``k − Σs⁺ + top_b(s⁻)``, and their maximum is a hinge on the irrelevant
items' scores plus the ``k`` highest of them:

    L₀(s) = k − Σs⁺ + max_{v ∈ Q} v·s⁻,   Q = {v ∈ [0, 1]^{n₋} : Σv >= k}

(``Q``'s vertices are the 0/1 vectors with at least ``k`` ones, so the maximum over ``Q`` is
``max_{b >= k} top_b(s⁻)``). ``L₀ <= L``, so every ``v ∈ Q`` gives the cut
``L(s) >= k + g·s`` with ``g = (−1 on the relevant items, v on the others)``, valid
everywhere. When the scores are small against ``k`` no relevant item is worth predicting
(``k·b/(a + b)`` falls by about ``k/b`` an item, far more than its score), the optimum lies
where ``L = L₀``, and there thousands of irrelevant items sit exactly at score 0 (the hinge's
kink): on the sparse 50,000 × 50,000 set at SVMperf's C_perf 10, 21,887 of them. Each round
of the cutting plane adds one vertex of ``Q``'s face over them; 479 rounds took 11.7 s.

``½‖w‖² + C·L₀(Xw)`` has the dual ``max_{v ∈ Q} C·k − ½‖w‖²`` with ``w = −C·Xᵀg``. Its
optimality conditions put ``v_i = 1`` where ``s_i > θ``, ``0`` where ``s_i < θ`` and between
where ``s_i = θ`` (``s = Xw``), with the threshold ``θ = 0`` while that leaves ``Σv >= k``
and ``θ < 0`` with ``Σv = k`` where the sum's bound holds. Given which items are tied
(``T``) and which at 1 (``A``), the tied weights solve ``X_T X_Tᵀ v_T = X_T (X₊ᵀ1 − X_Aᵀ1)``
at ``θ = 0``, and where that leaves ``Σv < k`` they move by ``−θ·(X_T X_Tᵀ)⁻¹1/C`` with
the ``θ`` that makes ``Σv = k``: systems solved by conjugate gradients (Hestenes & Stiefel
1952) on products with ``X_T``. The primal-dual active-set method (Hintermüller,
Ito and Kunisch 2002) starts from the cutting plane's best point (items within
:data:`TIE_SHARE` of the largest score tied) and moves the items that violate the guess,
until none does. The answer, clipped onto ``Q``, gives one more cut for the master and its
weights a candidate best point: the certificate stays the master's, and a solve that fails
(no convergence, or as many tied items as features) adds nothing. ``L₀`` is ``k`` plus a
positively homogeneous function of the scores, so its minimizer is proportional to ``C``
and the tied set the same at every ``C``: on the sparse set the solve certifies C_perf
0.1, 1 and 10 alike, after 20 rounds, in about 0.5 s.
Where the optimum predicts relevant items too (the UCI sets at SVMperf's grid, except
letter) the labelings of the best point have ``a > 0`` and the solve is not tried.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, cg

from .objective import RankingObjective
from .selection_dual import MIN_FEATURES, DualCut, dual_cut

__all__ = ["SOLVE_ROUNDS", "applies", "hinge_dual_cut", "suits"]

#: Rounds of the cutting plane after which the solve is tried (while the gap is open): it
#: needs no more than a rough best point to start from, and the rounds before it are
#: cheap. On the sparse 50,000 × 50,000 set, tried first after round 5, 10, 20 or 30 it
#: certified SVMperf's C_perf 0.1, 1 and 10 in 0.9 to 1.1 s (its conjugate gradients to
#: 1e-12), fastest from round 20.
SOLVE_ROUNDS = frozenset({20, 50, 150, 400, 1000})
#: Irrelevant items whose score at the best point is within this share of the largest
#: absolute score start tied at 0.
TIE_SHARE = 0.01
#: Active-set steps before the solve is given up. It is also given up as soon as as many
#: items are tied as there are features: ``X_T X_Tᵀ`` is then singular, the steps cycle
#: (on 20,000 × 5,000 sparse data 30 steps of 13,500 tied items took 0.45 s, where the
#: optimum ties none and 31 to 82 rounds certify it).
MAX_STEPS = 30
#: Iterations of the conjugate gradients a step. Their relative residual is the gap the
#: solve aims at: on the sparse set 1e-6, 1e-8 and 1e-10 gave certified gaps of 4e-8,
#: 5e-10 and 5e-12 (the solve taking 0.37, 0.50 and 0.63 s).
CG_ITERATIONS = 2000


def suits(objective: RankingObjective) -> bool:
    """Whether the objective is prec@k-svmperf on one list with more irrelevant items than
    ``k``, the loss this solve is for, on at least :data:`.selection_dual.MIN_FEATURES`
    features (below, the rounds certify quickly: letter, d = 16, took 0.02 to 0.04 s, and
    0.06 s with the solve)."""
    if objective.surrogate.name != "prec@k-svmperf" or len(objective.parts) != 1 \
            or objective.Z.shape[1] < MIN_FEATURES:
        return False
    bound = objective.parts[0].bound
    return bound.n_neg > bound.k >= 1


def applies(objective: RankingObjective, subgradient: np.ndarray) -> bool:
    """Whether the solve is worth trying at a point with this score subgradient: the
    objective :func:`suits` it, and the point's maximizing labeling predicts no relevant
    item (every relevant item's subgradient is −1)."""
    return suits(objective) and bool(np.all(subgradient[objective.parts[0].bound.pos] == -1.0))


def _tied_weights(Z_T, rhs: np.ndarray, start: np.ndarray, rtol: float
                  ) -> np.ndarray | None:
    """``v_T`` with ``Z_T Z_Tᵀ v_T = rhs`` by conjugate gradients to the relative residual
    ``rtol``, or ``None``. (Splitting the products over two threads, as the rounds do, gave
    no steady gain here: 0.41 to 0.52 s against 0.51 to 0.56 s on the sparse set.)"""
    m = Z_T.shape[0]
    gram = LinearOperator((m, m), matvec=lambda p: Z_T @ (Z_T.T @ np.ravel(p)),
                          dtype=np.float64)
    solution, info = cg(gram, rhs, x0=start, rtol=rtol, maxiter=CG_ITERATIONS)
    return solution if info == 0 else None


def _onto_q(v: np.ndarray, k: int) -> np.ndarray:
    """``v`` clipped to ``[0, 1]`` and, if its sum is below ``k`` plus a margin far above
    the rounding of a sum (where the sum's bound holds, the solve's ``Σv = k`` is only as
    exact as its floats), raised towards 1 until it is not: a point of ``Q``, so that its
    cut is valid. Sums are taken exactly (``math.fsum``)."""
    v = np.clip(v, 0.0, 1.0)
    margin = 1e-12 * len(v)
    short = k + margin - math.fsum(v)
    if short > 0:
        room = 1.0 - v
        v = v + room * min(1.0, (short + margin) / math.fsum(room))
    return v


def hinge_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float
                   ) -> DualCut | None:
    """The dual point of ``½‖w‖² + C·L₀(Zw)`` found from ``best_scores`` (see the module
    docstring), aiming at the relative gap ``tol``, as a cut of ``L``, with its weights;
    ``None`` if the solve fails."""
    Z, C = objective.Z, objective.C
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    pos, neg = bound.pos, bound.neg
    relevant_sum = np.asarray(Z[pos].sum(axis=0)).ravel()  # X₊ᵀ1
    Z_neg = Z[neg]
    s_neg = best_scores[neg]
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0))
    at_one, tied = s_neg > tie, np.abs(s_neg) <= tie
    v = at_one.astype(np.float64)
    v[tied] = 0.5
    k = bound.k
    for _ in range(MAX_STEPS):
        # w = −C(X₋ᵀv − X₊ᵀ1) with v = 1 on A and v_T on T: s_T = θ fixes v_T, with θ = 0
        # while that leaves Σv >= k, else θ < 0 with Σv = k
        base = relevant_sum - np.asarray(Z_neg[at_one].sum(axis=0)).ravel()
        threshold = 0.0
        if tied.sum() >= Z.shape[1]:  # X_T X_Tᵀ singular: give up (see MAX_STEPS)
            return None
        if tied.any():
            Z_T = Z_neg[tied]
            v_tied = _tied_weights(Z_T, np.asarray(Z_T @ base).ravel(), v[tied], tol)
            if v_tied is None:
                return None
            short = k - int(at_one.sum()) - float(v_tied.sum())
            if short > 0:  # v_T − θ·M⁻¹1/C, with θ < 0 such that Σv = k
                shift = _tied_weights(Z_T, np.full(len(v_tied), 1.0 / C),
                                      np.zeros(len(v_tied)), tol)
                if shift is None or not shift.sum() > 0:
                    return None
                threshold = -short / float(shift.sum())
                v_tied = v_tied - threshold * shift
            v[tied] = v_tied
            base = base - np.asarray(Z_T.T @ v_tied).ravel()
        elif at_one.sum() < k:  # nothing tied to make up the sum
            return None
        s_neg = np.asarray(Z_neg @ (C * base)).ravel()
        below, above = tied & (v < 0), tied & (v > 1)
        leave_one = at_one & (s_neg < threshold)
        leave_zero = ~tied & ~at_one & (s_neg > threshold)
        if not (below.any() or above.any() or leave_one.any() or leave_zero.any()):
            break
        v[below], v[above] = 0.0, 1.0
        tied = (tied & ~below & ~above) | leave_one | leave_zero
        at_one = (at_one & ~leave_one) | above
    else:
        return None
    v = _onto_q(v, k)
    g = np.zeros(bound.n)
    g[pos], g[neg] = -1.0, v
    return dual_cut(objective, g, float(bound.k))

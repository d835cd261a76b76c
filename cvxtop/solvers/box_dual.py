"""Duals over the items whose polytope is a box with one sum, for the cutting plane's tail:
SVMperf's prec@k loss where no relevant item is predicted (its hinge part, over the
irrelevant items), and Kar et al. 2015's struct surrogate (over all the items).

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
of the cutting plane adds one vertex of ``Q``'s face over them, so the rounds alone take
hundreds of them.

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
0.1, 1 and 10 alike, after 20 rounds (measured: docs/solvers.md, "Measurements behind the constants").
Where the optimum predicts relevant items too (the UCI sets at SVMperf's grid, except
letter) the labelings of the best point have ``a > 0`` and the solve is not tried.

prec@k-struct (Kar et al. 2015 eq. (3)) is the maximum of ``v·(s + 1 − y) − y·s`` over
``{v ∈ [0, 1]^n : Σv = k}``: the same kind of dual, over all the items, with ``1 − y``
added to their scores and the threshold free (:func:`struct_dual_cut`). On the sparse set
it certifies after 20 rounds at every C, where the rounds alone need 47 to 410, and
``make_ranking_data(10,000, 1,000)`` faster too (measured: docs/solvers.md, "Measurements behind the constants").
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, cg

from .objective import RankingObjective
from .selection_dual import MIN_FEATURES, DualCut, dual_cut

__all__ = ["SOLVE_ROUNDS", "applies", "box_dual_cut", "hinge_dual_cut", "struct_dual_cut",
           "suits"]

#: Rounds of the cutting plane after which the solve is tried (while the gap is open): it
#: needs no more than a rough best point to start from, and the rounds before it are
#: cheap. On the sparse 50,000 × 50,000 set, tried first after round 5, 10, 20 or 30, it
#: was fastest from round 20 (measured: docs/solvers.md, "Measurements behind the constants").
SOLVE_ROUNDS = frozenset({20, 50, 150, 400, 1000})
#: Irrelevant items whose score at the best point is within this share of the largest
#: absolute score start tied at 0.
TIE_SHARE = 0.01
#: Active-set steps before the solve is given up. It is also given up as soon as as many
#: items are tied as there are features: ``X_T X_Tᵀ`` is then singular, the steps cycle
#: (on 20,000 × 5,000 sparse data 30 steps of 13,500 tied items, where the optimum ties
#: none and 31 to 82 rounds certify it) (measured: docs/solvers.md, "Measurements behind the constants").
MAX_STEPS = 30
#: Iterations of the conjugate gradients a step. Their relative residual is the gap the
#: solve aims at: on the sparse set 1e-6, 1e-8 and 1e-10 gave certified gaps of 4e-8,
#: 5e-10 and 5e-12 (measured: docs/solvers.md, "Measurements behind the constants").
CG_ITERATIONS = 2000


def suits(objective: RankingObjective) -> bool:
    """Whether the objective is one this module solves: a surrogate that declares this dual
    (``dual_form`` ``"box-hinge"``, prec@k-svmperf, on one list with more irrelevant items
    than ``k``; ``"box-struct"``, prec@k-struct, on one list with more items than ``k``),
    on at least :data:`.selection_dual.MIN_FEATURES` features (below, the rounds certify
    quickly (measured: docs/solvers.md, "Measurements behind the constants"))."""
    if objective.surrogate.dual_form not in ("box-hinge", "box-struct") \
            or len(objective.parts) != 1 or objective.Z.shape[1] < MIN_FEATURES:
        return False
    bound = objective.parts[0].bound
    if objective.surrogate.dual_form == "box-struct":
        return bound.n > bound.k >= 1
    return bound.n_neg > bound.k >= 1


def applies(objective: RankingObjective, subgradient: np.ndarray) -> bool:
    """Whether the solve is worth trying at a point with this score subgradient: the
    objective :func:`suits` it, and for prec@k-svmperf the point's maximizing labeling
    predicts no relevant item (every relevant item's subgradient is −1)."""
    if not suits(objective):
        return False
    return objective.surrogate.dual_form == "box-struct" \
        or bool(np.all(subgradient[objective.parts[0].bound.pos] == -1.0))


def box_dual_cut(objective: RankingObjective, best_scores: np.ndarray,
                 subgradient: np.ndarray, tol: float) -> DualCut | None:
    """The cut of :func:`struct_dual_cut` or :func:`hinge_dual_cut` for an objective that
    :func:`suits` this module, at a best point with these scores and score subgradient;
    ``None`` where the solve does not apply there or fails."""
    if not applies(objective, subgradient):
        return None
    if objective.surrogate.dual_form == "box-struct":
        return struct_dual_cut(objective, best_scores, tol)
    return hinge_dual_cut(objective, best_scores, tol)


def _tied_weights(Z_T, rhs: np.ndarray, start: np.ndarray, rtol: float
                  ) -> np.ndarray | None:
    """``v_T`` with ``Z_T Z_Tᵀ v_T = rhs`` by conjugate gradients to the relative residual
    ``rtol``, or ``None``. (Splitting the products over two threads, as the rounds do, gave
    no steady gain here (measured: docs/solvers.md, "Measurements behind the constants").)"""
    m = Z_T.shape[0]
    gram = LinearOperator((m, m), matvec=lambda p: Z_T @ (Z_T.T @ np.ravel(p)),
                          dtype=np.float64)
    solution, info = cg(gram, rhs, x0=start, rtol=rtol, maxiter=CG_ITERATIONS)
    return solution if info == 0 else None


def _onto_box_sum(v: np.ndarray, k: int, equality: bool) -> np.ndarray:
    """``v`` clipped to ``[0, 1]``, its sum then brought to ``k`` (``equality``: scaled down
    from above, raised towards 1 from below; a point of the box with ``Σv = k`` up to
    rounding) or to at least ``k`` plus a margin far above the rounding of a sum (raised
    towards 1: a point of ``Q``, so that its cut is valid, where the solve's ``Σv = k`` is
    only as exact as its floats). Sums are taken exactly (``math.fsum``)."""
    v = np.clip(v, 0.0, 1.0)
    total = math.fsum(v)
    if equality and total > k:
        return v * (k / total)
    margin = 0.0 if equality else 1e-12 * len(v)
    if total < k + margin:
        room = 1.0 - v
        v = v + room * min(1.0, (k + 2 * margin - total) / math.fsum(room))
    return v


def _box_sum_weights(Z_items, c: np.ndarray, fixed: np.ndarray, k: int, C: float,
                     equality: bool, scores: np.ndarray, centre: float, tie: float,
                     tol: float) -> np.ndarray | None:
    """The weights ``v`` in ``[0, 1]`` of the items (rows ``Z_items``) with ``Σv >= k``
    (``Σv = k`` if ``equality``) maximizing ``C·c·v − ½‖w‖²``, ``w = C(fixed − Z_itemsᵀv)``,
    by primal-dual active-set steps from the items' ``scores`` (their ``s + c`` at the best
    point): those within ``tie`` of ``centre`` start tied. ``v_i`` is 1 where ``s_i + c_i``
    is above the threshold ``θ``, 0 below, between at it; ``θ = 0`` while that leaves
    ``Σv >= k`` (never for ``equality``, where ``θ`` is free). ``None`` if the steps fail."""
    at_one, tied = scores > centre + tie, np.abs(scores - centre) <= tie
    v = at_one.astype(np.float64)
    v[tied] = 0.5
    for _ in range(MAX_STEPS):
        # v = 1 on A and v_T on T: s_T + c_T = θ fixes v_T, as
        # v_T = M⁻¹(X_T·base + c_T/C) − θ·M⁻¹1/C with M = X_T X_Tᵀ and θ set by the sum
        base = fixed - np.asarray(Z_items[at_one].sum(axis=0)).ravel()
        threshold = 0.0
        if tied.sum() >= Z_items.shape[1]:  # M singular: give up (see MAX_STEPS)
            return None
        if tied.any():
            Z_T = Z_items[tied]
            v_tied = _tied_weights(Z_T, np.asarray(Z_T @ base).ravel() + c[tied] / C,
                                   v[tied], tol)
            if v_tied is None:
                return None
            short = k - int(at_one.sum()) - float(v_tied.sum())
            if equality or short > 0:  # θ (below 0 unless equality) such that Σv = k
                shift = _tied_weights(Z_T, np.full(len(v_tied), 1.0 / C),
                                      np.zeros(len(v_tied)), tol)
                if shift is None or not shift.sum() > 0:
                    return None
                threshold = -short / float(shift.sum())
                v_tied = v_tied - threshold * shift
            v[tied] = v_tied
            base = base - np.asarray(Z_T.T @ v_tied).ravel()
        elif at_one.sum() < k or equality and at_one.sum() != k:  # no tied item to fill the sum
            return None
        augmented = np.asarray(Z_items @ (C * base)).ravel() + c
        below, above = tied & (v < 0), tied & (v > 1)
        leave_one = at_one & (augmented < threshold)
        leave_zero = ~tied & ~at_one & (augmented > threshold)
        if not (below.any() or above.any() or leave_one.any() or leave_zero.any()):
            return v
        v[below], v[above] = 0.0, 1.0
        tied = (tied & ~below & ~above) | leave_one | leave_zero
        at_one = (at_one & ~leave_one) | above
    return None


def hinge_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float
                   ) -> DualCut | None:
    """The dual point of ``½‖w‖² + C·L₀(Zw)`` found from ``best_scores`` (see the module
    docstring), aiming at the relative gap ``tol``, as a cut of ``L``, with its weights;
    ``None`` if the solve fails."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    pos, neg = bound.pos, bound.neg
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0))
    v = _box_sum_weights(Z[neg], np.zeros(len(neg)), np.asarray(Z[pos].sum(axis=0)).ravel(),
                         bound.k, objective.C, False, best_scores[neg], 0.0, tie, tol)
    if v is None:
        return None
    g = np.zeros(bound.n)
    g[pos], g[neg] = -1.0, _onto_box_sum(v, bound.k, equality=False)
    return dual_cut(objective, g, float(bound.k))


def struct_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float
                    ) -> DualCut | None:
    """For prec@k-struct, ``sum_largest(s + 1 − y, k) − y·s`` (Kar et al. 2015 eq. (3)), the
    maximum of ``v·(s + 1 − y) − y·s`` over ``{0 <= v <= 1, Σv = k}``: the dual of
    ``½‖w‖² + C·L(Zw)`` over the items, solved as the hinge part's is (``θ`` free), from
    ``best_scores``. Its cut is ``L(s) >= (1 − y)·v + (v − y)·s``, with its weights;
    ``None`` if the solve fails."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    y, k = bound.y.astype(np.float64), bound.k
    c = 1.0 - y
    augmented = best_scores + c
    centre = float(np.partition(augmented, len(augmented) - k)[len(augmented) - k])
    # the scale of the scores themselves (the augmented ones are 1 apart by class)
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0))
    v = _box_sum_weights(Z, c, np.asarray(Z.T @ y).ravel(), k, objective.C, True,
                         augmented, centre, tie, tol)
    if v is None:
        return None
    v = _onto_box_sum(v, k, equality=True)
    return dual_cut(objective, v - y, float(c @ v))

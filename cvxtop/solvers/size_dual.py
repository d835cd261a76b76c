"""prec@k-svmperf's dual over its labeling sizes, for the cutting plane's tail where the
optimum predicts relevant items.

SVMperf's loss (Joachims 2005; :mod:`cvxtop.surrogates.prec_svmperf`) is a maximum over
labelings predicting ``a`` relevant and ``b`` irrelevant items of ``k·b/m + (ŷ − y)·s``,
``m = a + b``, floored at 0. Since ``k·b/m = k − (k/m)·a``, the labelings of one size ``m``
make one piece,

    P_m(s) = k − y·s + max {u·(s + c_m) : u ∈ U_m},   c_m = −(k/m)·y,
    U_m = {u ∈ [0, 1]ⁿ : Σu = m, Σ_{y_i = 0} u_i >= 1},

whose vertices are the labelings of size ``m`` with an irrelevant item (the constraints'
matrix is an interval matrix). The labelings without one, which the surrogate skips, can
lie above the loss: with ``y = (1, 1, 0)``, ``s = (10, −10, −100)`` and ``k = 1`` the
labeling of the first item alone has ``(ŷ − y)·s = 10`` where ``L = 0``, so a point of the
box with ``Σu = m`` alone is no valid cut (:func:`onto_size_polytope`). Those with ``a = 0``
and ``b >= k`` make the hinge of :mod:`.box_dual`,
``P_H(s) = k − y·s + max {u·s : u ∈ [0, 1] on the irrelevant items, Σu >= k}``. So
``L = max(0, P_H, P_k, …, P_n)``, and every convex combination of points of the pieces'
polytopes, weighted by ``λ`` (``λ_0`` on the floor), gives a cut valid everywhere:

    L(s) >= Σ_j λ_j (k + c_j·u_j) + (Σ_j λ_j (u_j − y))·s.

Where the optimum predicts relevant items its loss can tie several sizes, the floor and the
hinge (on sparse 400 × 4,000 data at C = 1, the sizes 10, 42 and 43), and each round of
the cutting plane adds one vertex of that face: the rounds alone ended at a gap of 0.34
after 2,000 rounds on sparse 2,000 × 20,000 at the default C = 1. This module solves the
dual of ``½‖w‖² + C·L(Zw)`` restricted to a few pieces and a band of items,

    max  Σ_j λ_j k + Σ_j c_j·v_j − (C/2)‖Zᵀ(Σ_j v_j − (1 − λ_0) y)‖²
    over λ in the simplex, v_j ∈ [0, λ_j]ⁿ, Σv_j = m_j λ_j (Σv_H >= k λ_H),

with cvxpy: the sizes whose pieces are highest at the best point around its labeling's
size, the hinge and the floor; per piece, the items whose augmented score is within a band
of the piece's threshold are free and the others fixed at 0 or ``λ_j``. The band follows
from strong convexity: a point within ``Δ`` of the optimum's objective has
``‖w − w*‖ <= sqrt(2Δ)``, so an item's score is within ``‖z_i‖·sqrt(2Δ)`` of its optimal
one. The answer, moved onto the pieces' polytopes exactly up to rounding, is one more cut
for the master and its weights a candidate best point; the certificate stays the master's.
A restriction that misses the optimum's pieces or items gives a weaker cut, and the solve
is repeated from the better point, up to :data:`REPEATS` times.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .. import _cvxpy
from ..exceptions import SolverError
from ..surrogates.top_indices import top_indices
from . import box_dual, count_dual
from .box_dual import _onto_box_sum
from .gaps import gap_floor
from .objective import RankingObjective
from .selection_dual import DualCut, dual_cut

__all__ = ["ALL_SIZES", "FREE_PER_FEATURE", "KEEP", "MAX_FREE", "MAX_ITEMS", "REPEATS", "SIZES",
           "WINDOW", "combination", "onto_size_polytope", "size_dual_cut", "suits"]

#: Labeling sizes kept: the highest pieces at the best point among :data:`WINDOW` sizes
#: either side of its labeling's size.
SIZES, WINDOW = 4, 64
#: Items above which the solve is not tried: those up to which the solve over counts of
#: relevant items (:mod:`.count_dual`) is tried. Above it the solve here gained too little
#: where measured: on sparse 4,500 × 4,500 and 5,000 × 5,000 at C = 1 its cvxpy problems
#: made the fits 5.6 and 5.9 times longer, and both fits ended uncertified either way; on the
#: sparse 50,000 × 50,000 set one solve over 15,000 free items took longer than 2,000 rounds
#: (measured: docs/solvers.md, "Measurements behind the constants").
MAX_ITEMS = count_dual.MAX_FEATURES
#: Terms up to which every size's piece is evaluated at a point (sizes times relevant
#: items; a few arrays of this many floats, 16 MB each).
ALL_SIZES = 2_000_000
#: Free items of one piece at most (those nearest its threshold): :data:`MAX_FREE`, and
#: :data:`FREE_PER_FEATURE` times the features (generic data tie at most about ``d``
#: items of a piece at the optimum; on spambase, d = 57, all 4,601 free made the solve
#: dearer than the rounds it saved).
MAX_FREE, FREE_PER_FEATURE = 3000, 4
#: Solves from successively better points before the rounds go on alone.
REPEATS = 2
#: The weight above which a size is kept for the next solve (interior-point answers leave
#: every weight slightly positive).
KEEP = 1e-6


def suits(objective: RankingObjective) -> bool:
    """prec@k-svmperf on one list with more irrelevant items than ``k`` (as
    :func:`.box_dual.suits`), with at least as many features as items: there the optimum
    ties most items of several pieces and the rounds stall (sparse 400 × 4,000 and
    2,000 × 20,000), while on spambase (d = 57) the rounds certify every C and the solves
    cost more than they saved (measured: docs/solvers.md, "Measurements behind the
    constants"). Up to :data:`MAX_ITEMS` items: cvxpy's problem grows with the free items
    of every piece."""
    n, d = objective.Z.shape
    return objective.surrogate.dual_form == "box-hinge" and box_dual.suits(objective) \
        and d >= n and n <= MAX_ITEMS


def _piece_values(s: np.ndarray, y: np.ndarray, k: int, sizes: np.ndarray) -> np.ndarray:
    """``P_m(s)`` for each size ``m``: ``k − y·s`` plus the best split of ``m`` into ``a``
    relevant items (the highest, each less ``k/m``) and ``m − a >= 1`` irrelevant ones."""
    pos_sums = np.r_[0.0, np.cumsum(np.sort(s[y == 1])[::-1])]
    neg_sums = np.r_[0.0, np.cumsum(np.sort(s[y == 0])[::-1])]
    n_pos, n_neg = len(pos_sums) - 1, len(neg_sums) - 1
    a = np.arange(n_pos + 1)[None, :]
    m = sizes[:, None]
    b = m - a
    terms = pos_sums[a] - (k / m) * a + neg_sums[np.clip(b, 0, n_neg)]
    terms = np.where((b >= 1) & (b <= n_neg), terms, -np.inf)
    return k - float(y @ s) + terms.max(axis=1)


def _band(scores: np.ndarray, threshold: float, width: np.ndarray, most: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Items above ``threshold`` by more than their ``width`` (at one), and those within
    it (free), at most ``most`` of them, the nearest kept (the others fixed on their
    side)."""
    distance = scores - threshold
    free = np.abs(distance) <= width
    index = np.flatnonzero(free)
    if len(index) > most:
        keep = index[top_indices(-np.abs(distance[index]), most)]  # (ties by index)
        free = np.zeros_like(free)
        free[keep] = True
    return (distance > 0) & ~free, free


class _Piece:
    """One piece of a restriction (this module's dual, :mod:`.size_program`'s program): the
    items it ranges over, those of them at one and free (given as masks or positions over
    ``items``, kept as item indices), its size (``Σu = size``, or ``>= size`` for the
    hinge) and ``c`` on every item of the list."""

    def __init__(self, items: np.ndarray, at_one: np.ndarray, free: np.ndarray, size: int,
                 c: np.ndarray, hinge: bool) -> None:
        self.items, self.size, self.c, self.hinge = items, size, c, hinge
        self.at_one, self.free = items[at_one], items[free]


def _sizes(objective: RankingObjective, s: np.ndarray, subgradient: np.ndarray,
           kept: set[int]) -> list[int]:
    """The sizes ``kept`` (those with weight in the last solve) and the :data:`SIZES`
    highest other pieces at scores ``s``: over every size where that costs at most
    :data:`ALL_SIZES` terms, else over :data:`WINDOW` sizes either side of the size of the
    labeling at ``s``."""
    bound = objective.parts[0].bound
    y, k, n = bound.y.astype(np.float64), bound.k, bound.n
    if (n - k + 1) * (bound.n_pos + 1) <= ALL_SIZES:
        sizes = np.arange(k, n + 1)
    else:
        predicted = int(np.count_nonzero(subgradient[bound.pos] == 0.0)
                        + np.count_nonzero(subgradient[bound.neg] == 1.0))
        centre = min(max(predicted, k), n)
        sizes = np.arange(max(k, centre - WINDOW), min(n, centre + WINDOW) + 1)
    values = _piece_values(s, y, k, sizes)
    fresh = [int(m) for m in sizes[np.argsort(-values, kind="stable")] if int(m) not in kept]
    return sorted(kept | set(fresh[:SIZES]))


def _pieces(objective: RankingObjective, s: np.ndarray, width: np.ndarray,
            sizes: list[int]) -> list[_Piece]:
    """The pieces of these sizes and the hinge at scores ``s``, with the items within
    ``width`` of their thresholds free (module docstring)."""
    bound = objective.parts[0].bound
    y, k, n = bound.y.astype(np.float64), bound.k, bound.n
    every = np.arange(n)
    # generic data tie at most about d items of a piece at the optimum
    most = min(MAX_FREE, FREE_PER_FEATURE * objective.Z.shape[1])
    pieces = []
    for m in sizes:
        augmented = s - (k / m) * y
        threshold = float(np.partition(augmented, n - m)[n - m])
        at_one, free = _band(augmented, threshold, width, most)
        pieces.append(_Piece(every, at_one, free, m, -(k / m) * y, False))
    neg = bound.neg
    s_neg = s[neg]
    threshold = min(0.0, float(np.partition(s_neg, len(neg) - k)[len(neg) - k]))
    at_one, free = _band(s_neg, threshold, width[neg], most)
    pieces.append(_Piece(neg, at_one, free, k, np.zeros(n), True))
    return pieces


def _solve(objective: RankingObjective, pieces: list[_Piece], solver: str
           ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The restricted dual's ``λ`` (floor last) and each piece's free weights, by cvxpy."""
    import cvxpy as cp

    Z, C = objective.Z, objective.C
    bound = objective.parts[0].bound
    y, k = bound.y.astype(np.float64), bound.k
    free = np.unique(np.concatenate([p.free for p in pieces]))
    slot = np.full(len(y), -1, dtype=np.int64)
    slot[free] = np.arange(len(free))
    lam = cp.Variable(len(pieces) + 1, nonneg=True)
    xs = [cp.Variable(len(p.free), nonneg=True) for p in pieces]
    columns, constraints, intercept, q = [], [cp.sum(lam) == 1], 0, 0
    for j, (p, x) in enumerate(zip(pieces, xs)):
        fixed = np.zeros(len(y))
        fixed[p.at_one] = 1.0
        columns.append(np.asarray(Z.T @ (fixed - y)).ravel())
        count = float(len(p.at_one))
        total = cp.sum(x) + count * lam[j]
        constraints += [x <= lam[j], total >= p.size * lam[j] if p.hinge
                        else total == p.size * lam[j]]
        irrelevant = y[p.at_one] == 0
        if not p.hinge and not irrelevant.any():
            # a labeling of the size with an irrelevant item (module docstring, U_m)
            constraints.append(cp.sum(x[np.flatnonzero(y[p.free] == 0)]) >= lam[j])
        intercept = intercept + (k + float(p.c[p.at_one].sum())) * lam[j] + p.c[p.free] @ x
        embed = sp.csr_matrix((np.ones(len(p.free)), (slot[p.free], np.arange(len(p.free)))),
                              shape=(len(free), len(p.free)))
        q = q + embed @ x
    A = np.column_stack(columns)
    Z_free = Z[free]
    aggregate = cp.Variable(len(free))  # Σ_j v_j on the free items
    constraints.append(aggregate == q)
    variables = cp.hstack([aggregate, lam[:-1]])
    if len(free) + len(pieces) < Z.shape[1]:  # ‖Zᵀg‖² = xᵀ(R Rᵀ)x, R = [Z_free; Aᵀ]
        cross = _dense(Z_free @ A)
        gram = np.block([[_dense(Z_free @ Z_free.T), cross], [cross.T, A.T @ A]])
        square = cp.quad_form(variables, cp.psd_wrap(0.5 * (gram + gram.T)))
    else:
        Rt = sp.hstack([sp.csr_matrix(Z_free).T, sp.csr_matrix(A)], format="csc") \
            if sp.issparse(Z) else np.hstack([np.asarray(Z_free).T, A])
        square = cp.sum_squares(Rt @ variables)
    problem = cp.Problem(cp.Maximize(intercept - 0.5 * C * square),
                         constraints)
    _cvxpy.solve(problem, solver, what="prec@k-svmperf's dual over its labeling sizes",
                 accept_inaccurate=True, warn=False)
    return np.asarray(lam.value, dtype=np.float64), [np.asarray(x.value, dtype=np.float64)
                                                     for x in xs]


def _dense(product) -> np.ndarray:
    """A product as a dense array (products of sparse rows come back sparse)."""
    return product.toarray() if sp.issparse(product) else np.atleast_2d(np.asarray(product))


def onto_size_polytope(u: np.ndarray, size: int, irrelevant: np.ndarray) -> np.ndarray:
    """``u`` moved onto ``U_m`` (module docstring) for ``m = size``, up to the rounding of a
    sum: clipped to ``[0, 1]`` and brought to its sum (:func:`.box_dual._onto_box_sum`),
    then, where the ``irrelevant`` items hold less than 1 (plus a margin far above the
    rounding of a sum), weight moved from the relevant items to them, raising them towards
    1 (to 1 exactly where that is all they can take). Needs ``1 <= size`` and an
    irrelevant item."""
    u = _onto_box_sum(u, size, equality=True)
    need = 1.0 + 1e-12 * len(u) - math.fsum(u[irrelevant])
    if need <= 0:
        return u
    room = math.fsum(1.0 - u[irrelevant])
    if need >= room:
        added = room
        u[irrelevant] = 1.0
    else:
        added = need
        u[irrelevant] += (1.0 - u[irrelevant]) * (need / room)
    relevant = ~irrelevant
    u[relevant] *= max(0.0, 1.0 - added / max(math.fsum(u[relevant]), 1e-300))
    return u


def combination(pieces: list[_Piece], lam: np.ndarray, xs: list[np.ndarray | None],
                y: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """``Σ_j λ_j (u_j − y)`` and ``Σ_j λ_j (k + c_j·u_j)`` for weights ``λ_j >= 0`` (the
    floor's left out) and each piece's free weights ``x_j``: ``u_j`` is ``x_j/λ_j`` clipped
    to ``[0, 1]`` on the free items (0 where ``x_j`` is missing or not finite) and 1 on the
    items at one, moved onto the piece's polytope exactly up to rounding (the hinge's by
    :func:`.box_dual._onto_box_sum`, a size's onto ``U_m`` by :func:`onto_size_polytope`).
    A valid cut whatever ``x``, for ``Σλ <= 1``."""
    g, intercept = np.zeros(len(y)), 0.0
    for p, x, weight in zip(pieces, xs, lam):
        if not weight > 0:
            continue
        u = np.zeros(len(y))
        u[p.at_one] = 1.0
        if x is not None and np.all(np.isfinite(x)):
            u[p.free] = np.clip(x / weight, 0.0, 1.0)
        u[p.items] = _onto_box_sum(u[p.items], p.size, equality=False) if p.hinge \
            else onto_size_polytope(u[p.items], p.size, y[p.items] == 0)
        g += weight * (u - y)
        intercept += weight * (k + float(p.c @ u))
    return g, intercept


def _cut(objective: RankingObjective, pieces: list[_Piece], lam: np.ndarray,
         xs: list[np.ndarray]) -> DualCut:
    """The cut of the dual point (:func:`combination`), ``λ`` clipped and normalized with
    the floor's weight last."""
    bound = objective.parts[0].bound
    lam = np.clip(lam, 0.0, None)
    lam = lam / lam.sum()
    return dual_cut(objective, *combination(pieces, lam[:-1], xs, bound.y.astype(np.float64),
                                            bound.k))


def size_dual_cut(objective: RankingObjective, best_scores: np.ndarray,
                  subgradient: np.ndarray, upper: float, lower: float, tol: float,
                  solver: str = "CLARABEL") -> DualCut | None:
    """For an objective that :func:`suits` this module, at a best point with these scores
    and score subgradient, whose objective ``upper`` is above the optimum by at most
    ``upper − lower``: the cut of the restricted dual (module docstring), repeated from its
    answer while its own gap is above ``tol``; the cut with the highest dual value, or
    ``None`` if cvxpy fails."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    norms = np.sqrt(np.asarray(Z.multiply(Z).sum(axis=1)).ravel()) if sp.issparse(Z) \
        else np.linalg.norm(Z, axis=1)
    gap = upper - lower
    best_cut, best_lower = None, -np.inf
    s, g = best_scores, subgradient
    kept: set[int] = set()
    for _ in range(REPEATS):
        width = 2.0 * norms * np.sqrt(2.0 * max(gap, 0.0))
        pieces = _pieces(objective, s, width, _sizes(objective, s, g, kept))
        try:
            lam, xs = _solve(objective, pieces, solver)
        except SolverError:
            return best_cut
        cut = _cut(objective, pieces, lam, xs)
        lower = cut.dual_value(objective.C)
        if lower > best_lower:
            best_cut, best_lower = cut, lower
        # the next restriction: the sizes with weight, and the highest pieces at the
        # answer's weights (their scores)
        kept = {p.size for p, weight in zip(pieces, lam) if not p.hinge and weight > KEEP}
        s, g = cut.scores, cut.subgradient
        upper = min(upper, cut.value)
        gap = upper - max(lower, best_lower)
        if gap <= tol * max(abs(upper), gap_floor(objective.C)):
            break
    return best_cut

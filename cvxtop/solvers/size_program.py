"""prec@k-svmperf's loss restricted to the labeling sizes and items near the top, as one
cvxpy program in the weights: a candidate and a cut for the cutting plane's stalled tail
on lists with more items than features.

SVMperf's loss is ``L = max(0, P_k, …, P_n)`` over the labeling sizes ``m``, with
``P_m(s) = k − y·s + max {u·(s + c_m) : u ∈ U_m}``, ``c_m = −(k/m)·y`` and ``U_m`` the hull
of the labelings of size ``m`` with an irrelevant item (:mod:`.size_dual`, Joachims 2005).
At a large ``C`` on features as shipped the optimum mixes dozens of sizes, each tying
items at its threshold: on MAGIC at C = 1e4 and k = 1, 55 pieces lie within 1e-6 of the
highest at the point 1,000 rounds reach (sizes 6,790 to 6,834), and the rounds' lower bound
gains a few digits per thousand rounds, since each round adds one vertex of one piece.

Here the loss is replaced, near the best point ``s``, by the sizes ``W`` whose pieces are
within :data:`PIECE_RTOL` of the highest (at most :data:`MAX_SIZES`), and per size the
items ranked within :data:`BAND` places of its threshold free (``F_m``), those above fixed
at 1 (``A_m``) and those below at 0:

    P̂_m(s) = k − y·s + Σ_{i ∈ A_m} (s_i + c_mi)
             + max {u·(s + c_m) on F_m : u ∈ [0, 1], Σu = m − |A_m|, and Σ_{y_i = 0} u_i >= 1
                    where A_m holds no irrelevant item},

whose vertices are labelings of size ``m`` with an irrelevant item, so ``P̂_m <= P_m``. The
program minimizes ``½‖w‖² + C·τ`` with ``τ >= 0``, ``τ >= P̂_m(Zw)`` for ``m ∈ W`` (each
maximum in its linear programming dual: a threshold, a hinge per free item and, where the
irrelevant item is asked for, its multiplier) and ``τ >= b_c + h_c·w`` for the cuts the
rounds hold, which keep its answer near the optimum where the restriction is loose (on
spambase's features as shipped, without them, its answers were far above the best point).
Every constraint lies below ``L``, so the program's value is at most the optimum, and where
the restriction holds the optimum's sizes and tied items its answer is the optimum.

The cutting plane checks what it takes from the program as any other point: its ``w`` is a
candidate best point, evaluated exactly, and its multipliers are one cut (:class:`Answer`).
Each size's multipliers of its free items' hinges ``μ_m`` over its weight ``λ_m``, with 1 on
``A_m``, are a fractional labeling moved onto ``U_m`` exactly up to rounding
(:func:`.size_dual.onto_size_polytope`), so ``L(s) >= P_m(s) >= k + c_m·u_m + (u_m − y)·s``
whatever the solver's accuracy; the weights, with those ``α`` of the given cuts, are clipped
at 0 and scaled to sum at most 1 (the floor ``L >= 0`` takes the rest), a convex
combination of valid cuts. The certificate stays the master's bound. The program is solved
in ``v = w/ρ`` at the loss weights of :mod:`.direct_program` ("Scale").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .. import _cvxpy
from ..exceptions import SolverError
from ..surrogates.prec_svmperf import count_pieces
from . import count_dual, direct_program
from .objective import RankingObjective
from .size_dual import _Piece, combination

__all__ = ["BAND", "MAX_SIZES", "PIECE_RTOL", "REPEATS", "Answer",
           "restricted_answer", "suits"]

#: Sizes whose piece at the best point is within this share of the highest (relative to
#: the loss) enter the program, at most :data:`MAX_SIZES` of the highest.
PIECE_RTOL, MAX_SIZES = 1e-3, 64
#: Items ranked within this many places of a size's threshold (either side) are free.
BAND = 64
#: Stalls of one solve at which the program is solved again, from the best point then.
REPEATS = 3


def suits(objective: RankingObjective) -> bool:
    """prec@k-svmperf on one list with more irrelevant items than ``k``, with more items
    than features (lists with as many features as items have the dual of
    :mod:`.size_dual`) and fewer than :data:`.count_dual.MIN_FEATURES` (from there the solve
    over counts of relevant items takes the stalls; on ``make_ranking_data(10⁴, 1,000)``
    this program over 47 sizes was far dearer than that solve), at ``C > 0``."""
    n, d = objective.Z.shape
    if objective.surrogate.dual_form != "box-hinge" or not objective.one_list \
            or not (d < n and d < count_dual.MIN_FEATURES and objective.C > 0):
        return False
    bound = objective.parts[0].bound
    return bound.n_neg > bound.k >= 1


@dataclass
class Answer:
    """The program's answer: its weights ``w``, and its multipliers as one valid cut,
    ``Σ_m λ_m (k + c_m·u_m + (u_m − y)·s) + Σ_c α_c (b_c + h_c·w)``: the sizes' part as the
    score vector ``g = Σ_m λ_m (u_m − y)`` and ``intercept = Σ_m λ_m (k + c_m·u_m)``, and the
    weights ``α`` of the cuts it was given (``Σλ + Σα <= 1``, the floor taking the rest)."""

    weights: np.ndarray
    g: np.ndarray
    intercept: float
    alpha: np.ndarray


def _pieces(scores: np.ndarray, y: np.ndarray, k: int, sizes: np.ndarray) -> list[_Piece]:
    """The restriction of each size at ``scores`` (module docstring): a partition of the
    items by their augmented scores at the band's two ends, no whole sort."""
    n = len(y)
    every = np.arange(n)
    pieces = []
    for m in sizes:
        c = -(k / m) * y
        top, bottom = max(0, m - BAND), min(n, m + BAND)
        order = np.argpartition(-(scores + c), sorted({top, bottom - 1}))
        pieces.append(_Piece(every, order[:top], order[top:bottom], int(m), c, False))
    return pieces


def _sizes(objective: RankingObjective, scores: np.ndarray) -> np.ndarray:
    """The sizes of the pieces within :data:`PIECE_RTOL` of the highest at ``scores``
    (at most :data:`MAX_SIZES`, the highest first); none where the loss is at its floor."""
    bound = objective.parts[0].bound
    counts, negatives, values = count_pieces(bound, scores)
    highest = float(values.max(initial=-np.inf))
    if not highest > 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-values, kind="stable")
    near = order[values[order] >= highest - PIECE_RTOL * highest][:MAX_SIZES]
    return np.unique(counts[near] + negatives[near])


def _program(objective: RankingObjective, pieces: list[_Piece], rows: np.ndarray,
             intercepts: np.ndarray, weight: float
             ) -> tuple[cp.Problem, cp.Variable, float, list, list, Any]:
    """The restricted program at loss weight ``weight`` in ``v = w/ρ``: the problem, ``v``,
    ``ρ``, per piece its constraint on ``τ`` and its free items' hinge constraints, and the
    constraint of the given cuts (``None`` without cuts)."""
    Z, C = objective.Z, objective.C
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    y, k = bound.y.astype(np.float64), bound.k
    rho = math.sqrt(C / weight)
    v = cp.Variable(Z.shape[1])
    tau = cp.Variable(nonneg=True)
    relevant = rho * np.asarray(Z.T @ y).ravel()
    constraints, on_tau, on_hinges = [], [], []
    for p in pieces:
        fixed = rho * np.asarray(Z[p.at_one].sum(axis=0)).ravel()
        threshold = cp.Variable()
        hinge = cp.Variable(len(p.free), nonneg=True)
        augmented = (rho * Z[p.free]) @ v + p.c[p.free] - threshold
        value = k + float(p.c[p.at_one].sum()) + (fixed - relevant) @ v \
            + (p.size - len(p.at_one)) * threshold + cp.sum(hinge)
        if np.all(y[p.at_one] == 1):
            # no irrelevant item fixed: the labelings need one among the free items
            # (Σ_{free, y = 0} u >= 1), whose multiplier r enters as in the surrogate's form
            need = cp.Variable(nonneg=True)
            augmented = augmented + need * (1.0 - y[p.free])
            value = value - need
        hinges = hinge >= augmented
        piece = tau >= value
        constraints += [hinges, piece]
        on_tau.append(piece)
        on_hinges.append(hinges)
    on_cuts = None
    if len(rows):
        on_cuts = tau >= intercepts + (rho * rows) @ v
        constraints.append(on_cuts)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(v) + weight * tau), constraints)
    return problem, v, rho, on_tau, on_hinges, on_cuts


def _on_simplex(lam: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weights clipped at 0 and, where they sum above 1, scaled to sum 1 (below 1 the
    floor ``L >= 0`` takes the rest): a convex combination of valid cuts."""
    lam, alpha = np.clip(lam, 0.0, None), np.clip(alpha, 0.0, None)
    total = math.fsum(lam) + math.fsum(alpha)
    if total > 1.0:
        lam, alpha = lam / total, alpha / total
    return lam, alpha


def _multipliers(constraints: list, weight: float) -> list[np.ndarray | None]:
    """The constraints' multipliers over the loss weight (``None`` where there are none)."""
    values = []
    for constraint in constraints:
        value = constraint.dual_value
        values.append(None if value is None else
                      np.asarray(value, dtype=np.float64).reshape(-1) / weight)
    return values


def restricted_answer(objective: RankingObjective, scores: np.ndarray, rows: np.ndarray,
                      intercepts: np.ndarray, weight: float, solver: str = "CLARABEL"
                      ) -> Answer | None:
    """The restricted program's answer near the best point's ``scores``, with the cuts
    ``intercepts + rows·w`` the rounds hold, at loss weight ``weight`` (:class:`Answer`);
    ``None`` where the loss is at its floor or the solver gives no point."""
    bound = objective.parts[0].bound
    sizes = _sizes(objective, scores)
    if not len(sizes):
        return None
    pieces = _pieces(scores, bound.y.astype(np.float64), bound.k, sizes)
    problem, v, rho, on_tau, on_hinges, on_cuts = _program(objective, pieces, rows,
                                                            intercepts, weight)
    try:
        _cvxpy.solve(problem, solver, direct_program.SOLVERS[solver],
                     what="prec@k-svmperf's loss restricted to its highest sizes",
                     accept_inaccurate=True, warn=False)
    except SolverError:
        return None
    if v.value is None or not np.all(np.isfinite(v.value)):
        return None
    lam = np.array([0.0 if m is None else float(m[0]) for m in _multipliers(on_tau, weight)])
    given = None if on_cuts is None else _multipliers([on_cuts], weight)[0]
    alpha = np.zeros(len(intercepts)) if given is None else given
    if not (np.all(np.isfinite(lam)) and np.all(np.isfinite(alpha))):
        lam, alpha = np.zeros(len(lam)), np.zeros(len(alpha))
    lam, alpha = _on_simplex(lam, alpha)
    g, intercept = combination(pieces, lam, _multipliers(on_hinges, weight),
                               bound.y.astype(np.float64), bound.k)
    return Answer(rho * np.asarray(v.value, dtype=np.float64), g, intercept, alpha)

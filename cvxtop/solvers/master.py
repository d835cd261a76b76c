"""The cutting plane's master problem: the dual QP over the simplex in the cuts' Gram
matrix, solved by the warm-started active-set method of :mod:`cvxtop.qp.simplex` (cvxpy the
reference and fallback; a second solve without the cuts far longer than those the answer
weighs, whose ridge can outweigh the short ones: :func:`_without_long_cuts`), and its
rigorous lower bound.

With ``α = Cλ`` the master's dual is ``D = C(b·λ − ½C‖Hλ‖²)``, a QP over the simplex with
``Q = G`` and ``c = b/C``. Any feasible ``λ`` gives a lower bound on the optimum (weak
duality); :func:`solve_master` evaluates it with each intercept lowered by its rounding
margin and the combination's norm raised by its own (:func:`.cut_store.cut_rounding`).
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from .cut_store import CutStore
from . import primal_master
from ..qp import refine_on_rows, solve_simplex_qp
from ..qp.simplex import dual_value, ridge_outweighs

__all__ = ["solve_master", "cvxpy_master", "polish", "dual_value", "own_gap",
           "rounding_allowance", "combination_rounding", "outlying_rows"]


def polish(lam: np.ndarray, G: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Refine an interior-point solution of the master to machine precision.

    On the support ``S`` of ``λ`` the master is an equality-constrained QP whose KKT
    system ``[G_SS 1; 1ᵀ 0][λ_S; μ] = [c_S; 1]`` is solved directly; the refined point is
    kept only if it is feasible and raises the dual value, so the rigorous lower bound can
    only improve.
    """
    support = np.flatnonzero(lam > 1e-9 * lam.max())
    m = len(support)
    kkt = np.zeros((m + 1, m + 1))
    kkt[:m, :m] = G[np.ix_(support, support)]
    kkt[:m, m] = kkt[m, :m] = 1.0
    solution = np.linalg.lstsq(kkt, np.r_[c[support], 1.0], rcond=None)[0]
    refined = np.zeros_like(lam)
    refined[support] = solution[:m]
    if np.all(refined >= 0) and abs(refined.sum() - 1.0) < 1e-12 \
            and dual_value(refined, G, c) > dual_value(lam, G, c):
        return refined / refined.sum()
    return lam


def cvxpy_master(G: np.ndarray, c: np.ndarray, solver: str,
                  options: dict[str, Any] | None) -> np.ndarray:
    """``max_λ cᵀλ − ½λᵀGλ`` over the simplex with cvxpy: the reference for the active-set
    master, and its fallback. Returns λ exactly feasible (clipped and renormalized)."""
    lam = cp.Variable(len(c), nonneg=True)
    problem = cp.Problem(cp.Maximize(c @ lam - 0.5 * cp.quad_form(lam, cp.psd_wrap(G))),
                         [cp.sum(lam) == 1])
    # an inaccurate master solution is fine: its λ is projected onto the simplex and the
    # bound is evaluated exactly there, so it stays rigorous
    _cvxpy.solve(problem, solver, options, what="the cutting-plane master",
                 accept_inaccurate=True, warn=False)
    value = np.maximum(np.asarray(lam.value, dtype=np.float64), 0.0)
    total = value.sum()
    if not np.isfinite(total) or total <= 0:
        raise SolverError("the cutting-plane master returned no usable solution",
                          status=str(problem.status))
    return polish(value / total, G, c)


#: The share of the cutting plane's gap (upper less lower bound) that the active-set
#: master's own gap from its ridge may take (:func:`cvxtop.qp.simplex.solve_simplex_qp`'s
#: ``accuracy``): early rounds, with a wide gap, take no proximal steps.
MASTER_SHARE = 0.1
#: How many times the cutting plane's gap an exact master's own gap, measured from the cuts'
#: rows, must exceed to send it to the program in the features' space
#: (:mod:`.primal_master`): the Gram form's answer is then broken, not merely inexact.
PRIMAL_RATIO = 1000.0
#: The longest pause, in exact masters, after tries of that program that did not halve the
#: master's own gap (each miss doubles the pause, a success ends it).
PRIMAL_PAUSE = 64


#: Cuts whose squared norms exceed this many times the largest of those the master's answer
#: weighs are left out of a second solve (:func:`_without_long_cuts`).
LONG_CUTS = 1e4


def _without_long_cuts(G: np.ndarray, c: np.ndarray, lam: np.ndarray, allowed: np.ndarray,
                       accuracy: float) -> np.ndarray:
    """The master's answer ``lam``, or the answer of the same master without the cuts far
    longer than those ``lam`` weighs (:data:`LONG_CUTS`) where that one is better (by its
    value without the ridge). The active-set master's ridge follows the longest cut it may
    use, weighed or not. Where the cuts at the optimum are short beside the early ones (a
    loss with a floor at a large C; on spambase's features as shipped, squared norms down
    to 1e-16 beside 1e3), that ridge can outweigh the master's whole value and hold its
    bound below the optimum: MAGIC's features as shipped, prec@k-avg at C = 1e4 on a path,
    started at the optimum and took 149 rounds at a relative gap of 1.02e-6, until pruning
    the store dropped the long cuts (docs/solvers.md, "The master's ridge"). Either answer
    is feasible, so the bound stays rigorous."""
    diagonal = np.diag(G)
    longest_weighed = float(diagonal[lam > 0].max())
    if not longest_weighed > 0:  # (the answer is a cut of zero norm)
        return lam
    short = allowed & (diagonal <= LONG_CUTS * longest_weighed)
    kept = np.count_nonzero(short)
    if kept < 2 or kept == np.count_nonzero(allowed):
        return lam
    again = solve_simplex_qp(G, c, lam, allowed=short, accuracy=accuracy)
    if again is not None and dual_value(again, G, c) > dual_value(lam, G, c):
        return again
    return lam


#: Failed active-set solves with the ridge of each row's own size
#: (:func:`_row_ridge_answer`) after which a cut store's masters go back to the ridge of
#: the longest cut alone: on lognormal sparse data (``benchmarks/hostile_exact.py``) that
#: solve did not converge in any of a fit's masters, each costing its 1,000 iterations
#: before the fallback.
ROW_RIDGE_MISSES = 3
#: How many times the median row an outlying row of ``Z`` is at least, from which every
#: master of a fit is solved with the ridge of each row's own size first (as those from
#: the rows, while that converges): the cuts that weigh the outlying item are about that
#: many times longer than the others, and the longest cut's ridge outweighs the short
#: ones' curvature; the active set then wanders over faces of a hundred nearly equal cuts of a
#: rank-6 Gram matrix (80 Gaussian items with one row 1e4 times the others, pAp@k-avg at
#: C = 1,000: 752 rounds, half their masters ending at the 1,000 iterations' limit).
#: MAGIC's and spambase's rows as shipped reach 3.4 and 161 times their medians, where
#: the longest cut's ridge and :func:`_without_long_cuts` serve better (docs/solvers.md,
#: "One row far longer than the others").
OUTLYING_ROW = 1e3


def outlying_rows(row_norms: np.ndarray) -> bool:
    """Whether the longest of the rows ``row_norms`` (of ``Z``) is at least
    :data:`OUTLYING_ROW` times as long as the median of those not zero."""
    norms = row_norms[row_norms > 0]
    return len(norms) > 0 and float(norms.max()) >= OUTLYING_ROW * float(np.median(norms))


def _row_ridge_answer(store: CutStore, G: np.ndarray, c: np.ndarray, allowed: np.ndarray,
                      accuracy: float) -> np.ndarray | None:
    """The active-set answer with a ridge of each row's own size, ``1e-12·G_ii`` (the
    longest cut's ridge outweighs a master whose answer weighs short cuts), while the
    store's misses of it stay below :data:`ROW_RIDGE_MISSES`; ``None`` if it is not tried
    or does not converge."""
    if store.row_ridge_misses >= ROW_RIDGE_MISSES:
        return None
    lam = solve_simplex_qp(G, c, store.lam[:store.used], allowed=allowed, cache=store.faces,
                           accuracy=accuracy, row_ridge=True)
    store.row_ridge_misses += lam is None
    return lam


#: The share of the active-set master's value that the pull of its ridge may reach
#: (:func:`cvxtop.qp.simplex.ridge_outweighs`) before the cutting plane asks for exact
#: masters at any gap (``cutting_plane.EXACT_MASTER_WIDE_ROUNDS``).
RIDGE_SHARE = 1.0


def solve_master(store: CutStore, C: float, gap: float = 0.0, from_rows: bool = False,
                 exact_at_point: bool = False) -> tuple[np.ndarray, float]:
    """The master solution ``w_c`` and the rigorous dual bound ``D(α)`` of the cuts in
    ``store`` (whose master weights and idle counts it updates). ``gap`` sets how
    accurately (:data:`MASTER_SHARE`): the cutting plane's upper less lower bound where it
    asks for the master's own accuracy, ``inf`` where it does not (no proximal steps).
    ``exact_at_point``: the cut of the last master's own point was one the store holds,
    with an exact intercept, so the model is exact there and the cutting plane's gap is
    the master's own; the answer from the rows is then sought as soon as the master's own
    gap, less its rounding, exceeds ``gap`` (:func:`_rows_answer`).
    ``from_rows`` (where the store keeps the cuts' rows ``h``, not their score
    subgradients): the active set is tried with a ridge of each row's own size first
    (:func:`_row_ridge_answer`), and its answer is then refined by Newton steps whose
    gradient comes from the rows (:func:`cvxtop.qp.refine_on_rows`). A store of a ``Z``
    with an outlying row (``store.outlying_rows``: :data:`OUTLYING_ROW`) tries that ridge
    first at every master."""
    b, active = store.b, store.active
    # With α = Cλ, D = C(b·λ − ½C‖Hλ‖²): the simplex QP in λ with Q = G, c = b/C. The
    # active-set method takes views of the slots up to the last one in use, and a mask
    # of those in use (no copy).
    lam = None
    if store.master == "active-set":
        used = store.used
        G, c, allowed = store.G[:used, :used], b[:used] / C, active[:used]
        accuracy = MASTER_SHARE * gap / C / C  # (C·C underflows below C = 1e-154)
        rows = from_rows and not store.scores
        lam_used = _row_ridge_answer(store, G, c, allowed, accuracy) \
            if rows or store.outlying_rows else None
        if lam_used is None:
            lam_used = solve_simplex_qp(G, c, store.lam[:used], allowed=allowed,
                                        cache=store.faces, accuracy=accuracy)
        if lam_used is not None:
            lam_used = _without_long_cuts(G, c, lam_used, allowed, accuracy)
            if rows:  # (G's rounding outweighs a master whose long cuts combine short)
                lam_used = refine_on_rows(store.cuts[:used], G, c, lam_used, allowed)
            lam = np.zeros(len(b))
            lam[:used] = lam_used
            if np.isinf(gap):  # (the test matters only while exact masters are not asked)
                store.ridge_outweighs = ridge_outweighs(G, c, lam_used, allowed,
                                                        RIDGE_SHARE)
    if lam is None:  # the cvxpy master: the reference, and the fallback
        slots = np.flatnonzero(active)
        # scaled so that the master's data are O(1) for the solver's tolerances
        scale = max(1.0, float(np.max(np.diag(store.G)[slots])))
        lam = np.zeros(len(b))
        lam[slots] = cvxpy_master(store.G[np.ix_(slots, slots)] / scale,
                                   b[slots] / (C * scale), store.solver, store.options)
    store.lam = lam
    alpha = C * lam  # zero on free slots
    Ha = store.combination(alpha)
    w_c = -Ha
    bound = _rigorous_bound(store, alpha, Ha)
    if np.isfinite(gap) and primal_master.suits(store):
        # an exact master asked for: where the rounding of its Gram form has broken the
        # answer, the master from the rows (primal_master)
        replaced = _rows_answer(store, C, gap, w_c, bound, exact_at_point)
        if replaced is not None:
            alpha, w_c, bound = replaced
    # the best single cut's bound too: the QP's ridge and tolerances follow its largest
    # diagonal entry, and beside the early cuts' large norms a near-optimal cut of a far
    # smaller norm (a dual solve's at large C) is weighed too coarsely (measured: the
    # 10,000 × 100,000 sparse set at C = 2,154 gave 5.1054 against that cut's 5.1153)
    single = np.where(active, b - 0.5 * C * np.diag(store.G), -np.inf)
    best = int(np.argmax(single))
    if alpha[best] < C and C * single[best] > bound:
        e = np.zeros_like(alpha)
        e[best] = C
        bound = max(bound, _rigorous_bound(store, e, store.combination(e)))
    # A cut is idle while it lies strictly below the model at w_c (judged by values, not
    # weights: the cvxpy master's interior-point weights are never exactly zero).
    values = b - store.G @ alpha  # b + Hᵀw_c, through the Gram matrix
    model = float(values[active].max())
    below = values < model - 1e-9 * max(1.0, abs(model))
    store.idle = np.where(active & below, store.idle + 1, 0)
    return w_c, bound


def _rows_answer(store: CutStore, C: float, gap: float, w_c: np.ndarray, bound: float,
                 exact_at_point: bool = False) -> tuple[np.ndarray, np.ndarray, float] | None:
    """``(α, w_c, bound)`` of the master solved from the cuts' rows, where the answer
    ``w_c`` (with ``bound``) has an own gap above :data:`PRIMAL_RATIO` times the cutting
    plane's ``gap`` (with ``exact_at_point``, an own gap less its rounding above ``gap``:
    :func:`solve_master`) and the rows' answer halves it (its ``λ`` then stored, the higher
    of the two bounds returned: both bound the same optimum); else ``None``. The answer's
    point is the program's own ``w`` where its own gap is below that of ``−Hα`` from the
    program's weights (:func:`.primal_master.primal_master_answer`). Tries that do not
    halve it pause the next ones (:data:`PRIMAL_PAUSE`)."""
    store.primal_wait -= 1
    if store.primal_wait >= 0:
        return None
    master_gap = own_gap(store, C, w_c, bound)
    if exact_at_point:
        # the part of the own gap a better answer can close: not the cuts' rounding
        if not master_gap - rounding_allowance(store, C * store.lam) > gap:
            return None
    elif not master_gap > PRIMAL_RATIO * gap:
        return None
    answer = primal_master.primal_master_answer(store, C)
    if answer is not None:
        lam, w = answer
        alpha = C * lam
        Ha = store.combination(alpha)
        rows_bound = max(bound, _rigorous_bound(store, alpha, Ha))
        # the program's own point, or the combination of its weights, whichever is nearer
        # the master's optimum (both bound it from above; the weights' bound is the same)
        points = [-Ha] if w is None else [w, -Ha]
        gaps = [own_gap(store, C, x, rows_bound) for x in points]
        best = int(np.argmin(gaps))
        if gaps[best] <= 0.5 * master_gap:
            store.lam, store.primal_misses = lam, 0
            return alpha, points[best], rows_bound
    store.primal_misses += 1
    store.primal_wait = min(2 ** store.primal_misses, PRIMAL_PAUSE)
    return None


def own_gap(store: CutStore, C: float, w_c: np.ndarray, bound: float) -> float:
    """The master's own duality gap at its answer ``w_c`` with dual bound ``bound``: its
    objective ``½‖w_c‖² + C·max_c (b_c + h_c·w_c)`` from the cuts' rows (not through their
    Gram matrix, whose rounding a master of long cuts combining short outweighs), less the
    bound; ``0`` for a store of score subgradients (no rows to read)."""
    if store.scores:
        return 0.0
    used = store.used
    values = store.b[:used] + store.cuts[:used] @ w_c
    model = float(values[store.active[:used]].max())
    return 0.5 * float(w_c @ w_c) + C * model - bound


def rounding_allowance(store: CutStore, alpha: np.ndarray) -> float:
    """How far the rigorous bound at ``α`` lies below the cuts' computed ``D(α)``: what the
    rounding of the cuts (their intercepts' margins and their rows' errors, the latter
    times ``‖Hα‖``) and of the bound's own sums costs the certificate there."""
    Ha = store.combination(alpha)
    exact = float(store.b @ alpha) - 0.5 * float(Ha @ Ha)
    return exact - _rigorous_bound(store, alpha, Ha)


def combination_rounding(store: CutStore, alpha: np.ndarray) -> float:
    """How far the computed ``Hα`` can lie from the exact cuts' combination: the errors of
    the h's (``h_error``) and of the combination's m sums."""
    m, eps = int(np.count_nonzero(alpha)) + 1, np.finfo(np.float64).eps
    norms = np.sqrt(np.maximum(np.diag(store.G), 0.0))
    return float(store.h_error @ alpha) + (m + store.row) * eps * float(norms @ alpha)


def _rigorous_bound(store: CutStore, alpha: np.ndarray, Ha: np.ndarray) -> float:
    """``D(α)`` of the exact cuts, bounded below through their rounding: each intercept
    lowered by its margin, and ``‖Hα‖`` raised by :func:`combination_rounding`; ``b·α``'s
    own m terms carry a rounding of their own."""
    m, eps = int(np.count_nonzero(alpha)) + 1, np.finfo(np.float64).eps
    combined = float(np.linalg.norm(Ha)) + combination_rounding(store, alpha)
    return float(store.b @ alpha) - float(store.margin @ alpha) \
        - 2.0 * m * eps * float(np.abs(store.b) @ alpha) - 0.5 * combined * combined

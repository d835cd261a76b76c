"""The 1-slack cutting-plane engine with a certified gap.

A convex surrogate is the maximum of the affine functions its subgradients define, so every
query ``w_t`` yields a cut valid everywhere: with ``f_t, g_t`` the loss and a score
subgradient at ``s_t = Z w_t``,

    L(y, Z w) >= b_t + h_t·w,   h_t = Zᵀ g_t,   b_t = f_t − h_t·w_t.

For prec@k-avg this is the maximizing labeling of Kar et al. 2015 Algorithm 4, the separation
oracle of the structural-SVM view (Joachims 2005). The master problem replaces ``L`` by the
maximum of the cuts; we solve its dual, a QP over the simplex scaled by ``C``,

    max_{α >= 0, Σα = C}  D(α) = Σ_c α_c b_c − ½‖Σ_c α_c h_c‖²,   w_c = −Σ_c α_c h_c,

with cvxpy. ``D(α)`` at any feasible ``α`` is a lower bound on the optimum (weak duality):
after projecting the solver's ``α`` exactly onto the feasible set the bound is rigorous. The
best objective seen is an upper bound, and the method stops when the relative gap between
them is at most ``tol``.

Where the next cut is taken follows OCAS (Franc & Sonnenburg 2008), which needs far fewer
rounds than taking it at the master solution (plain BMRM): the next cut is taken at
``w_b + μ(w_c − w_b)``, between the best point ``w_b`` and the master's ``w_c``, and the best
point moves to a query that improves on it. OCAS also moves the best point to the minimizer
of the objective on the segment towards ``w_c`` every round (a line search,
:mod:`.line_search`, using the surrogate's values and subgradients and no extra matrix
product, since the scores are affine in the step; it stops once its step is provably within
:data:`LINE_SEARCH_SHARE` of the current gap of the exact one). Its four or five surrogate
evaluations cost more than a round itself until the products with the cut store dominate a
round (:data:`SEARCH_STORE_RATIO`), so by default it starts only then, or from the first
round on the candidates of prec@k's surrogates when ``X`` is wide (:data:`SEARCH_FEATURES`,
where it is cheap against a round's products). A query whose cut
the store holds already lies where the model is exact; the store refuses the repeat, and
the master's point itself is queried next.

The master is a small QP over the simplex in the Gram matrix ``G = HᵀH`` of the cuts, kept
up to date as cuts come and go (one product ``Hᵀh`` per round), and solved by a warm-started
active-set method (:mod:`.simplex_qp`): successive masters differ by one cut, so it takes a
few iterations and its cost follows the number of active cuts, not the dimension. cvxpy
(the same QP in ``G``, polished on its support) is the reference and the fallback. When the
slots run out, cuts that stayed below the model for a while are replaced by their aggregate
(a convex combination of valid cuts is valid and keeps the last master solution feasible,
so the bound never falls back); that happens only once the store has reached room for a
full active set or its memory budget.

For prec@k-avg and -max on many features the rounds alone are slow (each adds one vertex
of the optimum's face, which has about d of them); after :data:`DUAL_SOLVE_ROUNDS` rounds
the dual is also solved over the items (:mod:`.selection_dual`), and its answer joins the
store as one more valid cut, with its weights as a candidate best point. The same holds
for prec@k-svmperf where the best point's labeling predicts no relevant item: its hinge
part is solved over the irrelevant items, and prec@k-struct's dual over the items
(:mod:`.box_dual`).
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Callable

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .. import _cvxpy
from .._threads import single_threaded_blas
from .._validation import check_fraction
from ..exceptions import SolverError
from . import box_dual
from .line_search import line_search as segment_minimum
from .objective import RankingObjective
from .parallel_products import ProductThreads, product_threads
from .result import EXACT_MAX_ITER, EXACT_TOL, SolveResult
from .selection_dual import selection_dual_cut
from .simplex_qp import FaceCache, solve_simplex_qp

__all__ = ["solve_cutting_plane"]

#: Relative change of the objective below which a new point counts as no improvement.
ROUNDING = 1e-13
#: The line search stops once its step is provably within this share of the current
#: (absolute) gap of the line's minimum: a more exact step would not move the bounds. For a
#: surrogate evaluated on the whole list the share is smaller: there the best point, which
#: only the search moves, is what the last rounds wait for (on the sparse 50,000 × 50,000
#: set at SVMperf's C_perf 10 the lower bound was within 1e-6 of the optimum after 170 of
#: 541 rounds), and a closer step took those 541 rounds to 479 (measured before the hinge
#: dual of :mod:`.box_dual`, which now ends that solve after 20 rounds).
LINE_SEARCH_SHARE, LINE_SEARCH_SHARE_WHOLE_LIST = 0.01, 0.003
#: OCAS's μ, the share of the way from the best point to the master's solution at which the
#: next cut is taken (the best point moves only to a query that improves on it until the
#: line search starts, and a longer step than OCAS's 0.1 finds better points sooner).
STEP_FRACTION = 0.2
#: The line search starts once a round's two products with the cut store read this many
#: numbers per item of the list (the store's slots in use times its row length, against
#: 50 n): from there a round costs enough more than the search's evaluations (about four
#: oracle calls on the whole list, or far less on the candidates of :mod:`.line_search`)
#: that the rounds it saves pay for them. On the sparse 50,000 × 50,000 set it
#: starts after 50 rounds; on MAGIC, spambase and letter it would take 4,000 or more cuts
#: (never within the default 2,000 rounds), and on the lists of
#: ``benchmarks/grouped_exact.py`` (d = 10) millions.
SEARCH_STORE_RATIO = 50
#: Where the segment is evaluated on its candidates, the search costs about two passes over
#: the scores and a few cheap evaluations, and it runs from the first round once ``Z``
#: holds this many numbers per item: there it is under a tenth of a round's products, and
#: the best point it finds is also the dual solve's start (:mod:`.selection_dual`)
#: (measured: docs/solvers.md, "Measurements behind the constants").
SEARCH_FEATURES = 500
#: Memory for stored cuts (d × slots doubles) before stale cuts are aggregated.
STORE_BYTES = 256 * 2**20
#: Rounds after which prec@k-avg's or -max's dual is solved over the items from the best
#: point (:mod:`.selection_dual`), while the gap is above ``tol``: its cut closes the gap at
#: once where the rounds would add one vertex of the optimum's face at a time.
#: prec@k-svmperf's hinge part and prec@k-struct have their own rounds
#: (:data:`.box_dual.SOLVE_ROUNDS`).
DUAL_SOLVE_ROUNDS = frozenset({50, 150, 400, 1000})
#: The relative gap the dual solve aims at when the rounds' own ``tol`` is zero.
DUAL_SOLVE_TOL = 1e-8


def _dual(lam: np.ndarray, G: np.ndarray, c: np.ndarray) -> float:
    return float(c @ lam) - 0.5 * float(lam @ G @ lam)


def _polish(lam: np.ndarray, G: np.ndarray, c: np.ndarray) -> np.ndarray:
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
            and _dual(refined, G, c) > _dual(lam, G, c):
        return refined / refined.sum()
    return lam


def _cvxpy_master(G: np.ndarray, c: np.ndarray, solver: str,
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
    return _polish(value / total, G, c)


def _numbers_per_item(Z: Any) -> float:
    """The numbers ``Z`` stores per item (its features when dense, its nonzeros per row when
    sparse): what a product with it reads per item."""
    stored = Z.nnz if sp.issparse(Z) else Z.size
    return stored / max(Z.shape[0], 1)


def in_score_space(n_items: int, n_features: int) -> bool:
    """Whether the cut store keeps a cut ``h = Zᵀg`` as its score subgradient ``g``: when
    there are fewer than half as many items as features (wide, usually sparse, data), a
    row of ``n`` numbers instead of ``d`` makes the store's products cheaper by ``d/n``,
    for two more products with ``Z`` a round."""
    return 2 * n_items < n_features


class _CutBundle:
    """Cuts ``L(Zw) >= b_c + h_c·w`` in slots, with their Gram matrix ``G = HᵀH`` kept up
    to date, and pruning by aggregation.

    The cuts are stored slot-major, one row of ``cuts`` per slot: ``h_c`` itself, or on wide
    data (:func:`in_score_space`) the score subgradient ``g_c`` with ``h_c = Zᵀg_c``, and then
    ``G``'s new column is ``g_cᵀ(Z h)`` and a combination ``Hα`` is ``Zᵀ(Σ α_c g_c)``. Every
    product with the rows runs over the slots up to the last one in use, or over the
    master's support alone when that is smaller: at d = 50,000 a product with a whole store
    of d-dimensional rows costs as much as a pass over a sparse ``X``."""

    def __init__(self, Z: Any, capacity: int, patience: int, master: str, solver: str,
                 options: dict[str, Any] | None, threads: ProductThreads) -> None:
        n, d = Z.shape
        self.Z, self.scores, self.threads = Z, in_score_space(n, d), threads
        self.row = n if self.scores else d
        self.patience, self.master = patience, master
        self.solver, self.options = solver, options
        self.faces = FaceCache()  # the master's last factored face, for the next master
        # Cuts are kept (the store doubling as needed) up to room for a full active set,
        # 2(rank + 2) with rank <= min(n, d), within a memory budget; past that, stale cuts
        # are aggregated.
        full = 2 * (min(n, d) + 2)
        self.limit = max(capacity, min(full, STORE_BYTES // (8 * max(self.row, 1))))
        # The rows of every slot up to the limit are reserved at once: zeroed pages cost no
        # memory until a cut is written to them, and the store then does not copy its rows
        # as it grows (at 50,000 features a doubling copied up to 200 MB).
        self.cuts = np.zeros((self.limit, self.row))
        self._used = 0  # one past the last slot in use (:attr:`used`)
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        if len(self.cuts) < capacity:  # past the limit: the rows double too
            rows = np.zeros((capacity, self.row))
            rows[:len(self.cuts)] = self.cuts
            self.cuts = rows
        self.G = np.zeros((capacity, capacity))
        self.b = np.zeros(capacity)
        # each cut's rounding (:func:`_cut_rounding`): of its intercept, and of its h
        self.margin = np.zeros(capacity)
        self.h_error = np.zeros(capacity)
        self.active = np.zeros(capacity, dtype=bool)
        self.idle = np.zeros(capacity, dtype=np.int64)
        self.lam = np.zeros(capacity)

    @property
    def used(self) -> int:
        """One past the last slot in use: products with the cuts stop there."""
        return self._used

    def _recount(self) -> None:
        in_use = self.active.nonzero()[0]
        self._used = int(in_use[-1]) + 1 if len(in_use) else 0

    def combination(self, weights: np.ndarray) -> np.ndarray:
        """``H @ weights`` for weights that vanish on free slots, over their support."""
        support, used = np.flatnonzero(weights), self.used
        if 2 * len(support) < used:
            rows = self.threads.times_rows(weights[support], self.cuts[support])
        else:
            rows = self.threads.times_rows(weights[:used], self.cuts[:used])
        return np.asarray(self.Z.T @ rows).ravel() if self.scores else rows

    def _aggregate_stale(self, patience: int) -> None:
        """Replace the cuts that stayed below the model for ``patience`` rounds by their
        convex combination with the last master weights (valid, and it keeps the last
        master solution feasible, so the lower bound never falls back)."""
        stale = np.flatnonzero(self.idle >= patience)
        if len(stale) < 2:
            return
        weight = self.lam[stale].sum()
        mix = self.lam[stale] / weight if weight > 0 else None
        self.active[stale], self.lam[stale] = False, 0.0
        if mix is not None:
            keep = stale[0]
            self.cuts[keep] = mix @ self.cuts[stale]
            self.faces.rewritten(int(keep))
            self.b[keep] = float(self.b[stale] @ mix)
            self.margin[keep] = float(self.margin[stale] @ mix)
            self.h_error[keep] = float(self.h_error[stale] @ mix)
            column = self.G[:, stale] @ mix
            column[keep] = float(mix @ self.G[np.ix_(stale, stale)] @ mix)
            self.G[:, keep] = self.G[keep, :] = column
            self.active[keep], self.idle[keep] = True, 0
            # the merged cut carries the stale cuts' weight, so Σ λ_c h_c, the last master
            # point, is unchanged and the next master starts there
            self.lam[keep] = weight
        self._compact()
        self._recount()

    def _compact(self) -> None:
        """Move the cuts in use to the first slots, so that the products, which run up to
        the last slot in use, run over them alone."""
        slots = np.flatnonzero(self.active)
        m = len(slots)
        if m == 0 or slots[-1] == m - 1:
            return
        order = np.arange(m)  # new slot i holds old slot order[i]
        holes = np.flatnonzero(~self.active[:m])
        order[holes] = slots[slots >= m]
        self.cuts[holes] = self.cuts[order[holes]]
        for values in (self.b, self.margin, self.h_error, self.idle, self.lam):
            values[:m] = values[order]
        self.G[:m, :m] = self.G[np.ix_(order, order)]
        self.active[:m], self.active[m:] = True, False
        self.faces = FaceCache()  # the slots of the cached face moved

    def _free_slot(self) -> int:
        """A free slot: the first unused one; else, below the slot limit, a new one (the
        capacity doubles, up to the limit); else one freed by aggregating stale cuts (idle
        for ``patience`` rounds, or for one round once the store has used its memory
        budget); else a new one (the capacity doubles past the limit)."""
        if self.active.all() and len(self.b) >= self.limit:
            self._aggregate_stale(self.patience)
            if self.active.all() and 8 * len(self.b) * self.row >= STORE_BYTES:
                self._aggregate_stale(1)
        free = np.flatnonzero(~self.active)
        if len(free):
            return int(free[0])
        m = len(self.b)
        G, b, margin, h_error = self.G, self.b, self.margin, self.h_error
        idle, lam = self.idle, self.lam
        self._allocate(min(2 * m, self.limit) if m < self.limit else 2 * m)
        self.G[:m, :m], self.b[:m], self.active[:m] = G, b, True
        self.margin[:m], self.h_error[:m] = margin, h_error
        self.idle[:m], self.lam[:m] = idle, lam
        return m

    def add(self, h: np.ndarray, g: np.ndarray, offset: float, rounding: tuple[float, float],
            refuse_repeat: bool = True) -> bool:
        """Add the cut ``b_c + h·w`` with ``h = Zᵀg`` and its ``rounding`` (the bounds on
        the errors of ``b_c`` and of ``h``, :func:`_cut_rounding`), unless
        ``refuse_repeat`` and the store holds it already; whether it was added."""
        slot = self._free_slot()
        row = g if self.scores else h
        self.cuts[slot], self.b[slot] = row, offset
        self.margin[slot], self.h_error[slot] = rounding
        self.faces.rewritten(slot)
        self.active[slot], self.idle[slot] = True, 0
        used = self._used = max(self._used, slot + 1)
        column = np.zeros(len(self.b))
        # h_cᵀh for every stored cut: O(row·slots), the one product with the rows
        column[:used] = self.threads.rows_times(
            self.cuts[:used], np.asarray(self.Z @ h).ravel() if self.scores else h)
        if refuse_repeat and self._repeats(slot, row, offset, column):
            self.active[slot] = False
            self._recount()
            return False
        self.G[:, slot] = self.G[slot, :] = column
        return True

    def _repeats(self, slot: int, row: np.ndarray, offset: float, column: np.ndarray
                 ) -> bool:
        """Whether an active cut other than ``slot`` has the same row and intercept (to
        rounding): a query on a piece of ``L`` the model holds already gives that piece's
        cut again. Found through the Gram column (``h_c·h = ‖h‖² = ‖h_c‖²``) and confirmed
        on the rows themselves."""
        norm = column[slot]
        close = 1e-12 * max(norm, 1e-300)
        near = (np.abs(column[:self._used] - norm) <= close).nonzero()[0]
        return any(c != slot and self.active[c] and abs(self.G[c, c] - norm) <= close
                   and abs(self.b[c] - offset) <= 1e-12 * max(1.0, abs(offset))
                   and np.array_equal(self.cuts[c], row) for c in near)

    def aggregate_line(self, w: np.ndarray, d: np.ndarray, w_c: np.ndarray, C: float
                       ) -> tuple[float, float]:
        """The last master's aggregate cut ``Σ λ_c (b_c + h_c·x)`` (a convex combination of
        cuts, so below ``L``, and equal to the cut model at ``w_c``) along ``x = w + τd``:
        its intercept and slope in ``τ``. Its ``Σ λ_c h_c`` is ``−w_c/C``: no product with
        the cuts."""
        return float(self.b @ self.lam) - float(w @ w_c) / C, -float(d @ w_c) / C

    def solve_master(self, C: float) -> tuple[np.ndarray, float]:
        """The master solution ``w_c`` and the rigorous dual bound ``D(α)``."""
        b, active = self.b, self.active
        # With α = Cλ, D = C(b·λ − ½C‖Hλ‖²): the simplex QP in λ with Q = G, c = b/C. The
        # active-set method takes views of the slots up to the last one in use, and a mask
        # of those in use (no copy).
        lam = None
        if self.master == "active-set":
            used = self.used
            lam_used = solve_simplex_qp(self.G[:used, :used], b[:used] / C, self.lam[:used],
                                        allowed=active[:used], cache=self.faces)
            if lam_used is not None:
                lam = np.zeros(len(b))
                lam[:used] = lam_used
        if lam is None:  # the cvxpy master: the reference, and the fallback
            slots = np.flatnonzero(active)
            # scaled so that the master's data are O(1) for the solver's tolerances
            scale = max(1.0, float(np.max(np.diag(self.G)[slots])))
            lam = np.zeros(len(b))
            lam[slots] = _cvxpy_master(self.G[np.ix_(slots, slots)] / scale,
                                       b[slots] / (C * scale), self.solver, self.options)
        self.lam = lam
        alpha = C * lam  # zero on free slots
        Ha = self.combination(alpha)
        w_c = -Ha
        # A cut is idle while it lies strictly below the model at w_c (judged by values, not
        # weights: the cvxpy master's interior-point weights are never exactly zero).
        values = b - self.G @ alpha  # b + Hᵀw_c, through the Gram matrix
        model = float(values[active].max())
        below = values < model - 1e-9 * max(1.0, abs(model))
        self.idle = np.where(active & below, self.idle + 1, 0)
        # D(α) of the exact cuts, bounded below through their rounding: each intercept
        # lowered by its margin, and ‖Hα‖ raised by the errors of the h's (h_error) and of
        # the combination's m sums; b·α's own m terms carry a rounding of their own
        m, eps = int(np.count_nonzero(alpha)) + 1, np.finfo(np.float64).eps
        norms = np.sqrt(np.maximum(np.diag(self.G), 0.0))
        combined = float(np.linalg.norm(Ha)) + float(self.h_error @ alpha) \
            + (m + self.row) * eps * float(norms @ alpha)
        return w_c, float(b @ alpha) - float(self.margin @ alpha) \
            - 2.0 * m * eps * float(np.abs(b) @ alpha) - 0.5 * combined * combined


def _frobenius(Z: Any) -> float:
    """``‖Z‖_F`` (of the stored values, for a sparse ``Z``)."""
    data = Z.data if sp.issparse(Z) else np.asarray(Z)
    return float(np.sqrt(np.sum(np.square(data, dtype=np.float64))))


def _cut_rounding(intercept: float, g: np.ndarray, scores: np.ndarray | None,
                  norm_Z: float) -> tuple[float, float]:
    """What rounding can have put into a cut ``L(Zw) >= b + hᵀw``: the intercept ``b = L(s)
    − g·s`` is a difference of sums of ``n`` terms (error at most ``2(n+1)·ε·(|L(s)| +
    |g|·|s|)``), and the computed ``h = Zᵀg`` lies within ``(n+1)·ε·‖Z‖_F·‖g‖`` of the
    exact one. The lower bound counts the intercept lowered by the first and the norm of
    the cuts' combination raised by the second (:meth:`_CutBundle.solve_master`), so that
    it holds whatever the scale: at scores near 1e20 an intercept loses its digits to the
    products it is the difference of, and without these margins a bound came out above a
    feasible objective."""
    n, eps = len(g), np.finfo(np.float64).eps
    spread = abs(intercept) if scores is None else \
        abs(intercept) + float(np.abs(g) @ np.abs(scores))
    return 2.0 * (n + 1) * eps * spread, (n + 1) * eps * norm_Z * float(np.linalg.norm(g))


def _final_bounds(objective: RankingObjective, best: np.ndarray, lower: float,
                  upper: float, exact_scores: bool) -> tuple[float, float, float]:
    """Upper bound at ``best``: ``upper`` when it was computed on the scores ``Z @ best``
    themselves (``exact_scores``), else recomputed from scratch (the scores were updated
    incrementally along the line searches); the lower bound; and the relative gap.

    Both bounds carry floating-point rounding; a lower bound above the objective of a
    feasible point (the best one, or the zero model) by more than that would be a failed
    certificate, and is reported as such.
    """
    if not exact_scores:
        upper = objective.value(best)
    zero = objective.value(np.zeros_like(best))  # a feasible objective the bound must not pass
    slack = 1e-12 * max(abs(upper), 1.0)
    if lower > min(upper, zero) + slack:
        raise SolverError(f"the certificate failed: the lower bound {lower!r} is above the "
                          f"objective {min(upper, zero)!r} of a feasible point (a cut lost its "
                          "validity to rounding; please report it)", status="certificate_failed")
    lower = min(lower, upper)
    return upper, lower, (upper - lower) / max(abs(upper), 1e-12)


def solve_cutting_plane(
    objective: RankingObjective,
    *,
    tol: float = EXACT_TOL,
    max_iter: int = EXACT_MAX_ITER,
    solver: str = "CLARABEL",
    solver_options: dict[str, Any] | None = None,
    w0: np.ndarray | None = None,
    capacity: int = 64,
    patience: int = 100,
    step_fraction: float | None = None,
    line_search: bool | None = None,
    master: str = "active-set",
    accept_inaccurate: bool = False,
    callback: Callable[[int, float, float], None] | None = None,
    stop: Callable[[float, float], bool] | None = None,
) -> SolveResult:
    """Minimize ``½‖w‖² + C·L(y, Zw)`` to a certified relative gap ``tol``.

    Parameters
    ----------
    objective : RankingObjective
        The problem (convex surrogate).
    tol : float
        Stop when ``(upper − lower)/|upper| <= tol``.
    max_iter : int
        Rounds (oracle cuts) allowed; reaching it raises :class:`SolverError` (status
        ``max_iter``) unless ``accept_inaccurate``, which warns and returns the best point.
    solver : str
        The cvxpy solver of the master problem.
    solver_options : dict, optional
        Its options, passed to cvxpy's ``solve``.
    w0 : array of shape (d,), optional
        Starting point (a warm start); zeros by default.
    capacity : int
        Initial number of cut slots. The store doubles when every slot is in use, up to
        room for a full active set (``2(d + 2)`` cuts, within :data:`STORE_BYTES`); past
        that, cuts idle for ``patience`` rounds are aggregated. Storage therefore follows
        the number of cuts the solve needs, not ``d²``.
    patience : int
        Rounds a cut must stay below the model before it may be aggregated away (once the
        store has used :data:`STORE_BYTES`, one round). Aggregating sooner loses cuts that
        come back: on Spambase pAp@k-ts (d = 57) at C = 1 and 10, 10 rounds left the gap
        stuck near 1e-6 after 2000 rounds, where 100 certify it in 545 and 607.
    step_fraction : float, optional
        OCAS's μ: the next cut is taken at ``w_b + μ(w_c − w_b)`` (:data:`STEP_FRACTION` by
        default).
    line_search : bool, optional
        Whether the best point moves to the minimizer of the objective on the segment towards
        ``w_c`` every round (OCAS), or only to a query that improves on it. By default
        (``None``) the search starts once the store's products make a round dearer than its
        evaluations (:data:`SEARCH_STORE_RATIO`), and on the candidates of prec@k's
        surrogates from the first round when ``Z`` is wide (:data:`SEARCH_FEATURES`): on the
        UCI sets, dense synthetic data up to 10⁶ × 50 and grouped lists the rounds it saves
        cost less than it does
        (``benchmarks/exact_scaling.py``, ``benchmarks/svmperf_head_to_head.py``,
        ``benchmarks/grouped_exact.py``), on sparse data with 50,000 features more.
    master : {"active-set", "cvxpy"}
        The master's solver: the warm-started active-set method of :mod:`.simplex_qp`
        (falling back to cvxpy if it does not converge), or cvxpy with ``solver`` alone
        (the reference).
    callback : callable(round, upper, lower), optional
        Called after every round (progress bars use it).
    stop : callable(upper, lower) -> bool, optional
        A caller's own stopping rule on the bounds, checked after every round; when it
        holds the best point is returned with status ``"converged"`` and its bounds (the
        certificate of an approximate solver's model, :mod:`.certificate`).
    """
    if not objective.surrogate.convex:
        raise ValueError(f"{objective.surrogate.name} is not convex: the cutting plane needs a "
                         "convex surrogate")
    if master not in ("active-set", "cvxpy"):
        raise ValueError(f"master must be 'active-set' or 'cvxpy', got {master!r}")
    if step_fraction is not None:
        step_fraction = check_fraction(step_fraction, "step_fraction", closed_right=True)
    if line_search is not None and not isinstance(line_search, (bool, np.bool_)):
        raise TypeError(f"line_search must be True, False or None, got {line_search!r}")
    with single_threaded_blas(), product_threads() as threads:
        return _cutting_plane(objective, threads, tol, max_iter, solver, solver_options, w0,
                              capacity, patience, step_fraction, line_search, master,
                              accept_inaccurate, callback, stop)


def _cutting_plane(objective: RankingObjective, threads: ProductThreads, tol: float,
                   max_iter: int, solver: str, solver_options: dict[str, Any] | None,
                   w0: np.ndarray | None, capacity: int, patience: int,
                   step_fraction: float | None, line_search: bool | None, master: str,
                   accept_inaccurate: bool,
                   callback: Callable[[int, float, float], None] | None,
                   stop: Callable[[float, float], bool] | None) -> SolveResult:
    """The rounds, with the large products over ``threads`` (:mod:`.parallel_products`)."""
    Z, C = threads.operator(objective.Z), objective.C
    d = Z.shape[1]
    if step_fraction is None:
        step_fraction = STEP_FRACTION
    share = LINE_SEARCH_SHARE if objective.restricted_segment \
        else LINE_SEARCH_SHARE_WHOLE_LIST
    # by the rule (line_search None) the search starts once the store is dear
    searched, search_later = bool(line_search), line_search is None
    if search_later and objective.restricted_segment \
            and _numbers_per_item(objective.Z) >= SEARCH_FEATURES:
        searched, search_later = True, False
    bundle = _CutBundle(Z, capacity, patience, master, solver, solver_options, threads)
    norm_Z = _frobenius(objective.Z)
    if w0 is None:  # the zero model's scores need no product
        best, best_s = np.zeros(d), np.zeros(Z.shape[0])
    else:
        best = np.asarray(w0, dtype=np.float64).copy()
        best_s = np.asarray(Z @ best).ravel()
    # whether best_s is Z @ best itself, not updated along line searches (then the value
    # seen at best is already the final one)
    exact_scores = True
    dual_solves = True  # whether the dual solve over the items may still be tried
    box = box_dual.suits(objective)  # whether its dual over the items is a box with one sum
    dual_rounds = box_dual.SOLVE_ROUNDS if box else DUAL_SOLVE_ROUNDS
    query, query_s, mu = best, best_s, 0.0
    upper, lower, gap = np.inf, -np.inf, np.inf
    stats = {"dual_solves": 0, "dual_solve_seconds": 0.0, "dual_steps": 0}
    best_oracle = None  # L and a score subgradient at the best point, once known
    for it in range(1, max_iter + 1):
        loss, g = objective.loss_and_score_gradient(query_s)
        value = 0.5 * float(query @ query) + C * loss
        if value < upper:
            upper, best, best_s, best_oracle = value, query, query_s, (loss, g)
            exact_scores = it == 1
        h = Z.T @ g
        # a cut the store holds already is refused, and the master's point is queried next;
        # a repeat there too means the model is exact at that point, and only the master's
        # own inaccuracy (the cvxpy master's interior-point answer) leaves a gap: that cut
        # is stored again, which changes the master's problem
        new_cut = bundle.add(h, g, loss - float(g @ query_s),
                             _cut_rounding(loss, g, query_s, norm_Z), refuse_repeat=mu < 1.0)
        if it in dual_rounds and dual_solves \
                and (upper - lower) > tol * max(abs(upper), 1e-12):
            # (a caller that stops the rounds itself passes tol = 0: its cut then aims at 1e-8)
            aim = tol if tol > 0 else DUAL_SOLVE_TOL
            started = time.perf_counter()
            cut = box_dual.box_dual_cut(objective, best_s, best_oracle[1], aim) \
                if box else selection_dual_cut(objective, best, aim, stats)
            stats["dual_solves"] += 1
            stats["dual_solve_seconds"] += time.perf_counter() - started
            dual_solves = cut is not None  # after a failed solve, the rounds alone
            if cut is not None:  # a near-optimal dual point: its cut, and its weights
                bundle.add(cut.h, cut.g, cut.intercept,
                           _cut_rounding(cut.intercept, cut.g, None, norm_Z))
                if cut.value < upper:
                    upper, best, best_s = cut.value, cut.weights, cut.scores
                    best_oracle, exact_scores = (cut.loss, cut.subgradient), True
        w_c, bound = bundle.solve_master(C)
        lower = max(lower, bound)
        s_c = Z @ w_c
        if search_later and bundle.used * bundle.row >= SEARCH_STORE_RATIO * Z.shape[0]:
            searched, search_later = True, False
        if searched:
            step = segment_minimum(objective, best, best_s, w_c - best, s_c - best_s,
                                   tolerance=share * (upper - lower),
                                   start=best_oracle,
                                   below=bundle.aggregate_line(best, w_c - best, w_c, C))
            cand = best + step.tau * (w_c - best)
            cand_value = 0.5 * float(cand @ cand) + C * step.loss
            # an exact step can land on the best point's own kink and "improve" it by
            # rounding only; keep the point then (e.g. an exact zero model stays exact)
            if step.tau > 0 and cand_value < upper - ROUNDING * max(1.0, abs(upper)):
                upper, best, best_s = cand_value, cand, best_s + step.tau * (s_c - best_s)
                best_oracle, exact_scores = (step.loss, step.grad), False
        gap = (upper - lower) / max(abs(upper), 1e-12)
        if callback is not None:
            callback(it, upper, lower)
        if gap <= tol:
            upper, lower, gap = _final_bounds(objective, best, lower, upper, exact_scores)
            return SolveResult(coef=best, objective=upper, status="optimal",
                               method="cutting-plane", n_iter=it, lower_bound=lower, gap=gap,
                               message=f"certified relative gap {gap:.2e} after {it} rounds",
                               stats=stats)
        if stop is not None and stop(upper, lower):
            upper, lower, gap = _final_bounds(objective, best, lower, upper, exact_scores)
            return SolveResult(coef=best, objective=upper, status="converged",
                               method="cutting-plane", n_iter=it, lower_bound=lower, gap=gap,
                               message=f"the caller's rule stopped after {it} rounds, relative "
                                       f"gap {gap:.2e}", stats=stats)
        mu = step_fraction if new_cut else 1.0
        query = best + mu * (w_c - best)
        query_s = best_s + mu * (s_c - best_s)
    upper, lower, gap = _final_bounds(objective, best, lower, upper, exact_scores)
    message = f"cutting plane stopped after {max_iter} rounds with relative gap {gap:.2e}"
    rounding = C * float((bundle.margin + bundle.h_error) @ bundle.lam) / max(abs(upper),
                                                                             1e-300)
    if rounding > 0.5 * tol:
        message += (f"; the rounding margins of the cuts alone account for a relative gap of "
                    f"{rounding:.2e}: the problem is too badly conditioned to certify to tol "
                    f"(C = {C:.3g} once the features are scaled to about 1, so large that "
                    "float64 cannot certify its optimum's scores to tol)")
    if not accept_inaccurate:
        raise SolverError(f"{message}: raise max_iter or tol, or pass accept_inaccurate=True "
                          "to keep this point with its certified gap", status="max_iter")
    warnings.warn(f"{message}: the point is returned with status max_iter and certified "
                  f"relative gap {gap:.3g}", UserWarning, stacklevel=3)
    return SolveResult(coef=best, objective=upper, status="max_iter", method="cutting-plane",
                       n_iter=max_iter, lower_bound=lower, gap=gap, message=message, stats=stats)

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
rounds than taking it at the master solution (plain BMRM): the best point ``w_b`` moves to the
minimizer of the objective on the segment towards ``w_c`` (an exact line search,
:mod:`.line_search`, using the surrogate's values and subgradients and no extra matrix
product, since the scores are affine in the step), and the next cut is taken at
``w_b + μ(w_c − w_b)``.

Lean by design: the master is a DPP problem compiled once per size (a power of two; the
active cuts are parameter values, packed, with unused places masked off), and for more
features than places it is given the triangular factor of the cuts instead of the cuts, so
its cost follows the number of active cuts, not the dimension. When the slots run out,
cuts that stayed below the model for a while are replaced by their aggregate (a convex
combination of valid cuts is valid and keeps the last master solution feasible, so the
bound never falls back); the capacity doubles only when every cut is in use.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from .._threads import single_threaded_blas
from ..exceptions import SolverError
from .line_search import line_search
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["solve_cutting_plane"]

#: Relative change of the objective below which a new point counts as no improvement.
ROUNDING = 1e-13


class _DualMaster:
    """The master dual over a fixed number of cut slots, compiled once (DPP)."""

    def __init__(self, dim: int, capacity: int, solver: str, options: dict[str, Any] | None):
        self.solver = solver
        self.options = options
        self.H = cp.Parameter((dim, capacity))
        self.b = cp.Parameter(capacity)
        self.mask = cp.Parameter(capacity, nonneg=True)
        self.lam = cp.Variable(capacity, nonneg=True)
        objective = cp.Maximize(self.b @ self.lam - 0.5 * cp.sum_squares(self.H @ self.lam))
        self.problem = cp.Problem(objective, [cp.sum(self.lam) == 1, self.lam <= self.mask])

    def solve(self, H: np.ndarray, b: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Maximize over λ in the simplex restricted to ``active`` slots; return λ (exactly
        feasible: clipped at zero and renormalized)."""
        self.H.value = H
        self.b.value = b
        self.mask.value = active.astype(np.float64)
        # an inaccurate master solution is fine: its λ is projected onto the simplex and the
        # bound is evaluated exactly there, so it stays rigorous
        _cvxpy.solve(self.problem, self.solver, self.options, what="the cutting-plane master",
                     accept_inaccurate=True, warn=False)
        lam = np.where(active, np.maximum(np.asarray(self.lam.value, dtype=np.float64), 0.0), 0.0)
        total = lam.sum()
        if not np.isfinite(total) or total <= 0:
            raise SolverError("the cutting-plane master returned no usable solution",
                              status=str(self.problem.status))
        return _polish(lam / total, H, b)


def _dual(lam: np.ndarray, H: np.ndarray, b: np.ndarray) -> float:
    Hl = H @ lam
    return float(b @ lam) - 0.5 * float(Hl @ Hl)


def _polish(lam: np.ndarray, H: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Refine an interior-point solution of the master to machine precision.

    On the support ``S`` of ``λ`` the master is an equality-constrained QP whose KKT
    system ``[G_SS 1; 1ᵀ 0][λ_S; μ] = [b_S; 1]`` (``G = HᵀH``) is solved directly; the
    refined point is kept only if it is feasible and raises the dual value, so the rigorous
    lower bound can only improve (and tolerances near 1e-8 become reachable).
    """
    support = np.flatnonzero(lam > 1e-9 * lam.max())
    m = len(support)
    Hs = H[:, support]
    kkt = np.zeros((m + 1, m + 1))
    kkt[:m, :m] = Hs.T @ Hs
    kkt[:m, m] = kkt[m, :m] = 1.0
    rhs = np.r_[b[support], 1.0]
    solution = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
    refined = np.zeros_like(lam)
    refined[support] = solution[:m]
    if np.all(refined >= 0) and abs(refined.sum() - 1.0) < 1e-12 \
            and _dual(refined, H, b) > _dual(lam, H, b):
        return refined / refined.sum()
    return lam


class _CutBundle:
    """Cuts ``L(Zw) >= b_c + h_c·w`` in fixed slots, with pruning by aggregation."""

    def __init__(self, dim: int, capacity: int, patience: int, solver: str,
                 options: dict[str, Any] | None) -> None:
        self.dim, self.patience = dim, patience
        self.solver, self.options = solver, options
        self.masters: dict[int, _DualMaster] = {}
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        self.H = np.zeros((self.dim, capacity))
        self.b = np.zeros(capacity)
        self.active = np.zeros(capacity, dtype=bool)
        self.idle = np.zeros(capacity, dtype=np.int64)
        self.lam = np.zeros(capacity)

    def _aggregate_stale(self) -> None:
        """Replace the cuts that stayed below the model for ``patience`` rounds by their
        convex combination with the last master weights (valid, and it keeps the last
        master solution feasible, so the lower bound never falls back)."""
        stale = np.flatnonzero(self.idle >= self.patience)
        if len(stale) < 2:
            return
        weight = self.lam[stale].sum()
        self.active[stale] = False
        if weight > 0:
            keep = stale[0]
            self.H[:, keep] = self.H[:, stale] @ self.lam[stale] / weight
            self.b[keep] = float(self.b[stale] @ self.lam[stale]) / weight
            self.active[keep], self.idle[keep] = True, 0

    def _free_slot(self) -> int:
        """A free slot: the first unused one, else one freed by aggregating stale cuts,
        else a new one (the capacity doubles)."""
        if np.all(self.active):
            self._aggregate_stale()
        free = np.flatnonzero(~self.active)
        if len(free):
            return int(free[0])
        m = self.H.shape[1]
        H, b, idle, lam = self.H, self.b, self.idle, self.lam
        self._allocate(2 * m)
        self.H[:, :m], self.b[:m], self.active[:m] = H, b, True
        self.idle[:m], self.lam[:m] = idle, lam
        return m

    def add(self, h: np.ndarray, offset: float) -> None:
        slot = self._free_slot()
        self.H[:, slot], self.b[slot] = h, offset
        self.active[slot], self.idle[slot] = True, 0

    def solve_master(self, C: float) -> tuple[np.ndarray, float]:
        """The master solution ``w_c`` and the rigorous dual bound ``D(α)``."""
        H, b, active = self.H, self.b, self.active
        # Scale so the master's data are O(1): with α = Cλ, D = C b·λ − ½C²‖Hλ‖².
        scale = max(1.0, float(np.max(np.sum(H[:, active] ** 2, axis=0))))
        # The master sees the active cuts only, packed into the smallest compiled size (a
        # power of two) that holds them, so its cost follows the number of active cuts and
        # not the capacity. It needs them only through ‖Hλ‖, so with more features than
        # slots it gets the triangular factor R of H = QR (‖Rλ‖ = ‖Hλ‖): its size does not
        # grow with d either.
        slots = np.flatnonzero(active)
        size = max(16, 1 << (len(slots) - 1).bit_length())
        packed_H = np.zeros((self.dim, size))
        packed_b = np.zeros(size)
        packed_H[:, :len(slots)] = H[:, slots] / np.sqrt(scale)
        packed_b[:len(slots)] = b[slots] / (C * scale)
        if self.dim > size:
            packed_H = np.linalg.qr(packed_H, mode="r")
        if size not in self.masters:
            self.masters[size] = _DualMaster(len(packed_H), size, self.solver, self.options)
        packed_lam = self.masters[size].solve(packed_H, packed_b, np.arange(size) < len(slots))
        self.lam = np.zeros(len(b))
        self.lam[slots] = packed_lam[:len(slots)]
        alpha = C * self.lam
        Ha = H @ alpha
        w_c = -Ha
        # A cut is idle while it lies strictly below the model at w_c (interior-point
        # weights are never exactly zero, so they cannot tell).
        values = b + H.T @ w_c
        model = float(np.max(values[active]))
        below = values < model - 1e-9 * max(1.0, abs(model))
        self.idle = np.where(active & below, self.idle + 1, 0)
        return w_c, float(b @ alpha) - 0.5 * float(Ha @ Ha)


def _final_bounds(objective: RankingObjective, best: np.ndarray, lower: float
                  ) -> tuple[float, float, float]:
    """Upper bound recomputed from scratch at ``best`` (the scores were updated
    incrementally along the line searches), the lower bound, and the relative gap.

    Both bounds carry floating-point rounding; a lower bound above the upper one by more
    than that would be a bug, and is reported as such.
    """
    upper = objective.value(best)
    slack = 1e-12 * max(abs(upper), 1.0)
    if lower > upper + slack:
        raise SolverError(f"internal error: lower bound {lower!r} above objective {upper!r}",
                          status="inconsistent_bounds")
    lower = min(lower, upper)
    return upper, lower, (upper - lower) / max(abs(upper), 1e-12)


def solve_cutting_plane(
    objective: RankingObjective,
    *,
    tol: float = 1e-6,
    max_iter: int = 2000,
    solver: str = "CLARABEL",
    solver_options: dict[str, Any] | None = None,
    w0: np.ndarray | None = None,
    capacity: int = 64,
    patience: int = 10,
    step_fraction: float = 0.1,
    accept_inaccurate: bool = False,
    callback: Callable[[int, float, float], None] | None = None,
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
        Initial number of cut slots (at least ``2(d + 2)``, room for a full active set).
    patience : int
        Rounds a cut must stay below the model before it may be aggregated away.
    step_fraction : float
        OCAS's μ: the next cut is taken at ``w_b + μ(w_c − w_b)``.
    callback : callable(round, upper, lower), optional
        Called after every round (progress bars use it).
    """
    if not objective.surrogate.convex:
        raise ValueError(f"{objective.surrogate.name} is not convex: the cutting plane needs a "
                         "convex surrogate")
    with single_threaded_blas():
        return _cutting_plane(objective, tol, max_iter, solver, solver_options, w0, capacity,
                              patience, step_fraction, accept_inaccurate, callback)


def _cutting_plane(objective: RankingObjective, tol: float, max_iter: int, solver: str,
                   solver_options: dict[str, Any] | None, w0: np.ndarray | None,
                   capacity: int, patience: int, step_fraction: float,
                   accept_inaccurate: bool,
                   callback: Callable[[int, float, float], None] | None) -> SolveResult:
    Z, C = objective.Z, objective.C
    d = Z.shape[1]
    bundle = _CutBundle(d, max(capacity, 2 * (d + 2)), patience, solver, solver_options)
    best = np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    best_s = Z @ best
    query, query_s = best, best_s
    upper, lower, gap = np.inf, -np.inf, np.inf
    for it in range(1, max_iter + 1):
        loss, g = objective.loss_and_score_gradient(query_s)
        value = 0.5 * float(query @ query) + C * loss
        if value < upper:
            upper, best, best_s = value, query, query_s
        h = Z.T @ g
        bundle.add(h, loss - float(h @ query))
        w_c, bound = bundle.solve_master(C)
        lower = max(lower, bound)
        s_c = Z @ w_c
        step = line_search(objective, best, best_s, w_c - best, s_c - best_s)
        if step.tau > 0:
            cand = best + step.tau * (w_c - best)
            cand_value = 0.5 * float(cand @ cand) + C * step.loss
            # an exact step can land on the best point's own kink and "improve" it by
            # rounding only; keep the point then (e.g. an exact zero model stays exact)
            if cand_value < upper - ROUNDING * max(1.0, abs(upper)):
                upper, best, best_s = cand_value, cand, best_s + step.tau * (s_c - best_s)
        gap = (upper - lower) / max(abs(upper), 1e-12)
        if callback is not None:
            callback(it, upper, lower)
        if gap <= tol:
            upper, lower, gap = _final_bounds(objective, best, lower)
            return SolveResult(coef=best, objective=upper, status="optimal",
                               method="cutting-plane", n_iter=it, lower_bound=lower, gap=gap,
                               message=f"certified relative gap {gap:.2e} after {it} rounds")
        query = best + step_fraction * (w_c - best)
        query_s = best_s + step_fraction * (s_c - best_s)
    upper, lower, gap = _final_bounds(objective, best, lower)
    message = f"cutting plane stopped after {max_iter} rounds with relative gap {gap:.2e}"
    if not accept_inaccurate:
        raise SolverError(message, status="max_iter")
    warnings.warn(message, UserWarning, stacklevel=3)
    return SolveResult(coef=best, objective=upper, status="max_iter", method="cutting-plane",
                       n_iter=max_iter, lower_bound=lower, gap=gap, message=message)

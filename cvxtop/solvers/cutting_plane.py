"""The 1-slack cutting-plane engine with a certified gap (Joachims 2005; Teo et al.'s BMRM).

A convex surrogate is the maximum of the affine functions its subgradients define, so every
query ``w_t`` yields a cut valid everywhere: with ``f_t, g_t`` the loss and a score
subgradient at ``s_t = Z w_t``,

    L(y, Z w) >= b_t + h_t·w,   h_t = Zᵀ g_t,   b_t = f_t − h_t·w_t.

For prec@k-avg this is the maximizing labeling of ``papers/000`` Algorithm 4, the separation
oracle of the structural-SVM view. The master problem replaces ``L`` by the maximum of the
cuts; we solve its dual, a QP over the simplex scaled by ``C``,

    max_{α >= 0, Σα = C}  D(α) = Σ_c α_c b_c − ½‖Σ_c α_c h_c‖²,   w = −Σ_c α_c h_c,

with cvxpy. ``D(α)`` at any feasible ``α`` is a lower bound on the optimum (weak duality), so
after projecting the solver's ``α`` exactly onto the feasible set the bound is rigorous;
the best objective seen is an upper bound. The method stops when the relative gap between
them is below ``tol``.

Lean by design: the master is a DPP problem compiled once per cut capacity (cuts are
parameter values, free slots are masked off), and cuts inactive for a while are pruned
when the capacity is reached; the capacity doubles only when every cut is active.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import cvxpy as cp
import numpy as np

from ..exceptions import SolverError
from .direct import run_cvxpy
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["solve_cutting_plane"]


class _DualMaster:
    """The master dual over a fixed number of cut slots, compiled once (DPP)."""

    def __init__(self, dim: int, capacity: int, solver: str, options: dict[str, Any] | None):
        self.capacity = capacity
        self.solver = solver
        self.options = options
        self.H = cp.Parameter((dim, capacity))
        self.b = cp.Parameter(capacity)
        self.mask = cp.Parameter(capacity, nonneg=True)
        self.lam = cp.Variable(capacity, nonneg=True)
        objective = cp.Maximize(self.b @ self.lam - 0.5 * cp.sum_squares(self.H @ self.lam))
        self.problem = cp.Problem(objective, [cp.sum(self.lam) == 1, self.lam <= self.mask])

    def solve(self, H: np.ndarray, b: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Maximize over λ in the simplex restricted to ``active`` slots; return λ ≥ 0."""
        self.H.value = H
        self.b.value = b
        self.mask.value = active.astype(np.float64)
        run_cvxpy(self.problem, self.solver, self.options, True, "the cutting-plane master")
        lam = np.where(active, np.maximum(np.asarray(self.lam.value, dtype=np.float64), 0.0), 0.0)
        total = lam.sum()
        if not np.isfinite(total) or total <= 0:
            raise SolverError("the cutting-plane master returned no usable solution",
                              status=str(self.problem.status))
        return lam / total


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
        Oracle calls allowed; reaching it raises :class:`SolverError` (status ``max_iter``)
        unless ``accept_inaccurate``, which warns and returns the best point.
    solver, solver_options : the cvxpy solver of the master problem and its options.
    w0 : array of shape (d,), optional
        First query point (a warm start); zeros by default.
    capacity : int
        Initial number of cut slots of the compiled master.
    patience : int
        A cut that stayed strictly below the cutting-plane model for this many rounds may be
        pruned when slots run out.
    callback : callable(iteration, upper, lower), optional
        Called after every round (progress bars use it).
    """
    if not objective.surrogate.convex:
        raise ValueError(f"{objective.surrogate.name} is not convex: the cutting plane needs a "
                         "convex surrogate")
    Z, C = objective.Z, objective.C
    d = Z.shape[1]
    capacity = max(capacity, 2 * (d + 2))  # room for a full active set (at most d + 1 cuts)
    lam = np.zeros(capacity)
    w = np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    H = np.zeros((d, capacity))
    b = np.zeros(capacity)
    active = np.zeros(capacity, dtype=bool)
    idle = np.zeros(capacity, dtype=np.int64)
    master = None
    upper, lower, best = np.inf, -np.inf, w.copy()
    gap = np.inf
    for it in range(1, max_iter + 1):
        value, _, loss, g = objective.value_and_gradient(w)
        if value < upper:
            upper, best = value, w.copy()
        h = Z.T @ g
        cut_b = loss - float(h @ w)
        free = np.flatnonzero(~active)
        if len(free) == 0:
            stale = np.flatnonzero(active & (idle >= patience))
            if len(stale) >= 2:
                # Replace the stale cuts by their aggregate under the last master weights: a
                # convex combination of valid cuts is valid, and it keeps the last master
                # solution feasible, so the lower bound cannot fall back.
                weight = lam[stale].sum()
                if weight > 0:
                    agg_h = H[:, stale] @ lam[stale] / weight
                    agg_b = float(b[stale] @ lam[stale]) / weight
                active[stale] = False
                if weight > 0:
                    keep = stale[0]
                    H[:, keep], b[keep], active[keep], idle[keep] = agg_h, agg_b, True, 0
                    stale = stale[1:]
                free = stale
            else:
                H = np.hstack([H, np.zeros((d, capacity))])
                b = np.r_[b, np.zeros(capacity)]
                active = np.r_[active, np.zeros(capacity, dtype=bool)]
                idle = np.r_[idle, np.zeros(capacity, dtype=np.int64)]
                free = np.arange(capacity, 2 * capacity)
                capacity *= 2
                master = None
        slot = free[0]
        H[:, slot], b[slot], active[slot], idle[slot] = h, cut_b, True, 0
        if master is None:
            master = _DualMaster(d, capacity, solver, solver_options)
        # Scale the dual so the master's data are O(1): with α = Cλ, D = C b·λ − ½C²‖Hλ‖².
        scale = max(1.0, float(np.max(np.sum(H[:, active] ** 2, axis=0))))
        lam = master.solve(H / np.sqrt(scale), b / (C * scale), active)
        alpha = C * lam
        Ha = H @ alpha
        lower = max(lower, float(b @ alpha) - 0.5 * float(Ha @ Ha))
        w = -Ha
        # A cut is idle when it lies strictly below the cutting-plane model at the new point
        # (interior-point duals are never exactly zero, so weights cannot tell).
        cut_values = b + H.T @ w
        model = float(np.max(cut_values[active]))
        below = cut_values < model - 1e-9 * max(1.0, abs(model))
        idle = np.where(active & below, idle + 1, 0)
        gap = (upper - lower) / max(abs(upper), 1e-12)
        if callback is not None:
            callback(it, upper, lower)
        if gap <= tol:
            return SolveResult(best, upper, lower, gap, "optimal", "cutting-plane", it,
                               f"certified relative gap {gap:.2e} after {it} rounds")
    message = f"cutting plane stopped after {max_iter} rounds with relative gap {gap:.2e}"
    if not accept_inaccurate:
        raise SolverError(message, status="max_iter")
    warnings.warn(message, UserWarning, stacklevel=2)
    return SolveResult(best, upper, lower, gap, "max_iter", "cutting-plane", max_iter, message)

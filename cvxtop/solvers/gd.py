"""Full-batch subgradient descent on ``P(w) = ½‖w‖² + C·L(y, Zw)`` (GD-pAp@k of
Hiranandani et al. 2020 Algorithm 1, and the same scheme for every convex surrogate).

Each step is ``w ← w − η_t (w + C·Zᵀg_t)`` with ``g_t`` a score subgradient of ``L`` (for the
TS surrogate the exact subgradient of eq. (14), not Algorithm 2's). Three step rules:

* ``"line-search"`` (default): ``η_t`` maximizes the dual along the step. Writing the step
  as ``w ← (1 − η) w + η u_t`` with ``u_t = −C·Zᵀg_t`` shows it is a Frank-Wolfe step on the
  dual ``max_{α ≥ 0, Σα = C} Σ α_c b_c − ½‖Σ α_c h_c‖²`` of the cutting-plane method (the
  cut of ``g_t`` is the vertex ``u_t``), whose exact line search has a closed form. The
  iterate stays the primal image of a feasible dual point, so the dual value is a rigorous
  lower bound and the result carries a certified gap.
* ``"inverse"``: ``η_t = 1/t`` (the strong-convexity schedule 1/(λt) with λ = 1); also a
  Frank-Wolfe step, so it also certifies a gap.
* ``"sqrt"``: ``η_t = eta0/√t``; no certificate. It also runs on non-convex surrogates
  (``pap@k-ts-paper``, Algorithm 2's update, to reproduce the paper's runs).

The first step is ``η_1 = 1`` under the first two rules (it lands on a dual vertex). The best
iterate seen is returned with its exact objective.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..exceptions import SolverError
from .gaps import half_square, relative_gap
from .objective import RankingObjective
from .result import APPROXIMATE_TOL, SolveResult

__all__ = ["solve_gd", "STEP_RULES"]

STEP_RULES = ("line-search", "inverse", "sqrt")


def solve_gd(objective: RankingObjective, *, step: str = "line-search", eta0: float = 1.0,
             max_iter: int = 1000, tol: float = APPROXIMATE_TOL, w0: np.ndarray | None = None,
             callback: Callable[[int, float, float | None], None] | None = None) -> SolveResult:
    """Run full-batch subgradient descent; see the module docstring.

    Stops after ``max_iter`` steps or, under a certifying rule, once the relative gap is
    at most ``tol``.
    """
    if step not in STEP_RULES:
        raise ValueError(f"step must be one of {STEP_RULES}, got {step!r}")
    if step != "sqrt" and not objective.surrogate.convex:
        raise ValueError(f"{objective.surrogate.name} is not convex: the {step!r} rule needs a "
                         "convex surrogate (its dual bound assumes one)")
    Z, C = objective.Z, objective.C
    certify = step != "sqrt"
    w = np.zeros(Z.shape[1]) if w0 is None or certify else np.asarray(w0, dtype=np.float64)
    best_w, best, lower = w.copy(), np.inf, -np.inf
    linear = 0.0  # Σ α_c b_c of the dual point whose image is w (certifying rules)
    gap = None
    for t in range(1, max_iter + 1):
        value, grad, loss, g = objective.value_and_gradient(w)
        if not np.isfinite(value):
            raise SolverError("subgradient descent diverged (non-finite objective)",
                              status="diverged")
        if value < best:
            best, best_w = value, w.copy()
        if certify:
            h = Z.T @ g
            u = -C * h
            b = objective.intercept_of(g)
            cut = C * (loss - float(h @ w) if b is None else b)
            if t == 1:
                eta = 1.0
            elif step == "inverse":
                eta = 1.0 / t
            else:
                d = u - w
                dd = float(d @ d)
                eta = 1.0 if dd == 0 else min(1.0, max(0.0, (cut - linear - float(w @ d)) / dd))
            w = (1.0 - eta) * w + eta * u
            linear = (1.0 - eta) * linear + eta * cut
            lower = max(lower, linear - 0.5 * float(w @ w))
            gap = relative_gap(best, lower, C, half_square(best_w))
            if callback is not None:
                callback(t, best, lower)
            if gap <= tol:
                break
        else:
            w = w - eta0 / np.sqrt(t) * grad
            if callback is not None:
                callback(t, best, None)
    status = "optimal" if gap is not None and gap <= tol else "completed"
    message = (f"best objective {best:.6g} after {t} steps"
               + (f", certified relative gap {gap:.2e}" if gap is not None else ""))
    return SolveResult(coef=best_w, objective=best, status=status, method="gd", detail=step,
                       n_iter=t, lower_bound=lower if certify else None, gap=gap,
                       message=message)

"""The convex-concave procedure (DCA) for a difference-of-convex surrogate ``f = G − H``.

Each round linearizes ``H`` at the current scores ``s_t = Z w_t`` (a subgradient ``h_t``)
and solves the convex problem

    w_{t+1} = argmin ½‖w‖² + C·(G(Zw) − h_t·Zw)

exactly with cvxpy. Because ``H(s) >= H(s_t) + h_t·(s − s_t)``, the convex model upper-bounds
the objective and touches it at ``w_t``, so the true objective never increases. The method
stops at a point where it no longer decreases (to ``tol``): a *local* solution of a
non-convex problem, with no global guarantee. It is used for the ramp surrogates of
Kar et al. 2015 eq. (4) and Hiranandani et al. 2020 eq. (8).
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..parameters import renamed_keyword
from ..surrogates.base import Bound, DifferenceOfConvex
from .objective import RankingObjective
from .result import EXACT_MAX_ITER, EXACT_TOL, SolveResult

__all__ = ["solve_dca"]


@renamed_keyword("solver", "cvx_solver")
def solve_dca(objective: RankingObjective, w0: np.ndarray, *, tol: float = EXACT_TOL,
              max_iter: int = EXACT_MAX_ITER, cvx_solver: str = "CLARABEL",
              solver_options: dict[str, Any] | None = None,
              accept_inaccurate: bool = False) -> SolveResult:
    """Run the convex-concave procedure from ``w0`` until the objective stalls.

    Stops when an exact step lowers the objective by less than ``tol`` (relative) or the
    linearization repeats; returns the best point seen with ``gap = None`` (no certificate:
    the problem is non-convex).
    """
    surrogate = objective.surrogate
    if not isinstance(surrogate, DifferenceOfConvex):
        raise ValueError(f"{surrogate.name} is not a difference of convex functions")
    Z, C = objective.Z, objective.C
    n, d = Z.shape
    parts = objective.parts
    w = cp.Variable(d)
    scores = Z @ w
    h = cp.Parameter(n)
    convex_part, constraints = objective.mean_over_groups(scores,
                                                          Bound.convex_part_expression)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * (convex_part - h @ scores)),
                         constraints)

    current = np.asarray(w0, dtype=np.float64)
    value = objective.value(current)
    previous_h = None
    for it in range(1, max_iter + 1):
        s = Z @ current
        lin = np.zeros(n)
        for p in parts:
            lin[p.index] = p.bound.subtracted_subgradient(s[p.index])
        lin /= len(parts)
        if previous_h is not None and np.array_equal(lin, previous_h):
            break
        h.value = lin
        previous_h = lin
        _cvxpy.solve(problem, cvx_solver, solver_options, what="a convex-concave step",
                     accept_inaccurate=accept_inaccurate)
        candidate = np.asarray(w.value, dtype=np.float64)
        new_value = objective.value(candidate)
        if new_value >= value - tol * max(abs(value), 1.0):
            if new_value < value:
                current, value = candidate, new_value
            break
        current, value = candidate, new_value
    return SolveResult(coef=current, objective=value, status="local",
                       method="dca", detail="convex-concave procedure", n_iter=it,
                       message=f"local solution after {it} convex-concave step(s)")

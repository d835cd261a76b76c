"""The direct exact engine: the whole regularized problem as one cvxpy program."""

from __future__ import annotations

import warnings
from typing import Any

import cvxpy as cp
import numpy as np

from ..exceptions import SolverError
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["solve_direct", "run_cvxpy"]

CVX_SOLVERS = ("CLARABEL", "OSQP", "ECOS")


def run_cvxpy(problem: cp.Problem, solver: str, options: dict[str, Any] | None,
              accept_inaccurate: bool, what: str) -> None:
    """Solve ``problem`` and raise :class:`SolverError` unless it reports an optimum.

    ``optimal_inaccurate`` raises too, unless ``accept_inaccurate`` (then it warns).
    """
    try:
        problem.solve(solver=solver, **(options or {}))
    except cp.error.SolverError as exc:
        raise SolverError(f"{solver} failed on {what}: {exc}", status="solver_error") from None
    status = problem.status
    if status == cp.OPTIMAL:
        return
    if status == cp.OPTIMAL_INACCURATE and accept_inaccurate:
        warnings.warn(f"{solver} returned an inaccurate solution of {what}", UserWarning,
                      stacklevel=3)
        return
    raise SolverError(f"{solver} did not solve {what} to optimality", status=status)


def solve_direct(objective: RankingObjective, *, solver: str = "CLARABEL",
                 solver_options: dict[str, Any] | None = None,
                 accept_inaccurate: bool = False) -> SolveResult:
    """Minimize ``½‖w‖² + C·L(y, Zw)`` with the surrogate's DCP expression in one program.

    Certified by the solver's status (its primal-dual gap and feasibility tolerances); the
    returned ``gap`` compares the exact numpy objective at the solution with the solver's
    optimal value.
    """
    d = objective.Z.shape[1]
    w = cp.Variable(d)
    loss, constraints = objective.loss_expression(objective.Z @ w)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + objective.C * loss), constraints)
    run_cvxpy(problem, solver, solver_options, accept_inaccurate, "the training problem")
    coef = np.asarray(w.value, dtype=np.float64)
    value = objective.value(coef)
    gap = abs(value - float(problem.value)) / max(abs(value), 1e-12)
    return SolveResult(coef, value, None, gap, str(problem.status), f"direct ({solver})",
                       int(problem.solver_stats.num_iters or 0),
                       f"{solver} status {problem.status}; relative gap {gap:.2e}")

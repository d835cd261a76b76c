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
        with warnings.catch_warnings():
            # cvxpy's own note on an inaccurate status: the status is handled below
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
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
                 accept_inaccurate: bool = False, certify: bool = True, tol: float = 1e-6,
                 max_iter: int = 2000) -> SolveResult:
    """Minimize ``½‖w‖² + C·L(y, Zw)`` with the surrogate's DCP expression in one program.

    The solver's status is checked (anything but optimal raises :class:`SolverError`).
    Interior-point solvers can still stop slightly off the optimum while reporting success,
    so by default (``certify=True``) the answer is then certified by the cutting-plane
    method warm-started at it (its master solved by Clarabel, whatever ``solver`` is): that
    adds a rigorous dual lower bound, polishes the point if needed and returns a certified
    relative gap at most ``tol``. With ``certify=False`` the
    raw solver answer is returned, with ``gap`` the relative difference between the exact
    objective at it and the solver's optimal value (no lower bound).
    """
    from .cutting_plane import solve_cutting_plane

    d = objective.Z.shape[1]
    w = cp.Variable(d)
    loss, constraints = objective.loss_expression(objective.Z @ w)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + objective.C * loss), constraints)
    run_cvxpy(problem, solver, solver_options, accept_inaccurate, "the training problem")
    coef = np.asarray(w.value, dtype=np.float64)
    value = objective.value(coef)
    engine = f"direct ({solver})"
    if not certify:
        gap = abs(value - float(problem.value)) / max(abs(value), 1e-12)
        return SolveResult(coef, value, None, gap, str(problem.status), engine,
                           int(problem.solver_stats.num_iters or 0),
                           f"{solver} status {problem.status}; objective vs solver value "
                           f"{gap:.2e}")
    cert = solve_cutting_plane(objective, tol=tol, max_iter=max_iter, solver="CLARABEL",
                               w0=coef, accept_inaccurate=accept_inaccurate)
    return SolveResult(cert.coef, cert.objective, cert.lower_bound, cert.gap, cert.status,
                       f"{engine}, certified by the cutting plane", cert.n_iter,
                       f"{solver} objective {value:.10g}; {cert.message}")

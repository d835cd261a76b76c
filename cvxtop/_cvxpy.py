"""The one place that calls cvxpy's ``solve`` and reads its status (a leaf module).

Every cvxpy program of cvxtop (the direct engine, the cutting-plane master, the convex-
concave steps, AATP's reference QPs, Predtron's batch problem) is solved here, so that the
status is read the same way everywhere: ``optimal`` passes, ``optimal_inaccurate`` passes
only when the caller accepts it (with a warning, or silently where the caller certifies
the answer itself), and anything else raises :class:`cvxtop.SolverError` with the status.
"""

from __future__ import annotations

import warnings
from typing import Any

import cvxpy as cp

from .exceptions import SolverError

__all__ = ["SOLVERS", "solve", "iterations"]

#: The cvxpy solvers cvxtop installs and accepts by name.
SOLVERS = ("CLARABEL", "OSQP", "ECOS")


def solve(problem: cp.Problem, solver: str, options: dict[str, Any] | None = None, *,
          what: str, accept_inaccurate: bool = False, warn: bool = True) -> str:
    """Solve ``problem`` and return its status: ``"optimal"`` or, if accepted, a stop that
    still has a point (``"optimal_inaccurate"``, or ``"user_limit"``: an iteration or time
    limit).

    Raises :class:`SolverError` carrying the status for any other outcome, including an
    exception inside the solver (status ``"solver_error"``). With ``accept_inaccurate``, a
    stop with a point is returned, with a ``UserWarning`` naming ``what`` and the status
    unless ``warn`` is false (for callers that certify the point themselves).
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
        return status
    has_point = all(v.value is not None for v in problem.variables())
    if status in (cp.OPTIMAL_INACCURATE, cp.USER_LIMIT) and has_point and accept_inaccurate:
        if warn:
            warnings.warn(f"{solver} stopped with status {status} on {what}; its point is "
                          "returned without a certificate", UserWarning, stacklevel=3)
        return status
    advice = (" (accept_inaccurate=True returns its point)" if has_point and status in
              (cp.OPTIMAL_INACCURATE, cp.USER_LIMIT) else "")
    raise SolverError(f"{solver} did not solve {what} to optimality{advice}", status=status)


def iterations(problem: cp.Problem) -> int:
    """The solver's iteration count of the last solve (0 when the solver reports none)."""
    stats = problem.solver_stats
    return int(stats.num_iters or 0) if stats is not None else 0

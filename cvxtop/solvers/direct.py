"""The direct exact engine: the whole regularized problem as one cvxpy program."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from ..parameters import renamed_keyword
from .cutting_plane import solve_cutting_plane
from .direct_program import program
from .objective import RankingObjective
from .result import EXACT_MAX_ITER, EXACT_TOL, SolveResult

__all__ = ["solve_direct"]


@renamed_keyword("solver", "cvx_solver")
def solve_direct(objective: RankingObjective, *, cvx_solver: str = "CLARABEL",
                 solver_options: dict[str, Any] | None = None,
                 accept_inaccurate: bool = False, certify: bool = True, tol: float = EXACT_TOL,
                 max_iter: int = EXACT_MAX_ITER) -> SolveResult:
    """Minimize ``½‖w‖² + C·L(y, Zw)`` with the surrogate's DCP expression in one program.

    Interior-point solvers can stop slightly off the optimum while reporting success, so
    by default (``certify=True``) the answer is certified by the cutting-plane method
    warm-started at it (its master solved by Clarabel, whatever ``cvx_solver`` is): that adds a
    rigorous dual lower bound, polishes the point if needed and returns a certified relative
    gap at most ``tol``. An inaccurate or iteration-limited solve is such a start too, and
    when the solver stops without a point (a feasible problem called infeasible on badly
    scaled numbers, a numerical error) the cutting plane starts from zero. With
    ``certify=False`` the raw answer is returned without a certificate (``solver_value``
    holds the solver's optimal value); a status other than optimal then raises
    :class:`SolverError`, unless ``accept_inaccurate`` and the solver has a point.
    """
    problem, w, _ = program(objective)
    try:
        # with a certificate to follow, any point the solver stops at is a start for it
        status = _cvxpy.solve(problem, cvx_solver, solver_options, what="the training problem",
                              accept_inaccurate=accept_inaccurate or certify, warn=not certify)
    except SolverError as exc:
        if not certify:
            raise
        # The problem is always feasible and bounded below, so the solver stopped on the
        # numbers (an "infeasible" verdict, a numerical error): the cutting plane, which
        # needs no solver tolerance to hold, certifies the answer from zero.
        cert = solve_cutting_plane(objective, tol=tol, max_iter=max_iter, cvx_solver="CLARABEL",
                                   accept_inaccurate=accept_inaccurate)
        return replace(cert, method="cutting-plane",
                       detail=f"the direct program ({cvx_solver}) stopped: {exc.status}",
                       message=f"{cvx_solver} stopped with status {exc.status}; {cert.message}")
    coef = np.asarray(w.value, dtype=np.float64)
    value = objective.value(coef)
    if not certify:
        return SolveResult(coef=coef, objective=value, status=status, method="direct",
                           detail=f"{cvx_solver}, uncertified", n_iter=_cvxpy.iterations(problem),
                           solver_value=float(problem.value),
                           message=f"{cvx_solver} status {status}; objective {value:.10g}, "
                                   f"solver value {float(problem.value):.10g}")
    cert = solve_cutting_plane(objective, tol=tol, max_iter=max_iter, cvx_solver="CLARABEL",
                               w0=coef, accept_inaccurate=accept_inaccurate)
    return SolveResult(coef=cert.coef, objective=cert.objective, status=cert.status,
                       method="direct", detail=f"{cvx_solver}, certified by the cutting plane",
                       n_iter=cert.n_iter,
                       lower_bound=cert.lower_bound, gap=cert.gap,
                       solver_value=float(problem.value),
                       message=f"{cvx_solver} objective {value:.10g} (status {status}); "
                               f"{cert.message}")

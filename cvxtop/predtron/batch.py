"""The exact batch reference of Predtron: regularized empirical ψ-risk, solved with cvxpy.

``min_W Σ_τ ψ(W X_τ, y_τ) + (λ/2)‖W‖²`` (Jain et al. 2015 eq. (2) summed over a data set). Every
problem's :meth:`~cvxtop.predtron.base.Problem.psi_expression` is DCP (for rankings through
the dual of the assignment LP over the Birkhoff polytope), so the problem is a convex QP-like
cone program. The solver must report an optimal status, and the objective is re-evaluated
at the returned weights with the numpy ψ (``objective``, next to the solver's own value).
Use it to see where the online methods end up.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from .._validation import check_positive
from ..parameters import renamed_keyword
from ..solvers.result import SolveResult
from ._model import as_rows, check_batch, check_problem, coef_view, mean_loss, n_outputs
from .base import Problem

__all__ = ["batch_reference", "batch_objective", "linear_loss"]


def _as_model(problem: Problem, coef: Any, n_features: int) -> np.ndarray:
    """Weights shaped like ``Predtron.coef_`` as the internal ``(p, c)`` matrix."""
    arr = np.asarray(coef, dtype=np.float64)
    expected = (problem.dim, n_features) if problem.input_kind == "vector" else (n_features,)
    if arr.shape != expected:
        raise ValueError(f"coef must have shape {expected}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("coef contains NaN or infinite values")
    return arr.T if problem.input_kind == "vector" else arr[:, None]


def _scores(problem: Problem, V: np.ndarray, X: np.ndarray) -> list[np.ndarray]:
    return [(as_rows(problem, x) @ V).ravel() for x in X]


def _objective(problem: Problem, V: np.ndarray, X: np.ndarray, Y: np.ndarray,
               lam: float) -> float:
    risk = sum(problem._psi(t, y)[0] for t, y in zip(_scores(problem, V, X), Y))
    return float(risk + 0.5 * lam * np.sum(V**2))


def batch_objective(problem: Problem, coef: Any, X: Any, y: Any, lam: float = 1.0) -> float:
    """``Σ_τ ψ(W X_τ, y_τ) + (λ/2)‖W‖²`` at the weights ``coef`` (numpy ψ, no solver)."""
    check_problem(problem)
    lam = check_positive(lam, "lam")
    X, Y = check_batch(problem, X, y)
    return _objective(problem, _as_model(problem, coef, X.shape[-1]), X, Y, lam)


def linear_loss(problem: Problem, coef: Any, X: Any, y: Any) -> float:
    """Mean loss ``L(W X_τ, y_τ)`` of fixed weights ``coef`` (ties broken against the label,
    as :meth:`Predtron.average_loss <cvxtop.predtron.Predtron.average_loss>` does)."""
    check_problem(problem)
    X, Y = check_batch(problem, X, y)
    return mean_loss(problem, _scores(problem, _as_model(problem, coef, X.shape[-1]), X), Y)


@renamed_keyword("solver", "cvx_solver")
def batch_reference(problem: Problem, X: Any, y: Any, lam: float = 1.0,
                    cvx_solver: str = "CLARABEL", accept_inaccurate: bool = False) -> SolveResult:
    """Minimize ``Σ_τ ψ(W X_τ, y_τ) + (λ/2)‖W‖²`` exactly with cvxpy.

    Returns a :class:`cvxtop.solvers.SolveResult`: ``coef`` shaped like ``Predtron.coef_``,
    ``objective`` re-evaluated at it with the numpy ψ and ``solver_value`` the solver's
    optimal value (there is no dual certificate: ``gap`` and ``lower_bound`` are ``None``).
    Raises :class:`cvxtop.SolverError` unless the solver reports an optimal solution; with
    ``accept_inaccurate=True`` an ``optimal_inaccurate`` or ``user_limit`` stop with a point
    only warns.
    """
    check_problem(problem)
    lam = check_positive(lam, "lam")
    if cvx_solver not in cp.installed_solvers():
        raise ValueError(f"cvx_solver must be one of the installed cvxpy solvers "
                         f"{cp.installed_solvers()}, got {cvx_solver!r}")
    X, Y = check_batch(problem, X, y)
    V = cp.Variable((X.shape[-1], n_outputs(problem)))
    risk, constraints = [], []
    for x, label in zip(X, Y):
        t_expr = cp.reshape(as_rows(problem, x) @ V, (problem.dim,), order="C")
        expr, cons = problem._psi_expression(t_expr, label)
        risk.append(expr)
        constraints.extend(cons)
    program = cp.Problem(cp.Minimize(cp.sum(cp.hstack(risk)) + 0.5 * lam * cp.sum_squares(V)),
                         constraints)
    status = _cvxpy.solve(program, cvx_solver, what="the Predtron batch problem",
                          accept_inaccurate=accept_inaccurate)
    weights = np.asarray(V.value, dtype=np.float64)
    objective = _objective(problem, weights, X, Y, lam)
    return SolveResult(coef=np.array(coef_view(problem, weights)), objective=objective,
                       status=status, method="cvxpy", detail=cvx_solver,
                       n_iter=_cvxpy.iterations(program),
                       solver_value=float(program.value),
                       message=f"objective {objective:.10g}, solver value "
                               f"{float(program.value):.10g}")

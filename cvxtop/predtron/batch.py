"""The exact batch reference of Predtron: regularized empirical ψ-risk, solved with cvxpy.

``min_W Σ_τ ψ(W X_τ, y_τ) + (λ/2)‖W‖²`` (papers/004 eq. (2) summed over a data set). Every
problem's :meth:`~cvxtop.predtron.base.Problem.psi_expression` is DCP (for rankings through
the dual of the assignment LP over the Birkhoff polytope), so the problem is a convex QP-like
cone program. The result is certified: the solver must report an optimal status, and the
objective is re-evaluated at the returned weights with the numpy ψ, its distance to the
solver's value reported as ``gap``. Use it to see where the online methods end up.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np

from .._validation import check_positive
from ..exceptions import SolverError
from ._model import as_rows, check_batch, check_problem, coef_view, mean_loss, n_outputs
from .base import Problem

__all__ = ["BatchResult", "batch_reference", "batch_objective", "linear_loss"]


@dataclass(frozen=True)
class BatchResult:
    """Solution of :func:`batch_reference`.

    ``coef``: the weights, shaped like ``Predtron.coef_``; ``objective``: the objective at
    ``coef`` evaluated with the numpy ψ; ``solver_objective``: the solver's optimal value;
    ``gap``: ``|objective − solver_objective|``; ``status`` and ``solver`` as reported by
    cvxpy.
    """

    coef: np.ndarray
    objective: float
    solver_objective: float
    gap: float
    status: str
    solver: str


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


def batch_reference(problem: Problem, X: Any, y: Any, lam: float = 1.0,
                    solver: str = "CLARABEL", accept_inaccurate: bool = False) -> BatchResult:
    """Minimize ``Σ_τ ψ(W X_τ, y_τ) + (λ/2)‖W‖²`` exactly with cvxpy.

    Raises :class:`cvxtop.SolverError` unless the solver reports an optimal solution; with
    ``accept_inaccurate=True`` an ``optimal_inaccurate`` status only warns.
    """
    check_problem(problem)
    lam = check_positive(lam, "lam")
    if solver not in cp.installed_solvers():
        raise ValueError(f"solver must be one of the installed cvxpy solvers "
                         f"{cp.installed_solvers()}, got {solver!r}")
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
    try:
        program.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise SolverError(f"{solver} failed on the Predtron batch problem: {exc}",
                          program.status) from None
    if program.status == cp.OPTIMAL_INACCURATE and accept_inaccurate:
        warnings.warn(f"{solver} returned an inaccurate solution", RuntimeWarning, stacklevel=2)
    elif program.status != cp.OPTIMAL:
        raise SolverError(f"{solver} did not solve the Predtron batch problem", program.status)
    weights = np.asarray(V.value, dtype=np.float64)
    objective = _objective(problem, weights, X, Y, lam)
    return BatchResult(coef=np.array(coef_view(problem, weights)), objective=objective,
                       solver_objective=float(program.value),
                       gap=abs(objective - float(program.value)), status=program.status,
                       solver=solver)

"""Exceptions raised by cvxtop."""

from __future__ import annotations

from cvxpy.error import SolverError as CvxpySolverError

__all__ = ["SolverError"]


class SolverError(RuntimeError, CvxpySolverError):
    """A solver failed, stopped early, or could not certify its answer.

    ``status`` holds the solver's own status string (for cvxpy, ``problem.status``) so the
    caller can tell an infeasible problem from an iteration limit or a numerical failure.
    It is a ``RuntimeError`` and also a :class:`cvxpy.error.SolverError`, so code that
    already catches cvxpy's error catches cvxtop's.
    """

    def __init__(self, message: str, status: str | None = None) -> None:
        super().__init__(message if status is None else f"{message} (status: {status})")
        self.status = status

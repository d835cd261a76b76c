"""Plumbing shared by the two cvxpy formulations of a candidate QP (eq. 2 and eq. 4).

Each formulation is built once with the candidate's factor row ``f_k`` as a DPP
:class:`cvxpy.Parameter`, so cvxpy compiles it on the first solve and only refills the
parameter afterwards. Every solve is solved with Clarabel, its status is checked, and the
dual point it yields is certified by the duality gap of :mod:`.problem`; anything else
raises :class:`cvxtop.SolverError` with the cvxpy status.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import Callable, Sequence

import cvxpy as cp
import numpy as np

from ..exceptions import SolverError
from .problem import AATPProblem, CandidateSolution, certify, solution_from_alpha

__all__ = ["CLARABEL_OPTIONS", "CvxpyCandidateQP"]

#: Clarabel tolerances, tighter than its defaults so that the reference solutions are
#: accurate well below the selection rule's tie tolerances (:mod:`.selection`).
CLARABEL_OPTIONS = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


class CvxpyCandidateQP(ABC):
    """A candidate QP compiled once; subclasses build it and read the dual point ``α``."""

    name: str

    def __init__(self, problem: AATPProblem) -> None:
        self.problem = problem
        self.candidate_row = cp.Parameter(problem.factor.shape[1], name="f_k")
        self.cvxpy_problem = self._build()
        if not self.cvxpy_problem.is_dcp(dpp=True):  # pragma: no cover - construction bug
            raise AssertionError(f"{self.name}: the formulation is not DPP")

    @abstractmethod
    def _build(self) -> cp.Problem:
        """The cvxpy problem in terms of :attr:`candidate_row`."""

    @abstractmethod
    def _alpha(self) -> np.ndarray:
        """The dual point ``α`` (per slot) after a successful solve."""

    def solve_many(self, candidates: Sequence[int],
                   progress: Callable[[int], None] | None = None) -> list[CandidateSolution]:
        """Solve the candidates one after the other, reusing the compiled problem."""
        solutions = []
        for k in candidates:
            solutions.append(self.solve(int(k)))
            if progress is not None:
                progress(1)
        return solutions

    def solve(self, k: int) -> CandidateSolution:
        """Solve candidate ``k`` (Clarabel starts cold)."""
        self.candidate_row.value = self.problem.factor[k]
        try:
            with warnings.catch_warnings():  # an inaccurate solution raises SolverError below
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                self.cvxpy_problem.solve(solver=cp.CLARABEL, **CLARABEL_OPTIONS)
        except cp.error.SolverError as exc:
            raise SolverError(f"{self.name}: Clarabel failed on candidate {k}: {exc}",
                              status=self.cvxpy_problem.status) from None
        status = self.cvxpy_problem.status
        if status != cp.OPTIMAL:
            raise SolverError(f"{self.name}: candidate {k} was not solved", status=status)
        n_iter = int(self.cvxpy_problem.solver_stats.num_iters or 0)
        solution = solution_from_alpha(self.problem, k, self._alpha(), n_iter, status)
        return certify(solution, self.name)

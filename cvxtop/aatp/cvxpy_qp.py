"""Plumbing shared by the two cvxpy formulations of a candidate QP (eq. 2 and eq. 4).

Each formulation is built once with the candidate's factor row ``f_k`` as a DPP
:class:`cvxpy.Parameter`, so cvxpy compiles it on the first solve and only refills the
parameter afterwards. Every candidate is solved with Clarabel (tightened tolerances, then
Clarabel's defaults if those are not met) and its status is checked: ``optimal`` and
``optimal_inaccurate`` are accepted only if the dual point they yield passes the duality-gap
certificate of :mod:`.problem`, which proves optimality whatever the solver says; any other
status, or a failed certificate, raises :class:`cvxtop.SolverError` with the cvxpy status.
The status is kept on the result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, Sequence

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from .problem import AATPProblem, CandidateSolution, require_certified, solution_from_alpha

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
        """Solve candidate ``k`` (Clarabel starts cold; if it misses the tightened
        tolerances it is run again with its defaults)."""
        self.candidate_row.value = self.problem.factor[k]
        what = f"{self.name} candidate {k}"
        try:
            status = _cvxpy.solve(self.cvxpy_problem, "CLARABEL", CLARABEL_OPTIONS, what=what,
                                  accept_inaccurate=True, warn=False)
        except SolverError:
            status = None
        if status != cp.OPTIMAL:  # badly scaled data: Clarabel's own tolerances may do better
            # an inaccurate answer is accepted here because the certificate below decides
            status = _cvxpy.solve(self.cvxpy_problem, "CLARABEL", {}, what=what,
                                  accept_inaccurate=True, warn=False)
        n_iter = _cvxpy.iterations(self.cvxpy_problem)
        solution = solution_from_alpha(self.problem, k, self._alpha(), n_iter, status)
        return require_certified(solution, self.name)

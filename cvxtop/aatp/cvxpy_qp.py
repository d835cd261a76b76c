"""Plumbing shared by the two cvxpy formulations of a candidate QP (eq. 2 and eq. 4).

Each formulation is built once with the candidate's factor row ``f_k`` as a DPP
:class:`cvxpy.Parameter`, so cvxpy compiles it on the first solve and only refills the
parameter afterwards. Every candidate is solved with Clarabel (tightened tolerances, then
Clarabel's defaults where those miss the certificate) and its status is checked:
``optimal`` and ``optimal_inaccurate`` are accepted only if the point they yield passes the
duality-gap certificate of :mod:`.problem`, which proves optimality whatever the solver
says; any other status, or a failed certificate, raises :class:`cvxtop.SolverError` with
the cvxpy status.
The status is kept on the result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from .problem import (SCALE_ADVICE, AATPProblem, CandidateSolution, require_certified,
                      solution_from_alpha)

__all__ = ["CLARABEL_OPTIONS", "NO_INFEASIBILITY_VERDICTS", "Attempt", "CvxpyCandidateQP",
           "first_that_serves"]

T = TypeVar("T")
R = TypeVar("R")

#: Clarabel tolerances, tighter than its defaults so that the reference solutions are
#: accurate well below the selection rule's tie tolerances (:mod:`.selection`).
CLARABEL_OPTIONS = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
#: Clarabel options that keep it from declaring a problem infeasible or unbounded. A
#: candidate's QP is neither (eq. (2) is feasible with large slacks and bounded below by
#: 0), but where ``C·c_s`` is huge against the features (spambase's raw features, whose
#: columns' scales span four orders of magnitude, at C = 1) Clarabel's tests of those
#: verdicts fire on eq. (2) and eq. (4) alike, and it stops with a false "unbounded" or
#: "infeasible". Without them it runs on to an answer that the certificate judges.
NO_INFEASIBILITY_VERDICTS = {"tol_infeas_abs": 1e-30, "tol_infeas_rel": 1e-30}
_FALSE_VERDICTS = ("infeasible", "unbounded", "infeasible_inaccurate", "unbounded_inaccurate")


@dataclass(frozen=True)
class Attempt:
    """One solve of a candidate: Clarabel's ``options``, and whether the objective is
    divided by its largest weight (``scaled``, where the formulation reads it)."""

    options: dict
    scaled: bool = False


class CvxpyCandidateQP(ABC):
    """A candidate QP compiled once; subclasses build it and read the dual point ``α``."""

    name: str
    #: The solves of a candidate, the next one tried where an answer misses the
    #: certificate: the tightened tolerances, then Clarabel's defaults (badly scaled data,
    #: where its own tolerances may do better). The one that served where an earlier one
    #: missed is tried first from then on.
    attempts: tuple[Attempt, ...] = (Attempt(CLARABEL_OPTIONS), Attempt({}))

    def __init__(self, problem: AATPProblem) -> None:
        self.problem = problem
        self.candidate_row = cp.Parameter(problem.factor.shape[1], name="f_k")
        self.cvxpy_problem = self._build()
        if not self.cvxpy_problem.is_dcp(dpp=True):  # pragma: no cover - construction bug
            raise AssertionError(f"{self.name}: the formulation is not DPP")
        self._order = list(self.attempts)

    def _configure(self, attempt: Attempt) -> None:
        """Set the program's own parameters for ``attempt`` (none here)."""

    @abstractmethod
    def _build(self) -> cp.Problem:
        """The cvxpy problem in terms of :attr:`candidate_row`."""

    @abstractmethod
    def _alpha(self) -> np.ndarray:
        """The dual point ``α`` (per slot) after a successful solve."""

    def _solution(self, k: int, n_iter: int, status: str) -> CandidateSolution:
        """Candidate ``k``'s solution after a solve: its dual point ``α``, certified
        through ``w(α)``."""
        return solution_from_alpha(self.problem, k, self._alpha(), n_iter, status)

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
        """Solve candidate ``k`` (Clarabel starts cold) with each of :attr:`attempts` in
        turn until an answer passes the certificate (:func:`first_that_serves`); an
        inaccurate answer is taken to the certificate too, which decides. The last failure
        is raised."""
        self.candidate_row.value = self.problem.factor[k]
        what = f"{self.name} candidate {k}"

        def attempt(chosen: Attempt) -> CandidateSolution:
            self._configure(chosen)
            # a fresh Clarabel solver (no warm start): cvxpy's would keep the last solve's
            # settings and scaling, and an attempt that changes the objective's weight then
            # ends far off (raw spambase, C = 100: a relative gap of 0.16 where a fresh
            # solve certifies 6e-13)
            status = _cvxpy.solve(self.cvxpy_problem, "CLARABEL",
                                  {**chosen.options, "warm_start": False},
                                  what=what, accept_inaccurate=True, warn=False)
            solution = self._solution(k, _cvxpy.iterations(self.cvxpy_problem), status)
            return require_certified(solution, self.name)

        solution, failures = first_that_serves(self._order, attempt)
        if solution is not None:
            return solution
        failure = failures[-1]
        if failure.status in _FALSE_VERDICTS:
            raise SolverError(
                f"{failure}: a candidate's QP is always feasible and bounded, so the verdict "
                f"is numerical ({SCALE_ADVICE})", status=failure.status) from None
        raise failure


def first_that_serves(order: list[T], attempt: Callable[[T], R]
                      ) -> tuple[R | None, list[SolverError]]:
    """``attempt`` on each of ``order`` in turn: the first result that raises no
    :class:`cvxtop.SolverError`, and the failures before it (``None`` and every failure
    where all fail). The one that served where an earlier one failed moves to the front of
    ``order``, to be tried first from then on."""
    failures: list[SolverError] = []
    for chosen in list(order):
        try:
            result = attempt(chosen)
        except SolverError as exc:
            failures.append(exc)
            continue
        if failures:
            order.remove(chosen)
            order.insert(0, chosen)
        return result, failures
    return None, failures

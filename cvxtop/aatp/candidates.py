"""Which candidate QPs to solve, in which order, and running them (joblib, tqdm).

Order. Candidates follow a greedy nearest-neighbour tour in the kernel's feature space
(``‖f_k − f_l‖² = K_kk + K_ll − 2K_kl``, from a factor or from the Gram matrix's rows):
the QPs of eq. (2) for ``z_k`` and ``z_l`` differ only through ``f_k − f_l``, so
consecutive candidates are similar problems and the fast solvers warm-start each one from
its predecessor (:mod:`.fast`, :mod:`.face_descent`).

Screening of repeated points. Candidates whose points are identical (equal feature rows,
or equal rows of a precomputed Gram matrix) are solved once, by the one with the smallest
index, and the others receive its result (with labeled items, :func:`.problem.items_problem`
also merges each group into one slot per label). This provably leaves the selection
unchanged:

1. QP (2) for candidate ``k`` depends on ``z_k`` only through the values ``K(z_k, z)``
   on the sample (its dual (4) through ``K_k``). Equal points, or equal Gram rows
   ``K[a] = K[b]`` (which also give ``K_aa = K_ab = K_bb`` by symmetry), define the same
   QP, hence the same optimal value and, the primal being strongly convex, the same
   ``w``.
2. The same ``w`` gives the same scores ``h(z_j)``, the same quantile ``q̂``, and
   ``h(z_a) = h(z_b)`` (for a Gram row: ``Σ β_s (K_sa − K_aa) = Σ β_s (K_sb − K_bb)``);
   so ``a`` and ``b`` have the same gap and objective.
3. The selection rule (:mod:`.selection`) compares only gaps and objectives and breaks
   the remaining ties by the smallest index, so whenever some member of a group of
   identical candidates is chosen, the group's smallest index is: exactly the
   representative that was solved.

Screening of candidates that cannot be chosen. The kernel-form solver
(:mod:`.face_descent`) stops a candidate's solve as soon as a certified feasible point
bounds its gap above the smallest gap found so far (plus the rule's tolerance), or its
dual value bounds its objective above that of a solved candidate whose gap is exactly 0
(:func:`.selection.objective_excludes`): such a candidate is provably not chosen. The
bounds come from the candidates solved earlier in the same chunk; screening never changes
the selection, only which candidates are solved to optimality.

Parallelism. The tour is cut into contiguous chunks that run through
:class:`joblib.Parallel` with ``n_jobs``; under ``joblib.parallel_config(backend="dask")``
(or Ray's backend) the chunks run on a cluster. Each chunk scores its candidates
(:func:`.selection.score_candidate`) and returns only those scores, not the dual points.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Iterator, Union

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from tqdm.auto import tqdm

from ..gram import Gram
from .face_descent import FaceDescentSolver
from .cvxpy_qp import CvxpyCandidateQP
from .dual import DualQP
from .fast import FastDualSolver
from .primal import PrimalQP
from .problem import AATPProblem, CandidateSolution
from .selection import GAP_ATOL, CandidateScore, ScreenBounds, score_candidate

__all__ = ["SOLVERS", "SolverPlan", "nearest_neighbour_tour", "duplicate_representatives",
           "solve_candidates"]

#: Solver names of the ``solver`` argument of :class:`cvxtop.AATP`.
SOLVERS = ("fast", "cvxpy", "cvxpy-primal")

#: Solutions a chunk keeps for the selection rule's final choice (the chosen candidate's
#: is among them unless more candidates tie; it is then solved again).
KEPT_SOLUTIONS = 32

#: Chunks per worker: a few, so that progress advances and loads balance, while each
#: chunk keeps long strands for the fast solver and few compilations for cvxpy.
CHUNKS_PER_JOB = 2

CandidateSolver = Union[FastDualSolver, FaceDescentSolver, CvxpyCandidateQP]


@dataclass(frozen=True)
class SolverPlan:
    """Which solver runs the candidates, built afresh in every worker.

    ``gram`` set: the kernel-form solver of :mod:`.face_descent` on that Gram matrix;
    otherwise the named solver on the problem's factor.
    """

    name: str
    gram: Gram | None = None

    @property
    def engine(self) -> str:
        """The method's identifier (:data:`cvxtop.solvers.result.ENGINES`)."""
        if self.gram is not None:
            return "face-descent"
        return {"fast": "interior-point", "cvxpy": "cvxpy-dual",
                "cvxpy-primal": "cvxpy-primal"}[self.name]

    def build(self, problem: AATPProblem, tau: float) -> CandidateSolver:
        if self.gram is not None:
            return FaceDescentSolver(problem, self.gram, tau)
        return {"fast": FastDualSolver, "cvxpy": DualQP, "cvxpy-primal": PrimalQP}[
            self.name](problem)


def _iter_solutions(solver: CandidateSolver, candidates: np.ndarray,
                    progress: Callable[[int], None] | None,
                    bound: Callable[[], ScreenBounds] | None) -> Iterator[CandidateSolution]:
    if isinstance(solver, FaceDescentSolver):
        return solver.iter_solutions(candidates, progress, bound)
    return iter(solver.solve_many(candidates, progress))


def nearest_neighbour_tour(points: np.ndarray | Gram, candidates: np.ndarray) -> np.ndarray:
    """Candidates reordered by a greedy nearest-neighbour tour from the first one.

    ``points`` is a factor (one row per item) or a :class:`cvxtop.gram.Gram`, whose rows
    give the distances ``K_kk + K_ll − 2K_kl`` one at a time.
    """
    if isinstance(points, Gram):
        sq = points.diagonal[candidates]

        def inner(i: int) -> np.ndarray:
            return points.rows(int(candidates[i]))[candidates]
    else:
        rows = points[candidates]
        sq = np.einsum("ij,ij->i", rows, rows)

        def inner(i: int) -> np.ndarray:
            return rows @ rows[i]
    left = np.ones(len(candidates), dtype=bool)
    order = np.empty(len(candidates), dtype=np.int64)
    current = 0
    for step in range(len(candidates)):
        order[step] = current
        left[current] = False
        if step + 1 < len(candidates):
            dist = sq - 2.0 * inner(current)
            dist[~left] = np.inf
            current = int(np.argmin(dist))
    return candidates[order]


def duplicate_representatives(keys: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each candidate, the smallest candidate index whose key row is identical.

    Rows are compared exactly (their bytes), one at a time, so that a memory-mapped Gram
    matrix is read row by row and never copied whole.
    """
    firsts: dict[bytes, list[int]] = {}
    result = np.empty(len(candidates), dtype=np.int64)
    for position, index in enumerate(candidates):
        row = np.ascontiguousarray(keys[index]) + 0.0  # + 0.0 turns −0.0 into 0.0
        digest = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
        same = firsts.setdefault(digest, [])
        match = next((j for j in same if np.array_equal(keys[j], row)), None)
        if match is None:
            same.append(int(index))
            match = int(index)
        result[position] = match
    return result


def _keep_contenders(kept: dict[int, CandidateSolution], scores: dict[int, CandidateScore],
                     best: float) -> None:
    """Drop the kept solutions whose gap is now out of the selection rule's reach, and all
    but the :data:`KEPT_SOLUTIONS` best of the others."""
    reach = best + GAP_ATOL
    for k in [k for k in kept if scores[k].gap > reach]:
        del kept[k]
    if len(kept) > KEPT_SOLUTIONS:
        ranked = sorted(kept, key=lambda k: (scores[k].gap, scores[k].objective, k))
        for k in ranked[KEPT_SOLUTIONS:]:
            del kept[k]


def _solve_chunk(problem: AATPProblem, chunk: np.ndarray, plan: SolverPlan, tau: float,
                 screen: bool, progress: Callable[[int], None] | None = None
                 ) -> tuple[list[CandidateScore], dict[int, CandidateSolution]]:
    """Solve and score a contiguous part of the tour; with ``screen``, the smallest gap
    certified so far in this chunk, and the smallest objective of a solved candidate of
    gap exactly 0, bound the candidates that follow. Also returns the
    solutions of the candidates the selection rule may still choose (gaps within its
    tolerance of the chunk's smallest), so that the chosen one is not solved again."""
    solver = plan.build(problem, tau)
    best = [np.inf]
    zero_gap_objective = [np.inf]
    scores: list[CandidateScore] = []
    by_candidate: dict[int, CandidateScore] = {}
    kept: dict[int, CandidateSolution] = {}
    bound = (lambda: ScreenBounds(best[0], zero_gap_objective[0])) if screen else None
    for solution in _iter_solutions(solver, chunk, progress, bound):
        score = score_candidate(problem, solution, tau)
        scores.append(score)
        if score.gap_bounds is None:
            by_candidate[score.candidate] = score
            best[0] = min(best[0], score.gap)
            if score.gap == 0.0:
                zero_gap_objective[0] = min(zero_gap_objective[0], score.objective)
            if score.gap <= best[0] + GAP_ATOL:
                kept[score.candidate] = solution
            _keep_contenders(kept, by_candidate, best[0])
    return scores, kept


def solve_candidates(problem: AATPProblem, candidates: np.ndarray, plan: SolverPlan,
                     tau: float, *, n_jobs: int | None = None, progress: bool = False,
                     screen: bool = True
                     ) -> tuple[list[CandidateScore], dict[int, CandidateSolution]]:
    """Solve and score every candidate (in tour order), optionally in parallel; also the
    solutions of the candidates that the selection rule may choose (see
    :func:`_solve_chunk`; the chosen one's solution is among them unless more than
    :data:`KEPT_SOLUTIONS` candidates tie)."""
    jobs = effective_n_jobs(n_jobs)
    with tqdm(total=len(candidates), desc="AATP candidates", unit="QP",
              disable=not progress) as bar:
        if jobs == 1:
            return _solve_chunk(problem, candidates, plan, tau, screen, bar.update)
        chunks = np.array_split(candidates, min(len(candidates), jobs * CHUNKS_PER_JOB))
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_solve_chunk)(problem, chunk, plan, tau, screen) for chunk in chunks)
        scores: list[CandidateScore] = []
        kept: dict[int, CandidateSolution] = {}
        for part, solutions in results:
            scores.extend(part)
            kept.update(solutions)
            bar.update(len(part))
        return scores, kept

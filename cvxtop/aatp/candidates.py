"""Which candidate QPs to solve, in which order, and running them (joblib, tqdm).

Order. Candidates follow a greedy nearest-neighbour tour in the kernel's feature space
(``‖f_k − f_l‖² = K_kk + K_ll − 2K_kl``): the QPs of eq. (2) for ``z_k`` and ``z_l``
differ only through ``f_k − f_l``, so consecutive candidates are similar problems and the
fast solver warm-starts each one from its predecessor (:mod:`.fast`).

Screening of repeated points (the only screening done). Candidates whose points are
identical (equal feature rows, or equal rows of a precomputed Gram matrix) are solved
once, by the one with the smallest index, and the others receive its result. This
provably leaves the selection unchanged:

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

No other screening is done: the rule's primary key, the gap, depends on the whole
solution ``w_k`` and admits no bound that is cheaper than solving the QP.

Parallelism. The tour is cut into contiguous chunks that run through
:class:`joblib.Parallel` with ``n_jobs``; under ``joblib.parallel_config(backend="dask")``
(or Ray's backend) the chunks run on a cluster. Each chunk scores its candidates
(:func:`.selection.score_candidate`) and returns only those scores, not the dual points.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from tqdm.auto import tqdm

from .cvxpy_qp import CvxpyCandidateQP
from .dual import DualQP
from .fast import FastDualSolver
from .primal import PrimalQP
from .problem import AATPProblem
from .selection import CandidateScore, score_candidate

__all__ = ["SOLVERS", "make_solver", "nearest_neighbour_tour", "duplicate_representatives",
           "solve_candidates"]

#: Solver names of the ``solver`` argument of :class:`cvxtop.AATP`.
SOLVERS: dict[str, type[FastDualSolver] | type[CvxpyCandidateQP]] = {
    "fast": FastDualSolver,
    "cvxpy": DualQP,
    "cvxpy-primal": PrimalQP,
}

#: Chunks per worker: a few, so that progress advances and loads balance, while each
#: chunk keeps long strands for the fast solver and few compilations for cvxpy.
CHUNKS_PER_JOB = 2


def make_solver(name: str, problem: AATPProblem) -> FastDualSolver | CvxpyCandidateQP:
    return SOLVERS[name](problem)


def nearest_neighbour_tour(factor: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Candidates reordered by a greedy nearest-neighbour tour from the first one."""
    points = factor[candidates]
    sq = np.einsum("ij,ij->i", points, points)
    left = np.ones(len(candidates), dtype=bool)
    order = np.empty(len(candidates), dtype=np.int64)
    current = 0
    for step in range(len(candidates)):
        order[step] = current
        left[current] = False
        if step + 1 < len(candidates):
            dist = sq - 2.0 * (points @ points[current])
            dist[~left] = np.inf
            current = int(np.argmin(dist))
    return candidates[order]


def duplicate_representatives(keys: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each candidate, the smallest candidate index whose key row is identical."""
    _, first, inverse = np.unique(keys[candidates], axis=0, return_index=True,
                                  return_inverse=True)
    return candidates[first[inverse.ravel()]]


def _solve_chunk(problem: AATPProblem, chunk: np.ndarray, solver: str, tau: float,
                 progress: Callable[[int], None] | None = None) -> list[CandidateScore]:
    solutions = make_solver(solver, problem).solve_many(chunk, progress)
    return [score_candidate(problem, s, tau) for s in solutions]


def solve_candidates(problem: AATPProblem, candidates: np.ndarray, solver: str, tau: float,
                     *, n_jobs: int | None = None, progress: bool = False
                     ) -> list[CandidateScore]:
    """Solve and score every candidate (in tour order), optionally in parallel."""
    jobs = effective_n_jobs(n_jobs)
    with tqdm(total=len(candidates), desc="AATP candidates", unit="QP",
              disable=not progress) as bar:
        if jobs == 1:
            return _solve_chunk(problem, candidates, solver, tau, bar.update)
        chunks = np.array_split(candidates, min(len(candidates), jobs * CHUNKS_PER_JOB))
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_solve_chunk)(problem, chunk, solver, tau) for chunk in chunks)
        scores: list[CandidateScore] = []
        for part in results:
            scores.extend(part)
            bar.update(len(part))
        return scores

"""SGD's line-search rule when the partition has one block: the epochs are cutting-plane
rounds.

Block Frank-Wolfe on a partition into one block is Frank-Wolfe on the whole problem, and its
multi-plane form (Shah et al. 2015) that keeps every plane, re-optimizes their weights
exactly and steps by a line search on the objective is the 1-slack cutting plane with
OCAS's query points (:mod:`.cutting_plane`). So when the data make one batch (with
``batch_size="auto"``, up to 100,000 items: :func:`.minimize.resolve_batch_size`), or the
surrogate does not split into batches (:attr:`cvxtop.surrogates.base.Surrogate.splits`:
pAp@k's ``k`` irrelevant items are the list's top ``k``, and a batch of it sees others),
an epoch is one round of that engine: one pass over the data for the cut (two products) and
a small master QP on the cuts' Gram matrix (and, once the cut store dominates a round, a
line search on the scores).

Each round certifies its own gap (the master's dual value is a lower bound on the whole
problem, since no batch bias is involved), so the run stops as soon as the gap is at most
``tol`` and otherwise after ``epochs`` rounds, with the gap it reached.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .cutting_plane import solve_cutting_plane
from .gaps import within
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["is_one_block", "run_one_block", "ONE_BLOCK_ROUNDS"]

#: ``epochs="auto"`` on one block: at most this many rounds. A run stops at its certified
#: ``tol`` long before on the benchmark's grid (``benchmarks/approx_vs_exact.py``: four
#: data sets, prec@k avg/max/struct and pAp@k avg/TS, C from 0.01 to 10, at most about 400
#: rounds to 1%), where 50 left 11 of 80 cells more than 5% above the optimum.
ONE_BLOCK_ROUNDS = 1000


def is_one_block(objective: RankingObjective, batch_size: int) -> bool:
    """Whether a mini-batch partition of ``objective`` into ``batch_size`` items (or into its
    groups) has a single block, which is then the whole problem."""
    if objective.groups is not None:
        return objective.n_groups == 1
    return batch_size >= len(objective.y)


def run_one_block(objective: RankingObjective, epochs: int, tol: float | None,
                  callback: Callable[[int, float, float | None], None] | None = None
                  ) -> SolveResult:
    """Run up to ``epochs`` cutting-plane rounds on the whole problem (module docstring);
    stop once the certified relative gap is at most ``tol`` (never with ``None``). The
    result's status is ``"converged"`` when ``tol`` stopped the run, ``"completed"`` when it
    ran every round; ``epoch_times`` holds the seconds of each round."""
    seconds: list[float] = []
    clock = [time.perf_counter()]

    def round_done(it: int, upper: float, lower: float | None) -> None:
        now = time.perf_counter()
        seconds.append(now - clock[0])
        clock[0] = now
        if callback is not None:
            callback(it, upper, lower)

    def settled(upper: float, lower: float) -> bool:
        done = tol is not None and within(upper, lower, tol, objective.C)
        return done or len(seconds) >= epochs

    # the engine's own tolerance (zero) is met by an exact optimum only: `settled` decides
    result = solve_cutting_plane(objective, tol=0.0, max_iter=epochs + 1, callback=round_done,
                                 stop=settled)
    converged = tol is not None and result.gap <= tol
    rounds = len(seconds)
    return SolveResult(
        coef=result.coef, objective=result.objective,
        status="converged" if converged else "completed",
        method="sgd", detail="line-search, one block", n_iter=rounds,
        lower_bound=result.lower_bound, gap=result.gap,
        epoch_times=np.array(seconds), n_batches_skipped=0,
        message=f"sgd (line-search): one block (the whole list), so {rounds} epoch(s) of cutting-plane "
                f"rounds, objective {result.objective:.6g}")

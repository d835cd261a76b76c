"""Epoch loops of the mini-batch methods (perceptrons and SGD) over arrays or memmaps.

Without groups a batch is ``batch_size`` consecutive items of the (reshuffled, if asked)
order, with the surrogate's batch cut-off (``Surrogate.batch_cutoff``). With groups every
batch is one group with its own cut-off: the lists of a ranking problem are natural batches
(Kar et al. 2015, Section 4, note that the perceptrons then need no mini-batching).
"""

from __future__ import annotations

import time
from contextlib import closing
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from .batches import batch_slices
from .checkpoints import is_checkpoint
from .gaps import gap_floor, half_square, within
from .objective import RankingObjective
from ..surrogates.base import Bound
from .perceptron import PerceptronState, perceptron_step
from .sgd import (BlockFWState, SGDState, block_fw_step, block_planes, corrective_step,
                  sgd_step)

__all__ = ["MinibatchConfig", "run_perceptron", "run_sgd", "Checkpoint", "DEFAULT_EPOCHS"]

#: Called with the run's model at checkpoint epochs (:mod:`.checkpoints`) and at an epoch
#: where a stopping rule ends the run, and whether to certify it there (not at the run's
#: end, where the caller's certificate follows); returns whether the run may stop there.
Checkpoint = Callable[[np.ndarray, bool], bool]


#: Epochs (passes over the data) of the perceptrons and of SGD on mini-batches under
#: ``epochs="auto"``; SGD's line-search rule on one block runs up to
#: :data:`.one_block.ONE_BLOCK_ROUNDS` cutting-plane rounds instead.
DEFAULT_EPOCHS = 50


@dataclass(frozen=True)
class MinibatchConfig:
    """Batching and stopping settings shared by the perceptrons and SGD."""

    batch_size: int = 500
    epochs: int = DEFAULT_EPOCHS
    shuffle: bool = True
    tol: float | None = None
    progress: bool = False


def _batches(objective: RankingObjective, config: MinibatchConfig, rng: np.random.Generator
             ) -> Iterator[tuple[slice | np.ndarray, Bound | None]]:
    """(index, surrogate bound to the batch) of each batch of one epoch; the bound is
    ``None`` where the surrogate is undefined on the batch."""
    if objective.groups is not None:
        parts = objective.parts
        order = rng.permutation(len(parts)) if config.shuffle else range(len(parts))
        for g in order:
            yield parts[g].index, parts[g].bound
        return
    y, surrogate = objective.y, objective.surrogate
    n_pos = int(y.sum())
    for idx in batch_slices(len(y), config.batch_size, config.shuffle, rng):
        yb = y[idx]
        kb = surrogate.batch_cutoff(n_pos, int(np.count_nonzero(yb)), len(yb))
        yield idx, None if kb is None else surrogate.bind_cutoff(yb, kb)


def _no_batch_error(objective: RankingObjective, config: MinibatchConfig) -> ValueError:
    """The error for a run in which no mini-batch had a cut-off, so nothing was learned
    (rather than returning the zero model)."""
    return ValueError(
        f"batch_size={config.batch_size} is too small for {objective.surrogate.name} on these "
        f"data: no mini-batch had {objective.surrogate.batch_requirement()}, so no step was "
        "taken; increase batch_size (or pass groups that each hold such items)")


def _fixed_batches(objective: RankingObjective, config: MinibatchConfig) -> bool:
    """Whether every epoch sees the same batches (possibly in another order)."""
    return objective.groups is not None or not config.shuffle


def _epochs(config: MinibatchConfig, label: str, seconds: list[float]) -> Iterator[int]:
    """Epoch numbers 1, 2, ...; appends to ``seconds`` the wall-clock time of each epoch's
    loop body as it ends (so set-up before the loop and scoring after it are left out).
    Use it under :func:`contextlib.closing`, so that an epoch ended by ``break`` is timed
    too."""
    epochs: Iterator[int] = iter(range(1, config.epochs + 1))
    if config.progress:
        from tqdm.auto import tqdm

        epochs = iter(tqdm(epochs, total=config.epochs, desc=label, unit="epoch"))
    for epoch in epochs:
        start = time.perf_counter()
        try:
            yield epoch
        finally:
            seconds.append(time.perf_counter() - start)


def _stop(epoch: int, config: MinibatchConfig, rule: bool, checkpoint: Checkpoint | None,
          model: Callable[[], np.ndarray]) -> bool:
    """Whether the run stops after ``epoch``: by its own ``rule`` or at a checkpoint; the
    checkpoint also sees the model of the epoch where the rule stops the run."""
    if checkpoint is None or not (rule or is_checkpoint(epoch, config.epochs)):
        return rule
    last = rule or epoch == config.epochs
    return checkpoint(model(), not last) or rule


def run_perceptron(state: PerceptronState, objective: RankingObjective, variant: str,
                   config: MinibatchConfig, rng: np.random.Generator,
                   checkpoint: Checkpoint | None = None) -> list[float]:
    """Run Algorithm 1 or 2 for up to ``config.epochs`` passes; return the seconds of each
    epoch run.

    When every epoch sees the same batches (``shuffle=False``, or groups), an epoch without
    a mistake leaves the model unchanged, so the next ones would too: the run stops there.
    With reshuffled batches it runs ``config.epochs`` passes, unless ``checkpoint`` stops
    it.
    """
    Z = objective.Z
    fixed = _fixed_batches(objective, config)
    seconds: list[float] = []
    with closing(_epochs(config, f"perceptron@k-{variant}", seconds)) as epochs:
        for epoch in epochs:
            before = state.mistakes
            for idx, batch in _batches(objective, config, rng):
                if batch is not None:
                    perceptron_step(state, Z[idx], batch.y, batch.k, variant)
            if _stop(epoch, config, fixed and state.mistakes == before, checkpoint,
                     lambda: state.w):
                break
    if state.batches == 0:
        raise _no_batch_error(objective, config)
    return seconds


def run_sgd(objective: RankingObjective, config: MinibatchConfig, rng: np.random.Generator,
            learning_rate: str, eta0: float, average: bool, radius: float | None,
            checkpoint: Checkpoint | None = None) -> tuple[np.ndarray, list[float], int]:
    """Run SGD for up to ``config.epochs`` passes with the step rule ``learning_rate``
    (the line-search rule on a partition into one block runs the cutting plane instead:
    :mod:`.one_block`).

    With ``config.tol`` it stops early: the ``"line-search"`` rule once the certified
    duality gap of the batch-decomposed problem is at most ``tol`` (relative), the other
    rules once an epoch lowers the full objective of the returned model by less than
    ``tol`` (relative); ``checkpoint`` may stop it too. Returns the model, the seconds of
    each epoch run and the number of batches skipped (no cut-off).
    """
    if learning_rate == "line-search":
        return _run_block_frank_wolfe(objective, config, rng, checkpoint)
    return _run_subgradient_steps(objective, config, rng, learning_rate, eta0, average, radius,
                                  checkpoint)


def _additive(objective: RankingObjective) -> bool:
    """Whether the batch losses add up to the list's loss (a surrogate whose batch losses
    add, on one list); otherwise they are averaged (normalized risks, group means)."""
    return objective.surrogate.additive and objective.groups is None


def _batch_weight(objective: RankingObjective, n_blocks: int) -> float:
    """Weight of one batch surrogate in the batch-decomposed objective."""
    return objective.C if _additive(objective) else objective.C / n_blocks


#: Corrective passes over the blocks' stored planes (no data read) after each epoch's sweep:
#: at most :data:`CACHE_PASSES`, fewer once a pass gains less than :data:`CACHE_GAIN` times
#: the sweep's dual gain. A count, not a time budget, so that a fit is reproducible.
CACHE_PASSES = 2
CACHE_GAIN = 0.3


def _cached_passes(state: BlockFWState, order: Sequence[int], sweep_gain: float) -> None:
    """Corrective steps on the blocks from their stored planes alone (multi-plane block
    Frank-Wolfe, Shah et al. 2015): they read no data, and let each block's weights catch
    up with the other blocks' moves."""
    for _ in range(CACHE_PASSES):
        start = state.dual_value
        for b in order:
            corrective_step(state, b)
        if state.dual_value - start <= CACHE_GAIN * max(sweep_gain, 0.0):
            return


def _run_block_frank_wolfe(objective: RankingObjective, config: MinibatchConfig,
                           rng: np.random.Generator, checkpoint: Checkpoint | None
                           ) -> tuple[np.ndarray, list[float], int]:
    """Block-coordinate Frank-Wolfe over a partition drawn once (see :mod:`.sgd`)."""
    Z, surrogate = objective.Z, objective.surrogate
    blocks = [(idx, batch) for idx, batch in _batches(objective, config, rng)
              if batch is not None]
    if not blocks:
        raise _no_batch_error(objective, config)
    gathered = objective.groups is None and config.shuffle and isinstance(Z, np.ndarray) \
        and not isinstance(Z, np.memmap)
    if gathered:
        # The partition is fixed, so each block's rows are gathered once, into a contiguous
        # copy (in-memory dense data only), at the block's first visit: the copy is then
        # still in cache for that step's two products, and later epochs read it in order
        # instead of gathering scattered rows again (on n = 10⁶, d = 100 this halves the
        # epoch time).
        source, rows = Z, [idx for idx, _ in blocks]
        starts = np.cumsum([0] + [batch.n for _, batch in blocks])
        Z = np.empty((int(starts[-1]), source.shape[1]), dtype=source.dtype)
        blocks = [(slice(a, b), batch) for (_, batch), a, b in zip(blocks, starts, starts[1:])]
    n_batches = (objective.n_groups if objective.groups is not None
                 else -(-len(objective.y) // config.batch_size))
    weight = _batch_weight(objective, len(blocks))
    state = BlockFWState(np.zeros(Z.shape[1]), len(blocks),
                         block_planes(Z.shape[1], len(blocks)))
    seconds: list[float] = []
    with closing(_epochs(config, f"sgd {surrogate.name}", seconds)) as epochs:
        for epoch in epochs:
            order = rng.permutation(len(blocks)) if config.shuffle else range(len(blocks))
            before = state.dual_value if epoch > 1 else None
            for b in order:
                idx, batch = blocks[b]
                if gathered and not state.visited(b):
                    np.take(source, rows[b], axis=0, out=Z[idx], mode="clip")
                block_fw_step(state, b, Z[idx], batch, weight)
            if before is not None:
                _cached_passes(state, order, state.dual_value - before)
            converged = False
            if config.tol is not None:
                w = state.w
                primal = 0.5 * float(w @ w) + weight * sum(
                    batch.value(Z[idx] @ w) for idx, batch in blocks)
                converged = within(primal, state.dual_value, config.tol, objective.C,
                                   half_square(w))
            if _stop(epoch, config, converged, checkpoint, lambda: state.w):
                break
    return state.w.copy(), seconds, n_batches - len(blocks)


def _run_subgradient_steps(objective: RankingObjective, config: MinibatchConfig,
                           rng: np.random.Generator, learning_rate: str, eta0: float,
                           average: bool, radius: float | None,
                           checkpoint: Checkpoint | None) -> tuple[np.ndarray, list[float], int]:
    """Stochastic subgradient steps ``"inverse"`` or ``"sqrt"`` (see :mod:`.sgd`)."""
    Z, surrogate = objective.Z, objective.surrogate
    state = SGDState(np.zeros(Z.shape[1]))
    n = len(objective.y)
    per_item_scale = _additive(objective)

    def model() -> np.ndarray:
        return state.average if average else state.w

    previous = np.inf
    seconds: list[float] = []
    with closing(_epochs(config, f"sgd {surrogate.name}", seconds)) as epochs:
        for epoch in epochs:
            for idx, batch in _batches(objective, config, rng):
                if batch is None:
                    state.skipped += 1
                    continue
                # an additive batch loss stands for n/b times as many items
                scale = n / batch.n if per_item_scale else 1.0
                sgd_step(state, Z[idx], batch, objective.C, scale, learning_rate, eta0, radius)
            converged = False
            if config.tol is not None:
                value = objective.value(model())
                converged = previous - value <= config.tol * max(abs(value), gap_floor(objective.C))
                previous = value
            if _stop(epoch, config, converged, checkpoint, model):
                break
    if state.t == 0:
        raise _no_batch_error(objective, config)
    return model().copy(), seconds, state.skipped

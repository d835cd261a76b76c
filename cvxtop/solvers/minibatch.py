"""Epoch loops of the mini-batch methods (perceptrons and SGD) over arrays or memmaps.

Without groups a batch is ``batch_size`` consecutive items of the (reshuffled, if asked)
order, with the cut-off of :func:`cvxtop.solvers.sgd.batch_cutoff`. With groups every batch
is one group with its own cut-off: the lists of a ranking problem are natural batches
(``papers/000`` Section 4 notes that the perceptrons then need no mini-batching).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .batches import batch_slices
from .objective import RankingObjective
from .perceptron import PerceptronState, perceptron_step
from .sgd import BlockFWState, SGDState, batch_cutoff, block_fw_step, sgd_step

__all__ = ["MinibatchConfig", "run_perceptron", "run_sgd"]


@dataclass(frozen=True)
class MinibatchConfig:
    """Batching and stopping settings shared by the perceptrons and SGD."""

    batch_size: int = 500
    epochs: int = 25
    shuffle: bool = True
    tol: float | None = None
    progress: bool = False


def _batches(objective: RankingObjective, k: int | float, config: MinibatchConfig,
             rng: np.random.Generator) -> Iterator[tuple[slice | np.ndarray, int | None]]:
    """(index, cut-off) of each batch of one epoch; the cut-off is None where undefined."""
    if objective.groups is not None:
        parts = objective.parts
        order = rng.permutation(len(parts)) if config.shuffle else range(len(parts))
        for g in order:
            yield parts[g].index, parts[g].k
        return
    y = objective.y
    n_pos = int(y.sum())
    for idx in batch_slices(len(y), config.batch_size, config.shuffle, rng):
        yield idx, batch_cutoff(objective.surrogate, k, n_pos, y[idx])


def _epochs(config: MinibatchConfig, label: str):
    epochs = range(1, config.epochs + 1)
    if config.progress:
        from tqdm.auto import tqdm

        return tqdm(epochs, desc=label, unit="epoch")
    return epochs


def run_perceptron(state: PerceptronState, objective: RankingObjective, k: int | float,
                   variant: str, config: MinibatchConfig, rng: np.random.Generator) -> int:
    """Run Algorithm 1 or 2 for up to ``config.epochs`` passes; return the epochs run.

    Stops early after an epoch without a mistake (the model no longer changes).
    """
    Z, y = objective.Z, objective.y
    epochs_run = 0
    for _ in _epochs(config, f"perceptron@k-{variant}"):
        epochs_run += 1
        before = state.mistakes
        for idx, kb in _batches(objective, k, config, rng):
            if kb is not None:
                perceptron_step(state, Z[idx], y[idx], kb, variant)
        if state.mistakes == before:
            break
    return epochs_run


def run_sgd(objective: RankingObjective, k: int | float, config: MinibatchConfig,
            rng: np.random.Generator, learning_rate: str, eta0: float, average: bool,
            radius: float | None) -> tuple[np.ndarray, int, int]:
    """Run SGD for up to ``config.epochs`` passes; with ``config.tol``, stop once an epoch
    lowers the full objective by less than ``tol`` (relative).

    Returns the model, the epochs run and the number of batches skipped (no cut-off).
    """
    Z, y, surrogate = objective.Z, objective.y, objective.surrogate
    d = Z.shape[1]
    grouped = objective.groups is not None
    if learning_rate == "line-search":
        blocks = [(idx, kb) for idx, kb in _batches(objective, k, config, rng) if kb is not None]
        skipped = (len(objective.parts) if grouped else -(-len(y) // config.batch_size)) \
            - len(blocks)
        # prec@k batch losses add up to the list's loss; pAp@k risks and group means average
        weight = objective.C if surrogate.family == "prec" and not grouped \
            else objective.C / len(blocks)
        state = BlockFWState(np.zeros(d), len(blocks))

        def epoch() -> None:
            order = rng.permutation(len(blocks)) if config.shuffle else range(len(blocks))
            for b in order:
                idx, kb = blocks[b]
                block_fw_step(state, b, Z[idx], y[idx], surrogate, kb, weight)

        def current() -> np.ndarray:
            return state.w
    else:
        state = SGDState(np.zeros(d))
        n = len(y)

        def epoch() -> None:
            for idx, kb in _batches(objective, k, config, rng):
                if kb is None:
                    state.skipped += 1
                    continue
                yb = y[idx]
                scale = n / len(yb) if surrogate.family == "prec" and not grouped else 1.0
                sgd_step(state, Z[idx], yb, surrogate, kb, objective.C, scale, learning_rate,
                         eta0, radius)

        def current() -> np.ndarray:
            return state.average if average else state.w
    previous = np.inf
    epochs_run = 0
    for _ in _epochs(config, f"sgd {surrogate.name}"):
        epochs_run += 1
        epoch()
        if config.tol is not None:
            value = objective.value(current())
            if previous - value <= config.tol * max(abs(value), 1e-12):
                break
            previous = value
    if learning_rate != "line-search":
        skipped = state.skipped
    return current().copy(), epochs_run, skipped

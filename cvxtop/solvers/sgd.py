"""Mini-batch stochastic subgradient descent (Kar et al. 2015, Algorithm 3, SGD@k-avg with
Algorithm 4's subgradient, and the same scheme for every convex surrogate).

Each step takes a mini-batch ``B``, evaluates the surrogate *on the batch* (with the batch's
own cut-off, the surrogate's ``batch_cutoff``) and moves along a stochastic subgradient of

* the regularized objective of the contract, ``½‖w‖² + C·L(y, Xw)`` (default), where the
  batch surrogates stand for the full one: the batches' count-scale prec@k losses add up to
  the list's, and the normalized pAp@k losses and group means are averaged; or
* the paper's projected form: ``L`` alone, with the iterate projected on the ball
  ``‖w‖ <= radius`` (``radius`` given).

Step rules:

* ``"line-search"`` (default): block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013),
  the stochastic version of the line-searched steps of :mod:`cvxtop.solvers.gd`. The
  batches are drawn once (a fixed partition, visited in a new random order every epoch);
  ``w`` is the sum of one contribution per batch, and a step replaces a fraction of its
  batch's contribution by the batch's subgradient vertex, the fraction maximizing the dual
  in closed form. No step size to tune; the dual value certifies the batch-decomposed
  problem, whose optimum differs from the full one without groups (by a mini-batch bias
  that shrinks as batches grow) and equals it with groups, where the batches are the
  groups.
* ``"inverse"``: ``η_t = 1/t`` (the 1/(λt) schedule for the 1-strongly convex objective).
* ``"sqrt"``: ``η_t = eta0/√t``.

With ``average=True`` the returned model of the last two rules is an average of the
iterates: uniform for ``"sqrt"`` (Algorithm 3 returns it), weighted by ``t`` for
``"inverse"`` (``w̄_t = w̄_{t−1} + 2/(t+1)·(w_t − w̄_{t−1})``; Lacoste-Julien, Schmidt and
Bach 2012: the uniform average of 1/t steps on a strongly convex objective keeps the early
iterates and converges at O(log t/t) only). A mini-batch prec@κ is not the full-data
prec@k: the batch's top ``ceil(κ·n₊(B))`` items stand for the list's top ``ceil(κ·n₊)``,
which is why the result is always scored on the full data afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..surrogates.base import Bound

__all__ = ["SGDState", "sgd_step", "BlockFWState", "block_fw_step", "LEARNING_RATES"]

LEARNING_RATES = ("line-search", "inverse", "sqrt")


@dataclass
class SGDState:
    """The running iterate, its average and the step counter of an SGD run."""

    w: np.ndarray
    average: np.ndarray = field(init=False)
    t: int = 0
    skipped: int = 0

    def __post_init__(self) -> None:
        self.average = self.w.copy()


def sgd_step(state: SGDState, Z: np.ndarray, batch: Bound, C: float, scale: float,
             learning_rate: str, eta0: float, radius: float | None) -> None:
    """One stochastic subgradient step on the batch ``Z`` (the surrogate bound to its labels,
    with the batch's cut-off), then the running average of the iterates (module docstring)."""
    state.t += 1
    t = state.t
    _, g = batch.value_and_subgradient(Z @ state.w)
    grad = (C * scale) * (Z.T @ g)
    if radius is None:
        grad += state.w
    eta = 1.0 / t if learning_rate == "inverse" else eta0 / np.sqrt(t)
    state.w -= eta * grad
    if radius is not None:
        norm = float(np.linalg.norm(state.w))
        if norm > radius:
            state.w *= radius / norm
    rho = 2.0 / (t + 1) if learning_rate == "inverse" else 1.0 / t
    state.average += rho * (state.w - state.average)


@dataclass
class BlockFWState:
    """Block-coordinate Frank-Wolfe over a fixed partition into ``n_blocks`` batches.

    ``parts[b]`` is batch ``b``'s contribution to ``w = Σ_b parts[b]`` and ``offsets[b]``
    its share of the dual's linear term; ``seen[b]`` marks batches visited at least once.
    """

    w: np.ndarray
    n_blocks: int
    parts: np.ndarray = field(init=False)
    offsets: np.ndarray = field(init=False)
    seen: np.ndarray = field(init=False)
    t: int = 0
    skipped: int = 0

    def __post_init__(self) -> None:
        self.parts = np.zeros((self.n_blocks, len(self.w)))
        self.offsets = np.zeros(self.n_blocks)
        self.seen = np.zeros(self.n_blocks, dtype=bool)

    @property
    def dual_value(self) -> float:
        """The dual objective (a lower bound on the batch-decomposed problem once every
        batch has been visited)."""
        return float(self.offsets.sum()) - 0.5 * float(self.w @ self.w)


def block_fw_step(state: BlockFWState, block: int, Z: np.ndarray, batch: Bound,
                  weight: float) -> None:
    """One line-searched step on batch ``block`` of weight ``weight`` (``C`` included)."""
    state.t += 1
    s = Z @ state.w
    loss, g = batch.value_and_subgradient(s)
    vertex = -weight * (Z.T @ g)
    offset = weight * (loss - float(g @ s))
    step = vertex - state.parts[block]
    if not state.seen[block]:
        gamma = 1.0
        state.seen[block] = True
    else:
        denom = float(step @ step)
        gain = offset - state.offsets[block] - float(state.w @ step)
        gamma = 0.0 if denom == 0.0 else min(1.0, max(0.0, gain / denom))
    state.parts[block] += gamma * step
    state.offsets[block] += gamma * (offset - state.offsets[block])
    state.w += gamma * step

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

* ``"line-search"`` (default): multi-plane block-coordinate Frank-Wolfe (Lacoste-Julien
  et al. 2013; Shah, Kolmogorov and Lampert 2015), the stochastic version of the
  line-searched steps of :mod:`cvxtop.solvers.gd`. The batches are drawn once (a fixed
  partition, visited in a new random order every epoch); ``w`` is the sum of one
  contribution per batch, a convex combination of the batch's stored subgradient vertices
  (planes, up to :data:`BLOCK_PLANES` a batch within :data:`PLANE_BYTES`). A step adds the
  batch's new vertex and re-optimizes the batch's weights on its planes exactly (a small QP
  over the simplex, :mod:`cvxtop.qp.simplex`; with two planes this is plain block Frank-Wolfe's
  closed-form step), and after each sweep up to two corrective passes over the stored
  planes, which read no data, let every batch catch up with the others. No step size to
  tune; the dual value certifies the batch-decomposed problem, whose optimum differs from
  the full one without groups (by a mini-batch bias that shrinks as batches grow) and
  equals it with groups, where the batches are the groups.
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
from ..qp import solve_simplex_qp

__all__ = ["SGDState", "sgd_step", "BlockFWState", "block_fw_step", "corrective_step",
           "block_planes", "LEARNING_RATES"]

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


#: Room for the planes of all blocks together (``d`` doubles each) before each block keeps
#: fewer than :data:`BLOCK_PLANES` of them.
PLANE_BYTES = 128 * 2**20
#: Planes kept per block: its current point is a convex combination of them.
BLOCK_PLANES = 16


@dataclass
class _Planes:
    """The planes (Frank-Wolfe vertices) seen on one block: ``V`` (``d × m``) with their
    dual offsets, their Gram matrix ``VᵀV`` and the convex weights that make the block's
    contribution ``V·weights`` to ``w``."""

    V: np.ndarray
    offsets: np.ndarray
    gram: np.ndarray
    weights: np.ndarray

    @classmethod
    def empty(cls, dim: int) -> _Planes:
        return cls(np.zeros((dim, 0)), np.zeros(0), np.zeros((0, 0)), np.zeros(0))

    def drop(self, keep: np.ndarray) -> None:
        self.V, self.offsets = self.V[:, keep], self.offsets[keep]
        self.gram, self.weights = self.gram[np.ix_(keep, keep)], self.weights[keep]

    def make_room(self, capacity: int) -> None:
        """Bring the planes below ``capacity``: drop those of weight zero, else merge the
        two lightest into their weighted mean (a convex combination of vertices is a point
        of the block's dual set, and the merge keeps the block's point and offset)."""
        if len(self.offsets) < capacity:
            return
        unused = self.weights == 0
        if unused.any():
            self.drop(~unused)
            return
        # (ties by index: numpy's default sort orders them by the CPU's SIMD)
        i, j = np.argsort(self.weights, kind="stable")[:2]
        total = self.weights[i] + self.weights[j]
        share = self.weights[i] / total
        self.V[:, i] = share * self.V[:, i] + (1 - share) * self.V[:, j]
        self.offsets[i] = share * self.offsets[i] + (1 - share) * self.offsets[j]
        self.weights[i], self.weights[j] = total, 0.0
        self.gram[:, i] = self.gram[i, :] = self.V.T @ self.V[:, i]
        self.drop(self.weights > 0)

    def add(self, vertex: np.ndarray, offset: float) -> None:
        column = self.V.T @ vertex
        m = len(self.offsets)
        gram = np.empty((m + 1, m + 1))
        gram[:m, :m], gram[:m, m], gram[m, :m] = self.gram, column, column
        gram[m, m] = float(vertex @ vertex)
        self.V = np.column_stack([self.V, vertex])
        self.offsets = np.append(self.offsets, offset)
        self.gram, self.weights = gram, np.append(self.weights, 0.0)


@dataclass
class BlockFWState:
    """Block-coordinate Frank-Wolfe over a fixed partition into ``n_blocks`` batches, with
    up to ``capacity`` planes per block (multi-plane, fully corrective block steps).

    Block ``b`` contributes ``V_b·a_b`` to ``w`` and ``o_b·a_b`` to the dual's linear term,
    with ``a_b`` convex weights on its planes; a block not visited yet has no planes.
    """

    w: np.ndarray
    n_blocks: int
    capacity: int = BLOCK_PLANES
    blocks: list[_Planes] = field(init=False)
    t: int = 0
    skipped: int = 0

    def __post_init__(self) -> None:
        self.blocks = [_Planes.empty(len(self.w)) for _ in range(self.n_blocks)]

    def visited(self, block: int) -> bool:
        """Whether batch ``block`` has been stepped on (it has planes)."""
        return len(self.blocks[block].offsets) > 0

    @property
    def dual_value(self) -> float:
        """The dual objective (a lower bound on the batch-decomposed problem once every
        batch has been visited)."""
        linear = sum(float(p.offsets @ p.weights) for p in self.blocks)
        return linear - 0.5 * float(self.w @ self.w)


def block_planes(dim: int, n_blocks: int) -> int:
    """Planes kept per block: :data:`BLOCK_PLANES`, fewer when ``d`` is so large that they
    would exceed :data:`PLANE_BYTES`, and never below 2 (the current point and a new
    vertex: plain block Frank-Wolfe)."""
    return max(2, min(BLOCK_PLANES, PLANE_BYTES // (8 * max(dim, 1) * max(n_blocks, 1))))


def corrective_step(state: BlockFWState, block: int) -> None:
    """Maximize the dual over block ``block``'s weights on its planes, the other blocks
    fixed: ``max_{a ∈ simplex} o·a − ½‖w₋ + V a‖²`` with ``w₋`` the other blocks' sum, a
    small QP over the simplex solved exactly and warm-started (:mod:`cvxtop.qp.simplex`). With
    two planes (the previous point and a new vertex) it is the line-searched step of
    block Frank-Wolfe (Lacoste-Julien et al. 2013)."""
    if not state.visited(block):
        return
    planes = state.blocks[block]
    linear = planes.offsets - planes.V.T @ state.w + planes.gram @ planes.weights
    scale = max(1.0, float(np.max(np.diag(planes.gram))))
    start = planes.weights if planes.weights.sum() > 0 else None
    weights = solve_simplex_qp(planes.gram / scale, linear / scale, start)
    if weights is None:  # not solved: keep the block's point (the dual stays valid)
        return
    state.w += planes.V @ (weights - planes.weights)
    planes.weights = weights


def block_fw_step(state: BlockFWState, block: int, Z: np.ndarray, batch: Bound,
                  weight: float) -> None:
    """One step on batch ``block`` of weight ``weight`` (``C`` included): the batch's
    subgradient vertex joins the block's planes, then a corrective step on them."""
    state.t += 1
    s = Z @ state.w
    loss, g = batch.value_and_subgradient(s)
    planes = state.blocks[block]
    planes.make_room(state.capacity)
    b = batch.surrogate.intercept_of(g, batch.neg, batch.k)
    planes.add(-weight * (Z.T @ g), weight * (loss - float(g @ s) if b is None else b))
    corrective_step(state, block)

"""Conjugate gradients for a ridged Gram system with several right-hand sides.

The systems ``(c·D B Bᵀ D + r·I) Y = R`` (``B`` the rows of a sparse matrix, ``D`` a diagonal
of signs, ``c, r > 0``) are symmetric positive definite, and a product with them costs two
products with ``B``. Their columns are solved together, each with its own step lengths
(Hestenes & Stiefel 1952), from the Jacobi preconditioner ``c‖b_i‖² + r`` and a starting
guess; every product with ``B`` then serves all columns at once.

An active-set method needs exact answers only for the guess it accepts: a step that moves
items needs the signs of their reduced gradients. :class:`StepResidual` lets its first
steps solve to a loose residual.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import scipy.sparse as sp

from .parallel_products import PARALLEL_NONZEROS, ProductThreads, _added

__all__ = ["CG_LOOSE_RTOL", "FEW_MOVES", "LOOSE_STEPS", "RidgedGram", "StepResidual", "solve"]

#: The relative residual of an active-set method's first systems (:class:`StepResidual`).
CG_LOOSE_RTOL = 1e-3
#: Steps at :data:`CG_LOOSE_RTOL` at most, after which the systems are solved to the full
#: residual: answers that inexact can move the items nearest a threshold to and fro
#: (pAp@k-avg on the sparse 50,000 × 50,000 set at C = 100 moved the same eight items back
#: and forth until the solve gave up).
LOOSE_STEPS = 10
#: A step that moves at most this many items ends the loose steps too: the items it moves
#: are those whose reduced gradients lie within the loose answers' error of a threshold,
#: and further loose steps move such items to and fro (prec@k-avg's path on the sparse
#: 50,000 × 50,000 set: its solves' steps moved 0 to 7 items each for up to six steps;
#: measured: docs/solvers.md, "Measurements behind the constants").
FEW_MOVES = 16


class RidgedGram:
    """The operator ``Y ↦ c·D B (Bᵀ D Y) + r·Y`` with its diagonal. With ``threads`` (a
    :class:`.parallel_products.ProductThreads`) and :data:`.parallel_products.PARALLEL_NONZEROS`
    stored values or more, the products run on blocks of ``B``'s rows, one a thread: ``Bᵀ``
    times the blocks' parts of ``D Y``, added, then each block times that."""

    def __init__(self, B: sp.csr_matrix, signs: np.ndarray, c: float, r: float,
                 threads: ProductThreads | None = None) -> None:
        self.B, self.signs, self.c, self.r = B, signs[:, None], c, r
        self.diagonal = c * np.asarray(B.multiply(B).sum(axis=1)).ravel() + r
        self._pool = None
        if threads is not None and threads.pool is not None and B.nnz >= PARALLEL_NONZEROS:
            ends = np.searchsorted(B.indptr, np.linspace(0, B.nnz, threads.count + 1)[1:-1])
            self._bounds = np.unique(np.r_[0, ends, B.shape[0]])
            self._blocks = [B[a:b] for a, b in pairwise(self._bounds)]
            self._pool = threads.pool

    def _gram_times(self, Y: np.ndarray) -> np.ndarray:
        """``B Bᵀ Y``."""
        if self._pool is None:
            return self.B @ (self.B.T @ Y)
        bounds = self._bounds
        total = _added(self._pool.map(lambda i: self._blocks[i].T @ Y[bounds[i]:bounds[i + 1]],
                                      range(len(self._blocks))))
        return np.concatenate(list(self._pool.map(lambda block: block @ total,
                                                  self._blocks)))

    def __matmul__(self, Y: np.ndarray) -> np.ndarray:
        return self.c * self.signs * self._gram_times(self.signs * Y) + self.r * Y


def solve(A: RidgedGram, R: np.ndarray, start: np.ndarray, rtol: float, max_iter: int
          ) -> tuple[np.ndarray, float]:
    """``A⁻¹R`` column by column from ``start``, until every column's residual is within
    ``rtol`` of its right-hand side's norm or ``max_iter`` iterations; the solution and the
    largest relative residual reached. A zero column is solved by zero, whatever its
    start."""
    norms = np.linalg.norm(R, axis=0)
    Y = np.where(norms > 0, start, 0.0)  # a zero right-hand side has the solution zero
    residual = R - A @ Y
    scale = np.where(norms > 0, norms, 1.0)
    z = residual / A.diagonal[:, None]
    direction = z.copy()
    rz = np.einsum("ij,ij->j", residual, z)
    worst = float(np.max(np.linalg.norm(residual, axis=0) / scale))
    for _ in range(max_iter):
        if worst <= rtol:
            break
        product = A @ direction
        curvature = np.einsum("ij,ij->j", direction, product)
        step = np.divide(rz, curvature, out=np.zeros_like(rz), where=curvature > 0)
        Y += step * direction
        residual -= step * product
        z = residual / A.diagonal[:, None]
        rz_next = np.einsum("ij,ij->j", residual, z)
        beta = np.divide(rz_next, rz, out=np.zeros_like(rz), where=rz > 0)
        direction = z + beta * direction
        rz = rz_next
        worst = float(np.max(np.linalg.norm(residual, axis=0) / scale))
    return Y, worst


class StepResidual:
    """The residual to which an active-set method's steps solve their systems by conjugate
    gradients. A step that moves items needs only the signs of their reduced gradients, so
    the steps first solve to :data:`CG_LOOSE_RTOL`, then to ``tight`` (the method's own)
    after the first step that moves at most :data:`FEW_MOVES` items or after
    :data:`LOOSE_STEPS` steps; a guess is accepted only from an answer at ``tight``, whose
    step moves none (measured: docs/solvers.md, "Measurements behind the constants").
    ``iterative=False`` (a factored system) is ``tight`` throughout."""

    def __init__(self, tight: float, iterative: bool = True) -> None:
        self.tight = tight
        self.rtol = max(CG_LOOSE_RTOL, tight) if iterative else tight
        self._steps = 0

    @property
    def loose(self) -> bool:
        """Whether the steps still solve above ``tight``."""
        return self.rtol > self.tight

    def after(self, moves: int, settled: bool = True) -> None:
        """Record a step that moved ``moves`` items; ``settled``: whether it moved nothing
        else (a step that also moves a part of the guess on which many items' weights
        depend, as the selection dual's cap, has not settled however few items it moved,
        and its few moves do not end the loose steps)."""
        self._steps += 1
        if moves == 0 or (settled and moves <= FEW_MOVES) or self._steps >= LOOSE_STEPS:
            self.rtol = self.tight

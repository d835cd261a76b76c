"""The few products of a solve large enough to gain from the caller's threads.

The iterative solvers run with BLAS limited to one thread (:mod:`cvxtop._threads`): most of
their products are small, and OpenBLAS's threads, which keep spinning after a product,
would take a core from the Python code between products. A product that reads many
megabytes is different: one core's memory bandwidth limits it, and two cores halve it.
Such products are split here into independent products on blocks, run on a pool of Python
threads (numpy's ``dot`` and scipy's sparse products release the GIL), each block on one
BLAS thread. Nothing spins between products, so the CPU time stays the work's. The pool has
as many threads as the caller gives BLAS (``OMP_NUM_THREADS``, ``threadpoolctl``; see
:func:`cvxtop._threads.callers_thread_count`), and none when that is one.

Three kinds of product are split:

- a dense block of rows times a vector, or a vector times it (the cutting plane's cut store,
  from :data:`PARALLEL_NUMBERS` numbers);
- a CSR or CSC ``Z`` times a vector, or ``Zᵀ`` times one (from :data:`PARALLEL_NONZEROS`
  stored values), in blocks along the compressed axis (rows of CSR, columns of CSC) whose
  ``data`` and ``indices`` are slices of ``Z``'s own arrays, so ``Z`` is not copied. Along
  that axis one of the two products gathers (each block writes its own part of the result)
  and the other scatters (each block writes a whole result, and the results are added)
  (measured: docs/solvers.md, "Measurements behind the constants");
- a dense block of rows' weighted Gram matrix ``Zᵀ D Z`` (the interior point of
  :mod:`.count_dual`), as the sum of its blocks' matrices.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._threads import callers_thread_count

__all__ = ["PARALLEL_NONZEROS", "PARALLEL_NUMBERS", "BlockedSparse", "ProductThreads",
           "product_threads"]

#: Stored values from which a sparse ``Z``'s products run on the caller's threads: enough
#: work a product to pay for handing blocks to threads (measured: docs/solvers.md, "Measurements behind the constants").
PARALLEL_NONZEROS = 2**19
#: Numbers in a dense block of rows (8 MB) from which its products with a vector run on the
#: caller's threads: below it a product is not limited by one core's memory bandwidth.
PARALLEL_NUMBERS = 2**20


def _added(parts: Iterable[np.ndarray]) -> np.ndarray:
    """The sum of the threads' partial results, added in order into the first."""
    parts = iter(parts)
    total = next(parts)
    for part in parts:
        total += part
    return total


def _sharing(kind: type, shape: tuple[int, int], indptr: np.ndarray, indices: np.ndarray,
             data: np.ndarray) -> Any:
    """A ``kind`` (CSR or CSC) matrix on these arrays themselves. scipy's constructor would
    copy ``indices`` and ``data`` when they are views of less than half their arrays (it
    prunes them), so they are set after it."""
    matrix = kind(shape, dtype=data.dtype)
    matrix.indptr, matrix.indices, matrix.data = indptr, indices, data
    return matrix


def _major_blocks(Z: Any, bounds: np.ndarray) -> tuple[list, list]:
    """Rows (CSR) or columns (CSC) ``bounds[i]:bounds[i + 1]`` of ``Z``, and their
    transposes, as matrices whose ``data`` and ``indices`` are views of ``Z``'s."""
    n, d = Z.shape
    minor = sp.csc_matrix if Z.format == "csr" else sp.csr_matrix
    blocks, transposes = [], []
    for start, stop in pairwise(bounds):
        lo, hi = int(Z.indptr[start]), int(Z.indptr[stop])
        indptr = (Z.indptr[start:stop + 1] - lo).astype(Z.indptr.dtype, copy=False)
        indices, data = Z.indices[lo:hi], Z.data[lo:hi]
        shape = (int(stop - start), d) if Z.format == "csr" else (n, int(stop - start))
        blocks.append(_sharing(type(Z), shape, indptr, indices, data))
        transposes.append(_sharing(minor, shape[::-1], indptr, indices, data))
    return blocks, transposes


class BlockedSparse:
    """``Z @ w`` and ``Z.T @ g`` for a CSR or CSC ``Z``, each product split over blocks of
    ``Z`` along its compressed axis with about equal numbers of stored values, run on
    ``pool``'s threads. Only the two vector products are offered (the solvers' use)."""

    def __init__(self, Z: Any, blocks: int, pool: ThreadPoolExecutor) -> None:
        self.shape, self.dtype, self.format = Z.shape, Z.dtype, Z.format
        self.nnz = Z.nnz
        major = Z.shape[0] if Z.format == "csr" else Z.shape[1]
        ends = np.searchsorted(Z.indptr, np.linspace(0, Z.nnz, blocks + 1)[1:-1])
        self._bounds = np.unique(np.concatenate(([0], np.clip(ends, 0, major), [major])))
        self._blocks, self._transposes = _major_blocks(Z, self._bounds)
        self._pool = pool
        self.T = _Transposed(self)

    def _gather(self, blocks: list, x: np.ndarray) -> np.ndarray:
        """The blocks' products, each one part of the result, joined."""
        return np.concatenate(list(self._pool.map(lambda block: block @ x, blocks)))

    def _scatter(self, blocks: list, x: np.ndarray) -> np.ndarray:
        """The blocks' products with their parts of ``x``, each a whole result, added."""
        bounds = self._bounds
        return _added(self._pool.map(lambda i: blocks[i] @ x[bounds[i]:bounds[i + 1]],
                                     range(len(blocks))))

    def __matmul__(self, w: np.ndarray) -> np.ndarray:
        return self._product(w, "w", self._blocks, gather=self.format == "csr")

    def _rmatvec(self, g: np.ndarray) -> np.ndarray:
        return self._product(g, "g", self._transposes, gather=self.format == "csc")

    def _product(self, x: np.ndarray, name: str, blocks: list, gather: bool) -> np.ndarray:
        """``blocks`` times the vector ``x``: each block writes its part of the result
        (``gather``) or a whole result to add."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 1:
            raise ValueError(f"{name} must be a vector, got shape {x.shape}")
        return self._gather(blocks, x) if gather else self._scatter(blocks, x)


class _Transposed:
    """``BlockedSparse.T``: supports ``@`` with a vector."""

    def __init__(self, of: BlockedSparse) -> None:
        self._of = of
        self.shape = of.shape[::-1]

    def __matmul__(self, g: np.ndarray) -> np.ndarray:
        return self._of._rmatvec(g)


class ProductThreads:
    """A solve's products with ``count`` threads of ``pool`` (``None`` for one thread)."""

    def __init__(self, pool: ThreadPoolExecutor | None, count: int = 1) -> None:
        self.pool, self.count = pool, count if pool is not None else 1

    def _parts(self, rows: np.ndarray) -> list[slice] | None:
        """Row ranges of about equal size, one a thread, for a block large enough to split."""
        if self.pool is None or rows.size < PARALLEL_NUMBERS or len(rows) < self.count:
            return None
        ends = np.linspace(0, len(rows), self.count + 1).astype(int)
        return [slice(a, b) for a, b in pairwise(ends)]

    def rows_times(self, rows: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``rows @ x`` for a 2-D ``rows`` and a vector ``x`` (or a 2-D ``x``: its
        columns)."""
        parts = self._parts(rows)
        if parts is None:
            return rows @ x
        return np.concatenate(list(self.pool.map(lambda part: np.dot(rows[part], x), parts)))

    def times_rows(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``weights @ rows`` for a vector ``weights`` (or a 2-D ``weights``: its rows) and a
        2-D ``rows``."""
        parts = self._parts(rows)
        if parts is None:
            return weights @ rows
        return _added(self.pool.map(lambda part: np.dot(weights[..., part], rows[part]), parts))

    def weighted_gram(self, rows: np.ndarray, weights: np.ndarray, scaled: np.ndarray
                      ) -> np.ndarray:
        """``rowsᵀ diag(weights) rows`` (``weights >= 0``) for a dense 2-D ``rows``, through
        ``scaled`` (a buffer of its shape, overwritten): the rows scaled by ``√weights``,
        then each thread's part times its own transpose (numpy's symmetric rank-k update,
        which releases the GIL, where scipy's BLAS wrappers hold it), the parts added and
        the upper triangle mirrored (exactly symmetric whatever product numpy chose)."""
        np.multiply(rows, np.sqrt(weights)[:, None], out=scaled)
        parts = self._parts(rows) or [slice(0, len(rows))]
        total = _added((map if len(parts) == 1 else self.pool.map)(
            lambda part: scaled[part].T @ scaled[part], parts))
        return np.triu(total) + np.triu(total, 1).T

    def operator(self, Z: Any) -> Any:
        """``Z`` itself, or for a CSR or CSC ``Z`` with :data:`PARALLEL_NONZEROS` stored
        values or more, its products over the threads (:class:`BlockedSparse`)."""
        if self.pool is None or not sp.issparse(Z) or Z.format not in ("csr", "csc") \
                or Z.nnz < PARALLEL_NONZEROS:
            return Z
        return BlockedSparse(Z, self.count, self.pool)


@contextmanager
def product_threads() -> Iterator[ProductThreads]:
    """The products of a ``with`` block over a pool of the caller's threads, shut down at
    its end; call it inside :func:`cvxtop._threads.single_threaded_blas`, whose caller's
    setting it reads."""
    threads = callers_thread_count()
    if threads <= 1:
        yield ProductThreads(None)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        yield ProductThreads(pool, threads)

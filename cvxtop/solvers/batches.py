"""Mini-batches over in-memory or memory-mapped arrays."""

from __future__ import annotations

from typing import Iterator

import numpy as np

__all__ = ["batch_slices"]


def batch_slices(n: int, batch_size: int, shuffle: bool,
                 rng: np.random.Generator) -> Iterator[slice | np.ndarray]:
    """Index sets of consecutive mini-batches covering ``0..n-1`` once (one epoch).

    Without shuffling the batches are slices, so indexing a (memory-mapped) array gives a
    view and reads it sequentially. With shuffling, each epoch draws a fresh permutation and
    the batches are its consecutive segments, each sorted (for cache- and disk-friendly
    reads; all full segments in one call). The last batch may be smaller.
    """
    if not shuffle:
        for start in range(0, n, batch_size):
            yield slice(start, min(start + batch_size, n))
        return
    perm = rng.permutation(n)
    full = n - n % batch_size
    yield from np.sort(perm[:full].reshape(-1, batch_size), axis=1)
    if full < n:
        yield np.sort(perm[full:])

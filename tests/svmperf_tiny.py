"""A test helper: tiny prec@k-svmperf problems for the checks of its duals against the
brute-force loss."""

from __future__ import annotations

import numpy as np


def tiny(seed: int, least_relevant: int = 1) -> tuple[np.ndarray, np.ndarray, int]:
    """Features, labels and k of a tiny problem with at least ``least_relevant`` relevant
    items and more irrelevant items than k."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3 + least_relevant, 8 + least_relevant))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=int(rng.integers(least_relevant, n - 2)), replace=False)] = 1
    n_pos, n_neg = int(y.sum()), n - int(y.sum())
    k = int(rng.integers(1, min(n_pos, n_neg - 1) + 1))
    return rng.standard_normal((n, 3)), y, k

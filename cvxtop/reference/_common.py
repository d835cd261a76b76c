"""Shared plumbing of the brute-force definitions: input checks and the size guard."""

from __future__ import annotations

import itertools
from typing import Any, Iterator

import numpy as np

from .._validation import check_labels, check_ranked_scores, check_same_length, check_scores

__all__ = ["MAX_ENUMERATION", "guard", "inputs", "ranked_inputs", "subsets"]

#: Largest number of enumerated candidates a reference function accepts.
MAX_ENUMERATION = 3_000_000


def guard(count: int, what: str) -> None:
    """Refuse an enumeration of more than :data:`MAX_ENUMERATION` candidates."""
    if count > MAX_ENUMERATION:
        raise ValueError(
            f"instance too large for brute-force enumeration: {what} needs {count:,} "
            f"candidates (limit {MAX_ENUMERATION:,}); cvxtop.reference is meant for tiny "
            "instances (up to about 8 items per class)"
        )


def inputs(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated labels and scores of the same length."""
    y = check_labels(y_true, "y_true")
    s = check_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    return y, s


def ranked_inputs(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated labels, and scores with exactly the order and ties of ``y_score`` (for the
    metrics, which compare scores only): integers past 2**53 are ranked, not rounded."""
    y = check_labels(y_true, "y_true")
    s, _ = check_ranked_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    return y, s


def subsets(n: int, size: int) -> Iterator[tuple[int, ...]]:
    """Every subset of ``size`` of ``range(n)``."""
    return itertools.combinations(range(n), size)

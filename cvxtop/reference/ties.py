"""Tie policies by enumeration: every order of every block of tied scores.

The ground truth of :mod:`cvxtop.ties`. A list's scores fix the order of its items up to
the orders inside each block of equal scores; :func:`orderings` lists every total order
consistent with the scores (all ``Π m_b!`` of them), and a policy's value is then, by its
definition:

* ``"average"``: the mean of the metric over those orders (each equally likely);
* ``"pessimistic"`` / ``"optimistic"``: the metric in the order that puts each block's
  irrelevant (relevant) items first;
* ``"order"``: the metric in the order that sorts each block by the key.

The metric is a function of the labels in ranked order (:func:`precision`,
:func:`average_precision`, :func:`dcg`); nothing here uses a closed form.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np

from ._common import guard

__all__ = ["orderings", "expected_over_orderings", "in_policy_order", "precision",
           "average_precision", "dcg"]


def orderings(s: np.ndarray) -> np.ndarray:
    """Every order of the items consistent with the scores ``s``, one per row (indices,
    best first): decreasing score, any order inside a block of equal scores."""
    s = np.asarray(s, dtype=np.float64)
    blocks = [np.flatnonzero(s == v).tolist() for v in sorted(set(s.tolist()), reverse=True)]
    count = math.prod(math.factorial(len(b)) for b in blocks)
    guard(count, "the orderings of the tie blocks")
    rows = [list(itertools.chain.from_iterable(parts))
            for parts in itertools.product(*(itertools.permutations(b) for b in blocks))]
    return np.array(rows, dtype=np.int64).reshape(count, len(s))


def expected_over_orderings(metric: Callable[[np.ndarray], np.ndarray], y: np.ndarray,
                            s: np.ndarray) -> float:
    """The mean of ``metric`` over every order of :func:`orderings` (the ``"average"``
    policy); ``metric`` maps rows of labels in ranked order to one value per row."""
    return float(np.mean(metric(np.asarray(y)[orderings(s)])))


def in_policy_order(y: np.ndarray, s: np.ndarray, policy: str,
                    key: np.ndarray | None = None) -> np.ndarray:
    """The labels in ranked order under a deterministic policy, chosen among
    :func:`orderings` by its definition (the lexicographically smallest labels for
    ``"pessimistic"``, largest for ``"optimistic"``, smallest keys for ``"order"``)."""
    y = np.asarray(y)
    orders = orderings(s)
    rank = {"pessimistic": y, "optimistic": -y}.get(policy)
    rank = np.asarray(key) if rank is None else rank
    values = rank[orders]
    first = np.lexsort(values.T[::-1])[0]  # the row that is smallest lexicographically
    return y[orders[first]]


def precision(k: int) -> Callable[[np.ndarray], np.ndarray]:
    """Precision among the first ``k`` positions, per row of ranked labels."""
    return lambda ranked: np.atleast_2d(ranked)[:, :k].sum(axis=1) / k


def average_precision(ranked: np.ndarray) -> np.ndarray:
    """Per row: the mean, over relevant positions ``p``, of the relevant items at ``1..p``
    over ``p``."""
    ranked = np.atleast_2d(ranked).astype(np.float64)
    positions = np.arange(1, ranked.shape[1] + 1)
    return (ranked * np.cumsum(ranked, axis=1) / positions).sum(axis=1) / ranked.sum(axis=1)


def dcg(m: int) -> Callable[[np.ndarray], np.ndarray]:
    """``Σ_{r ≤ m} rel_r / log2(1 + r)``, per row."""
    discounts = np.array([1.0 / math.log2(1 + r) for r in range(1, m + 1)])
    return lambda ranked: np.atleast_2d(ranked)[:, :m] @ discounts

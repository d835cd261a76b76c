"""Tie policies of the position metrics: which order of tied scores a metric counts.

Scores that tie leave the ranking of their items open, and libraries differ in how they
close it. The position metrics of :mod:`cvxtop.metrics` (precision at ``k`` or ``τ``,
average precision, DCG and NDCG) take ``ties=``:

* ``"pessimistic"`` (the default): tied items ranked irrelevant first, so ties never
  help (the papers' convention for a prediction that does not separate the items);
* ``"optimistic"``: relevant first;
* ``"average"``: the exact expectation over the uniformly random orders of each block of
  tied items, in closed form (scikit-learn's ``ndcg_score``, torchmetrics' NDCG): every
  position of a block of ``m`` items holding ``r`` relevant ones is relevant with
  probability ``r/m``, and two of its positions both are with probability
  ``r(r−1)/(m(m−1))``, which is all that precision, DCG (linear in the positions'
  relevance) and average precision (quadratic) need;
* ``"threshold"`` (average precision only): tied items enter together, as a threshold
  on the scores does (scikit-learn's ``average_precision_score``):
  ``AP = Σ_t (R_t − R_{t−1}) P_t`` over the distinct scores ``t``, descending;
* ``"order"``: a given order of tied items, by ascending ``tie_key`` (default: their
  positions in the input, ranx's input order; ``-np.arange(n)`` puts the highest index
  first, as ``top_k_accuracy_score``; ``-ids`` orders numeric document ids descending, as
  trec_eval; ``np.unique(ids, return_inverse=True)[1]`` turns string ids into sortable
  codes).

:func:`cvxtop.reference.ties.over_orderings` enumerates every order of every tie block,
the definition the closed forms are checked against.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

__all__ = ["POLICIES", "PositionTies", "check_tie_policy", "ranked", "position_relevance",
           "average_precision_of"]

#: The tie policies of the position metrics (module docstring).
POLICIES = ("pessimistic", "optimistic", "average", "threshold", "order")
PositionTies = Literal["pessimistic", "optimistic", "average", "threshold", "order"]


def check_tie_policy(ties: Any, tie_key: Any, n: int, *, threshold: bool = False
                     ) -> np.ndarray | None:
    """Validate ``ties`` (one of :data:`POLICIES`; ``"threshold"`` where the metric has
    it) and ``tie_key`` (only with ``ties="order"``: one sortable value per item); return
    the key as an array, or ``None``."""
    allowed = POLICIES if threshold else tuple(p for p in POLICIES if p != "threshold")
    if not isinstance(ties, str) or ties not in allowed:
        extra = "" if threshold else " ('threshold' is average precision's alone)"
        raise ValueError(f"ties must be one of {allowed}{extra}, got {ties!r}")
    if tie_key is None:
        return np.arange(n) if ties == "order" else None
    if ties != "order":
        raise ValueError(f"tie_key orders tied items with ties='order' only, not {ties!r}")
    key = np.asarray(tie_key)
    if key.ndim != 1 or len(key) != n:
        raise ValueError(f"tie_key must hold one value per item ({n}), got shape {key.shape}")
    if key.dtype == object or key.dtype.kind not in "biuf" or \
            (key.dtype.kind == "f" and not np.all(np.isfinite(key))):
        raise TypeError("tie_key must hold finite numbers (turn ids into codes: "
                        "np.unique(ids, return_inverse=True)[1])")
    return key


def ranked(y: np.ndarray, s: np.ndarray, ties: str, key: np.ndarray | None) -> np.ndarray:
    """Item indices by decreasing score, tied items ordered by a deterministic policy."""
    if ties == "pessimistic":
        return np.lexsort((y, -s))
    if ties == "optimistic":
        return np.lexsort((-y, -s))
    if ties == "order":
        return np.lexsort((key, -s))
    raise ValueError(f"the policy {ties!r} has no single order")


def _blocks(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, ...]:
    """Positions by decreasing score and, for each position: its block's first position
    (0-based), size, relevant items, and the relevant items above the block."""
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order].astype(np.float64)
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    sizes = np.diff(np.r_[starts, len(ss)])
    block = np.repeat(np.arange(len(starts)), sizes)
    relevant = np.add.reduceat(yy, starts)
    above = np.r_[0.0, np.cumsum(relevant)[:-1]]
    return starts[block], sizes[block].astype(np.float64), relevant[block], above[block]


def position_relevance(y: np.ndarray, s: np.ndarray, ties: str,
                       key: np.ndarray | None) -> np.ndarray:
    """The relevance of positions ``1..n`` under the policy: ``y`` in its order for a
    deterministic policy, the probability ``r/m`` of every position of a tie block with
    ``"average"``."""
    if ties != "average":
        return y[ranked(y, s, ties, key)].astype(np.float64)
    _, size, relevant, _ = _blocks(y, s)
    return relevant / size


def average_precision_of(y: np.ndarray, s: np.ndarray, ties: str,
                         key: np.ndarray | None) -> float:
    """Average precision of one list with a relevant item, under the policy."""
    n_pos = float(np.count_nonzero(y))
    if ties == "threshold":
        order = np.argsort(-s, kind="stable")
        ss, yy = s[order], y[order]
        last = np.r_[ss[1:] != ss[:-1], True]  # the last position of each distinct score
        hits = np.cumsum(yy)[last]
        counts = (np.flatnonzero(last) + 1).astype(np.float64)
        recall_steps = np.diff(np.r_[0, hits]) / n_pos
        return float(recall_steps @ (hits / counts))
    if ties != "average":
        ranks = np.flatnonzero(y[ranked(y, s, ties, key)]) + 1
        return float(np.mean(np.arange(1, len(ranks) + 1) / ranks))
    # E[rel_p · C_p] with C_p the relevant items at positions 1..p: (r/m)(R + 1) for the
    # block's own and those above, plus (j − 1)·r(r − 1)/(m(m − 1)) for the j − 1 block
    # positions before p (module docstring)
    start, size, relevant, above = _blocks(y, s)
    position = np.arange(1, len(y) + 1, dtype=np.float64)
    j = position - start
    pairs = np.where(size > 1, relevant * (relevant - 1) / (size * np.maximum(size - 1, 1)),
                     0.0)
    expected = (relevant / size) * (above + 1.0) + (j - 1.0) * pairs
    return float(np.sum(expected / position) / n_pos)

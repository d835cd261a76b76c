"""Brute-force definitions of prec@k and its surrogates (Kar et al. 2015), by enumeration of
every labeling ``ŷ`` with ``‖ŷ‖₁ = k``. Loss scale of eq. (1): the number of irrelevant
items among the top ``k``, for ``1 <= k <= n₊``."""

from __future__ import annotations

import math
from typing import Any, Iterator

import numpy as np

from .._validation import check_int_in_range, require_classes
from ._common import guard as _guard, inputs as _inputs, ranked_inputs as _ranked_inputs
from ._common import subsets as _subsets

__all__ = ["prec_at_k_loss", "prec_struct", "prec_ramp", "prec_max", "prec_avg", "prec_svmperf"]


def _prec_inputs(y_true: Any, y_score: Any, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    y, s = _inputs(y_true, y_score)
    n_pos, _ = require_classes(y, negative=False)
    k = check_int_in_range(k, "k", 1, n_pos, "the number of relevant items n₊")
    _guard(math.comb(len(y), k), "the labelings with k ones")
    return y, s, k


def _labelings(n: int, k: int) -> Iterator[np.ndarray]:
    """Every ŷ ∈ {0,1}^n with ‖ŷ‖₁ = k."""
    for top in _subsets(n, k):
        yhat = np.zeros(n, dtype=np.int64)
        yhat[list(top)] = 1
        yield yhat


def _delta(y: np.ndarray, yhat: np.ndarray) -> int:
    """Δ(y, ŷ) = Σ (1 − y_i) ŷ_i, Kar et al. 2015 eq. (2)."""
    return int(((1 - y) * yhat).sum())


def prec_at_k_loss(y_true: Any, y_score: Any, k: int) -> int:
    """prec@k loss, Kar et al. 2015 eq. (1): irrelevant items among the top ``k``.

    Enumerates every set of ``k`` items that some score-sorting permutation places first
    (all sets T with min_T s >= max_{not T} s) and returns the largest count of irrelevant
    items in such a set (ties resolved pessimistically).
    """
    y, s = _ranked_inputs(y_true, y_score)
    k = check_int_in_range(k, "k", 1, len(y), "the number of items")
    _guard(math.comb(len(y), k), "the candidate top-k sets")
    worst = -1
    for top in _subsets(len(y), k):
        inside = np.zeros(len(y), dtype=bool)
        inside[list(top)] = True
        if k < len(y) and s[inside].min() < s[~inside].max():
            continue
        worst = max(worst, int((1 - y[inside]).sum()))
    return worst


def prec_struct(y_true: Any, y_score: Any, k: int) -> float:
    """Struct surrogate, Kar et al. 2015 eq. (3): max over ‖ŷ‖₁ = k of Δ(y, ŷ) + Σ (ŷ_i − y_i)
    s_i."""
    y, s, k = _prec_inputs(y_true, y_score, k)
    return max(_delta(y, yh) + float((yh - y) @ s) for yh in _labelings(len(y), k))


def _top_sum(values: np.ndarray, m: int) -> float:
    """max over subsets of size m of the sum, by enumeration."""
    if m == 0:
        return 0.0
    return max(float(values[list(c)].sum()) for c in _subsets(len(values), m))


def prec_ramp(y_true: Any, y_score: Any, k: int) -> float:
    """Ramp surrogate, Kar et al. 2015 eq. (4).

    max over ‖ŷ‖₁ = k of {Δ(y, ŷ) + Σ ŷ_i s_i} minus the max over ‖ỹ‖₁ = k with
    K(y, ỹ) = k (ỹ selects k positives) of Σ ỹ_i s_i.
    """
    y, s, k = _prec_inputs(y_true, y_score, k)
    first = max(_delta(y, yh) + float(yh @ s) for yh in _labelings(len(y), k))
    return first - _top_sum(s[y == 1], k)


def prec_max(y_true: Any, y_score: Any, k: int) -> float:
    """Max surrogate, Kar et al. 2015 eq. (6).

    max over ‖ŷ‖₁ = k of {Δ(y, ŷ) + Σ (ŷ_i − y_i) s_i + max over ỹ ⪯ (1 − ŷ)·y with
    ‖ỹ‖₁ = n₊ − k of Σ ỹ_i s_i}.
    """
    y, s, k = _prec_inputs(y_true, y_score, k)
    n_pos = int(y.sum())
    best = -np.inf
    for yh in _labelings(len(y), k):
        free_pos = s[(y == 1) & (yh == 0)]
        inner = _top_sum(free_pos, n_pos - k)
        best = max(best, _delta(y, yh) + float((yh - y) @ s) + inner)
    return float(best)


def prec_avg(y_true: Any, y_score: Any, k: int) -> float:
    """Avg surrogate, Kar et al. 2015 eq. (7).

    max over ‖ŷ‖₁ = k of {Δ(y, ŷ) + Σ s_i (ŷ_i − y_i) + (1/C(ŷ)) Σ (1 − ŷ_i) y_i s_i} with
    C(ŷ) = (n₊ − K(y, ŷ)) / (n₊ − k). When ŷ leaves no positive out (possible only for
    k = n₊) the last sum is empty and contributes 0.
    """
    y, s, k = _prec_inputs(y_true, y_score, k)
    n_pos = int(y.sum())
    best = -np.inf
    for yh in _labelings(len(y), k):
        missed = (1 - yh) * y
        value = _delta(y, yh) + float((yh - y) @ s)
        if missed.any():  # 1/C(ŷ) = (n₊ − k) / (n₊ − K(y, ŷ)), finite when ŷ misses a positive
            value += (n_pos - k) / (n_pos - int(y @ yh)) * float(missed @ s)
        best = max(best, value)
    return float(best)


def prec_svmperf(y_true: Any, y_score: Any, k: int) -> float:
    """SVMperf's prec@k loss (Joachims 2005), on the loss scale of Kar et al. 2015 eq. (1).

    The largest of 0 and ``k·b/m + Σ (ŷ_i − y_i) s_i`` over every labeling ``ŷ`` that
    predicts ``m >= k`` items, ``b >= 1`` of them irrelevant (``b/m`` is one minus the
    precision of ``ŷ``; SVMperf's loss is ``100·b/m``). Labelings without an irrelevant item
    have loss 0 and SVMperf leaves them out of the maximum; so does this definition.
    """
    y, s, k = _prec_inputs(y_true, y_score, k)
    n = len(y)
    _guard(2 ** n, "the labelings with at least k ones")
    best = 0.0
    for m in range(k, n + 1):
        for yhat in _labelings(n, m):
            wrong = _delta(y, yhat)
            if wrong >= 1:
                best = max(best, k * wrong / m + float((yhat - y) @ s))
    return best

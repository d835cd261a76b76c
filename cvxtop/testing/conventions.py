"""Other libraries' conventions, written from their definitions, for checks that cross
them with cvxtop's metrics.

:func:`roc_auc_max_fpr` is the partial AUC that ``sklearn.metrics.roc_auc_score(y, s,
max_fpr=m)`` reports: the area under the ROC curve up to the false-positive rate ``m``,
standardized by McClish (1989) so that a random ranking scores 0.5 and a perfect one 1.
cvxtop's :func:`cvxtop.metrics.partial_auc` is the raw pAUC over the top ``k`` irrelevant
items (Hiranandani et al. 2020 Section 3). They meet when ``k = m·n₋`` is an integer and
the ``k``-th irrelevant item's tie block lies wholly above or below the cut:

    ``area = (k / n₋) · partial_auc(y, s, k, ties="half")``,
    ``roc_auc_max_fpr(y, s, m) = mcclish(area, m)``.

A tie block that the cut splits is where they part: the ROC curve crosses a block of ``p``
relevant and ``q`` irrelevant tied items on a straight segment, so taking ``j < q`` of its
irrelevant items credits ``p·j²/(2q)`` pairs, where ``ties="half"`` credits ``p·j/2``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._validation import check_labels, check_same_length, check_scores

__all__ = ["mcclish", "roc_auc_max_fpr"]


def _max_fpr(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"max_fpr must be a number in (0, 1], got {value!r}")
    if not (math.isfinite(value) and 0.0 < value <= 1.0):
        raise ValueError(f"max_fpr must be in (0, 1], got {value!r}")
    return float(value)


def mcclish(area: float, max_fpr: float) -> float:
    """McClish's standardization of the area under the ROC curve on ``[0, max_fpr]``:
    ``½·(1 + (area − a_min)/(a_max − a_min))`` with ``a_min = max_fpr²/2`` (the diagonal)
    and ``a_max = max_fpr`` (a perfect ranking)."""
    m = _max_fpr(max_fpr)
    low, high = 0.5 * m * m, m
    return 0.5 * (1.0 + (float(area) - low) / (high - low))


def roc_auc_max_fpr(y_true: Any, y_score: Any, max_fpr: float) -> float:
    """The McClish-standardized area under the ROC curve up to ``max_fpr``, the value of
    ``sklearn.metrics.roc_auc_score(y_true, y_score, max_fpr=max_fpr)`` (module
    docstring). Each block of tied scores is one straight segment of the curve; the
    curve is cut at ``max_fpr`` by linear interpolation. Both classes must be present."""
    y = check_labels(y_true, "y_true")
    s = check_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    m = _max_fpr(max_fpr)
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("y_true must hold both relevant and irrelevant items")
    # the curve's corners: after each block of tied scores, from the highest score down
    values, block = np.unique(-s, return_inverse=True)
    tp = np.r_[0.0, np.cumsum(np.bincount(block, weights=y, minlength=len(values)))] / n_pos
    fp = np.r_[0.0, np.cumsum(np.bincount(block, weights=1 - y, minlength=len(values)))] / n_neg
    end = int(np.searchsorted(fp, m, side="right"))
    x, h = fp[:end], tp[:end]
    if x[-1] < m:  # the segment that crosses max_fpr, cut by linear interpolation
        t = (m - fp[end - 1]) / (fp[end] - fp[end - 1])
        x, h = np.r_[x, m], np.r_[h, tp[end - 1] + t * (tp[end] - tp[end - 1])]
    area = float(np.sum(np.diff(x) * (h[1:] + h[:-1]) / 2.0))
    return mcclish(area, m)

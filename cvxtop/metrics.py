"""Ranking metrics on the gain scale (higher is better), with explicit tie semantics.

Argument order follows scikit-learn: ``(y_true, y_score, ...)``. Labels are 0/1 (booleans
and -1/+1 are accepted), 1 meaning relevant.

Tie conventions, used consistently:

* position-based metrics (:func:`precision_at_k`, :func:`precision_at_tau`,
  :func:`average_precision`, :func:`dcg_at_tau`, :func:`ndcg_at_tau`) order tied scores
  *irrelevant first* (the pessimistic order), so a ranking cannot gain by tying;
* pair-based metrics (:func:`pap_at_k`, :func:`partial_auc`, and :func:`roc_auc` by default)
  count a tied (positive, negative) pair as an error, as the risk of
  Hiranandani et al. 2020 eq. (1)-(2) does. ``ties="half"`` gives the Mann-Whitney convention of
  :func:`sklearn.metrics.roc_auc_score`.

Papers: Kar et al. 2015, Hiranandani et al. 2020 and Boyd et al. 2012 (docs/references.md).
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np

from .cutoff import tau_cutoff
from .groups import Groups
from ._validation import (
    check_fraction,
    check_int_in_range,
    check_labels,
    check_same_length,
    check_scores,
    require_classes,
)

__all__ = [
    "precision_at_k",
    "pap_at_k",
    "roc_auc",
    "partial_auc",
    "top_quantile",
    "tau_cutoff",
    "precision_at_tau",
    "average_precision",
    "dcg_at_tau",
    "ndcg_at_tau",
    "positives_at_top",
]

Ties = Literal["error", "half"]


def _validate(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    y = check_labels(y_true, "y_true")
    s = check_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    return y, s


def _pessimistic_order(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Indices by decreasing score, tied scores ordered irrelevant first."""
    return np.lexsort((y, -s))


def _precision_at_k(y: np.ndarray, s: np.ndarray, k: int) -> float:
    # O(n): the k-th largest score t splits the items into those above t, the tie block at
    # t (irrelevant first) and the rest.
    t = np.partition(s, len(s) - k)[len(s) - k]
    above = s > t
    at = s == t
    n_above = int(np.count_nonzero(above))
    pos_above = int(np.count_nonzero(y[above]))
    neg_at = int(np.count_nonzero(at)) - int(np.count_nonzero(y[at]))
    pos_taken = max(0, k - n_above - neg_at)
    return (pos_above + pos_taken) / k


def precision_at_k(y_true: Any, y_score: Any, k: int) -> float:
    """Fraction of relevant items among the ``k`` highest scores.

    The gain form of the prec@k loss of Kar et al. 2015 eq. (1): ``1 - loss/k``. Tied scores
    at the cut are ordered irrelevant-first, so ties never help.

    Parameters
    ----------
    y_true : array of shape (n,)
        Binary relevance labels.
    y_score : array of shape (n,)
        Scores; higher means ranked higher.
    k : int
        Cut-off, ``1 <= k <= n``.
    """
    y, s = _validate(y_true, y_score)
    k = check_int_in_range(k, "k", 1, len(s), "the number of items")
    return _precision_at_k(y, s, k)


def _count_below(sorted_asc: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each value, the number of entries of ``sorted_asc`` strictly below it."""
    return np.searchsorted(sorted_asc, values, side="left")


def _count_equal(sorted_asc: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.searchsorted(sorted_asc, values, side="right") - _count_below(sorted_asc, values)


def _pap_pairs(y: np.ndarray, s: np.ndarray, k: int) -> tuple[int, int]:
    """Correctly ordered pairs and all pairs of pAp@k for one list (eq. (1) of Hiranandani et al.
    2020)."""
    pos = s[y == 1]
    neg = s[y == 0]
    beta = min(len(pos), k)
    top_pos = np.partition(pos, len(pos) - beta)[len(pos) - beta:]
    top_neg = np.sort(np.partition(neg, len(neg) - k)[len(neg) - k:])
    correct = int(_count_below(top_neg, top_pos).sum())
    return correct, beta * k


def pap_at_k(
    y_true: Any,
    y_score: Any,
    k: int,
    groups: Any = None,
    *,
    average: Literal["group", "pooled"] = "group",
    skip_degenerate: bool = False,
) -> float:
    """pAp@k gain: 1 minus the pAp@k risk of Hiranandani et al. 2020 eq. (1).

    The fraction of pairs (one of the top-β positives, one of the top-k negatives),
    β = min(n₊, k), in which the positive scores strictly higher; a tie is an error. When
    n₊ <= k this is :func:`partial_auc` (Hiranandani et al. 2020 Section 3); when n₊ >= k it equals
    1 exactly when :func:`precision_at_k` does.

    Parameters
    ----------
    y_true, y_score : arrays of shape (n,)
    k : int
        Number of top negatives, ``1 <= k <= n₋`` (in every group).
    groups : array of shape (n,), optional
        One id per item (a user, a query). With groups the result is aggregated over the
        groups according to ``average``.
    average : {"group", "pooled"}
        ``"group"``: the mean over groups of the per-group gain, Hiranandani et al. 2020 eq. (17)
        (which the paper calls *micro* pAp@k). ``"pooled"``: all groups' correctly ordered pairs
        over all their pairs.
    skip_degenerate : bool
        A group without a relevant item or with fewer than ``k`` irrelevant ones has no
        pAp@k. By default this raises ``ValueError``; with ``True`` such groups are left
        out and a ``UserWarning`` reports how many.
    """
    y, s = _validate(y_true, y_score)
    if average not in ("group", "pooled"):
        raise ValueError(f"average must be 'group' or 'pooled', got {average!r}")
    if groups is None:
        n_pos, n_neg = require_classes(y)
        k = check_int_in_range(k, "k", 1, n_neg, "the number of irrelevant items n₋")
        correct, total = _pap_pairs(y, s, k)
        return correct / total
    lists = Groups.of(groups, len(y))
    k = check_int_in_range(k, "k", 1, len(y), "the number of items")
    gains, corrects, totals, skipped = [], 0, 0, 0
    for code, idx in enumerate(lists):
        yg = y[idx]
        n_pos = int(yg.sum())
        if n_pos == 0 or len(yg) - n_pos < k:
            if not skip_degenerate:
                reason = "no relevant item" if n_pos == 0 else f"fewer than k={k} irrelevant items"
                raise ValueError(
                    f"group {lists.id(code)!r} has {reason}, so pAp@k is undefined there; "
                    "pass skip_degenerate=True to leave such groups out"
                )
            skipped += 1
            continue
        c, t = _pap_pairs(yg, s[idx], k)
        gains.append(c / t)
        corrects += c
        totals += t
    if not gains:
        raise ValueError("every group is degenerate (no relevant item or fewer than k irrelevant)")
    if skipped:
        warnings.warn(f"pap_at_k skipped {skipped} degenerate group(s) of {skipped + len(gains)}",
                      UserWarning, stacklevel=2)
    return float(np.mean(gains)) if average == "group" else corrects / totals


def _pair_gain(pos: np.ndarray, neg_sorted: np.ndarray, ties: Ties) -> float:
    if ties not in ("error", "half"):
        raise ValueError(f"ties must be 'error' or 'half', got {ties!r}")
    wins = _count_below(neg_sorted, pos).sum()
    if ties == "half":
        wins = wins + 0.5 * _count_equal(neg_sorted, pos).sum()
    return float(wins) / (len(pos) * len(neg_sorted))


def roc_auc(y_true: Any, y_score: Any, *, ties: Ties = "error") -> float:
    """Area under the ROC curve: 1 minus the AUC risk of Hiranandani et al. 2020 eq. (2).

    The fraction of (positive, negative) pairs ordered correctly. ``ties="error"`` (the
    default, as in eq. (2)) counts a tied pair as wrong; ``ties="half"`` counts it as half
    right, which reproduces :func:`sklearn.metrics.roc_auc_score`.
    """
    y, s = _validate(y_true, y_score)
    require_classes(y)
    return _pair_gain(s[y == 1], np.sort(s[y == 0]), ties)


def partial_auc(y_true: Any, y_score: Any, k: int, *, ties: Ties = "error") -> float:
    """Partial AUC over the top-``k`` negatives, pAUC(0, k/n₋], in raw form.

    The fraction of pairs (any positive, one of the ``k`` highest-scored negatives) ordered
    correctly, as in Hiranandani et al. 2020 Section 3 (Narasimhan & Agarwal's pAUC). It is *not*
    McClish-standardized (unlike ``sklearn.metrics.roc_auc_score(max_fpr=...)``): a random
    ranking does not score 0.5 and a perfect one scores 1. A tied pair is an error unless
    ``ties="half"``.
    """
    y, s = _validate(y_true, y_score)
    _, n_neg = require_classes(y)
    k = check_int_in_range(k, "k", 1, n_neg, "the number of irrelevant items n₋")
    neg = s[y == 0]
    top_neg = np.sort(np.partition(neg, len(neg) - k)[len(neg) - k:])
    return _pair_gain(s[y == 1], top_neg, ties)


def top_quantile(y_score: Any, tau: float) -> float:
    """The largest minimizer of ``F_τ(u) = Σ_i ρ_τ(s_i − u)`` (Boyd et al. 2012 Section 2).

    ``ρ_τ(u) = −τ·min(u, 0) + (1 − τ)·max(u, 0)``. The right derivative of ``F_τ`` at ``u``
    is ``τn − #{s > u}`` and the left one ``τn − #{s ≥ u}``, so the largest minimizer is
    the ``ceil(τn)``-th largest score (see :func:`tau_cutoff`), ties included.
    """
    s = check_scores(y_score, "y_score")
    tau = check_fraction(tau, "tau")
    j = tau_cutoff(tau, len(s))
    return float(np.partition(s, len(s) - j)[len(s) - j])


def precision_at_tau(y_true: Any, y_score: Any, tau: float) -> float:
    """P@τ of Boyd et al. 2012 Section 5.2: precision among the items at or above the τ-quantile.

    The cut is the rank of :func:`top_quantile`, ``ceil(τn)``; with ties at the quantile,
    irrelevant items are counted first, as in :func:`precision_at_k`.
    """
    y, s = _validate(y_true, y_score)
    tau = check_fraction(tau, "tau")
    return _precision_at_k(y, s, tau_cutoff(tau, len(s)))


def average_precision(y_true: Any, y_score: Any) -> float:
    """Average precision (AP, Boyd et al. 2012 Section 5.2).

    The mean, over relevant items, of the precision at each relevant item's rank, in the
    pessimistic order (ties: irrelevant first).
    """
    y, s = _validate(y_true, y_score)
    require_classes(y, negative=False)
    ranked = y[_pessimistic_order(y, s)]
    ranks = np.flatnonzero(ranked) + 1
    return float(np.mean(np.arange(1, len(ranks) + 1) / ranks))


def _discounts(m: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, m + 2))


def dcg_at_tau(y_true: Any, y_score: Any, tau: float) -> float:
    """DCG@τ (Boyd et al. 2012 Section 5.2): ``Σ_{r ≤ ceil(τn)} y_(r) / log2(1 + r)``.

    Binary gains, positions from 1, pessimistic order of ties.
    """
    y, s = _validate(y_true, y_score)
    tau = check_fraction(tau, "tau")
    m = tau_cutoff(tau, len(s))
    ranked = y[_pessimistic_order(y, s)][:m]
    return float(ranked @ _discounts(m))


def ndcg_at_tau(y_true: Any, y_score: Any, tau: float) -> float:
    """NDCG@τ: :func:`dcg_at_tau` divided by its value for a perfect ranking."""
    y, s = _validate(y_true, y_score)
    n_pos, _ = require_classes(y, negative=False)
    tau = check_fraction(tau, "tau")
    m = tau_cutoff(tau, len(s))
    disc = _discounts(m)
    ranked = y[_pessimistic_order(y, s)][:m]
    ideal = (np.arange(m) < n_pos).astype(np.float64)
    return float(ranked @ disc) / float(ideal @ disc)


def positives_at_top(y_true: Any, y_score: Any) -> int:
    """Positives@top (Boyd et al. 2012 Section 5.2): relevant items scored strictly above
    every irrelevant item. With no irrelevant item, every relevant item counts."""
    y, s = _validate(y_true, y_score)
    if np.all(y == 1):
        return int(len(y))
    return int(np.count_nonzero(s[y == 1] > s[y == 0].max()))

"""Ranking metrics on the gain scale (higher is better), with explicit tie semantics.

Argument order follows scikit-learn: ``(y_true, y_score, ...)``. Labels are 0/1 (booleans
and -1/+1 are accepted), 1 meaning relevant.

Tie conventions, used consistently:

* position-based metrics (:func:`precision_at_k`, :func:`precision_at_tau`,
  :func:`average_precision`, :func:`dcg_at_tau`, :func:`ndcg_at_tau`, :func:`dcg_at_k`,
  :func:`ndcg_at_k`) order tied scores *irrelevant first* (the pessimistic order) by
  default, so a ranking cannot gain by tying; their ``ties=`` takes the other policies
  libraries use (optimistic, the exact average over the orders of each tie block, tied
  items entering together for average precision, a given order: :mod:`cvxtop.ties`);
* pair-based metrics (:func:`pap_at_k`, :func:`partial_auc`, and :func:`roc_auc` by default)
  count a tied (positive, negative) pair as an error, as the risk of
  Hiranandani et al. 2020 eq. (1)-(2) does. ``ties="half"`` gives the Mann-Whitney convention of
  :func:`sklearn.metrics.roc_auc_score`.

Every metric takes ``groups`` (one list id per item: a query, a user): the metric is then
computed on each list and averaged over the lists, as Hiranandani et al. 2020 eq. (17) does
for pAp@k. A list where the metric is undefined (no relevant item for AP, fewer than ``k``
items for prec@k, ...) raises ``ValueError`` naming it, or with ``skip_degenerate=True`` is
left out with a ``UserWarning``. :func:`group_values` gives the per-list values, and
:func:`get_scorer` wraps any metric for scikit-learn's model selection.

Papers: Kar et al. 2015, Hiranandani et al. 2020 and Boyd et al. 2012 (docs/references.md).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Callable, Literal

import numpy as np

from .cutoff import prec_cutoff, tau_cutoff
from .groups import Groups
from .ties import (PositionTies, average_precision_of, check_tie_policy, position_relevance,
                   ranked)
from ._validation import (
    check_bool,
    check_fraction,
    check_int_in_range,
    check_labels,
    check_same_length,
    check_ranked_scores,
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
    "dcg_at_k",
    "ndcg_at_k",
    "positives_at_top",
    "dcg_discounts",
    "METRICS",
    "PARAMETERS",
    "group_values",
    "get_scorer",
]

Ties = Literal["error", "half"]


def _validate(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Labels as 0/1 and scores as ``float64`` with exactly the order and ties of
    ``y_score`` (every metric here depends on them alone): integer scores past 2**53 and
    ``longdouble`` ones are ranked exactly (:func:`~cvxtop._validation.check_ranked_scores`)."""
    y = check_labels(y_true, "y_true")
    s, _ = check_ranked_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    return y, s


def _check_ties(ties: Any) -> None:
    if ties not in ("error", "half"):
        raise ValueError(f"ties must be 'error' or 'half', got {ties!r}")


def _tie_policy(y: np.ndarray, s: np.ndarray, ties: Any, tie_key: Any, *,
                threshold: bool = False) -> tuple[np.ndarray, str]:
    """Check ``ties`` and ``tie_key`` (:mod:`cvxtop.ties`); return the scores and policy
    to compute with. ``"order"`` becomes strict scores that follow the key within ties
    (the same order in every list of ``groups``)."""
    key = check_tie_policy(ties, tie_key, len(s), threshold=threshold)
    if ties != "order":
        return s, ties
    strict = np.empty(len(s))
    strict[ranked(y, s, "order", key)] = np.arange(len(s), 0, -1, dtype=np.float64)
    return strict, "pessimistic"


def _top_relevance(y: np.ndarray, s: np.ndarray, k: int, ties: str) -> float:
    """The (expected) number of relevant items among the first ``k`` positions."""
    if ties == "pessimistic":
        return float(_pessimistic_hits(y, s, k))
    return float(position_relevance(y, s, ties, None)[:k].sum())


def _check_int_type(k: Any, name: str = "k") -> None:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(k).__name__} {k!r}")


def _per_list(y: np.ndarray, s: np.ndarray, groups: Any,
              compute: Callable[[np.ndarray, np.ndarray], Any]
              ) -> tuple[list[Any], list[Any], list[str]]:
    """``compute`` on every list: the list ids, the values (``None`` where the metric is
    undefined) and the reasons it is undefined there."""
    lists = Groups.of(groups, len(y))
    ids, values, reasons = [], [], []
    for code, idx in enumerate(lists):
        ids.append(lists.id(code))
        try:
            values.append(compute(y[idx], s[idx]))
        except ValueError as exc:  # the metric's own rule: a class or k out of reach
            values.append(None)
            reasons.append(f"group {lists.id(code)!r}: {exc}")
    return ids, values, reasons


def _defined(name: str, values: list[Any], reasons: list[str], skip_degenerate: bool
             ) -> list[Any]:
    """The values of the lists where the metric is defined; raise ``ValueError`` on an
    undefined list unless ``skip_degenerate`` (then warn with the count)."""
    if reasons and not skip_degenerate:
        raise ValueError(f"{name} is undefined in {reasons[0]}; pass skip_degenerate=True to "
                         "leave such groups out")
    kept = [v for v in values if v is not None]
    if not kept:
        raise ValueError(f"{name} is undefined in every group (e.g. {reasons[0]})")
    if reasons:
        warnings.warn(f"{name} skipped {len(reasons)} degenerate group(s) of {len(values)}",
                      UserWarning, stacklevel=4)
    return kept


def _mean_over_lists(name: str, y: np.ndarray, s: np.ndarray, groups: Any,
                     skip_degenerate: bool,
                     compute: Callable[[np.ndarray, np.ndarray], float]) -> float:
    """``compute`` on the whole list, or its mean over the lists of ``groups``."""
    check_bool(skip_degenerate, "skip_degenerate")
    if groups is None:
        return float(compute(y, s))
    _, values, reasons = _per_list(y, s, groups, compute)
    return float(np.mean(_defined(name, values, reasons, skip_degenerate)))


def _pessimistic_hits(y: np.ndarray, s: np.ndarray, k: int) -> int:
    """Relevant items among the first ``k`` positions, tied items irrelevant first."""
    # O(n): the k-th largest score t splits the items into those above t, the tie block at
    # t (irrelevant first) and the rest.
    t = np.partition(s, len(s) - k)[len(s) - k]
    above = s > t
    at = s == t
    n_above = int(np.count_nonzero(above))
    pos_above = int(np.count_nonzero(y[above]))
    neg_at = int(np.count_nonzero(at)) - int(np.count_nonzero(y[at]))
    pos_taken = max(0, k - n_above - neg_at)
    return pos_above + pos_taken


def _cutoff_of_list(k: int | float, y: np.ndarray) -> int:
    """An int ``k`` in ``[1, n]``, or ``ceil(κ·n₊)`` for a float κ (Kar et al. 2015's prec@κ)."""
    if isinstance(k, numbers.Integral):
        return check_int_in_range(k, "k", 1, len(y), "the number of items")
    n_pos, _ = require_classes(y, negative=False, context="prec@κ needs n₊ >= 1")
    return prec_cutoff(k, n_pos)


def precision_at_k(y_true: Any, y_score: Any, k: int | float, *, groups: Any = None,
                   skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
                   tie_key: Any = None) -> float:
    """Fraction of relevant items among the ``k`` highest scores.

    The gain form of the prec@k loss of Kar et al. 2015 eq. (1): ``1 - loss/k``. Tied scores
    at the cut are ordered irrelevant-first, so ties never help, unless ``ties`` says
    otherwise (:mod:`cvxtop.ties`: ``"optimistic"``, ``"average"``, ``"order"`` with
    ``tie_key``).

    Parameters
    ----------
    y_true : array of shape (n,)
        Binary relevance labels.
    y_score : array of shape (n,)
        Scores; higher means ranked higher.
    k : int or float
        Cut-off: an int ``1 <= k <= n``, or a float κ in (0, 1] meaning ``ceil(κ·n₊)``
        (prec@κ, the rule :class:`~cvxtop.TopRanker` trains with; per list with groups).
    groups : array of shape (n,), optional
        One list id per item: the mean over lists of each list's precision.
    skip_degenerate : bool
        With groups, leave out lists where ``k`` is out of range instead of raising.
    """
    y, s = _validate(y_true, y_score)
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Real):
        raise TypeError(f"k must be an int or a float in (0, 1], got {type(k).__name__} {k!r}")
    if not isinstance(k, numbers.Integral):
        check_fraction(k, "k", closed_right=True)
    elif k < 1 and groups is not None:  # out of range in every list: not a degenerate one
        raise ValueError(f"k must satisfy 1 <= k <= n, got {k}")
    s, policy = _tie_policy(y, s, ties, tie_key)

    def precision(yg: np.ndarray, sg: np.ndarray) -> float:
        kk = _cutoff_of_list(k, yg)
        return _top_relevance(yg, sg, kk, policy) / kk

    return _mean_over_lists("precision_at_k", y, s, groups, skip_degenerate, precision)


def _count_below(sorted_asc: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each value, the number of entries of ``sorted_asc`` strictly below it."""
    return np.searchsorted(sorted_asc, values, side="left")


def _count_equal(sorted_asc: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.searchsorted(sorted_asc, values, side="right") - _count_below(sorted_asc, values)


def _wins(pos: np.ndarray, neg_sorted: np.ndarray, ties: Ties) -> float:
    """Correctly ordered (positive, negative) pairs; a tied pair counts ½ with
    ``ties="half"`` and 0 otherwise."""
    wins = float(_count_below(neg_sorted, pos).sum())
    if ties == "half":
        wins += 0.5 * float(_count_equal(neg_sorted, pos).sum())
    return wins


def _pap_pairs(y: np.ndarray, s: np.ndarray, k: int, ties: Ties = "error") -> tuple[float, int]:
    """Correctly ordered pairs and all pairs of pAp@k for one list (eq. (1) of Hiranandani
    et al. 2020). Which of several tied items enter the top sets does not change the pairs'
    scores, so the count does not depend on it."""
    pos = s[y == 1]
    neg = s[y == 0]
    beta = min(len(pos), k)
    top_pos = np.partition(pos, len(pos) - beta)[len(pos) - beta:]
    top_neg = np.sort(np.partition(neg, len(neg) - k)[len(neg) - k:])
    return _wins(top_pos, top_neg, ties), beta * k


def _pap_of_list(y: np.ndarray, s: np.ndarray, k: int, ties: Ties) -> tuple[float, int]:
    _, n_neg = require_classes(y, context="pAp@k needs n₊ >= 1 and n₋ >= k")
    k = check_int_in_range(k, "k", 1, n_neg, "the number of irrelevant items n₋")
    return _pap_pairs(y, s, k, ties)


def pap_at_k(
    y_true: Any,
    y_score: Any,
    k: int,
    groups: Any = None,
    *,
    average: Literal["group", "pooled"] = "group",
    skip_degenerate: bool = False,
    ties: Ties = "error",
) -> float:
    """pAp@k gain: 1 minus the pAp@k risk of Hiranandani et al. 2020 eq. (1).

    The fraction of pairs (one of the top-β positives, one of the top-k negatives),
    β = min(n₊, k), in which the positive scores strictly higher; a tie is an error. When
    n₊ <= k this is :func:`partial_auc` (Hiranandani et al. 2020 Section 3); when n₊ >= k it
    equals 1 exactly when :func:`precision_at_k` does.

    Parameters
    ----------
    y_true, y_score : arrays of shape (n,)
    k : int
        Number of top negatives, ``1 <= k <= n₋`` (in every group).
    groups : array of shape (n,), optional
        One id per item (a user, a query). With groups the result is aggregated over the
        groups according to ``average``.
    average : {"group", "pooled"}
        ``"group"``: the mean over groups of the per-group gain, Hiranandani et al. 2020
        eq. (17) (which the paper calls *micro* pAp@k). ``"pooled"``: all groups' correctly
        ordered pairs over all their pairs.
    skip_degenerate : bool
        A group without a relevant item or with fewer than ``k`` irrelevant ones has no
        pAp@k. By default this raises ``ValueError``; with ``True`` such groups are left
        out and a ``UserWarning`` reports how many.
    ties : {"error", "half"}
        A tied (positive, negative) pair is an error (eq. (1), the default) or counts ½
        (the Mann-Whitney convention of :func:`sklearn.metrics.roc_auc_score`, which the
        experiments of Hiranandani et al. 2020 use through scikit-learn).
    """
    y, s = _validate(y_true, y_score)
    check_bool(skip_degenerate, "skip_degenerate")
    if average not in ("group", "pooled"):
        raise ValueError(f"average must be 'group' or 'pooled', got {average!r}")
    _check_ties(ties)
    _check_int_type(k)
    if k < 1 and groups is not None:  # out of range in every list: not a degenerate one
        raise ValueError(f"k must satisfy 1 <= k <= n₋, got {k}")
    if groups is None or average == "group":
        return _mean_over_lists("pap_at_k", y, s, groups, skip_degenerate,
                                lambda yg, sg: _pap_gain(yg, sg, k, ties))
    _, pairs, reasons = _per_list(y, s, groups, lambda yg, sg: _pap_of_list(yg, sg, k, ties))
    kept = _defined("pap_at_k", pairs, reasons, skip_degenerate)
    return sum(c for c, _ in kept) / sum(t for _, t in kept)


def _pap_gain(y: np.ndarray, s: np.ndarray, k: int, ties: Ties) -> float:
    correct, total = _pap_of_list(y, s, k, ties)
    return correct / total


def roc_auc(y_true: Any, y_score: Any, *, ties: Ties = "error", groups: Any = None,
            skip_degenerate: bool = False) -> float:
    """Area under the ROC curve: 1 minus the AUC risk of Hiranandani et al. 2020 eq. (2).

    The fraction of (positive, negative) pairs ordered correctly. ``ties="error"`` (the
    default, as in eq. (2)) counts a tied pair as wrong; ``ties="half"`` counts it as half
    right, which reproduces :func:`sklearn.metrics.roc_auc_score`. With ``groups``, the
    mean over lists (each needs both classes).
    """
    y, s = _validate(y_true, y_score)
    _check_ties(ties)

    def auc(yg: np.ndarray, sg: np.ndarray) -> float:
        n_pos, n_neg = require_classes(yg)
        return _wins(sg[yg == 1], np.sort(sg[yg == 0]), ties) / (n_pos * n_neg)

    return _mean_over_lists("roc_auc", y, s, groups, skip_degenerate, auc)


def partial_auc(y_true: Any, y_score: Any, k: int, *, ties: Ties = "error",
                groups: Any = None, skip_degenerate: bool = False) -> float:
    """Partial AUC over the top-``k`` negatives, pAUC(0, k/n₋], in raw form.

    The fraction of pairs (any positive, one of the ``k`` highest-scored negatives) ordered
    correctly, as in Hiranandani et al. 2020 Section 3 (Narasimhan & Agarwal's pAUC). It is
    *not* McClish-standardized (unlike ``sklearn.metrics.roc_auc_score(max_fpr=...)``): a
    random ranking does not score 0.5 and a perfect one scores 1. A tied pair is an error
    unless ``ties="half"``. With ``groups``, the mean over lists.
    """
    y, s = _validate(y_true, y_score)
    _check_ties(ties)
    _check_int_type(k)
    if k < 1 and groups is not None:  # out of range in every list: not a degenerate one
        raise ValueError(f"k must satisfy 1 <= k <= n₋, got {k}")

    def pauc(yg: np.ndarray, sg: np.ndarray) -> float:
        n_pos, n_neg = require_classes(yg)
        kk = check_int_in_range(k, "k", 1, n_neg, "the number of irrelevant items n₋")
        neg = sg[yg == 0]
        top_neg = np.sort(np.partition(neg, len(neg) - kk)[len(neg) - kk:])
        return _wins(sg[yg == 1], top_neg, ties) / (n_pos * kk)

    return _mean_over_lists("partial_auc", y, s, groups, skip_degenerate, pauc)


def top_quantile(y_score: Any, tau: float) -> float:
    """The largest minimizer of ``F_τ(u) = Σ_i ρ_τ(s_i − u)`` (Boyd et al. 2012 Section 2).

    ``ρ_τ(u) = −τ·min(u, 0) + (1 − τ)·max(u, 0)``. The right derivative of ``F_τ`` at ``u``
    is ``τn − #{s > u}`` and the left one ``τn − #{s ≥ u}``, so the largest minimizer is
    the ``ceil(τn)``-th largest score (see :func:`tau_cutoff`), ties included.

    A ``float``; for scores that ``float64`` cannot hold exactly (integers past 2**53,
    ``longdouble``), the score itself in its own type, so that it is exact too.
    """
    s, original = check_ranked_scores(y_score, "y_score")
    j = tau_cutoff(tau, len(s))
    i = int(np.argpartition(s, len(s) - j)[len(s) - j])
    if original is None:
        return float(s[i])
    value = original[i]
    return value.item() if isinstance(value, np.integer) else value


def precision_at_tau(y_true: Any, y_score: Any, tau: float, *, groups: Any = None,
                     skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
                     tie_key: Any = None) -> float:
    """P@τ of Boyd et al. 2012 Section 5.2: precision among the items at or above the
    τ-quantile.

    The cut is the rank of :func:`top_quantile`, ``ceil(τn)``; with ties at the quantile,
    irrelevant items are counted first, as in :func:`precision_at_k` (``ties`` and
    ``tie_key`` as there). With ``groups``, the mean over lists (each list's own
    ``ceil(τ·n)``).
    """
    y, s = _validate(y_true, y_score)
    tau = check_fraction(tau, "tau")
    s, policy = _tie_policy(y, s, ties, tie_key)

    def precision(yg: np.ndarray, sg: np.ndarray) -> float:
        m = tau_cutoff(tau, len(sg))
        return _top_relevance(yg, sg, m, policy) / m

    return _mean_over_lists("precision_at_tau", y, s, groups, skip_degenerate, precision)


def average_precision(y_true: Any, y_score: Any, *, groups: Any = None,
                      skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
                      tie_key: Any = None) -> float:
    """Average precision (AP, Boyd et al. 2012 Section 5.2).

    The mean, over relevant items, of the precision at each relevant item's rank, in the
    pessimistic order (ties: irrelevant first), or under another tie policy
    (:mod:`cvxtop.ties`: ``"optimistic"``, ``"average"`` (the exact expectation over the
    orders of the tie blocks), ``"threshold"`` (tied items enter together, as scikit-learn's
    ``average_precision_score``), ``"order"`` with ``tie_key``). With ``groups``, the mean
    over lists (MAP); each list needs a relevant item.
    """
    y, s = _validate(y_true, y_score)
    s, policy = _tie_policy(y, s, ties, tie_key, threshold=True)

    def ap(yg: np.ndarray, sg: np.ndarray) -> float:
        require_classes(yg, negative=False)
        return average_precision_of(yg, sg, policy, None)

    return _mean_over_lists("average_precision", y, s, groups, skip_degenerate, ap)


def dcg_discounts(m: int) -> np.ndarray:
    """The DCG discounts ``1/log2(1 + r)`` of positions ``r = 1..m`` (Boyd et al. 2012
    Section 5.2; the NDCG of Jain et al. 2015 Section 4 uses the same)."""
    return 1.0 / np.log2(np.arange(2, m + 2))


def _dcg(y: np.ndarray, s: np.ndarray, m: int, ties: str) -> float:
    """DCG of the first ``m`` positions under the tie policy (expected, with ``"average"``:
    DCG is linear in the positions' relevance)."""
    return float(position_relevance(y, s, ties, None)[:m] @ dcg_discounts(m))


def _ndcg(y: np.ndarray, s: np.ndarray, m: int, ties: str) -> float:
    n_pos, _ = require_classes(y, negative=False)
    ideal = float(dcg_discounts(m)[:min(m, n_pos)].sum())
    return _dcg(y, s, m, ties) / ideal


def _dcg_metric(name: str, normalized: bool, y_true: Any, y_score: Any,
                cutoff: Callable[[int], int], groups: Any, skip_degenerate: bool, ties: Any,
                tie_key: Any) -> float:
    y, s = _validate(y_true, y_score)
    s, policy = _tie_policy(y, s, ties, tie_key)
    of_list = _ndcg if normalized else _dcg
    return _mean_over_lists(name, y, s, groups, skip_degenerate,
                            lambda yg, sg: of_list(yg, sg, cutoff(len(sg)), policy))


def dcg_at_tau(y_true: Any, y_score: Any, tau: float, *, groups: Any = None,
               skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
               tie_key: Any = None) -> float:
    """DCG@τ (Boyd et al. 2012 Section 5.2): ``Σ_{r ≤ ceil(τn)} y_(r) / log2(1 + r)``.

    Binary gains, positions from 1, pessimistic order of ties unless ``ties`` says
    otherwise (:mod:`cvxtop.ties`; ``"average"`` is the expectation over the orders of
    the tie blocks, scikit-learn's ``ndcg_score`` convention). With ``groups``, the mean
    over lists.
    """
    tau = check_fraction(tau, "tau")
    return _dcg_metric("dcg_at_tau", False, y_true, y_score, lambda n: tau_cutoff(tau, n),
                       groups, skip_degenerate, ties, tie_key)


def ndcg_at_tau(y_true: Any, y_score: Any, tau: float, *, groups: Any = None,
                skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
                tie_key: Any = None) -> float:
    """NDCG@τ: :func:`dcg_at_tau` divided by its value for a perfect ranking. With
    ``groups``, the mean over lists; each list needs a relevant item."""
    tau = check_fraction(tau, "tau")
    return _dcg_metric("ndcg_at_tau", True, y_true, y_score, lambda n: tau_cutoff(tau, n),
                       groups, skip_degenerate, ties, tie_key)


def _int_cutoff(k: Any) -> Callable[[int], int]:
    _check_int_type(k)
    return lambda n: check_int_in_range(k, "k", 1, n, "the number of items")


def dcg_at_k(y_true: Any, y_score: Any, k: int, *, groups: Any = None,
             skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
             tie_key: Any = None) -> float:
    """DCG@k: ``Σ_{r ≤ k} y_(r) / log2(1 + r)`` for an int ``1 <= k <= n`` (per list with
    ``groups``); binary gains, ties as :func:`dcg_at_tau`."""
    return _dcg_metric("dcg_at_k", False, y_true, y_score, _int_cutoff(k), groups,
                       skip_degenerate, ties, tie_key)


def ndcg_at_k(y_true: Any, y_score: Any, k: int, *, groups: Any = None,
              skip_degenerate: bool = False, ties: PositionTies = "pessimistic",
              tie_key: Any = None) -> float:
    """NDCG@k: :func:`dcg_at_k` divided by its value for a perfect ranking; each list
    needs a relevant item."""
    return _dcg_metric("ndcg_at_k", True, y_true, y_score, _int_cutoff(k), groups,
                       skip_degenerate, ties, tie_key)


def positives_at_top(y_true: Any, y_score: Any, *, groups: Any = None,
                     skip_degenerate: bool = False) -> float:
    """Positives@top (Boyd et al. 2012 Section 5.2): relevant items scored strictly above
    every irrelevant item. With no irrelevant item, every relevant item counts. An int
    without groups; with ``groups``, the mean count over lists."""
    y, s = _validate(y_true, y_score)

    def count(yg: np.ndarray, sg: np.ndarray) -> int:
        if np.all(yg == 1):
            return int(len(yg))
        return int(np.count_nonzero(sg[yg == 1] > sg[yg == 0].max()))

    if groups is None:
        check_bool(skip_degenerate, "skip_degenerate")
        return count(y, s)
    return _mean_over_lists("positives_at_top", y, s, groups, skip_degenerate, count)


#: The metrics of labels and scores, by name (what :func:`get_scorer` and ``cvxtop evaluate``
#: use). Each takes ``(y_true, y_score, ...)`` and ``groups=``.
METRICS: dict[str, Callable[..., float]] = {
    "precision_at_k": precision_at_k,
    "pap_at_k": pap_at_k,
    "roc_auc": roc_auc,
    "partial_auc": partial_auc,
    "average_precision": average_precision,
    "precision_at_tau": precision_at_tau,
    "dcg_at_tau": dcg_at_tau,
    "ndcg_at_tau": ndcg_at_tau,
    "dcg_at_k": dcg_at_k,
    "ndcg_at_k": ndcg_at_k,
    "positives_at_top": positives_at_top,
}

#: The parameter each metric of :data:`METRICS` takes after ``(y_true, y_score)``: ``"k"``,
#: ``"tau"`` or ``None``.
PARAMETERS: dict[str, str | None] = {
    "precision_at_k": "k", "pap_at_k": "k", "roc_auc": None, "partial_auc": "k",
    "average_precision": None, "precision_at_tau": "tau", "dcg_at_tau": "tau",
    "ndcg_at_tau": "tau", "dcg_at_k": "k", "ndcg_at_k": "k", "positives_at_top": None,
}


def _metric(name: str) -> Callable[..., float]:
    if not isinstance(name, str) or name not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {name!r}")
    return METRICS[name]


def group_values(metric: str, y_true: Any, y_score: Any, groups: Any,
                 **params: Any) -> dict[Any, float | None]:
    """The metric ``metric`` (a name of :data:`METRICS`) on each list of ``groups``: a dict
    from list id to value, ``None`` where the metric is undefined for that list.

    ``params`` are the metric's own (``k=10``, ``tau=0.05``, ``ties="half"``).
    """
    fn = _metric(metric)
    y, s = _validate(y_true, y_score)
    ids, values, _ = _per_list(y, s, groups, lambda yg, sg: fn(yg, sg, **params))
    return dict(zip(ids, values))


def get_scorer(metric: str, **params: Any) -> Any:
    """A scikit-learn scorer of ``metric`` (a name of :data:`METRICS`) on
    ``decision_function`` scores, e.g. ``get_scorer("precision_at_k", k=0.25)``.

    Use it as ``scoring=`` of :func:`sklearn.model_selection.cross_val_score` or
    :class:`~sklearn.model_selection.GridSearchCV`. For a mean over lists in each fold,
    enable scikit-learn's metadata routing and request the groups::

        sklearn.set_config(enable_metadata_routing=True)
        scorer = get_scorer("pap_at_k", k=5).set_score_request(groups=True)

    ``params`` are the metric's own (``k``, ``tau``, ``ties``, ``skip_degenerate``).
    """
    from sklearn.metrics import make_scorer

    fn = _metric(metric)
    _check_scorer_params(metric, fn, params)
    return make_scorer(fn, response_method="decision_function", **params)


def _check_scorer_params(name: str, fn: Callable[..., float], params: dict[str, Any]) -> None:
    """A scorer's parameters, checked when it is made rather than at its first score: the
    metric's cut-off present and in its range, no unknown or misspelled name."""
    import inspect

    accepted = set(inspect.signature(fn).parameters) - {"y_true", "y_score", "groups"}
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise TypeError(f"get_scorer({name!r}) got unknown parameter(s) {unknown}; "
                        f"{name} takes {sorted(accepted)}")
    needed = PARAMETERS[name]
    if needed is not None and needed not in params:
        raise TypeError(f"get_scorer({name!r}) needs {needed}=... (the metric's "
                        f"{'cut-off' if needed == 'k' else 'top quantile'})")
    if "k" in params:
        k = params["k"]
        if name == "precision_at_k" and not isinstance(k, numbers.Integral):
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Real):
                raise TypeError(f"k must be an int or a float in (0, 1], got {k!r}")
            check_fraction(k, "k", closed_right=True)
        else:
            _check_int_type(k)
            if k < 1:
                raise ValueError(f"k must be a positive integer, got {k}")
    if "tau" in params:
        check_fraction(params["tau"], "tau")
    if "ties" in params:
        _check_ties(params["ties"])
    if "skip_degenerate" in params:
        check_bool(params["skip_degenerate"], "skip_degenerate")
    if "average" in params and params["average"] not in ("group", "pooled"):
        raise ValueError(f"average must be 'group' or 'pooled', got {params['average']!r}")

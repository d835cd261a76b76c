"""Metrics per list (``groups=``), ``ties="half"`` for pAp@k, and prec@κ cut-offs."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from cvxtop import metrics

RNG = np.random.default_rng(7)

# (name, params) of every metric with groups; each list below has both classes and 6 items
CASES = [
    ("precision_at_k", {"k": 3}),
    ("precision_at_k", {"k": 0.5}),
    ("pap_at_k", {"k": 2}),
    ("pap_at_k", {"k": 2, "ties": "half"}),
    ("roc_auc", {}),
    ("roc_auc", {"ties": "half"}),
    ("partial_auc", {"k": 2}),
    ("average_precision", {}),
    ("precision_at_tau", {"tau": 0.3}),
    ("dcg_at_tau", {"tau": 0.3}),
    ("ndcg_at_tau", {"tau": 0.3}),
    ("positives_at_top", {}),
]


def grouped_instance(n_groups: int = 5, size: int = 6):
    y = np.concatenate([RNG.permutation([1, 1, 0, 0, 0, 0]) for _ in range(n_groups)])
    s = RNG.integers(0, 4, size=len(y)).astype(float)  # many ties
    g = np.repeat(np.arange(n_groups) * 10, size)
    perm = RNG.permutation(len(y))  # lists need not be contiguous
    return y[perm], s[perm], g[perm]


@pytest.mark.parametrize("name, params", CASES)
def test_grouped_metric_is_the_mean_of_the_per_list_values(name, params):
    fn = metrics.METRICS[name]
    for _ in range(20):
        y, s, g = grouped_instance()
        per_list = [fn(y[g == gid], s[g == gid], **params) for gid in np.unique(g)]
        assert fn(y, s, groups=g, **params) == pytest.approx(np.mean(per_list), abs=1e-12)
        values = metrics.group_values(name, y, s, g, **params)
        assert list(values) == list(np.unique(g))
        np.testing.assert_allclose(list(values.values()), per_list, atol=1e-12)


def test_degenerate_lists_raise_by_name_or_are_skipped_with_a_count():
    y = np.array([1, 0, 0, 0, 0, 0, 1, 1])
    s = np.arange(8.0)
    g = np.array(["a", "a", "a", "b", "b", "b", "c", "c"])  # b: no relevant; c: no irrelevant
    with pytest.raises(ValueError, match="roc_auc is undefined in group 'b'"):
        metrics.roc_auc(y, s, groups=g)
    with pytest.warns(UserWarning, match="roc_auc skipped 2 degenerate group"):
        value = metrics.roc_auc(y, s, groups=g, skip_degenerate=True)
    assert value == metrics.roc_auc(y[:3], s[:3])
    assert metrics.group_values("average_precision", y, s, g) == {
        "a": metrics.average_precision(y[:3], s[:3]), "b": None, "c": 1.0}
    with pytest.raises(ValueError, match="undefined in every group"):
        metrics.ndcg_at_tau(np.zeros(4), np.arange(4.0), 0.5, groups=[0, 0, 1, 1],
                            skip_degenerate=True)
    with pytest.raises(ValueError, match="metric must be one of"):
        metrics.group_values("auc", y, s, g)


def test_invalid_k_is_refused_before_the_lists():
    y, s, g = grouped_instance()
    for fn in (metrics.precision_at_k, metrics.pap_at_k, metrics.partial_auc):
        with pytest.raises(ValueError, match="k must satisfy 1 <= k"):
            fn(y, s, 0, groups=g)
    with pytest.raises(TypeError, match="k must be an integer"):
        metrics.pap_at_k(y, s, 1.5)


def brute_pap(y, s, k, half):
    """pAp@k by enumeration of eq. (1): the best choice of top-β positives and top-k
    negatives is irrelevant for the pair scores; count every pair once."""
    pos = sorted(s[y == 1], reverse=True)[:min(int(y.sum()), k)]
    neg = sorted(s[y == 0], reverse=True)[:k]
    wins = sum((p > q) + (0.5 if half and p == q else 0.0) for p, q in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_pap_ties_half_matches_the_enumeration_and_scikit_learn():
    for _ in range(300):
        n = int(RNG.integers(3, 12))
        y = RNG.integers(0, 2, n)
        y[:2] = [1, 0]
        s = RNG.integers(0, 3, n).astype(float)
        n_neg = int((y == 0).sum())
        k = int(RNG.integers(1, n_neg + 1))
        for half in (False, True):
            got = metrics.pap_at_k(y, s, k, ties="half" if half else "error")
            assert got == pytest.approx(brute_pap(y, s, k, half), abs=1e-12)
        if y.sum() <= n_neg:  # k = n₋ and n₊ <= k: pAp@k is the AUC
            assert metrics.pap_at_k(y, s, n_neg, ties="half") == pytest.approx(
                roc_auc_score(y, s), abs=1e-12)
    with pytest.raises(ValueError, match="ties must be 'error' or 'half'"):
        metrics.pap_at_k([1, 0], [1.0, 0.0], 1, ties="ignore")


def test_fractional_k_is_prec_at_kappa_of_each_list():
    y = np.array([1] * 7 + [0] * 5)
    s = RNG.standard_normal(12)
    # κ = 0.3 of n₊ = 7: ceil(2.1) = 3
    assert metrics.precision_at_k(y, s, 0.3) == metrics.precision_at_k(y, s, 3)
    assert metrics.precision_at_k(y, s, 1.0) == metrics.precision_at_k(y, s, 7)
    with pytest.raises(ValueError, match="prec@κ needs n₊ >= 1"):
        metrics.precision_at_k(np.zeros(4), np.arange(4.0), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = np.repeat([0, 1], 6)
        expected = np.mean([metrics.precision_at_k(y[g == i], s[g == i], 0.5) for i in (0, 1)])
        assert metrics.precision_at_k(y, s, 0.5, groups=g) == pytest.approx(expected)

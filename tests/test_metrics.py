"""Metrics against straightforward computations, ties included."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from cvxtop import metrics, reference
from conftest import tiny_instance


def naive_ranking(y, s):
    """Items sorted by decreasing score, tied items irrelevant first (Python sort)."""
    return [y[i] for i in sorted(range(len(y)), key=lambda i: (-s[i], y[i]))]


@pytest.mark.parametrize("ties", [False, True])
def test_precision_at_k_matches_naive_sort_and_reference(rng, ties):
    for _ in range(300):
        y, s = tiny_instance(rng, ties=ties)
        for k in range(1, len(y) + 1):
            ranked = naive_ranking(y, s)
            expected = sum(ranked[:k]) / k
            assert metrics.precision_at_k(y, s, k) == pytest.approx(expected)
            assert metrics.precision_at_k(y, s, k) == pytest.approx(
                1 - reference.prec_at_k_loss(y, s, k) / k)


def test_precision_at_k_tie_at_cut_is_pessimistic():
    y = [1, 0, 1, 0]
    s = [2.0, 1.0, 1.0, 0.0]
    assert metrics.precision_at_k(y, s, 2) == 0.5  # the tied negative takes the 2nd slot
    assert metrics.precision_at_k(y, s, 3) == pytest.approx(2 / 3)


def naive_pap(y, s, k):
    pos = sorted((v for v, lab in zip(s, y) if lab == 1), reverse=True)
    neg = sorted((v for v, lab in zip(s, y) if lab == 0), reverse=True)
    beta = min(len(pos), k)
    good = sum(1 for p in pos[:beta] for n in neg[:k] if p > n)
    return good / (beta * k)


@pytest.mark.parametrize("ties", [False, True])
def test_pap_at_k_matches_naive_and_reference(rng, ties):
    for _ in range(300):
        y, s = tiny_instance(rng, ties=ties)
        n_neg = int((y == 0).sum())
        for k in range(1, n_neg + 1):
            value = metrics.pap_at_k(y, s, k)
            assert value == pytest.approx(naive_pap(y, s, k))
            assert value == pytest.approx(1 - reference.pap_risk(y, s, k))


def test_pap_at_k_table1_of_the_paper():
    # Hiranandani et al. 2020 Table 1: f1, f2, f3 rank 5 relevant and 6 irrelevant items; pAp@2
    # gains are 2/4, 3/4 and 1. Columns list labels from rank 1 to rank 11.
    for labels, expected in [
        ([0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0], 2 / 4),
        ([1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1], 3 / 4),
        ([1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1], 1.0),
    ]:
        scores = -np.arange(11.0)
        assert metrics.pap_at_k(labels, scores, 2) == pytest.approx(expected)
    # pAp@6 of f4 and f5: 27/30 and 28/30.
    for labels, expected in [
        ([1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0], 27 / 30),
        ([1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0], 28 / 30),
    ]:
        assert metrics.pap_at_k(labels, -np.arange(11.0), 6) == pytest.approx(expected)


def test_pap_at_k_groups_mean_and_pooled(rng):
    ys, ss, gs, per_group, correct, total = [], [], [], [], 0, 0
    k = 2
    for g in range(6):
        y, s = tiny_instance(rng, min_neg=k, max_neg=6, ties=True)
        ys.append(y)
        ss.append(s)
        gs.append(np.full(len(y), f"user{g}"))
        per_group.append(naive_pap(y, s, k))
        beta = min(int(y.sum()), k)
        correct += naive_pap(y, s, k) * beta * k
        total += beta * k
    y, s, g = np.concatenate(ys), np.concatenate(ss), np.concatenate(gs)
    perm = rng.permutation(len(y))
    y, s, g = y[perm], s[perm], g[perm]
    assert metrics.pap_at_k(y, s, k, groups=g) == pytest.approx(np.mean(per_group))
    assert metrics.pap_at_k(y, s, k, groups=g, average="pooled") == pytest.approx(correct / total)


def test_pap_at_k_degenerate_groups_raise_or_are_skipped_with_a_count():
    y = np.array([1, 0, 0, 0, 0, 1, 1])
    s = np.arange(7.0)
    g = np.array([0, 0, 0, 1, 1, 2, 2])  # group 1: no positive; group 2: no negative
    with pytest.raises(ValueError, match="undefined in group 1: y_true has no relevant item"):
        metrics.pap_at_k(y, s, 1, groups=g)
    with pytest.warns(UserWarning, match="skipped 2 degenerate group"):
        value = metrics.pap_at_k(y, s, 1, groups=g, skip_degenerate=True)
    assert value == pytest.approx(metrics.pap_at_k(y[:3], s[:3], 1))
    with pytest.raises(ValueError, match="in group 0: k must satisfy 1 <= k <= 2"):
        metrics.pap_at_k(y, s, 3, groups=np.zeros(7, dtype=int) + (np.arange(7) > 2))


@pytest.mark.parametrize("ties", [False, True])
def test_roc_auc_and_partial_auc_against_pair_counts(rng, ties):
    for _ in range(200):
        y, s = tiny_instance(rng, ties=ties)
        pos, neg = s[y == 1], s[y == 0]
        wins = sum(p > n for p in pos for n in neg)
        draws = sum(p == n for p in pos for n in neg)
        assert metrics.roc_auc(y, s) == pytest.approx(wins / (len(pos) * len(neg)))
        half = metrics.roc_auc(y, s, ties="half")
        assert half == pytest.approx((wins + draws / 2) / (len(pos) * len(neg)))
        assert half == pytest.approx(roc_auc_score(y, s))
        for k in range(1, len(neg) + 1):
            top = sorted(neg, reverse=True)[:k]
            w = sum(p > n for p in pos for n in top)
            assert metrics.partial_auc(y, s, k) == pytest.approx(w / (len(pos) * k))


def brute_largest_minimizer(scores, tau):
    """Evaluate F_τ exactly (rationals) at every sample point; return the largest minimizer."""
    t = Fraction(repr(tau))  # the decimal meant, as cvxtop does
    def f(u):
        total = Fraction(0)
        for v in scores:
            d = Fraction(v) - u
            total += -t * min(d, 0) + (1 - t) * max(d, 0)
        return total
    values = {Fraction(v): f(Fraction(v)) for v in scores}
    best = min(values.values())
    return float(max(u for u, fv in values.items() if fv == best))


def test_top_quantile_is_largest_minimizer_of_f_tau(rng):
    for _ in range(200):
        n = int(rng.integers(1, 12))
        s = rng.integers(-3, 4, size=n) / 4.0
        tau = float(rng.choice([0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1 / 3]))
        assert metrics.top_quantile(s, tau) == brute_largest_minimizer(s, tau)


def test_top_quantile_exact_rank_when_tau_n_is_integral():
    s = np.arange(10.0)  # descending ranks: 9, 8, 7, ...
    assert metrics.top_quantile(s, 0.3) == 7.0  # the 3rd largest, not the 4th
    assert metrics.tau_cutoff(0.3, 10) == 3
    assert metrics.top_quantile(s, 0.01) == 9.0


def test_tau_cutoff_checks_each_type_and_value_on_its_own():
    """τ's check is memoized per type and value: a float32 and the float of its binary
    value are different decimals (0.1 and 0.100000001...), and a τ refused once is refused
    again, whatever was asked before."""
    as_float = float(np.float32(0.1))
    assert metrics.tau_cutoff(np.float32(0.1), 100) == 10
    assert metrics.tau_cutoff(as_float, 100) == 11
    assert metrics.tau_cutoff(np.float32(0.1), 100) == 10
    for _ in range(2):
        with pytest.raises(ValueError, match="tau"):
            metrics.tau_cutoff(1.0, 10)
        with pytest.raises(TypeError, match="tau"):
            metrics.tau_cutoff([0.1], 10)


def test_position_metrics_against_naive_definitions(rng):
    for _ in range(200):
        y, s = tiny_instance(rng, ties=True)
        ranked = naive_ranking(y, s)
        n_pos = sum(ranked)
        for tau in (0.1, 0.25, 0.5, 0.9):
            m = max(1, math.ceil(Fraction(repr(tau)) * len(y)))
            assert metrics.precision_at_tau(y, s, tau) == pytest.approx(sum(ranked[:m]) / m)
            dcg = sum(r / math.log2(i + 2) for i, r in enumerate(ranked[:m]))
            ideal = sum(1 / math.log2(i + 2) for i in range(min(m, n_pos)))
            assert metrics.dcg_at_tau(y, s, tau) == pytest.approx(dcg)
            assert metrics.ndcg_at_tau(y, s, tau) == pytest.approx(dcg / ideal)
        hits = [i for i, r in enumerate(ranked) if r == 1]
        ap = np.mean([(j + 1) / (i + 1) for j, i in enumerate(hits)])
        assert metrics.average_precision(y, s) == pytest.approx(ap)
        top_neg = max(v for v, lab in zip(s, y) if lab == 0)
        assert metrics.positives_at_top(y, s) == sum(
            1 for v, lab in zip(s, y) if lab == 1 and v > top_neg)


def test_perfect_ranking_scores_one():
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    s = -np.arange(8.0)
    assert metrics.precision_at_k(y, s, 3) == 1.0
    assert metrics.pap_at_k(y, s, 4) == 1.0
    assert metrics.roc_auc(y, s) == 1.0
    assert metrics.average_precision(y, s) == 1.0
    assert metrics.ndcg_at_tau(y, s, 0.5) == 1.0
    assert metrics.positives_at_top(y, s) == 3
    assert metrics.positives_at_top([1, 1], [0.0, 1.0]) == 2


def test_paper_datasets_load_with_documented_counts():
    from pathlib import Path

    from cvxtop.datasets import load_paper_dataset

    data = Path(__file__).resolve().parents[1] / "data"
    counts = {"ionosphere": (351, 225), "spambase": (4597, 1812), "boston": (506, 35),
              "magic": (19020, 6688), "letter": (20000, 789)}
    for name, (n, n_pos) in counts.items():
        X, y = load_paper_dataset(name, data)
        assert X.shape[0] == n and int(y.sum()) == n_pos and np.isfinite(X).all()

"""The tie policies of the position metrics (cvxtop.ties) against enumeration of every
order of every tie block (cvxtop.reference.ties), on every list of up to 7 items (every
tie pattern, a composition of the positions into blocks, with every count of relevant
items in each block) and on every tie pattern of 8 items with a share of its counts."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, ndcg_score

from cvxtop import metrics
from cvxtop.reference import ties as ref


def compositions(n):
    """Every split of n positions into consecutive tie blocks (their sizes)."""
    for cuts in itertools.product((0, 1), repeat=n - 1):
        sizes, size = [], 1
        for cut in cuts:
            if cut:
                sizes.append(size)
                size = 1
            else:
                size += 1
        yield sizes + [size]


def every_list(max_n):
    """(y, s) for every tie pattern and relevant count per block, items shuffled."""
    rng = np.random.default_rng(0)
    for n in range(1, max_n + 1):
        for sizes in compositions(n):
            for counts in itertools.product(*(range(m + 1) for m in sizes)):
                y = np.concatenate([[1] * r + [0] * (m - r) for m, r in zip(sizes, counts)])
                s = np.repeat(np.arange(len(sizes), 0, -1, dtype=float), sizes)
                shuffle = rng.permutation(n)
                yield y[shuffle].astype(int), s[shuffle]


LISTS = list(every_list(8))
# the lists the metric checks run on: all 4,609 of up to 7 items, every 8th of 8 items
# (every one of the 128 patterns of 8 items keeps at least one count of relevant items)
CHECKED = [(y, s) for i, (y, s) in enumerate(LISTS) if len(y) < 8 or i % 8 == 0]


def cutoffs(n):
    return sorted({1, (n + 1) // 2, n})


def test_there_are_as_many_lists_as_patterns_and_counts():
    # Σ over compositions of n of Π (m_b + 1): 2, 7, 24, 82, 280, 956, 3264, 11144
    assert len(LISTS) == 2 + 7 + 24 + 82 + 280 + 956 + 3264 + 11144


def test_the_checked_lists_hold_every_tie_pattern_of_eight_items():
    def pattern(s):
        return tuple(np.unique(s, return_counts=True)[1][::-1])

    assert len({pattern(s) for y, s in CHECKED if len(y) == 8}) == 2 ** 7


@pytest.mark.parametrize("policy", ["average", "pessimistic", "optimistic", "order"])
def test_every_position_metric_agrees_with_enumeration(policy):
    rng = np.random.default_rng(1)
    for y, s in CHECKED:
        n = len(y)
        key = rng.permutation(n) if policy == "order" else None
        if policy == "average":
            ranked = y[ref.orderings(s)]
        else:
            ranked = ref.in_policy_order(y, s, policy, key)

        def expected(metric):
            return float(np.mean(metric(ranked)))

        options = {"ties": policy, "tie_key": key}
        for k in cutoffs(n):
            assert metrics.precision_at_k(y, s, k, **options) == pytest.approx(
                expected(ref.precision(k)), abs=1e-12)
            assert metrics.dcg_at_k(y, s, k, **options) == pytest.approx(
                expected(ref.dcg(k)), abs=1e-12)
        if y.any():
            assert metrics.average_precision(y, s, **options) == pytest.approx(
                expected(ref.average_precision), abs=1e-12)


def test_pessimistic_is_the_worst_and_optimistic_the_best_order():
    for y, s in LISTS[::7]:
        if not y.any():
            continue
        every = ref.average_precision(y[ref.orderings(s)])
        assert metrics.average_precision(y, s) == pytest.approx(every.min(), abs=1e-12)
        assert metrics.average_precision(y, s, ties="optimistic") == pytest.approx(
            every.max(), abs=1e-12)


def test_threshold_and_average_are_scikit_learns_conventions():
    """Independent implementations: average_precision_score lets tied items enter
    together; ndcg_score averages the gains over each tie block."""
    for y, s in LISTS[::5]:
        if not y.any() or y.all():
            continue
        assert metrics.average_precision(y, s, ties="threshold") == pytest.approx(
            average_precision_score(y, s), abs=1e-12)
        if len(y) > 1:
            k = (len(y) + 1) // 2
            assert metrics.ndcg_at_k(y, s, k, ties="average") == pytest.approx(
                ndcg_score([y], [s], k=k), abs=1e-12)


def test_order_follows_the_key_within_every_list_of_groups():
    y = np.array([1, 0, 0, 1, 1, 0])
    s = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    groups = np.array([0, 0, 0, 1, 1, 1])
    # input order: list 0 ranks 1, 0, 0; list 1 ranks 1, 1, 0
    assert metrics.precision_at_k(y, s, 1, groups=groups, ties="order") == 1.0
    # highest index first: list 0 ranks 0, 0, 1; list 1 ranks 0, 1, 1
    assert metrics.precision_at_k(y, s, 1, groups=groups, ties="order",
                                  tie_key=-np.arange(6)) == 0.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: metrics.precision_at_k([1, 0], [1, 1], 1, ties="half"), ValueError,
     "ties must be one of"),
    (lambda: metrics.dcg_at_k([1, 0], [1, 1], 1, ties="threshold"), ValueError,
     "'threshold' is average precision's alone"),
    (lambda: metrics.average_precision([1, 0], [1, 1], tie_key=[0, 1]), ValueError,
     "tie_key orders tied items with ties='order' only"),
    (lambda: metrics.average_precision([1, 0], [1, 1], ties="order", tie_key=[0]),
     ValueError, "tie_key must hold one value per item"),
    (lambda: metrics.average_precision([1, 0], [1, 1], ties="order", tie_key=["a", "b"]),
     TypeError, "tie_key must hold finite numbers"),
    (lambda: metrics.dcg_at_k([1, 0], [1, 0], 3), ValueError, "k must satisfy 1 <= k <= 2"),
    (lambda: metrics.ndcg_at_k([1, 0], [1, 0], 1.5), TypeError, "k must be an integer"),
])
def test_bad_tie_options_name_themselves(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_kit_asserts_a_libraries_tie_policy_per_list():
    from cvxtop.testing import assert_metric_matches

    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    s = np.array([2.0, 2.0, 1.0, 3.0, 3.0, 1.0, 0.5, 0.5])
    groups = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert_metric_matches(average_precision_score, "average_precision", y, s,
                          ties="threshold")
    assert_metric_matches(average_precision_score, "average_precision", y, s,
                          groups=groups, ties="threshold")
    with pytest.raises(AssertionError, match=r"differs from its definition in list 0 .* "
                                             r"Ties by the policy 'optimistic'"):
        assert_metric_matches(average_precision_score, "average_precision", y, s,
                              groups=groups, ties="optimistic")
    with pytest.raises(AssertionError, match="ties irrelevant first"):
        assert_metric_matches(average_precision_score, "average_precision", [1, 1, 0],
                              [1.0, 1.0, 1.0])

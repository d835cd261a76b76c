"""SVMperf's prec@k loss (Joachims 2005): the closed form against SVMperf's own search, the
zero floor, and the mapping of SVMperf's ``-c`` onto cvxtop's ``C``. (Agreement with the
enumeration in ``cvxtop.reference`` is checked by the conformance kit for every registered
surrogate.)"""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop import surrogates
from cvxtop.surrogates.prec_svmperf import svmperf_c


def svmperf_scan(y: np.ndarray, s: np.ndarray, k: int, label_scale: float = 1.0) -> float:
    """SVMperf's search for the most violated labeling (margin rescaling, ``-l 4``), written
    as its C code does it: every pair (a relevant items on top, d irrelevant ones at the
    bottom predicted negative), labels ``±label_scale``, scores in ±1 coding; the slack is
    ``max(0, best)``."""
    sp = np.sort(s[y == 1])[::-1]
    sn = np.sort(s[y == 0])
    n_pos, n_neg = len(sp), len(sn)
    sump = np.concatenate(([0.0], np.cumsum(sp)))
    sumn = np.concatenate(([0.0], np.cumsum(sn)))
    best = 0.0
    for a in range(n_pos + 1):
        for d in range(n_neg + 1):
            predicted_neg = n_neg - d
            if a + predicted_neg < k:
                continue
            loss = 100.0 * (1.0 - a / (a + predicted_neg)) if a + predicted_neg else 0.0
            if loss <= 0:
                continue
            # Σ ŷ_i |y_i| s_i minus the same for y, in ±1 coding
            value = loss + label_scale * (sump[a] - (sump[n_pos] - sump[a]) - sumn[d]
                                          + (sumn[n_neg] - sumn[d])
                                          - (sump[n_pos] - sumn[n_neg]))
            best = max(best, value)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_closed_form_matches_svmperf_scan(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(int)
    y[0], y[-1] = 1, 0
    s = rng.integers(-3, 4, n) * 0.5 if seed % 3 == 0 else rng.standard_normal(n) * 3
    k = int(rng.integers(1, y.sum() + 1))
    value = surrogates.get("prec@k-svmperf", k).value(y, s)
    # SVMperf's slack with unit labels, ±1 coding, is (100/k)·L at scores 50·s/k
    assert value == pytest.approx(svmperf_scan(y, 50 * s / k, k) * k / 100, abs=1e-9)


def test_zero_floor_where_struct_is_negative():
    # k < n₊ and the relevant items far above: eq. (3) is negative, SVMperf's loss is 0
    y = np.array([1, 1, 1, 0, 0])
    s = np.array([5.0, 4.0, 3.0, -5.0, -6.0])
    assert surrogates.get("prec@k-struct", 1).value(y, s) < -1
    value, grad = surrogates.get("prec@k-svmperf", 1).value_and_subgradient(y, s)
    assert value == 0.0 and not grad.any()
    # struct falls without bound as the margin grows; the svmperf loss stays at 0
    assert surrogates.get("prec@k-struct", 1).value(y, 10 * s) < 10 * -1
    assert surrogates.get("prec@k-svmperf", 1).value(y, 10 * s) == 0.0


def test_weights_wrong_items_by_k_over_m():
    # all scores zero: a labeling of irrelevant items only, loss k
    y = np.array([1, 1, 0, 0, 0, 0])
    assert surrogates.get("prec@k-svmperf", 2).value(y, np.zeros(6)) == pytest.approx(2)
    # predicting all three items (m = 3 > k = 2) gives 2·1/3; eq. (3) only sees m = 2
    y, s = np.array([1, 1, 0]), np.array([3.0, 3.0, 0.0])
    assert surrogates.get("prec@k-svmperf", 2).value(y, s) == pytest.approx(2 / 3)
    assert surrogates.get("prec@k-struct", 2).value(y, s) == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(10))
def test_c_mapping_gives_svmperf_objective(seed):
    """SVMperf's objective ½‖v‖² + C_perf·ξ(v), labels ±50/n, equals (n/k)² times cvxtop's
    ½‖w‖² + C·L(Xw) at v = (n/k)·w with C = 100·k·C_perf/n²."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(8, 40)), 3
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = 1
    y[-1] = 0
    p, c_perf = rng.uniform(0.2, 1.0), rng.uniform(0.1, 100)
    k = max(1, int(np.floor(p * y.sum())))
    w = rng.standard_normal(d)
    C = svmperf_c(c_perf, k, n)
    ours = 0.5 * w @ w + C * surrogates.get("prec@k-svmperf", k).value(y, X @ w)
    v = (n / k) * w
    theirs = 0.5 * v @ v + c_perf * svmperf_scan(y, X @ v, k, label_scale=50.0 / n)
    assert theirs == pytest.approx((n / k) ** 2 * ours, rel=1e-10)


def _negative_count_cases(seed: int):
    """A list's sorted irrelevant scores with ties (half-integers) or without, and every
    ``a`` with its lower end ``low`` = max(1, k − a), as the surrogate passes them."""
    rng = np.random.default_rng(seed)
    n_pos, n_neg = int(rng.integers(1, 60)), int(rng.integers(1, 80))
    k = int(rng.integers(1, n_pos + 1))
    s = rng.standard_normal(n_neg) * rng.choice([0.1, 1.0, 5.0]) + rng.choice([-1.0, 0.0, 1.0])
    if seed % 3 == 0:
        s = np.round(2 * s) / 2
    a = np.arange(n_pos + 1)
    low = np.maximum(1, k - a)
    return a[low <= n_neg], low[low <= n_neg], k, -np.sort(-s)


@pytest.mark.parametrize("seed", range(300))
def test_negative_counts_by_intervals_match_the_bisection(seed):
    """The best number of irrelevant items for every a, counted from the intervals where the
    increment is positive, is the bisection's answer (ties and zero scores included)."""
    from cvxtop.surrogates.prec_svmperf import _best_negative_counts, _bisect_negative_counts

    a, low, k, s = _negative_count_cases(seed)
    assert np.array_equal(_best_negative_counts(a, low, k, s),
                          _bisect_negative_counts(a, low, k, s))


@pytest.mark.parametrize("seed", range(40))
def test_counts_off_by_rounding_are_repaired_by_the_check(seed):
    """Counts that the rounded roots could get wrong (here shifted on purpose) fail the check
    on the increments and are replaced by the bisection's."""
    from cvxtop.surrogates.prec_svmperf import _bisect_negative_counts, _checked_counts

    a, low, k, s = _negative_count_cases(seed)
    exact = _bisect_negative_counts(a, low, k, s)
    shift = np.random.default_rng(seed).integers(-3, 4, len(a))
    shifted = np.clip(exact + shift, low, len(s))
    assert np.array_equal(_checked_counts(shifted, a, low, k, s), exact)


@pytest.mark.parametrize("seed", range(6))
def test_intercept_read_off_the_labeling_is_its_piece(seed):
    """``k·b/(a + b)`` from the subgradient's counts plus ``g·s`` is the loss, on lists with
    ties and at every k; at scores of 1e12 it is that fraction to the last digit, where
    ``L(s) − g·s`` is the difference of two sums near 3e12."""
    rng = np.random.default_rng(seed)
    for trial in range(40):
        n = int(rng.integers(3, 12))
        y = (rng.random(n) < 0.4).astype(np.int64)
        y[:2] = [1, 0]
        s = rng.integers(-2, 3, n) / 2.0 if trial % 2 else rng.standard_normal(n)
        k = int(rng.integers(1, y.sum() + 1))
        b = surrogates.get("prec@k-svmperf", k).bind(y)
        value, g = b.value_and_subgradient(s)
        intercept = b.surrogate.intercept_of(g, y == 0, b.k)
        assert intercept == pytest.approx(value - float(g @ s), abs=1e-12)
    y = np.array([1, 1, 0, 0, 0, 0])
    b = surrogates.get("prec@k-svmperf", 1).bind(y)
    s = 1e12 * np.array([1.0, -0.5, 0.9, 0.3, -0.2, 1.1]) + np.array([0.3, 0.1, 0.7, 0.2, 0.9, 0.4])
    value, g = b.value_and_subgradient(s)
    a_pred, b_pred = int((g[y == 1] == 0).sum()), int(g[y == 0].sum())
    exact = b.k * b_pred / (a_pred + b_pred)
    assert b.surrogate.intercept_of(g, y == 0, b.k) == exact


def test_no_intercept_for_a_vector_that_is_no_labeling():
    """Fractions, wrong signs, a labeling without irrelevant items that leaves relevant
    ones out, and fewer than k predicted items are not pieces of the loss: no intercept."""
    sur = surrogates.get("prec@k-svmperf", 2)
    neg = np.array([False, False, True, True, True])
    assert sur.intercept_of(np.array([0.0, -1.0, 1.0, 0.0, 0.0]), neg, 2) == 1.0
    assert sur.intercept_of(np.zeros(5), neg, 2) == 0.0
    for g in ([0.0, -0.5, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0, 0.0],
              [0.0, 0.0, -1.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0, 0.0],
              [-1.0, -1.0, 1.0, 0.0, 0.0]):
        assert sur.intercept_of(np.array(g), neg, 2) is None


@pytest.mark.parametrize("n_groups", [3, 7])
def test_grouped_intercept_is_the_mean_of_the_lists(n_groups):
    """With groups the intercept is the mean of each list's ``k_p·b_p/(a_p + b_p)``, read off
    the mean's subgradient (whose shares are the lists' labelings over the number of
    lists, not exact in binary for 3 or 7 lists), and agrees with ``L(s) − g·s``."""
    from cvxtop.solvers.objective import RankingObjective

    rng = np.random.default_rng(n_groups)
    n = 12 * n_groups
    groups = np.repeat(np.arange(n_groups), 12)
    y = (rng.random(n) < 0.3).astype(np.int64)
    y[::12], y[1::12] = 1, 0
    Z = rng.standard_normal((n, 3))
    objective = RankingObjective(Z, y, surrogates.get("prec@k-svmperf", 0.5), 1.0, groups)
    for _ in range(20):
        s = rng.standard_normal(n)
        loss, g = objective.loss_and_score_gradient(s)
        intercept = objective.intercept_of(g)
        assert intercept == pytest.approx(loss - float(g @ s), abs=1e-12)
    assert objective.intercept_of(np.full(n, 0.5 / n_groups)) is None

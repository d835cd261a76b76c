"""cvxtop.testing as another project uses it: a small top-k library (precision@k, the
prec@k-avg surrogate of Kar et al. 2015 eq. (7) with a subgradient, the prec@κ cut-off, a
subgradient-descent trainer) checked by a ten-line suite. The suite passes on the correct
library and catches each of four planted bugs: optimistic ties in precision@k, a sign
flip in one term of the subgradient, κ·n₊ rounded down, and κ·n₊ taken in floating point
(0.55 of 100 is 56 then)."""

from __future__ import annotations

import math
import subprocess
from fractions import Fraction
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings

from cvxtop.testing import (DECIMAL_TRAPS, assert_cutoff_matches, assert_metric_matches,
                            assert_near_optimum, assert_surrogate_matches, cutoff_cases,
                            grouped_lists, ranked_lists, ranking_problems,
                            score_matrices)


# ---- the other project's library ---------------------------------------------------------------
def _sum_largest(v, m):
    return float(np.sort(v)[::-1][:m].sum()) if m > 0 else 0.0


def _top(v, m):
    """Indicator of m largest entries of v."""
    out = np.zeros(len(v))
    out[np.argsort(-v, kind="stable")[:m]] = 1.0
    return out


def make_library(optimistic_ties=False, flipped_term=False, floor_kappa=False,
                 binary_kappa=False):
    def cutoff(k, n_pos):
        if isinstance(k, float):
            # the decimal κ was written as, exactly; binary_kappa: the float product
            product = k * n_pos if binary_kappa else Fraction(repr(k)) * n_pos
            return max(1, math.floor(product) if floor_kappa else math.ceil(product))
        return k

    def precision_at_k(y, s, k):
        y, s = np.asarray(y), np.asarray(s, dtype=float)
        order = np.lexsort((-y if optimistic_ties else y, -s))
        return float(y[order[:k]].mean())

    def _pieces(y, s, k):
        y, s = np.asarray(y), np.asarray(s, dtype=float)
        k = cutoff(k, int(y.sum()))
        pos, neg = s[y == 1], s[y == 0]
        for kp in range(k + 1):
            if k - kp <= len(neg):
                d = 0.0 if kp == len(pos) else (k - kp) / (len(pos) - kp)
                value = _sum_largest(neg + 1, k - kp) + d * (_sum_largest(pos, kp) - pos.sum())
                yield value, kp, d, k, y, pos, neg

    def prec_avg(y, s, k):
        return max(piece[0] for piece in _pieces(y, s, k))

    def prec_avg_subgradient(y, s, k):
        _, kp, d, k, y, pos, neg = max(_pieces(y, s, k), key=lambda piece: piece[0])
        g = np.zeros(len(y))
        g[y == 0] = _top(neg, k - kp)
        g[y == 1] = d * (_top(pos, kp) - 1.0) * (-1.0 if flipped_term else 1.0)
        return g

    def train(X, y, k, C, steps=3000):
        w = np.zeros(X.shape[1])
        best, best_value = w, np.inf
        for t in range(1, steps + 1):
            value = 0.5 * w @ w + C * prec_avg(y, X @ w, k)
            if value < best_value:
                best, best_value = w.copy(), value
            w = w - (w + C * X.T @ prec_avg_subgradient(y, X @ w, k)) / t
        return best

    return SimpleNamespace(cutoff=cutoff, precision_at_k=precision_at_k, prec_avg=prec_avg,
                           prec_avg_subgradient=prec_avg_subgradient, train=train)


# ---- the other project's test suite: ten lines with cvxtop.testing ----------------------------
def suite(lib):
    @settings(max_examples=200, derandomize=True, deadline=None)
    @given(ranked_lists("metric"))
    def test_precision(case):
        assert_metric_matches(lib.precision_at_k, "precision_at_k", case.y, case.s, case.k)

    @settings(max_examples=200, derandomize=True, deadline=None)
    @given(ranked_lists("prec"))
    def test_surrogate(case):
        assert_surrogate_matches(lib.prec_avg, "prec@k-avg", case.y, case.s, case.k,
                                 subgradient=lib.prec_avg_subgradient)

    @settings(max_examples=200, derandomize=True, deadline=None)
    @given(cutoff_cases())
    def test_cutoff(case):
        assert_cutoff_matches(lib.cutoff, case.k, case.n_pos)

    return [test_precision, test_surrogate, test_cutoff]


def test_the_suite_passes_on_the_correct_library():
    for test in suite(make_library()):
        test()


@pytest.mark.parametrize("bug, caught_by, message", [
    ({"optimistic_ties": True}, "test_precision", "ties irrelevant first"),
    ({"flipped_term": True}, "test_surrogate", "is not a subgradient of prec@k-avg"),
    ({"floor_kappa": True}, "test_cutoff", "the cut-off is its ceiling"),
    ({"binary_kappa": True}, "test_cutoff", "but the rule takes the decimal κ was written as"),
])
def test_the_suite_catches_each_planted_bug(bug, caught_by, message):
    tests = {t.__name__: t for t in suite(make_library(**bug))}
    with pytest.raises(AssertionError, match=message):
        tests[caught_by]()


def test_near_optimum_certifies_a_trainer_and_says_by_how_much_it_misses():
    lib = make_library()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] + 0.5 * rng.standard_normal(40) > 0.5).astype(int)
    w = lib.train(X, y, 3, 1.0)
    excess = assert_near_optimum(w, X, y, "prec@k-avg", 3, 1.0, rtol=0.05)
    assert 0.0 <= excess <= 0.05
    with pytest.raises(AssertionError, match=r"above the certified lower bound"):
        assert_near_optimum(np.zeros(3), X, y, "prec@k-avg", 3, 1.0, rtol=1e-3)


# ---- the strategies themselves -----------------------------------------------------------------
@settings(max_examples=300, derandomize=True, deadline=None)
@given(ranked_lists("prec"))
def test_prec_lists_hold_valid_cutoffs_and_hard_cases(case):
    assert 1 <= case.cutoff <= case.n_pos and case.n_pos >= 1
    assert case.s.shape == case.y.shape and np.all(np.isfinite(case.s))


def test_strategies_favour_what_breaks_code():
    """Over the profile's examples: ties straddling the cut, fractional κ with κ·n₊ not an
    integer, a single relevant item, k at both bounds, magnitudes over 10^±50."""
    seen = set()

    @settings(max_examples=300, derandomize=True, deadline=None)
    @given(ranked_lists("prec"))
    def look(case):
        k = case.cutoff
        order = np.argsort(-case.s, kind="stable")
        if k < len(case.y) and case.s[order[k - 1]] == case.s[order[k]] \
                and len(set(case.y[case.s == case.s[order[k - 1]]])) == 2:
            seen.add("tie at the cut")
        if isinstance(case.k, float) and case.k * case.n_pos != int(case.k * case.n_pos):
            seen.add("fractional kappa")
        seen.add("one relevant") if case.n_pos == 1 else None
        seen.add("k = 1") if k == 1 else None
        seen.add("k = n_pos") if k == case.n_pos > 1 else None
        if np.max(np.abs(case.s)) > 1e50:
            seen.add("huge magnitudes")
    look()
    assert seen == {"tie at the cut", "fractional kappa", "one relevant", "k = 1",
                    "k = n_pos", "huge magnitudes"}


@settings(max_examples=100, derandomize=True, deadline=None)
@given(grouped_lists("metric"))
def test_grouped_lists_include_single_item_lists(case):
    from cvxtop import metrics

    value = metrics.pap_at_k(case.y, case.s, 1, groups=case.groups, skip_degenerate=True) \
        if any(len(set(case.y[case.groups == g])) == 2 and
               np.sum(case.y[case.groups == g] == 0) >= 1 for g in np.unique(case.groups)) \
        else None
    assert value is None or 0.0 <= value <= 1.0


@settings(max_examples=20, derandomize=True, deadline=None)
@given(ranking_problems("pap@k-avg", max_items=12))
def test_ranking_problems_are_valid_training_problems(problem):
    from cvxtop import TopRanker

    model = TopRanker(problem.surrogate, k=problem.k, C=problem.C).fit(problem.X, problem.y)
    assert model.gap_ <= 1e-6


def test_importing_the_kit_loads_neither_cvxpy_nor_scikit_learn():
    code = ("import sys, cvxtop.testing, cvxtop.metrics, cvxtop.reference; "
            "from cvxtop.testing import assert_metric_matches, assert_cutoff_matches; "
            "print(sorted(m for m in ('cvxpy', 'sklearn', 'hypothesis') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


@settings(max_examples=300, derandomize=True, deadline=None)
@given(cutoff_cases())
def test_cutoff_cases_are_valid_and_reach_the_decimal_traps(case):
    from cvxtop.cutoff import prec_cutoff

    assert 1 <= prec_cutoff(case.k, case.n_pos) <= case.n_pos


def test_the_decimal_traps_are_where_floating_point_rounds_the_other_way():
    from cvxtop.cutoff import prec_cutoff

    assert (0.55, 100) in DECIMAL_TRAPS and min(n for _, n in DECIMAL_TRAPS) == 25
    for kappa, n_pos in DECIMAL_TRAPS:
        assert math.ceil(kappa * n_pos) == prec_cutoff(kappa, n_pos) + 1


# ---- strategies shaped as the library under test takes its scores ------------------------
from hypothesis import given, settings  # noqa: E402

from cvxtop.testing import ranked_lists, score_matrices  # noqa: E402


@settings(max_examples=60, derandomize=True, deadline=None)
@given(case=ranked_lists("metric", dtype=np.float32, sign="positive", tie_rate=0.3,
                         max_items=16))
def test_lists_come_in_the_dtype_and_sign_asked_for(case):
    assert case.s.dtype == np.float32 and np.all(case.s > 0)
    assert 0 < case.n_pos < len(case.y) <= 16


@settings(max_examples=200, derandomize=True, deadline=None)
@given(case=ranked_lists("metric", dtype=np.float32))
def test_float32_lists_hold_finite_scores_even_from_huge_magnitudes(case):
    assert case.s.dtype == np.float32 and np.all(np.isfinite(case.s))


@settings(max_examples=40, derandomize=True, deadline=None)
@given(case=ranked_lists("metric", one_relevant=True, sign="nonnegative"))
def test_one_relevant_item_when_asked(case):
    assert case.n_pos == 1 and np.all(case.s >= 0)


def test_a_tie_rate_makes_ties_and_none_keeps_distinct_draws_possible():
    from hypothesis import find

    tied = find(ranked_lists("metric", tie_rate=1.0, max_items=8),
                lambda c: len(c.y) >= 4, settings=settings(database=None))
    assert len(np.unique(tied.s)) < len(tied.s)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(matrices=score_matrices(max_queries=3, max_items=6, dtype=np.float32))
def test_score_matrices_hold_equal_length_lists_with_both_classes(matrices):
    Y, S = matrices
    assert Y.shape == S.shape and S.dtype == np.float32 and Y.shape[1] >= 2
    assert np.all((Y.sum(axis=1) > 0) & (Y.sum(axis=1) < Y.shape[1]))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(sign="negative"), ValueError, "sign must be"),
    (dict(tie_rate=2.0), ValueError, "tie_rate must be None or in"),
    (dict(dtype=np.int64), TypeError, "dtype must be a floating dtype"),
    (dict(score_range=(1.0, 0.0)), ValueError, "score_range must be a pair"),
    (dict(score_range=(0.0, float("inf"))), ValueError, "score_range must be a pair"),
    (dict(score_range=[0, 1]), ValueError, "score_range must be a pair"),
    (dict(score_range=(0, 1), sign="positive"), ValueError, "give sign or score_range"),
])
def test_strategy_options_are_checked(kwargs, error, message):
    from hypothesis import find

    for strategy in (ranked_lists("metric", **kwargs), score_matrices(**kwargs)):
        with pytest.raises(error, match=message):
            find(strategy, lambda c: True)


@settings(max_examples=100, derandomize=True, deadline=None)
@given(case=ranked_lists("metric", score_range=(0.0, 1.0), dtype=np.float32))
def test_a_score_range_keeps_scores_inside_it_with_ties_kept(case):
    assert np.all((case.s >= 0) & (case.s <= 1)) and case.s.dtype == np.float32


def test_tolerances_follow_the_dtype_and_the_suite():
    from cvxtop import metrics
    from cvxtop.testing import assert_metric_matches, set_tolerances

    y = np.array([1, 0, 1, 0, 1, 1])
    s32 = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], dtype=np.float32)

    def float32_ndcg(y_true, y_score, tau):  # a correct result computed in float32
        return float(np.float32(metrics.ndcg_at_tau(y_true, y_score, tau)) * np.float32(1 + 3e-7))

    assert_metric_matches(float32_ndcg, "ndcg_at_tau", y, s32, 0.5)  # rtol from float32
    with pytest.raises(AssertionError):
        assert_metric_matches(float32_ndcg, "ndcg_at_tau", y, s32.astype(np.float64), 0.5)
    try:
        set_tolerances(rtol=1e-12)
        with pytest.raises(AssertionError):
            assert_metric_matches(float32_ndcg, "ndcg_at_tau", y, s32, 0.5)
        assert_metric_matches(float32_ndcg, "ndcg_at_tau", y, s32, 0.5, rtol=1e-5)
    finally:
        set_tolerances()
    with pytest.raises(ValueError, match="rtol must be a finite number"):
        set_tolerances(rtol=float("nan"))


def test_fractional_kappa_draws_reach_the_decimal_traps_and_catch_a_float_product():
    """From 25 relevant items up, a quarter of the prec draws are the decimal traps, so a
    library that takes ceil(κ·n₊) in floating point fails the metric check too."""
    traps = []

    @settings(max_examples=200, derandomize=True, deadline=None)
    @given(ranked_lists("prec", max_items=120))
    def look(case):
        if (case.k, case.n_pos) in DECIMAL_TRAPS:
            traps.append(case.k)
    look()
    assert len(traps) >= 20

    def precision_with(lib):
        return lambda y, s, k: lib.precision_at_k(y, s, lib.cutoff(k, int(np.sum(y))))

    def check(precision):
        @settings(max_examples=200, derandomize=True, deadline=None)
        @given(ranked_lists("prec", max_items=120))
        def test(case):
            assert_metric_matches(precision, "precision_at_k", case.y, case.s, case.k)
        test()

    check(precision_with(make_library()))
    with pytest.raises(AssertionError, match="precision_at_k differs"):
        check(precision_with(make_library(binary_kappa=True)))


@pytest.mark.parametrize("name, param, y, s, cut", [
    ("pap_at_k", 2, [0, 1, 0, 1, 0], [5, 4, 3, 2, 1], "5- 4+ 3- | 2+ 1-"),
    ("partial_auc", 1, [0, 1, 0, 1], [4, 3, 2, 1], "4- | 3+ 2- 1+"),
    ("precision_at_tau", 0.5, [1, 0, 0, 1], [4, 3, 2, 1], "4+ 3- | 2- 1+"),
    ("dcg_at_k", 3, [1, 0, 0, 1], [4, 3, 2, 1], "4+ 3- 2- | 1+"),
])
def test_failure_messages_draw_the_cut_where_the_metric_makes_it(name, param, y, s, cut):
    """pAp@k and partial AUC count their k among the irrelevant items; τ metrics cut after
    ceil(τ·n) items."""
    def wrong(y_true, y_score, p):
        return -1.0

    with pytest.raises(AssertionError) as failure:
        assert_metric_matches(wrong, name, np.array(y), np.array(s, dtype=float), param)
    assert cut in str(failure.value)

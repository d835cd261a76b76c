"""Property tests (hypothesis) of the prec@k surrogates: convexity along lines, behaviour
under a common shift of the scores, upper bounds and the hierarchy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from cvxtop import metrics, surrogates
from cvxtop.surrogates import PrecSurrogate
from conftest import registered

ALL = registered(PrecSurrogate)
CONVEX = registered(PrecSurrogate, convex=True)
SHIFT_INVARIANT = ["prec@k-ramp", "prec@k-max", "prec@k-avg"]
SCORES = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
GRID_SCORES = st.integers(-4, 4).map(lambda v: v / 2.0)


@st.composite
def labeled_scores(draw, elements=st.one_of(SCORES, GRID_SCORES)):
    """(y, s, k) with 1..7 relevant and 0..7 irrelevant items, k in 1..n₊."""
    n_pos = draw(st.integers(1, 7))
    n_neg = draw(st.integers(0, 7))
    y = np.array(draw(st.permutations([1] * n_pos + [0] * n_neg)), dtype=np.int64)
    s = np.array(draw(st.lists(elements, min_size=len(y), max_size=len(y))))
    k = draw(st.integers(1, n_pos))
    return y, s, k


def direction(draw_list, n):
    return np.array(draw_list(st.lists(SCORES, min_size=n, max_size=n)))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(labeled_scores(), st.sampled_from(CONVEX), st.data())
def test_convex_surrogates_are_midpoint_convex_along_lines(case, name, data):
    y, s, k = case
    d = direction(data.draw, len(y))
    a, b = data.draw(SCORES), data.draw(SCORES)
    f = surrogates.get(name, k)
    left, right = f.value(y, s + a * d), f.value(y, s + b * d)
    middle = f.value(y, s + 0.5 * (a + b) * d)
    assert middle <= 0.5 * (left + right) + 1e-9 * (1 + abs(left) + abs(right))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(labeled_scores(), st.sampled_from(SHIFT_INVARIANT), SCORES)
def test_upper_bounds_ignore_a_common_shift(case, name, c):
    y, s, k = case
    f = surrogates.get(name, k)
    assert abs(f.value(y, s + c) - f.value(y, s)) <= 1e-9 * (1 + abs(c)) * len(y)
    assert abs(f.subgradient(y, s + c).sum()) <= 1e-12  # a subgradient is orthogonal to 1


@settings(max_examples=300, deadline=None, derandomize=True)
@given(labeled_scores(), SCORES)
def test_struct_shifts_by_k_minus_npos_times_c(case, c):
    y, s, k = case
    f = surrogates.get("prec@k-struct", k)
    shift = (k - int(y.sum())) * c
    assert abs(f.value(y, s + c) - f.value(y, s) - shift) <= 1e-9 * (1 + abs(c)) * len(y)
    assert f.subgradient(y, s).sum() == k - int(y.sum())


@settings(max_examples=300, deadline=None, derandomize=True)
@given(labeled_scores())
def test_hierarchy_loss_ramp_avg_max(case):
    y, s, k = case
    loss = k * (1.0 - metrics.precision_at_k(y, s, k))
    ramp, avg, mx = (surrogates.get(f"prec@k-{n}", k).value(y, s) for n in ("ramp", "avg", "max"))
    tol = 1e-9 * (1 + np.abs(s).sum())
    assert loss <= ramp + tol and ramp <= avg + tol and avg <= mx + tol


@settings(max_examples=200, deadline=None, derandomize=True)
@given(labeled_scores(), st.floats(0.25, 4.0), st.sampled_from(ALL))
def test_scaling_the_scores(case, a, name):
    """Each surrogate is a max over labelings of (loss in [0, k]) + (linear in s), minus a
    linear term for struct and a positively homogeneous one for ramp; hence
    f(a·s) − a·f(s) lies in [(1 − a)·k, 0] for a >= 1 and in [0, (1 − a)·k] for a <= 1."""
    y, s, k = case
    f = surrogates.get(name, k)
    gap = f.value(y, a * s) - a * f.value(y, s)
    low, high = sorted([0.0, (1 - a) * k])
    tol = 1e-9 * (1 + a * np.abs(s).sum())
    assert low - tol <= gap <= high + tol

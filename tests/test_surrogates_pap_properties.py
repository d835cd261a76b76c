"""Property tests (hypothesis) of the pAp@k surrogates: the bounds and orderings that hold,
convexity along lines, shift invariance and the margin conditions of Hiranandani et al. 2020 §4."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from cvxtop import metrics, surrogates
from cvxtop.surrogates import PapSurrogate
from conftest import registered

NAMES = registered(PapSurrogate)
CONVEX = registered(PapSurrogate, convex=True)
PROPERTY = settings(max_examples=250, deadline=None, derandomize=True)
SCORE = st.one_of(st.integers(-4, 4).map(lambda v: v / 2), st.floats(-3, 3, width=32))


@st.composite
def pap_lists(draw, max_pos=7, max_neg=7):
    """(y, s, k): shuffled labels, scores with frequent ties, and a valid k."""
    n_pos = draw(st.integers(1, max_pos))
    n_neg = draw(st.integers(1, max_neg))
    y = np.array([1] * n_pos + [0] * n_neg)
    s = np.array(draw(st.lists(SCORE, min_size=n_pos + n_neg, max_size=n_pos + n_neg)))
    perm = np.array(draw(st.permutations(range(n_pos + n_neg))))
    return y[perm], s[perm], draw(st.integers(1, n_neg))


def values(y, s, k):
    return {name: surrogates.get(name, k).value(y, s) for name in NAMES}


@PROPERTY
@given(pap_lists())
def test_bounds_and_orderings_that_hold(data):
    y, s, k = data
    risk = 1.0 - metrics.pap_at_k(y, s, k)
    v = values(y, s, k)
    tol = 1e-9
    for name in ("pap@k-ts", "pap@k-max", "pauc-struct", "pap@k-ramp", "pap@k-ts-paper"):
        assert v[name] >= risk - tol, name
    # ramp <= pauc-struct <= max: the mean of the top-β, of all and of the bottom-β rows
    assert v["pap@k-ramp"] <= v["pauc-struct"] + tol <= v["pap@k-max"] + 2 * tol
    assert v["pap@k-avg"] <= v["pauc-struct"] + tol  # Jensen, hence also avg <= max
    assert v["pap@k-ts"] <= v["pap@k-ts-paper"] + tol
    assert v["pap@k-ramp"] <= v["pap@k-ts-paper"] + tol


@PROPERTY
@given(pap_lists(), st.lists(SCORE, min_size=14, max_size=14), st.sampled_from(CONVEX))
def test_convex_along_lines(data, other, name):
    y, s, k = data
    s2 = np.array(other[:len(s)])
    sur = surrogates.get(name, k)
    mid = sur.value(y, (s + s2) / 2)
    assert mid <= (sur.value(y, s) + sur.value(y, s2)) / 2 + 1e-9


@PROPERTY
@given(pap_lists(), st.integers(-50, 50))
def test_shift_invariant(data, shift):
    y, s, k = data
    before, after = values(y, s, k), values(y, s + shift, k)
    for name in NAMES:
        assert abs(after[name] - before[name]) < 1e-9, name


def realize_margins(y, s, k, top_gap, rest_gap):
    """Move the positives so that the top β clear the best negative by ``top_gap`` and the
    others by ``rest_gap`` (keeping their order)."""
    s = s.copy()
    pos = np.flatnonzero(y == 1)
    pos = pos[np.argsort(s[pos], kind="stable")]
    beta = min(len(pos), k)
    best_neg = s[y == 0].max()
    floor = np.r_[np.full(len(pos) - beta, rest_gap), np.full(beta, top_gap)]
    s[pos] = np.maximum(s[pos], best_neg + floor)
    return s


@PROPERTY
@given(pap_lists())
def test_surrogates_vanish_under_their_margin_conditions(data):
    """Hiranandani et al. 2020 Props. 1, 4 and 6 (and Prop. 3's second half)."""
    y, s, k = data
    tol = 1e-12
    strong = values(y, realize_margins(y, s, k, 1.0, 1.0), k)  # strong β-margin
    assert all(v <= tol for v in strong.values())
    moderate = values(y, realize_margins(y, s, k, 1.0, 0.0), k)  # moderate β-margin
    assert moderate["pap@k-ts"] <= tol and moderate["pap@k-ramp"] <= tol
    weak = values(y, realize_margins(y, s, k, 1.0, -10.0), k)  # weak β-margin
    assert weak["pap@k-ramp"] <= tol
    # β-margin (Def. 3): the mean of every β positives clears the best negative by 1
    pos = np.sort(s[y == 1])
    beta = min(len(pos), k)
    s_beta = s + (y == 1) * max(0.0, s[y == 0].max() + 1 - pos[:beta].mean())
    assert values(y, s_beta, k)["pap@k-avg"] <= tol

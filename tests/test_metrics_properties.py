"""Property tests of metric invariants (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from cvxtop import metrics


@st.composite
def scored_lists(draw, min_pos=1, min_neg=1, max_size=14):
    n = draw(st.integers(min_pos + min_neg, max_size))
    n_pos = draw(st.integers(min_pos, n - min_neg))
    y = np.array([1] * n_pos + [0] * (n - n_pos))
    s = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), dtype=float)
    perm = np.array(draw(st.permutations(range(n))))
    return y[perm], s[perm]


def all_metrics(y, s, k, tau):
    n_neg = int((y == 0).sum())
    kk = min(k, n_neg)
    return np.array([
        metrics.precision_at_k(y, s, min(k, len(y))),
        metrics.pap_at_k(y, s, kk),
        metrics.roc_auc(y, s),
        metrics.roc_auc(y, s, ties="half"),
        metrics.partial_auc(y, s, kk),
        metrics.precision_at_tau(y, s, tau),
        metrics.average_precision(y, s),
        metrics.dcg_at_tau(y, s, tau),
        metrics.ndcg_at_tau(y, s, tau),
        metrics.positives_at_top(y, s),
    ])


TRANSFORMS = [
    lambda s: 3.0 * s + 7.0,
    lambda s: s ** 3 + s,
    np.exp,
    np.arctan,
]


@settings(max_examples=300, deadline=None)
@given(scored_lists(), st.integers(1, 6), st.sampled_from([0.1, 0.3, 0.5]),
       st.sampled_from(range(len(TRANSFORMS))))
def test_strictly_increasing_transform_changes_nothing(data, k, tau, which):
    y, s = data
    t = TRANSFORMS[which](s)
    np.testing.assert_allclose(all_metrics(y, t, k, tau), all_metrics(y, s, k, tau), rtol=1e-12)


@settings(max_examples=300, deadline=None)
@given(scored_lists(), st.integers(1, 6), st.sampled_from([0.1, 0.3, 0.5]), st.randoms())
def test_permuting_items_changes_nothing(data, k, tau, rnd):
    y, s = data
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    np.testing.assert_allclose(all_metrics(y[perm], s[perm], k, tau), all_metrics(y, s, k, tau),
                               rtol=1e-12)


@settings(max_examples=300, deadline=None)
@given(scored_lists(min_neg=1), st.integers(1, 12))
def test_pap_reduces_to_partial_auc_when_few_positives(data, k):
    """Hiranandani et al. 2020 Section 3: with n₊ <= k, β = n₊ and pAp@k is pAUC(0, k/n₋]."""
    y, s = data
    n_pos, n_neg = int(y.sum()), int((y == 0).sum())
    k = min(max(k, n_pos), n_neg)
    if n_pos <= k:
        assert metrics.pap_at_k(y, s, k) == metrics.partial_auc(y, s, k)


@settings(max_examples=300, deadline=None)
@given(scored_lists(), st.integers(1, 12))
def test_pap_is_perfect_exactly_when_prec_at_k_is_with_many_positives(data, k):
    """Hiranandani et al. 2020 Section 3: with n₊ >= k, pAp@k behaves like prec@k at the top."""
    y, s = data
    n_pos, n_neg = int(y.sum()), int((y == 0).sum())
    k = min(k, n_pos, n_neg)
    perfect_pap = metrics.pap_at_k(y, s, k) == 1.0
    perfect_prec = metrics.precision_at_k(y, s, k) == 1.0
    assert perfect_pap == perfect_prec

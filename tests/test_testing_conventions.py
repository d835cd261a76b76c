"""Other libraries' conventions in the kit (cvxtop.testing.conventions): scikit-learn's
McClish-standardized partial AUC, equal to the library on drawn lists with ties, and its
relation to cvxtop's raw partial AUC, with the split tie block where they part."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from cvxtop.metrics import partial_auc
from cvxtop.testing import mcclish, ranked_lists, roc_auc_max_fpr


@settings(max_examples=300, derandomize=True, deadline=None)
@given(ranked_lists("metric", max_items=16, tie_rate=0.3), st.floats(0.01, 1.0))
def test_it_is_scikit_learns_roc_auc_with_max_fpr(case, max_fpr):
    assert roc_auc_max_fpr(case.y, case.s, max_fpr) == pytest.approx(
        roc_auc_score(case.y, case.s, max_fpr=max_fpr), rel=1e-12, abs=1e-12)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(ranked_lists("metric", max_items=16, tie_rate=0.3), st.data())
def test_it_is_the_standardized_raw_partial_auc_where_no_tie_block_is_split(case, data):
    y, s = case.y, case.s
    negatives = np.sort(s[y == 0])[::-1]
    n_neg = len(negatives)
    # the cuts that split no tie block: after the last irrelevant item of a block
    whole = [k for k in range(1, n_neg + 1) if k == n_neg or negatives[k - 1] != negatives[k]]
    k = data.draw(st.sampled_from(whole))
    area = k / n_neg * partial_auc(y, s, k, ties="half")
    assert roc_auc_max_fpr(y, s, k / n_neg) == pytest.approx(mcclish(area, k / n_neg),
                                                             rel=1e-12, abs=1e-12)


def test_a_split_tie_block_is_interpolated_not_halved():
    """One block of one relevant and two irrelevant items, cut after the first irrelevant:
    the curve's straight segment credits 1·1²/(2·2) of a pair, ties="half" one half."""
    y, s = np.array([1, 0, 0]), np.ones(3)
    area_interpolated = 0.25 / 2  # pairs over n₊·n₋
    assert roc_auc_max_fpr(y, s, 0.5) == pytest.approx(mcclish(area_interpolated, 0.5))
    assert roc_auc_max_fpr(y, s, 0.5) == pytest.approx(roc_auc_score(y, s, max_fpr=0.5))
    assert roc_auc_max_fpr(y, s, 0.5) != pytest.approx(
        mcclish(0.5 * partial_auc(y, s, 1, ties="half"), 0.5))


def test_max_fpr_one_is_the_whole_auc_and_bad_input_is_refused():
    y, s = np.array([1, 0, 1, 0]), np.array([0.9, 0.8, 0.2, 0.1])
    assert roc_auc_max_fpr(y, s, 1.0) == pytest.approx(roc_auc_score(y, s))
    for bad, error in [(0.0, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                       (True, TypeError), ("0.5", TypeError)]:
        with pytest.raises(error, match="max_fpr"):
            roc_auc_max_fpr(y, s, bad)
    with pytest.raises(ValueError, match="both relevant and irrelevant"):
        roc_auc_max_fpr(np.ones(3, dtype=int), np.arange(3.0), 0.5)
    with pytest.raises(ValueError, match="max_fpr"):
        mcclish(0.1, 0.0)

"""Every bad input of the public API gets a clear error naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop import metrics, reference
from cvxtop import _validation as v
from cvxtop import cutoff

Y = np.array([1, 0, 1, 0, 0])
S = np.array([0.3, 0.1, 0.2, 0.5, -1.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_scores(bad):
    s = S.copy()
    s[2] = bad
    with pytest.raises(ValueError, match="y_score contains NaN or infinite"):
        metrics.precision_at_k(Y, s, 2)


def test_nonfinite_labels():
    with pytest.raises(ValueError, match="y_true contains NaN"):
        metrics.roc_auc([1.0, np.nan, 0.0], [1, 2, 3])


def test_length_mismatch():
    with pytest.raises(ValueError, match="y_true has 5, y_score has 4"):
        metrics.pap_at_k(Y, S[:4], 1)


def test_empty_input():
    with pytest.raises(ValueError, match="y_true is empty"):
        metrics.precision_at_k([], [], 1)


def test_labels_with_other_values():
    with pytest.raises(ValueError, match=r"y_true must hold binary labels.*\[0, 1, 2\]"):
        metrics.roc_auc([0, 1, 2], [1.0, 2.0, 3.0])


def test_minus_one_plus_one_and_bool_labels_are_mapped():
    s = np.array([3.0, 2.0, 1.0, 0.0])
    a = metrics.average_precision([1, -1, 1, -1], s)
    b = metrics.average_precision([True, False, True, False], s)
    c = metrics.average_precision([1, 0, 1, 0], s)
    assert a == b == c


@pytest.mark.parametrize("labels", [[1, 1, 1], [0, 0, 0]])
def test_missing_class(labels):
    with pytest.raises(ValueError, match="y_true has no (ir)?relevant item"):
        metrics.roc_auc(labels, [1.0, 2.0, 3.0])


def test_missing_class_in_reference():
    with pytest.raises(ValueError, match="no relevant item"):
        reference.prec_avg([0, 0, 0], [1.0, 2.0, 3.0], 1)


@pytest.mark.parametrize("k", [0, -1, 6])
def test_k_out_of_range_for_precision(k):
    with pytest.raises(ValueError, match=r"k must satisfy 1 <= k <= 5"):
        metrics.precision_at_k(Y, S, k)


def test_k_out_of_range_for_pap_names_n_neg():
    with pytest.raises(ValueError, match=r"k <= 3 \(the number of irrelevant items"):
        metrics.pap_at_k(Y, S, 4)


def test_k_out_of_range_for_prec_surrogate_reference_names_n_pos():
    with pytest.raises(ValueError, match=r"k <= 2 \(the number of relevant items"):
        reference.prec_struct(Y, S, 3)


@pytest.mark.parametrize("k", ["2", None, True])
def test_k_wrong_type(k):
    with pytest.raises(TypeError, match="k must be an int or a float in"):
        metrics.precision_at_k(Y, S, k)


@pytest.mark.parametrize("k", [1.5, 0.0, np.nan])
def test_fractional_k_outside_unit_interval(k):
    with pytest.raises(ValueError, match=r"k must lie in \(0, 1\]"):
        metrics.precision_at_k(Y, S, k)


@pytest.mark.parametrize("tau", [0.0, 1.0, -0.1, 1.5, np.nan])
def test_tau_outside_open_unit_interval(tau):
    with pytest.raises(ValueError, match=r"tau must lie in \(0, 1\)"):
        metrics.top_quantile(S, tau)


def test_tau_wrong_type():
    with pytest.raises(TypeError, match="tau must be a real number"):
        metrics.precision_at_tau(Y, S, "0.1")


@pytest.mark.parametrize("C", [0, -1.0, np.inf, np.nan])
def test_C_not_positive(C):
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        v.check_positive(C, "C")


def test_string_scores_are_a_type_error():
    with pytest.raises(TypeError, match="y_score must contain numbers"):
        metrics.roc_auc([1, 0], ["a", "b"])
    with pytest.raises(TypeError, match="y_true must be an array-like"):
        metrics.roc_auc("10", [1.0, 2.0])


def test_two_dimensional_scores():
    with pytest.raises(ValueError, match="y_score must be 1-dimensional"):
        metrics.roc_auc([1, 0], [[1.0], [2.0]])


def test_gram_not_square():
    with pytest.raises(ValueError, match=r"K must be a square Gram matrix, got shape \(2, 3\)"):
        v.check_gram(np.ones((2, 3)), "K")


def test_gram_not_symmetric():
    K = np.array([[1.0, 0.5], [0.4, 1.0]])
    with pytest.raises(ValueError, match="K must be symmetric"):
        v.check_gram(K, "K")


def test_gram_with_nan():
    with pytest.raises(ValueError, match="K contains NaN"):
        v.check_gram(np.array([[1.0, np.nan], [np.nan, 1.0]]), "K")


def test_groups_wrong_length():
    with pytest.raises(ValueError, match="groups has 2 entries but there are 5 items"):
        metrics.pap_at_k(Y, S, 1, groups=[0, 1])


def test_average_option():
    with pytest.raises(ValueError, match="average must be"):
        metrics.pap_at_k(Y, S, 1, average="micro")


def test_prec_kappa_resolution():
    assert cutoff.prec_cutoff(0.25, 10) == 3
    assert cutoff.prec_cutoff(1.0, 7) == 7
    assert cutoff.prec_cutoff(0.3, 10) == 3  # exact: not 4
    assert cutoff.ceil_fraction(0.1, 100_000) == 10_000  # the decimal 0.1, not its binary value
    assert cutoff.ceil_fraction(1 / 3, 3) == 1
    assert cutoff.prec_cutoff(4, 10) == 4
    with pytest.raises(ValueError, match=r"k must lie in \(0, 1\]"):
        cutoff.prec_cutoff(1.5, 10)
    with pytest.raises(ValueError, match="k must satisfy 1 <= k <= 10"):
        cutoff.prec_cutoff(11, 10)

"""The synthetic data of Jain et al. 2015 Section 6."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cvxtop.predtron.simulation import (band_centres, gaussian_lists, grades_from_scores,
                                        sparse_weights, uniform_lists)


def grade_by_definition(score, m):
    """y = m − j iff ζ_{j+1} <= s <= ζ_j, ζ_1 = +∞, ζ_j = 1/j, ζ_{m+1} = −∞."""
    zeta = [math.inf] + [1.0 / j for j in range(2, m + 1)] + [-math.inf]
    return next(m - j for j in range(1, m + 1) if zeta[j] <= score <= zeta[j - 1])


def test_grades_follow_the_thresholds():
    rng = np.random.default_rng(50)
    for m in (2, 5, 20):
        scores = np.r_[rng.uniform(-0.2, 0.8, size=300), 1.0 / np.arange(2, m + 1) + 1e-12]
        expected = [grade_by_definition(s, m) for s in scores]
        np.testing.assert_array_equal(grades_from_scores(scores, m), expected)
        # each document's centre lies in its own band: grades m−1, ..., 0 down the list
        np.testing.assert_array_equal(grades_from_scores(band_centres(m), m),
                                      np.arange(m - 1, -1, -1))


def test_generators():
    rng = np.random.default_rng(51)
    X, Y, w = gaussian_lists(7, 5, 4, 0.01, rng)
    assert X.shape == (7, 5, 4) and Y.shape == (7, 5)
    assert np.linalg.norm(w) == pytest.approx(1.0)
    np.testing.assert_array_equal(Y, grades_from_scores(X @ w, 5))
    assert np.mean(Y == np.arange(4, -1, -1)) > 0.8  # small noise: mostly the band order
    w = sparse_weights(100, 7, rng)
    assert np.count_nonzero(w) == 7 and np.abs(w).sum() == pytest.approx(1.0)
    X, Y = uniform_lists(3, 6, w, 2.0, rng)
    assert X.shape == (3, 6, 100) and np.abs(X).max() <= 1.0
    np.testing.assert_array_equal(Y, grades_from_scores(2.0 * (X @ w), 6))


@pytest.mark.parametrize("call, message", [
    (lambda rng: gaussian_lists(0, 5, 4, 0.1, rng), "n must satisfy"),
    (lambda rng: gaussian_lists(3, 1, 4, 0.1, rng), "m must satisfy"),
    (lambda rng: gaussian_lists(3, 5, 4, 0.0, rng), "noise must be"),
    (lambda rng: gaussian_lists(3, 5, 4, 0.1, rng, w=np.ones(3)), "w must have 4 entries"),
    (lambda rng: gaussian_lists(3, 5, 4, 0.1, rng, w=np.zeros(4)), "w must be a non-zero"),
    (lambda rng: sparse_weights(10, 11, rng), "s must satisfy"),
    (lambda rng: uniform_lists(3, 5, np.ones(4), -1.0, rng), "scale must be"),
])
def test_bad_generator_input(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call(np.random.default_rng(0))

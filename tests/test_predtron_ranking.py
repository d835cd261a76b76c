"""Subset ranking (Jain et al. 2015 Section 4): Lemma 3, Lemma 4 and the constant of Corollary 5."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cvxtop.reference import predtron as brute
from cvxtop.predtron import SubsetRanking, ndcg_loss

F_CHOICES = {
    "1/i": lambda i: 1.0 / i,
    "-i^1.1": lambda i: -float(i) ** 1.1,
    "-i^2": lambda i: -float(i) ** 2,
}


def lemma4_condition(problem, t, y, gamma):
    """Lemma 4 as stated, for y sorted in decreasing order: t compatible with y and
    t_{i_j−1} >= t_{i_j} + γ Z/(f(i_j − 1) − f(i_j)) at every drop position i_j."""
    f = problem.f_values
    z = math.sqrt(float(np.sum(f**2)))
    same = y[1:] == y[:-1]
    compatible = np.all(t[1:][same] == t[:-1][same]) and np.all(t[1:][~same] < t[:-1][~same])
    if not compatible:
        return False
    drops = [i for i in range(2, len(y) + 1) if y[i - 1] < y[i - 2]]  # 1-based i_j
    return all(t[i - 2] >= t[i - 1] + gamma * z / (f[i - 2] - f[i - 1]) for i in drops)


@pytest.mark.parametrize("name", sorted(F_CHOICES))
def test_lemma4_margin_characterization(name):
    rng = np.random.default_rng(11)
    checked = {True: 0, False: 0}
    for _ in range(120):
        m = int(rng.integers(2, 6))
        problem = SubsetRanking(m, f=F_CHOICES[name])
        y = np.sort(rng.integers(0, 3, size=m))[::-1].astype(float)
        if y[0] == y[-1]:
            continue  # Lemma 4 assumes a non-constant y
        # compatible scores: constant on grades, decreasing with random gaps; or random ones
        levels = np.cumsum(rng.uniform(0.05, 2.0, size=3))[::-1]
        t = levels[(y.max() - y).astype(int)] if rng.random() < 0.8 else rng.standard_normal(m)
        exact = brute.margin(problem, t, y)
        assert problem.margin(t, y) == pytest.approx(exact, abs=1e-12)
        for gamma in rng.uniform(0, 2 * max(exact, 0.1), size=5):
            by_definition = exact >= gamma
            assert lemma4_condition(problem, t, y, gamma) == by_definition
            checked[by_definition] += 1
    assert min(checked.values()) > 50


def test_margin_does_not_depend_on_the_order_of_documents():
    rng = np.random.default_rng(12)
    problem = SubsetRanking(5)
    for _ in range(30):
        y = rng.integers(0, 4, size=5).astype(float)
        t = 0.7 * y + 0.1
        perm = rng.permutation(5)
        assert problem.margin(t[perm], y[perm]) == pytest.approx(problem.margin(t, y))
        assert problem.margin(t[perm], y[perm]) == pytest.approx(brute.margin(problem, t, y))


def test_psi_is_exact_beyond_brute_force_sizes():
    """Lemma 3 at m = 30: no sampled permutation and no swap of two documents in the
    maximizer beats the assignment's value."""
    rng = np.random.default_rng(13)
    m = 30
    problem = SubsetRanking(m)
    for _ in range(5):
        t = rng.standard_normal(m) * 0.3
        y = rng.integers(0, 4, size=m).astype(float)
        value, sigma = problem.psi(t, y)
        rep_y = problem.rep(problem.correct_prediction(y))

        def objective(positions):
            return ndcg_loss(positions, y) - (rep_y - problem.rep(positions)) @ t

        assert objective(sigma) == pytest.approx(value, abs=1e-12)
        for _ in range(300):
            assert objective(rng.permutation(m) + 1) <= value + 1e-12
        for i, j in itertools.combinations(range(m), 2):
            swapped = sigma.copy()
            swapped[[i, j]] = swapped[[j, i]]
            assert objective(swapped) <= value + 1e-12


def test_ndcg_loss_is_zero_exactly_on_sorting_rankings():
    rng = np.random.default_rng(14)
    for m in (2, 7, 20, 64):
        problem = SubsetRanking(m)
        for _ in range(50):
            y = rng.integers(0, m, size=m).astype(float)
            assert problem.loss(problem.correct_prediction(y), y) == 0.0
            assert problem.worst_loss(2.0 * y, y) == 0.0  # t ties exactly where y ties
    assert ndcg_loss(np.array([2, 1]), np.zeros(2)) == 0.0


def test_minimum_loss_matches_the_constant_of_corollary5():
    """Corollary 5's constant is Theorem 1's 4 C_L²/c_L with C_L = 1, which needs
    c_L >= 1/(2^{Ymax+1} m² log2²(2m)) for integer grades in 0..Ymax: checked exhaustively."""
    for m in (2, 3, 4):
        problem = SubsetRanking(m)
        perms = brute.predictions(problem)
        for y_max in (1, 2, 3):
            smallest = min(
                loss for y in itertools.product(range(y_max + 1), repeat=m) if max(y) == y_max
                for loss in (problem.loss(p, np.array(y, float)) for p in perms) if loss > 0)
            assert smallest >= 1.0 / (2 ** (y_max + 1) * m**2 * math.log2(2 * m) ** 2)


def test_pred_sorts_scores_in_decreasing_order():
    problem = SubsetRanking(4, f=lambda i: 1.0 / i)
    np.testing.assert_array_equal(problem.pred([0.1, 3.0, -1.0, 0.5]), [3, 1, 4, 2])
    # ties keep document order; the pessimistic loss puts the less relevant first
    np.testing.assert_array_equal(problem.pred([1.0, 1.0, 0.0, 0.0]), [1, 2, 3, 4])
    y = np.array([2.0, 0.0, 1.0, 0.0])
    t = [1.0, 1.0, 0.0, 0.0]
    assert problem.worst_loss(t, y) == pytest.approx(ndcg_loss(np.array([2, 1, 4, 3]), y))
    assert problem.worst_loss(t, y) > problem.loss(problem.pred(t), y)

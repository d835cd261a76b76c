"""The quantile, the empirical AATP loss and the problem data (Boyd et al. 2012 Sections 2-3.1)."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop.reference.aatp import quantile as brute_quantile
from conftest import tiny_instance
from cvxtop import metrics
from cvxtop.aatp import aatp_loss, aatp_pairs_loss, weighted_top_quantile
from cvxtop.aatp.problem import items_problem, pairs_problem, primal_dual_values

TAUS = [0.05, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.95]


@pytest.mark.parametrize("ties", [False, True])
def test_top_quantile_is_the_largest_minimizer(rng, ties):
    for _ in range(150):
        _, s = tiny_instance(rng, 5, 5, ties=ties)
        tau = float(rng.choice(TAUS))
        assert metrics.top_quantile(s, tau) == brute_quantile(s, tau)


@pytest.mark.parametrize("ties", [False, True])
def test_weighted_quantile_is_the_quantile_of_the_repeated_list(rng, ties):
    for _ in range(150):
        _, s = tiny_instance(rng, 5, 5, ties=ties)
        c = rng.integers(1, 4, size=len(s))
        tau = float(rng.choice(TAUS))
        q = weighted_top_quantile(s, tau, c)
        assert q == metrics.top_quantile(np.repeat(s, c), tau)
        assert q == brute_quantile(s, tau, c)
    assert weighted_top_quantile(s, 0.3) == metrics.top_quantile(s, 0.3)


def test_weighted_quantile_on_long_lists_with_ties_at_the_cut(rng):
    # only the highest scores are sorted: ties straddling the cut must not matter
    for _ in range(50):
        s = rng.integers(0, 6, size=300).astype(float)
        c = rng.integers(1, 5, size=len(s))
        tau = float(rng.uniform(0.01, 0.99))
        expected = metrics.top_quantile(np.repeat(s, c), tau)
        assert weighted_top_quantile(s, tau, c) == expected
        zeros = c * (rng.random(len(c)) < 0.2)  # items that are no point of the sample
        if zeros.sum() > 0:
            assert weighted_top_quantile(s, tau, zeros) == \
                metrics.top_quantile(np.repeat(s, zeros), tau)
        rank = int(np.ceil(tau * c.sum()))
        assert weighted_top_quantile(s, tau, c, rank=max(1, rank)) == \
            metrics.top_quantile(np.repeat(s, c), max(1, rank) / c.sum())


def _loss_by_definition(y, s, tau):
    q = brute_quantile(s, tau)
    wrong = sum((yi == 0 and si > q) or (yi == 1 and si < q) for yi, si in zip(y, s))
    return wrong / len(y)


@pytest.mark.parametrize("ties", [False, True])
def test_aatp_loss_matches_definition(rng, ties):
    for _ in range(150):
        y, s = tiny_instance(rng, 5, 5, ties=ties)
        tau = float(rng.choice(TAUS))
        assert aatp_loss(y, s, tau) == pytest.approx(_loss_by_definition(y, s, tau), abs=0)


def test_pairs_loss_is_the_item_loss_of_the_stacked_list(rng):
    for _ in range(100):
        m = int(rng.integers(1, 6))
        a = rng.integers(-2, 3, size=m) / 2.0
        b = rng.integers(-2, 3, size=m) / 2.0
        tau = float(rng.choice(TAUS))
        stacked = aatp_loss(np.r_[np.zeros(m), np.ones(m)], np.r_[a, b], tau)
        assert aatp_pairs_loss(a, b, tau) == stacked
        q = brute_quantile(np.r_[a, b], tau)
        literal = sum(int(ai > q) + int(bi < q) for ai, bi in zip(a, b)) / (2 * m)
        assert aatp_pairs_loss(a, b, tau) == pytest.approx(literal, abs=0)


def test_loss_bad_input():
    with pytest.raises(ValueError, match="tau must lie in"):
        aatp_loss([0, 1], [0.1, 0.2], 1.0)
    with pytest.raises(ValueError, match="y_score contains NaN"):
        aatp_loss([0, 1], [np.nan, 0.2], 0.5)
    with pytest.raises(ValueError, match="first_score has 2, second_score has 1"):
        aatp_pairs_loss([0.1, 0.2], [0.3], 0.5)


def test_pairs_problem_counts_every_occurrence():
    F = np.arange(8.0).reshape(4, 2)
    pairs = np.array([[0, 1], [0, 2], [3, 1], [1, 0]])  # item 0 and 1 on both sides
    p = pairs_problem(F, pairs, C=2.0)
    slots = {(int(i), float(s)): int(c) for i, s, c in zip(p.slot_item, p.slot_sign,
                                                             p.slot_count)}
    assert slots == {(0, -1.0): 2, (3, -1.0): 1, (1, -1.0): 1,
                     (1, 1.0): 2, (2, 1.0): 1, (0, 1.0): 1}
    assert p.item_weight.tolist() == [3, 3, 1, 1]
    assert p.candidates.tolist() == [0, 1, 2, 3]
    assert np.array_equal(p.upper, 2.0 * p.slot_count)


def test_items_problem_signs_and_box():
    F = np.eye(3)
    p = items_problem(F, np.array([1, 0, 1]), C=0.5)
    assert p.slot_sign.tolist() == [1.0, -1.0, 1.0]
    assert p.item_weight is None and p.candidates.tolist() == [0, 1, 2]
    assert np.array_equal(p.upper, [0.5, 0.5, 0.5])


def test_duality_gap_is_the_sum_of_complementarity_terms(rng):
    """P(w(α)) − D(α) = Σ_s [u_s (1 − m_s)₊ − α_s (1 − m_s)] ≥ 0 for every feasible α."""
    for _ in range(50):
        y, _ = tiny_instance(rng, 4, 4)
        F = rng.standard_normal((len(y), 3))
        p = items_problem(F, y, C=float(rng.uniform(0.1, 3)))
        k = int(rng.integers(len(y)))
        alpha = rng.uniform(0, 1, len(y)) * p.upper
        w, primal, dual = primal_dual_values(p, k, alpha)
        margins = p.slot_sign * ((F - F[k]) @ w)
        terms = p.upper * np.maximum(1 - margins, 0) - alpha * (1 - margins)
        assert np.all(terms >= -1e-12)
        assert primal - dual == pytest.approx(terms.sum(), rel=1e-9, abs=1e-9)


def test_a_primal_point_is_certified_with_twice_its_gap(rng):
    """solution_from_primal: P(w) − D(α) certifies a w that is not w(α) where the model is
    w (the linear kernel); the recorded lower bound D(α) − G keeps ‖w − w*‖ ≤ √(recorded
    gap) (strong convexity: ‖w − w*‖² ≤ 2G) and stays below the optimum; where w(α)
    certifies better, or the model is α, α's own solution is kept."""
    from dataclasses import replace

    from cvxtop.aatp.dual import DualQP
    from cvxtop.aatp.problem import solution_from_alpha, solution_from_primal

    for _ in range(20):
        y, _ = tiny_instance(rng, 4, 4)
        F = rng.standard_normal((len(y), 3))
        p = items_problem(F, y, C=float(rng.uniform(0.1, 3)))
        assert not p.primal_model
        p_alpha, p = p, replace(p, primal_model=True)
        k = int(rng.integers(len(y)))
        optimum = DualQP(p).solve(k)
        alpha = optimum.alpha * rng.uniform(0.9, 1.0, len(y))  # a point in the box
        w = optimum.w + rng.normal(0, 1e-3, optimum.w.shape)
        solution = solution_from_primal(p, k, w, alpha, 3, "optimal")
        by_alpha = solution_from_alpha(p, k, alpha, 3, "optimal")
        kept = solution_from_primal(p_alpha, k, w, alpha, 3, "optimal")
        assert kept.duality_gap == by_alpha.duality_gap and np.array_equal(kept.w, by_alpha.w)
        gap = solution.objective - by_alpha.dual_objective
        if by_alpha.duality_gap <= 2 * gap:
            assert solution.duality_gap == by_alpha.duality_gap
            assert np.array_equal(solution.w, by_alpha.w)
            continue
        assert np.array_equal(solution.w, w)
        assert solution.duality_gap == pytest.approx(2 * gap, rel=1e-12)
        assert solution.dual_objective <= optimum.objective + 1e-9
        assert np.linalg.norm(w - optimum.w) <= np.sqrt(solution.duality_gap) + 1e-9
    exact = solution_from_primal(p, k, optimum.w, optimum.alpha, 0, "optimal")
    assert exact.duality_gap <= 1e-7 * max(1.0, abs(exact.objective))

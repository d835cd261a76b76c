"""Scoring a candidate and the selection rule (Boyd et al. 2012 Section 3.2), against brute
force."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop.reference import aatp as brute
from kkt_polish import polish
from cvxtop import AATP
from cvxtop.aatp.candidates import duplicate_representatives, nearest_neighbour_tour
from cvxtop.aatp.dual import DualQP
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.gram import check_gram_matrix
from cvxtop.aatp.problem import items_problem, pairs_problem
from cvxtop.aatp.selection import GAP_ATOL, OBJECTIVE_RTOL, score_candidate, select


def test_select_matches_the_rule_written_as_a_sort(rng):
    for _ in range(500):
        n = int(rng.integers(1, 9))
        cands = rng.permutation(20)[:n]
        # gaps and objectives on coarse grids plus noise below the tolerances: many ties
        gaps = rng.integers(0, 3, n) * 0.5 + rng.uniform(0, 0.9 * GAP_ATOL, n)
        objs = 10.0 + rng.integers(0, 3, n) + rng.uniform(0, 5 * OBJECTIVE_RTOL, n)
        pos = select(cands, gaps, objs)
        assert cands[pos] == brute.select(cands, gaps, objs)


def test_score_candidate_uses_the_kernel_score_function_and_the_quantile(rng):
    """h(x) = Σ_j α_j y_j [K(z_j, x) − K(z_k, x)]: the second term is multiplied by
    Σ_j α_j y_j, not a constant shift."""
    X = rng.standard_normal((7, 2))
    K = rbf_gram(X, X, 0.6)
    y = np.array([1, 0, 0, 1, 0, 1, 0])
    p = items_problem(check_gram_matrix(K).factor().F, y, C=2.0)
    for k in range(7):
        sol = DualQP(p).solve(k)
        beta = p.slot_sign * sol.alpha
        assert abs(beta.sum()) > 1e-3  # the case where a constant shift would be wrong
        h = brute.kernel_scores(K, beta, k)
        for tau in (0.1, 0.3, 0.5):
            sc = score_candidate(p, sol, tau)
            assert sc.score == pytest.approx(h[k], abs=1e-9)
            assert sc.quantile == pytest.approx(brute.quantile(h, tau), abs=1e-9)
            assert sc.gap == pytest.approx(abs(h[k] - brute.quantile(h, tau)), abs=1e-9)


def test_weighted_scoring_for_pairs(rng):
    X = rng.standard_normal((5, 2))
    pairs = np.array([[0, 1], [0, 2], [3, 1], [4, 1]])
    p = pairs_problem(X, pairs, C=1.0)
    sol = DualQP(p).solve(1)
    sc = score_candidate(p, sol, 0.25)
    h = X @ sol.w
    stacked = np.r_[h[pairs[:, 0]], h[pairs[:, 1]]]  # the 2m points z_1..z_2m
    assert sc.quantile == pytest.approx(brute.quantile(stacked, 0.25), abs=1e-12)


def _brute_force_values(X, y, tau, C):
    """Every candidate by the reference solver (no screening), polished to an exact KKT
    point, scored by the literal kernel formula and the brute-force quantile: the exact
    gaps and objectives."""
    K = X @ X.T
    p = items_problem(X, y, C)
    gaps, objs = [], []
    for k in range(len(y)):
        sol = DualQP(p).solve(k)
        B = p.slot_sign[:, None] * (X - X[k])
        alpha = polish(B @ B.T, p.upper, sol.alpha)
        h = brute.kernel_scores(K, p.slot_sign * alpha, k)
        gaps.append(abs(h[k] - brute.quantile(h, tau)))
        objs.append(sol.objective)
    return np.array(gaps), np.array(objs)


def assert_the_rule_promise(model, gaps, objs):
    """What cvxtop.aatp.selection promises about the chosen candidate, checked against the
    exact values ``gaps`` and ``objs`` (independent of the machine's rounding):

    * every candidate's exact gap lies in its certified interval ``candidate_quantile_distance_bounds_``,
      and its exact objective in ``[objective − δ, objective]``;
    * the rule, applied to the reported values, picks ``candidate_``;
    * the chosen gap is within GAP_ATOL plus the certified widths of the smallest exact one;
    * among candidates certainly gap-tied, the chosen objective is the smallest up to
      OBJECTIVE_RTOL and the certified δ;
    * no candidate of smaller index is certainly preferred by the rule.
    """
    c = int(model.candidate_)
    lo, hi = model.candidate_quantile_distance_bounds_[:, 0], model.candidate_quantile_distance_bounds_[:, 1]
    delta = np.maximum(model.candidate_duality_gaps_, 0.0)
    eps = 1e-9
    assert np.all(lo - eps <= gaps) and np.all(gaps <= hi + eps)
    solved = ~model.candidate_screened_
    reported = model.candidate_objectives_
    assert np.all(objs[solved] <= reported[solved] + eps * np.maximum(1, abs(objs[solved])))
    assert np.all(reported[solved] - delta[solved] <= objs[solved] + eps)
    assert model.candidates_[select(model.candidates_, model.candidate_quantile_distances_, reported)] == c
    width = hi - lo
    best = int(np.argmin(gaps))
    assert gaps[c] <= gaps[best] + GAP_ATOL + width[c] + width[best] + eps
    # certainly gap-tied: its gap's whole interval within the tolerance of the smallest one
    sure = hi <= lo.min() + GAP_ATOL
    possible = lo <= hi.min() + GAP_ATOL
    lowest = objs[possible].min()
    slack = OBJECTIVE_RTOL * max(1.0, abs(lowest)) + eps
    if sure.any():
        assert objs[c] <= objs[sure].min() + delta[sure].max() + slack + delta[c]
    preferred = sure & (objs + delta + slack <= lowest + OBJECTIVE_RTOL * max(1.0, abs(lowest)))
    assert not np.any(preferred[:c] & solved[:c])


@pytest.mark.parametrize("data", ["gauss", "grid", "repeated"])
def test_estimator_choice_keeps_the_rule_promise(data):
    rng = np.random.default_rng(["gauss", "grid", "repeated"].index(data))
    for _ in range(5):
        n = int(rng.integers(4, 10))
        if data == "gauss":
            X = rng.standard_normal((n, 2))
        elif data == "grid":
            X = rng.integers(-1, 2, size=(n, 2)).astype(float)
        else:
            X = np.repeat(rng.standard_normal(((n + 1) // 2, 2)), 2, axis=0)[:n]
        y = rng.permutation(np.r_[1, 0, rng.integers(0, 2, n - 2)])
        tau, C = float(rng.choice([0.1, 0.25, 0.5])), float(rng.choice([0.1, 1.0, 10.0]))
        gaps, objs = _brute_force_values(X, y, tau, C)
        for solver in ("fast", "cvxpy"):
            assert_the_rule_promise(AATP(tau=tau, C=C, solver=solver).fit(X, y), gaps, objs)


def test_on_well_separated_candidates_the_choice_is_the_brute_force_choice():
    """Where no two candidates are within their certified intervals of a tie, the rule's
    choice is exact: the brute-force index itself."""
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((8, 2))
        y = rng.permutation(np.r_[1, 0, rng.integers(0, 2, 6)])
        try:
            gaps, objs = _brute_force_values(X, y, 0.25, 1.0)
        except AssertionError:  # the polish found no face: no exact values to compare
            continue
        model = AATP(tau=0.25, C=1.0).fit(X, y)
        width = model.candidate_quantile_distance_bounds_[:, 1] - model.candidate_quantile_distance_bounds_[:, 0]
        order = np.argsort(gaps)
        margin = gaps[order[1]] - gaps[order[0]] - GAP_ATOL
        if margin > width[order[0]] + width[order[1]] + 1e-9:
            assert model.candidate_ == brute.select(np.arange(8), gaps, objs)
            checked += 1
    assert checked >= 10


def test_ties_at_gap_zero_are_broken_by_the_objective():
    """Several candidates are their own quantile point (gap exactly 0); the rule then
    keeps the smallest objective among them."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((12, 2))
        y = (X[:, 0] + rng.standard_normal(12) > 0.5).astype(int)
        if y.min() == y.max():
            continue
        m = AATP(tau=0.25, C=1.0).fit(X, y)
        zero = m.candidate_quantile_distances_ <= GAP_ATOL
        objs = m.candidate_objectives_[zero]
        if zero.sum() >= 2 and objs.max() - objs.min() > 1e-3:
            break
    else:
        pytest.fail("no instance with two candidates at gap 0 found")
    best = m.candidates_[zero][np.argmin(objs)]
    assert m.candidate_ == best
    assert m.quantile_distance_ <= GAP_ATOL


def test_duplicate_representatives_are_the_smallest_index_of_each_group():
    keys = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [3.0, 1.0], [0.0, 0.0], [1.0, 2.0]])
    reps = duplicate_representatives(keys, np.arange(6))
    assert reps.tolist() == [0, 1, 0, 3, 1, 0]
    assert duplicate_representatives(keys, np.array([2, 4, 5])).tolist() == [2, 4, 2]


def test_screening_repeated_points_keeps_the_rule_promise(rng):
    """Fitting with the screening keeps what the rule promises against the brute-force
    values over all candidates, repeated points included (the proof is in
    cvxtop.aatp.candidates). Repeated points make candidates equivalent up to rounding,
    so the index is not compared: another BLAS may round the other way."""
    for _ in range(6):
        base = rng.integers(-1, 2, size=(5, 2)).astype(float)
        X = base[rng.integers(0, 5, 10)]
        y = rng.permutation(np.r_[1, 0, rng.integers(0, 2, 8)])
        gaps, objs = _brute_force_values(X, y, 0.3, 1.0)
        model = AATP(tau=0.3, C=1.0).fit(X, y)
        assert_the_rule_promise(model, gaps, objs)
        assert len(model.candidates_) == 10


def test_tour_visits_every_candidate_once(rng):
    F = rng.standard_normal((30, 3))
    cands = rng.permutation(30)[:20]
    tour = nearest_neighbour_tour(F, cands)
    assert sorted(tour.tolist()) == sorted(cands.tolist()) and tour[0] == cands[0]

"""The exact line search of the cutting plane: the step minimizes the objective along the
segment (checked by one-sided slopes at the step and by a dense grid), with few surrogate
evaluations, on every convex registered surrogate, with and without groups."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop import surrogates
from cvxtop.solvers.line_search import line_search
from cvxtop.solvers.objective import RankingObjective
from cvxtop.surrogates import PrecSurrogate
from conftest import registered


def problem(name: str, seed: int, grouped: bool, n: int = 60, d: int = 5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + rng.standard_normal(n) > 0.8).astype(int)
    groups = np.repeat(np.arange(3), n // 3) if grouped else None
    if grouped:
        for g in range(3):  # every group needs relevant and irrelevant items
            idx = np.flatnonzero(groups == g)
            y[idx[:3]], y[idx[3:10]] = 1, 0
    k = 0.3 if isinstance(surrogates.get(name, 1), PrecSurrogate) else 2
    return RankingObjective(X, y, surrogates.get(name, k), C=float(rng.choice([0.1, 1, 10])),
                            groups=groups), rng


def phi(objective, w, d, tau):
    return objective.value(w + tau * d)


@pytest.mark.parametrize("grouped", [False, True], ids=["one list", "groups"])
@pytest.mark.parametrize("name", registered(convex=True))
def test_step_minimizes_the_objective_on_the_segment(name, grouped):
    evaluations = []
    for seed in range(8):
        objective, rng = problem(name, seed, grouped)
        w = rng.standard_normal(objective.Z.shape[1]) * 0.3
        d = rng.standard_normal(objective.Z.shape[1]) * rng.choice([0.1, 1.0, 5.0])
        if seed % 4 == 0:  # a start on a tie grid: kinks at the start and along the way
            w = np.round(w)
        step = line_search(objective, w, objective.Z @ w, d, objective.Z @ d)
        assert step.exact and step.tau >= 0
        evaluations.append(step.evaluations)
        best = phi(objective, w, d, step.tau)
        assert step.loss == pytest.approx(objective.loss(objective.Z @ (w + step.tau * d)),
                                          rel=1e-12, abs=1e-12)
        # optimality: no better point on either side, and none on a dense grid
        scale = 1e-7 * max(1.0, step.tau)
        assert phi(objective, w, d, step.tau + scale) >= best - 1e-12 * max(1.0, abs(best))
        if step.tau > 0:
            assert phi(objective, w, d, max(0.0, step.tau - scale)) >= best - 1e-12 * max(
                1.0, abs(best))
        grid = np.linspace(0, 3 * max(step.tau, 1.0), 301)
        assert min(phi(objective, w, d, t) for t in grid) >= best - 1e-10 * max(1.0, abs(best))
    assert np.mean(evaluations) <= 8


def test_zero_direction_and_a_direction_uphill():
    objective, rng = problem("prec@k-avg", 0, False)
    w = rng.standard_normal(5)
    s = objective.Z @ w
    none = line_search(objective, w, s, np.zeros(5), np.zeros(len(s)))
    assert none.tau == 0.0 and none.exact and none.evaluations == 1
    # along the ascent direction of the objective (a subgradient), the best step is 0
    _, grad, _, _ = objective.value_and_gradient(w)
    step = line_search(objective, w, s, grad, objective.Z @ grad)
    assert step.exact and step.tau == 0.0


def test_budget_returns_the_best_point_seen_and_says_so():
    objective, rng = problem("pap@k-ts", 3, False)
    w = rng.standard_normal(5)
    d = -5 * objective.value_and_gradient(w)[1]  # a descent direction: the search moves
    step = line_search(objective, w, objective.Z @ w, d, objective.Z @ d, max_evaluations=1)
    assert not step.exact and step.evaluations == 1 and step.tau == 0.0


def test_an_ascent_direction_stops_at_zero_without_evaluating():
    """When the subgradient at 0 shows that ``φ`` cannot decrease along ``d`` (the segment
    ``[0, T]`` is empty), the step is exactly 0 after the one evaluation at the start."""
    objective, rng = problem("pap@k-ts", 3, False)
    w = rng.standard_normal(5)
    d = 5 * objective.value_and_gradient(w)[1]
    step = line_search(objective, w, objective.Z @ w, d, objective.Z @ d)
    assert step.exact and step.evaluations == 1 and step.tau == 0.0


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-svmperf", "pap@k-max"])
def test_tolerance_bounds_the_distance_to_the_exact_step(name):
    """With ``tolerance`` the search may stop early, but its point is within the tolerance
    of the exact line minimum, and it never takes more evaluations than the exact search."""
    early = 0
    for seed in range(8):
        objective, rng = problem(name, seed, False, n=120)
        w = rng.standard_normal(objective.Z.shape[1]) * 0.3
        d = rng.standard_normal(objective.Z.shape[1]) * 3.0
        s, ds = objective.Z @ w, objective.Z @ d
        exact = line_search(objective, w, s, d, ds)
        exact_phi = phi(objective, w, d, exact.tau)
        for share in (1e-1, 1e-3):
            tolerance = share * abs(exact_phi)
            step = line_search(objective, w, s, d, ds, tolerance=tolerance)
            early += not step.exact
            assert step.evaluations <= exact.evaluations
            assert exact_phi <= phi(objective, w, d, step.tau) <= exact_phi + tolerance * (
                1 + 1e-9)
    assert early > 0  # the early stop was exercised


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max", "pap@k-ts"])
def test_a_line_below_the_loss_leaves_the_step_unchanged(name):
    """A line known to lie below L (a convex combination of subgradient cuts taken at other
    points, like the cutting plane's aggregate cut) starts the model: the step is the same
    exact minimizer."""
    for seed in range(6):
        objective, rng = problem(name, seed, False)
        dim = objective.Z.shape[1]
        w, d = rng.standard_normal(dim) * 0.3, rng.standard_normal(dim)
        s, ds = objective.Z @ w, objective.Z @ d
        weights = rng.dirichlet(np.ones(3))
        intercept = slope = 0.0
        for weight, point in zip(weights, rng.standard_normal((3, dim))):
            loss, g = objective.loss_and_score_gradient(objective.Z @ point)
            h = objective.Z.T @ g  # the cut L(Zx) >= loss + h·(x − point) along x = w + τd
            intercept += weight * (loss + float(h @ (w - point)))
            slope += weight * float(h @ d)
        plain = line_search(objective, w, s, d, ds)
        helped = line_search(objective, w, s, d, ds, below=(intercept, slope))
        assert plain.exact and helped.exact
        assert phi(objective, w, d, helped.tau) == pytest.approx(
            phi(objective, w, d, plain.tau), rel=1e-12, abs=1e-12)

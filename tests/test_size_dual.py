"""prec@k-svmperf's dual over its labeling sizes (cvxtop.solvers.size_dual): every convex
combination of the pieces' points (sizes, the hinge and the floor) gives a cut valid at
every score vector, checked against the brute-force enumeration of SVMperf's loss with
ties; the pieces' values match the loss; and on data with more features than items the
cutting plane with the solve certifies the optimum the rounds alone certify, sooner."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cvxtop import reference, surrogates
from cvxtop.datasets import make_ranking_data, make_sparse_ranking_data
from cvxtop.solvers import box_dual, count_dual, size_dual, solve_cutting_plane
from cvxtop.solvers.cutting_plane import FROZEN_ROUNDS
from cvxtop.solvers.objective import RankingObjective
from svmperf_tiny import tiny


def random_pieces(rng: np.random.Generator, y: np.ndarray, k: int
                  ) -> tuple[list, np.ndarray, list[np.ndarray]]:
    """Random size pieces and the hinge, each with random items at one and free, and a
    random dual point on them (``λ`` over the pieces and the floor, free weights in
    ``[0, λ_j]`` with their sums as near as they come)."""
    n = len(y)
    sizes = sorted(set(rng.integers(k, n + 1, size=int(rng.integers(1, 4))).tolist()))
    pieces = []
    for m in sizes:
        order = rng.permutation(n)
        ones = int(rng.integers(0, m))
        at_one = np.zeros(n, bool)
        at_one[order[:ones]] = True
        free = np.zeros(n, bool)
        free[order[ones:ones + int(rng.integers(m - ones, n - ones + 1))]] = True
        pieces.append(size_dual._Piece(np.arange(n), at_one, free, m, -(k / m) * y, False))
    neg = np.flatnonzero(y == 0)
    at_one = np.zeros(len(neg), bool)
    pieces.append(size_dual._Piece(neg, at_one, ~at_one, k, np.zeros(n), True))
    lam = rng.dirichlet(np.ones(len(pieces) + 1))
    lam[rng.random(len(lam)) < 0.3] = 0.0
    lam = lam / lam.sum() if lam.sum() > 0 else np.r_[np.zeros(len(pieces)), 1.0]
    xs = [lam[j] * rng.random(len(p.free)) for j, p in enumerate(pieces)]
    return pieces, lam, xs


@pytest.mark.parametrize("seed", range(60))
def test_every_combination_of_the_pieces_gives_a_valid_cut(seed):
    """``L(s) >= intercept + g·s`` for the cut of random dual points over random pieces,
    at random scores and on grids of ties, against the brute-force enumeration."""
    rng = np.random.default_rng(seed)
    X, y, k = tiny(seed)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", k), 1.0)
    pieces, lam, xs = random_pieces(rng, y, k)
    cut = size_dual._cut(objective, pieces, lam, xs)
    for trial in range(20):
        s = rng.standard_normal(len(y)) if trial % 2 else rng.integers(-2, 3, len(y)) / 2.0
        assert reference.prec_svmperf(y, s, k) >= cut.intercept + float(cut.g @ s) - 1e-12
    # the combination is a point of the pieces' hull: g + y(1 − λ_floor) in [0, 1]
    assert np.all(cut.g + y >= -1e-12) and np.all(cut.g + y <= 1 + 1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_the_pieces_values_are_the_loss(seed):
    """``max(0, P_H, P_k, …, P_n)`` is SVMperf's loss (brute force), ties included, and
    every piece is below it."""
    rng = np.random.default_rng(seed)
    _, y, k = tiny(seed)
    s = rng.standard_normal(len(y)) if seed % 2 else rng.integers(-2, 3, len(y)) / 2.0
    values = size_dual._piece_values(s, y.astype(float), k, np.arange(k, len(y) + 1))
    s_neg = np.sort(s[y == 0])[::-1]
    hinge = k - s[y == 1].sum() + max(s_neg[:b].sum() for b in range(k, len(s_neg) + 1))
    loss = reference.prec_svmperf(y, s, k)
    assert max(0.0, hinge, values.max()) == pytest.approx(loss, abs=1e-12)
    assert np.all(values <= loss + 1e-12)


def test_a_labeling_without_an_irrelevant_item_is_no_cut():
    """The counterexample of the module docstring: the labeling of the first item alone
    lies above the loss, so pieces count only labelings with an irrelevant item, and a
    dual point on relevant items alone is moved onto them before its cut is made."""
    y, s, k = np.array([1, 1, 0]), np.array([10.0, -10.0, -100.0]), 1
    loss = reference.prec_svmperf(y, s, k)
    assert loss == 0.0 and float(s[0] - y @ s) == 10.0  # (ŷ − y)·s of that labeling
    values = size_dual._piece_values(s, y.astype(float), k, np.arange(k, 4))
    assert np.all(values <= loss)
    objective = RankingObjective(np.eye(3), y, surrogates.get("prec@k-svmperf", k), 1.0)
    piece = size_dual._Piece(np.arange(3), np.array([True, False, False]),
                             np.array([False, True, True]), 1, -float(k) * y, False)
    cut = size_dual._cut(objective, [piece], np.array([1.0, 0.0]), [np.zeros(2)])
    assert cut.intercept + float(cut.g @ s) <= loss + 1e-12


@pytest.mark.parametrize("seed", range(40))
def test_points_moved_onto_a_size_polytope_give_valid_cuts(seed):
    """Random points, most of their weight on relevant items, moved onto the labelings of a
    size with an irrelevant item: in the box, of that size, at least 1 on the irrelevant
    items, and a valid cut at scores that rank relevant items low and irrelevant ones
    lower (where labelings without an irrelevant item would break it)."""
    rng = np.random.default_rng(seed)
    _, y, k = tiny(seed)
    n = len(y)
    m = int(rng.integers(1, n + 1))
    u = rng.random(n) * np.where(y == 1, 3.0, rng.choice([0.0, 0.01, 0.5]))
    u = size_dual.onto_size_polytope(u, m, y == 0)
    assert np.all(u >= 0) and np.all(u <= 1)
    assert u.sum() == pytest.approx(m, abs=1e-9) and u[y == 0].sum() >= 1.0
    c = -(k / m) * y
    for trial in range(20):
        s = rng.standard_normal(n) * np.where(y == 1, 10.0, 1.0) - 50.0 * (y == 0) * (trial % 2)
        cut = k + float(c @ u) + float((u - y) @ s)
        assert reference.prec_svmperf(y, s, k) >= cut - 1e-9


def sparse_wide(C: float) -> RankingObjective:
    """400 × 4,000 sparse data (1%), k = n₊/4: at C = 1 the optimum ties the sizes 10, 42
    and 43, the hinge among them, and most items of each."""
    X, y = make_sparse_ranking_data(400, 4000, density=0.01, noise=0.5, random_state=0)
    return RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), C)


@pytest.mark.parametrize("C", [1.0, 10.0])
def test_the_solve_certifies_the_optimum_of_the_rounds_alone_sooner(C, monkeypatch):
    """The solve certifies at one of its rounds, or, where its answer leaves a gap just
    above tol (at C = 10 on some CPUs: 1.26e-7), after the frozen stretch that follows (the
    best point's ray, cutting_plane.FROZEN_ROUNDS later); the rounds alone certify the same
    optimum later, or (at C = 10 on some CPUs, where rounding steers the rounds elsewhere)
    not within 2,000 rounds, their bounds still consistent with the solve's. (On this list
    the cutting plane solves over counts of relevant items instead
    (:mod:`cvxtop.solvers.count_dual`); that solve is turned off here.)"""
    objective = sparse_wide(C)
    monkeypatch.setattr(count_dual, "suits", lambda objective: False)
    solved = solve_cutting_plane(objective, tol=1e-7)
    with monkeypatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the warning of an uncertified end)
        patch.setattr(size_dual, "suits", lambda objective: False)
        alone = solve_cutting_plane(objective, tol=1e-7, accept_inaccurate=True)
    assert solved.status == "optimal" and alone.status in ("optimal", "max_iter")
    certifying = {r + after for r in box_dual.SOLVE_ROUNDS for after in (0, FROZEN_ROUNDS)}
    assert solved.n_iter in certifying and box_dual.PROXIMAL_ROUND <= solved.n_iter
    assert solved.n_iter < alone.n_iter
    if alone.status == "optimal":
        assert solved.objective == pytest.approx(alone.objective, rel=3e-7)
    for a, b in ((alone, solved), (solved, alone)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_the_solve_is_tried_only_on_wide_lists_of_moderate_length():
    assert size_dual.suits(sparse_wide(1.0))
    X, y = make_ranking_data(500, 40)
    assert not size_dual.suits(RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25),
                                                1.0))  # fewer features than items
    wide = sparse_wide(1.0)
    for other in ("prec@k-struct", "prec@k-avg"):
        assert not size_dual.suits(RankingObjective(wide.Z, wide.y, surrogates.get(other, 0.25),
                                                    1.0))
    X, y = make_sparse_ranking_data(size_dual.MAX_ITEMS + 1, size_dual.MAX_ITEMS + 1,
                                    density=0.001, random_state=0)
    assert not size_dual.suits(RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25),
                                                1.0))

"""prec@k-svmperf over a few counts of relevant items (cvxtop.solvers.count_dual): the
pieces' values are SVMperf's loss (brute force, ties included); every convex combination of
the pieces' points gives a cut valid at every score vector; the interior point over every
count reaches the optimum the rounds certify; and the cutting plane with it certifies
where the rounds alone stall."""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse

from cvxtop import reference, surrogates
from cvxtop.datasets import make_ranking_data, make_sparse_ranking_data
from cvxtop.solvers import count_dual, parallel_products, solve_cutting_plane
from cvxtop.solvers.box_dual import _onto_box_sum
from cvxtop.solvers.objective import RankingObjective
from cvxtop.surrogates.prec_svmperf import count_pieces
from svmperf_tiny import tiny


def scores(rng: np.random.Generator, n: int, trial: int) -> np.ndarray:
    """Random scores, every other draw on a coarse grid (ties)."""
    return rng.standard_normal(n) if trial % 2 else rng.integers(-2, 3, n) / 2.0


@pytest.mark.parametrize("seed", range(30))
def test_the_pieces_values_are_the_loss(seed):
    """``max(0, φ_0, …, φ_{n₊})`` over the counts with room for their irrelevant items is
    SVMperf's loss, and every piece is below it."""
    rng = np.random.default_rng(seed)
    _, y, k = tiny(seed, least_relevant=2)
    for trial in range(4):
        s = scores(rng, len(y), trial)
        bound = surrogates.get("prec@k-svmperf", k).bind_labels(y)
        counts, _, values = count_pieces(bound, s)
        loss = reference.prec_svmperf(y, s, k)
        n_neg = len(y) - int(y.sum())
        assert set(counts) == {a for a in range(int(y.sum()) + 1) if max(1, k - a) <= n_neg}
        assert max(0.0, values.max()) == pytest.approx(loss, abs=1e-12)
        assert np.all(values <= loss + 1e-12)


def random_duals(rng: np.random.Generator, problem, y: np.ndarray, k: int) -> np.ndarray:
    """A random dual point of the restricted problem: ``λ`` over its pieces and the floor,
    each piece's relevant weights in the box with sum ``a`` and irrelevant weights in the
    box with a fractional sum of at least ``max(1, k − a)``, scaled by ``C·λ``."""
    layout, C = problem.layout, problem.C
    n_pos, n_neg = int(y.sum()), len(y) - int(y.sum())
    lam = rng.dirichlet(np.ones(len(layout.counts) + 1))
    lam[rng.random(len(lam)) < 0.3] = 0.0
    lam = lam / lam.sum() if lam.sum() > 0 else np.r_[1.0, np.zeros(len(layout.counts))]
    z = np.zeros(layout.n_c)
    z[0] = C * lam[-1]
    z1, z2, z4 = (layout.block(z, name) for name in ("c1", "c2", "c4"))
    rank_row = np.cumsum(layout.ranked) - 1
    for piece, (a, weight) in enumerate(zip(layout.counts, lam)):
        z1[piece] = C * weight
        if layout.ranked[piece]:
            z2[rank_row[piece]] = C * weight * _onto_box_sum(rng.random(n_pos), a,
                                                             equality=True)
        beta = rng.uniform(max(1, k - a), n_neg)
        z4[piece] = C * weight * _onto_box_sum(rng.random(n_neg) * beta / n_neg, beta,
                                               equality=True)
    return z


@pytest.mark.parametrize("seed", range(60))
def test_every_combination_of_the_pieces_gives_a_valid_cut(seed):
    """``L(s) >= intercept + g·s`` for the cut of random dual points over random counts,
    at random scores and on grids of ties, against the brute-force enumeration."""
    rng = np.random.default_rng(seed)
    X, y, k = tiny(seed, least_relevant=2)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", k), 1.0)
    n_pos = int(y.sum())
    # every count, a = n₊ (every relevant item predicted) included
    counts = sorted(rng.choice(n_pos + 1, size=int(rng.integers(1, n_pos + 2)), replace=False))
    problem = count_dual._Problem(objective, [int(a) for a in counts])
    cut = count_dual._cut(objective, problem, random_duals(rng, problem, y, k))
    if cut is None:  # all the weight on the floor
        return
    for trial in range(20):
        s = scores(rng, len(y), trial)
        assert reference.prec_svmperf(y, s, k) >= cut.intercept + float(cut.g @ s) - 1e-12
    # a point of the pieces' hull: g + y(1 − λ_floor) in [0, 1]
    assert np.all(cut.g + y >= -1e-12) and np.all(cut.g + y <= 1 + 1e-12)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_interior_point_over_every_count_reaches_the_optimum(C, sparse):
    """With every count ``a < n₊`` kept the restriction leaves out only the labelings of
    every relevant item, and the interior point's cut bounds the optimum the cutting plane
    certifies to within 1e-8, from below (with a dense or a sparse ``Z``)."""
    X, y = make_ranking_data(150, 12, noise=0.3, random_state=1)
    X = scipy.sparse.csr_matrix(X) if sparse else X
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), C)
    exact = solve_cutting_plane(objective, tol=1e-10)
    counts = list(range(int(y.sum())))
    cut, lower = count_dual._interior_point(objective, counts, np.zeros(X.shape[1]), np.inf,
                                            1e-10)
    assert cut is not None
    assert lower <= exact.objective + 1e-12 * abs(exact.objective)
    assert lower == pytest.approx(exact.objective, rel=1e-8)
    assert cut.value >= exact.lower_bound * (1 - 1e-12)  # a feasible point's objective


def test_the_products_split_over_threads_give_the_same_cut(monkeypatch):
    """The interior point with its products with ``Z`` split over threads (as the cutting
    plane hands it its own) ends at the same cut, up to rounding."""
    X, y = make_ranking_data(150, 12, noise=0.3, random_state=1)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)
    best = np.zeros(X.shape[1])
    alone = count_dual.count_dual_cut(objective, best, np.zeros(len(y)), np.inf, 1e-9)
    monkeypatch.setattr(parallel_products, "PARALLEL_NUMBERS", 1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        shared = count_dual.count_dual_cut(objective, best, np.zeros(len(y)), np.inf, 1e-9,
                                           threads=parallel_products.ProductThreads(pool, 2))
    assert alone is not None and shared is not None
    assert shared.intercept == pytest.approx(alone.intercept, rel=1e-8)
    np.testing.assert_allclose(shared.g, alone.g, atol=1e-8)


def test_the_solve_is_tried_where_the_features_or_the_items_are_few():
    X, y = make_ranking_data(600, 250)
    svmperf = surrogates.get("prec@k-svmperf", 0.25)
    assert count_dual.suits(RankingObjective(X, y, svmperf, 1.0))
    assert count_dual.suits(RankingObjective(X[:200], y[:200], svmperf, 1.0))  # d >= n
    assert not count_dual.suits(RankingObjective(X[:, :57], y, svmperf, 1.0))  # few features
    many = scipy.sparse.eye(4500, format="csr")
    labels = np.arange(4500) % 7 == 0
    assert not count_dual.suits(RankingObjective(many, labels, svmperf, 1.0))  # both many
    for other in ("prec@k-struct", "prec@k-avg"):
        assert not count_dual.suits(RankingObjective(X, y, surrogates.get(other, 0.25), 1.0))


def wide_problem(sparse: bool, C: float = 1.0):
    """prec@k-svmperf on a list with fewer items than features."""
    X, y = make_ranking_data(90, 140, noise=0.3, random_state=2)
    X = scipy.sparse.csr_matrix(X) if sparse else X
    return RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), C), X, y


@pytest.mark.parametrize("sparse", [False, True])
def test_wide_lists_solve_the_newton_systems_in_the_items_space(sparse, monkeypatch):
    """The Woodbury form over the items and the dense system over the features give the
    same Newton direction, and it solves the whole system."""
    objective, X, y = wide_problem(sparse)
    rng = np.random.default_rng(0)
    counts = [0, 3, int(y.sum())]
    problem = count_dual._Problem(objective, counts)
    weights = np.exp(rng.uniform(-4.0, 4.0, problem.layout.n_c))
    r = rng.standard_normal(problem.layout.n_x)
    items = count_dual._Newton(problem, weights)
    assert isinstance(items.factor, count_dual._ItemsFactor)
    monkeypatch.setattr(count_dual._Items, "wide", property(lambda self: False))
    features = count_dual._Newton(count_dual._Problem(objective, counts), weights)
    assert isinstance(features.factor, count_dual._FeaturesFactor)
    dx = items.solve(r)
    np.testing.assert_allclose(dx, features.solve(r), rtol=1e-7, atol=1e-9 * np.abs(dx).max())
    residual = problem.hessian_times(dx, weights) - r
    assert np.linalg.norm(residual) <= 1e-8 * np.linalg.norm(r)


@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_interior_point_reaches_the_optimum_of_a_wide_list(C, sparse):
    """With every count kept, ``a = n₊`` included, the interior point's cut on a list with
    fewer items than features bounds the certified optimum to within 1e-8, from below."""
    objective, X, y = wide_problem(sparse, C)
    exact = solve_cutting_plane(objective, tol=1e-8)  # the optimum within its two bounds
    counts = list(range(int(y.sum()) + 1))
    cut, lower = count_dual._interior_point(objective, counts, np.zeros(X.shape[1]), np.inf,
                                            1e-10)
    assert cut is not None
    assert lower <= exact.objective + 1e-12 * abs(exact.objective)
    assert lower >= exact.lower_bound - 1e-8 * abs(exact.objective)


def test_the_cutting_plane_certifies_a_wide_list_where_the_sizes_did_not(monkeypatch):
    """Sparse 400 × 4,000 (1%) at C = 10⁴, where the rounds with the dual over labeling
    sizes ended at a gap of 8e-6 after 2,000 rounds: with the solve over counts they
    certify early, and as many rounds without it leave the gap open."""
    X, y = make_sparse_ranking_data(400, 4000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1e4)
    solved = solve_cutting_plane(objective, tol=1e-6)
    assert solved.status == "optimal" and solved.n_iter < 1000
    monkeypatch.setattr(count_dual, "suits", lambda objective: False)
    with pytest.warns(UserWarning, match="stopped after"):
        without = solve_cutting_plane(objective, tol=1e-6, max_iter=solved.n_iter,
                                      accept_inaccurate=True)
    assert without.gap > 1e-6
    for a, b in ((without, solved), (solved, without)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_a_round_whose_hinge_solve_certifies_skips_the_solve_over_counts(monkeypatch):
    """Sparse 1,500 × 200 (10%) at C = 1, whose optimum is the zero model: the hinge solve
    of round 150 gives the cut that certifies it, so the solve over counts of that round
    (which the solve suits, and which costs far more) is not run."""
    X, y = make_sparse_ranking_data(1500, 200, density=0.1, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)
    assert count_dual.suits(objective)
    calls = []
    solve = count_dual.count_dual_cut
    monkeypatch.setattr(count_dual, "count_dual_cut",
                        lambda *args, **kwargs: calls.append(1) or solve(*args, **kwargs))
    solved = solve_cutting_plane(objective, tol=1e-6)
    assert solved.status == "optimal" and solved.n_iter == 150
    assert not solved.coef.any() and calls == []


def test_a_step_that_overflows_ends_the_solve_with_its_best_cut_and_no_warning(monkeypatch):
    """A Newton solve that overflows (as on sparse 2,000 × 2,000 at C = 1) ends the interior
    point with the best cut it had, without numpy's warnings reaching the caller."""
    X, y = make_ranking_data(150, 12, noise=0.3, random_state=1)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)
    counts = list(range(int(y.sum())))
    solve, calls = count_dual._Newton.solve, []

    def counted(self, r):
        calls.append(1)
        return solve(self, r)

    monkeypatch.setattr(count_dual._Newton, "solve", counted)
    _, whole_lower = count_dual._interior_point(objective, counts, np.zeros(12), np.inf,
                                                1e-10)
    last = len(calls) - 6  # the overflows start six solves before the end

    def overflowing(self, r):
        calls.append(1)
        dx = solve(self, r)
        return dx * 1e308 * 10.0 if len(calls) > last else dx  # (inf in numpy's floats)

    calls.clear()
    monkeypatch.setattr(count_dual._Newton, "solve", overflowing)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cut, lower = count_dual._interior_point(objective, counts, np.zeros(12), np.inf,
                                                1e-10)
    assert len(calls) > last  # the overflow happened
    assert cut is not None and np.isfinite(lower)
    assert lower <= whole_lower + 1e-12 * abs(whole_lower)  # the best cut before it, still valid


@pytest.mark.parametrize("wide", [False, True])
def test_a_list_with_few_relevant_items_is_solved_over_every_count(wide, monkeypatch):
    """On a list with fewer than ``ALL_COUNTS`` relevant items the solve is over every
    count (the whole loss), with its own budget of steps, and its cut bounds the certified
    optimum to within the aim, from below; the restriction to one count, where the list
    counts as having many relevant items, stays short. A list with no more items than
    features goes to every count at once; a wide one tries the restricted counts first
    (there a step over every count is dear) and every count where they leave the gap open,
    as on this list."""
    objective, X, y = wide_problem(True, 0.1)
    if not wide:
        monkeypatch.setattr(count_dual._Items, "wide", property(lambda self: False))
    exact = solve_cutting_plane(objective, tol=1e-9)
    monkeypatch.setattr(count_dual, "COUNTS", 1)
    monkeypatch.setattr(count_dual, "REPEATS", 1)

    def bound(cut) -> float:
        return objective.C * cut.intercept - 0.5 * objective.C ** 2 * float(cut.h @ cut.h)

    start = np.zeros(X.shape[1])
    args = (objective, start, np.zeros(len(y)), objective.value(start), 1e-9)
    monkeypatch.setattr(count_dual, "ALL_COUNTS", 0)
    restricted = count_dual.count_dual_cut(*args)
    assert bound(restricted) < exact.lower_bound - 1e-6 * abs(exact.objective)
    monkeypatch.setattr(count_dual, "ALL_COUNTS", 256)
    solves, interior_point = [], count_dual._interior_point

    def recorded(objective, counts, *rest):
        solves.append((len(counts), rest[-1] if len(rest) == 5 else count_dual.STEPS))
        return interior_point(objective, counts, *rest)

    monkeypatch.setattr(count_dual, "_interior_point", recorded)
    whole = count_dual.count_dual_cut(*args)
    assert bound(whole) <= exact.objective + 1e-12 * abs(exact.objective)
    assert bound(whole) >= exact.lower_bound - 1e-8 * abs(exact.objective)
    # a solve over every count (n₊ + 1 of them), with its own, larger budget of steps, after
    # the restricted one on the wide list
    every = (int(y.sum()) + 1, count_dual.ALL_COUNTS_STEPS)
    assert solves == ([(1, count_dual.STEPS), every] if wide else [every])


def test_a_newton_matrix_left_indefinite_by_rounding_is_solved_by_lu():
    """A symmetric matrix that cancellation has left slightly indefinite (its Cholesky
    factor fails, as the Schur complement's did on OpenBLAS's SSE kernels) is solved by LU
    to a residual at the rounding's level; a definite one keeps its Cholesky factor; a
    singular one is refused with ``LinAlgError``, which ends the interior point's steps."""
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))

    def symmetric(eigenvalues: list[float]) -> np.ndarray:
        M = (Q * np.array(eigenvalues)) @ Q.T
        return 0.5 * (M + M.T)

    # entries up to 2e12 round by about 1e-3: -0.1 stays negative, 1 stays positive
    M = symmetric([2e12, 1e6, 1.0, 1e-3, 5e-9, -0.1])
    with pytest.raises(np.linalg.LinAlgError):
        scipy.linalg.cho_factor(M)
    solver = count_dual._SymmetricSolve(M.copy)  # (each factor overwrites what it is given)
    assert solver.cholesky is None
    b = rng.standard_normal((6, 2))
    x = solver.solve(b)
    assert np.linalg.norm(M @ x - b) <= 1e-10 * np.linalg.norm(M, 2) * np.linalg.norm(x)
    definite = symmetric([2e12, 1e6, 1.0, 1.0, 1.0, 1.0])
    assert count_dual._SymmetricSolve(definite.copy).cholesky is not None
    with pytest.raises(np.linalg.LinAlgError):
        count_dual._SymmetricSolve(np.diag([1.0, 0.0, 2.0]).copy)


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_factor_that_fails_in_its_kept_array_is_solved_by_lu_on_the_matrix_made_again(
        wide, sparse, monkeypatch):
    """The Newton matrix is built into an array kept for every step and factored in place;
    a Cholesky factor that fails has written over part of it, so LU gets the matrix made
    again: the direction is the one of a factor that did not fail, and solves the whole
    system."""
    objective, X, y = wide_problem(sparse)
    if not wide:
        monkeypatch.setattr(count_dual._Items, "wide", property(lambda self: False))
    rng = np.random.default_rng(1)
    counts = [0, 3, int(y.sum())]
    problem = count_dual._Problem(objective, counts)
    weights = np.exp(rng.uniform(-4.0, 4.0, problem.layout.n_c))
    r = rng.standard_normal(problem.layout.n_x)
    expected = count_dual._Newton(problem, weights).solve(r)
    cholesky = count_dual.sl.cho_factor

    def fails_half_way(matrix, **kwargs):
        matrix[len(matrix) // 2:] = np.nan  # (what a factor stopped half-way leaves)
        raise np.linalg.LinAlgError("not positive definite")

    monkeypatch.setattr(count_dual.sl, "cho_factor", fails_half_way)
    newton = count_dual._Newton(problem, weights)
    assert newton.factor.by_lu
    dx = newton.solve(r)
    np.testing.assert_allclose(dx, expected, rtol=1e-7, atol=1e-9 * np.abs(dx).max())
    assert np.linalg.norm(problem.hessian_times(dx, weights) - r) <= 1e-8 * np.linalg.norm(r)
    monkeypatch.setattr(count_dual.sl, "cho_factor", cholesky)
    again = count_dual._Newton(problem, weights)  # (the same kept array, written again)
    assert not again.factor.by_lu
    np.testing.assert_allclose(again.solve(r), expected, rtol=1e-12,
                               atol=1e-12 * np.abs(expected).max())


def test_a_solve_whose_newton_matrices_keep_failing_ends_after_a_few_lu_steps(monkeypatch):
    """Where every Newton matrix comes to LU (a solve that has lost its way), the interior
    point ends after ``LU_STEPS`` such steps with its best cut, not after ``STEPS``."""
    objective, X, y = wide_problem(False, 0.1)

    def no_cholesky(matrix, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")

    monkeypatch.setattr(count_dual.sl, "cho_factor", no_cholesky)
    built = []
    newton = count_dual._Newton
    monkeypatch.setattr(count_dual, "_Newton", lambda *args: built.append(1) or newton(*args))
    counts = list(range(int(y.sum()) + 1))
    count_dual._interior_point(objective, counts, np.zeros(X.shape[1]), np.inf, 1e-10)
    assert len(built) == count_dual.LU_STEPS + 1


def test_a_solve_goes_past_its_steps_only_while_its_own_gap_closes():
    """``_closing``: at least the share ``1 − CLOSING`` of the solve's own gap closed over
    the last ``CLOSING_STEPS`` steps, never from a step without a bound."""
    window = count_dual.CLOSING_STEPS
    falling = [2.0 ** -i for i in range(window + 1)]
    assert count_dual._closing(falling)
    assert not count_dual._closing(falling[1:])  # (too few steps to tell)
    assert not count_dual._closing([1.0] * (window + 1))
    assert not count_dual._closing([1.0] + [1.0 * count_dual.CLOSING * 1.01] * window)
    assert not count_dual._closing([np.inf] * window + [1.0])


@pytest.mark.parametrize("closing", [False, True])
def test_the_steps_beyond_the_limit_follow_the_closing_rule(closing, monkeypatch):
    """With the rule saying no, a solve that does not reach ``tol`` stops at ``steps``;
    saying yes, it takes up to ``EXTRA_STEPS`` more (tol = 0 is never reached)."""
    objective, X, y = wide_problem(False, 0.1)
    monkeypatch.setattr(count_dual, "_extends", lambda *args: closing)
    monkeypatch.setattr(count_dual, "EXTRA_STEPS", 3)
    built = []
    newton = count_dual._Newton
    monkeypatch.setattr(count_dual, "_Newton", lambda *args: built.append(1) or newton(*args))
    counts = list(range(int(y.sum()) + 1))
    count_dual._interior_point(objective, counts, np.zeros(X.shape[1]), np.inf, 0.0, steps=5)
    assert len(built) == (8 if closing else 5)


def test_no_steps_beyond_the_limit_once_the_bound_is_near_the_best_objective():
    """``_extends``: a closing gap takes another step only while the bound is more than
    ``EXTEND_FROM`` times ``tol`` short of the best objective (relative to it), and a
    bound not yet known (−∞) is short of any."""
    window = count_dual.CLOSING_STEPS
    closing = [2.0 ** -i for i in range(window + 1)]
    tol, upper = 1e-6, 100.0
    near = upper * count_dual.EXTEND_FROM * tol
    assert count_dual._extends(closing, upper, upper - 1.01 * near, tol)
    assert not count_dual._extends(closing, upper, upper - 0.99 * near, tol)
    assert count_dual._extends(closing, upper, -np.inf, tol)
    assert not count_dual._extends([1.0] * (window + 1), upper, -np.inf, tol)


def test_an_answer_mixes_counts_where_its_relevant_entries_differ():
    """The hinge's answer (count 0) gives every relevant item the entry ``−λ_0``; a count
    above 0 lifts some of them: only then does the answer mix counts."""
    X, y = make_ranking_data(60, 5, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)
    pos, neg = y == 1, y == 0
    g = np.zeros(len(y))
    g[neg] = np.linspace(0.0, 1.0, neg.sum())
    g[pos] = -0.7
    assert not count_dual.mixes_counts(objective, g)
    g[np.flatnonzero(pos)[0]] = -0.7 + 10 * count_dual.MIXED_SPREAD
    assert count_dual.mixes_counts(objective, g)


def test_a_path_asks_the_solve_over_counts_at_once_where_the_last_c_mixed_counts(
        monkeypatch):
    """Dense 800 × 200, whose optima from C = 0.1 up mix counts of relevant items: a cold
    fit waits for round 150 (the hinge's solve at round 20 leaves the gap open), while a
    path's next point, whose last C's answer mixed counts, asks the solve over counts at its
    first round and not the hinge's, and certifies the cold fit's objective there."""
    import cvxtop.solvers.box_dual as box_dual
    from cvxtop.solvers.cut_store import key_by_identity
    from cvxtop.solvers.path import solve_path

    X, y = make_ranking_data(800, 200, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 0.1)
    assert count_dual.suits(objective)
    calls = []
    for module, name in ((box_dual, "box_dual_cut"), (count_dual, "count_dual_cut")):
        solve = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, _solve=solve, _name=name, **kwargs:
                            calls.append(_name) or _solve(*args, **kwargs))
    key_by_identity(objective)
    points = solve_path(objective, [0.1, 1.0], {"tol": 1e-6})
    first = next(points)
    assert first.status == "optimal"
    assert count_dual.mixes_counts(objective, first.cuts.dual_point)
    assert calls[-1] == "count_dual_cut" and first.n_iter >= box_dual.PROXIMAL_ROUND
    calls.clear()
    second = next(points)
    assert calls == ["count_dual_cut"]
    assert second.status == "optimal" and second.n_iter < box_dual.PROXIMAL_ROUND
    cold = solve_cutting_plane(RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25),
                                                1.0), tol=1e-6)
    assert cold.n_iter >= box_dual.PROXIMAL_ROUND
    assert second.lower_bound <= cold.objective + 1e-12 * abs(cold.objective)
    assert cold.lower_bound <= second.objective + 1e-12 * abs(second.objective)

"""The max and avg surrogates' dual over the items (cvxtop.solvers.selection_dual): its point
lies in the selection LP's polytope, its value is the optimum (against an independent cvxpy
program of the same dual and against the certified primal optimum), its cut is valid at
every score vector (ties included), and the cutting plane that adds it certifies the same
optimum in fewer rounds, or, when the solve fails, runs exactly as without it."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from cvxtop import TopRanker, surrogates
from cvxtop.datasets import make_ranking_data, make_sparse_ranking_data
from cvxtop.solvers import ridge_cg, selection_dual
from cvxtop.solvers import cutting_plane as cutting
from cvxtop.solvers.selection_dual import SelectionDual, selection_dual_cut
from cvxtop.solvers.objective import RankingObjective


def instance(seed: int, n: int = 100, d: int = 40, kappa: float = 0.4, C: float = 1.0,
             name: str = "prec@k-avg"):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + rng.standard_normal(n) * rng.choice([0.3, 1.0]) > 0.3).astype(int)
    y[:2], y[-2:] = 1, 0
    return X, y, RankingObjective(X, y, surrogates.get(name, kappa), C)


def cvxpy_dual(dual: SelectionDual) -> float:
    """The same dual written directly as a cvxpy program over (u, v, t, z)."""
    u, v = cp.Variable(len(dual.neg)), cp.Variable(len(dual.pos))
    t, z = cp.Variable(), cp.Variable()
    w = -dual.C * (dual.X[dual.neg].T @ u - dual.X[dual.pos].T @ v)
    constraints = [u >= 0, u <= 1, v >= 0, v <= z, cp.sum(u) == t, cp.sum(v) == t, t >= 0,
                   t <= dual.J, z <= dual.slopes * t + dual.intercepts]
    problem = cp.Problem(cp.Maximize(dual.C * cp.sum(u) - 0.5 * cp.sum_squares(w)), constraints)
    problem.solve(solver="CLARABEL")
    return float(problem.value)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
@pytest.mark.parametrize("seed", range(12))
def test_the_dual_point_is_feasible_and_optimal(seed, name):
    X, y, objective = instance(seed, C=float(np.random.default_rng(seed).choice([0.1, 1, 10])),
                               name=name)
    with warnings.catch_warnings():  # five rounds do not certify: the start is rough
        warnings.simplefilter("ignore", UserWarning)
        start = cutting.solve_cutting_plane(objective, tol=1e-3, max_iter=5,
                                            accept_inaccurate=True).coef
    optimum = cutting.solve_cutting_plane(objective, tol=1e-10).objective
    dual = SelectionDual(X, y, objective.ks[0], objective.C, objective.surrogate)
    cut = dual.solve(start, objective, 1e-9)
    assert cut is not None
    u, v = cut.g[dual.neg], -cut.g[dual.pos]
    assert u.min() >= 0 and u.max() <= 1 and v.min() >= 0
    assert u.sum() == pytest.approx(v.sum(), rel=1e-12, abs=1e-12)
    assert v.max() <= dual.cap(float(u.sum())) + 1e-12
    value = dual.value(u, v)
    assert value <= optimum + 1e-9 * abs(optimum)  # weak duality
    assert value == pytest.approx(optimum, rel=1e-8, abs=1e-10)
    assert value == pytest.approx(cvxpy_dual(dual), rel=1e-5, abs=1e-7)
    # the cut's own bookkeeping: h = Xᵀg, w = −C·h, its scores and objective
    assert np.allclose(cut.h, X.T @ cut.g) and np.allclose(cut.weights, -objective.C * cut.h)
    assert np.allclose(cut.scores, X @ cut.weights)
    assert cut.value == pytest.approx(objective.value(cut.weights), rel=1e-12)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
@pytest.mark.parametrize("seed", range(8))
def test_the_cut_is_valid_at_every_score_vector(seed, name):
    """L(s) >= b + g·s at random scores, at scores on a grid of ties, and at the scores of
    the dual point's own weights (where it is nearly tight)."""
    X, y, objective = instance(seed, n=60, d=40, name=name)
    cut = selection_dual_cut(objective, np.zeros(X.shape[1]), 1e-9)
    assert cut is not None
    g, b = cut.g, cut.intercept
    bound = objective.parts[0].bound
    rng = np.random.default_rng(seed)
    for s in [rng.standard_normal(len(y)) * scale for scale in (0.01, 1.0, 10.0)] + \
             [rng.integers(-2, 3, len(y)) / 2.0 for _ in range(5)]:
        assert bound.value(s) >= b + g @ s - 1e-10
    s_dual = X @ (-objective.C * (X.T @ g))
    assert bound.value(s_dual) == pytest.approx(b + g @ s_dual, rel=1e-6, abs=1e-8)


def test_the_cutting_plane_certifies_in_fewer_rounds_with_the_dual_cut(monkeypatch):
    X, y = make_ranking_data(1500, 60, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    with_cut = cutting.solve_cutting_plane(objective)
    first = min(cutting.DUAL_SOLVE_ROUNDS)
    monkeypatch.setattr(cutting, "DUAL_SOLVE_ROUNDS", frozenset())
    without = cutting.solve_cutting_plane(objective)
    assert with_cut.status == without.status == "optimal"
    assert with_cut.gap <= 1e-6 and with_cut.lower_bound <= with_cut.objective
    assert with_cut.objective == pytest.approx(without.objective, rel=2e-6)
    assert with_cut.n_iter == first < without.n_iter


def test_a_failed_dual_solve_leaves_the_rounds_as_they_were(monkeypatch):
    X, y = make_ranking_data(1000, 40, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    monkeypatch.setattr(selection_dual, "ALL_STEPS", 1)
    failed = cutting.solve_cutting_plane(objective)
    monkeypatch.setattr(cutting, "DUAL_SOLVE_ROUNDS", frozenset())
    without = cutting.solve_cutting_plane(objective)
    assert failed.n_iter == without.n_iter
    assert failed.objective == without.objective and failed.lower_bound == without.lower_bound


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_features_give_the_dense_cut(fmt):
    """prec@k-avg on sparse X: the same dual point as on the same X dense."""
    X, y, objective = instance(3, n=150, d=60)
    sparse = RankingObjective(sp.csr_matrix(X).asformat(fmt), y, objective.surrogate, 1.0)
    w = np.random.default_rng(3).standard_normal(60) * 0.1
    dense_cut = selection_dual_cut(objective, w, 1e-9)
    sparse_cut = selection_dual_cut(sparse, w, 1e-9)
    assert dense_cut is not None and sparse_cut is not None
    assert sparse_cut.value == pytest.approx(dense_cut.value, rel=1e-9)
    np.testing.assert_allclose(sparse_cut.g, dense_cut.g, atol=1e-8)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
def test_sparse_wide_data_are_certified_at_the_dual_solve(monkeypatch, name):
    """On sparse data with ten times more features than items the rounds alone take
    hundreds of rounds; with the dual solve the same optimum is certified at 50."""
    X, y = make_sparse_ranking_data(400, 4000, density=0.01, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get(name, 0.25), 1.0)
    solved = cutting.solve_cutting_plane(objective, tol=1e-8)
    monkeypatch.setattr(cutting, "DUAL_SOLVE_ROUNDS", frozenset())
    alone = cutting.solve_cutting_plane(objective, tol=1e-8, max_iter=3000)
    assert solved.n_iter == 50 < alone.n_iter
    assert solved.objective == pytest.approx(alone.objective, rel=2e-8)
    for a, b in ((solved, alone), (alone, solved)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_no_dual_cut_where_it_does_not_apply():
    X, y, objective = instance(0, d=40)
    w = np.zeros(40)
    struct = objective.with_surrogate(surrogates.get("prec@k-struct", 0.4))
    assert selection_dual_cut(struct, w, 1e-6) is None
    groups = np.repeat([0, 1], 50)
    y2 = y.copy()
    y2[[0, 1, 50, 51]], y2[[48, 49, 98, 99]] = 1, 0
    grouped = RankingObjective(X, y2, objective.surrogate, 1.0, groups)
    assert selection_dual_cut(grouped, w, 1e-6) is None
    few = RankingObjective(X[:, :selection_dual.MIN_FEATURES - 1], y, objective.surrogate, 1.0)
    assert selection_dual_cut(few, w[:selection_dual.MIN_FEATURES - 1], 1e-6) is None


def test_the_bordered_solve_matches_a_plain_solve():
    """Large tied blocks go through a Cholesky factor and a Schur system; a block that is not
    negative definite falls back to LU. Both agree with numpy's solve."""
    rng = np.random.default_rng(0)
    m = selection_dual.CHOLESKY_FROM + 20
    A = rng.standard_normal((m, m // 2))
    K = rng.standard_normal((m + 4, m + 4))
    K[:m, :m] = -(A @ A.T) - 0.1 * np.eye(m)
    rhs = rng.standard_normal(m + 4)
    assert np.allclose(selection_dual._bordered_solve(K.copy(), rhs.copy(), m),
                       np.linalg.solve(K, rhs), rtol=1e-8, atol=1e-10)
    K[:m, :m] = A @ A.T + 0.1 * np.eye(m)  # positive definite: no Cholesky of its negative
    assert np.allclose(selection_dual._bordered_solve(K.copy(), rhs.copy(), m),
                       np.linalg.solve(K, rhs), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("C", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("kappa", [0.1, 1.0])
def test_with_or_without_the_dual_cut_the_same_certified_optimum(monkeypatch, C, kappa):
    """Across C and k (k = n₊ included, where avg is struct), each run's lower bound is
    below the other's objective and the objectives agree within the certified gap."""
    X, y = make_ranking_data(600, 40, noise=0.5, random_state=1)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", kappa), C)
    with_cut = cutting.solve_cutting_plane(objective, max_iter=3000)
    monkeypatch.setattr(cutting, "DUAL_SOLVE_ROUNDS", frozenset())
    without = cutting.solve_cutting_plane(objective, max_iter=3000)
    slack = 1e-9 * abs(without.objective)
    assert with_cut.lower_bound <= without.objective + slack
    assert without.lower_bound <= with_cut.objective + slack
    assert with_cut.objective == pytest.approx(without.objective, rel=2e-6)


@pytest.mark.parametrize("seed", range(5))
def test_the_tied_rows_gram_kept_across_steps_is_the_full_product(seed):
    """Step after step, with tied sets that keep some rows, drop some and add others (or are
    all new, or empty), the Gram matrix built from the last step's equals ``B Bᵀ``."""
    rng = np.random.default_rng(seed)
    X, y = make_ranking_data(300, 12, random_state=seed)
    dual = SelectionDual(X, y, 20, 1.0, surrogates.get("prec@k-avg", 20))
    items = rng.choice(300, 40, replace=False)
    for step in range(12):
        if step == 5:
            items = rng.choice(300, 60, replace=False)  # mostly new: the full product
        elif step == 8:
            items = items[:0]  # no tied item, the sum row alone
        else:
            keep = items[rng.random(len(items)) < 0.8]
            fresh = rng.choice(np.setdiff1d(np.arange(300), keep), int(rng.integers(0, 10)),
                               replace=False)
            items = rng.permutation(np.concatenate([keep, fresh]))
        B = np.vstack([X[items], rng.standard_normal((1, 12))])
        np.testing.assert_allclose(dual._tied_gram(items, B), B @ B.T, rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("seed, C", [(1, 1.0), (2, 1.0), (1, 10.0)])
def test_a_diverging_guess_is_given_up_early(seed, C, monkeypatch):
    """Without the rule (DIVERGING = inf) some proximal problems run all INNER_STEPS steps
    and fail; with it those guesses are given up within a few steps, the solve takes fewer
    steps in all, and its cut is as good (within tol of the certified optimum)."""
    X, y = make_ranking_data(1000, 40, noise=0.3, random_state=seed)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = cutting.solve_cutting_plane(objective, max_iter=50,
                                            accept_inaccurate=True).coef
    exact = cutting.solve_cutting_plane(objective, tol=1e-9).objective
    runs = {}
    for growth in (float("inf"), selection_dual.DIVERGING):
        monkeypatch.setattr(selection_dual, "DIVERGING", growth)
        steps = []
        active_set = SelectionDual._active_set

        def counted(self, guess, rho, centre):
            before = self.steps
            found = active_set(self, guess, rho, centre)
            steps.append((self.steps - before, found is not None))
            return found

        monkeypatch.setattr(SelectionDual, "_active_set", counted)
        cut = selection_dual_cut(objective, start, 1e-6)
        monkeypatch.setattr(SelectionDual, "_active_set", active_set)
        assert cut is not None
        lower = C * cut.intercept - 0.5 * float(cut.weights @ cut.weights)
        assert lower <= exact + 1e-12 * abs(exact) and cut.value >= exact * (1 - 1e-12)
        assert cut.value - exact <= 1e-6 * abs(exact) + 1e-12
        runs[growth] = steps
    unchecked, checked = runs[float("inf")], runs[selection_dual.DIVERGING]
    assert any(n == selection_dual.INNER_STEPS and not ok for n, ok in unchecked)
    assert not any(n == selection_dual.INNER_STEPS for n, _ in checked)
    assert sum(n for n, _ in checked) < sum(n for n, _ in unchecked)


@pytest.mark.parametrize("sparse", [False, True])
def test_class_sums_updated_by_the_rows_that_moved_equal_fresh_sums(sparse):
    """A class's row sum is updated by the rows that joined or left its mask (few) or
    recomputed (many); either way it is the sum of the masked rows."""
    X, y, objective = instance(5, n=300, d=40)
    Z = sp.csr_matrix(X) if sparse else X
    dual = SelectionDual(Z, y, objective.ks[0], 1.0, objective.surrogate)
    rng = np.random.default_rng(6)
    for kind, items in (("neg", dual.neg), ("pos", dual.pos)):
        mask = rng.random(len(items)) < 0.5
        for step in range(12):
            flips = rng.choice(len(items), 2 if step % 4 else len(items) // 2, replace=False)
            mask[flips] = ~mask[flips]
            np.testing.assert_allclose(dual._class_sum(kind, mask), X[items[mask]].sum(axis=0),
                                       rtol=1e-12, atol=1e-12)


def test_off_its_piece_t_goes_to_the_nearest_breakpoint():
    """On a piece, a system whose ``t`` stays within its ends keeps it; one whose ``t``
    leaves it goes to the breakpoint nearest that ``t`` (not only the end crossed), clamped
    to ``[0, J]``; prec@k-max's single piece has the breakpoints 0 and J alone."""
    X, y, objective = instance(3, n=200, d=40, kappa=0.5)
    dual = SelectionDual(X, y, objective.ks[0], 1.0, objective.surrogate)
    J = dual.J
    assert J >= 10 and np.array_equal(dual.breaks, np.arange(J + 1))

    def point(t: float) -> selection_dual._Point:
        return selection_dual._Point(np.zeros(0), np.zeros(0), 0.0, 0.0, t, 0.5, np.zeros(40))

    piece = ("piece", 4)
    for t, expected in [(4.0, piece), (4.5, piece), (5.0, piece), (5.6, ("kink", 6)),
                        (8.4, ("kink", 8)), (3.6, ("kink", 4)), (1.2, ("kink", 1)),
                        (-3.0, ("kink", 0)), (J + 7.0, ("kink", J))]:
        assert dual._next_mode(piece, point(t), 1.0) == expected, t
    X, y, objective = instance(3, n=200, d=40, kappa=0.5, name="prec@k-max")
    dual = SelectionDual(X, y, objective.ks[0], 1.0, objective.surrogate)
    for t, expected in [(0.3 * dual.J, ("piece", 0)), (-1.0, ("kink", 0)),
                        (dual.J + 2.0, ("kink", 1))]:
        assert dual._next_mode(("piece", 0), point(t), 1.0) == expected, t


def _many_tied(dual: SelectionDual, seed: int, mode: tuple[str, int]) -> selection_dual._Guess:
    """A guess with most items tied, some at their bounds, and ``t`` at ``mode``."""
    rng = np.random.default_rng(seed)
    n_neg, n_pos = len(dual.neg), len(dual.pos)
    at_one, at_cap = rng.random(n_neg) < 0.1, rng.random(n_pos) < 0.1
    tied_neg, tied_pos = ~at_one & (rng.random(n_neg) < 0.8), ~at_cap & (rng.random(n_pos) < 0.8)
    return selection_dual._Guess(at_one, tied_neg, at_cap, tied_pos, mode)


@pytest.mark.parametrize("name, mode", [("prec@k-avg", ("piece", 3)), ("prec@k-avg", ("kink", 2)),
                                        ("prec@k-max", ("piece", 0)), ("prec@k-max", ("kink", 1))])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_the_iterative_system_is_the_dense_system(monkeypatch, name, mode, C):
    """On sparse rows with many tied items the system is solved by conjugate gradients on
    the tied block and a Schur system of the other four unknowns: the same point as the
    dense system of the same guess, on a piece of the cap and at a kink."""
    X, y = make_sparse_ranking_data(300, 900, density=0.02, noise=0.5, random_state=2)
    dual = SelectionDual(X, y, 60, C, surrogates.get(name, 60))
    guess = _many_tied(dual, 3, mode)
    rng = np.random.default_rng(4)
    centre = (rng.random(len(dual.neg)), rng.random(len(dual.pos)) * 0.5, 0.7)
    rho = 0.01 * dual.row_scale
    monkeypatch.setattr(selection_dual, "ITERATIVE_FROM", 10**9)
    dense = dual._solve(guess, rho, centre, 1e-13)
    monkeypatch.setattr(selection_dual, "ITERATIVE_FROM", 1)
    dual.cg_rtol = 1e-13
    iterative = dual._solve(guess, rho, centre, 1e-13)
    assert not iterative.inexact
    for field in ("u_tied", "v_tied", "theta_neg", "theta_pos", "t", "z", "w"):
        np.testing.assert_allclose(getattr(iterative, field), getattr(dense, field),
                                   rtol=1e-7, atol=1e-8, err_msg=field)
    # the bordering equations hold exactly, whatever the gradients' residual
    rough = dual._solve(guess, rho, centre, 1e-2)
    assert rough.inexact  # above the solve's own residual: a step's guess only
    assert rough.u_tied.sum() + guess.at_one.sum() == pytest.approx(rough.t, rel=1e-12, abs=1e-12)
    assert rough.v_tied.sum() + guess.at_cap.sum() * rough.z == pytest.approx(rough.t, rel=1e-12,
                                                                              abs=1e-12)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_the_conjugate_gradients_certify_the_dense_systems_optimum(monkeypatch, name, C):
    """With every system of many tied items solved by conjugate gradients, the dual solve
    certifies at its first round the optimum that the dense systems certify."""
    X, y = make_sparse_ranking_data(600, 3000, density=0.01, noise=0.5, random_state=5)
    objective = RankingObjective(X, y, surrogates.get(name, 0.25), C)
    runs = []
    for start in (50, 10**9):
        monkeypatch.setattr(selection_dual, "ITERATIVE_FROM", start)
        runs.append(cutting.solve_cutting_plane(objective, tol=1e-8))
        assert runs[-1].n_iter == min(cutting.DUAL_SOLVE_ROUNDS)
    iterative, dense = runs
    assert iterative.objective == pytest.approx(dense.objective, rel=2e-8)
    for a, b in ((iterative, dense), (dense, iterative)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
def test_loose_first_systems_reach_the_optimum_of_full_residuals(monkeypatch, name):
    """The conjugate gradients' first systems are solved to the loose residual, and the
    solve certifies at its first round the optimum it certifies with every system at the
    full residual; no accepted guess comes from a loose answer."""
    X, y = make_sparse_ranking_data(600, 3000, density=0.01, noise=0.5, random_state=5)
    objective = RankingObjective(X, y, surrogates.get(name, 0.25), 1.0)
    monkeypatch.setattr(selection_dual, "ITERATIVE_FROM", 50)
    residuals, accepted = [], []
    solve, active_set = SelectionDual._solve, SelectionDual._active_set

    def recorded_solve(self, guess, rho, centre, cg_rtol):
        residuals.append(cg_rtol)
        return solve(self, guess, rho, centre, cg_rtol)

    def recorded_active_set(self, guess, rho, centre):
        found = active_set(self, guess, rho, centre)
        accepted.append(found is None or not found[1].inexact)
        return found

    monkeypatch.setattr(SelectionDual, "_solve", recorded_solve)
    monkeypatch.setattr(SelectionDual, "_active_set", recorded_active_set)
    loose = cutting.solve_cutting_plane(objective, tol=1e-8)
    assert ridge_cg.CG_LOOSE_RTOL in residuals and all(accepted)
    monkeypatch.setattr(ridge_cg, "CG_LOOSE_RTOL", 0.0)
    full = cutting.solve_cutting_plane(objective, tol=1e-8)
    assert loose.n_iter == full.n_iter == min(cutting.DUAL_SOLVE_ROUNDS)
    assert loose.objective == pytest.approx(full.objective, rel=2e-8)
    for a, b in ((loose, full), (full, loose)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_off_a_piece_t_goes_to_the_nearest_breakpoint_but_not_to_the_zero_point():
    """``t`` leaving its piece goes to the breakpoint nearest the system's ``t``, except
    the breakpoint 0 while ``t > 0``: there every weight is 0, and prec@k-avg's path on the
    sparse 50,000 × 50,000 set from C = 100 to 464 (``t`` from piece 1 to 0.38) failed
    three proximal problems there; it goes to the first piece instead."""
    X, y, objective = instance(3, n=200, d=40, kappa=0.5)
    dual = SelectionDual(X, y, objective.ks[0], 1.0, objective.surrogate)
    assert dual.J >= 4 and len(dual.breaks) == dual.J + 1

    def at(t: float) -> selection_dual._Point:
        return selection_dual._Point(np.zeros(0), np.zeros(0), 0.0, 0.0, t, 1.0,
                                     np.zeros(40))

    assert dual._next_mode(("piece", 2), at(2.5), 1.0) == ("piece", 2)
    assert dual._next_mode(("piece", 2), at(0.38), 1.0) == ("piece", 0)
    assert dual._next_mode(("piece", 2), at(-0.2), 1.0) == ("kink", 0)
    assert dual._next_mode(("piece", 2), at(0.0), 1.0) == ("kink", 0)
    assert dual._next_mode(("piece", 2), at(1.2), 1.0) == ("kink", 1)
    assert dual._next_mode(("piece", 0), at(3.7), 1.0) == ("kink", 4)
    assert dual._next_mode(("piece", 0), at(dual.J + 3.0), 1.0) == ("kink", dual.J)


def test_at_a_kink_with_no_capped_item_the_thresholds_choose_the_side():
    """At a breakpoint with no relevant item at the cap (π = 0), ``t`` goes to the piece
    its derivative θ⁻ + θ⁺ points to, and stays where it is zero. (prec@k-max at
    ``t = J`` with every item tied stayed at the kink and its solve failed.)"""
    X, y, objective = instance(3, n=200, d=40, kappa=0.5, name="prec@k-max")
    dual = SelectionDual(X, y, objective.ks[0], 1.0, objective.surrogate)

    def point(theta_neg: float, theta_pos: float) -> selection_dual._Point:
        return selection_dual._Point(np.zeros(0), np.zeros(0), theta_neg, theta_pos,
                                     0.0, 1.0, np.zeros(40))

    assert dual._next_mode(("kink", 1), point(0.2, -0.5), 0.0) == ("piece", 0)
    assert dual._next_mode(("kink", 1), point(0.5, -0.2), 0.0) == ("kink", 1)
    assert dual._next_mode(("kink", 0), point(0.5, -0.2), 0.0) == ("piece", 0)
    assert dual._next_mode(("kink", 0), point(0.2, -0.5), 0.0) == ("kink", 0)
    assert dual._next_mode(("kink", 1), point(0.3, -0.3), 0.0) == ("kink", 1)
    assert dual._next_mode(("kink", 1), point(0.2, -0.5), -1.0) == ("kink", 1)


@pytest.mark.parametrize("name", ["prec@k-avg", "prec@k-max"])
def test_a_path_starts_its_dual_solve_from_the_last_dual_point(name):
    """The polytope of the dual does not depend on C: a solve kept with its cuts carries
    its last dual point, and the next C's solve starts its dual solve there (at
    WARM_DUAL_ROUND), certifying the cold solve's optimum; the point's own guess holds it."""
    X, y = make_sparse_ranking_data(600, 3000, density=0.01, noise=0.5, random_state=5)
    first = RankingObjective(X, y, surrogates.get(name, 0.25), 1.0)
    kept = cutting.solve_cutting_plane(first, tol=1e-8, keep_cuts=True)
    point = kept.cuts.dual_point
    assert point is not None and point.shape == (600,)
    dual = SelectionDual(sp.csr_matrix(X), y, first.ks[0], 1.0, first.surrogate)
    guess, (u, v, z) = dual._start_at(point, kept.coef)
    assert np.array_equal(u, point[dual.neg]) and np.array_equal(v, -point[dual.pos])
    assert guess.tied_neg.any() and guess.tied_pos.any()
    assert not (guess.at_one & guess.tied_neg).any() and not (guess.at_cap & guess.tied_pos).any()
    assert dual.feasible(u, v) is not None
    second = RankingObjective(X, y, first.surrogate, 3.0)
    warm = cutting.solve_cutting_plane(second, tol=1e-8, cuts=kept.cuts)
    cold = cutting.solve_cutting_plane(second, tol=1e-8)
    assert warm.status == cold.status == "optimal"
    assert warm.n_iter <= cutting.WARM_DUAL_ROUND < cold.n_iter
    assert warm.objective == pytest.approx(cold.objective, rel=2e-8)
    for a, b in ((warm, cold), (cold, warm)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_a_path_point_with_a_class_at_its_bounds_ties_the_item_next_to_the_threshold():
    """At t = J every relevant item of prec@k-avg's dual can sit at the cap z(J) = k/n₊ (on
    the sparse 50,000 × 50,000 set the optimum does, from C = 0.01 to 4.6): the start from
    such a point ties the capped item with the highest score, the one nearest its
    threshold, where it would leave the threshold undetermined and start cold; likewise
    the irrelevant item at 0 with the highest score when none is between."""
    X, y = make_sparse_ranking_data(600, 3000, density=0.01, noise=0.5, random_state=5)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 10), 1.0)
    dual = SelectionDual(sp.csr_matrix(X), y, objective.ks[0], 1.0, objective.surrogate)
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    s = X @ w
    point = np.zeros(len(y))
    point[dual.neg] = dual.J / len(dual.neg)
    point[dual.pos] = -dual.cap(dual.J)
    assert dual.feasible(point[dual.neg], -point[dual.pos]) is not None
    guess, _ = dual._start_at(point, w)
    assert guess.mode == ("kink", dual.J) and guess.tied_neg.all()
    assert np.flatnonzero(guess.tied_pos).tolist() == [int(np.argmax(s[dual.pos]))]
    assert not (guess.at_cap & guess.tied_pos).any() and guess.at_cap.sum() == len(dual.pos) - 1
    point[dual.neg] = 0.0
    point[dual.neg[np.argsort(-s[dual.neg])[:dual.J]]] = 1.0  # every irrelevant item at a bound
    guess, _ = dual._start_at(point, w)
    order = np.argsort(-s[dual.neg])  # the lowest at 1 and the highest at 0 are tied
    assert set(np.flatnonzero(guess.tied_neg).tolist()) == {order[dual.J - 1], order[dual.J]}
    assert guess.at_one.sum() == dual.J - 1


def test_a_failed_start_from_a_path_point_leaves_the_usual_solves(monkeypatch):
    """A dual solve from the path's point that fails is not the last one: the next solve
    starts from the best point, as without a path, and certifies."""
    X, y = make_sparse_ranking_data(600, 3000, density=0.01, noise=0.5, random_state=5)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    kept = cutting.solve_cutting_plane(objective, tol=1e-8, keep_cuts=True)
    starts = []
    solve = SelectionDual.solve

    def failing_from_the_path(self, w, objective, tol, previous=None):
        starts.append(previous is not None)
        return None if previous is not None else solve(self, w, objective, tol, previous)

    monkeypatch.setattr(SelectionDual, "solve", failing_from_the_path)
    result = cutting.solve_cutting_plane(RankingObjective(X, y, objective.surrogate, 4.0),
                                         tol=1e-8, cuts=kept.cuts)
    assert starts[:2] == [True, False] and result.status == "optimal"


@pytest.mark.parametrize("name", ["prec@k-max", "prec@k-avg"])
def test_the_solve_starts_off_the_kink_at_a_point_of_zero_loss(name):
    """At a point of zero loss (every irrelevant score + 1 below every relevant one) the
    labeling predicts no irrelevant item, ``t = 0``: a start there is the zero dual point,
    and its steps gave up at once. That is where a large C's path leads (10⁴ × 1,000,
    prec@k-max down from C = 2,154 to 464 ended at 2,000 rounds). The start takes one
    irrelevant item at least, and the solve certifies from 1.05 times the optimum."""
    X, y = make_ranking_data(400, 40, noise=0.3, random_state=0)
    objective = RankingObjective(X, y.astype(float), surrogates.get(name, 0.25), 10.0)
    optimum = cutting.solve_cutting_plane(objective, tol=1e-6)
    start = 1.05 * optimum.coef
    assert objective.loss(X @ start) == 0.0
    cut = selection_dual.selection_dual_cut(objective, start, 1e-6)
    assert cut is not None
    lower = objective.C * cut.intercept - 0.5 * float(cut.weights @ cut.weights)
    assert lower <= optimum.objective + 1e-12 * abs(optimum.objective)
    assert cut.value == pytest.approx(optimum.objective, rel=2e-6)


def test_a_dual_solve_that_failed_at_the_zero_model_is_tried_again_once_the_point_moves(
        monkeypatch):
    """At the zero model every item is tied, and a failed solve from there says nothing of
    a solve from a real point (10⁴ × 1,000, prec@k-avg at C = 100: its one try, at round
    50, failed, and 2,000 rounds ended at a gap of 0.14; tried again at round 150, it
    certifies). A try from the zero model that fails leaves the next dual round to try
    again, from the best point, once that has moved."""
    X, y = make_ranking_data(1000, 40, noise=0.3, random_state=0)
    objective = RankingObjective(X, y.astype(float), surrogates.get("prec@k-avg", 0.25), 1.0)
    starts = []

    def first_fails(objective, w_start, *args, **kwargs):
        starts.append(bool(np.any(w_start)))
        if len(starts) == 1:
            return None
        return selection_dual.selection_dual_cut(objective, w_start, *args, **kwargs)

    monkeypatch.setattr(cutting, "selection_dual_cut", first_fails)
    monkeypatch.setattr(cutting, "DUAL_SOLVE_ROUNDS", frozenset({1, 50, 150}))
    result = cutting.solve_cutting_plane(objective, tol=1e-6)
    assert starts[:2] == [False, True]
    assert result.status == "optimal" and result.gap <= 1e-6
    assert result.stats["dual_solves"] >= 2


def test_a_threshold_left_without_tied_items_ties_items_that_did_not_just_leave():
    """Where a step's solve pushes every tied item of a class off its bounds (one above,
    one below), the class's threshold is tied again to the items next to it, but not to
    those that just left: their reduced gradients were computed tied, so they are always
    the nearest, and tying them again repeated the step until the solve gave up."""
    upper = np.array([True, True, False, False])
    tied = np.zeros(4, bool)
    left = np.array([False, True, True, False])  # both moved off the tie by this step
    at_upper = np.array([0.5, 0.0, 0.0, 0.0])  # the one that left is nearest to its sign
    at_zero = np.array([0.0, 0.0, -0.01, -0.2])
    selection_dual._tie_next_to_threshold(upper, tied, at_upper, at_zero, left)
    assert tied.tolist() == [True, False, False, True] and upper.tolist() == [False, True,
                                                                              False, False]
    # where only items that just left are candidates, they are taken
    upper, tied = np.array([False, True, False]), np.zeros(3, bool)
    selection_dual._tie_next_to_threshold(upper, tied, at_upper[:3], at_zero[:3],
                                          np.ones(3, bool))
    assert tied.tolist() == [True, True, False]


def test_a_path_point_whose_solve_cycled_on_a_threshold_certifies_at_its_dual_round():
    """``make_ranking_data(2000, 50, noise=0.3)``, prec@k-avg's path from C = 0.01 to 0.1
    (``benchmarks/c_path.py --quick``): the solve at round 50 tied the same two relevant
    items again and again, spent its 300 steps and failed, and the rounds certified at 124
    where the cold fit certifies at its dual round, 50."""
    X, y = make_ranking_data(2000, 50, noise=0.3)
    fits = TopRanker("prec@k-avg", k=0.25, engine="cutting-plane", tol=1e-6).fit_path(
        X, y, [0.01, 0.1])
    assert [f.status_ for f in fits] == ["optimal", "optimal"]
    assert fits[1].n_iter_ <= min(cutting.DUAL_SOLVE_ROUNDS)
    cold = TopRanker("prec@k-avg", k=0.25, C=0.1, engine="cutting-plane", tol=1e-6).fit(X, y)
    assert fits[1].objective_ == pytest.approx(cold.objective_, rel=2e-6)

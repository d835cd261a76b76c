"""The master problem's active-set solver against cvxpy (Clarabel) on random simplex QPs:
full-rank, rank-deficient (more cuts than features), repeated and nearly repeated cuts, warm
starts, restriction to the slots in use, and supports that change more often than the
Schur-complement borders allow before a refactorization."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from cvxtop.qp import simplex as simplex_qp
from cvxtop.qp import solve_simplex_qp


def reference(H, c):
    lam = cp.Variable(len(c), nonneg=True)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(H @ lam) - c @ lam),
                         [cp.sum(lam) == 1])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return problem.value


def value(Q, c, lam):
    return 0.5 * lam @ Q @ lam - c @ lam


@pytest.fixture(params=["bordered", "fresh", "fresh, then bordered"])
def faces(request, monkeypatch):
    """Each face solved by the bordered factorization, afresh (the default for faces of up
    to DIRECT_FACE indices), or afresh until the face grows past 6 indices."""
    limit = {"bordered": 0, "fresh": 10**6, "fresh, then bordered": 3}[request.param]
    monkeypatch.setattr(simplex_qp, "DIRECT_FACE", limit)
    return request.param


@pytest.mark.parametrize("shape", ["full rank", "rank deficient", "repeated cuts"])
def test_matches_cvxpy_and_is_feasible(shape, faces):
    rng = np.random.default_rng(0)
    for trial in range(30):
        m = int(rng.integers(2, 60))
        d = m + 3 if shape == "full rank" else max(1, m // 4)
        H = rng.standard_normal((d, m)) * rng.choice([0.01, 1.0, 100.0])
        if shape == "repeated cuts":
            H[:, m // 2:] = H[:, :m - m // 2]
        c = rng.standard_normal(m) * rng.choice([0.1, 1.0, 10.0])
        Q = H.T @ H
        lam = solve_simplex_qp(Q, c)
        assert lam is not None
        assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-14)
        best = reference(H, c)
        assert value(Q, c, lam) <= best + 1e-9 * max(1.0, abs(best))


@pytest.mark.parametrize("seed", range(4))
def test_nearly_repeated_cuts_from_a_random_support_match_cvxpy(seed, faces):
    """Cuts equal up to 1e-7 and a warm start on d + 1 random cuts make nearly singular
    faces; the bordered solves then lose accuracy (one such case ended with λ summing to
    −81,041) and must be redone afresh."""
    rng = np.random.default_rng(seed)
    for trial in range(25):
        d = int(rng.integers(3, 40))
        m = int(rng.integers(2 * d, 4 * d + 10))
        H = rng.standard_normal((d, m))
        copies = rng.integers(0, m // 2, m - m // 2)
        H[:, m // 2:] = H[:, copies] + 1e-7 * rng.standard_normal((d, m - m // 2))
        H *= rng.choice([0.01, 1.0, 100.0])
        c = rng.standard_normal(m) * rng.choice([0.1, 1.0, 10.0]) + 0.5 * np.sum(H ** 2, 0)
        Q = H.T @ H
        start = np.zeros(m)
        start[rng.choice(m, d + 1, replace=False)] = rng.random(d + 1)
        lam = solve_simplex_qp(Q, c, start)
        assert lam is not None
        assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-14)
        best = reference(H, c)
        assert value(Q, c, lam) <= best + 1e-9 * max(1.0, abs(best))


def test_many_support_changes_refactor_and_match_cvxpy(monkeypatch):
    """From a vertex, a full-rank problem with 150 cuts frees far more indices than
    ``MAX_BORDER``: its faces of up to 2·DIRECT_FACE indices are solved afresh, then the
    face switches to the bordered factorization. With borders alone (DIRECT_FACE = 0) the
    base face is refactored along the way, and the answer is the same."""
    calls = {"fresh": 0, "bordered": 0}
    fresh, factor = simplex_qp._DirectFaces.minimizer, simplex_qp._FaceMinimizers._factor

    def counted_fresh(self, F):
        calls["fresh"] += 1
        return fresh(self, F)

    def counted_factor(self, base):
        calls["bordered"] += 1
        return factor(self, base)

    monkeypatch.setattr(simplex_qp._DirectFaces, "minimizer", counted_fresh)
    monkeypatch.setattr(simplex_qp._FaceMinimizers, "_factor", counted_factor)
    rng = np.random.default_rng(7)
    H = rng.standard_normal((160, 150))
    c = 0.1 * rng.standard_normal(150)
    Q = H.T @ H
    lam = solve_simplex_qp(Q, c)
    assert np.count_nonzero(lam) > 2 * max(simplex_qp.MAX_BORDER, simplex_qp.DIRECT_FACE)
    assert calls["fresh"] > 0 and calls["bordered"] >= 1  # fresh solves, then the switch
    best = reference(H, c)
    assert value(Q, c, lam) <= best + 1e-9 * max(1.0, abs(best))
    monkeypatch.setattr(simplex_qp, "DIRECT_FACE", 0)
    calls.update(fresh=0, bordered=0)
    np.testing.assert_allclose(solve_simplex_qp(Q, c), lam, atol=1e-9)
    assert calls["fresh"] == 0 and calls["bordered"] > 1  # borders alone: refactored


def test_allowed_slots_alone_are_used():
    """A cut store passes its whole Gram matrix and the mask of slots in use: the answer is
    zero on the other slots and equals the solution of the restricted problem."""
    rng = np.random.default_rng(8)
    H = rng.standard_normal((6, 30))
    c = rng.standard_normal(30)
    Q = H.T @ H
    allowed = rng.random(30) < 0.5
    Q_stale = Q.copy()
    Q_stale[~allowed, :] = Q_stale[:, ~allowed] = 0.0  # no effect: those slots are unused
    lam = solve_simplex_qp(Q_stale, c + 50.0 * ~allowed, allowed=allowed)
    assert np.all(lam[~allowed] == 0)
    restricted = solve_simplex_qp(Q[np.ix_(allowed, allowed)], c[allowed])
    assert value(Q, c, lam) == pytest.approx(
        value(Q[np.ix_(allowed, allowed)], c[allowed], restricted), rel=1e-12, abs=1e-12)
    assert value(Q, c, lam) <= reference(H[:, allowed], c[allowed]) + 1e-9


def test_warm_start_after_adding_a_cut_takes_few_iterations():
    rng = np.random.default_rng(1)
    H = rng.standard_normal((10, 40))
    c = rng.standard_normal(40)
    Q = H.T @ H
    lam = solve_simplex_qp(Q[:39, :39], c[:39])
    warm = solve_simplex_qp(Q, c, np.r_[lam, 0.0], max_iter=10)
    assert warm is not None
    assert value(Q, c, warm) <= reference(H, c) + 1e-9


def test_budget_exhausted_returns_none():
    rng = np.random.default_rng(2)
    H = rng.standard_normal((30, 30))
    assert solve_simplex_qp(H.T @ H, rng.standard_normal(30), max_iter=1) is None


@pytest.mark.parametrize("name, k", [("prec@k-avg", 0.25), ("prec@k-max", 3), ("pap@k-ts", 4),
                                     ("pauc-struct", 2)])
def test_cutting_plane_with_either_master_reaches_the_same_certified_optimum(name, k):
    from cvxtop import surrogates
    from cvxtop.solvers import RankingObjective, solve_cutting_plane

    rng = np.random.default_rng(5)
    X = rng.standard_normal((150, 8))
    y = (X[:, 0] + rng.standard_normal(150) > 1.0).astype(int)
    objective = RankingObjective(X, y, surrogates.get(name, k), C=2.0)
    fast = solve_cutting_plane(objective, tol=1e-8, master="active-set")
    slow = solve_cutting_plane(objective, tol=1e-8, master="cvxpy")
    assert fast.gap <= 1e-8 and slow.gap <= 1e-8
    assert fast.objective == pytest.approx(slow.objective, rel=2e-8)
    assert fast.lower_bound <= slow.objective + 1e-12 * abs(slow.objective)


def test_an_unknown_master_is_refused():
    from cvxtop import surrogates
    from cvxtop.solvers import RankingObjective, solve_cutting_plane

    objective = RankingObjective(np.eye(4), np.array([1, 0, 1, 0]),
                                 surrogates.get("prec@k-avg", 1), C=1.0)
    with pytest.raises(ValueError, match="master must be 'active-set' or 'cvxpy'"):
        solve_cutting_plane(objective, master="gurobi")


def test_one_and_two_variables_in_closed_form_match_cvxpy():
    """The closed form for m <= 2 (each vertex, the interior stationary point, and a flat
    edge where both cuts coincide)."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        m = 1 + trial % 2
        H = rng.standard_normal((3, m)) * rng.choice([0.01, 1.0, 100.0])
        if trial % 10 == 9:
            H[:, -1] = H[:, 0]
        c = rng.standard_normal(m) * rng.choice([0.1, 1.0, 10.0])
        Q = H.T @ H
        lam = solve_simplex_qp(Q, c)
        assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-14)
        best = reference(H, c)
        assert value(Q, c, lam) <= best + 1e-9 * max(1.0, abs(best))


@pytest.mark.parametrize("row_ridge", [False, True])
@pytest.mark.parametrize("d", [5, 40])
def test_a_sequence_of_growing_masters_reuses_its_factored_face(d, row_ridge, monkeypatch):
    """Masters that grow by one cut a step, started from the last answer with a FaceCache:
    the same minimizers as cold solves (to cvxpy's accuracy), fewer factorizations, and a
    rewritten row of the face (a cut store's aggregation) drops the cached face; with the
    longest cut's ridge and with each row's own alike."""
    import cvxtop.qp.simplex as module

    monkeypatch.setattr(module, "DIRECT_FACE", 0)  # the bordered factorization only
    factored = {"count": 0}
    factor = module._FaceMinimizers._factor

    def counted(self, base):
        factored["count"] += 1
        return factor(self, base)

    monkeypatch.setattr(module._FaceMinimizers, "_factor", counted)
    rng = np.random.default_rng(d)
    H = rng.standard_normal((d, 60))
    c = rng.standard_normal(60)
    Q = H.T @ H
    cache = module.FaceCache()
    lam = np.ones(3) / 3
    cold_factorizations = 0
    for m in range(4, 61):
        start = np.r_[lam, 0.0]
        lam = solve_simplex_qp(Q[:m, :m], c[:m], start, cache=cache, row_ridge=row_ridge)
        before = factored["count"]
        cold = solve_simplex_qp(Q[:m, :m], c[:m], start, row_ridge=row_ridge)
        cold_factorizations += factored["count"] - before
        assert value(Q[:m, :m], c[:m], lam) <= reference(H[:, :m], c[:m]) + 1e-8
        np.testing.assert_allclose(cold, lam, atol=1e-9)
    assert factored["count"] - cold_factorizations < cold_factorizations / 2
    support = int(np.flatnonzero(lam)[0])
    cache.rewritten(support)
    assert cache.faces is None


def test_a_warm_start_off_its_face_minimizer_is_solved(faces):
    """A warm start is checked by its gradient before any solve; a start that is not its
    face's minimizer (a random point of the simplex) is solved on that face first."""
    rng = np.random.default_rng(10)
    for trial in range(20):
        m = int(rng.integers(3, 50))
        H = rng.standard_normal((max(2, m // 3), m))
        c = rng.standard_normal(m)
        Q = H.T @ H
        start = rng.random(m) * (rng.random(m) < 0.5)
        start[0] += 0.1
        lam = solve_simplex_qp(Q, c, start)
        assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-14)
        best = reference(H, c)
        assert value(Q, c, lam) <= best + 1e-9 * max(1.0, abs(best))


@pytest.mark.parametrize("seed", range(10))
def test_a_small_negative_multiplier_beside_long_cuts_is_not_taken_for_zero(seed):
    """A warm start whose new cut has a multiplier of 1e-5 of the objective below zero, in a
    QP whose longest cuts are far longer than the optimum's (a cutting plane's late
    master: early cuts far out, ``Qλ`` small): the tolerance must follow the terms of each
    gradient entry, not the largest diagonal entry, or the start is returned as it is and
    the master's own relative gap stays at 1e-5 (raw spambase, prec@k-avg at C = 100)."""
    rng = np.random.default_rng(seed)
    H = rng.standard_normal((10, 30)) * 0.05
    H[:, :3] *= 6.0
    c = 1e-9 + 1e-10 * rng.standard_normal(30)
    lam = solve_simplex_qp(H.T @ H, c)
    point = H @ lam
    grad = H.T @ point - c
    nu = grad[lam > 0].mean()
    objective = c @ lam - 0.5 * point @ point
    h = rng.standard_normal(10) * 0.05
    H, c = np.c_[H, h], np.r_[c, h @ point - nu + 1e-5 * abs(objective)]
    Q = H.T @ H
    lam = solve_simplex_qp(Q, c, lam0=np.r_[lam, 0.0])
    grad = Q @ lam - c
    face = lam > 0
    violation = max(0.0, float(grad[face].mean() - grad[~face].min(initial=np.inf)))
    assert violation <= 1e-9 * abs(c @ lam - 0.5 * lam @ Q @ lam)


def test_a_cut_of_zero_norm_gets_no_ridge_and_its_copies_no_weight():
    """A cutting plane's cut ``L >= 0`` at points of zero loss has a row of zeros in ``Q``;
    beside a cut 1e10 times longer, a ridge of 1e-12 of the largest entry weighed it so much
    that the solve put 1e4 times the optimal weight on the other cut (a pAp@k-TS fit on
    heavy-tailed features stalled there, its store filling with copies of that cut). The
    optimum here is known: ``λ₁ = c₁/Q₁₁ = 1e-6`` on the short cut, the rest on a zero row
    (the short cut's own ridge, 1e-12 of the longest entry, moves ``λ₁`` by 1% until the
    proximal steps take that pull out; the zero row's had moved it 3,000-fold)."""
    Q = np.diag([0.0, 0.0, 0.0, 1e-3, 1e7])
    c = np.array([0.0, 0.0, 0.0, 1e-9, -1.0])
    lam = solve_simplex_qp(Q, c)
    assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-15)
    assert lam[3] == pytest.approx(1e-6, rel=1e-9)
    assert lam[4] == 0.0
    assert np.count_nonzero(lam[:3]) == 1  # one zero row bears it; its copies are idle
    assert c @ lam - 0.5 * lam @ Q @ lam == pytest.approx(0.5e-15, rel=1e-3)


@pytest.mark.parametrize("start", [None, "last answer"])
def test_the_ridge_does_not_move_the_minimizer_of_a_master_far_below_its_longest_cut(start):
    """Near the optimum of near-duplicate rows the master's value is far below the longest
    cut's squared norm, and a ridge of 1e-12 of that norm is no longer small: here it would
    move two weights by 1% and the value by 1% (the cutting plane's bound then stalled 1e-5
    below the optimum). On the face ``λ_i = μ/Q_ii``, ``μ = 1/Σ 1/Q_ii``, and the value is
    ``−μ/2``: the proximal steps reach it to 1e-9, from a cold start and from the last
    answer (a warm start is checked by its gradient before any solve)."""
    q = np.array([1e4, 1e-6, 4e-6])
    mu = 1.0 / np.sum(1.0 / q)
    lam0 = None if start is None else mu / q * (1.0 + 0.01 * np.array([0.0, 1.0, -0.25]))
    lam = solve_simplex_qp(np.diag(q), np.zeros(3), lam0)
    np.testing.assert_allclose(lam, mu / q, rtol=1e-9)
    assert -0.5 * lam @ (q * lam) == pytest.approx(-0.5 * mu, rel=1e-9)


def test_proximal_steps_go_on_while_they_lower_the_pull_by_less_than_half():
    """Where the ridge (1e-12 of the longest cut, here 1e-8) outweighs the curvature of the
    face (1e-9 and 4e-9), each proximal step takes out only a fifth to a half of its pull.
    Steps that stopped once a step no longer halved it left the value 15% off (a
    prec@k-svmperf fit on spambase's features as shipped at C = 1e4 stalled at a relative
    gap of 1.02e-6 there); going on while the pull falls reaches the face's optimum
    ``λ_i = μ/Q_ii``, ``μ = 1/Σ 1/Q_ii``."""
    q = np.array([1e4, 4e-9, 1e-9])
    mu = 1.0 / np.sum(1.0 / q)
    lam = solve_simplex_qp(np.diag(q), np.zeros(3))
    np.testing.assert_allclose(lam, mu / q, rtol=1e-4)
    assert -0.5 * lam @ (q * lam) == pytest.approx(-0.5 * mu, rel=1e-9)


def test_a_ridge_of_each_rows_own_size_leaves_a_short_face_exact_without_proximal_steps():
    """With ``row_ridge`` each row's ridge is 1e-12 of its own ``Q_ii``: beside a cut of
    squared norm 1e4 the face of curvatures 4e-9 and 1e-9 is solved to 1e-9 with no
    proximal step (``accuracy=inf`` asks for none), where the longest cut's ridge (1e-8)
    moves its weights by more than 10%."""
    q = np.array([1e4, 4e-9, 1e-9])
    mu = 1.0 / np.sum(1.0 / q)
    by_row = solve_simplex_qp(np.diag(q), np.zeros(3), accuracy=np.inf, row_ridge=True)
    np.testing.assert_allclose(by_row, mu / q, rtol=1e-9)
    by_longest = solve_simplex_qp(np.diag(q), np.zeros(3), accuracy=np.inf)
    assert np.max(np.abs(by_longest / (mu / q) - 1.0)[1:]) > 0.1


@pytest.mark.parametrize("scale", [1.0, 1e-9])
def test_an_answer_that_the_longest_cuts_ridge_decides_is_told_from_one_it_does_not(scale):
    """Beside a cut of squared norm 1e4, a face of curvatures ``4·scale`` and ``scale``: at
    ``scale = 1e-9`` the longest cut's ridge (1e-8) pulls on the answer with 20 times the
    master's value (its weights off by more than 10%), and ``ridge_outweighs`` says so; at
    ``scale = 1`` the same face is the ridge's by 1e-12 of the value, and it does not."""
    q = np.array([1e4, 4.0 * scale, scale])
    lam = solve_simplex_qp(np.diag(q), np.zeros(3), accuracy=np.inf)
    allowed = np.ones(3, dtype=bool)
    assert simplex_qp.ridge_outweighs(np.diag(q), np.zeros(3), lam, allowed, 1.0) \
        == (scale < 1.0)


def test_a_face_factored_with_another_ridge_is_not_reused(monkeypatch):
    """A cached face is reused only where its rows' ridge is the one asked for: a face
    factored with the longest cut's ridge is not reused by a solve with each row's own (on
    cuts of squared norms 1 to 1e8 they differ on every row but the longest), nor the
    other way round; a solve with the same ridge reuses it."""
    monkeypatch.setattr(simplex_qp, "DIRECT_FACE", 0)  # the bordered factorization only
    rng = np.random.default_rng(3)
    H = rng.standard_normal((50, 60)) * np.r_[1e4, np.ones(59)]
    Q, c = H.T @ H, rng.standard_normal(60)
    for first in (False, True):
        cache = simplex_qp.FaceCache()
        lam = solve_simplex_qp(Q, c, cache=cache, row_ridge=first)
        assert cache.faces is not None
        free = lam > 0
        same = simplex_qp.RIDGE * Q.diagonal() if first \
            else simplex_qp._longest_ridge(Q, np.ones(60, dtype=bool))
        other = simplex_qp._longest_ridge(Q, np.ones(60, dtype=bool)) if first \
            else simplex_qp.RIDGE * Q.diagonal()
        assert cache.reusable(same, free) is cache.faces
        assert cache.reusable(other, free) is None


@pytest.mark.parametrize("seed", range(5))
def test_newton_steps_from_the_rows_reach_the_optimum_the_rounded_gram_matrix_misses(seed):
    """Long rows whose optimal combination is short (a master near the floor of a loss):
    the Gram matrix is stored with a rounding of 1e-9 of its entries (far coarser than
    float64's, standing in for it at a value 1e7 times smaller than the entries). The
    active-set answer on that matrix is off; Newton steps whose gradient comes from the rows
    (:func:`cvxtop.qp.refine_on_rows`) reach the optimum of the exact rows to 1e-9 of the
    value, never lowering it."""
    from cvxtop.qp import refine_on_rows
    from cvxtop.qp.rows_refinement import rows_value
    rng = np.random.default_rng(seed)
    m, d = 6, 10
    long = rng.normal(size=(m, 3))
    long -= long.mean(axis=0)  # the equal combination of the long parts is 0
    H = np.c_[1e3 * long, 1e-1 * rng.normal(size=(m, d - 3))]
    c = 1e-3 * rng.normal(size=m)
    Q = H @ H.T
    noise = rng.normal(size=(m, m)) * 1e-9 * np.sqrt(np.outer(Q.diagonal(), Q.diagonal()))
    rounded = Q + 0.5 * (noise + noise.T)
    allowed = np.ones(m, dtype=bool)
    optimum = -reference(H.T, c)
    start = solve_simplex_qp(rounded, c)
    assert optimum - rows_value(H, c, start) > 1e-6 * abs(optimum)
    refined = refine_on_rows(H, rounded, c, start, allowed)
    assert rows_value(H, c, refined) >= rows_value(H, c, start)
    assert rows_value(H, c, refined) == pytest.approx(optimum, rel=1e-9)
    assert np.all(refined >= 0) and refined.sum() == pytest.approx(1.0, abs=1e-15)

"""The Gram-matrix solver of the candidate duals (cvxtop.aatp.face_descent) and its dense
interior-point fallback (cvxtop.qp.box), against the factor-based solvers and the
cvxpy reference, on well-behaved and on degenerate kernels (clusters, heavy tails,
near-duplicate rows)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from cvxtop import AATP
from cvxtop.aatp.estimator import FACTOR_MAX_RANK
from cvxtop.aatp import face_descent
from cvxtop.aatp.face_descent import SCREENED_STATUS, FaceDescentSolver
from cvxtop.qp import solve_box_qp
from cvxtop.aatp.candidates import duplicate_representatives, nearest_neighbour_tour
from cvxtop.aatp.fast import FastDualSolver
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.aatp.problem import (CERTIFICATE_RTOL, distance_bound, items_problem, pairs_problem,
                                primal_dual_values)
from cvxtop.aatp.selection import GAP_ATOL, OBJECTIVE_RTOL, ScreenBounds, score_candidate
from cvxtop.gram import check_gram_matrix
from conftest import random_pairs

KINDS = ["gauss", "grid", "repeated", "merged", "pairs"]


def instance(rng, kind, n_max=12):
    """A problem on an rbf Gram matrix: Gaussian points, a small grid (ties), repeated
    points (as separate slots, or merged into counted slots), or preference pairs."""
    n = int(rng.integers(3, n_max + 1))
    d = int(rng.integers(1, 4))
    if kind == "grid":
        X = rng.integers(-1, 2, size=(n, d)).astype(float)
    elif kind in ("repeated", "merged"):
        X = np.repeat(rng.standard_normal(((n + 1) // 2, d)), 2, axis=0)[:n]
    else:
        X = rng.standard_normal((n, d))
    gram = check_gram_matrix(rbf_gram(X, X, float(rng.uniform(0.2, 2.0))))
    C = float(10 ** rng.uniform(-1.5, 1.5))
    factor = gram.factor().F
    if kind == "pairs":
        return pairs_problem(factor, random_pairs(rng, n), C), gram
    y = rng.integers(0, 2, n)
    y[:2] = [1, 0]
    y = rng.permutation(y)
    duplicate_of = duplicate_representatives(X, np.arange(n)) if kind == "merged" else None
    return items_problem(factor, y, C, duplicate_of), gram


def assert_same_solutions(problem, reference, solutions, tau=0.2):
    for a, b in zip(reference, solutions):
        assert a.candidate == b.candidate
        scale = max(1.0, abs(a.objective))
        assert abs(a.objective - b.objective) <= 1e-8 * scale
        assert b.duality_gap <= CERTIFICATE_RTOL * scale
        assert score_candidate(problem, a, tau).gap == pytest.approx(
            score_candidate(problem, b, tau).gap, abs=1e-7)


@pytest.mark.parametrize("kind", KINDS)
def test_every_candidate_agrees_with_the_interior_point_solver(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    for _ in range(12):
        problem, gram = instance(rng, kind)
        candidates = problem.candidates
        tour = nearest_neighbour_tour(gram, candidates)
        reference = FastDualSolver(problem).solve_many(tour)
        assert_same_solutions(problem, reference, FaceDescentSolver(problem, gram).solve_many(tour))


def test_tours_from_a_factor_and_from_the_gram_matrix_agree(rng):
    problem, gram = instance(rng, "gauss", n_max=30)
    cands = problem.candidates
    assert np.array_equal(nearest_neighbour_tour(gram, cands),
                          nearest_neighbour_tour(problem.factor, cands))


@pytest.mark.parametrize("libsvm", [False, True])
def test_the_fallback_reaches_the_same_optimum(libsvm, monkeypatch):
    """Without rounds every candidate that the pivots do not solve goes to the gap-safe
    reduction and the dense interior point, from the warm start's certificate (without
    libsvm's points, which start pivots of their own, that is most of them)."""
    monkeypatch.setattr(face_descent._Race, "choose", lambda self: True)  # whatever it costs
    rng = np.random.default_rng(1)
    statuses = set()
    for _ in range(6):
        problem, gram = instance(rng, "gauss", n_max=25)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        solutions = FaceDescentSolver(problem, gram, max_rounds=0,
                                      libsvm=libsvm).solve_many(tour)
        assert_same_solutions(problem, FastDualSolver(problem).solve_many(tour), solutions)
        statuses.update(s.status for s in solutions)
    if not libsvm:
        assert "optimal (reduced interior point)" in statuses
    assert statuses <= {"optimal", "optimal (reduced interior point)"}  # or certified at once


def test_the_next_candidate_starts_with_the_fallbacks_near_bound_slots_at_their_bounds():
    """The fallback's dense interior point leaves slots a hair inside the box; the next
    candidate starts with those within SNAP·u of a bound at that bound and the others
    where they were (a start that counted them free factored face matrices of thousands
    of slots for 92 rounds on magic at n = 5,000), and still reaches the reference
    optimum."""
    rng = np.random.default_rng(7)
    problem, gram = instance(rng, "gauss", n_max=25)
    tour = nearest_neighbour_tour(gram, problem.candidates)
    solver = FaceDescentSolver(problem, gram, max_rounds=0, libsvm=False)
    assert solver.solve(int(tour[0])).status == "optimal (reduced interior point)"
    alpha, u, snap = solver.alpha, problem.upper, face_descent.SNAP
    low = (alpha > 0) & (alpha <= snap * u)
    high = (alpha < u) & (alpha >= (1 - snap) * u)
    assert low.any() or high.any()
    start = solver._start(int(tour[1]))
    assert np.all(start[low] == 0.0) and np.array_equal(start[high], u[high])
    kept = ~(low | high) & (problem.slot_item != tour[0])  # (its slots: the hand-over's)
    assert np.array_equal(start[kept], alpha[kept])
    reference = FastDualSolver(problem).solve_many(tour[:4])
    assert_same_solutions(problem, reference[1:],
                          [solver.solve(int(k)) for k in tour[1:4]])


@pytest.mark.parametrize("kind", ["gauss", "merged", "pairs"])
def test_the_last_anchors_slots_start_with_the_values_of_the_new_anchors(kind):
    """The last anchor's slots, which its own dual held at u, start the next candidate
    at the share of u that the new anchor's slot of the same sign had (where it has one);
    every other slot starts where it was, and the candidates still reach the reference
    optimum."""
    rng = np.random.default_rng(11)
    for _ in range(6):
        problem, gram = instance(rng, kind, n_max=16)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        solver = FaceDescentSolver(problem, gram, libsvm=False)
        solutions = [solver.solve(int(tour[0]))]
        last, new = int(tour[0]), int(tour[1])
        u, snap = problem.upper, face_descent.SNAP
        alpha = solver.alpha.copy()  # the last point, snapped to the box as a start is
        alpha[alpha <= snap * u] = 0.0
        alpha[alpha >= (1 - snap) * u] = u[alpha >= (1 - snap) * u]
        item, sign = problem.slot_item, problem.slot_sign
        start = solver._start(new)
        own = np.flatnonzero(item == new)
        handed = (item == last) & np.isin(sign, sign[own])
        for slot in np.flatnonzero(handed):
            source = own[sign[own] == sign[slot]][0]
            assert start[slot] == pytest.approx(u[slot] * alpha[source] / u[source],
                                                rel=1e-15, abs=0.0)
        assert np.array_equal(start[~handed], alpha[~handed])
        solutions += [solver.solve(int(k)) for k in tour[1:]]
        assert_same_solutions(problem, FastDualSolver(problem).solve_many(tour), solutions)


@pytest.mark.parametrize("cold_memory", [0, None])
def test_the_first_candidate_starts_from_libsvm_where_its_kernel_is_too_large_to_keep(
        cold_memory, monkeypatch):
    """Where the slots' kernel matrix is too large to keep for every candidate (here the
    limit is 0), the first candidate starts from libsvm's point when that matrix fits
    COLD_START_MEMORY (None: the shipped budget), for that one fit, and from zero
    otherwise; no later candidate asks libsvm, and all reach the reference optimum."""
    from cvxtop.aatp import libsvm_start
    monkeypatch.setattr(libsvm_start, "MEMORY", 0)
    if cold_memory is not None:
        monkeypatch.setattr(face_descent, "COLD_START_MEMORY", cold_memory)
    asked = []
    real = libsvm_start.LibsvmStart.alpha
    monkeypatch.setattr(libsvm_start.LibsvmStart, "alpha",
                        lambda self, k: asked.append(k) or real(self, k))
    rng = np.random.default_rng(2)
    problem, gram = instance(rng, "gauss", n_max=25)
    tour = nearest_neighbour_tour(gram, problem.candidates)
    solver = FaceDescentSolver(problem, gram)
    assert solver.libsvm is None
    assert_same_solutions(problem, FastDualSolver(problem).solve_many(tour),
                          solver.solve_many(tour))
    assert asked == ([] if cold_memory == 0 else [int(tour[0])])


@pytest.mark.parametrize("burst", [1, 30])
def test_short_and_long_bursts_reach_the_same_optimum(burst):
    rng = np.random.default_rng(burst)
    for _ in range(6):
        problem, gram = instance(rng, "repeated", n_max=25)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        assert_same_solutions(problem, FastDualSolver(problem).solve_many(tour),
                              FaceDescentSolver(problem, gram, burst=burst).solve_many(tour))


def test_smooth_kernels_match_the_reference():
    """A wide RBF (nearly low rank, ill-conditioned faces) at small C: the choice and the
    objective are the cvxpy reference's."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 5))
    y = (X[:, 0] + 0.5 * rng.standard_normal(60) > 0.8).astype(int)
    fast = AATP(tau=0.1, C=0.1, kernel="rbf", gamma=0.01).fit(X, y)
    reference = AATP(tau=0.1, C=0.1, kernel="rbf", gamma=0.01, solver="cvxpy").fit(X, y)
    assert fast.engine_ == "interior-point" and fast.gram_rank_ <= FACTOR_MAX_RANK
    assert fast.candidate_ == reference.candidate_
    assert fast.objective_ == pytest.approx(reference.objective_, rel=1e-7)


def test_screened_candidates_hold_their_true_gap_in_their_bounds():
    rng = np.random.default_rng(3)
    screened = 0
    for _ in range(8):
        X = rng.standard_normal((70, 3))
        y = (X[:, 0] + 0.5 * rng.standard_normal(70) > 0.8).astype(int)
        gram = check_gram_matrix(rbf_gram(X, X, 0.5))
        problem = items_problem(None, y, 1.0)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        exact = {s.candidate: score_candidate(problem, s, 0.1)
                 for s in FaceDescentSolver(problem, gram, 0.1).solve_many(tour)}
        solver = FaceDescentSolver(problem, gram, 0.1)
        best = [np.inf]
        for solution in solver.iter_solutions(tour, bound=lambda: ScreenBounds(best[0])):
            score = score_candidate(problem, solution, 0.1)
            true = exact[solution.candidate].gap
            if solution.status == SCREENED_STATUS:
                screened += 1
                low, high = solution.gap_bounds
                assert low - 1e-9 <= true <= high + 1e-9
                assert low <= score.gap <= high
                assert low > best[0]
            else:
                assert score.gap == pytest.approx(true, abs=1e-8)
                best[0] = min(best[0], score.gap)
    assert screened > 20


@pytest.mark.parametrize("kind", KINDS)
def test_the_screens_count_agrees_with_the_gap_interval(kind):
    """A round's screen by gap counts weights against the threshold instead of computing
    the interval's two quantiles: it must give the interval's answer at every threshold,
    its ends and the floats next to them included (ties, counted slots and pairs too)."""
    rng = np.random.default_rng(11)
    checked = excluded = 0
    for _ in range(20):
        problem, gram = instance(rng, kind)
        solver = FaceDescentSolver(problem, gram, float(rng.uniform(0.05, 0.5)))
        for k in problem.candidates:
            anchor = solver._anchor(int(k))
            # points near the optimum, whose interval often excludes 0, and far from it
            noise = 10.0 ** rng.uniform(-6, 0) * rng.standard_normal(len(problem.upper))
            alpha = np.clip(solver.solve(int(k)).alpha + noise * problem.upper, 0.0,
                            problem.upper)
            point = solver._iterate(anchor, alpha)
            low, high = solver._gap_bounds(anchor, point)
            ends = [abs(e) for e in (low, high)] + [float(rng.uniform(0.0, 2.0 * high))]
            for end in ends:
                for t in (np.nextafter(end, 0.0), end, np.nextafter(end, np.inf)):
                    if t > 0.0:
                        assert solver._gap_exceeds(anchor, point, t) == (low > t)
                        checked += 1
                        excluded += low > t
    assert checked > 500 and excluded > 100


@pytest.mark.parametrize("gamma_d", [1.0, 10.0])
def test_candidates_screened_by_their_objective_lose_to_a_solved_candidate_of_gap_zero(gamma_d):
    """On heavy-tailed features many candidates are their own quantile point (gap exactly
    0), and the rule picks the smallest objective among those: a later candidate whose
    dual value already exceeds that objective (by twice the rule's tolerance) stops, and
    its true objective is above it."""
    rng = np.random.default_rng(7)
    X, y = degenerate_data("heavy", 150, rng)
    gram = check_gram_matrix(rbf_gram(X, X, gamma_d / 6))
    problem = items_problem(None, y, 10.0)
    tour = nearest_neighbour_tour(gram, problem.candidates)
    exact = {s.candidate: s for s in FaceDescentSolver(problem, gram, 0.05).solve_many(tour)}
    solver = FaceDescentSolver(problem, gram, 0.05)
    best, zero = [np.inf], [np.inf]
    by_objective = 0
    for solution in solver.iter_solutions(tour, bound=lambda: ScreenBounds(best[0], zero[0])):
        score = score_candidate(problem, solution, 0.05)
        if solution.status != SCREENED_STATUS:
            best[0] = min(best[0], score.gap)
            if score.gap == 0.0:
                zero[0] = min(zero[0], score.objective)
            continue
        if solution.gap_bounds[0] > best[0] + GAP_ATOL:
            continue  # screened by its gap
        by_objective += 1
        margin = OBJECTIVE_RTOL * max(1.0, zero[0])
        assert solution.dual_objective > zero[0] + 2.0 * margin
        assert exact[solution.candidate].objective > zero[0] + margin
        assert solution.objective >= exact[solution.candidate].objective - 1e-9
    assert by_objective >= 5


@pytest.mark.parametrize("seed", range(4))
def test_screening_leaves_the_choice_unchanged(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((80, 4))
    y = (X[:, 0] + 0.6 * rng.standard_normal(80) > 0.7).astype(int)
    K = rbf_gram(X, X, 0.3)
    on = AATP(tau=0.1, kernel="precomputed").fit(K, y)
    off = AATP(tau=0.1, kernel="precomputed", screen=False).fit(K, y)
    assert on.engine_ == "face-descent"
    assert on.candidate_ == off.candidate_
    assert on.objective_ == pytest.approx(off.objective_, rel=1e-10)
    assert not off.candidate_screened_.any()
    solved = ~on.candidate_screened_
    assert np.allclose(on.candidate_quantile_distances_[solved], off.candidate_quantile_distances_[solved], atol=1e-8)
    low, high = on.candidate_quantile_distance_bounds_.T
    assert np.all(low - 1e-9 <= off.candidate_quantile_distances_) and np.all(off.candidate_quantile_distances_ <= high + 1e-9)


@pytest.mark.parametrize("gamma_d", [1.0, 10.0])
def test_screening_leaves_the_choice_unchanged_among_candidates_of_gap_zero(gamma_d):
    rng = np.random.default_rng(7)
    X, y = degenerate_data("heavy", 150, rng)
    K = rbf_gram(X, X, gamma_d / 6)
    on = AATP(tau=0.05, C=10.0, kernel="precomputed").fit(K, y)
    off = AATP(tau=0.05, C=10.0, kernel="precomputed", screen=False).fit(K, y)
    assert np.count_nonzero(off.candidate_quantile_distances_ == 0.0) >= 5
    assert on.candidate_screened_.sum() > 50
    assert on.candidate_ == off.candidate_
    assert on.objective_ == pytest.approx(off.objective_, rel=1e-10)
    low, high = on.candidate_quantile_distance_bounds_.T
    assert np.all(low - 1e-9 <= off.candidate_quantile_distances_)
    assert np.all(off.candidate_quantile_distances_ <= high + 1e-9)


def degenerate_data(kind, n, rng):
    """Standardized features as users have them: heavy tails (lognormal), tight clusters,
    near-duplicate rows; about 10% relevant."""
    d = 6
    if kind == "heavy":
        X = np.exp(rng.normal(0.0, 2.0, (n, d)))
        y = (rng.random(n) < 0.1).astype(int)
        X[y == 1] *= 1.5
    elif kind == "clusters":
        label = rng.integers(0, 6, n)
        X = 3.0 * rng.standard_normal((6, d))[label] + 0.05 * rng.standard_normal((n, d))
        y = ((label == 0) | (rng.random(n) < 0.03)).astype(int)
    else:
        base = rng.standard_normal((n // 4, d))
        X = base[rng.integers(0, len(base), n)] + 1e-6 * rng.standard_normal((n, d))
        y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 1.3).astype(int)
    y[:2] = [1, 0]
    return (X - X.mean(0)) / X.std(0), y


@pytest.mark.parametrize("kind", ["heavy", "clusters", "duplicates"])
def test_degenerate_kernels_match_the_reference(kind):
    """Nearly singular Gram matrices (half the eigenvalues below 1e-8·λ_max), where block
    pivoting stalled: the same choice and objective as the cvxpy reference, every solved
    candidate certified."""
    rng = np.random.default_rng(["heavy", "clusters", "duplicates"].index(kind))
    X, y = degenerate_data(kind, 120, rng)
    for gamma, C in [(1.0 / 6, 0.1), (10.0 / 6, 10.0)]:
        K = rbf_gram(X, X, gamma)
        fast = AATP(tau=0.1, C=C, kernel="precomputed", screen=False).fit(K, y)
        reference = AATP(tau=0.1, C=C, kernel="precomputed", solver="cvxpy").fit(K, y)
        assert fast.engine_ == "face-descent", fast.gram_rank_
        scale = np.maximum(1.0, np.abs(reference.candidate_objectives_))
        assert np.all(np.abs(fast.candidate_objectives_ - reference.candidate_objectives_)
                      <= 1e-8 * scale)
        assert np.all(fast.candidate_duality_gaps_ <= CERTIFICATE_RTOL * scale)
        assert fast.candidate_ == reference.candidate_
        assert fast.objective_ == pytest.approx(reference.objective_, rel=1e-8)


def test_full_rank_gram_runs_the_face_descent_solver_and_matches_cvxpy(rng):
    X = rng.standard_normal((90, 5))
    y = (X[:, 0] > 0.5).astype(int)
    y[:2] = [1, 0]
    fast = AATP(tau=0.15, kernel="rbf", gamma=0.7).fit(X, y)
    reference = AATP(tau=0.15, kernel="rbf", gamma=0.7, solver="cvxpy").fit(X, y)
    assert fast.engine_ == "face-descent" and fast.gram_rank_ == 90
    assert reference.engine_ == "cvxpy-dual"
    assert fast.candidate_ == reference.candidate_
    assert fast.objective_ == pytest.approx(reference.objective_, rel=1e-7)
    assert np.allclose(fast.decision_function(X), reference.decision_function(X), atol=1e-5)


def test_float32_and_memory_mapped_grams_give_the_float64_fit(rng, tmp_path):
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] + 0.4 * rng.standard_normal(60) > 0.6).astype(int)
    K = rbf_gram(X, X, 0.5)
    K32 = K.astype(np.float32)
    np.save(tmp_path / "K.npy", K32)
    mapped = np.load(tmp_path / "K.npy", mmap_mode="r")
    fits = [AATP(tau=0.1, kernel="precomputed").fit(G, y) for G in (K32.astype(np.float64),
                                                                    K32, mapped)]
    for other in fits[1:]:
        assert other.candidate_ == fits[0].candidate_
        assert other.objective_ == pytest.approx(fits[0].objective_, rel=1e-6)


def test_a_float64_memory_map_is_read_in_place(rng, tmp_path):
    # joblib hands a worker a large Gram matrix as a float64 memory map: no row cache
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    y[:2] = [1, 0]
    K = rbf_gram(X, X, 0.5)
    np.save(tmp_path / "K.npy", K)
    mapped = np.load(tmp_path / "K.npy", mmap_mode="r")
    from cvxtop.aatp.face_descent import _Rows

    rows = _Rows(check_gram_matrix(mapped, "K"))
    assert rows.direct is not None and type(rows.direct) is np.ndarray
    assert len(rows.buffer) == 0
    items = np.array([3, 7, 11])
    assert np.array_equal(rows.block(items, items), K[np.ix_(items, items)])
    fits = [AATP(tau=0.1, kernel="precomputed").fit(G, y) for G in (K, mapped)]
    assert fits[1].candidate_ == fits[0].candidate_
    assert fits[1].objective_ == fits[0].objective_


@pytest.mark.parametrize("seed", range(6))
def test_box_qp_matches_cvxpy(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 15))
    A = rng.standard_normal((m, int(rng.integers(1, m + 1))))  # singular Q too
    Q, c = A @ A.T, rng.standard_normal(m)
    u = rng.uniform(0.1, 3.0, m)
    result = solve_box_qp(Q, c, u)
    x = cp.Variable(m)
    problem = cp.Problem(cp.Minimize(0.5 * cp.quad_form(x, cp.psd_wrap(Q)) + c @ x),
                         [x >= 0, x <= u])
    problem.solve(solver=cp.CLARABEL)
    assert result.converged
    value = 0.5 * result.x @ Q @ result.x + c @ result.x
    assert value <= problem.value + 1e-8 * max(1.0, abs(problem.value))
    assert np.all(result.x >= 0) and np.all(result.x <= u)


@pytest.mark.parametrize("kind", ["full rank", "low rank"])
def test_a_fit_decomposes_the_gram_matrix_once(kind, monkeypatch):
    """The rank, the PSD check, the engine's choice and the factor read one
    eigendecomposition."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((90, 5 if kind == "full rank" else 3))
    y = (X[:, 0] + 0.5 * rng.standard_normal(90) > 0.8).astype(int)
    K = rbf_gram(X, X, 0.7) if kind == "full rank" else X @ X.T
    calls = []
    for name in ("eigh", "eigvalsh"):
        original = getattr(np.linalg, name)
        monkeypatch.setattr(np.linalg, name,
                            lambda *a, _f=original, _n=name, **k: calls.append(_n) or _f(*a, **k))
    model = AATP(tau=0.1, kernel="precomputed").fit(K, y)
    assert len(calls) == 1
    expected = "face-descent" if kind == "full rank" else "interior-point"
    assert model.engine_ == expected


def test_pivots_that_give_up_hand_back_their_best_point_in_the_box(monkeypatch):
    """With one pivot allowed, pivoting gives up on most candidates; the point it hands to
    the rounds lies in the box and has no larger duality gap than the warm start, and the
    candidates still reach the interior point's optima."""
    import cvxtop.aatp.face_descent as face_descent

    monkeypatch.setattr(face_descent, "PIVOTS", 1)
    rng = np.random.default_rng(11)
    given_up = 0
    original = FaceDescentSolver._pivots

    def checked(self, anchor, point, live, restart=None):
        result, solved = original(self, anchor, point, live, restart)
        nonlocal given_up
        if not solved:
            given_up += 1
            assert np.all(result.alpha >= 0.0) and np.all(result.alpha <= self.u)
            assert result.gap <= point.gap
        return result, solved

    monkeypatch.setattr(FaceDescentSolver, "_pivots", checked)
    for _ in range(6):
        problem, gram = instance(rng, "gauss", n_max=40)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        reference = FastDualSolver(problem).solve_many(tour)
        assert_same_solutions(problem, reference,
                              FaceDescentSolver(problem, gram).solve_many(tour))
    assert given_up > 0


@pytest.mark.parametrize("switches", [0, 4])
def test_pivots_started_again_from_the_corrected_start_reach_the_optima(monkeypatch, switches):
    """Where the first pivot asks for more switches than ``RESTART_SWITCHES``, the pivots
    start again from the corrected start: the candidates reach the interior point's optima,
    and a restart that gives up hands back a point in the box with no larger duality gap
    than the warm start's."""
    import cvxtop.aatp.face_descent as face_descent

    monkeypatch.setattr(face_descent, "RESTART_SWITCHES", switches)
    rng = np.random.default_rng(5)
    restarts = 0
    original = FaceDescentSolver._pivots

    def checked(self, anchor, point, live, restart=None):
        def counted(start):
            nonlocal restarts
            restarts += 1
            return restart(start)

        result, solved = original(self, anchor, point, live,
                                  None if restart is None else counted)
        if not solved:
            assert np.all(result.alpha >= 0.0) and np.all(result.alpha <= self.u)
            assert result.gap <= point.gap
        return result, solved

    monkeypatch.setattr(FaceDescentSolver, "_pivots", checked)
    for kind in ("gauss", "grid", "repeated"):
        for _ in range(3):
            problem, gram = instance(rng, kind, n_max=40)
            tour = nearest_neighbour_tour(gram, problem.candidates)
            reference = FastDualSolver(problem).solve_many(tour)
            assert_same_solutions(problem, reference,
                                  FaceDescentSolver(problem, gram).solve_many(tour))
    assert restarts > 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_corrections_of_a_start_never_lower_the_dual_value(kind):
    """The shift of the free slots and the local face steps (``_shifted``, ``_local``) keep
    the point in the box, never lower its dual value, and carry products ``K β`` equal to
    exact ones, from neighbours' optima handed over and from random points."""
    rng = np.random.default_rng(23)
    moved = 0
    for _ in range(12):
        problem, gram = instance(rng, kind)
        solver = FaceDescentSolver(problem, gram, 0.2)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        u = problem.upper
        for last, k in zip(tour, tour[1:]):
            anchor = solver._anchor(int(k))
            live = ~solver._zero_curvature(anchor)
            inverse = np.where(live, 1.0 / np.where(live, anchor.curvature, 1.0), 0.0)
            starts = [solver.solve(int(last)).alpha, rng.uniform(0.0, 1.0, len(u)) * u]
            for alpha in starts:
                alpha = np.where(live, alpha, u)
                point = solver._iterate(anchor, alpha)
                for step in (solver._shifted(anchor, point, live),
                             solver._local(anchor, point, live, inverse)):
                    assert np.all((step.alpha >= 0.0) & (step.alpha <= u))
                    exact = solver._iterate(anchor, step.alpha)
                    assert np.allclose(step.v, exact.v, atol=1e-10)
                    assert exact.dual >= point.dual - 1e-12 * max(1.0, abs(point.dual))
                    moved += not np.array_equal(step.alpha, point.alpha)
    assert moved > 50


def test_candidates_screened_by_the_corrections_hold_their_true_gap_in_their_bounds(
        monkeypatch):
    """A local kernel at a small C (as magic 5% at γ·d = 10, C = 0.01), where a new anchor
    shifts the free slots' margins: the corrected starts screen candidates, each screened
    candidate's interval holds its true gap, and the choice is that of the solve without
    screening."""
    monkeypatch.setattr(face_descent._Race, "choose", lambda self: True)  # libsvm's way
    monkeypatch.setattr(face_descent._Corrections, "worth", lambda self: True)  # whatever
    hits = []
    corrected = FaceDescentSolver._corrected

    def recorded(self, *args):
        point, hit = corrected(self, *args)
        hits.append(hit)
        return point, hit

    monkeypatch.setattr(FaceDescentSolver, "_corrected", recorded)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] + 0.5 * rng.standard_normal(300) > 1.6).astype(int)
    gram = check_gram_matrix(rbf_gram(X, X, 10.0 / 4))
    problem = items_problem(None, y, 0.01)
    tour = nearest_neighbour_tour(gram, problem.candidates)
    exact = {s.candidate: score_candidate(problem, s, 0.05)
             for s in FaceDescentSolver(problem, gram, 0.05).solve_many(tour)}
    best = [np.inf]
    solver = FaceDescentSolver(problem, gram, 0.05)
    for solution in solver.iter_solutions(tour, bound=lambda: ScreenBounds(best[0])):
        true = exact[solution.candidate].gap
        if solution.status == SCREENED_STATUS:
            low, high = solution.gap_bounds
            assert low - 1e-9 <= true <= high + 1e-9 and low > best[0]
        else:
            best[0] = min(best[0], score_candidate(problem, solution, 0.05).gap)
    assert sum(hits) > 50
    assert best[0] == pytest.approx(min(s.gap for s in exact.values()), abs=1e-8)


def test_the_corrections_are_tried_while_their_screens_save_more_than_they_cost():
    """libsvm's screen is measured first; then the corrections are tried, kept while their
    work is below their rate of screens times libsvm's, and otherwise probed on every
    CORRECTION_PROBE-th chance."""
    policy = face_descent._Corrections()
    assert not policy.worth()  # libsvm's work is not known yet
    policy.record_libsvm(100.0)
    assert policy.worth()  # theirs is not
    policy.record(30.0, True)
    assert all(policy.worth() for _ in range(50))  # 30 < 1 × 100
    for _ in range(40):
        policy.record(30.0, False)  # the rate of screens falls below 0.3
    assert policy.rate < 0.3
    tries = [policy.worth() for _ in range(4 * face_descent.CORRECTION_PROBE)]
    assert sum(tries) == 4  # the probes only
    for _ in range(20):
        policy.record_libsvm(1e7)  # libsvm became dear: the corrections pay again
    assert policy.rate * policy.libsvm > 30.0
    assert all(policy.worth() for _ in range(10))


@pytest.mark.parametrize("kind", KINDS)
def test_a_dual_point_is_within_the_root_of_its_duality_gap_of_the_optimum(kind):
    """``‖w(α) − w*‖² ≤ P(w(α)) − D(α)`` (cvxtop.aatp.problem, distance_bound): the
    primal's strong convexity and the dual's optimality on the box together. Checked at
    random points of the box and at points near the optimum, against the optimum of a
    certified solve (whose own distance is bounded the same way)."""
    rng = np.random.default_rng(11)
    closest = np.inf  # the smallest ratio of the bound √G to a point's distance
    for _ in range(12):
        problem, gram = instance(rng, kind)
        for k in problem.candidates[:4]:
            optimum = FaceDescentSolver(problem, gram).solve(int(k))
            w_star, primal, dual = primal_dual_values(problem, int(k), optimum.alpha)
            slack = distance_bound(primal - dual)
            for scale in (1.0, 1e-1, 1e-2):
                noise = scale * problem.upper * rng.uniform(-1.0, 1.0, len(problem.upper))
                alpha = np.clip(optimum.alpha + noise, 0.0, problem.upper)
                w, primal, dual = primal_dual_values(problem, int(k), alpha)
                distance = float(np.linalg.norm(w - w_star))
                assert distance <= distance_bound(primal - dual) + slack + 1e-9
                if primal - dual > 1e-6:
                    closest = min(closest, distance_bound(primal - dual) / distance
                                  if distance > 0 else np.inf)
    assert closest < np.sqrt(2.0), closest  # a point beyond √(G/2): within √2 of tight

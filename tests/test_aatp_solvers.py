"""The per-candidate QPs: eq. (2) and eq. (4) in cvxpy, the fast numpy solver, and their
agreement with brute force (Boyd et al. 2012 Sections 3.2-3.3)."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop.reference.aatp import box_qp_by_enumeration, dual_objective
from cvxtop import AATP, SolverError
from cvxtop.aatp import cvxpy_qp
from cvxtop.aatp.dual import DualQP
from cvxtop.aatp.fast import FALLBACK_STATUS, FastDualSolver
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.gram import check_gram_matrix
from cvxtop.aatp.primal import PrimalQP
from cvxtop.aatp.problem import (
    CandidateSolution,
    require_certified,
    items_problem,
    pairs_problem,
    primal_dual_values,
)
from conftest import random_pairs

KINDS = ["gauss", "grid", "repeated", "rbf", "pairs"]


def instance(rng, kind, n_max=9):
    """A random problem: Gaussian points, points on a small grid (ties), repeated points,
    an rbf kernel, or preference pairs with items on both sides."""
    n = int(rng.integers(3, n_max + 1))
    d = int(rng.integers(1, 4))
    if kind == "grid":
        X = rng.integers(-1, 2, size=(n, d)).astype(float)
    elif kind == "repeated":
        X = np.repeat(rng.standard_normal(((n + 1) // 2, d)), 2, axis=0)[:n]
    else:
        X = rng.standard_normal((n, d))
    C = float(10 ** rng.uniform(-1.5, 1.5))
    F = check_gram_matrix(rbf_gram(X, X, 0.5)).factor().F if kind == "rbf" else X
    if kind == "pairs":
        return pairs_problem(F, random_pairs(rng, n), C)
    y = rng.integers(0, 2, n)
    y[:2] = [1, 0]
    return items_problem(F, rng.permutation(y), C)


@pytest.mark.parametrize("kind", KINDS)
def test_primal_dual_and_fast_agree_on_every_candidate(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    for _ in range(6):
        p = instance(rng, kind)
        cands = p.candidates
        primal = PrimalQP(p).solve_many(cands)
        dual = DualQP(p).solve_many(cands)
        fast = FastDualSolver(p).solve_many(cands)
        for a, b, c in zip(primal, dual, fast):
            scale = max(1.0, abs(c.objective))
            assert abs(a.objective - c.objective) <= 1e-7 * scale
            assert abs(b.objective - c.objective) <= 1e-7 * scale
            # the cvxpy problem's own optimal values: eq. (2) minimized, eq. (4) maximized
            assert c.duality_gap <= 1e-9 * scale


def test_cvxpy_optimal_values_are_equal_for_every_candidate(rng):
    """Strong duality between eq. (2) and eq. (4), read from cvxpy's problem values (the
    primal's program is eq. (2) times its weight parameter)."""
    p = instance(rng, "gauss", n_max=12)
    primal, dual = PrimalQP(p), DualQP(p)
    for k in p.candidates:
        primal.solve(int(k))
        dual.solve(int(k))
        value = primal.cvxpy_problem.value / primal.weight.value
        assert value == pytest.approx(dual.cvxpy_problem.value, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("kind", ["gauss", "grid", "repeated"])
def test_fast_solver_matches_enumeration_of_kkt_points(kind):
    rng = np.random.default_rng(11)
    for _ in range(12):
        p = instance(rng, kind, n_max=6)
        solver = FastDualSolver(p)
        for k in p.candidates:
            B = p.slot_sign[:, None] * (p.slot_factor - p.factor[k])
            best = box_qp_by_enumeration(B @ B.T, p.upper)
            assert -solver.solve(int(k)).objective == pytest.approx(best, rel=1e-8, abs=1e-9)


def test_dual_objective_is_eq4_with_the_candidate_kernel(rng):
    """D(α) computed through the factor equals the double sum of eq. (4) with K_k."""
    X = rng.standard_normal((6, 2))
    K = rbf_gram(X, X, 0.8)
    y = np.array([1, 0, 1, 1, 0, 0])
    p = items_problem(check_gram_matrix(K).factor().F, y, C=1.5)
    for _ in range(10):
        k = int(rng.integers(6))
        alpha = rng.uniform(0, 1.5, 6)
        _, _, dual = primal_dual_values(p, k, alpha)
        assert dual == pytest.approx(dual_objective(K, 2 * y - 1, alpha, k), rel=1e-10)


def test_w_is_the_sum_of_alpha_y_z_minus_zk(rng):
    """Section 3.3: w = Σ α_i y_i (z_i − z_k); the primal QP's own w agrees."""
    p = instance(rng, "gauss", n_max=10)
    X = p.factor
    primal = PrimalQP(p)
    for k in p.candidates:
        sol = FastDualSolver(p).solve(int(k))
        literal = sum(a * s * (X[i] - X[k]) for a, s, i in
                      zip(sol.alpha, p.slot_sign, p.slot_item))
        assert np.allclose(sol.w, literal, atol=1e-12)
        primal.solve(int(k))
        assert np.allclose(primal.w.value, sol.w, atol=1e-5)


def test_both_formulations_are_dpp_with_only_the_candidate_row_as_parameter(rng):
    """Compiled once: the candidate's row is the parameter (and the primal's objective
    weight, 1 or 1 over the largest hinge weight)."""
    p = instance(rng, "gauss")
    primal, dual = PrimalQP(p), DualQP(p)
    for qp in (primal, dual):
        assert qp.cvxpy_problem.is_dcp(dpp=True)
    assert dual.cvxpy_problem.parameters() == [dual.candidate_row]
    assert {id(v) for v in primal.cvxpy_problem.parameters()} == {
        id(primal.candidate_row), id(primal.weight)}


def test_warm_start_from_a_repeated_point_needs_no_iteration():
    """Two candidates at the same point: the second is certified from the first's face."""
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [-1.0, 0.5]])
    p = items_problem(X, np.array([1, 1, 0, 1, 0]), C=1.0)
    solver = FastDualSolver(p)
    solver.n_lanes = 1
    first, second = solver.solve_many([0, 1])
    assert first.n_iter > 0 and second.n_iter == 0
    assert second.objective == pytest.approx(first.objective, rel=1e-12)


def test_uncertified_lanes_go_to_the_reference_solver(rng):
    """A lane that cannot be certified (here: one interior-point iteration allowed) is
    solved by eq. (4) with Clarabel, and says so in its status."""
    p = instance(rng, "gauss")
    sol = FastDualSolver(p, max_iter=1).solve(0)
    assert sol.status == FALLBACK_STATUS
    assert sol.objective == pytest.approx(DualQP(p).solve(0).objective, rel=1e-9)


def test_fast_solver_hands_a_lane_to_the_primal_where_the_dual_reference_fails(
        rng, monkeypatch):
    """Where eq. (4) with Clarabel fails too (a false "unbounded" on badly scaled data),
    the lane goes to eq. (2), certified through its own w."""
    p = instance(rng, "gauss")

    def unbounded(self, k):
        raise SolverError("CLARABEL did not solve cvxpy candidate 0", status="unbounded")
    monkeypatch.setattr(DualQP, "solve", unbounded)
    sol = FastDualSolver(p, max_iter=1).solve(0)
    assert sol.status == FALLBACK_STATUS
    assert sol.duality_gap <= 1e-7 * max(1.0, abs(sol.objective))
    assert sol.objective == pytest.approx(PrimalQP(p).solve(0).objective, rel=1e-9)


def test_fast_solver_asks_the_reference_that_served_and_skips_failing_lanes(monkeypatch):
    """Once eq. (2) served where eq. (4) failed, eq. (2) is asked first; once nine in ten
    candidates (and at least DIRECT_REFERENCE) went to the references, the rest skip the
    lanes."""
    from cvxtop.aatp import fast

    rng = np.random.default_rng(5)
    X = rng.standard_normal((100, 2))
    p = items_problem(X, (rng.random(100) < 0.3).astype(int), 1.0)
    calls = {"dual": 0, "waves": 0}

    def failing_dual(self, k):
        calls["dual"] += 1
        raise SolverError("CLARABEL did not solve cvxpy candidate", status="unbounded")
    wave = FastDualSolver._wave

    def counted_wave(self, *args):
        calls["waves"] += 1
        return wave(self, *args)
    monkeypatch.setattr(DualQP, "solve", failing_dual)
    monkeypatch.setattr(FastDualSolver, "_wave", counted_wave)
    solver = FastDualSolver(p, max_iter=1)  # every lane fails
    solutions = solver.solve_many(p.candidates)
    assert all(s.status == FALLBACK_STATUS for s in solutions)
    assert calls["dual"] == 1
    assert solver.n_lanes < len(p.candidates) and calls["waves"] == 1
    assert fast.DIRECT_REFERENCE <= solver.n_lanes
    reference = PrimalQP(p)
    for s in solutions[::10]:
        assert s.objective == pytest.approx(reference.solve(s.candidate).objective, rel=1e-9)


def test_badly_scaled_features_at_a_large_C_are_certified():
    """Features of magnitude 3e3 at C = 61.5 (C·‖x‖² near 1e9, once rescaled): Clarabel's
    dual called this candidate QP unbounded and every engine raised; the primal's own w
    certifies it, and the fit matches the primal reference."""
    rng = np.random.default_rng(28)
    X = 3424.7 * rng.standard_normal((11, 1))
    y = np.zeros(11, dtype=int)
    y[0] = 1
    fast = AATP(tau=0.2, C=61.5).fit(X, y)
    reference = AATP(tau=0.2, C=61.5, solver="cvxpy-primal").fit(X, y)
    assert fast.candidate_ == reference.candidate_
    assert fast.objective_ == pytest.approx(reference.objective_, rel=1e-7)
    assert fast.result_.gap <= 1e-7
    assert np.allclose(fast.decision_function(X), X @ fast.coef_)


def test_badly_scaled_wide_features_are_certified_by_the_gram_engine():
    """66 features spanning five orders of magnitude (rank above the factor engine's 64):
    the Gram-matrix engine's steps and reduced interior point leave candidates
    uncertified, and eq. (2) on the features certifies them through its own w."""
    rng = np.random.default_rng(1)
    X = np.abs(rng.standard_t(2, size=(70, 66))) * 10 ** rng.uniform(-2, 3, 66)
    y = (rng.random(70) < 0.3).astype(int)
    y[:2] = [1, 0]
    fast = AATP(tau=0.1, C=1.0).fit(X, y)
    reference = AATP(tau=0.1, C=1.0, solver="cvxpy-primal").fit(X, y)
    assert fast.engine_ == "face-descent"
    assert fast.candidate_ == reference.candidate_
    assert fast.objective_ == pytest.approx(reference.objective_, rel=1e-7)
    assert np.allclose(fast.decision_function(X), X @ fast.coef_)


def test_fast_solver_raises_when_the_fallback_fails_too(rng, monkeypatch):
    p = instance(rng, "gauss")
    def infeasible(problem, *args, **kwargs):
        raise SolverError("CLARABEL did not solve dual candidate 0 to optimality",
                          status="infeasible")
    monkeypatch.setattr(cvxpy_qp._cvxpy, "solve", infeasible)
    with pytest.raises(SolverError, match="candidate 0") as err:
        FastDualSolver(p, max_iter=1).solve(0)
    assert err.value.status == "infeasible"


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_cvxpy_solver_raises_with_the_status(rng, monkeypatch):
    p = instance(rng, "gauss")
    monkeypatch.setattr(DualQP, "attempts", (cvxpy_qp.Attempt({"max_iter": 1}),))
    with pytest.raises(SolverError) as err:
        DualQP(p).solve(0)
    assert err.value.status is not None and err.value.status != "optimal"


def test_a_false_unbounded_verdict_is_explained(rng, monkeypatch):
    """Clarabel's "unbounded" or "infeasible" on a candidate's QP (which is neither) is
    raised with its status and what causes it."""
    p = instance(rng, "gauss")

    def unbounded(problem, *args, **kwargs):
        raise SolverError("CLARABEL did not solve cvxpy candidate 0", status="unbounded")
    monkeypatch.setattr(cvxpy_qp._cvxpy, "solve", unbounded)
    with pytest.raises(SolverError, match="always feasible and bounded") as err:
        DualQP(p).solve(0)
    assert err.value.status == "unbounded"


def test_an_attempt_starts_from_its_own_options(rng, monkeypatch):
    """Each attempt is a fresh Clarabel solve: cvxpy's warm start would carry the last
    solve's settings (here max_iter = 1) into the next attempt, whose defaults then fail
    as well."""
    p = instance(rng, "gauss")
    monkeypatch.setattr(DualQP, "attempts",
                        (cvxpy_qp.Attempt({"max_iter": 1}), cvxpy_qp.Attempt({})))
    solution = DualQP(p).solve(0)
    assert solution.duality_gap <= 1e-7 * max(1.0, abs(solution.objective))


def test_certificate_rejects_a_large_gap():
    bad = CandidateSolution(3, np.zeros(2), np.zeros(1), 1.0, 0.5, 7, "optimal")
    with pytest.raises(SolverError, match="candidate 3 not certified, duality gap 0.5"):
        require_certified(bad, "test")


def test_face_equations_on_a_degenerate_face_take_the_solution_nearest_the_iterate():
    """Two repeated points free on the margin: B_F B_Fᵀ is singular (a Cholesky factor
    can still 'succeed' on round-off pivots); the SVD solution closest to ``near`` is
    returned, and None when the right-hand side is outside the range."""
    from cvxtop.aatp.fast import _face_equations

    rng = np.random.default_rng(3)
    Bf = rng.standard_normal((4, 3))
    Bf[1] = Bf[0]
    M = Bf @ Bf.T
    x_true = np.array([0.2, 0.3, 0.1, 0.4])
    along_null = np.array([0.05, -0.05, 0.0, 0.0])   # e0 − e1 spans the null space
    x = _face_equations(Bf, M @ x_true, x_true + along_null)
    assert np.allclose(x, x_true + along_null, atol=1e-12)
    x = _face_equations(Bf, M @ x_true, x_true + np.array([0.0, 0.0, 0.3, -0.2]))
    assert np.allclose(x, x_true, atol=1e-12)  # off the set only across it: projected back
    assert _face_equations(Bf, np.array([1.0, -1.0, 0.0, 0.0]), x_true) is None


def test_fast_solver_certifies_a_degenerate_optimal_face():
    """A repeated positive on the margin: the optimal α of the two copies is any split of
    one total, and the solver still returns a certified point of the box."""
    X = np.array([[0.0], [2.0], [2.0], [-1.0], [3.0]])
    p = items_problem(X, np.array([0, 1, 1, 0, 1]), C=1.0)
    fast = FastDualSolver(p).solve(0)
    ref = DualQP(p).solve(0)
    assert fast.objective == pytest.approx(ref.objective, rel=1e-9)
    assert np.all(fast.alpha >= 0) and np.all(fast.alpha <= p.upper)
    assert fast.duality_gap <= 1e-10 * max(1, fast.objective)


def test_a_screened_candidate_reports_no_optimum():
    from cvxtop.aatp.problem import SCREENED_STATUS

    X, y = np.random.default_rng(0).standard_normal((12, 2)), np.r_[1, 1, np.zeros(10, int)]
    problem = items_problem(X, y, 1.0)
    alpha = np.zeros(len(problem.slot_item))
    solution = CandidateSolution(0, alpha, *primal_dual_values(problem, 0, alpha)[0:3], 0,
                                 SCREENED_STATUS)
    with pytest.raises(ValueError, match="was screened"):
        solution.result("face-descent", problem.C)

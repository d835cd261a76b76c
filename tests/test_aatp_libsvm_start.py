"""libsvm's ε-SVR as a start for the candidate duals (cvxtop.aatp.libsvm_start): the same
optimum as eq. (4) of Boyd et al. 2012, margins within the bound that makes it so, and
screening from its solutions that leaves the choice unchanged."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cvxtop import AATP
from cvxtop.aatp import face_descent, libsvm_start
from cvxtop.aatp.candidates import nearest_neighbour_tour
from cvxtop.aatp.face_descent import SCREENED_STATUS, FaceDescentSolver
from cvxtop.aatp.fast import FastDualSolver
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.aatp.libsvm_start import LibsvmStart, epsilon
from cvxtop.aatp.problem import items_problem
from cvxtop.aatp.selection import ScreenBounds, score_candidate
from cvxtop.gram import check_gram_matrix
from test_aatp_face_descent import KINDS, instance


def dual_objective(problem, K, k, alpha):
    """φ(α) = ½ αᵀQα − Σ α of candidate k, with Q from the anchored kernel, by its
    definition."""
    items, y = problem.slot_item, problem.slot_sign
    anchored = (K[np.ix_(items, items)] - K[items, k][:, None] - K[k, items][None, :]
                + K[k, k])
    Q = anchored * y[:, None] * y[None, :]
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


def start_for(problem, K, tol):
    return LibsvmStart(lambda items: K[items], problem.slot_item, problem.slot_sign,
                       problem.upper, float(K.diagonal().max()), tol=tol)


@pytest.mark.parametrize("kind", KINDS)
def test_libsvm_reaches_the_optimum_of_every_candidate(kind):
    """At a tight tolerance libsvm's α has the optimal dual objective: the ε-SVR and eq. (4)
    share their optimum (ties, repeated points, counted slots, pairs)."""
    rng = np.random.default_rng(10 + KINDS.index(kind))
    for _ in range(8):
        problem, gram = instance(rng, kind)
        K = gram.rows(slice(None))
        start = start_for(problem, K, 1e-12)
        for reference in FastDualSolver(problem).solve_many(problem.candidates):
            alpha = start.alpha(reference.candidate)
            assert np.all((alpha >= 0) & (alpha <= problem.upper))
            value = dual_objective(problem, K, reference.candidate, alpha)
            assert value == pytest.approx(-reference.objective,
                                          rel=1e-7, abs=1e-9)


def test_epsilon_exceeds_every_margin_at_the_optimum():
    """The bound behind ε: at every candidate's optimum, each margin is at most 2ε + 1, so
    no slot's other side of the ε-SVR can enter."""
    rng = np.random.default_rng(4)
    for _ in range(6):
        problem, gram = instance(rng, "gauss", n_max=20)
        K = gram.rows(slice(None))
        eps = epsilon(problem.upper, float(K.diagonal().max()))
        for solution in FastDualSolver(problem).solve_many(problem.candidates):
            k = solution.candidate
            f = problem.factor
            margins = problem.slot_sign * ((f[problem.slot_item] - f[k]) @ solution.w)
            assert margins.max() <= 2 * eps + 1


def test_a_loose_tolerance_still_gives_a_point_in_the_box_near_the_optimum():
    rng = np.random.default_rng(2)
    problem, gram = instance(rng, "gauss", n_max=30)
    K = gram.rows(slice(None))
    start = start_for(problem, K, 1e-1)
    for reference in FastDualSolver(problem).solve_many(problem.candidates[:5]):
        alpha = start.alpha(reference.candidate)
        assert np.all((alpha >= 0) & (alpha <= problem.upper))
        assert dual_objective(problem, K, reference.candidate, alpha) >= -reference.objective - 1e-9


def test_kernels_too_large_for_memory_get_no_libsvm_start(monkeypatch):
    assert LibsvmStart.fits(1000) and not LibsvmStart.fits(5000)
    assert not LibsvmStart.fits(1000, memory=8 * 1002 ** 2 - 1)
    problem = items_problem(None, np.r_[np.ones(3), np.zeros(5)].astype(int), 1.0)
    gram = check_gram_matrix(np.eye(8))
    assert FaceDescentSolver(problem, gram, 0.2).libsvm is not None
    assert FaceDescentSolver(problem, gram, 0.2, libsvm=False).libsvm is None
    monkeypatch.setattr(libsvm_start, "MEMORY", 8 * 10 ** 2 - 1)
    assert FaceDescentSolver(problem, gram, 0.2).libsvm is None


def screening_data(seed, n=90):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = (X[:, 0] + 0.6 * rng.standard_normal(n) > 1.2).astype(int)
    return rbf_gram(X, X, 2.5), y


@pytest.mark.parametrize("seed", range(3))
def test_libsvm_screening_holds_the_true_gap_and_keeps_the_choice(seed, monkeypatch):
    """Small C and a local kernel, where libsvm's points screen: every candidate screened
    from one holds its true gap in its bounds, and the choice is that of the solver
    without libsvm."""
    K, y = screening_data(seed)
    gram = check_gram_matrix(K)
    problem = items_problem(None, y, 0.01)
    tour = nearest_neighbour_tour(gram, problem.candidates)
    exact = {s.candidate: score_candidate(problem, s, 0.1)
             for s in FaceDescentSolver(problem, gram, 0.1).solve_many(tour)}
    monkeypatch.setattr(face_descent, "LIBSVM_PAUSE", 0)  # try libsvm on every candidate
    monkeypatch.setattr(face_descent._Race, "choose", lambda self: True)  # whatever it costs
    solver = FaceDescentSolver(problem, gram, 0.1)
    best, from_libsvm = [np.inf], 0
    for solution in solver.iter_solutions(tour, bound=lambda: ScreenBounds(best[0])):
        true = exact[solution.candidate].gap
        if solution.status == SCREENED_STATUS:
            from_libsvm += solution.n_iter == 0
            low, high = solution.gap_bounds
            assert low - 1e-9 <= true <= high + 1e-9
            assert low > best[0]
        else:
            best[0] = min(best[0], score_candidate(problem, solution, 0.1).gap)
    assert from_libsvm > 10
    with_libsvm = AATP(tau=0.1, C=0.01, kernel="precomputed").fit(K, y)
    assert with_libsvm.candidate_screened_.sum() > 10
    monkeypatch.setattr(FaceDescentSolver.__init__, "__kwdefaults__",
                        {**FaceDescentSolver.__init__.__kwdefaults__, "libsvm": False})
    without = AATP(tau=0.1, C=0.01, kernel="precomputed").fit(K, y)
    assert with_libsvm.candidate_ == without.candidate_
    assert with_libsvm.objective_ == pytest.approx(without.objective_, rel=1e-10)


def test_the_race_takes_the_cheaper_way_and_probes_the_other():
    """The way of less work leads; the other is probed after LIBSVM_PROBE candidates, then
    at doubling intervals while it keeps losing; one outlying candidate does not turn the
    lead, a run of them does, and the probes start again after a change of lead."""
    race = face_descent._Race()
    assert race.choose() is False  # nothing known: without libsvm
    race.record(False, 1000.0)
    ways = []
    for _ in range(face_descent.LIBSVM_PROBE):
        ways.append(race.choose())
        race.record(ways[-1], 5000.0 if ways[-1] else 1000.0)
    assert ways == [False] * (face_descent.LIBSVM_PROBE - 1) + [True]  # the first probe
    probes, position = [], 0
    for _ in range(2000):
        way = race.choose()
        position += 1
        if way:
            probes.append(position)
        race.record(way, 5000.0 if way else 1000.0)
    gaps = np.diff([0] + probes)
    assert list(gaps[:4]) == [2 * face_descent.LIBSVM_PROBE, 4 * face_descent.LIBSVM_PROBE,
                              8 * face_descent.LIBSVM_PROBE, 16 * face_descent.LIBSVM_PROBE]
    assert gaps.max() == face_descent.LIBSVM_PROBE_MAX
    race.record(False, 10 ** 6)  # one outlier: the lead stays
    assert race.choose() is False
    for _ in range(20):  # the way without libsvm turns expensive
        race.record(False, 10 ** 6)
    assert race.leader() is True
    ways = [race.choose() for _ in range(face_descent.LIBSVM_PROBE)]
    assert ways == [True] * (face_descent.LIBSVM_PROBE - 1) + [False]


def test_libsvm_is_asked_only_where_it_saves_work(monkeypatch):
    """Counted as costly, libsvm is asked on probes only (a handful over the tour); counted
    as free, on every candidate with a screening bound but the probes of the other way."""
    K, y = screening_data(0)
    gram = check_gram_matrix(K)
    problem = items_problem(None, y, 0.1)  # faces to solve: work without libsvm
    tour = nearest_neighbour_tour(gram, problem.candidates)
    calls = []
    original = LibsvmStart.alpha
    monkeypatch.setattr(LibsvmStart, "alpha", lambda self, k: calls.append(k) or original(self, k))
    monkeypatch.setattr(face_descent, "LIBSVM_PAUSE", 0)
    monkeypatch.setattr(face_descent, "LIBSVM_PROBE", 4)
    monkeypatch.setattr(face_descent, "CORRECTIONS", 0)  # (they would screen before it)
    asked = {}
    for weight in (1e9, 0.0):
        calls.clear()
        monkeypatch.setattr(face_descent, "LIBSVM_STEP_WORK", weight)
        monkeypatch.setattr(face_descent, "LIBSVM_KERNEL_WORK", weight)
        solver = FaceDescentSolver(problem, gram, 0.1)
        best = [np.inf]
        for solution in solver.iter_solutions(tour, bound=lambda: ScreenBounds(best[0])):
            if solution.status != SCREENED_STATUS:
                best[0] = min(best[0], score_candidate(problem, solution, 0.1).gap)
        asked[weight] = len(calls)
    probes = int(np.log2(len(tour) / 4)) + 1  # at 4, 4 + 8, 4 + 8 + 16, ... candidates
    assert 1 <= asked[1e9] <= 2 * probes  # a probe may ask twice (screen, start)
    assert asked[0.0] >= len(tour) - 2 - len(tour) // 4


def _svr_problem(rng, n):
    X = rng.standard_normal((n, 3))
    kernel = np.ascontiguousarray(np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1)))
    targets = rng.choice([-3.0, 3.0], n)
    weights = rng.uniform(0.1, 2.0, n)
    return kernel, targets, weights


def test_libsvm_called_directly_gives_the_estimators_result():
    """svr_dual calls the libsvm entry point SVR.fit calls, without the estimator's checks:
    the same support, coefficients and iterations as SVR itself, bit for bit."""
    from sklearn.svm import SVR

    rng = np.random.default_rng(7)
    assert libsvm_start._DIRECT["on"]  # this scikit-learn has the private entry point
    for n in (5, 17, 40):
        kernel, targets, weights = _svr_problem(rng, n)
        support, beta, iterations = libsvm_start.svr_dual(kernel, targets, weights, 2.0,
                                                          1e-3, 10_000)
        model = SVR(kernel="precomputed", C=1.0, epsilon=2.0, tol=1e-3, max_iter=10_000)
        model.fit(kernel, targets, sample_weight=weights)
        np.testing.assert_array_equal(support, model.support_)
        np.testing.assert_array_equal(beta, model.dual_coef_[0])
        assert iterations == int(np.sum(model.n_iter_))


def test_a_changed_libsvm_entry_point_falls_back_to_the_estimator(monkeypatch):
    """Where the private entry point's signature differs, the estimator answers, the same
    numbers, and later calls go straight to it."""
    rng = np.random.default_rng(8)
    kernel, targets, weights = _svr_problem(rng, 20)
    expected = libsvm_start.svr_dual(kernel, targets, weights, 2.0, 1e-3, 10_000)
    calls = []

    def changed(*args, **kwargs):
        calls.append(1)
        raise TypeError("fit() got an unexpected keyword argument 'sample_weight'")

    monkeypatch.setattr(libsvm_start, "_libsvm",
                        SimpleNamespace(fit=changed, set_verbosity_wrap=lambda level: None))
    monkeypatch.setitem(libsvm_start._DIRECT, "on", True)
    for _ in range(2):
        support, beta, iterations = libsvm_start.svr_dual(kernel, targets, weights, 2.0,
                                                          1e-3, 10_000)
        np.testing.assert_array_equal(support, expected[0])
        np.testing.assert_array_equal(beta, expected[1])
        assert iterations == expected[2]
    assert len(calls) == 1 and not libsvm_start._DIRECT["on"]

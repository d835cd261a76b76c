"""prec@k-svmperf's hinge part solved over the irrelevant items, and prec@k-struct's dual
over the items (cvxtop.solvers.box_dual): every point of Q gives a cut valid at every score vector
(checked against the brute-force definition, ties included), the solve's value is the
certified optimum and its gap closes at once, and the cutting plane that adds it certifies
the same optimum in fewer rounds, or, when it fails, runs exactly as without it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from cvxtop import TopRanker, reference, surrogates
from cvxtop.datasets import make_ranking_data, make_sparse_ranking_data
from cvxtop.solvers import box_dual, count_dual, ridge_cg, size_dual, solve_cutting_plane
from cvxtop.solvers import cutting_plane as cutting
from cvxtop.solvers.objective import RankingObjective
from cvxtop.solvers.selection_dual import DualCut, most_violating
from cvxtop.surrogates.prec_svmperf import svmperf_c


def hinge_regime(n: int = 2000, d: int = 1000, c_perf: float = 0.1
                 ) -> tuple[RankingObjective, int]:
    """A sparse problem whose optimum predicts no relevant item (found by a look at the
    optimum's labeling: ``a = 0`` for C_perf 0.1 and 1 here)."""
    X, y = make_sparse_ranking_data(n, d, density=0.02, noise=0.5, random_state=0)
    k = int(np.floor(0.5 * y.sum()))
    return RankingObjective(X, y, surrogates.get("prec@k-svmperf", k),
                            svmperf_c(c_perf, k, n)), k


def assert_cut_holds(objective: RankingObjective, cut, trials: int = 30) -> None:
    """``L(s) >= intercept + g·s`` at the cut's own scores and at random scores around
    them, some with every item's score rounded onto a coarse grid (ties)."""
    rng = np.random.default_rng(0)
    scale = float(np.abs(cut.scores).max())
    for trial in range(trials):
        s = cut.scores + scale * rng.standard_normal(len(cut.scores)) * 10.0 ** -(trial % 5)
        if trial % 3 == 0:
            s = np.round(s / (0.1 * scale)) * 0.1 * scale
        if trial == 0:
            s = cut.scores
        loss, _ = objective.loss_and_score_gradient(s)
        assert loss >= cut.intercept + float(cut.g @ s) - 1e-12 * max(1.0, abs(loss))


def rounds_alone(objective: RankingObjective, monkeypatch, **options):
    with monkeypatch.context() as patch:
        patch.setattr(box_dual, "SOLVE_ROUNDS", frozenset())
        return solve_cutting_plane(objective, **options)


@pytest.mark.parametrize("seed", range(40))
def test_every_point_of_q_gives_a_valid_cut(seed):
    """``L(s) >= k − Σs⁺ + v·s⁻`` for every ``v`` in ``[0, 1]`` with ``Σv >= k``, at random
    scores and on grids of ties, against the brute-force enumeration of SVMperf's loss."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=int(rng.integers(1, n - 1)), replace=False)] = 1
    n_pos, n_neg = int(y.sum()), int(n - y.sum())
    k = int(rng.integers(1, min(n_pos, n_neg - 1) + 1)) if n_neg > 1 else 1
    for _ in range(20):
        v = rng.random(n_neg)
        v[rng.random(n_neg) < 0.3] = rng.choice([0.0, 1.0])
        if v.sum() < k:
            v[np.argsort(v)[::-1][:k]] = 1.0
        s = rng.standard_normal(n) if rng.random() < 0.5 else rng.integers(-2, 3, n) / 2.0
        cut = k - s[y == 1].sum() + v @ s[y == 0]
        assert reference.prec_svmperf(y, s, k) >= cut - 1e-12


@pytest.mark.parametrize("c_perf", [0.1, 1.0])
def test_the_solve_reaches_the_certified_optimum_at_once(c_perf, monkeypatch):
    """From a rough point (the rounds' best after 5 rounds) the solve's weights have the
    certified optimum's objective, and its dual value meets it: the gap closes at once."""
    objective, k = hinge_regime(c_perf=c_perf)
    exact = rounds_alone(objective, monkeypatch, tol=1e-9, max_iter=3000)
    with pytest.warns(UserWarning, match="stopped after 5 rounds"):
        start = rounds_alone(objective, monkeypatch, tol=0.0, max_iter=5,
                             accept_inaccurate=True)
    scores = np.asarray(objective.Z @ start.coef).ravel()
    _, g = objective.loss_and_score_gradient(scores)
    assert box_dual.applies(objective, g)
    cut = box_dual.hinge_dual_cut(objective, scores, 1e-10)
    assert cut is not None
    dual_value = objective.C * cut.intercept - 0.5 * float(cut.weights @ cut.weights)
    assert cut.value == pytest.approx(exact.objective, rel=1e-8)
    assert dual_value <= exact.objective + 1e-12 * abs(exact.objective)
    assert (cut.value - dual_value) / cut.value <= 1e-8
    assert_cut_holds(objective, cut)
    # the cut's vector is −1 on the relevant items and in [0, 1] on the others
    y = objective.y
    assert np.all(cut.g[y == 1] == -1.0)
    assert np.all((cut.g[y == 0] >= 0) & (cut.g[y == 0] <= 1)) and cut.g[y == 0].sum() > k


@pytest.mark.parametrize("c_perf", [0.1, 1.0])
def test_the_cutting_plane_with_the_solve_certifies_the_same_optimum_sooner(c_perf,
                                                                           monkeypatch):
    objective, _ = hinge_regime(c_perf=c_perf)
    alone = rounds_alone(objective, monkeypatch, tol=1e-8, max_iter=3000)
    solved = solve_cutting_plane(objective, tol=1e-8)
    assert alone.status == solved.status == "optimal"
    assert solved.n_iter == min(box_dual.SOLVE_ROUNDS) < alone.n_iter
    for a, b in ((alone, solved), (solved, alone)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)
    assert solved.objective == pytest.approx(alone.objective, rel=2e-8)


def test_a_failed_solve_leaves_the_rounds_as_they_were(monkeypatch):
    """Where a round's best point predicts a relevant item, the solve over labeling sizes is
    tried instead (and gives a cut): turned off too, with the count solve, so that the box
    solve is the only one, whichever point the rounds reach."""
    objective, _ = hinge_regime(n=1000, d=2000, c_perf=1.0)
    monkeypatch.setattr(count_dual, "suits", lambda objective: False)  # the box solve alone
    monkeypatch.setattr(size_dual, "suits", lambda objective: False)
    alone = rounds_alone(objective, monkeypatch, tol=1e-7)
    monkeypatch.setattr(box_dual, "MAX_STEPS", 0)  # every solve gives up,
    monkeypatch.setattr(box_dual, "PROXIMAL_INNER_STEPS", 0)  # its proximal points too
    failed = solve_cutting_plane(objective, tol=1e-7)
    assert failed.n_iter == alone.n_iter
    # the same rounds, up to the rounding of sums whose order depends on where numpy's
    # arrays lie in memory (the failed solves allocate): equal bits on one machine, not
    # on every CPU
    np.testing.assert_allclose(failed.coef, alone.coef, rtol=1e-8,
                               atol=1e-12 * float(np.abs(alone.coef).max()))


def test_the_solve_is_tried_for_struct_and_for_svmperf_with_no_relevant_item_predicted():
    objective, _ = hinge_regime()
    bound = objective.parts[0].bound
    none_predicted = np.zeros(bound.n)
    none_predicted[bound.pos] = -1.0
    some_predicted = none_predicted.copy()
    some_predicted[bound.pos[0]] = 0.0
    assert box_dual.applies(objective, none_predicted)
    assert not box_dual.applies(objective, some_predicted)
    X, y = objective.Z, objective.y
    for other in (RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0),
                  RankingObjective(X, y, surrogates.get("prec@k-svmperf", 5), 1.0,
                                   groups=np.arange(len(y)) % 2),
                  RankingObjective(X[:, :10], y, objective.surrogate, 1.0)):
        assert not box_dual.suits(other)
    assert box_dual.suits(objective) and cutting.DUAL_SOLVE_ROUNDS != box_dual.SOLVE_ROUNDS
    struct = RankingObjective(X, y, surrogates.get("prec@k-struct", 5), 1.0)
    assert box_dual.applies(struct, none_predicted) and box_dual.applies(struct, some_predicted)


def test_dense_features_give_the_same_cut_as_sparse_ones(monkeypatch):
    objective, _ = hinge_regime()
    dense = RankingObjective(sparse.csr_matrix(objective.Z).toarray(), objective.y,
                             objective.surrogate, objective.C)
    with pytest.warns(UserWarning, match="stopped after 5 rounds"):
        rough = rounds_alone(objective, monkeypatch, tol=0.0, max_iter=5,
                             accept_inaccurate=True)
    start = np.asarray(objective.Z @ rough.coef).ravel()
    a = box_dual.hinge_dual_cut(objective, start, 1e-10)
    b = box_dual.hinge_dual_cut(dense, start, 1e-10)
    assert a is not None and b is not None
    assert a.value == pytest.approx(b.value, rel=1e-9)


def test_a_threshold_held_by_the_sum_lies_below_zero(monkeypatch):
    """Where fewer than k irrelevant items would keep weight at threshold 0, the sum's bound
    holds: the tied items share a threshold below 0, the weights sum to k, and the solve
    still certifies the optimum of the rounds alone."""
    X, y = make_sparse_ranking_data(1000, 10000, density=0.005, noise=0.5, random_state=1)
    k = int(np.floor(0.5 * y.sum()))
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", k),
                                 svmperf_c(0.1, k, 1000))
    cuts = []
    solve = box_dual.hinge_dual_cut
    monkeypatch.setattr(box_dual, "hinge_dual_cut",
                        lambda *args: cuts.append(solve(*args)) or cuts[-1])
    solved = solve_cutting_plane(objective, tol=1e-8)
    monkeypatch.setattr(box_dual, "hinge_dual_cut", solve)
    alone = rounds_alone(objective, monkeypatch, tol=1e-8, max_iter=3000)
    assert len(cuts) == 1 and cuts[0] is not None
    v = cuts[0].g[y == 0]
    assert k <= math.fsum(v) <= k + 1e-6  # the bound holds (k = 50 of 900 items)
    tied = (v > 1e-9) & (v < 1 - 1e-9)
    threshold = cuts[0].scores[y == 0][tied]
    assert np.all(threshold < 0) and np.ptp(threshold) <= 1e-6 * np.abs(threshold).max()
    assert solved.n_iter == 20 < alone.n_iter
    assert solved.objective == pytest.approx(alone.objective, rel=2e-8)
    assert_cut_holds(objective, cuts[0])
    for a, b in ((alone, solved), (solved, alone)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_more_tied_items_than_features_are_solved_by_proximal_points():
    """With as many tied items as features the tied system is singular and the steps give
    up; the proximal points' systems are definite, and their cut closes the gap."""
    X, y = make_sparse_ranking_data(600, 40, density=0.2, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 10), 1e-3)
    k = objective.parts[0].bound.k
    problem = box_dual._BoxProblem(objective.Z[y == 0], np.zeros(int((y == 0).sum())),
                                   np.zeros(40), k, objective.C, False)
    every = np.ones(int((y == 0).sum()), bool)
    assert box_dual._box_sum_weights(problem, ~every, every, 1e-8) is None  # all tied
    cut = box_dual.hinge_dual_cut(objective, np.zeros(600), 1e-8)
    assert cut is not None
    lower = objective.C * cut.intercept - 0.5 * float(cut.weights @ cut.weights)
    assert cut.value - lower <= 1e-8 * cut.value
    assert_cut_holds(objective, cut)
    alone = rounds_alone(objective, pytest.MonkeyPatch(), tol=1e-8)
    assert lower <= alone.objective + 1e-12 * abs(alone.objective)
    assert alone.lower_bound <= cut.value


def test_a_zero_model_optimum_is_certified():
    """On ``make_ranking_data(5,000, 100)`` at C = 1 the zero model is the optimum, with every
    irrelevant item tied at score 0: the rounds alone stopped at a gap of 3e-2 after 2,000
    rounds; the proximal points certify it at their first solve, on these dense rows the
    first solve round (on sparse rows, and for prec@k-struct, they wait for
    ``PROXIMAL_ROUND``)."""
    X, y = make_ranking_data(5000, 100)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)
    assert box_dual.proximal_round(objective) == box_dual.DENSE_PROXIMAL_ROUND
    sparse_rows = RankingObjective(sparse.csr_matrix(X), y, objective.surrogate, 1.0)
    struct = RankingObjective(X, y, surrogates.get("prec@k-struct", 0.25), 1.0)
    assert box_dual.proximal_round(sparse_rows) == box_dual.proximal_round(struct) \
        == box_dual.PROXIMAL_ROUND
    solved = solve_cutting_plane(objective, tol=1e-8)
    k = objective.parts[0].bound.k
    assert solved.status == "optimal" and solved.n_iter == box_dual.DENSE_PROXIMAL_ROUND
    assert solved.objective == pytest.approx(k, rel=1e-12)  # C·L(0) = C·k
    assert solved.lower_bound <= solved.objective



@pytest.mark.parametrize("C", [0.01, 100.0])
def test_dense_rows_take_proximal_points_from_the_first_solve(C, monkeypatch):
    """pAp@k-avg on dense rows of 40 features: the steps fail (as many tied items as
    features), and the proximal points, from the first solve round on dense rows, certify
    there the optimum that the rule of sparse rows (proximal points from round 150) reaches
    only after more rounds."""
    X, y = make_ranking_data(1000, 40, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), C)
    early = solve_cutting_plane(objective, tol=1e-8)
    first = box_dual.DENSE_PROXIMAL_ROUND
    monkeypatch.setattr(box_dual, "DENSE_PROXIMAL_ROUND", box_dual.PROXIMAL_ROUND)
    late = solve_cutting_plane(RankingObjective(X, y, objective.surrogate, C), tol=1e-8)
    assert early.status == late.status == "optimal"
    assert early.n_iter == first == min(box_dual.SOLVE_ROUNDS) < late.n_iter
    for a, b in ((early, late), (late, early)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)
    assert early.objective == pytest.approx(late.objective, rel=2e-8)


def test_a_dense_path_takes_proximal_points_from_the_last_dual_point():
    """On the same dense rows a path's first try, from the last C's dual point, may take
    proximal points too: every point after the first certifies after one round, at the
    cold fit's objective."""
    X, y = make_ranking_data(1000, 40, noise=0.3, random_state=0)
    Cs = np.logspace(-2, 2, 5)
    path = TopRanker("pap@k-avg", k=10, engine="cutting-plane", tol=1e-8).fit_path(X, y, Cs)
    assert [fit.n_iter_ for fit in path] == [box_dual.DENSE_PROXIMAL_ROUND] \
        + [box_dual.PATH_ROUND] * (len(Cs) - 1)
    for C, fit in zip(Cs, path):
        cold = TopRanker("pap@k-avg", k=10, C=C, engine="cutting-plane", tol=1e-8).fit(X, y)
        assert fit.status_ == cold.status_ == "optimal"
        assert fit.objective_ == pytest.approx(cold.objective_, rel=2e-8)

def test_a_round_where_the_solve_does_not_apply_is_no_failure(monkeypatch):
    """A best point whose labeling predicts relevant items skips that round's solve (here
    round 20, by a patched check); the next round of the solve still tries it."""
    objective, _ = hinge_regime()
    checks, applies = [], box_dual.applies
    monkeypatch.setattr(box_dual, "applies",
                        lambda *args: bool(checks.append(1) or len(checks) > 1)
                        and applies(*args))
    tried = []
    solve = box_dual.box_dual_cut
    monkeypatch.setattr(box_dual, "box_dual_cut",
                        lambda *args: tried.append(args[4]) or solve(*args))
    solved = solve_cutting_plane(objective, tol=1e-8)
    assert solved.status == "optimal" and solved.n_iter == sorted(box_dual.SOLVE_ROUNDS)[1]
    assert tried == [False]  # one try, at round 50, without proximal points


@pytest.mark.parametrize("seed", range(30))
def test_weights_are_moved_onto_q(seed):
    """Clipped to [0, 1] and, if their sum fell below k, raised until it does not (the exact
    sum of the floats), else left as clipped."""
    rng = np.random.default_rng(seed)
    v = rng.random(int(rng.integers(5, 400))) * 1.2 - 0.1
    k = int(rng.integers(1, len(v)))
    if seed % 3 == 0:  # a sum just below k, as rounding leaves it
        v = np.full(len(v), k / len(v) * (1 - 1e-15))
    moved = box_dual._onto_box_sum(v, k, equality=False)
    assert np.all((moved >= 0) & (moved <= 1)) and math.fsum(moved) >= k
    if math.fsum(np.clip(v, 0, 1)) >= k:
        np.testing.assert_array_equal(moved, np.clip(v, 0, 1))


def random_problem(seed: int) -> tuple[object, np.ndarray, int, np.random.Generator]:
    """Sparse (even seeds) or dense features, 150 to 400 items, 32 to 300 features, and a
    random k: the sweeps' problems."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(150, 400)), int(rng.integers(32, 300))
    X, y = make_sparse_ranking_data(n, d, density=float(rng.choice([0.05, 0.2])),
                                    noise=0.5, random_state=seed)
    return (X.toarray() if seed % 2 else X), y, int(rng.integers(1, int(y.sum()) + 1)), rng


def assert_one_optimum_with_or_without(objective: RankingObjective, monkeypatch) -> None:
    """Tried after 3 and 10 rounds, or never: both certified, each lower bound below the
    other run's objective, the objectives equal."""
    monkeypatch.setattr(box_dual, "SOLVE_ROUNDS", frozenset({3, 10}))
    tried = solve_cutting_plane(objective, tol=1e-8, max_iter=3000)
    alone = rounds_alone(objective, monkeypatch, tol=1e-8, max_iter=3000)
    assert tried.status == alone.status == "optimal"
    for a, b in ((tried, alone), (alone, tried)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)
    assert tried.objective == pytest.approx(alone.objective, rel=2e-8)


def cuts_of_one_optimum(objective: RankingObjective, solve_name: str, monkeypatch) -> list:
    """:func:`assert_one_optimum_with_or_without`, and the answers of the solve
    ``box_dual.<solve_name>`` it made (a cut, or ``None`` where it failed)."""
    cuts = []
    solve = getattr(box_dual, solve_name)
    monkeypatch.setattr(box_dual, solve_name,
                        lambda *args: cuts.append(solve(*args)) or cuts[-1])
    assert_one_optimum_with_or_without(objective, monkeypatch)
    return cuts


@pytest.mark.parametrize("seed", range(12))
def test_random_problems_reach_one_certified_optimum_with_or_without_the_solve(seed,
                                                                              monkeypatch):
    """Random sparse and dense problems, k and C (both regimes: the optimum predicting no
    relevant item, or some)."""
    X, y, k, rng = random_problem(seed)
    C = svmperf_c(float(rng.choice([0.1, 1.0, 10.0])), k, len(y))
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", k), C)
    assert_one_optimum_with_or_without(objective, monkeypatch)


@pytest.mark.parametrize("seed", range(8))
def test_struct_reaches_one_certified_optimum_with_or_without_its_dual(seed, monkeypatch):
    """prec@k-struct (Kar et al. 2015 eq. (3)), whose dual over the items is a box with one
    equality sum, on random sparse and dense problems; its cuts hold at perturbed and tied
    scores."""
    X, y, k, rng = random_problem(seed)
    objective = RankingObjective(X, y, surrogates.get("prec@k-struct", k),
                                 float(rng.choice([0.01, 0.1, 1.0])))
    for cut in cuts_of_one_optimum(objective, "struct_dual_cut", monkeypatch):
        if cut is not None:
            v = cut.g + objective.y
            assert np.all((v >= 0) & (v <= 1)) and math.fsum(v) == pytest.approx(k, abs=1e-9)
            assert_cut_holds(objective, cut)


def test_struct_on_sparse_wide_data_is_certified_at_its_dual(monkeypatch):
    X, y = make_sparse_ranking_data(2000, 1000, density=0.02, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-struct", 0.25), 1e-3)
    solved = solve_cutting_plane(objective, tol=1e-8)
    alone = rounds_alone(objective, monkeypatch, tol=1e-8, max_iter=3000)
    assert solved.n_iter == min(box_dual.SOLVE_ROUNDS) < alone.n_iter
    assert solved.objective == pytest.approx(alone.objective, rel=2e-8)


def test_a_path_starts_the_box_solve_from_the_last_dual_point(monkeypatch):
    """In a path the solve is tried at PATH_ROUND from the last C's dual point (its items at
    1 and between): each later C certifies there, at the cold fit's objective, and the
    first guess solved (as a face for every C, or by the steps) is the earlier point's, not
    a guess from the scores."""
    X, y = make_sparse_ranking_data(2000, 1000, density=0.02, noise=0.5, random_state=0)
    surrogate = surrogates.get("prec@k-struct", 0.25)
    starts = []
    for name in ("_box_sum_weights", "_kept_face"):
        solve = getattr(box_dual, name)
        monkeypatch.setattr(box_dual, name,
                            lambda problem, at_one, tied, *rest, solve=solve, **kw:
                            starts.append((at_one.copy(), tied.copy()))
                            or solve(problem, at_one, tied, *rest, **kw))
    previous = None
    for C in (1e-3, 3e-3, 1e-2):
        objective = RankingObjective(X, y, surrogate, C)
        starts.clear()
        path = solve_cutting_plane(objective, tol=1e-8, keep_cuts=True, cuts=previous,
                                   w0=None if previous is None else path.coef)
        first_guess = starts[0]
        cold = solve_cutting_plane(RankingObjective(X, y, surrogate, C), tol=1e-8)
        assert path.status == "optimal" and path.objective == pytest.approx(cold.objective,
                                                                            rel=2e-8)
        if previous is not None:
            assert path.n_iter == box_dual.PATH_ROUND
            v = previous.dual_point + y
            at_one, tied = first_guess
            assert np.array_equal(at_one, v >= 1 - 1e-9)
            assert np.array_equal(tied, (v > 1e-9) & (v < 1 - 1e-9))
        assert path.cuts.dual_point is not None
        previous = path.cuts


def test_a_warm_cut_within_the_aim_certifies_without_the_query_cut(monkeypatch):
    """A path's point whose warm dual cut alone is within the aim certifies at that round
    without storing the query's own cut (a product with Z); where the warm solve fails,
    the query's cut is stored and the rounds go on. Both end at the cold fit's objective
    with a bound below it. The step goes from C = 1e-3 to 0.1: to 3e-3 the start on the
    last answer's ray certifies with the kept cuts alone, and no dual solve is asked for."""
    X, y = make_sparse_ranking_data(2000, 1000, density=0.02, noise=0.5, random_state=0)
    surrogate = surrogates.get("prec@k-struct", 0.25)
    first = solve_cutting_plane(RankingObjective(X, y, surrogate, 1e-3), tol=1e-8,
                                keep_cuts=True)
    cold = solve_cutting_plane(RankingObjective(X, y, surrogate, 0.1), tol=1e-8)
    calls = []
    add = cutting._add_query_cut
    monkeypatch.setattr(cutting, "_add_query_cut",
                        lambda *args: calls.append(args) or add(*args))
    warm = solve_cutting_plane(RankingObjective(X, y, surrogate, 0.1), tol=1e-8,
                               cuts=first.cuts, w0=first.coef)
    assert warm.n_iter == box_dual.PATH_ROUND and calls == []
    cut = box_dual.box_dual_cut
    monkeypatch.setattr(cutting.box_dual, "box_dual_cut",
                        lambda *args, **kwargs: None if args[-1] is not None
                        else cut(*args, **kwargs))
    failed = solve_cutting_plane(RankingObjective(X, y, surrogate, 0.1), tol=1e-8,
                                 cuts=first.cuts, w0=first.coef)
    assert failed.n_iter > 1 and len(calls) == failed.n_iter
    for result in (warm, failed):
        assert result.status == "optimal"
        assert result.objective == pytest.approx(cold.objective, rel=2e-8)
        assert result.lower_bound <= cold.objective + 1e-12 * abs(cold.objective)


@pytest.mark.parametrize("seed", range(20))
def test_struct_weights_are_moved_onto_the_box_with_sum_k(seed):
    rng = np.random.default_rng(seed)
    v = rng.random(int(rng.integers(5, 300))) * 1.4 - 0.2
    k = int(rng.integers(1, len(v)))
    moved = box_dual._onto_box_sum(v, k, equality=True)
    assert np.all((moved >= 0) & (moved <= 1))
    assert math.fsum(moved) == pytest.approx(k, abs=1e-12 * len(v))


def hinge_below_loss() -> RankingObjective:
    """``make_ranking_data(6,000, 600, noise=0.3)`` at C = 1: the hinge's own optimum lies
    far below the zero model's objective, where the loss's optimum mixes in labelings with
    relevant items, so the hinge's dual cannot certify it."""
    X, y = make_ranking_data(6000, 600, noise=0.3)
    return RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 1.0)


def test_proximal_points_stop_where_the_hinge_optimum_is_not_the_loss(monkeypatch):
    """At the hinge's own optimum the dual value stops rising with the gap open: the points
    stop there (well before PROXIMAL_STEPS) and give their best cut, valid everywhere."""
    objective = hinge_below_loss()
    points = []
    solve = box_dual._box_sum_weights
    monkeypatch.setattr(box_dual, "_box_sum_weights",
                        lambda *args, **kw: points.append(kw.get("ridge", 0.0)) or solve(*args,
                                                                                        **kw))
    cut = box_dual.hinge_dual_cut(objective, np.zeros(len(objective.y)), 1e-6)
    assert cut is not None and len(points) < box_dual.PROXIMAL_STEPS
    lower = objective.C * cut.intercept - 0.5 * float(cut.weights @ cut.weights)
    assert cut.value - lower > 1e-3 * cut.value  # the gap stays open
    assert_cut_holds(objective, cut)


def test_a_box_solve_with_proximal_points_is_not_repeated(monkeypatch):
    """Where the counts' interior point does not take over (more features than items, as on
    sparse data), the proximal box solve at round 150 is not tried again at 400."""
    objective = hinge_below_loss()
    monkeypatch.setattr(count_dual, "suits", lambda objective: False)
    tried = []
    solve = box_dual.box_dual_cut
    monkeypatch.setattr(box_dual, "box_dual_cut",
                        lambda *args: tried.append(args[4]) or solve(*args))
    with pytest.warns(UserWarning, match="stopped after 420 rounds"):
        solve_cutting_plane(objective, tol=1e-6, max_iter=420, accept_inaccurate=True)
    assert tried.count(True) == 1  # at round 150; not again at 400


# ---- pAp@k-avg: a box with a cap on its sum ------------------------------------------------
def pap_avg_cut_vector(y: np.ndarray, v: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """The cut ``(g, intercept)`` of ``v``: ``v/k`` on the irrelevant items, ``−Σv/(k·n₊)``
    on each relevant one, and ``Σv/k``."""
    g = np.zeros(len(y))
    g[y == 0], g[y == 1] = v / k, -v.sum() / (k * int(y.sum()))
    return g, float(v.sum()) / k


@pytest.mark.parametrize("seed", range(40))
def test_every_point_of_the_capped_box_gives_a_valid_pap_avg_cut(seed):
    """``L(s) >= Σv/k + (v/k)·s⁻ − (Σv/k)·mean(s⁺)`` for every ``v`` in ``[0, 1]`` with
    ``Σv <= k``, at random scores and on grids of ties, against the brute-force enumeration
    of Hiranandani et al. 2020 eq. (10)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=int(rng.integers(1, n - 1)), replace=False)] = 1
    n_neg = int(n - y.sum())
    k = int(rng.integers(1, n_neg + 1))
    for _ in range(20):
        v = rng.random(n_neg)
        v[rng.random(n_neg) < 0.3] = rng.choice([0.0, 1.0])
        if v.sum() > k:
            v *= k / v.sum()
        s = rng.standard_normal(n) if rng.random() < 0.5 else rng.integers(-2, 3, n) / 2.0
        g, intercept = pap_avg_cut_vector(y, v, k)
        assert reference.pap_avg(y, s, k) >= intercept + g @ s - 1e-12


@pytest.mark.parametrize("seed", range(8))
def test_pap_avg_reaches_one_certified_optimum_with_or_without_its_dual(seed, monkeypatch):
    """pAp@k-avg, whose dual over the irrelevant items is a box with a cap ``Σv <= k`` on
    rows shifted by the relevant items' mean, on random sparse and dense problems: the same
    certified optimum, and every cut of the solve a point of the capped box whose cut holds
    at perturbed and tied scores."""
    X, y, _, rng = random_problem(seed)
    k = int(rng.integers(1, int((y == 0).sum()) + 1))
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", k),
                                 float(rng.choice([0.01, 1.0, 100.0])))
    assert box_dual.suits(objective)
    for cut in cuts_of_one_optimum(objective, "pap_avg_dual_cut", monkeypatch):
        if cut is not None:
            v = k * cut.g[y == 0]
            assert np.all((v >= 0) & (v <= 1)) and math.fsum(v) <= k
            g, intercept = pap_avg_cut_vector(y, v, k)
            np.testing.assert_allclose(cut.g, g, rtol=1e-12, atol=1e-15)
            assert cut.intercept == pytest.approx(intercept, rel=1e-12)
            assert_cut_holds(objective, cut)


@pytest.mark.parametrize("C", [0.01, 1.0])
def test_pap_avg_on_sparse_wide_data_is_certified_at_its_dual(C, monkeypatch):
    """Where the rounds alone take hundreds of rounds (the irrelevant items' scores tie at
    the cap's threshold), the solve at round 20 certifies the same optimum; the same with
    the features dense."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    alone = None
    for features in (X, X.toarray()):
        objective = RankingObjective(features, y, surrogates.get("pap@k-avg", 10), C)
        solved = solve_cutting_plane(objective, tol=1e-8)
        alone = alone or rounds_alone(objective, monkeypatch, tol=1e-8, max_iter=3000)
        assert solved.status == alone.status == "optimal"
        assert solved.n_iter == min(box_dual.SOLVE_ROUNDS) < alone.n_iter
        assert solved.objective == pytest.approx(alone.objective, rel=2e-8)
        for a, b in ((alone, solved), (solved, alone)):
            assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


@pytest.mark.parametrize("C", [1e-4, 2e-3, 1e-2])
def test_pap_avg_at_small_c_is_certified_at_its_dual(C):
    """At a small C the tied system's right-hand side is nearly the constant ``c/C``: the run
    on the plane of its sum still solves it, and the solve at round 20 (or, at worst, 50)
    certifies. With the run measured against the whole right-hand side these fits took 83
    and 360 rounds and the last ended at max_iter (400 rounds)."""
    X, y = make_sparse_ranking_data(3000, 3000, density=0.005, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), C)
    solved = solve_cutting_plane(objective, tol=1e-6, max_iter=400)
    assert solved.status == "optimal" and solved.gap <= 1e-6
    assert solved.n_iter <= sorted(box_dual.SOLVE_ROUNDS)[1]


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_pap_avg_at_the_zero_model_is_certified_at_its_proximal_round(C):
    """Where the zero model is the optimum every irrelevant item starts tied, and the
    proximal steps' tied sets swing while the plane's runs stop at the loose residual (185
    and 346 rounds instead of 150): the runs on the plane solve to the tight residual."""
    X, y = make_sparse_ranking_data(10_000, 1000, density=0.005, noise=0.5, random_state=1)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), C)
    solved = solve_cutting_plane(objective, tol=1e-6, max_iter=400)
    assert solved.status == "optimal" and solved.gap <= 1e-6
    assert not solved.coef.any()
    assert solved.n_iter <= box_dual.PROXIMAL_ROUND


@pytest.mark.parametrize("C", [100.0, 1e4])
def test_pap_avg_at_large_c_is_certified_at_its_dual(C, monkeypatch):
    """At large C the gap of the conjugate gradients' answer is several times their residual
    (the tolerance): the answer's guess is solved again to a finer residual, and the solve
    at round 20 still certifies the rounds' optimum."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), C)
    residuals = []
    solve = box_dual._box_sum_weights
    monkeypatch.setattr(box_dual, "_box_sum_weights",
                        lambda *args, **kw: residuals.append(args[3]) or solve(*args, **kw))
    solved = solve_cutting_plane(objective, tol=1e-6)
    monkeypatch.setattr(box_dual, "_box_sum_weights", solve)
    alone = rounds_alone(objective, monkeypatch, tol=1e-6, max_iter=3000)
    assert solved.status == alone.status == "optimal"
    assert solved.n_iter == min(box_dual.SOLVE_ROUNDS) < alone.n_iter
    assert residuals[0] == 1e-6 and min(residuals) < 1e-6
    assert solved.objective == pytest.approx(alone.objective, rel=2e-6)
    for a, b in ((alone, solved), (solved, alone)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_loose_first_systems_reach_the_optimum_of_full_residuals(monkeypatch):
    """The tied systems are first solved to the loose residual; the solve at round 20
    certifies the optimum it certifies with every system at the full residual."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), 1.0)
    residuals = []
    solve, solve_with_sum = box_dual._TiedSystem.solve, box_dual._TiedSystem.solve_with_sum

    def recorded(self, *args):
        residuals.append(self.rtol)
        return solve(self, *args)

    def recorded_with_sum(self, *args):
        residuals.append(self.rtol)
        return solve_with_sum(self, *args)

    monkeypatch.setattr(box_dual._TiedSystem, "solve", recorded)
    monkeypatch.setattr(box_dual._TiedSystem, "solve_with_sum", recorded_with_sum)
    loose = solve_cutting_plane(objective, tol=1e-6)
    assert ridge_cg.CG_LOOSE_RTOL in residuals and min(residuals) <= 1e-6
    monkeypatch.setattr(ridge_cg, "CG_LOOSE_RTOL", 0.0)
    full = solve_cutting_plane(objective, tol=1e-6)
    assert loose.status == full.status == "optimal"
    assert loose.n_iter == full.n_iter == min(box_dual.SOLVE_ROUNDS)
    assert loose.objective == pytest.approx(full.objective, rel=2e-6)
    for a, b in ((loose, full), (full, loose)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def test_struct_steps_solve_at_the_full_residual_and_stop_at_a_guess_that_holds(monkeypatch):
    """prec@k-struct's sum is an equality, whose tied systems are solved on its plane at the
    full residual from the first step: no loose first step, so a guess that already holds
    (the solve's own answer) is accepted after one solve, not a second of the same system."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-struct", 0.25), 1.0)
    best = solve_cutting_plane(objective, tol=1e-6)
    problem_of = []
    steps = box_dual._box_sum_weights
    monkeypatch.setattr(box_dual, "_box_sum_weights",
                        lambda problem, *a, **kw: problem_of.append(problem) or steps(
                            problem, *a, **kw))
    cut = box_dual.struct_dual_cut(objective, np.asarray(X @ best.coef).ravel(), 1e-6)
    assert cut is not None and cut.gap(1.0) <= 1e-6
    problem = problem_of[0]
    found = steps(problem, *_guess_of(cut.g + objective.parts[0].bound.y), 1e-6)
    runs = []
    with_sum = box_dual._TiedSystem.solve_with_sum
    monkeypatch.setattr(box_dual._TiedSystem, "solve_with_sum",
                        lambda self, *a: runs.append(self.plane_rtol) or with_sum(self, *a))
    again = steps(problem, found[1], found[2], 1e-6, values=found[0])
    assert runs == [1e-6]
    assert np.array_equal(again[1], found[1]) and np.array_equal(again[2], found[2])


def _guess_of(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items of weights ``v`` at 1 and between 0 and 1."""
    at_one = v >= 1.0 - 1e-9
    return at_one, ~at_one & (v > 1e-9)


def gap_cut(gap: float) -> DualCut:
    """A cut whose gap (objective at its weights minus dual value, relative) is ``gap`` at
    C = 1: zero weights, intercept ``1 − gap``, value 1."""
    zero = np.zeros(1)
    return DualCut(zero, 1.0 - gap, zero, zero, zero, 0.0, zero, 1.0)


@pytest.mark.parametrize("gaps, kept, solves", [
    ([1e-5, 1e-7], 1e-7, 1),             # a finer residual closes the gap
    ([1e-5, 1e-5], 1e-5, 1),             # it does not fall (a hinge below the loss)
    ([1e-5, 3e-6, 2e-6], 2e-6, 2),       # it falls without closing: REFINEMENTS tries
    ([1e-7], 1e-7, 0),                   # the gap is within the aim
])
def test_an_answer_is_solved_again_to_a_finer_residual_while_its_gap_falls(gaps, kept,
                                                                            solves,
                                                                            monkeypatch):
    answer = (np.zeros(3), np.zeros(3, bool), np.ones(3, bool))
    residuals, cuts = [], iter(gaps)
    monkeypatch.setattr(box_dual, "_box_sum_weights",
                        lambda problem, at_one, tied, tol, values: residuals.append(tol)
                        or answer)
    problem = box_dual._BoxProblem(sparse.csr_matrix(np.eye(3)), np.zeros(3), np.zeros(3), 1,
                                   1.0, False)
    cut = box_dual._refined_cut(problem, answer, 1e-6, lambda v: gap_cut(next(cuts)))
    assert cut.intercept == pytest.approx(1.0 - kept, abs=1e-15)
    assert len(residuals) == solves and residuals == sorted(residuals, reverse=True)
    assert all(r < 1e-6 for r in residuals)
    dense = box_dual._BoxProblem(np.eye(3), np.zeros(3), np.zeros(3), 1, 1.0, False)
    cut = box_dual._refined_cut(dense, answer, 1e-6, lambda v: gap_cut(1e-5))
    assert cut.intercept == 1.0 - 1e-5 and len(residuals) == solves  # a Cholesky factor


@pytest.mark.parametrize("seed", range(10))
def test_the_items_joining_the_tied_set_are_the_most_violating(seed):
    rng = np.random.default_rng(seed)
    mask, violation = rng.random(300) < 0.5, rng.standard_normal(300)
    limit = int(rng.integers(1, 200))
    kept = most_violating(mask, violation, limit)
    assert not (kept & ~mask).any() and kept.sum() == min(limit, mask.sum())
    if kept.sum() < mask.sum():
        assert violation[kept].min() >= violation[mask & ~kept].max()
    else:
        assert np.array_equal(kept, mask)


def test_a_step_ties_at_most_as_many_new_items_as_the_cap(monkeypatch):
    """A step from a guess with no item at 1 ties at most MIN_ENTERING items more than the
    guess (or as many as it ties); the capped steps reach the uncapped answer. The first
    guess is made to hold no item at 1 (its items at 1 tied instead): which items the
    best point puts above the tie band depends on the CPU's rounding."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), 1.0)
    solved = solve_cutting_plane(objective, tol=1e-8)
    guess = box_dual._start_guess

    def none_at_one(*args, **kw):
        at_one, tied = guess(*args, **kw)
        return np.zeros_like(at_one), tied | at_one

    monkeypatch.setattr(box_dual, "_start_guess", none_at_one)
    calls = []
    solve, system = box_dual._box_sum_weights, box_dual._TiedSystem.__init__
    monkeypatch.setattr(box_dual, "_box_sum_weights", lambda problem, at_one, tied, *args, **kw:
                        calls.append((int(at_one.sum()), [])) or solve(problem, at_one, tied,
                                                                       *args, **kw))
    monkeypatch.setattr(box_dual._TiedSystem, "__init__", lambda self, Z_T, *args:
                        calls[-1][1].append(Z_T.shape[0]) or system(self, Z_T, *args))
    monkeypatch.setattr(box_dual, "MIN_ENTERING", 50)
    capped = solve_cutting_plane(objective, tol=1e-8)
    assert capped.status == solved.status == "optimal"
    assert capped.objective == pytest.approx(solved.objective, rel=2e-8)
    firsts = [sizes[:2] for at_one, sizes in calls if at_one == 0 and len(sizes) >= 2]
    assert firsts and all(b - a <= max(50, a) for a, b in firsts)
    assert any(b - a == max(50, a) for a, b in firsts)  # the cap held a step back


def test_shifted_rows_give_the_products_of_the_rows_they_stand_for():
    rng = np.random.default_rng(0)
    Z = sparse.random(40, 12, density=0.3, format="csr", random_state=1)
    shift, scale = rng.standard_normal(12), 0.25
    dense = scale * (Z.toarray() - shift)
    rows = box_dual._ShiftedRows(Z, shift, scale)
    x, v = rng.standard_normal(12), rng.standard_normal(40)
    chosen = rng.random(40) < 0.4
    np.testing.assert_allclose(rows @ x, dense @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows.T @ v, dense.T @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows[chosen].sum(axis=0), dense[chosen].sum(axis=0),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows[chosen] @ x, dense[chosen] @ x, rtol=1e-12, atol=1e-12)
    problem = box_dual._BoxProblem(rows, np.zeros(40), np.zeros(12), 3, 1.0, False)
    assert box_dual._squared_norm(problem) == pytest.approx(float((dense ** 2).sum()),
                                                            rel=1e-12)
    np.testing.assert_allclose(box_dual._row_squares(rows), (dense ** 2).sum(axis=1),
                               rtol=1e-10, atol=1e-12)
    assert rows.shape == dense.shape
    with pytest.raises(ValueError, match="axis"):
        rows.sum(axis=1)


@pytest.mark.parametrize("seed", range(20))
def test_pap_avg_weights_are_moved_under_the_cap(seed):
    """Clipped to [0, 1] and, if their sum comes near k or above it, scaled below it (the
    exact sum of the floats); else left as clipped."""
    rng = np.random.default_rng(seed)
    v = rng.random(int(rng.integers(5, 400))) * 1.2 - 0.1
    k = int(rng.integers(1, len(v)))
    if seed % 3 == 0:  # a sum just above k, as rounding leaves it
        v = np.full(len(v), k / len(v) * (1 + 1e-15))
    moved = box_dual._onto_box_cap(v, k)
    assert np.all((moved >= 0) & (moved <= 1)) and math.fsum(moved) <= k
    if math.fsum(np.clip(v, 0, 1)) <= k - 1e-12 * len(v):
        np.testing.assert_array_equal(moved, np.clip(v, 0, 1))


@pytest.mark.parametrize("seed", range(4))
def test_a_tied_system_with_its_sum_is_one_run_of_projected_gradients(seed):
    """Σv = total with M v = rhs − (θ/C)·1: conjugate gradients on that plane (sparse rows)
    give the v and θ of the two factored solves (M⁻¹rhs shifted along M⁻¹1)."""
    from scipy import sparse
    rng = np.random.default_rng(seed)
    Z_T = sparse.random(40, 300, density=0.05, random_state=seed, format="csr")
    rhs, total, C = rng.standard_normal(40), 10.0 + seed, 0.5 + seed
    for ridge in (0.0, 1e-3):
        system = box_dual._TiedSystem(Z_T, ridge, 1e-12)
        v, theta = system.solve_with_sum(rhs, rng.random(40), total, C)
        exact, exact_theta = box_dual._TiedSystem(Z_T.toarray(), ridge, 1e-12).solve_with_sum(
            rhs, np.zeros(40), total, C)
        M = (Z_T @ Z_T.T).toarray() + ridge * np.eye(40)
        assert v.sum() == pytest.approx(total, rel=1e-12)
        np.testing.assert_allclose(M @ v, rhs - theta / C, atol=1e-9 * np.abs(rhs).max())
        np.testing.assert_allclose(v, exact, rtol=1e-7, atol=1e-8)
        assert theta == pytest.approx(exact_theta, rel=1e-7)
    singular = box_dual._TiedSystem(sparse.csr_matrix((5, 3)), 0.0, 1e-9)  # M = 0
    assert singular.solve_with_sum(np.arange(5.0), np.zeros(5), 1.0, 1.0) is None


@pytest.mark.parametrize("seed", range(4))
def test_a_tied_system_whose_right_hand_side_is_nearly_constant_is_still_solved(seed):
    """At a small C the right-hand side is mostly ``c/C``, the same on every tied item. The
    run on the plane ends at the loose residual of its own right-hand side there, not of
    ``rhs``, whose norm it met at the start from the free solution, 30% to 120% off the
    answer (pAp@k-avg on the sparse 50,000 × 50,000 set ended at max_iter at C = 0.002)."""
    rng = np.random.default_rng(seed)
    Z_T = sparse.random(40, 300, density=0.05, random_state=seed, format="csr")
    C, total = 1e-3, 5.0
    rhs = 1.0 / C + 1e-9 * rng.standard_normal(40)
    system = box_dual._TiedSystem(Z_T, 0.0, 1e-3)
    v, theta = system.solve_with_sum(rhs, system.solve(rhs, np.zeros(40)), total, C)
    exact, exact_theta = box_dual._TiedSystem(Z_T.toarray(), 0.0, 1e-12).solve_with_sum(
        rhs, np.zeros(40), total, C)
    assert np.abs(v - exact).max() <= 1e-2 * np.abs(exact).max()
    assert theta == pytest.approx(exact_theta, rel=1e-5)


@pytest.mark.parametrize("at_most", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_the_tied_weights_are_the_same_whichever_system_is_solved_first(at_most, seed):
    """With a bound on the sum (``Σv <= k`` or ``>= k``), the plane first or the free
    system first, on sparse or factored rows, give the same weights and threshold: the
    plane's answer where the free solution breaks the bound (``θ`` of the bound's sign),
    the free one with ``θ = 0`` where it does not."""
    rng = np.random.default_rng(seed)
    Z_T = sparse.random(40, 300, density=0.05, random_state=seed, format="csr")
    rhs, C = rng.standard_normal(40), 0.7
    free = np.linalg.solve((Z_T @ Z_T.T).toarray(), rhs)
    exact = box_dual._TiedSystem(Z_T.toarray(), 0.0, 1e-12)
    problem = box_dual._BoxProblem(Z_T, np.zeros(40), np.zeros(300), 1, C, False, at_most)
    for total in (free.sum() - 1.0, free.sum() + 1.0):
        broken = free.sum() > total if at_most else free.sum() < total
        expected = exact.solve_with_sum(rhs, np.zeros(40), total, C) if broken else (free, 0.0)
        assert (expected[1] > 0 if at_most else expected[1] < 0) or not broken
        for rows, plane_first in itertools.product((Z_T, Z_T.toarray()), (True, False)):
            v, theta = box_dual._tied_weights(problem, box_dual._TiedSystem(rows, 0.0, 1e-12),
                                              rhs, np.zeros(40), total, plane_first)
            np.testing.assert_allclose(v, expected[0], rtol=1e-7, atol=1e-8)
            assert theta == pytest.approx(expected[1], rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_equal_tied_rows_are_solved_as_one_row_each(seed):
    """Dense tied rows with repeats (more rows than features, fewer distinct ones): the
    solution of least norm, which shares each group's total equally; right sides that differ
    on equal rows have no solution."""
    rng = np.random.default_rng(seed)
    distinct = rng.standard_normal((6, 9))
    rows = distinct[rng.integers(0, 6, 14)]
    rows[:6] = distinct  # every distinct row appears
    system = box_dual._TiedSystem(rows, 0.0, 1e-12)
    assert system.distinct_rows == 6
    rhs = rows @ rng.standard_normal(9)  # in the range of rows·rowsᵀ
    v = system.solve(rhs, np.zeros(14))
    np.testing.assert_allclose(v, np.linalg.pinv(rows @ rows.T) @ rhs, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(rows @ (rows.T @ v), rhs, rtol=1e-8, atol=1e-10)
    repeated = np.flatnonzero((rows == rows[0]).all(axis=1))
    rhs[repeated[-1]] += 1.0  # an equal row asking for another score
    assert box_dual._TiedSystem(rows, 0.0, 1e-12).solve(rhs, np.zeros(14)) is None


@pytest.mark.parametrize("seed", range(6))
def test_equal_rows_are_grouped_as_numpy_unique_groups_them(seed):
    """The groups of equal rows (found among rows whose random products come close) are
    those of ``np.unique(axis=0)``: every group's rows equal, rows of different groups
    differ, ``first`` the first row of each group and the sizes its counts. Rows that agree
    but for one entry, and rows of zeros (products exactly 0), are included."""
    rng = np.random.default_rng(seed)
    distinct = rng.integers(-2, 3, size=(7, 5)).astype(np.float64)
    distinct[0] = 0.0
    distinct[1] = distinct[2]
    distinct[1, 4] += 1e-9  # near but not equal
    rows = distinct[rng.integers(0, 7, 30)]
    grouped = box_dual._equal_rows(rows)
    assert grouped is not None
    first, group, sizes = grouped
    unique, counts = np.unique(rows, axis=0, return_counts=True)
    assert len(first) == len(unique) and np.all(first == np.sort(first))
    assert sorted(sizes) == sorted(counts.astype(float))
    np.testing.assert_array_equal(rows, rows[first][group])  # each row equals its group's
    assert len(np.unique(rows[first], axis=0)) == len(first)  # and the groups differ
    assert np.all(first == [np.flatnonzero(group == g)[0] for g in range(len(first))])
    np.testing.assert_array_equal(sizes, np.bincount(group))
    assert box_dual._equal_rows(distinct[1:]) is None  # every row differs


def test_data_whose_rows_repeat_are_certified_at_the_dual_round(monkeypatch):
    """Every row three times: the optimum ties items in threes, more of them than the 40
    features though fewer distinct rows. Solved as distinct rows, prec@k-struct's dual
    certifies at its first round (20); counted item by item, the tied system looked
    singular and the rounds went on to 47."""
    X, y = make_ranking_data(300, 40, noise=0.3, random_state=0)
    X, y = np.repeat(X, 3, axis=0), np.repeat(y, 3)
    objective = RankingObjective(X, y, surrogates.get("prec@k-struct", 60), 10.0)
    solved = solve_cutting_plane(objective, tol=1e-8)
    alone = rounds_alone(objective, monkeypatch, tol=1e-8)
    assert solved.status == alone.status == "optimal"
    assert solved.n_iter == min(box_dual.SOLVE_ROUNDS) < alone.n_iter
    assert solved.objective == pytest.approx(alone.objective, rel=1e-8)
    for a, b in ((alone, solved), (solved, alone)):
        assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


def _face_case(case: str) -> tuple[np.ndarray, np.ndarray, str, float, tuple[float, float]]:
    """Data, surrogate, k and two values of C between which the optimum's guess (items at 1
    and tied) stays the same."""
    if case == "hinge":
        objective, k = hinge_regime(c_perf=0.1)
        C = objective.C
        return objective.Z, objective.y, "prec@k-svmperf", k, (C, 3 * C)
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    if case == "pap":
        return X, y, "pap@k-avg", 10, (1.0, 100.0)
    return X, y, "prec@k-struct", 0.25, (0.3, 1.0)


def _face_start(case: str) -> tuple:
    """A ``_face_case``'s data, surrogate, k, values of C, and the dual point of a path's
    solve at the first C, with a box solve from it at a given objective and faces."""
    X, y, name, k, (C1, C2) = _face_case(case)
    first = solve_cutting_plane(RankingObjective(X, y, surrogates.get(name, k), C1),
                                tol=1e-10, keep_cuts=True)
    start = first.cuts.dual_point
    assert start is not None

    def cut_at(objective, faces):
        return box_dual.box_dual_cut(objective, np.zeros(len(y)), start, 1e-8, False, start,
                                     faces)

    return X, y, name, k, C2, cut_at


def _counting_systems(patch) -> list:
    """The arguments of every ``_TiedSystem`` made while ``patch`` holds."""
    systems, solver = [], box_dual._TiedSystem
    patch.setattr(box_dual, "_TiedSystem",
                  lambda *args, **kw: systems.append(args) or solver(*args, **kw))
    return systems


@pytest.mark.parametrize("case", ["pap", "hinge"])
def test_a_guess_that_holds_is_solved_once_for_every_c(case, monkeypatch):
    """From a path's last dual point, a next C whose optimum keeps that guess has its
    systems solved once for every C (p + q/C − (θ/C)·r): at a third C of the same objective
    the cut comes off them, certified, with no system solved, and equals the steps' answer
    there."""
    X, y, name, k, C2, cut_at = _face_start(case)
    objective, faces = RankingObjective(X, y, surrogates.get(name, k), C2), {}
    assert cut_at(objective, faces).gap(C2) <= 1e-8
    assert "last" in faces
    with monkeypatch.context() as patch:
        systems = _counting_systems(patch)
        objective.C = 3 * C2
        by_face = cut_at(objective, faces)
    assert by_face is not None and by_face.gap(objective.C) <= 1e-8 and not systems
    by_steps = cut_at(RankingObjective(X, y, surrogates.get(name, k), 3 * C2), {})
    np.testing.assert_allclose(by_face.g, by_steps.g, atol=1e-6 * np.abs(by_face.g).max())


def test_an_equality_keeps_no_face_and_solves_a_guess_that_holds_in_one_system(monkeypatch):
    """prec@k-struct's sum is an equality: where its guess holds from one C to the next,
    no face is kept, and the next C's steps from the last answer solve that guess's one
    system on the plane of the sum, certified."""
    X, y, name, k, C2, cut_at = _face_start("struct")
    objective, faces = RankingObjective(X, y, surrogates.get(name, k), C2), {}
    assert cut_at(objective, faces).gap(C2) <= 1e-8
    assert "last" not in faces
    with monkeypatch.context() as patch:
        systems = _counting_systems(patch)
        objective.C = 1.001 * C2
        cut = cut_at(objective, faces)
    assert cut is not None and cut.gap(objective.C) <= 1e-8 and len(systems) == 1
    assert "last" not in faces


def _pap_face_kept() -> tuple:
    """A pAp@k-avg path's solves at C = 1 and 100, whose guess holds between them: the
    data, the objective (at C = 100) and the second solve, whose cuts keep its face."""
    X, y = make_sparse_ranking_data(1000, 3000, density=0.01, noise=0.5, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), 1.0)
    result = solve_cutting_plane(objective, tol=1e-8, keep_cuts=True)
    objective.C = 100.0  # the same guess: its face is kept
    result = solve_cutting_plane(objective, tol=1e-8, keep_cuts=True, cuts=result.cuts,
                                 w0=result.coef)
    return X, y, objective, result


def test_a_kept_face_that_misses_falls_back_to_the_steps(monkeypatch):
    """Where the kept face's weights are not within the aim at this C, its cut is not taken
    and the steps solve from the same guess, to the cold fit's optimum. (Here the guess
    still holds at C = 1e5, but the gap of the face's solutions grows with C: about 1e-7
    there, ten times the aim, on any CPU's rounding.)"""
    X, y, objective, result = _pap_face_kept()
    assert "last" in result.cuts.box_faces
    faces, steps = [], []
    face_cut, solve = box_dual._face_cut, box_dual._box_sum_weights
    monkeypatch.setattr(box_dual, "_face_cut",
                        lambda *args: faces.append(face_cut(*args)) or faces[-1])
    monkeypatch.setattr(box_dual, "_box_sum_weights",
                        lambda *args, **kw: steps.append(1) or solve(*args, **kw))
    objective.C = 1e5
    path = solve_cutting_plane(objective, tol=1e-8, cuts=result.cuts, w0=result.coef)
    cold = solve_cutting_plane(RankingObjective(X, y, objective.surrogate, 1e5), tol=1e-8)
    assert [cut for cut, _ in faces] == [None] and steps
    assert path.status == "optimal"
    assert path.objective == pytest.approx(cold.objective, rel=2e-8)


def test_a_missed_face_ends_the_faces_of_the_path(monkeypatch):
    """Once a kept face's guess misses, the path's faces say so, and a later guess that
    holds from one C to the next is not solved for every C (its three solves would not
    pay where this loss's guesses change)."""
    _, _, objective, result = _pap_face_kept()
    kept = result.cuts.box_faces["last"]
    objective.C = 1e5  # the face misses (as in the test above)
    result = solve_cutting_plane(objective, tol=1e-8, keep_cuts=True, cuts=result.cuts,
                                 w0=result.coef)
    assert result.cuts.box_faces.get("missed") and result.cuts.box_faces["last"] is kept
    solves = []
    keep = box_dual._keep_face
    monkeypatch.setattr(box_dual, "_keep_face",
                        lambda *args: solves.append(1) or keep(*args))
    # (the kept face's guess still holds below C = 1e5; without it the steps end at the
    # guess they start from, which would be kept)
    monkeypatch.setattr(box_dual, "_kept_face", lambda *args: None)
    for C in (1e3, 10.0):
        objective.C = C
        result = solve_cutting_plane(objective, tol=1e-8, keep_cuts=True, cuts=result.cuts,
                                     w0=result.coef)
        assert result.status == "optimal"
    assert solves and result.cuts.box_faces["last"] is kept


@pytest.mark.parametrize("seed", range(3))
def test_tied_rows_of_very_different_norms_are_solved_in_few_runs(seed, monkeypatch):
    """The Jacobi preconditioner (the rows' squared norms): rows scaled over four orders
    of magnitude, whose system unpreconditioned conjugate gradients need hundreds of
    products for, are solved in a few dozen, free and on the plane of the sum, at a small C
    too (a large constant part ``c/C`` in the right side), to the factored answer."""
    rng = np.random.default_rng(seed)
    Z_T = sparse.diags(10.0 ** rng.uniform(-2, 2, 60)) @ sparse.random(
        60, 400, density=0.05, random_state=seed, format="csr")
    products = []
    times = box_dual._TiedSystem._times
    monkeypatch.setattr(box_dual._TiedSystem, "_times",
                        lambda self, p: products.append(1) or times(self, p))
    exact = box_dual._TiedSystem(Z_T.toarray(), 0.0, 1e-12)
    for C in (1e-4, 1.0):
        rhs = 1.0 / C + rng.standard_normal(60)
        system = box_dual._TiedSystem(sparse.csr_matrix(Z_T), 0.0, 1e-10)
        products.clear()
        free = system.solve(rhs, np.zeros(60))
        assert free is not None and len(products) <= 80
        np.testing.assert_allclose(free, exact.solve(rhs, np.zeros(60)), rtol=1e-6,
                                   atol=1e-8 * np.abs(free).max())
        products.clear()
        v, theta = system.solve_with_sum(rhs, np.zeros(60), 7.0, C)
        assert len(products) <= 80
        v_exact, theta_exact = exact.solve_with_sum(rhs, np.zeros(60), 7.0, C)
        np.testing.assert_allclose(v, v_exact, rtol=1e-6, atol=1e-8 * np.abs(v_exact).max())
        assert theta == pytest.approx(theta_exact, rel=1e-6)


def test_a_face_starts_its_solves_from_the_last_faces_on_the_items_both_tie():
    """The solves of a new guess start from the last face's solutions on the items both
    guesses tie, at 0 on the others, and from 0 where the items at 1 differ."""
    n = 6
    at_one = np.zeros(n, bool)
    old_tied, new_tied = np.isin(np.arange(n), [1, 3, 4]), np.isin(np.arange(n), [3, 4, 5])
    last = box_dual._Face(at_one, old_tied, np.array([1.0, 2.0, 3.0]),
                          np.array([4.0, 5.0, 6.0]), np.array([7.0, 8.0, 9.0]))
    r, p, q = box_dual._face_starts(last, at_one, new_tied)
    np.testing.assert_array_equal(r, [8.0, 9.0, 0.0])
    np.testing.assert_array_equal(p, [2.0, 3.0, 0.0])
    np.testing.assert_array_equal(q, [5.0, 6.0, 0.0])
    other = at_one.copy()
    other[0] = True
    assert not np.any(box_dual._face_starts(last, other, new_tied))
    assert not np.any(box_dual._face_starts(None, at_one, new_tied))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 0.1, 1 / 3, 1e-17, 0.999999999, -0.5, 2.5, 1e16]),
                max_size=60))
def test_the_exact_sum_is_fsum(entries):
    """``_exact_sum`` counts the ones and sums the rest exactly: the float of ``math.fsum``
    over every entry, bit for bit (entries of a box's answer, and others)."""
    v = np.array(entries, dtype=np.float64)
    assert box_dual._exact_sum(v) == math.fsum(v)

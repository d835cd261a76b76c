"""A regularization path: the cutting plane's cuts of the loss do not depend on C, so a fit
at the next C starts from them (TopRanker(warm_start=True), solve_cutting_plane(cuts=...)),
and every point is still certified."""

from pathlib import Path

import numpy as np
import pytest

from cvxtop import TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data
from cvxtop.solvers import RankingObjective, solve_cutting_plane
from cvxtop.solvers.cut_store import loss_key

X, Y = make_ranking_data(400, 8, noise=0.3, random_state=0)
CS = [1e-3, 1e-2, 0.1, 1.0, 10.0]


@pytest.mark.parametrize("surrogate", ["prec@k-avg", "prec@k-max", "prec@k-struct",
                                       "prec@k-svmperf", "pap@k-avg"])
def test_each_point_of_the_path_is_the_certified_optimum(surrogate):
    k = 0.25 if surrogate.startswith("prec") else 20
    path = TopRanker(surrogate, k=k, warm_start=True, tol=1e-8)
    for C in CS:
        path.set_params(C=C).fit(X, Y)
        cold = TopRanker(surrogate, k=k, C=C, engine="cutting-plane", tol=1e-8).fit(X, Y)
        assert path.status_ == "optimal" and path.gap_ <= 1e-8
        assert path.engine_ == "cutting-plane"
        # both certified to 1e-8: their objectives agree to the sum of the gaps
        assert path.objective_ == pytest.approx(cold.objective_, rel=3e-8)
        assert path.lower_bound_ <= cold.objective_ + 1e-12 * abs(cold.objective_)


def test_a_refit_at_the_same_C_is_certified_by_the_kept_cuts_at_once():
    model = TopRanker("prec@k-avg", k=0.25, C=1.0, warm_start=True).fit(X, Y)
    first = model.n_iter_
    model.fit(X, Y)
    assert first > 1 and model.n_iter_ == 1 and model.status_ == "optimal"


def test_cuts_of_other_data_are_not_used():
    model = TopRanker("prec@k-avg", k=0.25, C=1.0, warm_start=True).fit(X, Y)
    X2, Y2 = make_ranking_data(400, 8, noise=0.3, random_state=1)
    model.fit(X2, Y2)
    cold = TopRanker("prec@k-avg", k=0.25, C=1.0, engine="cutting-plane").fit(X2, Y2)
    assert model.objective_ == pytest.approx(cold.objective_, rel=3e-6)
    assert model.lower_bound_ <= cold.objective_ + 1e-12 * abs(cold.objective_)
    model.set_params(k=0.5).fit(X2, Y2)  # another cut-off: another loss
    cold = TopRanker("prec@k-avg", k=0.5, C=1.0, engine="cutting-plane").fit(X2, Y2)
    assert model.lower_bound_ <= cold.objective_ + 1e-12 * abs(cold.objective_)


def test_solve_cutting_plane_refuses_cuts_of_another_loss_and_keeps_its_own():
    surrogate = surrogates.get("prec@k-avg", 0.25)
    first = RankingObjective(X, Y, surrogate, 1.0)
    result = solve_cutting_plane(first, keep_cuts=True)
    assert result.cuts is not None and len(result.cuts) >= 1
    assert result.cuts.key == loss_key(RankingObjective(X, Y, surrogate, 10.0))  # C aside
    assert solve_cutting_plane(first).cuts is None  # kept only when asked
    seeded = solve_cutting_plane(RankingObjective(X, Y, surrogate, 10.0), cuts=result.cuts)
    assert seeded.status == "optimal"
    with pytest.raises(ValueError, match="cuts must be the SolveResult.cuts of a solve of the "
                                         "same loss"):
        solve_cutting_plane(RankingObjective(X[::-1], Y[::-1], surrogate, 1.0),
                            cuts=result.cuts)
    with pytest.raises(ValueError, match="same loss"):
        solve_cutting_plane(RankingObjective(X, Y, surrogates.get("prec@k-max", 0.25), 1.0),
                            cuts=result.cuts)


def test_the_loss_digest_is_computed_once_and_a_rescaled_copy_gets_its_own(monkeypatch):
    from cvxtop.solvers import cut_store
    from cvxtop.solvers.scaling import rescaled
    objective = RankingObjective(X, Y, surrogates.get("prec@k-avg", 0.25), 1.0)
    hashed = []
    real = cut_store.hashlib.sha256
    monkeypatch.setattr(cut_store.hashlib, "sha256", lambda: hashed.append(1) or real())
    key = loss_key(objective)
    assert loss_key(objective) == key and len(hashed) == 1
    other = rescaled(objective, 4.0)  # the same problem on X/4: another loss
    assert loss_key(other) != key and len(hashed) == 2
    assert loss_key(RankingObjective(X / 4.0, Y, objective.surrogate, 16.0)) == loss_key(other)


def test_the_zero_models_loss_is_computed_once_per_path(monkeypatch):
    """Every solve checks its lower bound against the zero model's objective ``C·L(0)``,
    and a fit asks whether it is the zero model: ``L(0)`` does not depend on ``C``, so the
    first round of a cold solve (at the zero model) keeps it, a path's cuts carry it, and
    no fit evaluates the loss at zero again."""
    surrogate = surrogates.get("prec@k-avg", 0.25)
    at_zero = []
    real = RankingObjective.loss

    def counted(self, s):
        if not np.any(s):
            at_zero.append(1)
        return real(self, s)

    monkeypatch.setattr(RankingObjective, "loss", counted)
    model = TopRanker("prec@k-avg", k=0.25, engine="cutting-plane", warm_start=True)
    for C in (0.1, 1.0, 10.0):
        model.set_params(C=C).fit(X, Y)
    assert not at_zero
    zero_loss = model._path_cuts.zero_loss
    assert zero_loss == pytest.approx(real(RankingObjective(X, Y, surrogate, 1.0),
                                           np.zeros(len(Y))), rel=1e-15)
    # a rescaled copy (other features, other C) has the same loss at zero
    from cvxtop.solvers.scaling import rescaled
    objective = RankingObjective(X, Y, surrogate, 2.0)
    assert rescaled(objective, 4.0).zero_value() == 32.0 * zero_loss
    assert objective.zero_value() == 2.0 * zero_loss


def test_a_path_over_lists_and_sparse_features():
    from scipy import sparse

    from cvxtop.datasets import make_sparse_ranking_data

    groups = np.arange(len(Y)) // 50
    Xs, Ys = make_sparse_ranking_data(300, 500, density=0.02, noise=0.3, random_state=0)
    for features, labels, lists in [(X, Y, groups), (sparse.csr_matrix(Xs), Ys, None)]:
        path = TopRanker("prec@k-avg", k=0.25, warm_start=True, tol=1e-8)
        for C in (0.1, 1.0, 10.0):
            path.set_params(C=C).fit(features, labels, groups=lists)
            cold = TopRanker("prec@k-avg", k=0.25, C=C, engine="cutting-plane",
                             tol=1e-8).fit(features, labels, groups=lists)
            assert path.status_ == "optimal"
            assert path.objective_ == pytest.approx(cold.objective_, rel=3e-8)


@pytest.mark.parametrize("exact_intercepts", [False, True])
def test_a_path_down_leaves_out_cuts_whose_rounding_is_of_a_larger_scale(exact_intercepts,
                                                                         monkeypatch):
    """On MAGIC, prec@k-max from C = 1e4 down, its intercepts computed as ``L(s) − g·s``
    (as for surrogates that do not declare them: ``intercept_from_irrelevant``): a cut kept
    from the large C carries rounding margins of its scale, which at C = 0.002 alone
    exceeded tol (2,000 rounds, then SolverError) where a cold fit certifies at once. The
    next solve leaves such cuts out, and every point of the path certifies at the cold
    fit's objective. With the intercepts read off the subgradient, as shipped, the margins
    do not grow with the scores: no cut is left out, and every point certifies too."""
    from pathlib import Path

    from cvxtop.datasets import load_paper_dataset
    from cvxtop.surrogates.prec import SelectionSurrogate
    monkeypatch.setattr(SelectionSurrogate, "intercept_from_irrelevant", exact_intercepts)
    X, y = load_paper_dataset("magic", Path(__file__).resolve().parents[1] / "data")
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    path = TopRanker("prec@k-max", k=0.25, warm_start=True, engine="cutting-plane")
    left_out = 0
    for C in (1e4, 2154.4, 1.0, 2.1544e-3, 1e-4):
        path.set_params(C=C).fit(X, y)
        cold = TopRanker("prec@k-max", k=0.25, C=C, engine="cutting-plane").fit(X, y)
        assert path.status_ == "optimal" and path.gap_ <= 1e-6
        assert path.objective_ == pytest.approx(cold.objective_, rel=2e-6)
        assert path.lower_bound_ <= cold.objective_ + 1e-12 * abs(cold.objective_)
        left_out += path.solve_stats_.get("seeded_cuts_left_out", 0)
    assert (left_out == 0) if exact_intercepts else (left_out >= 1)


def _spambase_rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of spambase (seed 0), standardized, with 0/1 labels."""
    from pathlib import Path

    from cvxtop.datasets import load_paper_dataset
    X, y = load_paper_dataset("spambase", Path(__file__).resolve().parents[1] / "data")
    take = np.random.default_rng(0).choice(len(y), n, replace=False)
    X, y = X[take], y[take].astype(float)
    return (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0), y


def test_a_cold_solve_at_a_large_C_hands_over_to_a_smaller_C_and_certifies(monkeypatch):
    """On 800 rows of spambase, prec@k-max at C = 1e5 from the zero model: the master's
    points lie so far out that no query improves on the zero model, and the rounds alone
    stall (here 500 of them, at a gap above 1e-4). After STALL_ROUNDS the solve hands over
    to C = 1e4, whose cuts and point start it again: it certifies, at the objective of a
    path from C = 1e4."""
    import cvxtop.solvers.cutting_plane as cutting_plane
    from cvxtop.exceptions import SolverError
    X, y = _spambase_rows(800)
    surrogate = surrogates.get("prec@k-max", 0.25)
    seen = []  # the rounds a progress bar is told of: this C's own, numbered on
    cold = solve_cutting_plane(RankingObjective(X, y, surrogate, 1e5), tol=1e-6,
                               callback=lambda it, upper, lower: seen.append(it))
    assert cold.status == "optimal" and cold.gap <= 1e-6
    assert cold.stats["continued_at_C"] == pytest.approx(1e4)
    assert cold.n_iter > cold.stats["continuation_rounds"] >= cutting_plane.STALL_ROUNDS
    assert seen == list(range(1, len(seen) + 1))
    assert len(seen) == cold.n_iter - cold.stats["continuation_rounds"] \
        + cutting_plane.STALL_ROUNDS
    start = solve_cutting_plane(RankingObjective(X, y, surrogate, 1e4), tol=1e-6,
                                keep_cuts=True)
    path = solve_cutting_plane(RankingObjective(X, y, surrogate, 1e5), tol=1e-6,
                               cuts=start.cuts, w0=start.coef)
    assert "continued_at_C" not in path.stats  # (its best point moves: no stall)
    assert cold.objective == pytest.approx(path.objective, rel=2e-6)
    assert cold.lower_bound <= path.objective + 1e-12 * abs(path.objective)
    monkeypatch.setattr(cutting_plane, "CONTINUATION_LEVELS", 0)
    with pytest.raises(SolverError, match="500 rounds"):
        solve_cutting_plane(RankingObjective(X, y, surrogate, 1e5), tol=1e-6, max_iter=500)


def test_a_warm_start_whose_best_point_never_moves_hands_over_too(monkeypatch):
    """A start that is not the zero model stalls too when the rounds leave the best point
    there with a gap above CONTINUATION_TOL (a path up to C = 1e4 on
    make_ranking_data(10⁴, 1,000) from C = 464, prec@k-max: the start's objective never
    improved in 2,000 rounds, which ended at a gap of 4e-4). Started at the optimum itself
    with no cuts, the best point cannot move: after STALL_ROUNDS (here 2) the solve hands
    over to C / 10 and certifies the same objective as a cold fit; a start that certifies
    first is not handed over, nor one whose best point moved."""
    import cvxtop.solvers.cutting_plane as cutting_plane
    X, y = _spambase_rows(800)
    surrogate = surrogates.get("prec@k-max", 0.25)
    cold = solve_cutting_plane(RankingObjective(X, y, surrogate, 10.0), tol=1e-6)
    monkeypatch.setattr(cutting_plane, "STALL_ROUNDS", 2)
    handed = solve_cutting_plane(RankingObjective(X, y, surrogate, 10.0), tol=1e-6,
                                 w0=cold.coef)
    assert handed.status == "optimal" and handed.gap <= 1e-6
    assert handed.stats["continued_at_C"] == pytest.approx(1.0)
    assert handed.objective == pytest.approx(cold.objective, rel=2e-6)
    assert handed.lower_bound <= cold.objective + 1e-12 * abs(cold.objective)
    kept = solve_cutting_plane(RankingObjective(X, y, surrogate, 10.0), tol=1e-6,
                               keep_cuts=True)
    again = solve_cutting_plane(RankingObjective(X, y, surrogate, 10.0), tol=1e-6,
                                cuts=kept.cuts, w0=kept.coef)
    assert again.n_iter == 1 and "continued_at_C" not in again.stats
    assert not cutting_plane._stalled(cold.coef, cold.coef, cutting_plane.CONTINUATION_TOL)
    assert cutting_plane._stalled(cold.coef, cold.coef, 2 * cutting_plane.CONTINUATION_TOL)
    assert not cutting_plane._stalled(cold.coef.copy(), cold.coef, 1.0)


@pytest.mark.parametrize("seed_rounding", [None, 1e-5])
def test_a_smaller_C_whose_cuts_the_start_would_leave_out_is_solved_to_tol_first(
        monkeypatch, seed_rounding):
    """Before the large C starts from the rough solve of the smaller C, the hand-over asks
    whether that start would keep every cut (their rounding against SEED_ROUNDING of the
    gap aimed at); if not, the smaller C is solved on to tol first (pAp@k-avg on
    make_ranking_data(10⁴, 1,000) at C = 1e4 left out 803 cuts and ended at 2,000 rounds).
    The answer agrees with the cuts the start then leaves out. On 800 rows of spambase
    every cut is kept (None: the shipped rule); with SEED_ROUNDING = 1e-5 one is not."""
    import cvxtop.solvers.cutting_plane as cutting_plane
    X, y = _spambase_rows(800)
    objective = RankingObjective(X, y, surrogates.get("prec@k-max", 0.25), 1e5)
    reference = solve_cutting_plane(objective, tol=1e-6)
    if seed_rounding is not None:
        monkeypatch.setattr(cutting_plane, "SEED_ROUNDING", seed_rounding)
    calls, verdicts = [], []
    rounds, keeps = cutting_plane._cutting_plane, cutting_plane._keeps_every_cut

    def recorded_rounds(objective, **options):
        store, result = rounds(objective, **options)
        calls.append((objective.C, options["w0"] is not None, options["tol"],
                      None if isinstance(result, int)  # (the round it stalled at)
                      else result.stats.get("seeded_cuts_left_out")))
        return store, result

    def recorded_keeps(*args):
        verdicts.append(keeps(*args))
        return verdicts[-1]

    monkeypatch.setattr(cutting_plane, "_cutting_plane", recorded_rounds)
    monkeypatch.setattr(cutting_plane, "_keeps_every_cut", recorded_keeps)
    result = solve_cutting_plane(objective, tol=1e-6)
    assert result.status == "optimal" and result.gap <= 1e-6
    assert result.objective == pytest.approx(reference.objective, rel=2e-6)
    assert calls[:2] == [(1e5, False, 1e-6, None), (1e4, False, 1e-2, None)]
    if seed_rounding is None:
        assert verdicts == [True]
        assert calls[2:] == [(1e5, True, 1e-6, 0)]
    else:
        assert verdicts == [False]
        assert [c[:3] for c in calls[2:]] == [(1e4, True, 1e-6), (1e5, True, 1e-6)]
        assert calls[-1][3] > 0


def test_a_start_again_that_does_not_certify_solves_the_smaller_C_to_tol(monkeypatch):
    """The smaller C of a hand-over is solved roughly (CONTINUATION_TOL), and a start from
    it may leave out many of its cuts for their rounding and not certify (pAp@k-avg on
    make_ranking_data(10⁴, 1,000) at C = 1e4: 2,000 rounds, gap 8.5e-2). Then that solve
    goes on to tol from its own cuts, and the large C starts again from it. Here the first
    start again is cut to one round, so that it does not certify."""
    import cvxtop.solvers.cutting_plane as cutting_plane
    X, y = _spambase_rows(800)
    objective = RankingObjective(X, y, surrogates.get("prec@k-max", 0.25), 1e5)
    calls = []
    rounds = cutting_plane._cutting_plane

    def first_start_again_cut_short(objective, **options):
        again = objective.C == 1e5 and options["w0"] is not None
        if again and not any(c == (1e5, True) for c, _ in calls):
            options = {**options, "max_iter": 1}
        calls.append(((objective.C, again), options["tol"]))
        return rounds(objective, **options)

    monkeypatch.setattr(cutting_plane, "_cutting_plane", first_start_again_cut_short)
    result = solve_cutting_plane(objective, tol=1e-6)
    assert result.status == "optimal" and result.gap <= 1e-6
    assert [c for c, _ in calls].count((1e5, True)) == 2
    # between the two starts again, C = 1e4 is solved on to tol
    first = [c for c, _ in calls].index((1e5, True))
    assert calls[first + 1] == ((1e4, False), 1e-6)
    assert result.n_iter > result.stats["continuation_rounds"] > cutting_plane.STALL_ROUNDS
    monkeypatch.undo()
    reference = solve_cutting_plane(objective, tol=1e-6)
    assert result.objective == pytest.approx(reference.objective, rel=2e-6)


def test_a_path_point_starts_from_the_best_point_on_the_last_answers_ray():
    """Where the loss is linear on the optimum's face, the optimum is proportional to C, so
    the next point's optimum lies on the last answer's ray. The first round searches that
    ray (the scores scale with it: no product with the features), outwards going up and
    inwards going down, and the kept cuts certify the point there: one round, where a
    start from the last answer itself took two."""
    X, y = load_paper_dataset("ionosphere", Path(__file__).resolve().parents[1] / "data")
    up = TopRanker("prec@k-struct", k=0.25).fit_path(X, y, [1.0, 2.0])
    down = TopRanker("prec@k-struct", k=0.25, C=2.0, warm_start=True).fit(X, y)
    down.set_params(C=1.0).fit(X, y)
    assert up[0].n_iter_ > 1 and up[1].n_iter_ == 1 and down.n_iter_ == 1
    for fit, C in ((up[1], 2.0), (down, 1.0)):
        cold = TopRanker("prec@k-struct", k=0.25, C=C).fit(X, y)
        assert fit.status_ == "optimal" and fit.gap_ <= 1e-6
        assert fit.objective_ == pytest.approx(cold.objective_, rel=2e-6)

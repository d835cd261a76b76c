"""TopRanker.fit_path and cvxtop.solvers.path.solve_path: a whole path over C from one
look at the data, every point the certified optimum of a cold fit at its C."""

import warnings

import numpy as np
import pytest

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import make_ranking_data
from cvxtop.solvers import RankingObjective
from cvxtop.solvers.path import solve_path

X, Y = make_ranking_data(400, 8, noise=0.3, random_state=0)
CS = [10.0, 1e-3, 1.0, 0.1]  # not sorted: the fits come back in this order


def _cold(surrogate, k, C, features=X, labels=Y, **params):
    return TopRanker(surrogate, k=k, C=C, engine="cutting-plane", tol=1e-8,
                     **params).fit(features, labels)


@pytest.mark.parametrize("surrogate", ["prec@k-avg", "prec@k-max", "prec@k-struct",
                                       "prec@k-svmperf", "pap@k-avg", "pap@k-ts"])
def test_each_point_is_the_certified_optimum_of_a_cold_fit(surrogate):
    k = 0.25 if surrogate.startswith("prec") else 20
    estimator = TopRanker(surrogate, k=k, tol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (zero models)
        fits = estimator.fit_path(X, Y, CS)
        colds = [_cold(surrogate, k, C) for C in CS]
    assert not hasattr(estimator, "coef_")  # the estimator itself is not fitted
    assert [m.C for m in fits] == CS
    for fit, cold in zip(fits, colds):
        assert fit.status_ == "optimal" and fit.gap_ <= 1e-8
        assert fit.engine_ == "cutting-plane" and fit.n_features_in_ == X.shape[1]
        assert fit.objective_ == pytest.approx(cold.objective_, rel=3e-8)
        assert fit.lower_bound_ <= cold.objective_ + 1e-12 * abs(cold.objective_)
        assert fit.zero_model_ == cold.zero_model_
        np.testing.assert_allclose(fit.decision_function(X), X @ fit.coef_)


def test_the_data_are_digested_once_for_the_whole_path(monkeypatch):
    """A loop of warm-started fits hashes the data once per fit (the data may change
    between fits); a path whose fits keep their cuts for a later warm start hashes them
    once, and one whose fits keep none (their cuts never leave it) not at all, with the
    same answers."""
    from cvxtop.solvers import cut_store
    hashed = []
    real = cut_store.hashlib.sha256
    monkeypatch.setattr(cut_store.hashlib, "sha256", lambda: hashed.append(1) or real())
    unkeyed = TopRanker("prec@k-avg", k=0.25).fit_path(X, Y, CS)
    assert len(hashed) == 0
    keyed = TopRanker("prec@k-avg", k=0.25, warm_start=True).fit_path(X, Y, CS)
    assert len(hashed) == 1
    for a, b in zip(unkeyed, keyed):
        assert a.objective_ == pytest.approx(b.objective_, rel=1e-12)
    model = TopRanker("prec@k-avg", k=0.25, warm_start=True)
    for C in CS:
        model.set_params(C=C).fit(X, Y)
    assert len(hashed) == 1 + len(CS)


def test_a_cut_keyed_by_its_objective_is_refused_by_another_objective():
    """Cuts keyed by an objective's identity (a path whose fits keep none) start no solve
    of another objective, even one of the same data; on their own objective they do."""
    from cvxtop.solvers import cut_store, solve_cutting_plane
    first = RankingObjective(X, Y, surrogates.get("prec@k-avg", 0.25), 1.0)
    cut_store.key_by_identity(first)
    cuts = solve_cutting_plane(first, keep_cuts=True).cuts
    other = RankingObjective(X, Y, surrogates.get("prec@k-avg", 0.25), 2.0)
    with pytest.raises(ValueError, match="cuts must be the SolveResult.cuts"):
        solve_cutting_plane(other, cuts=cuts)
    first.C = 2.0
    assert solve_cutting_plane(first, cuts=cuts).status == "optimal"


def test_blas_is_limited_once_for_the_whole_path(monkeypatch):
    """Limiting BLAS to one thread costs about as much as a round of a small fit: the path
    limits it once, not once per point, and restores it afterwards."""
    from cvxtop import _threads
    limits = []
    controller = _threads._blas_controller()
    real = type(controller).limit
    monkeypatch.setattr(type(controller), "limit",
                        lambda self, **kw: limits.append(kw) or real(self, **kw))
    TopRanker("prec@k-avg", k=0.25).fit_path(X, Y, CS)
    assert limits == [{"limits": 1}]
    assert not getattr(_threads._depth, "value", 0)


def test_badly_scaled_features_are_scaled_once_and_give_the_same_problem(monkeypatch):
    """X·2⁴⁰ with C·2⁻⁸⁰ is the same problem: the path solves it on rescaled features,
    made once, and its objectives are the cold fits' on X times 2⁻⁸⁰."""
    from cvxtop.solvers import path as path_module
    made = []
    real = path_module.rescaled
    monkeypatch.setattr(path_module, "rescaled", lambda o, s: made.append(s) or real(o, s))
    a = 2.0 ** 40
    fits = TopRanker("pap@k-avg", k=20, tol=1e-8).fit_path(X * a, Y, [C / a**2 for C in CS])
    assert len(made) == 1 and made[0] > a  # (a power of two near max |X·a|)
    for fit, C in zip(fits, CS):
        cold = _cold("pap@k-avg", 20, C)
        assert not cold.zero_model_
        assert fit.gap_ <= 1e-8
        assert fit.objective_ == pytest.approx(cold.objective_ / a**2, rel=3e-8)
        np.testing.assert_allclose(fit.coef_ * a, cold.coef_, rtol=1e-3, atol=1e-6)


def test_a_precomputed_kernel_is_factored_once(monkeypatch):
    from cvxtop import estimators
    K = X @ X.T
    factored = []
    real = estimators.check_gram_matrix
    monkeypatch.setattr(estimators, "check_gram_matrix",
                        lambda *a: factored.append(1) or real(*a))
    fits = TopRanker("prec@k-avg", k=0.25, kernel="precomputed",
                     tol=1e-8).fit_path(K, Y, CS)
    assert len(factored) == 1
    for fit, C in zip(fits, CS):
        cold = _cold("prec@k-avg", 0.25, C, K, kernel="precomputed")
        assert fit.objective_ == pytest.approx(cold.objective_, rel=3e-8)
        assert fit.gram_rank_ == cold.gram_rank_
        np.testing.assert_allclose(fit.decision_function(K), cold.decision_function(K),
                                   atol=1e-5 * np.abs(cold.decision_function(K)).max())


def test_a_path_over_lists_and_over_sparse_features():
    from scipy import sparse

    from cvxtop.datasets import make_sparse_ranking_data
    groups = np.arange(len(Y)) // 50
    fits = TopRanker("pap@k-avg", k=3, tol=1e-8).fit_path(X, Y, CS, groups=groups)
    for fit, C in zip(fits, CS):
        cold = TopRanker("pap@k-avg", k=3, C=C, engine="cutting-plane",
                         tol=1e-8).fit(X, Y, groups=groups)
        assert fit.n_groups_ == 8
        assert fit.objective_ == pytest.approx(cold.objective_, rel=3e-8)
    Xs, Ys = make_sparse_ranking_data(300, 500, density=0.02, noise=0.3, random_state=0)
    Xs = sparse.csr_matrix(Xs)
    for surrogate in ("prec@k-struct", "prec@k-avg"):
        fits = TopRanker(surrogate, k=0.25, tol=1e-8).fit_path(Xs, Ys, CS)
        for fit, C in zip(fits, CS):
            cold = _cold(surrogate, 0.25, C, Xs, Ys)
            assert fit.status_ == "optimal" and fit.gap_ <= 1e-8
            assert fit.objective_ == pytest.approx(cold.objective_, rel=3e-8)


def test_a_point_that_fails_names_its_C_and_accept_inaccurate_returns_it():
    with pytest.raises(SolverError, match=r"the path's fit at C=0\.001 failed: .*max_iter"):
        TopRanker("prec@k-avg", k=0.25, max_iter=1).fit_path(X, Y, CS)
    with pytest.warns(UserWarning, match="status max_iter"):
        fits = TopRanker("prec@k-avg", k=0.25, max_iter=1,
                         accept_inaccurate=True).fit_path(X, Y, CS)
    assert {m.status_ for m in fits} <= {"max_iter", "optimal"}
    assert "max_iter" in {m.status_ for m in fits}


def test_solve_path_goes_on_after_a_failed_point_from_the_last_good_one():
    """With max_iter at the first C's own rounds (31 here), that C certifies and C = 1e3
    fails (42 rounds without the cap); the third point starts from the first one's cuts,
    as a warm-started fit after a failure does."""
    objective = RankingObjective(X, Y, surrogates.get("prec@k-avg", 0.25), 1.0)
    first = next(solve_path(objective, [0.01]))
    results = list(solve_path(objective, [0.01, 1e3, 0.01], {"max_iter": first.n_iter}))
    assert isinstance(results[0].objective, float) and isinstance(results[1], SolverError)
    assert results[1].status == "max_iter"
    assert results[2].n_iter == 1  # the first point's cuts certify it at once
    assert objective.C == 0.01
    with pytest.raises(ValueError, match="sets the options cuts and keep_cuts itself"):
        next(solve_path(objective, [1.0], {"keep_cuts": True}))


def test_the_zero_model_warning_names_the_values_of_C_once():
    Xz, yz = make_ranking_data(300, 5, noise=0.3, random_state=1)
    with pytest.warns(UserWarning, match=r"fits of prec@k-max at C = 0\.1, 1 are the zero "
                                         "model") as seen:
        fits = TopRanker("prec@k-max", k=0.25).fit_path(Xz, yz, [0.1, 1.0])
    assert sum("zero model" in str(w.message) for w in seen) == 1
    assert all(m.zero_model_ for m in fits)


@pytest.mark.parametrize("params, Cs, error, message", [
    ({}, [], ValueError, "Cs must hold at least one value"),
    ({}, [1.0, -1.0], ValueError, r"Cs\[1\] must be a finite number > 0"),
    ({}, [1.0, np.nan], ValueError, r"Cs\[1\] must be a finite number > 0"),
    ({}, "abc", TypeError, "Cs must be a sequence of numbers > 0"),
    ({}, 1.0, TypeError, "Cs must be a sequence of numbers > 0"),
    ({}, ["1"], TypeError, r"Cs\[0\] must be a real number"),
    (dict(solver="sgd"), [1.0], ValueError, "fit_path needs solver='exact'"),
    (dict(engine="direct"), [1.0], ValueError, "engine 'auto' or 'cutting-plane'"),
    (dict(surrogate="prec@k-ramp"), [1.0], ValueError, "fit_path needs a convex surrogate"),
    (dict(C=-1.0), [1.0], ValueError, "C must be a finite number > 0"),
])
def test_bad_arguments_name_themselves(params, Cs, error, message):
    with pytest.raises(error, match=message):
        TopRanker(**{"k": 0.25, **params}).fit_path(X, Y, Cs)


def test_quantities_of_the_data_are_computed_once_per_objective():
    """What the dual solves derive from Z and the labels alone (the relevant rows' sum of
    prec@k-struct, ‖Z‖_F) is kept on the objective for every C of a path; a rescaled copy
    (other features) starts without it."""
    from scipy import sparse

    from cvxtop.solvers.scaling import rescaled
    objective = RankingObjective(X, Y, surrogates.get("prec@k-struct", 0.25), 1.0)
    calls = []
    assert objective.derived("twice", lambda: calls.append(1) or 2.0) == 2.0
    assert objective.derived("twice", lambda: calls.append(1) or 3.0) == 2.0 and calls == [1]
    other = rescaled(objective, 4.0)
    assert other.derived("twice", lambda: 5.0) == 5.0
    assert objective.derived("twice", lambda: 7.0) == 2.0
    sparse_X = sparse.csr_matrix(np.where(X > 0.5, X, 0.0))
    for Z in (X, X.astype(np.float32), sparse_X, sparse_X.astype(np.float32)):
        dense = Z.toarray() if sparse.issparse(Z) else Z
        norms = RankingObjective(Z, Y, objective.surrogate, 1.0).row_norms()
        np.testing.assert_allclose(norms, np.linalg.norm(dense.astype(np.float64), axis=1),
                                   rtol=1e-14)
    np.testing.assert_allclose(other.row_norms(), objective.row_norms() / 4.0, rtol=1e-15)


def test_the_struct_dual_reads_the_relevant_rows_once_along_a_path(monkeypatch):
    from cvxtop.solvers import box_dual
    Xw, Yw = make_ranking_data(300, 40, noise=0.3, random_state=0)  # (d >= MIN_FEATURES)
    objective = RankingObjective(Xw, Yw, surrogates.get("prec@k-struct", 0.25), 1.0)
    names = []
    real = RankingObjective.derived

    def counted(self, name, compute):
        return real(self, name, lambda: names.append(name) or compute())

    monkeypatch.setattr(RankingObjective, "derived", counted)
    monkeypatch.setattr(box_dual, "SOLVE_ROUNDS", frozenset({1, 2, 3}))
    solves = [r for r in solve_path(objective, [0.1, 1.0, 10.0]) if r.stats["dual_solves"]]
    assert len(solves) >= 2 and names.count("relevant rows' sum") == 1


def test_the_fits_keep_their_cuts_only_for_a_warm_start():
    plain = TopRanker("pap@k-avg", k=20).fit_path(X, Y, [0.1, 1.0])
    assert all(m._path_cuts is None for m in plain)
    warm = TopRanker("pap@k-avg", k=20, warm_start=True).fit_path(X, Y, [0.1, 1.0])
    objective = warm[1].objective_
    warm[1].fit(X, Y)  # the same C from its own cuts: certified at once
    assert warm[1].n_iter_ == 1 and warm[1].status_ == "optimal"
    assert warm[1].objective_ == pytest.approx(objective, rel=2e-6)


def test_the_next_point_starts_from_the_last_points_scores_never_from_stale_ones():
    """A solve keeps its returned point, its scores and the loss with a score subgradient
    there with its cuts; the next solve of the path that starts there takes them instead
    of a product with Z and an evaluation of the loss. A start that is not that point (a
    coefficient changed in place) gets its own product."""
    from cvxtop.solvers import cutting_plane
    surrogate = surrogates.get("pap@k-avg", 20)
    objective = RankingObjective(X, Y, surrogate, 1.0)
    first = cutting_plane.solve_cutting_plane(objective, keep_cuts=True)
    w, s, (loss, g) = first.cuts.last_point
    np.testing.assert_array_equal(w, first.coef)
    np.testing.assert_allclose(s, X @ w, rtol=1e-12, atol=1e-12)
    own_loss, own_g = objective.loss_and_score_gradient(s)
    assert loss == own_loss
    np.testing.assert_array_equal(g, own_g)
    assert first.objective == pytest.approx(0.5 * float(w @ w) + loss, rel=1e-12)
    model = TopRanker("pap@k-avg", k=20, C=1.0, warm_start=True).fit(X, Y)
    model.coef_ *= 0.5  # in place: the kept point is a copy
    model.set_params(C=2.0).fit(X, Y)
    value = 0.5 * model.coef_ @ model.coef_ + 2.0 * RankingObjective(
        X, Y, surrogate, 2.0).loss(X @ model.coef_)
    assert model.objective_ == pytest.approx(value, rel=1e-12)
    assert model.objective_ == pytest.approx(_cold("pap@k-avg", 20, 2.0).objective_,
                                             rel=2e-6)


@pytest.mark.parametrize("shape", [(400, 8), (300, 2000)])
def test_seeded_cuts_bring_their_gram_matrix_and_give_the_same_solve(shape, monkeypatch):
    """A solve seeded with another C's cuts takes their Gram matrix as exported, with no
    product for them (on wide data each would cost two with Z), and runs exactly as a solve
    that recomputes it: same rounds, same objective and bound."""
    from dataclasses import replace

    from cvxtop.datasets import make_sparse_ranking_data
    from cvxtop.solvers import cut_store, solve_cutting_plane

    if shape[1] > shape[0]:
        features, labels = make_sparse_ranking_data(*shape, density=0.02, noise=0.5,
                                                    random_state=0)
    else:
        features, labels = make_ranking_data(*shape, noise=0.3, random_state=0)
    surrogate = surrogates.get("prec@k-avg", 0.25)
    first = solve_cutting_plane(RankingObjective(features, labels, surrogate, 0.1),
                                tol=1e-8, keep_cuts=True)
    assert first.cuts.gram.shape == (len(first.cuts),) * 2
    added = []
    add = cut_store.CutStore.add
    monkeypatch.setattr(cut_store.CutStore, "add",
                        lambda self, *args, **kw: added.append(1) or add(self, *args, **kw))
    runs = []
    for cuts in (first.cuts, replace(first.cuts, gram=None)):
        added.clear()
        result = solve_cutting_plane(RankingObjective(features, labels, surrogate, 1.0),
                                     tol=1e-8, cuts=cuts, w0=first.coef)
        runs.append((result, len(added)))
    (seeded, adds), (recomputed, recomputed_adds) = runs
    assert recomputed_adds - adds == len(first.cuts) > 0
    assert seeded.n_iter == recomputed.n_iter
    assert seeded.objective == pytest.approx(recomputed.objective, rel=1e-12)
    assert seeded.lower_bound == pytest.approx(recomputed.lower_bound, rel=1e-12)


def test_an_empty_store_seeded_with_the_gram_matrix_holds_what_one_cut_at_a_time_gives():
    """An empty store takes a path's cuts with their exported Gram matrix all at once, into
    its first slots, growing past its capacity as needed; it then holds the same rows,
    intercepts, rounding margins and Gram matrix as a store that adds them one at a time
    and computes the Gram matrix itself, and leaves out the same cuts."""
    from dataclasses import replace

    from cvxtop.solvers.cut_store import CutStore
    from cvxtop.solvers.parallel_products import ProductThreads

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((30, 5))
    rows = rng.standard_normal((10, 5))
    store = CutStore(Z, capacity=16, patience=100, master="active-set", solver="CLARABEL",
                     options=None, threads=ProductThreads(None, 1))
    for row in rows:
        store.add(row, row, float(rng.standard_normal()), (1e-12, 1e-13))
    store.lam[:10] = 0.1
    cuts = store.export("key")
    margins = cuts.margins.copy()
    margins[3] = 1.0  # left out below for its rounding
    cuts = replace(cuts, margins=margins)
    stores = []
    for seeded in (cuts, replace(cuts, gram=None)):
        fresh = CutStore(Z, capacity=4, patience=100, master="active-set", solver="CLARABEL",
                         options=None, threads=ProductThreads(None, 1))
        assert fresh.seed(seeded, max_rounding=0.5) == 1
        stores.append(fresh)
    at_once, one_by_one = stores
    m = at_once.used
    assert m == one_by_one.used == 9 and at_once.active[:m].all()
    assert int(at_once.active.sum()) == int(one_by_one.active.sum()) == 9
    for name in ("b", "margin", "h_error"):
        np.testing.assert_array_equal(getattr(at_once, name)[:m], getattr(one_by_one, name)[:m])
    np.testing.assert_array_equal(at_once.cuts[:m], one_by_one.cuts[:m])
    np.testing.assert_allclose(at_once.G[:m, :m], one_by_one.G[:m, :m], rtol=1e-12,
                               atol=1e-12)

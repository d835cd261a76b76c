"""The exact engines: certified, in agreement with each other and with the definitions."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data
from cvxtop.solvers import RankingObjective, minimize, solve_cutting_plane, solve_direct
from cvxtop.surrogates import PapSurrogate, PrecSurrogate
from conftest import registered, svmperf_intercepts_off

CONVEX_PREC = registered(PrecSurrogate, convex=True)


def ranking_data(seed: int, n: int = 120, d: int = 4, pos_rate: float = 0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pos_rate).astype(int)
    y[:2] = [1, 0]
    X = rng.standard_normal((n, d)) + 0.8 * y[:, None] * rng.standard_normal(d)
    return X, y


@pytest.mark.parametrize("name", CONVEX_PREC)
@pytest.mark.parametrize("seed, C, k", [(0, 1.0, 0.25), (1, 0.1, 3), (2, 10.0, 1.0)])
def test_direct_and_cutting_plane_agree_and_are_certified(name, seed, C, k):
    X, y = ranking_data(seed)
    obj = RankingObjective(X, y, surrogates.get(name, k), C)
    raw = solve_direct(obj, certify=False)  # the cvxpy program alone
    direct = solve_direct(obj, tol=1e-7)
    plane = solve_cutting_plane(obj, tol=1e-7)
    for res in (direct, plane):
        assert res.status == "optimal" and res.gap <= 1e-7
        assert res.lower_bound <= res.objective
    # each engine's bound is rigorous: no other answer beats it
    for a in (raw, direct, plane):
        for b in (direct, plane):
            assert b.lower_bound <= a.objective + 1e-9 * abs(a.objective)
    assert raw.objective == pytest.approx(plane.objective, rel=1e-5, abs=1e-7)
    assert direct.objective == pytest.approx(plane.objective, rel=2e-7, abs=1e-9)
    # objective is the exact numpy value at the returned point
    surr = surrogates.get(name, k)
    for res in (raw, direct, plane):
        w = res.coef
        assert res.objective == pytest.approx(0.5 * w @ w + C * surr.value(y, X @ w), rel=1e-12)


def test_topranker_objective_is_the_full_data_objective():
    X, y = ranking_data(3, n=90)
    for engine in ("direct", "cutting-plane"):
        model = TopRanker("prec@k-avg", k=0.5, C=2.0, engine=engine).fit(X, y)
        w = model.coef_
        expected = 0.5 * w @ w + 2.0 * surrogates.get("prec@k-avg", 0.5).value(y, X @ w)
        assert model.objective_ == pytest.approx(expected, rel=1e-12)
        assert np.array_equal(model.decision_function(X), X @ w)
        assert model.gap_ is not None and model.gap_ <= 1e-6


def test_auto_engine_switches_with_size():
    X, y = ranking_data(4, n=60)
    assert TopRanker(k=0.5).fit(X, y).engine_.startswith("direct")
    X, y = ranking_data(4, n=700, d=3)
    assert TopRanker(k=0.5).fit(X, y).engine_ == "cutting-plane"


def test_appendix_a_struct_minimizer_has_the_wrong_sign():
    """Kar et al. 2015, Appendix A: six points on a line, prec@1; the optimal ranking needs w >
    0."""
    X = np.array([[-1.0], [-1.0], [-2.0], [-3.0], [-3.0], [-3.0]])
    y = np.array([1, 1, 1, 0, 0, 0])
    for C in (0.1, 1.0, 10.0):
        struct = TopRanker("prec@k-struct", k=1, C=C).fit(X, y)
        avg = TopRanker("prec@k-avg", k=1, C=C).fit(X, y)
        assert struct.coef_[0] < 0 < avg.coef_[0]


def test_precomputed_linear_kernel_matches_linear_model():
    X, y = ranking_data(5, n=80, d=3)
    lin = TopRanker("prec@k-avg", k=0.25, engine="direct").fit(X, y)
    ker = TopRanker("prec@k-avg", k=0.25, kernel="precomputed", engine="direct").fit(X @ X.T, y)
    assert ker.objective_ == pytest.approx(lin.objective_, rel=1e-6)
    assert ker.dual_coef_.shape == (80,)
    Xt = np.random.default_rng(0).standard_normal((7, 3))
    np.testing.assert_allclose(ker.decision_function(Xt @ X.T), lin.decision_function(Xt),
                               rtol=1e-4, atol=1e-4)
    # the RKHS norm of the kernel solution is ‖w‖²
    a = ker.dual_coef_
    assert a @ (X @ X.T) @ a == pytest.approx(lin.coef_ @ lin.coef_, rel=1e-4)


def test_rbf_gram_both_engines_agree():
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = ranking_data(6, n=70, d=3)
    K = rbf_kernel(X, gamma=0.5)
    a = TopRanker("prec@k-max", k=2, kernel="precomputed", engine="direct").fit(K, y)
    b = TopRanker("prec@k-max", k=2, kernel="precomputed", engine="cutting-plane").fit(K, y)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-5)


def test_groups_mean_of_per_group_surrogates_and_engines_agree():
    X, y = ranking_data(7, n=150, d=3, pos_rate=0.4)
    groups = np.repeat(np.array(["u1", "u2", "u3", "u4", "u5"]), 30)
    models = [TopRanker("prec@k-avg", k=0.5, engine=e).fit(X, y, groups=groups)
              for e in ("direct", "cutting-plane")]
    assert models[0].objective_ == pytest.approx(models[1].objective_, rel=1e-5)
    w = models[1].coef_
    surr = surrogates.get("prec@k-avg", 0.5)
    per_group = [surr.value(y[groups == g], X[groups == g] @ w) for g in np.unique(groups)]
    assert models[1].objective_ == pytest.approx(0.5 * w @ w + np.mean(per_group), rel=1e-12)
    assert models[1].n_groups_ == 5 and models[1].n_groups_skipped_ == 0


def test_degenerate_groups_raise_or_are_skipped_and_counted():
    X, y = ranking_data(8, n=90, d=3)
    groups = np.repeat([10, 20, 30], 30)
    y = y.copy()
    y[groups == 20] = 0  # group 20 has no relevant item
    with pytest.raises(ValueError, match="group 20 is degenerate for prec@k-avg"):
        TopRanker(k=0.5).fit(X, y, groups=groups)
    with pytest.warns(UserWarning, match="skipped 1 degenerate group"):
        model = TopRanker(k=0.5, skip_degenerate_groups=True).fit(X, y, groups=groups)
    assert model.n_groups_skipped_ == 1 and model.n_groups_ == 2


@pytest.mark.parametrize("name", ["prec@k-struct", "pap@k-avg", "prec@k-svmperf",
                                  "prec@k-avg"])
@pytest.mark.parametrize("engine", ["direct", "cutting-plane"])
def test_one_group_left_by_skipped_ones_is_the_fit_on_its_rows(name, engine):
    """A skipped group's rows add nothing to the objective: the fit is the fit of the group
    left, on its rows alone. That group holds a subset of the rows, so the duals over one
    list's items (which index Z by them) do not apply; they did, and pAp@k-avg and
    prec@k-struct raised numpy's broadcast errors from inside the solve."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((46, 40))
    y = (rng.random(46) < 0.4).astype(int)
    groups = np.zeros(46, dtype=int)
    groups[:9] = 1
    y[:9] = 0  # group 1 has no relevant item
    keep = groups == 0
    with pytest.warns(UserWarning, match="skipped 1 degenerate group"):
        objective = RankingObjective(X, y, surrogates.get(name, 2), 10.0, groups,
                                     skip_degenerate=True)
    assert not objective.one_list
    with pytest.warns(UserWarning, match="skipped 1 degenerate group"):
        grouped = TopRanker(name, k=2, C=10.0, engine=engine,
                            skip_degenerate_groups=True).fit(X, y, groups=groups)
    alone = TopRanker(name, k=2, C=10.0, engine=engine).fit(X[keep], y[keep])
    assert grouped.status_ == "optimal" and grouped.gap_ <= 1e-6
    assert grouped.objective_ == pytest.approx(alone.objective_, rel=1e-5)


def test_one_list_means_every_row_in_order():
    from cvxtop.solvers import box_dual

    X, y = ranking_data(9, n=60, d=40)
    struct = surrogates.get("prec@k-struct", 2)
    assert RankingObjective(X, y, struct, 1.0).one_list
    everyone = RankingObjective(X, y, struct, 1.0, np.zeros(60, dtype=int))
    assert everyone.one_list and box_dual.suits(everyone)
    groups = np.r_[np.zeros(50, dtype=int), np.ones(10, dtype=int)]
    y = y.copy()
    y[50:] = 0
    with pytest.warns(UserWarning, match="skipped 1 degenerate group"):
        subset = RankingObjective(X, y, struct, 1.0, groups, skip_degenerate=True)
    assert len(subset.parts) == 1 and not subset.one_list
    assert not box_dual.suits(subset)
    assert box_dual.cut_near(subset, np.zeros(60)) is None


def test_cutting_plane_reports_failure_with_status():
    X, y = ranking_data(9, n=100)
    obj = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    with pytest.raises(SolverError, match="status: max_iter") as info:
        solve_cutting_plane(obj, max_iter=2)
    assert info.value.status == "max_iter"
    with pytest.warns(UserWarning, match="stopped after 2 rounds"):
        res = solve_cutting_plane(obj, max_iter=2, accept_inaccurate=True)
    assert res.status == "max_iter" and res.gap > 1e-6


def test_a_direct_solve_cut_short_is_still_certified():
    """Clarabel stopped after one iteration (status user_limit): its point starts the
    cutting plane, which certifies the optimum."""
    X, y = ranking_data(10, n=100)
    model = TopRanker(k=0.25, engine="direct", solver_options={"max_iter": 1}).fit(X, y)
    reference = TopRanker(k=0.25, engine="direct").fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert model.objective_ == pytest.approx(reference.objective_, rel=1e-6)


def test_an_uncertified_direct_solve_reports_its_status_or_warns():
    from cvxtop.solvers import RankingObjective, minimize

    X, y = ranking_data(10, n=100)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    options = {"certify": False, "solver_options": {"max_iter": 1}}
    with pytest.raises(SolverError, match="accept_inaccurate=True returns its point") as info:
        minimize(objective, "direct", options=options)
    assert info.value.status == "user_limit"
    with pytest.warns(UserWarning, match="status user_limit"):
        result = minimize(objective, "direct", options={**options, "accept_inaccurate": True})
    assert result.status == "user_limit" and result.gap is None


@pytest.mark.parametrize("cvx_solver", ["OSQP", "ECOS"])
def test_other_cvxpy_solvers(cvx_solver):
    X, y = ranking_data(11, n=60, d=3)
    ref = TopRanker("prec@k-struct", k=2, engine="direct").fit(X, y)
    options = ({"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 200000} if cvx_solver == "OSQP"
               else None)
    other = TopRanker("prec@k-struct", k=2, engine="direct", cvx_solver=cvx_solver,
                      solver_options=options).fit(X, y)
    assert other.objective_ == pytest.approx(ref.objective_, rel=1e-5)


def test_ramp_by_convex_concave_procedure_improves_on_its_avg_start():
    X, y = ranking_data(12, n=100)
    start = TopRanker("prec@k-avg", k=0.25, C=5.0).fit(X, y)
    ramp = TopRanker("prec@k-ramp", k=0.25, C=5.0).fit(X, y)
    w0 = start.coef_
    ramp_at_start = 0.5 * w0 @ w0 + 5.0 * surrogates.get("prec@k-ramp", 0.25).value(y, X @ w0)
    assert ramp.objective_ <= ramp_at_start + 1e-9
    assert ramp.status_ == "local" and ramp.gap_ is None


CONVEX_PAP = registered(PapSurrogate, convex=True)


@pytest.mark.parametrize("name", CONVEX_PAP)
def test_pap_engines_agree_on_one_list(name):
    X, y = ranking_data(13, n=60, d=3, pos_rate=0.2)
    a = TopRanker(name, k=5, engine="direct").fit(X, y)
    b = TopRanker(name, k=5, engine="cutting-plane", tol=1e-7).fit(X, y)
    assert b.gap_ <= 1e-7 and b.lower_bound_ <= a.objective_ + 1e-9
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-5)


@pytest.mark.parametrize("name", CONVEX_PAP)
def test_grouped_pap_solve_is_certified_and_matches_direct_cvxpy(name):
    """Issue 4: mean over users of the per-user surrogate (eq. (17) applied to the loss)."""
    import cvxpy as cp

    rng = np.random.default_rng(14)
    X = rng.standard_normal((72, 3))
    groups = np.repeat(np.arange(6), 12)
    y = np.zeros(72, dtype=int)
    for g in range(6):  # users with 1 to 6 relevant items: n₊ < k and n₊ > k both occur
        y[np.flatnonzero(groups == g)[: g + 1]] = 1
    k, C = 3, 2.0
    model = TopRanker(name, k=k, C=C, engine="cutting-plane", tol=1e-7).fit(X, y, groups=groups)
    assert model.status_ == "optimal" and model.gap_ <= 1e-7
    # an independent direct cvxpy program, one block per user
    w = cp.Variable(3)
    surr = surrogates.get(name, k)
    terms, cons = [], []
    for g in range(6):
        idx = groups == g
        expr, c = surr.expression(y[idx], X[idx] @ w)
        terms.append(expr)
        cons += c
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * sum(terms) / 6), cons)
    prob.solve(solver="CLARABEL")
    assert model.objective_ == pytest.approx(prob.value, rel=1e-5)
    assert model.lower_bound_ <= prob.value * (1 + 1e-8)


def test_pap_ramp_by_convex_concave_procedure():
    X, y = ranking_data(15, n=50, d=3, pos_rate=0.2)
    start = TopRanker("pap@k-avg", k=4, C=5.0).fit(X, y)
    ramp = TopRanker("pap@k-ramp", k=4, C=5.0).fit(X, y)
    w0 = start.coef_
    at_start = 0.5 * w0 @ w0 + 5.0 * surrogates.get("pap@k-ramp", 4).value(y, X @ w0)
    assert ramp.objective_ <= at_start + 1e-9 and ramp.status_ == "local"


def test_non_convex_paper_ts_has_no_exact_solver_but_runs_the_papers_gd():
    X, y = ranking_data(16, n=40, d=3, pos_rate=0.2)
    with pytest.raises(ValueError, match="neither convex nor a difference of convex"):
        TopRanker("pap@k-ts-paper", k=3).fit(X, y)
    with pytest.raises(ValueError, match="is not convex"):
        TopRanker("pap@k-ts-paper", k=3, solver="gd").fit(X, y)
    model = TopRanker("pap@k-ts-paper", k=3, solver="gd", learning_rate="sqrt",
                      eta0=0.1, max_iter=50).fit(X, y)
    assert model.gap_ is None and np.isfinite(model.objective_)


def test_zero_model_optimum_is_reported_with_a_warning():
    rng = np.random.default_rng(17)
    X = rng.standard_normal((80, 3))          # relevant items drawn like the others:
    y = (rng.random(80) < 0.3).astype(int)    # the reduced hulls meet, zero is optimal
    y[:2] = [1, 0]
    with pytest.warns(UserWarning, match="is the zero model"):
        model = TopRanker("prec@k-avg", k=1).fit(X, y)
    assert np.linalg.norm(model.coef_) < 1e-3
    X[y == 1] += 4.0                          # well separated: no warning
    import warnings as _w
    with _w.catch_warnings():
        _w.simplefilter("error")
        TopRanker("prec@k-avg", k=1).fit(X, y)


def test_warm_start_reaches_the_same_optimum_in_fewer_rounds():
    from cvxtop.datasets import make_ranking_data

    X, y = make_ranking_data(3000, 10, noise=0.3, random_state=18)
    cold = TopRanker("prec@k-avg", k=0.25, C=1.0, engine="cutting-plane").fit(X, y)
    model = TopRanker("prec@k-avg", k=0.25, C=1.0, engine="cutting-plane", warm_start=True)
    model.fit(X, y)
    first_rounds = model.n_iter_
    model.set_params(C=1.1).fit(X, y)  # a nearby problem, started from the previous answer
    cold_next = TopRanker("prec@k-avg", k=0.25, C=1.1, engine="cutting-plane").fit(X, y)
    assert model.objective_ == pytest.approx(cold_next.objective_, rel=2e-6)
    assert model.n_iter_ < cold_next.n_iter_
    assert first_rounds == cold.n_iter_


@pytest.mark.parametrize("master", ["active-set", "cvxpy"])
@pytest.mark.parametrize("patience", [1, 100])
@pytest.mark.parametrize("d, seed, C", [(3, 1, 10.0), (40, 1, 1.0)])
def test_cutting_plane_bundle_growth_and_pruning(d, seed, C, patience, master, monkeypatch):
    """A store limited to one slot makes the bundle aggregate stale cuts and grow (the Gram
    matrix of the cuts follows). The answer stays certified and equal to the cvxpy
    program's, and the rigorous bound never falls back. With its memory budget spent the
    store aggregates cuts idle for a round, whatever the patience, so it stays within
    room for two full active sets."""
    import cvxtop.solvers.cut_store as store_module
    from cvxtop.solvers.cut_store import CutStore

    calls = {"aggregate": 0, "slots": 0}
    aggregate, allocate = CutStore._aggregate_stale, CutStore._allocate

    def counted_aggregate(self, rounds):
        calls["aggregate"] += 1
        return aggregate(self, rounds)

    def counted_allocate(self, capacity):
        calls["slots"] = max(calls["slots"], capacity)
        return allocate(self, capacity)

    monkeypatch.setattr(CutStore, "_aggregate_stale", counted_aggregate)
    monkeypatch.setattr(CutStore, "_allocate", counted_allocate)
    monkeypatch.setattr(store_module, "STORE_BYTES", 8 * d)  # room for one cut
    X, y = ranking_data(seed, n=200, d=d)
    obj = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), C)
    bounds = []
    plane = solve_cutting_plane(obj, tol=1e-7, capacity=1, patience=patience, master=master,
                               callback=lambda it, upper, lower: bounds.append(lower))
    assert plane.status == "optimal" and plane.gap <= 1e-7
    assert bounds == sorted(bounds)
    assert plane.n_iter > 1  # more rounds than the initial capacity of one slot
    assert calls["aggregate"] > 0
    assert calls["slots"] <= 4 * (d + 2)
    raw = solve_direct(obj, certify=False)
    assert plane.lower_bound <= raw.objective + 1e-9 * abs(raw.objective)
    assert raw.objective == pytest.approx(plane.objective, rel=1e-5)


@pytest.mark.parametrize("master", ["active-set", "cvxpy"])
@pytest.mark.parametrize("name, seed", [("prec@k-avg", 1), ("prec@k-max", 3), ("prec@k-struct", 5),
                                        ("prec@k-svmperf", 4), ("pap@k-ts", 3)])
def test_a_repeated_cut_is_refused_and_the_master_point_queried(name, seed, master,
                                                                monkeypatch):
    """A query on a piece of L the model holds gives that piece's cut again: the store
    refuses it, and the next query is the master's point itself. A repeat there too is
    stored (only the master's inaccuracy is left), and the next master is asked for the
    answer from the cuts' rows where the intercepts are exact. No two stored cuts are
    equal while the store refuses repeats, and the answer is the direct program's."""
    import cvxtop.solvers.cutting_plane as cp_module

    X, y = ranking_data(seed, n=200, d=3)
    obj = RankingObjective(X, y, surrogates.get(name, 0.25 if name.startswith("prec") else 4),
                           10.0)
    events = []
    from cvxtop.solvers.cut_store import CutStore

    add, master_solve = CutStore.add, cp_module.solve_master
    oracle = RankingObjective.loss_and_score_gradient

    def repeats(bundle):
        rows, intercepts = bundle.cuts[bundle.active], bundle.b[bundle.active]
        return sum(np.array_equal(rows[i], rows[j]) and abs(intercepts[i] - intercepts[j])
                   <= 1e-12 * max(1.0, abs(intercepts[i]))
                   for i in range(len(rows)) for j in range(i))

    def spied_add(self, h, g, offset, rounding, refuse_repeat=True):
        before = repeats(self)
        added = add(self, h, g, offset, rounding, refuse_repeat)
        if refuse_repeat:  # the store's equal pairs do not grow
            assert repeats(self) == before
        assert self.repeated == (repeats(self) > before or not added)
        events.append(("add", added, refuse_repeat, self.repeated))
        return added

    def spied_master(store, C, gap=0.0, from_rows=False, exact_at_point=False):
        w_c, bound = master_solve(store, C, gap, from_rows, exact_at_point)
        events.append(("master", obj.Z @ w_c, exact_at_point))
        return w_c, bound

    def spied_oracle(self, s):
        events.append(("query", np.array(s)))
        return oracle(self, s)

    monkeypatch.setattr(CutStore, "add", spied_add)
    monkeypatch.setattr(cp_module, "solve_master", spied_master)
    monkeypatch.setattr(RankingObjective, "loss_and_score_gradient", spied_oracle)
    res = solve_cutting_plane(obj, tol=1e-8, master=master)
    monkeypatch.undo()
    assert res.status == "optimal" and res.gap <= 1e-8
    refused = 0
    for i, event in enumerate(events):
        if event[0] == "add" and not event[1]:
            refused += 1
            master_scores = next(e[1] for e in events[i:] if e[0] == "master")
            # the rounds' queries (each stores its cut; the best point's own scores, read
            # once the gap is within tol, are not one)
            following = [e[1] for e, after in zip(events[i:], events[i + 1:])
                         if e[0] == "query" and after[0] == "add"]
            if following:  # the next round's query is the master's point
                np.testing.assert_allclose(following[0], master_scores, rtol=1e-12,
                                           atol=1e-12)
    assert refused > 0  # these small problems repeat cuts
    # a repeat at the master's point asks the next master for the rows' answer where the
    # intercepts are exact (their copy changes nothing), and only there
    at_master = [next(e[2] for e in events[i:] if e[0] == "master")
                 for i, e in enumerate(events) if e[0] == "add" and not e[2] and e[3]]
    assert at_master  # (each of these problems has one)
    assert all(asked == obj.surrogate.exact_intercepts for asked in at_master)
    raw = solve_direct(obj, certify=False)
    assert raw.objective == pytest.approx(res.objective, rel=1e-5)
    assert res.lower_bound <= raw.objective + 1e-9 * abs(raw.objective)


def test_cutting_plane_certifies_spambase_pap_ts_at_large_C():
    """Aggregating cuts idle for 10 rounds left this problem's gap near 1e-6 after 2000
    rounds (SolverError at C = 1); cuts idle for 100 rounds certify it [seen: 545 rounds]."""
    X, y = load_paper_dataset("spambase", Path(__file__).resolve().parents[1] / "data")
    X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    model = TopRanker("pap@k-ts", k=10, C=1.0).fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6 and model.n_iter_ < 1000


@pytest.mark.parametrize("support", [1, 3, 8])
@pytest.mark.parametrize("shape", [(30, 7), (7, 30)])
@pytest.mark.parametrize("split", [False, True])
def test_cut_store_products_run_over_the_slots_in_use(support, shape, split, monkeypatch):
    """The store keeps a row per cut (h itself, or on wide data its score subgradient g
    with h = Zᵀg); H @ α over the master's support alone (a few slots in use) or over
    every slot up to the last one in use (most of them) is the full product, freed slots
    with stale rows included, and the Gram matrix is HᵀH either way, with the products
    on one thread or split over two (cvxtop.solvers.parallel_products)."""
    from concurrent.futures import ThreadPoolExecutor

    from scipy import sparse

    import cvxtop.solvers.parallel_products as pp
    from cvxtop.solvers.cut_store import CutStore, in_score_space

    rng = np.random.default_rng(support)
    Z = sparse.random(*shape, density=0.5, random_state=support, format="csr")
    monkeypatch.setattr(pp, "PARALLEL_NUMBERS", 1)
    pool = ThreadPoolExecutor(max_workers=2) if split else None
    bundle = CutStore(Z, capacity=4, patience=100, master="active-set",
                        solver="CLARABEL", options=None,
                        threads=pp.ProductThreads(pool, 2))
    assert bundle.scores == in_score_space(*shape) == (shape[0] < shape[1] / 2)
    g = rng.standard_normal((10, shape[0]))
    H = np.asarray((Z.T @ g.T).T)  # one cut h = Zᵀg per row
    for h_c, g_c in zip(H, g):
        bundle.add(h_c, g_c, float(rng.standard_normal()), (0.0, 0.0))
    assert bundle.used == 10 and len(bundle.b) == 16  # the store doubled twice
    np.testing.assert_allclose(bundle.G[:10, :10], H @ H.T, rtol=1e-12, atol=1e-12)
    bundle.active[[2, 5]] = False  # freed slots keep their stale rows
    weights = np.zeros(16)
    chosen = rng.choice(np.flatnonzero(bundle.active), size=support, replace=False)
    weights[chosen] = rng.random(support)
    np.testing.assert_allclose(bundle.combination(weights), weights[:10] @ H,
                               rtol=1e-12, atol=1e-12)
    if pool is not None:
        pool.shutdown()


def test_wide_sparse_data_keep_cuts_in_score_space_with_the_same_certified_optimum(
        monkeypatch):
    """On wide data (d > 2n) the store keeps score subgradients; forcing d-dimensional rows
    gives the same certified optimum."""
    import cvxtop.solvers.cut_store as store_module
    from cvxtop.datasets import make_sparse_ranking_data

    X, y = make_sparse_ranking_data(300, 2000, density=0.02, noise=0.3, random_state=0)
    obj = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 0.1)
    scores = solve_cutting_plane(obj, tol=1e-8)
    monkeypatch.setattr(store_module, "in_score_space", lambda n, d: False)
    features = solve_cutting_plane(obj, tol=1e-8)
    assert scores.status == features.status == "optimal"
    assert scores.objective == pytest.approx(features.objective, rel=2e-8)
    least = min(scores.objective, features.objective)
    assert max(scores.lower_bound, features.lower_bound) <= least + 1e-12 * abs(least)


def test_aggregating_stale_cuts_keeps_the_master_point_and_compacts_the_store():
    """Cuts idle for the patience are replaced by their weighted mix: the master's point
    Σ λ_c h_c and the Gram matrix of the cuts stay right, and the cuts in use move to the
    first slots (the products run up to the last one in use)."""
    from cvxtop.solvers.cut_store import CutStore
    from cvxtop.solvers.parallel_products import ProductThreads

    rng = np.random.default_rng(3)
    Z = rng.standard_normal((40, 6))
    bundle = CutStore(Z, capacity=16, patience=5, master="active-set",
                        solver="CLARABEL", options=None, threads=ProductThreads(None))
    g = rng.standard_normal((12, 40))
    for g_c in g:
        bundle.add(Z.T @ g_c, g_c, float(rng.standard_normal()), (0.0, 0.0))
    bundle.lam[:12] = rng.random(12) * (rng.random(12) < 0.7)
    bundle.lam /= bundle.lam.sum()
    point = bundle.combination(bundle.lam)
    bundle.idle[[0, 3, 4, 9, 10]] = 7  # stale; slots 11 and others stay
    bundle._aggregate_stale(5)
    m = int(bundle.active.sum())
    assert m == 8 and bundle.active[:m].all() and bundle.used == m
    np.testing.assert_allclose(bundle.combination(bundle.lam), point, rtol=1e-12, atol=1e-12)
    rows = bundle.cuts[:m]
    np.testing.assert_allclose(bundle.G[:m, :m], rows @ rows.T, rtol=1e-12, atol=1e-12)


def test_line_search_runs_where_the_segment_is_restricted():
    X, y = ranking_data(3)
    groups = np.arange(len(y)) % 2
    for name in ("prec@k-struct", "prec@k-max", "prec@k-avg"):
        assert RankingObjective(X, y, surrogates.get(name, 0.25), 1.0).restricted_segment
        grouped = RankingObjective(X, y, surrogates.get(name, 0.25), 1.0, groups=groups)
        assert not grouped.restricted_segment  # a grouped segment is the whole list
    for name in ("prec@k-svmperf", "pap@k-avg", "pap@k-max", "pap@k-ts"):
        assert not RankingObjective(X, y, surrogates.get(name, 3), 1.0).restricted_segment


@pytest.mark.parametrize("name, flag, ratio, features, searched", [
    ("prec@k-avg", None, 50, 500, False), ("prec@k-svmperf", None, 50, 500, False),
    ("prec@k-avg", False, 50, 500, False), ("prec@k-svmperf", True, 50, 500, True),
    ("prec@k-avg", True, 50, 500, True),
    # by default a search starts once the store's rows hold ratio·n numbers, whether the
    # segment is evaluated on its candidates or on the whole list
    ("prec@k-svmperf", None, 0.1, 500, True), ("prec@k-svmperf", False, 0.1, 500, False),
    ("prec@k-avg", None, 0.1, 500, True),
    # and on the candidates from the first round once X holds `features` numbers an item
    ("prec@k-avg", None, 50, 4, True), ("prec@k-avg", False, 50, 4, False),
    ("prec@k-svmperf", None, 50, 4, False)])
def test_the_line_search_runs_as_asked(name, flag, ratio, features, searched, monkeypatch):
    import cvxtop.solvers.cutting_plane as cp_module

    monkeypatch.setattr(cp_module, "SEARCH_STORE_RATIO", ratio)
    monkeypatch.setattr(cp_module, "SEARCH_FEATURES", features)  # the data have d = 4
    X, y = ranking_data(3)
    obj = RankingObjective(X, y, surrogates.get(name, 0.25), 10.0)
    calls = []
    segment = RankingObjective.segment
    monkeypatch.setattr(RankingObjective, "segment",
                        lambda self, *a: calls.append(1) or segment(self, *a))
    res = solve_cutting_plane(obj, line_search=flag)
    assert res.status == "optimal" and res.n_iter > 1
    assert bool(calls) == searched


@pytest.mark.parametrize("name, k, groups", [("prec@k-avg", 0.25, False),
                                             ("prec@k-svmperf", 0.25, False),
                                             ("pap@k-ts", 3, False), ("pap@k-avg", 3, True)])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_with_or_without_line_search_the_same_certified_optimum(name, k, groups, C):
    X, y = ranking_data(4, n=160, d=6)
    obj = RankingObjective(X, y, surrogates.get(name, k), C,
                           groups=np.arange(len(y)) % 4 if groups else None)
    results = [solve_cutting_plane(obj, tol=1e-8, line_search=flag, step_fraction=mu)
               for flag, mu in ((True, None), (False, None), (None, 0.5), (False, 1.0))]
    for res in results:
        assert res.status == "optimal" and res.gap <= 1e-8
    # each certified bound lies below every other answer: one optimum
    for a in results:
        for b in results:
            assert a.lower_bound <= b.objective + 1e-12 * abs(b.objective)


@pytest.mark.parametrize("options, error", [
    ({"step_fraction": 0.0}, ValueError), ({"step_fraction": 1.5}, ValueError),
    ({"step_fraction": "0.1"}, TypeError), ({"line_search": "yes"}, TypeError),
    ({"line_search": 1}, TypeError)])
def test_bad_step_options_are_refused_by_name(options, error):
    X, y = ranking_data(5)
    obj = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    name = next(iter(options))
    with pytest.raises(error, match=name):
        minimize(obj, "cutting-plane", options=options)


@pytest.mark.parametrize("fmt", ["csr", "csc", "dense"])
def test_products_over_threads_reach_the_same_optimum(monkeypatch, fmt):
    """With the thresholds of cvxtop.solvers.parallel_products lowered, the cut store's and
    a sparse X's products run over the caller's two threads; the certified optimum is the
    same as on one thread, and BLAS stays at one thread throughout."""
    import cvxtop.solvers.parallel_products as pp
    import scipy.sparse as sparse
    from threadpoolctl import threadpool_info, threadpool_limits

    X, y = ranking_data(6, n=150, d=8)
    X = X if fmt == "dense" else sparse.csr_matrix(X).asformat(fmt)
    obj = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 0.25), 10.0)
    seen = []
    split = pp.ProductThreads._parts

    def spy(self, rows):
        parts = split(self, rows)
        seen.append(parts is not None)
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} <= {1}
        return parts

    monkeypatch.setattr(pp.ProductThreads, "_parts", spy)
    with threadpool_limits(1, user_api="blas"):
        single = solve_cutting_plane(obj, tol=1e-8)
    assert not any(seen)  # one thread: nothing split
    monkeypatch.setattr(pp, "PARALLEL_NUMBERS", 16)
    monkeypatch.setattr(pp, "PARALLEL_NONZEROS", 16)
    operators = []
    made = pp.ProductThreads.operator
    monkeypatch.setattr(pp.ProductThreads, "operator",
                        lambda self, Z: operators.append(made(self, Z)) or operators[-1])
    with threadpool_limits(2, user_api="blas"):
        threaded = solve_cutting_plane(obj, tol=1e-8)
    if len(os.sched_getaffinity(0)) > 1:
        assert any(seen)
        assert isinstance(operators[0], pp.BlockedSparse) == (fmt != "dense")
    for a, b in ((single, threaded), (threaded, single)):
        assert a.status == "optimal" and a.lower_bound <= b.objective + 1e-12 * abs(b.objective)

def test_solver_functions_default_to_their_methods_options():
    """One place for defaults: every keyword default of a solver function that is also an
    option of its method in OPTIONS has the same value there."""
    import inspect

    from cvxtop.solvers import dca, direct, gd, cutting_plane
    from cvxtop.solvers.minimize import OPTIONS

    pairs = [(cutting_plane.solve_cutting_plane, "cutting-plane"),
             (direct.solve_direct, "direct"), (dca.solve_dca, "dca"), (gd.solve_gd, "gd")]
    checked = 0
    for function, method in pairs:
        for name, parameter in inspect.signature(function).parameters.items():
            if name in OPTIONS[method] and parameter.default is not inspect.Parameter.empty:
                assert parameter.default == OPTIONS[method][name], (method, name)
                checked += 1
    assert checked >= 8


def test_at_a_huge_scale_the_bound_stays_below_every_feasible_objective():
    """X·1e6 with C = 1e8 (C = 1e20 on X, once scaled): the cuts' intercepts lose digits to
    the products they are differences of. The bound counts the cuts lowered by their
    rounding, so it stays below the zero model's objective (and the best point's), never
    a wrong bound (before: 'lower bound 8.5e26 above objective 1.8e22'), and a fit that
    cannot certify says the problem is too badly conditioned."""
    X, y = make_ranking_data(200, 5, random_state=0)
    with pytest.warns(UserWarning, match="zero model"):
        model = TopRanker(k=0.5, C=1e8, max_iter=300).fit(X * 1e6, y)
    zero = RankingObjective(X * 1e6, y, surrogates.get("prec@k-avg", 0.5), 1e8)
    assert model.lower_bound_ <= zero.value(np.zeros(5))
    assert model.lower_bound_ <= model.objective_
    # the zero model is the optimum at every C here (0 is in the loss's subdifferential
    # at 0 through Zᵀ), and the masters' own points, from the program over the cuts' rows,
    # now certify it at this scale too, where it ended in SolverError after 300 rounds
    assert model.status_ == "optimal" and model.gap_ <= 1e-6 and not model.coef_.any()
    assert TopRanker(k=0.5, C=1.0).fit(X, y).zero_model_
    # pAp@k-TS's intercepts L(s) − g·s carry margins of the scores' scale: its fit says the
    # problem is too badly conditioned to certify, and its bound stays below the zero model's
    with pytest.raises(SolverError, match="too badly conditioned to certify"):
        TopRanker("pap@k-ts", k=3, C=1e8, max_iter=300).fit(X * 1e6, y)
    with pytest.warns(UserWarning, match="too badly conditioned"):
        ts = TopRanker("pap@k-ts", k=3, C=1e8, max_iter=300, accept_inaccurate=True).fit(
            X * 1e6, y)
    zero = RankingObjective(X * 1e6, y, surrogates.get("pap@k-ts", 3), 1e8)
    assert ts.lower_bound_ <= min(zero.value(np.zeros(5)), ts.objective_)


@pytest.mark.parametrize("surrogate, k", [("prec@k-avg", 3), ("pap@k-ts", 3)])
def test_cut_rounding_bounds_the_error_of_the_intercept_and_of_h(surrogate, k):
    """The computed intercept L(s) − g·s and h = Zᵀg against exact rational arithmetic,
    at scores from 1 to 1e20, on rows whose norms span six orders of magnitude, with the
    bound on ``h`` that counts the items of ``g`` alone (h computed in one product, or as
    a dual solve's difference of two) and the one over every item."""
    from fractions import Fraction

    from cvxtop.solvers.cut_store import cut_rounding

    rng = np.random.default_rng(0)
    bound = surrogates.get(surrogate, k)
    for scale in (1.0, 1e6, 1e12, 1e20):
        Z = rng.standard_normal((40, 4)) * 10.0 ** rng.uniform(-3, 3, size=(40, 1))
        w = rng.standard_normal(4) * scale
        s = Z @ w
        y = np.r_[np.ones(10, int), np.zeros(30, int)]
        loss, g = bound.bind(y).value_and_subgradient(s)
        assert 0 < np.count_nonzero(g) < len(g)
        norms = RankingObjective(Z, y, bound, 1.0).row_norms()
        intercept_margin, h_error = cut_rounding(loss, g, s, norms)
        assert h_error <= cut_rounding(loss, g, s, norms, every_item=True)[1]
        exact = Fraction(loss) - sum(Fraction(gi) * Fraction(si) for gi, si in zip(g, s))
        assert abs(Fraction(loss - float(g @ s)) - exact) <= Fraction(intercept_margin)
        h_exact = [sum(Fraction(Z[i, j]) * Fraction(g[i]) for i in range(40)) for j in range(4)]
        positive, negative = np.maximum(g, 0.0), np.maximum(-g, 0.0)
        for h in (Z.T @ g, Z.T @ positive - Z.T @ negative):
            error = np.linalg.norm([float(Fraction(v) - e) for v, e in zip(h, h_exact)])
            assert error <= h_error


@pytest.mark.parametrize("name, surrogate, k, C", [
    ("spambase", "prec@k-avg", 0.25, 100.0),  # the master's tolerance
    ("spambase", "pap@k-avg", 10, 2154.43),  # frozen bounds, then the best point's ray
    ("magic", "prec@k-svmperf", 0.25, 100.0),
    ("magic", "pap@k-ts", 10, 1e4),  # the cuts' rounding bound, by row and by g's items
])
def test_the_shipped_sets_as_shipped_are_certified_at_a_large_c(name, surrogate, k, C):
    """Features as shipped, unscaled (spambase's standard deviations span 0.08 to 606):
    each of these fits ended in SolverError after 2,000 rounds before, with relative gaps
    of 1e-6 to 6e-6 (benchmarks/c_path.py --data raw); pAp@k-TS on MAGIC with a gap of
    4.3e-6 that the cuts' rounding allowances alone accounted for."""
    X, y = load_paper_dataset(name, Path(__file__).resolve().parents[1] / "data")
    model = TopRanker(surrogate, k=k, C=C, engine="cutting-plane").fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6


def _spied_master_gaps(monkeypatch) -> list:
    """The ``gap`` each master of the cutting plane is asked for from now on (``inf``: no
    accuracy of its own asked), in order."""
    import cvxtop.solvers.cutting_plane as cutting_plane

    asked = []
    real = cutting_plane.solve_master

    def spied(store, C, gap=np.inf, from_rows=False, exact_at_point=False):
        asked.append(gap)
        return real(store, C, gap, from_rows, exact_at_point)

    monkeypatch.setattr(cutting_plane, "solve_master", spied)
    return asked


def test_heavy_tailed_sparse_features_at_a_large_c_are_certified():
    """55 items of sparse lognormal features (up to 246; 20% nonzero), pAp@k-TS at
    C = 325: the optimum's loss is zero, and the cutting plane's cuts ``L >= 0`` of zero
    norm, weighed by the master's ridge of the longest cut's size, held its bound 1e-5
    below the optimum; both engines ended in SolverError after 2,000 rounds (27 s)."""
    rng = np.random.default_rng(70)
    n, d = int(rng.integers(10, 80)), int(rng.integers(1, 80))
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.2)
    X[X != 0] = np.exp(2 * X[X != 0])
    y = (rng.random(n) < 0.4).astype(int)
    y[:2], y[-3:] = 1, 0
    C = float(10.0 ** rng.uniform(-3, 4))
    assert (n, d) == (55, 31) and C == pytest.approx(325.41, rel=1e-4)
    model = TopRanker("pap@k-ts", k=1, C=C).fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert model.objective_ == pytest.approx(1.2322970e-4, rel=1e-6)


@pytest.mark.parametrize("exact_intercepts", [False, True])
def test_lognormal_features_at_a_large_c_are_certified_with_the_ridge_pull_taken_out(
        exact_intercepts, monkeypatch):
    """71 rows of 14 lognormal features (up to 3e5), prec@k-svmperf at C = 1e4: the
    master's ridge (1e-12 of the longest cut's squared norm) held its answer off its own
    optimum, and the rounds ended after 2,000 at a relative gap of 1.2e-6 (and needed 500
    to 4,000 rounds over 16 orders of the rows, 3 of which failed). Once the bounds stop
    moving near ``tol`` the master is asked for its own accuracy (proximal steps), and the
    fit certifies (in 174 to 601 rounds over those orders), at the objective of an
    independent solve of the whole program. With the intercepts read off the labelings'
    counts, as shipped, the fit certifies before it needs that (154 rounds against 263)."""
    from cvxtop.solvers import direct_program

    if not exact_intercepts:
        svmperf_intercepts_off(monkeypatch)

    rng = np.random.default_rng(2)
    n, d = int(rng.integers(20, 81)), int(rng.integers(5, 41))
    X = np.exp(2.0 * rng.normal(size=(n, d)))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2], y[-3:] = 1, 0
    assert (n, d) == (71, 14)
    asked = _spied_master_gaps(monkeypatch)
    model = TopRanker("prec@k-svmperf", k=1, C=1e4, engine="cutting-plane").fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert np.isinf(asked[0]) and (exact_intercepts or np.isfinite(asked[-1]))
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 1), 1e4)
    problem, v, _ = direct_program.program(objective)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    value = objective.value(v.value)
    assert model.objective_ == pytest.approx(value, rel=2e-6)
    assert model.lower_bound_ <= value + 1e-12 * abs(value)


def test_a_point_short_of_zero_loss_moves_along_its_ray():
    """On separable data at a large C the optimum's loss is zero, and a point whose
    margins fall short by a relative 1e-5 pays C times a positive loss; a step along its
    own ray removes it (no product with Z: the scores scale with the point)."""
    from cvxtop.solvers.cutting_plane import _searched

    X, y = make_ranking_data(300, 10, noise=0.0, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 5), 1e4)
    optimum = solve_cutting_plane(objective, tol=1e-6)
    # separable: the optimum's loss is zero, and the certified point's, to rounding, a hair
    # further along its ray
    ray = next(t * optimum.coef for t in (1.0, 1.0 + 1e-9, 1.0 + 1e-7)
               if objective.loss(X @ (t * optimum.coef)) == 0.0)
    short = (1.0 - 1e-5) * ray
    scores = X @ short
    oracle = objective.loss_and_score_gradient(scores)
    assert oracle[0] > 0.0
    value = objective.value_at_scores(short, scores)
    moved = _searched(objective, (value, short, scores, oracle, True), short, scores)
    assert moved[0] < value and moved[0] <= optimum.objective * (1 + 1e-6)
    np.testing.assert_allclose(moved[2], X @ moved[1], rtol=1e-12, atol=1e-12)
    # the value at the returned point, up to the scores' rounding, which C = 1e4 multiplies
    # (1.1e-12 with OpenBLAS's Nehalem kernels); the step itself gained 6%
    assert moved[0] == pytest.approx(objective.value_at_scores(moved[1], X @ moved[1]),
                                     rel=1e-9)


def test_once_a_query_has_zero_loss_every_best_point_is_moved_along_its_ray():
    """pAp@k-avg on ``make_ranking_data(1,000, 30)`` at C = 1e5: a query of zero loss says
    that the optimum lies on the edge of the region of zero loss, where the points the
    rounds reach pay C times the hair by which they fall short. Each new best point is
    then moved to the minimum on its own ray; before, only a stretch of FROZEN_ROUNDS
    rounds that moved neither bound did that (frozen at a relative gap of 1.4e-6 from round
    142 to 242)."""
    from cvxtop.solvers.cutting_plane import FROZEN_ROUNDS

    X, y = make_ranking_data(1000, 30, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("pap@k-avg", 10), 1e5)
    bounds: list[tuple[float, float]] = []
    result = solve_cutting_plane(objective, tol=1e-6,
                                 callback=lambda it, upper, lower: bounds.append((upper, lower)))
    assert result.status == "optimal" and result.gap <= 1e-6
    changed = [0] + [i for i in range(1, len(bounds)) if bounds[i] != bounds[i - 1]]
    assert max(np.diff(changed + [len(bounds)])) < FROZEN_ROUNDS


def test_a_step_along_a_direction_of_rounding_is_valued_at_its_own_scores():
    """The master's point equal to the best one up to rounding leaves a direction ``d`` of
    norm 1e-16 whose score change ``ds`` is rounding too, not ``Z d``: the line search then
    takes a step of about 1e11 along it, where the scores carried along (``s + τ·ds``) are
    off by 1e-5 and, at a large C, the objective by far more than the gap. A fit with one
    group left by skipped ones ended "optimal" with a recomputed relative gap of 6%
    (prec@k-svmperf, C = 7.5e3). Such a step is valued at its own scores ``Z(w + τd)``."""
    from cvxtop.solvers.cutting_plane import _searched

    X, y = ranking_data(11, n=40, d=5)
    objective = RankingObjective(X, y, surrogates.get("prec@k-svmperf", 2), 7.5e3)
    best = solve_cutting_plane(objective, tol=1e-6).coef
    scores = X @ best
    oracle = objective.loss_and_score_gradient(scores)
    value = objective.value_at_scores(best, scores)
    d = 1e-16 * np.linspace(-1.0, 1.0, 5)  # rounding: Z d is about 1e-16 ...
    ds = -1e-15 * oracle[1]  # ... and this ds, against the subgradient, is not Z d
    moved = _searched(objective, (value, best, scores, oracle, True), d, ds)
    exact = objective.value_at_scores(moved[1], X @ moved[1])
    assert moved[0] == pytest.approx(exact, rel=1e-12)
    assert moved[0] >= value * (1 - 1e-12)  # no gain from rounding


def test_the_rounding_allowance_counts_the_rows_errors_times_the_combinations_norm():
    """The certificate's allowance for rounding at ``α`` (what a stalled solve's message
    quotes) is the computed ``D(α)`` less the rigorous bound: the intercepts' margins, plus
    about ``‖Hα‖`` times the rows' errors, not the errors alone."""
    from cvxtop.solvers.cut_store import CutStore
    from cvxtop.solvers.master import rounding_allowance
    from cvxtop.solvers.parallel_products import ProductThreads

    rng = np.random.default_rng(5)
    Z = rng.standard_normal((30, 4)) * 100.0
    bundle = CutStore(Z, capacity=8, patience=5, master="active-set", solver="CLARABEL",
                      options=None, threads=ProductThreads(None))
    for g_c in rng.standard_normal((5, 30)):
        bundle.add(Z.T @ g_c, g_c, float(rng.standard_normal()), (1e-9, 1e-6))
    alpha = np.zeros(8)
    alpha[:5] = rng.random(5) * 10.0
    Ha = bundle.combination(alpha)
    norm, errors = float(np.linalg.norm(Ha)), 1e-6 * alpha.sum()
    allowance = rounding_allowance(bundle, alpha)
    assert allowance >= 1e-9 * alpha.sum() + norm * errors + 0.5 * errors ** 2
    assert allowance <= 1.01 * (1e-9 * alpha.sum() + norm * errors + 0.5 * errors ** 2) + 1e-9
    assert norm * errors > 100.0 * errors  # the old message's share missed this factor


def test_a_long_cut_the_master_does_not_weigh_does_not_set_its_ridge():
    """Two short cuts (squared norms 4e-9 and 1e-9) bear the master; a third, of squared
    norm 1e4, lies far below the model. The active-set master's ridge follows the longest
    cut it may use, here 1e-8, which outweighs the short cuts' curvature: without its
    proximal steps (the rounds ask for them only once their bounds stall) the answer
    weighed the two cuts 0.44 and 0.56, and its bound lay 25% below the optimum ``−½C²μ``
    (weights ``μ/q_i``, ``μ = 1/Σ 1/q_i``). Solved again without the long cut, the master
    is exact."""
    from cvxtop.solvers.cut_store import CutStore
    from cvxtop.solvers.master import solve_master
    from cvxtop.solvers.parallel_products import ProductThreads

    store = CutStore(np.eye(3), capacity=4, patience=100, master="active-set",
                     solver="CLARABEL", options=None, threads=ProductThreads(None, 1))
    q = np.array([4e-9, 1e-9])
    for h, offset in ((np.array([np.sqrt(4e-9), 0.0, 0.0]), 0.0),
                      (np.array([0.0, np.sqrt(1e-9), 0.0]), 0.0),
                      (np.array([0.0, 0.0, 100.0]), -1.0)):
        store.add(h, h, offset, (0.0, 0.0))
    np.testing.assert_allclose(np.diag(store.G)[:3], [4e-9, 1e-9, 1e4], rtol=1e-12)
    C = 1.0
    mu = 1.0 / np.sum(1.0 / q)
    _, bound = solve_master(store, C, np.inf)  # (no proximal steps)
    np.testing.assert_allclose(store.lam[:3], [mu / q[0], mu / q[1], 0.0], rtol=1e-6,
                               atol=1e-12)
    assert bound == pytest.approx(-0.5 * C * C * mu, rel=1e-6)
    assert bound <= -0.5 * C * C * mu  # (a lower bound on the master's optimum)


@pytest.mark.parametrize("wide_rounds", [10, 10**9])
def test_a_master_that_its_ridge_decides_is_solved_exactly_at_any_gap(wide_rounds,
                                                                      monkeypatch):
    """pAp@k-TS at k = 1 sums a hinge over every relevant item into each cut, so its cuts
    are far longer than their combination at the optimum and the longest cut's ridge
    decides the master's answer at a wide gap (400 rows of MAGIC as shipped, C = 1e4).
    With the rule of the narrow gap off (``EXACT_MASTER_GAP = 0``), exact masters are
    still asked for once the bounds stand for ``EXACT_MASTER_WIDE_ROUNDS`` with such an
    answer, and never without that rule."""
    import cvxtop.solvers.cutting_plane as cutting_plane

    X, y = load_paper_dataset("magic", Path(__file__).resolve().parents[1] / "data")
    take = np.random.default_rng(0).choice(len(y), 400, replace=False)
    asked = _spied_master_gaps(monkeypatch)
    monkeypatch.setattr(cutting_plane, "EXACT_MASTER_GAP", 0.0)
    monkeypatch.setattr(cutting_plane, "EXACT_MASTER_WIDE_ROUNDS", wide_rounds)
    TopRanker("pap@k-ts", k=1, C=1e4, engine="cutting-plane", max_iter=300,
              accept_inaccurate=True).fit(X[take], y[take])
    assert np.isfinite(asked).any() == (wide_rounds == 10)


@pytest.mark.parametrize("surrogate", ["prec@k-avg", "prec@k-svmperf", "pap@k-avg", "pap@k-ts"])
def test_masters_solved_from_the_rows_certify_the_same_optimum(surrogate, monkeypatch):
    """The master solved from the cuts' rows (the ridge of each row's own size, then
    Newton steps whose gradient comes from the rows) is asked for only once a solve's
    bounds stall (``ROWS_MASTER_ROUNDS``); asked for at every round, fits still end with a
    rigorous certificate of the same optimum (its bound is evaluated at a feasible point,
    as the usual master's)."""
    import cvxtop.solvers.cutting_plane as cutting_plane
    import cvxtop.solvers.master as master

    X, y = load_paper_dataset("ionosphere", Path(__file__).resolve().parents[1] / "data")
    k = 10 if surrogate.startswith("pap") else 0.25
    expected = TopRanker(surrogate, k=k, C=10.0, engine="cutting-plane").fit(X, y)
    solve = master.solve_master
    monkeypatch.setattr(cutting_plane, "solve_master",
                        lambda store, C, gap=0.0, from_rows=False, exact_at_point=False:
                        solve(store, C, gap, True, exact_at_point))
    model = TopRanker(surrogate, k=k, C=10.0, engine="cutting-plane").fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert model.lower_bound_ <= model.objective_
    assert model.objective_ == pytest.approx(expected.objective_, rel=2e-6)

"""Badly scaled features: scaling X by a and C by 1/a² poses the same problem (the solution
scales by 1/a), and the exact engines give the same certified answer for a = 1e±6 on every
convex surrogate; a solver that stops says what to change; cvxtop.SolverError is also
cvxpy's SolverError."""

from __future__ import annotations

import warnings
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset
from cvxtop.solvers.scaling import SCALE_BAND, feature_scale

CONVEX = [name for name in surrogates.available() if surrogates.get(name, 1).convex]


def _data(seed=0, n=120, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0.8).astype(int)
    return X, y


def _k(name):
    return 0.5 if name.startswith("prec") else 5


def _fit(name, X, y, C, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zero-model notes
        return TopRanker(name, k=_k(name), C=C, **kw).fit(X, y)


def _same_answer(scaled, a, base):
    """a·w_a equals w (relative 1e-6; the zero model's 1e-10 coefficients compared with
    the scale 1e-3), and the objectives, once scaled back, agree to 1e-6."""
    size = max(np.linalg.norm(base.coef_), 1e-3)
    assert np.linalg.norm(a * scaled.coef_ - base.coef_) <= 1e-6 * size
    assert scaled.objective_ * a * a == pytest.approx(base.objective_, rel=1e-6)
    assert scaled.gap_ <= 1e-6 and scaled.status_ == "optimal"


@pytest.mark.parametrize("engine", ["auto", "cutting-plane"])
@pytest.mark.parametrize("a", [1e-6, 1e6])
@pytest.mark.parametrize("name", CONVEX)
def test_scaled_features_give_the_same_certified_answer(name, a, engine):
    X, y = _data()
    base = _fit(name, X, y, 1.0, engine=engine)
    _same_answer(_fit(name, a * X, y, 1.0 / a ** 2, engine=engine), a, base)


@pytest.mark.parametrize("name", ["prec@k-avg", "pap@k-avg"])
def test_the_reported_case_c_1e12_on_1e_minus_6_features(name):
    """The failure this fixes: Clarabel called the feasible problem infeasible."""
    X, y = _data(1)
    base = _fit(name, X, y, 1.0)
    _same_answer(_fit(name, 1e-6 * X, y, 1e12), 1e-6, base)


def test_sparse_and_grouped_problems_are_rescaled_too():
    X, y = _data(2, n=160)
    groups = np.repeat(np.arange(4), 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        base = TopRanker("prec@k-avg", k=0.5, C=2.0).fit(sp.csr_matrix(X), y, groups=groups)
        scaled = TopRanker("prec@k-avg", k=0.5, C=2.0e-12).fit(sp.csr_matrix(1e6 * X), y,
                                                               groups=groups)
    _same_answer(scaled, 1e6, base)


def test_the_ramp_surrogates_local_method_is_rescaled():
    X, y = _data(3)
    base = _fit("prec@k-ramp", X, y, 1.0)
    scaled = _fit("prec@k-ramp", 1e-6 * X, y, 1e12)
    np.testing.assert_allclose(1e-6 * scaled.coef_, base.coef_, rtol=1e-5,
                               atol=1e-6 * max(np.linalg.norm(base.coef_), 1e-3))


def test_well_scaled_features_are_solved_as_given():
    """Inside the band nothing changes: the same bits as the problem posed."""
    assert feature_scale(np.full((2, 2), 2.0 ** SCALE_BAND)) == 1.0
    assert feature_scale(np.full((2, 2), 2.0 ** -SCALE_BAND)) == 1.0
    assert feature_scale(np.zeros((2, 2))) == 1.0
    assert feature_scale(np.full((2, 2), 3e6)) == 2.0 ** 22
    assert feature_scale(sp.csr_matrix(np.eye(3) * 1e-7)) == 2.0 ** -23


def test_solver_error_is_also_cvxpys():
    error = SolverError("stopped", status="max_iter")
    assert isinstance(error, cp.error.SolverError) and isinstance(error, RuntimeError)
    X, y = _data(4)
    with pytest.raises(cp.error.SolverError, match="raise max_iter or tol, or pass "
                       "accept_inaccurate=True"):
        TopRanker(k=0.5, engine="cutting-plane", max_iter=2).fit(X, y)


def test_a_gap_that_stopped_falling_is_not_sent_to_more_rounds(monkeypatch):
    """A solve whose gap fell by less than STALLED_FALL over the second half of its rounds
    says that more rounds are unlikely to certify it, and advises raising tol, not
    max_iter; one whose gap is still falling advises both. The stall is made exactly: the
    master's bound is held 1e-3 below its own (a valid, weaker bound)."""
    import sys

    rounds = sys.modules["cvxtop.solvers.cutting_plane"]
    real = rounds.solve_master

    def weaker(bundle, C, gap=0.0, from_rows=False, exact_at_point=False):
        w, bound = real(bundle, C, gap, from_rows, exact_at_point)
        return w, bound - 1e-3 * abs(bound)

    X, y = _data(6)
    with pytest.raises(SolverError, match="raise max_iter or tol") as falling:
        TopRanker(k=0.5, engine="cutting-plane", max_iter=3).fit(X, y)
    assert "unlikely" not in str(falling.value)
    monkeypatch.setattr(rounds, "solve_master", weaker)
    with pytest.raises(SolverError, match=r"its gap fell only from \S+ over the last 30 "
                       r"rounds, so more rounds are unlikely to certify it: raise tol, ") as held:
        TopRanker(k=0.5, engine="cutting-plane", max_iter=60).fit(X, y)
    assert held.value.status == "max_iter" and "max_iter or tol" not in str(held.value)


def test_accept_inaccurate_warns_with_the_status_and_the_certified_gap():
    X, y = _data(5)
    with pytest.warns(UserWarning, match=r"status max_iter and certified relative gap \d"):
        model = TopRanker(k=0.5, engine="cutting-plane", max_iter=2,
                          accept_inaccurate=True).fit(X, y)
    assert model.status_ == "max_iter" and model.gap_ > 1e-6
    assert model.lower_bound_ <= model.objective_


def test_an_iteration_limit_of_the_solver_is_accepted_with_a_warning():
    from cvxtop import _cvxpy

    x = cp.Variable(3)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - 1) + cp.norm1(x)))
    with pytest.raises(SolverError, match="accept_inaccurate=True returns its point") as info:
        _cvxpy.solve(problem, "CLARABEL", {"max_iter": 1}, what="a test problem")
    assert info.value.status == "user_limit"
    with pytest.warns(UserWarning, match="status user_limit on a test problem"):
        status = _cvxpy.solve(problem, "CLARABEL", {"max_iter": 1}, what="a test problem",
                              accept_inaccurate=True)
    assert status == "user_limit" and x.value is not None


@pytest.mark.parametrize("solver", ["fast", "cvxpy"])
@pytest.mark.parametrize("a", [1e-6, 1e6])
def test_aatp_on_scaled_features_chooses_the_same_candidate(a, solver):
    """AATP's QPs are scale-equivalent too (Boyd et al. 2012 eq. (2): the hinge sees w·x);
    before the rescaling, a = 1e6 chose another candidate without a word."""
    from cvxtop import AATP

    X, y = _data(6, n=60, d=4)
    base = AATP(tau=0.1, C=1.0, solver=solver).fit(X, y)
    scaled = AATP(tau=0.1, C=1.0 / a ** 2, solver=solver).fit(a * X, y)
    assert scaled.candidate_ == base.candidate_
    np.testing.assert_allclose(a * scaled.coef_, base.coef_, rtol=1e-6)
    assert scaled.objective_ * a * a == pytest.approx(base.objective_, rel=1e-6)
    np.testing.assert_allclose(scaled.decision_function(a * X), base.decision_function(X),
                               rtol=1e-6, atol=1e-9)
    K = X @ X.T
    pre = AATP(tau=0.1, C=1.0 / a ** 2, kernel="precomputed", solver=solver).fit(a * a * K, y)
    assert pre.candidate_ == base.candidate_
    assert pre.duality_gap_ * a * a <= 1e-6 * max(1.0, base.objective_)


@pytest.mark.parametrize("name", ["pap@k-avg", "prec@k-avg", "prec@k-svmperf"])
def test_inside_the_scale_band_the_rounds_do_not_depend_on_the_scale(name):
    """Features scaled by 1e-3 (inside the band solved as given) with C·1e6 pose the same
    problem: the master QP's ridge and stopping test are relative to its data, not to 1,
    so the rounds are the same and certify the same answer (before, pap@k-avg on spambase
    at a = 1e-4 stopped after 2,000 rounds)."""
    from cvxtop.datasets import make_ranking_data

    X, y = make_ranking_data(800, 30, noise=0.5, random_state=3)
    a = 1e-3
    assert 2.0 ** -SCALE_BAND <= np.abs(a * X).max() <= 2.0 ** SCALE_BAND
    base = _fit(name, X, y, 1.0, engine="cutting-plane")
    scaled = _fit(name, a * X, y, 1.0 / a ** 2, engine="cutting-plane")
    _same_answer(scaled, a, base)
    assert scaled.n_iter_ == base.n_iter_


@pytest.mark.parametrize("sparse", [False, True])
def test_a_stopped_solve_names_columns_of_very_different_scales(sparse):
    """Columns whose standard deviations differ 5,000-fold (spambase's as shipped: 7,950)
    make a large C badly conditioned; a solve that stops at its round limit says so, and
    one on columns of one scale does not."""
    X, y = _data(n=200, d=6)
    spread = X * np.array([5000.0, 1, 1, 1, 1, 1])
    for features, named in ((spread, True), (X, False)):
        features = sp.csr_matrix(features) if sparse else features
        with pytest.raises(SolverError, match="max_iter|rounds") as raised:
            _fit("prec@k-avg", features, y, 1e4, engine="cutting-plane", max_iter=3)
        assert ("differ in scale by a factor of 5,0" in str(raised.value)) is named


@pytest.mark.parametrize("sparse", [False, True])
def test_a_stopped_solve_names_a_common_offset_of_the_rows(sparse):
    """Rows offset by 1e5 (raw years or timestamps as features) make prec@k-svmperf's rounds
    grow with the offset (more than 2,000 at 1e6 on 60 items, where the centered items take
    28); a solve that stops at its round limit names the offset and its size, and one on
    centered rows, or rows offset by a few times their spread, does not."""
    X, y = _data(n=60, d=4)
    X = X - X.mean(axis=0)
    for features, named in ((X + 1e5, True), (X + 3.0, False), (X, False)):
        features = sp.csr_matrix(features) if sparse else features
        with pytest.raises(SolverError, match="max_iter") as raised:
            _fit("prec@k-svmperf", features, y, 1.0, engine="cutting-plane", max_iter=3)
        assert ("share an offset" in str(raised.value)) is named
        if named:
            offset = float(str(raised.value).split("share an offset ")[1].split(" times")[0]
                           .replace(",", ""))
            assert 5e4 <= offset <= 2e5  # ‖mean‖ = 1e5·√4 over a spread of about √4


@pytest.mark.parametrize("name", ["pap@k-avg", "prec@k-avg", "pap@k-ts"])
def test_one_row_far_longer_than_the_others_certifies_in_few_rounds(name):
    """One item's row 1e4 times as long as the others' makes cuts whose squared norms span
    about 1e8: the longest cut's ridge outweighed the short ones, and pAp@k-avg at C = 1,000
    took 752 rounds (58 s; prec@k-avg and pAp@k-TS at C = 1e4 hundreds of rounds), half
    their masters ending at the active set's iteration limit. With the row-sized ridge
    they certify within 150 rounds, at the optimum of eq. (2)'s own cvxpy program."""
    X, y = _data(seed=11, n=80, d=5)
    X[3] *= 1e4
    C = 1000.0
    fitted = _fit(name, X, y, C, engine="cutting-plane", max_iter=150)
    assert fitted.status_ == "optimal" and fitted.gap_ <= 1e-6
    w = cp.Variable(X.shape[1])
    loss, constraints = surrogates.get(name, k=_k(name)).bind(y).expression(X @ w)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * loss), constraints)
    problem.solve(solver=cp.CLARABEL)
    assert fitted.objective_ <= problem.value * (1 + 1e-6)
    assert fitted.lower_bound_ <= problem.value * (1 + 1e-6)
    assert fitted.objective_ == pytest.approx(problem.value, rel=1e-5)


def test_a_score_that_cancels_in_its_cut_leaves_the_bound_valid():
    """prec@k-struct at k = 1 adds its top item's score and subtracts every relevant
    item's: a relevant top item has weight 0 in the subgradient but its score, about 1e8
    on this list with one row 1e4 times the others', was read twice. The intercept
    ``L(s) − g·s`` came out 8.3e-8 where the piece's is 0, the lower bound stood above a
    feasible objective and the fit raised ``certificate_failed``. Read off the subgradient
    (the irrelevant items' weights), the intercept is exact and the fit certifies, at the
    direct engine's optimum."""
    rng = np.random.default_rng(0)  # (benchmarks/hostile_exact.py's "one long row", draw 0)
    n, d = int(rng.integers(20, 81)), int(rng.integers(5, 41))
    X = rng.normal(size=(n, d))
    X[n // 2] *= 1e4
    y = (rng.random(n) < 0.4).astype(int)
    y[:2], y[-3:] = 1, 0
    fits = {engine: TopRanker("prec@k-struct", k=1, C=1.0, engine=engine).fit(X, y)
            for engine in ("cutting-plane", "direct")}
    for fitted in fits.values():
        assert fitted.status_ == "optimal" and fitted.gap_ <= 1e-6
        assert fitted.lower_bound_ <= fitted.objective_
    assert fits["cutting-plane"].objective_ == pytest.approx(fits["direct"].objective_,
                                                             rel=2e-6)
    assert fits["cutting-plane"].lower_bound_ <= fits["direct"].objective_


def test_the_common_offset_of_dense_and_sparse_rows_alike():
    """The ratio is the mean row's norm over the rows' root-mean-square distance from it,
    the same for a sparse Z as for a dense one, and 0 (nothing to name) for equal rows."""
    from cvxtop.solvers.objective import RankingObjective

    X, y = _data(n=50, d=3)
    offset = X + np.array([300.0, -400.0, 0.0])
    mean = offset.mean(axis=0)
    expected = np.linalg.norm(mean) / np.sqrt(np.mean(np.sum((offset - mean) ** 2, axis=1)))
    surrogate = surrogates.get("prec@k-svmperf", k=2)
    for Z in (offset, sp.csr_matrix(offset)):
        objective = RankingObjective(Z, y, surrogate, 1.0)
        assert objective.common_offset() == pytest.approx(expected, rel=1e-9)
    equal = np.tile([[2.0, -1.0, 5.0]], (50, 1))
    assert RankingObjective(equal, y, surrogate, 1.0).common_offset() == 0.0


@pytest.mark.parametrize("accept_inaccurate", [False, True])
def test_a_hand_overs_own_solves_do_not_warn_the_caller(accept_inaccurate):
    """spambase's features as shipped, prec@k-max at C = 2,154: its first rounds stall at
    the zero model and hand over to C = 215, whose solves stop at max_iter here too. Their
    warnings named their own gaps, before the fit's own error or warning: the caller now
    hears of the fit alone, once, with the fit's gap."""
    X, y = load_paper_dataset("spambase", Path(__file__).resolve().parents[1] / "data")
    ranker = TopRanker("prec@k-max", k=0.25, C=2154.0, max_iter=150,
                       accept_inaccurate=accept_inaccurate)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if accept_inaccurate:
            ranker.fit(X, y)
        else:
            with pytest.raises(SolverError, match="stopped after 150 rounds"):
                ranker.fit(X, y)
    stopped = [str(w.message) for w in caught if "cutting plane stopped" in str(w.message)]
    if accept_inaccurate:
        assert ranker.status_ == "max_iter" and len(stopped) == 1
        assert f"relative gap {ranker.gap_:.3g}" in stopped[0]
    else:
        assert stopped == []

"""The scikit-learn estimator cvxtop.AATP: kernels, pairs, solvers, inputs, integration."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import KFold, cross_val_score
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_estimator

from cvxtop.reference import aatp as brute
from cvxtop import AATP
from cvxtop.aatp import aatp_loss, estimator as estimator_module, expected_failed_checks
from cvxtop.aatp.demo import aatp_demo_fit
from cvxtop.datasets import load_paper_dataset


def data(seed=0, n=24, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.7 * rng.standard_normal(n) > 0.4).astype(int)
    y[:2] = [1, 0]
    return X, y, rng.standard_normal((7, d))


def assert_same_fit(a, b, rtol=1e-7):
    assert a.candidate_ == b.candidate_
    assert a.objective_ == pytest.approx(b.objective_, rel=rtol)


def test_precomputed_linear_gram_equals_the_linear_primal():
    X, y, X_new = data()
    lin = AATP(tau=0.2, C=0.5, solver="cvxpy-primal").fit(X, y)
    pre = AATP(tau=0.2, C=0.5, kernel="precomputed").fit(X @ X.T, y)
    assert_same_fit(lin, pre)
    assert np.allclose(pre.decision_function(X_new @ X.T), lin.decision_function(X_new),
                       atol=1e-6)


def test_named_rbf_equals_its_precomputed_gram_and_a_callable():
    X, y, X_new = data(1)
    named = AATP(tau=0.25, kernel="rbf", gamma=0.4).fit(X, y)
    pre = AATP(tau=0.25, kernel="precomputed").fit(rbf_kernel(X, gamma=0.4), y)
    call = AATP(tau=0.25, kernel=lambda A, B: rbf_kernel(A, B, gamma=0.4)).fit(X, y)
    for other in (pre, call):
        assert_same_fit(named, other, rtol=1e-9)
    expected = named.decision_function(X_new)
    assert np.allclose(pre.decision_function(rbf_kernel(X_new, X, gamma=0.4)), expected,
                       atol=1e-9)
    assert np.allclose(call.decision_function(X_new), expected, atol=1e-9)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_decision_function_is_exact_for_new_points(kernel):
    X, y, X_new = data(2)
    m = AATP(tau=0.2, kernel=kernel, gamma=0.5).fit(X, y)
    K_new = X_new @ X.T if kernel == "linear" else rbf_kernel(X_new, X, gamma=0.5)
    literal = brute.kernel_scores(K_new, m.dual_coef_, m.candidate_)
    assert np.allclose(m.decision_function(X_new), literal, atol=1e-10)
    if kernel == "linear":
        w = sum(b * (X[j] - X[m.candidate_]) for j, b in enumerate(m.dual_coef_))
        assert np.allclose(m.coef_, w, atol=1e-12)


def test_fitted_quantile_and_gap_describe_the_training_scores():
    X, y, _ = data(3)
    m = AATP(tau=0.3).fit(X, y)
    h = m.decision_function(X)
    assert m.quantile_ == pytest.approx(brute.quantile(h, 0.3), abs=1e-12)
    assert m.quantile_distance_ == pytest.approx(abs(h[m.candidate_] - m.quantile_), abs=1e-12)
    assert m.duality_gap_ <= 1e-8 * max(1, m.objective_) and m.n_fallbacks_ == 0
    assert m.score(X, y) == pytest.approx(1 - aatp_loss(y, h, 0.3))


def test_pairs_with_each_item_once_equal_the_bipartite_fit():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((16, 2))
    y = np.r_[np.zeros(8, int), np.ones(8, int)]
    pairs = np.c_[rng.permutation(8), 8 + rng.permutation(8)]  # (non-preferred, preferred)
    items = AATP(tau=0.25).fit(X, y)
    from_pairs = AATP(tau=0.25).fit_pairs(X, pairs)
    assert_same_fit(items, from_pairs, rtol=1e-10)
    assert np.allclose(items.dual_coef_, from_pairs.dual_coef_, atol=1e-10)


@pytest.mark.parametrize("all_pairs", [True, False])
def test_pairs_reduce_to_items_on_the_stacked_list(all_pairs):
    """The paper's sample ((x_i, x'_i))_{i≤m} is the item list z = (x_1..x_m, x'_1..x'_m)
    with signs −1/+1: the pairs fit equals the item fit on that (repeated) list. With all
    n₊n₋ pairs (Section 5's construction) items repeat n₊ or n₋ times; otherwise random
    pairs put some items on both sides."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((9, 2))
    y = np.array([1, 0, 0, 1, 0, 0, 1, 0, 0])
    if all_pairs:
        pairs = np.array([(a, b) for a in np.flatnonzero(y == 0) for b in np.flatnonzero(y)])
    else:
        pairs = np.c_[rng.integers(0, 9, 14), rng.integers(0, 9, 14)]
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    m = len(pairs)
    Z = np.vstack([X[pairs[:, 0]], X[pairs[:, 1]]])
    labels = np.r_[np.zeros(m, int), np.ones(m, int)]
    from_pairs = AATP(tau=0.2, C=0.3).fit_pairs(X, pairs)
    stacked = AATP(tau=0.2, C=0.3).fit(Z, labels)
    assert from_pairs.objective_ == pytest.approx(stacked.objective_, rel=1e-9)
    assert np.array_equal(X[from_pairs.candidate_], Z[stacked.candidate_])
    X_new = rng.standard_normal((5, 2))
    assert np.allclose(from_pairs.decision_function(X_new), stacked.decision_function(X_new),
                       atol=1e-8)


def test_fast_and_cvxpy_agree_on_objective_and_choice():
    X, y = load_paper_dataset("ionosphere", "data")
    X = X[:, X.std(axis=0) > 0]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.default_rng(6)
    idx = rng.permutation(len(y))[:70]
    for tau, C in [(0.05, 0.1), (0.19, 1.0)]:
        fits = [AATP(tau=tau, C=C, solver=s).fit(X[idx], y[idx])
                for s in ("fast", "cvxpy", "cvxpy-primal")]
        for other in fits[1:]:
            assert other.candidate_ == fits[0].candidate_
            assert other.objective_ == pytest.approx(fits[0].objective_, rel=1e-6)
            assert np.allclose(other.candidate_objectives_, fits[0].candidate_objectives_,
                               rtol=1e-6)


BAD_FIT = [
    (dict(tau=0.0), ValueError, r"tau must lie in \(0, 1\), got 0.0"),
    (dict(tau=1.0), ValueError, r"tau must lie in \(0, 1\)"),
    (dict(tau=-0.2), ValueError, r"tau must lie in \(0, 1\)"),
    (dict(tau=float("nan")), ValueError, r"tau must lie in \(0, 1\)"),
    (dict(tau="0.1"), TypeError, "tau must be a real number"),
    (dict(C=0.0), ValueError, "C must be a finite number > 0"),
    (dict(C=-1.0), ValueError, "C must be a finite number > 0"),
    (dict(C=float("inf")), ValueError, "C must be a finite number > 0"),
    (dict(solver="osqp"), ValueError, "solver must be one of"),
    (dict(kernel="poly"), ValueError, "kernel must be one of"),
    (dict(kernel="rbf", gamma=-1.0), ValueError, "gamma must be a finite number > 0"),
    (dict(n_jobs=0), ValueError, "n_jobs must be a non-zero integer"),
    (dict(n_jobs="2"), TypeError, "n_jobs must be None or an integer"),
    (dict(verbose="yes"), TypeError, "verbose must be True or False"),
]


@pytest.fixture
def no_solver(monkeypatch):
    """Bad input must be refused before any solver runs."""
    def fail(*args, **kwargs):
        raise AssertionError("a solver ran on bad input")
    monkeypatch.setattr(estimator_module, "solve_candidates", fail)


@pytest.mark.parametrize("params, error, match", BAD_FIT)
def test_bad_parameters(no_solver, params, error, match):
    X, y, _ = data()
    with pytest.raises(error, match=match):
        AATP(**params).fit(X, y)


def test_bad_data(no_solver):
    X, y, _ = data()
    cases = [
        (AATP(), X, np.zeros_like(y), ValueError, "y has no relevant item"),
        (AATP(), X, np.ones_like(y), ValueError, "y has no irrelevant item"),
        (AATP(), np.where(np.arange(X.size).reshape(X.shape) == 4, np.nan, X), y,
         ValueError, "X contains NaN or infinite"),
        (AATP(), X, np.r_[np.nan, y[1:]], ValueError, "y contains NaN"),
        (AATP(), X, np.r_[2, y[1:]], ValueError, "y must hold binary labels"),
        (AATP(), X, y[:-1], ValueError, "X has 24, y has 23"),
        (AATP(), X, None, ValueError, "AATP requires y to be passed"),
        (AATP(), X[:1], y[:1], ValueError, "X has 1 sample; at least 2"),
        (AATP(), sp.csr_matrix(X), y, TypeError, "sparse input is not supported"),
        (AATP(kernel="precomputed"), X @ X.T[:, :5], y, ValueError,
         r"X \(the precomputed Gram matrix\) must be a square Gram matrix"),
        (AATP(kernel="precomputed"), X @ X.T + np.triu(np.ones((24, 24)), 1), y, ValueError,
         r"X \(the precomputed Gram matrix\) must be symmetric: max \|K − Kᵀ\| = 1, above "
         r"the rounding threshold"),
        (AATP(kernel="precomputed"), -(X @ X.T), y, ValueError,
         r"X \(the precomputed Gram matrix\) is not positive semidefinite: its smallest "
         r"eigenvalue is .* below the rounding threshold .*nearest_psd"),
        (AATP(kernel=lambda A, B: -(A @ B.T)), X, y, ValueError,
         r"kernel\(X, X\) is not positive semidefinite"),
    ]
    for model, Xb, yb, error, match in cases:
        with pytest.raises(error, match=match):
            model.fit(Xb, yb)


@pytest.mark.parametrize("pairs, match", [
    (np.array([0, 1]), r"pairs must have shape \(m, 2\)"),
    (np.zeros((0, 2), int), "pairs is empty"),
    (np.array([[0, 24]]), r"pairs holds indices outside \[0, 23\]"),
    (np.array([[0, 1], [3, 3]]), r"pairs\[1\] compares item 3 with itself"),
    (np.array([[0.5, 1.0]]), "pairs must hold integer item indices"),
])
def test_bad_pairs(no_solver, pairs, match):
    X, _, _ = data()
    with pytest.raises(ValueError, match=match):
        AATP().fit_pairs(X, pairs)


def test_bad_prediction_input():
    X, y, X_new = data()
    m = AATP(tau=0.2).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but AATP is expecting 3 features"):
        m.decision_function(X_new[:, :2])
    with pytest.raises(ValueError, match="X contains NaN"):
        m.decision_function(np.full((2, 3), np.nan))
    pre = AATP(tau=0.2, kernel="precomputed").fit(X @ X.T, y)
    with pytest.raises(ValueError, match="X has 5 features, but AATP is expecting 24"):
        pre.decision_function(X_new @ X[:5].T)


@pytest.mark.parametrize("kernel", ["linear", "precomputed"])
def test_check_estimator_with_documented_exceptions_only(kernel):
    est = AATP(kernel=kernel)
    expected = expected_failed_checks(est)
    results = check_estimator(est, on_fail=None, on_skip=None,
                              expected_failed_checks=expected)
    status = {r["check_name"]: r["status"] for r in results}
    assert {name for name, s in status.items() if s == "failed"} == set()
    # every documented exception really fails (the list is not stale)
    assert {name for name, s in status.items() if s == "xfail"} == set(expected)
    assert all(reason for reason in expected.values())


def test_dtypes_and_a_single_feature():
    X, y, _ = data(7)
    ref = AATP(tau=0.2).fit(X.round(), y)
    for dtype in (np.float32, np.int32, np.int64):
        m = AATP(tau=0.2).fit(X.round().astype(dtype), y)
        assert m.candidate_ == ref.candidate_
    one = AATP(tau=0.2).fit(X[:, :1], y)
    assert one.coef_.shape == (1,)


def test_pairwise_tag_lets_cross_validation_slice_gram_matrices():
    X, y, _ = data(8, n=30)
    K = rbf_kernel(X, gamma=0.5)
    est = AATP(tau=0.2, kernel="precomputed")
    assert get_tags(est).input_tags.pairwise and not get_tags(AATP()).input_tags.pairwise
    folds = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(est, K, y, cv=folds)
    manual = []
    for train, test in folds.split(K):
        m = clone(est).fit(K[np.ix_(train, train)], y[train])
        manual.append(m.score(K[np.ix_(test, train)], y[test]))
    assert np.allclose(scores, manual)
    named = cross_val_score(AATP(tau=0.2, kernel="rbf", gamma=0.5), X, y, cv=folds)
    assert np.allclose(scores, named)


def test_n_jobs_gives_the_same_fit():
    X, y, _ = data(9, n=40)
    seq = AATP(tau=0.2).fit(X, y)
    par = AATP(tau=0.2, n_jobs=2).fit(X, y)
    assert_same_fit(seq, par, rtol=1e-10)
    assert np.allclose(seq.candidate_quantile_distances_, par.candidate_quantile_distances_, rtol=0, atol=1e-9)


def test_dask_backend_with_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    X, y, _ = data(10, n=80)
    # the linear kernel (interior point on a factor) and a full-rank RBF Gram (face descent)
    kernels = [dict(), dict(kernel="rbf", gamma=1.0)]
    seq = [AATP(tau=0.2, **kw).fit(X, y) for kw in kernels]
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for kw, one in zip(kernels, seq):
            with parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
                par = AATP(tau=0.2, n_jobs=2, **kw).fit(X, y)
            assert len(ts.data) > 0  # the chunks ran as Dask tasks
            assert par.engine_ == one.engine_
            assert_same_fit(one, par, rtol=1e-10)
    assert seq[1].engine_ == "face-descent"


def test_progress_bar_counts_the_candidates(capsys):
    X, y, _ = data(11, n=20)
    AATP(tau=0.2, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "AATP candidates" in err and "20/20" in err


def test_demo_fit():
    X, y, X_new = data(12)
    fit = aatp_demo_fit(X, y, X_new, tau=0.2)
    assert fit.scores.shape == (7,) and fit.seconds > 0
    assert fit.name.startswith("AATP") and "one quadratic program per training item" in fit.note


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_the_chosen_candidate_is_not_solved_twice(kernel, monkeypatch):
    """The solution scored for the selection is the one the model keeps: no solver is
    built after the candidates' pass (with ties beyond KEPT_SOLUTIONS it would be)."""
    from cvxtop.aatp import candidates

    built = []
    original = candidates.SolverPlan.build
    monkeypatch.setattr(candidates.SolverPlan, "build",
                        lambda self, *a, **k: built.append(1) or original(self, *a, **k))
    X, y, _ = data(12, n=80, d=5)
    model = AATP(tau=0.1, kernel=kernel, gamma=0.5).fit(X, y)
    assert len(built) == 1
    chosen = int(np.flatnonzero(model.candidates_ == model.candidate_)[0])
    assert model.objective_ == model.candidate_objectives_[chosen]
    assert model.quantile_distance_ == model.candidate_quantile_distances_[chosen]

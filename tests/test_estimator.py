"""TopRanker: input errors before any solving, and scikit-learn conformance."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import check_estimator

import cvxtop.estimators as estimators
from cvxtop import TopRanker
from cvxtop.estimators import EXPECTED_FAILED_CHECKS, expected_failed_checks

RNG = np.random.default_rng(0)
X = RNG.standard_normal((40, 3))
Y = (X[:, 0] + 0.5 * RNG.standard_normal(40) > 0.3).astype(int)


@pytest.fixture
def no_solving(monkeypatch):
    """Make any solver call fail loudly: errors must come from validation first."""
    def boom(*args, **kwargs):
        raise AssertionError("a solver ran before the input was validated")
    monkeypatch.setattr(estimators, "minimize", boom)


@pytest.mark.parametrize("params, X_, y_, error, message", [
    (dict(k=0), X, Y, ValueError, "k must satisfy 1 <= k <="),
    (dict(k=int(Y.sum()) + 1), X, Y, ValueError, "the number of relevant items"),
    (dict(k=1.5), X, Y, ValueError, r"k must lie in \(0, 1\]"),
    (dict(k="3"), X, Y, TypeError, "k must be an int or a float"),
    # the default k = 0.25 is prec@κ's: a pAp@k fit without k says so
    (dict(surrogate="pap@k-avg"), X, Y, TypeError, r"the default k = 0\.25 is one"),
    (dict(surrogate="pap@k-max", k=0.5), X, Y, TypeError, r"1 <= k <= n₋ = \d+"),
    (dict(), X, np.zeros(40), ValueError, "y has no relevant item"),
    (dict(), X, np.r_[Y[:-1], 2], ValueError, "y must hold binary labels"),
    (dict(), np.where(np.eye(40, 3) > 0, np.nan, X), Y, ValueError, "X contains NaN"),
    (dict(), X[:30], Y, ValueError, "X has 30, y has 40"),
    (dict(C=0.0), X, Y, ValueError, "C must be a finite number > 0"),
    (dict(C=-1.0), X, Y, ValueError, "C must be a finite number > 0"),
    (dict(surrogate="prec@k-nope"), X, Y, ValueError, "unknown surrogate 'prec@k-nope'"),
    (dict(engine="fast"), X, Y, ValueError, "engine must be one of"),
    (dict(solver="magic"), X, Y, ValueError, "solver must be one of"),
    (dict(cvx_solver="GUROBI"), X, Y, ValueError, "cvx_solver must be one of"),
    (dict(kernel="precomputed"), X, Y, ValueError, "must be a square Gram matrix"),
    (dict(kernel="precomputed"), np.triu(np.ones((40, 40))), Y, ValueError, "must be symmetric"),
    (dict(kernel="precomputed"), -np.eye(40), Y, ValueError, "not positive semidefinite"),
    (dict(kernel="precomputed"), np.eye(30), Y, ValueError, "has 30, y has 40"),
])
def test_bad_input_is_rejected_before_solving(no_solving, params, X_, y_, error, message):
    with pytest.raises(error, match=message):
        TopRanker(**params).fit(X_, y_)


def test_bad_groups_are_rejected_before_solving(no_solving):
    with pytest.raises(ValueError, match="groups has 3 entries but there are 40 items"):
        TopRanker().fit(X, Y, groups=[1, 2, 3])


def test_decision_function_checks_its_input():
    model = TopRanker(k=2).fit(X, Y)
    with pytest.raises(ValueError, match="X has 2 features, but TopRanker is expecting 3"):
        model.decision_function(X[:, :2])
    with pytest.raises(ValueError, match="X contains NaN"):
        model.decision_function(np.full((2, 3), np.nan))


@pytest.mark.parametrize("kernel", ["linear", "precomputed"])
def test_check_estimator_fails_exactly_the_documented_checks(kernel):
    model = TopRanker(kernel=kernel)
    expected = expected_failed_checks(model)
    assert all(isinstance(reason, str) and len(reason) > 20 for reason in expected.values())
    if kernel == "linear":
        assert expected == EXPECTED_FAILED_CHECKS
    results = check_estimator(model, on_fail=None, on_skip=None,
                              expected_failed_checks=expected)
    status = {r["check_name"]: r["status"] for r in results}
    assert {name for name, s in status.items() if s == "failed"} == set()
    # every documented exception really fails: the list is not stale
    assert {name for name, s in status.items() if s == "xfail"} == set(expected)


# scikit-learn's checks behind EXPECTED_FAILED_CHECKS use multiclass targets; the same
# properties are checked here with binary ones.

def test_fit_returns_self_and_does_not_change_parameters():
    model = TopRanker(k=2, C=0.5)
    before = model.get_params()
    assert model.fit(X, Y) is model
    assert model.get_params() == before
    assert model.n_features_in_ == 3


def test_sample_order_and_subset_invariance():
    model = TopRanker(k=2).fit(X, Y)
    perm = RNG.permutation(40)
    np.testing.assert_allclose(model.decision_function(X[perm]), model.decision_function(X)[perm])
    np.testing.assert_allclose(model.decision_function(X[:7]), model.decision_function(X)[:7])


def test_dtypes_memory_layouts_and_pickling():
    ref = TopRanker(k=2).fit(X, Y).coef_
    for variant in (X.astype(np.float32), np.asfortranarray(X)):
        coef = TopRanker(k=2).fit(variant, Y).coef_
        np.testing.assert_allclose(coef, ref, rtol=1e-5, atol=1e-6)
    X_int = np.round(X * 100).astype(int)
    np.testing.assert_allclose(TopRanker(k=2).fit(X_int, Y).coef_,
                               TopRanker(k=2).fit(X_int.astype(float), Y).coef_)
    readonly = X.copy()
    readonly.setflags(write=False)
    TopRanker(k=2).fit(readonly, Y)
    model = TopRanker(k=2).fit(X, Y)
    clone_ = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone_.decision_function(X), model.decision_function(X))
    assert clone(model).get_params() == model.get_params()


def test_pairwise_tag_slices_gram_matrices_in_cross_validation():
    K = X @ X.T
    scorer = lambda est, K_test, y_test: float(np.mean(est.decision_function(K_test)))  # noqa: E731
    scores = cross_val_score(TopRanker(k=1, kernel="precomputed"), K, Y, cv=2, scoring=scorer)
    lin = cross_val_score(TopRanker(k=1), X, Y, cv=2, scoring=scorer)
    np.testing.assert_allclose(scores, lin, rtol=1e-3, atol=1e-3)

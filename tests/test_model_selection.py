"""TopRankerCV: C chosen by cross-validation over certified paths, in the manner of
LogisticRegressionCV; GridSearchCV and TopRankerCV under joblib's Dask backend."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, StratifiedKFold

from cvxtop import TopRanker, TopRankerCV, metrics
from cvxtop.datasets import make_ranking_data

X, Y = make_ranking_data(300, 6, noise=0.3, random_state=0)
CS = [0.01, 0.1, 1.0, 10.0]


def test_the_scores_are_those_of_cold_fits_on_each_fold():
    model = TopRankerCV("prec@k-avg", k=0.25, Cs=CS, cv=3, tol=1e-9).fit(X, Y)
    np.testing.assert_array_equal(model.Cs_, CS)
    assert model.scores_.shape == (3, 4) and model.n_splits_ == 3
    for i, (train, test) in enumerate(StratifiedKFold(3).split(X, Y)):
        for j, C in enumerate(CS):
            cold = TopRanker("prec@k-avg", k=0.25, C=C, tol=1e-9).fit(X[train], Y[train])
            expected = metrics.precision_at_k(Y[test], cold.decision_function(X[test]), 0.25)
            # both certified to 1e-9: the same ranking of the test items unless two
            # scores come within the solutions' distance
            assert model.scores_[i, j] == pytest.approx(expected, abs=1e-12)
    best = int(np.argmax(model.scores_.mean(axis=0)))
    assert model.C_ == CS[best] and model.best_score_ == model.scores_.mean(axis=0)[best]
    assert model.best_estimator_.C == model.C_
    np.testing.assert_array_equal(model.coef_, model.best_estimator_.coef_)
    results = model.cv_results_
    assert results["rank_test_score"][best] == 1
    np.testing.assert_array_equal(results["split1_test_score"], model.scores_[1])
    assert results["params"][2] == {"C": 1.0}
    assert model.score(X, Y) == model.best_estimator_.score(X, Y)


def test_groups_go_to_the_splitter_and_to_the_per_list_score():
    groups = np.arange(len(Y)) // 30
    model = TopRankerCV("prec@k-avg", k=1, Cs=[0.1, 1.0], cv=GroupKFold(3)).fit(X, Y, groups)
    train, test = next(iter(GroupKFold(3).split(X, Y, groups)))
    assert not set(groups[train]) & set(groups[test])
    cold = TopRanker("prec@k-avg", k=1, C=0.1).fit(X[train], Y[train], groups=groups[train])
    assert model.scores_[0, 0] == pytest.approx(
        cold.score(X[test], Y[test], groups=groups[test]), abs=1e-12)
    # with groups and no splitter, the folds are by list
    assert TopRankerCV(k=1, Cs=2, cv=3).fit(X, Y, groups).n_splits_ == 3


def test_a_list_without_a_relevant_item_raises_or_is_left_out_of_every_fit():
    """Queries without a relevant item are common in ranking data; the error's advice,
    skip_degenerate_groups=True, is a parameter of TopRankerCV too (it was TopRanker's
    only, so TopRankerCV could not fit such data at all)."""
    groups = np.arange(len(Y)) // 30
    y = Y.copy()
    y[groups == 2] = 0
    with pytest.raises(ValueError, match="group 2 is degenerate.*skip_degenerate_groups"):
        TopRankerCV(k=1, Cs=[0.1, 1.0], cv=3).fit(X, y, groups)
    with pytest.warns(UserWarning, match="skipped 1 degenerate group"):
        model = TopRankerCV(k=1, Cs=[0.1, 1.0], cv=GroupKFold(3),
                            skip_degenerate_groups=True).fit(X, y, groups)
    assert model.best_estimator_.n_groups_skipped_ == 1
    train, test = next(iter(GroupKFold(3).split(X, y, groups)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (group 2 may be in this part)
        cold = TopRanker(k=1, C=0.1, skip_degenerate_groups=True).fit(
            X[train], y[train], groups=groups[train])
    assert model.scores_[0, 0] == pytest.approx(
        cold.score(X[test], y[test], groups=groups[test]), abs=1e-12)


def test_an_int_grid_spans_1e_minus_4_to_1e4_and_a_failed_fit_scores_nan():
    model = TopRankerCV(Cs=3, cv=2, max_iter=1, refit=False)
    with pytest.warns(FitFailedWarning, match="fits failed and score nan"):
        model.fit(X, Y)
    np.testing.assert_allclose(model.Cs_, [1e-4, 1.0, 1e4])
    assert np.isnan(model.scores_).any()
    assert not hasattr(model, "best_estimator_")


@pytest.mark.parametrize("params, error, message", [
    (dict(Cs=0), ValueError, "Cs must be a positive integer"),
    (dict(Cs=[1.0, -1.0]), ValueError, r"Cs\[1\] must be a finite number > 0"),
    (dict(Cs="abc"), TypeError, "Cs must be an int or a sequence"),
    (dict(cv=1), ValueError, "cv must be None, an int >= 2"),
    (dict(scoring="precision"), TypeError, "scoring must be None"),
    (dict(refit="yes"), TypeError, "refit must be True or False"),
])
def test_bad_parameters_name_themselves(params, error, message):
    with pytest.raises(error, match=message):
        TopRankerCV(**params).fit(X, Y)


def test_a_callable_scorer_is_used():
    def auc(estimator, X_, y_):
        return metrics.roc_auc(y_, estimator.decision_function(X_))

    model = TopRankerCV(Cs=[0.1, 1.0], cv=2, scoring=auc).fit(X, Y)
    assert np.all((model.scores_ > 0.5) & (model.scores_ <= 1.0))


def test_grid_search_and_the_cv_path_on_a_dask_cluster():
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    local = TopRankerCV(Cs=[0.1, 1.0], cv=2).fit(X, Y)
    search_local = GridSearchCV(TopRanker(k=0.25), {"C": [0.1, 1.0]}, cv=2).fit(X, Y)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
            remote = TopRankerCV(Cs=[0.1, 1.0], cv=2, n_jobs=2).fit(X, Y)
            search = GridSearchCV(TopRanker(k=0.25), {"C": [0.1, 1.0]}, cv=2,
                                  n_jobs=2).fit(X, Y)
        assert len(ts.data) > 0  # the folds ran as Dask tasks
    np.testing.assert_allclose(remote.scores_, local.scores_, atol=1e-12)
    assert remote.C_ == local.C_
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               search_local.cv_results_["mean_test_score"], atol=1e-12)

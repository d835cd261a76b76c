"""TopRanker as scikit-learn's model selection uses it: score, scorers, groups routed to
fit and scorer, feature names, pos_label, and the zero-model flag."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score, cross_validate

from cvxtop import TopRanker, metrics
from cvxtop.datasets import make_ranking_data

X, Y = make_ranking_data(240, 4, random_state=3)
GROUPS = np.arange(240) % 6


@pytest.mark.parametrize("surrogate, k, metric", [
    ("prec@k-avg", 0.25, "precision_at_k"),
    ("prec@k-struct", 5, "precision_at_k"),
    ("pap@k-avg", 4, "pap_at_k"),
    ("pauc-struct", 4, "partial_auc"),
])
def test_score_is_the_metric_the_surrogate_stands_for(surrogate, k, metric):
    model = TopRanker(surrogate, k=k, C=0.1).fit(X, Y)
    s = model.decision_function(X)
    assert model.score(X, Y) == metrics.METRICS[metric](Y, s, k)
    assert model.score(X, Y, groups=GROUPS) == metrics.METRICS[metric](Y, s, k, groups=GROUPS)


def test_cross_val_score_uses_score_or_a_cvxtop_scorer():
    model = TopRanker("prec@k-struct", k=0.25, C=0.1)
    default = cross_val_score(model, X, Y, cv=3)
    assert default.shape == (3,) and np.all((0 <= default) & (default <= 1))
    scorer = metrics.get_scorer("precision_at_k", k=0.25)
    np.testing.assert_allclose(cross_val_score(model, X, Y, cv=3, scoring=scorer), default)
    auc = cross_val_score(model, X, Y, cv=3, scoring=metrics.get_scorer("roc_auc", ties="half"))
    assert np.all(auc > 0.5)
    with pytest.raises(ValueError, match="metric must be one of"):
        metrics.get_scorer("precision")


def test_grid_search_routes_groups_to_the_splitter_the_fit_and_the_scorer():
    with sklearn.config_context(enable_metadata_routing=True):
        model = TopRanker("pap@k-max", k=5).set_fit_request(groups=True)
        scorer = metrics.get_scorer("pap_at_k", k=5).set_score_request(groups=True)
        search = GridSearchCV(model, {"C": [0.01, 1.0]}, cv=GroupKFold(3), scoring=scorer)
        search.fit(X, Y, groups=GROUPS)
        folds = list(GroupKFold(3).split(X, Y, GROUPS))
        expected = []
        for train, test in folds:
            fitted = TopRanker("pap@k-max", k=5, C=search.best_params_["C"]).fit(
                X[train], Y[train], groups=GROUPS[train])
            expected.append(metrics.pap_at_k(Y[test], fitted.decision_function(X[test]), 5,
                                             groups=GROUPS[test]))
        assert search.best_score_ == pytest.approx(np.mean(expected), abs=1e-9)
        # the estimator's own score takes the groups too
        model = TopRanker("prec@k-struct", k=0.25, C=0.1).set_fit_request(
            groups=True).set_score_request(groups=True)
        result = cross_validate(model, X, Y, params={"groups": GROUPS}, cv=GroupKFold(3))
        assert result["test_score"].shape == (3,)


def test_feature_names_are_kept_and_checked():
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    model = TopRanker("prec@k-struct", k=3).fit(frame, Y)
    assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(model.decision_function(frame), model.decision_function(X),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="feature names"):
        model.decision_function(frame[["b", "a", "c", "d"]])
    assert not hasattr(TopRanker("prec@k-struct", k=3).fit(X, Y), "feature_names_in_")


def test_pos_label_names_the_relevant_value():
    labels = np.where(Y == 1, "spam", "ham")
    model = TopRanker("prec@k-struct", k=3, pos_label="spam").fit(X, labels)
    ref = TopRanker("prec@k-struct", k=3).fit(X, Y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-9)
    assert model.score(X, labels) == ref.score(X, Y)
    with pytest.raises(ValueError, match=r"pos_label='eggs' is not among the labels of y "
                                         r"\(found \['ham', 'spam'\]\)"):
        TopRanker("prec@k-struct", k=3, pos_label="eggs").fit(X, labels)
    with pytest.raises(TypeError, match="name the relevant one with pos_label"):
        TopRanker("prec@k-struct", k=3).fit(X, labels)


def overlapping_classes():
    """Relevant items at the mean of the irrelevant ones: the zero model is optimal for the
    avg surrogates (docs: 'When the optimum is the zero model')."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.r_[np.ones(20, int), np.zeros(40, int)]
    X[:20] = X[20:].mean(axis=0) + 0.01 * rng.standard_normal((20, 3))
    X[:20] -= X[:20].mean(axis=0) - X[20:].mean(axis=0)
    return X, y


def test_zero_model_is_flagged_and_warned():
    Xz, yz = overlapping_classes()
    with pytest.warns(UserWarning, match="is the zero model"):
        zero = TopRanker("prec@k-avg", k=0.25, C=1.0).fit(Xz, yz)
    assert zero.zero_model_ is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        useful = TopRanker("prec@k-struct", k=0.25, C=1.0).fit(X, Y)
    assert useful.zero_model_ is False

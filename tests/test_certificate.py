"""The certified gap of the approximate solvers' models (cvxtop.solvers.certificate): the
bounds are valid against the exact optimum, a model within ``tol`` converges without a word,
one further away ends with a ConvergenceWarning that says how far, and bad options are
refused by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from cvxtop import TopRanker, surrogates
from cvxtop.datasets import make_ranking_data
from cvxtop.solvers import RankingObjective, minimize
from cvxtop.solvers.certificate import certify
from cvxtop.solvers.gaps import gap_scale
from conftest import gap_scale_of


@pytest.fixture(scope="module")
def data():
    return make_ranking_data(1500, 8, noise=0.3, random_state=4)


def exact_fit(X, y, surrogate, C):
    return TopRanker(surrogate, k=0.25 if surrogate.startswith("prec") else 5, C=C).fit(X, y)


@pytest.mark.parametrize("surrogate, C", [("prec@k-avg", 0.1), ("prec@k-avg", 3.0),
                                          ("prec@k-max", 1.0), ("pap@k-ts", 0.3)])
@pytest.mark.parametrize("tol", [0.3, 0.01, 1e-4])
def test_certificate_bounds_hold_against_the_exact_optimum(data, surrogate, C, tol):
    X, y = data
    exact = exact_fit(X, y, surrogate, C)
    objective = RankingObjective(X, y, surrogates.get(surrogate, exact.k), C)
    rng = np.random.default_rng(0)
    for w in (exact.coef_ + 0.3 * rng.standard_normal(X.shape[1]), np.zeros(X.shape[1])):
        cert = certify(objective, w, tol, max_rounds=60)
        slack = 1e-9 * abs(exact.objective_)
        assert cert.value == pytest.approx(objective.value(w), rel=1e-12)
        assert cert.lower_bound <= exact.objective_ + slack
        assert exact.objective_ <= cert.best + slack and cert.best <= cert.value
        scale = gap_scale(cert.value, objective.C, cert.regularizer)
        assert cert.value - exact.objective_ <= cert.gap * scale + slack
        true_excess = (cert.value - exact.objective_) / abs(exact.objective_)
        assert true_excess >= cert.excess_at_least - 1e-9
        # settled one way or the other, or out of rounds
        assert cert.gap <= tol or cert.excess_at_least > tol or cert.rounds == 60


def test_sgd_far_from_the_optimum_warns_and_says_how_far(data):
    X, y = data
    exact = exact_fit(X, y, "prec@k-avg", 10.0)
    # batches of 100: block Frank-Wolfe, whose model the certificate's rounds prove far off
    model = TopRanker("prec@k-avg", C=10.0, solver="sgd", epochs=2, batch_size=100,
                      random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"did not reach tol=0\.01: .* above the "
                                                r"optimum.*solver='exact'"):
        model.fit(X, y)
    assert model.status_ == "completed" and model.gap_ > 0.01
    assert model.lower_bound_ <= exact.objective_ * (1 + 1e-9)
    assert model.objective_ - exact.objective_ <= model.gap_ * gap_scale_of(model) + 1e-9


def test_sgd_within_tol_converges_silently(data):
    X, y = data
    exact = exact_fit(X, y, "prec@k-struct", 0.01)
    model = TopRanker("prec@k-struct", C=0.01, solver="sgd", tol=0.05, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.status_ == "converged" and model.gap_ <= 0.05
    assert (model.objective_ - exact.objective_) / gap_scale_of(model) <= model.gap_ + 1e-9


def test_perceptron_reports_its_gap_without_a_target_and_certify_false_skips_it(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = TopRanker("prec@k-avg", solver="perceptron", random_state=0).fit(X, y)
    assert model.gap_ is not None and model.lower_bound_ is not None
    quick = TopRanker("prec@k-avg", solver="sgd", certify=False, epochs=2, batch_size=100
                      ).fit(X, y)
    assert quick.gap_ is None and quick.lower_bound_ is None and quick.status_ == "completed"
    # on one block the epochs are cutting-plane rounds, which certify themselves
    rounds = TopRanker("prec@k-avg", solver="sgd", certify=False, epochs=2).fit(X, y)
    assert rounds.gap_ > 0.01 and rounds.lower_bound_ is not None
    assert rounds.status_ == "completed" and rounds.n_iter_ == 2
    with pytest.warns(ConvergenceWarning, match="perceptron"):
        TopRanker("prec@k-avg", solver="perceptron", tol=1e-4, random_state=0).fit(X, y)


def test_gd_default_tolerance_is_certified(data):
    X, y = data
    model = TopRanker("prec@k-avg", C=0.1, solver="gd").fit(X, y)
    assert model.gap_ <= 0.01


@pytest.mark.parametrize("options, error, match", [
    ({"certify": "yes"}, TypeError, "certify must be True or False"),
    ({"certificate_rounds": 0}, ValueError, "certificate_rounds must be a positive integer"),
    ({"tol": -1.0}, ValueError, "tol must be a positive number or None"),
    ({"tol": float("nan")}, ValueError, "tol must be a positive number or None"),
])
def test_bad_certificate_options_are_refused_by_name(data, options, error, match):
    X, y = data
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1.0)
    with pytest.raises(error, match=match):
        minimize(objective, "sgd", options=options)

"""C and feature scales at the ends of float64.

A small C: the objective is at most C·L(0), the zero model's, so a relative gap must stay
relative below 1e-12 (cvxtop.solvers.gaps). With a fixed floor of 1e-12 under the gap's
denominator, a fit at C = 1e-30 returned a model 270 times the zero model's objective as
certified within 5e-16, and C below about 1e-154 ended in a ZeroDivisionError. At the other
end, a C whose objective overflows, or features whose scaled C leaves float64, must raise
and say why, never return an infinite objective with a gap of nan.

An objective near 0 whose terms cancel: prec@k-struct's loss is negative where the relevant
items outscore the others, so its optimal objective crosses 0 at one C. A gap relative to
that objective asked for more than float64 holds, and every engine raised there after 2,000
rounds; the gap now divides by at least ½‖w‖² as well (cvxtop.solvers.gaps)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import cvxpy as cp
from conftest import gap_scale_of

from cvxtop import AATP, SolverError, TopRanker, surrogates
from cvxtop.cutoff import prec_cutoff
from cvxtop.datasets import make_ranking_data
from cvxtop.solvers.gaps import FLOOR, gap_floor, gap_scale, relative_gap, within

CONVEX = [name for name in surrogates.available() if surrogates.get(name, 1).convex]
TINY_C = [1e-300, 1e-60, 1e-30, 1e-20]


def _data(seed=0, n=30, d=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = 1
    return X, y


def _quiet(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zero-model notes
        return estimator.fit(X, y)


#: Where prec@k-struct's optimal objective (k = 0.25) on make_ranking_data(300, 5) crosses 0
#: (found by bisection): both its terms are about 0.38 there, the objective within 4e-10 of 0.
CROSSING_C = 0.05112570521302985


def test_a_gap_divides_by_at_least_the_regularizer():
    assert gap_scale(-1e-12, 1.0, 0.4) == 0.4
    assert gap_scale(3.0, 1.0, 0.4) == 3.0  # a loss that is never negative: |P| >= ½‖w‖²
    assert relative_gap(1e-12, -1e-12, 1.0, 0.5) == pytest.approx(4e-12)
    assert relative_gap(1e-12, -1e-12, 1.0) == pytest.approx(2.0)  # without the point
    assert within(1e-12, -1e-12, 1e-6, 1.0, 0.5) and not within(1e-12, -1e-12, 1e-6, 1.0)


@pytest.mark.parametrize("C", [CROSSING_C, CROSSING_C * (1 + 1e-12), CROSSING_C * 1.001])
@pytest.mark.parametrize("engine", ["direct", "cutting-plane"])
def test_struct_certifies_where_its_objective_crosses_zero(engine, C):
    X, y = make_ranking_data(300, 5, random_state=0)
    fitted = TopRanker("prec@k-struct", k=0.25, C=C, engine=engine).fit(X, y)
    half_square = 0.5 * float(fitted.coef_ @ fitted.coef_)
    assert fitted.status_ == "optimal" and fitted.gap_ <= 1e-6
    assert fitted.gap_ == pytest.approx(
        (fitted.objective_ - fitted.lower_bound_) / gap_scale_of(fitted), rel=1e-6)
    if C == CROSSING_C:  # the terms cancel: the objective is tiny against them
        assert abs(fitted.objective_) < 1e-6 * half_square
    # against a second solver (Clarabel on the surrogate's own expression)
    w = cp.Variable(X.shape[1])
    k = prec_cutoff(0.25, int(y.sum()))
    loss, constraints = surrogates.get("prec@k-struct", k).expression(y, X @ w)
    reference = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * loss), constraints)
    reference.solve(solver="CLARABEL")
    assert abs(fitted.objective_ - reference.value) <= 1e-6 * half_square


def test_the_certificate_of_an_approximate_struct_fit_where_its_objective_crosses_zero():
    X, y = make_ranking_data(300, 5, random_state=0)
    fitted = _quiet(TopRanker("prec@k-struct", k=0.25, C=CROSSING_C, solver="gd",
                              tol=1e-3), X, y)
    assert fitted.status_ in ("optimal", "converged") and fitted.gap_ <= 1e-3
    assert fitted.gap_ == pytest.approx(
        (fitted.objective_ - fitted.lower_bound_) / gap_scale_of(fitted), rel=1e-6)


def test_the_floor_is_relative_below_C_1_and_never_zero():
    assert gap_floor(1.0) == gap_floor(1e8) == FLOOR
    assert gap_floor(1e-30) == pytest.approx(FLOOR * 1e-30)
    assert gap_floor(1e-300) > 0.0
    # an objective of 2e-30 against a bound of 1e-30 is half way off, whatever the scale
    assert relative_gap(2e-30, 1e-30, 1e-30) == pytest.approx(0.5)
    assert not within(2e-30, 1e-30, 1e-6, 1e-30)
    assert within(0.0, 0.0, 1e-6, 1e-300)


@pytest.mark.parametrize("C", TINY_C)
@pytest.mark.parametrize("name", CONVEX)
def test_exact_fit_at_a_tiny_C_is_certified_relative_to_its_own_objective(name, C):
    X, y = _data()
    k = 2
    fitted = _quiet(TopRanker(name, k=k, C=C), X, y)
    zero = C * surrogates.get(name, k).value(y, np.zeros(len(y)))
    assert fitted.status_ == "optimal"
    # the reported gap is the documented one, and within tol
    true_gap = (fitted.objective_ - fitted.lower_bound_) / fitted.objective_
    assert fitted.gap_ == pytest.approx(true_gap, rel=1e-6, abs=1e-15)
    assert fitted.gap_ <= 1e-6
    # the zero model is feasible: the answer is within tol of it, and the bound below it
    assert fitted.objective_ <= zero * (1.0 + 1e-6)
    assert fitted.lower_bound_ <= zero


@pytest.mark.parametrize("solver", ["gd", "sgd"])
def test_approximate_fits_at_a_tiny_C_report_the_relative_gap(solver):
    X, y = _data(1)
    fitted = _quiet(TopRanker("prec@k-avg", k=2, C=1e-30, solver=solver, random_state=0),
                    X, y)
    true_gap = (fitted.objective_ - fitted.lower_bound_) / fitted.objective_
    assert fitted.gap_ == pytest.approx(true_gap, rel=1e-6, abs=1e-15)
    assert fitted.gap_ <= 1e-6


@pytest.mark.parametrize("solver", ["fast", "cvxpy"])
def test_aatp_reports_its_gap_relative_to_a_tiny_objective(solver):
    X, y = _data(2)
    fitted = AATP(tau=0.1, C=1e-30, solver=solver).fit(X, y)
    assert fitted.gap_ == pytest.approx(fitted.duality_gap_ / fitted.objective_, rel=1e-9,
                                        abs=1e-15)


@pytest.mark.parametrize("name, C", [("prec@k-struct", 1e154), ("prec@k-avg", 1e200)])
def test_a_C_whose_objective_overflows_says_so(name, C):
    # prec@k-struct is unbounded below without the regularizer, so its optimum is about
    # −C²·q: beyond float64 here; prec@k-avg's master bound overflows at C = 1e200
    X, y = _data()
    with pytest.raises(SolverError, match="overflow float64.*use a smaller C"):
        _quiet(TopRanker(name, k=2, C=C, max_iter=50), X, y)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("make", [lambda: TopRanker("prec@k-avg", k=2), lambda: AATP(tau=0.1)])
def test_features_whose_scaled_C_leaves_float64_are_refused_naming_X_and_C(make, factor):
    X, y = _data()
    with pytest.raises(ValueError, match="X's largest magnitude.*C = 1.*outside float64"):
        make().fit(X * factor, y)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_aatp_at_a_C_whose_weights_overflow_is_refused_naming_C(kernel):
    # (C = 1e200 returned objective inf with gap nan, then a SolverError after numpy's
    # overflow warnings)
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=r"C = 1e\+200 is too large for float64"):
            AATP(tau=0.1, C=1e200, kernel=kernel).fit(X, y)


def test_an_aatp_candidate_with_an_infinite_objective_is_not_certified():
    from cvxtop.aatp.problem import CandidateSolution, require_certified

    for objective, dual in [(np.inf, 1.0), (1.0, -np.inf), (np.nan, 0.0)]:
        solution = CandidateSolution(0, np.zeros(2), None, objective, dual, 1, "optimal")
        with pytest.raises(SolverError, match="not both finite.*smaller C") as caught:
            require_certified(solution, "fast")
        assert caught.value.status == "not_certified"


def test_assert_near_optimum_stays_relative_at_a_tiny_C():
    from cvxtop.testing import assert_near_optimum

    X, y = _data()
    C = 1e-20
    optimum = _quiet(TopRanker("prec@k-avg", k=2, C=C), X, y)
    assert_near_optimum(optimum.coef_, X, y, "prec@k-avg", 2, C)
    far = np.full(X.shape[1], 1e-9)  # ½‖w‖² alone is 100 times the optimum's objective
    with pytest.raises(AssertionError, match="is not within rtol"):
        assert_near_optimum(far, X, y, "prec@k-avg", 2, C)

"""The prec@k surrogates of Kar et al. 2015: every face against the brute-force reference,
subgradient inequalities, the hierarchy, Kar et al. 2015, Appendix A, and bad input."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from cvxtop import reference as ref
from cvxtop import surrogates
from cvxtop.cutoff import ceil_fraction
from cvxtop.surrogates.base import DifferenceOfConvex, PrecSurrogate
from cvxtop.surrogates.prec import PrecAvg, PrecMax, PrecRamp, PrecStruct
from conftest import definition, registered, tiny_instance

ALL = registered(PrecSurrogate)
CONVEX = registered(PrecSurrogate, convex=True)
UPPER_BOUNDS = ["prec@k-ramp", "prec@k-max", "prec@k-avg"]
SOLVER_TOL = 1e-6


def instances(seed: int, count: int, **kwargs):
    """``count`` tiny instances, alternating continuous scores and scores on a tie grid;
    every fifth one may have no irrelevant item at all."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        yield tiny_instance(rng, ties=bool(i % 2), min_neg=0 if i % 5 == 0 else 1, **kwargs)


def every_k(y):
    return range(1, int(y.sum()) + 1)


def solve_expression(name, k, y, s, fixed_variable):
    """min expr s.t. constraints, on constant scores or on a variable fixed to them."""
    if fixed_variable:
        x = cp.Variable(len(s))
        expr, cons = surrogates.get(name, k).expression(y, x)
        cons = cons + [x == s]
    else:
        expr, cons = surrogates.get(name, k).expression(y, cp.Constant(s))
    problem = cp.Problem(cp.Minimize(expr), cons)
    problem.solve(solver=cp.CLARABEL)
    assert problem.status == cp.OPTIMAL
    return problem.value


# ---- registry -----------------------------------------------------------------------------

def test_registered_under_the_api_names_with_convexity_flags():
    expected = {"prec@k-struct": (PrecStruct, True), "prec@k-ramp": (PrecRamp, False),
                "prec@k-max": (PrecMax, True), "prec@k-avg": (PrecAvg, True)}
    for name, (cls, convex) in expected.items():
        sur = surrogates.get(name, 2)
        assert type(sur) is cls and isinstance(sur, PrecSurrogate)
        assert sur.convex is convex and sur.additive
        assert name in surrogates.available()
    assert isinstance(surrogates.get("prec@k-ramp", 1), DifferenceOfConvex)


# ---- value and subgradient faces against the reference ------------------------------------

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("kappa", [0.1, 0.25, 0.3, 0.5, 0.75, 1.0])
def test_fraction_kappa_means_ceil_kappa_npos(name, kappa):
    for y, s in instances(seed=2, count=40, max_pos=7):
        k = max(1, ceil_fraction(kappa, int(y.sum())))
        assert surrogates.get(name, kappa).value(y, s) == pytest.approx(
            definition(name)(y, s, k), abs=1e-9)


def closed_form(name, y, s, k):
    """The closed forms of docs/prec-at-k.md, one loop over j, for instances too big to
    enumerate."""
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])[::-1]
    top = np.sort(s + 1 - y)[::-1][:k].sum()
    if name == "prec@k-struct":
        return top - pos.sum()
    if name == "prec@k-ramp":
        return top - pos[::-1][:k].sum()
    terms = []
    for j in range(min(k, len(neg)) + 1):
        c = len(pos) - k
        weight = 1.0 if name == "prec@k-max" else (j / (c + j) if j else 0.0)
        width = j if name == "prec@k-max" else c + j
        terms.append((neg[:j] + 1).sum() - weight * pos[:width].sum())
    return max(terms)


@pytest.mark.parametrize("name", ["prec@k-struct", "prec@k-ramp", "prec@k-max", "prec@k-avg"])
def test_value_matches_closed_form_on_medium_instances(name):
    rng = np.random.default_rng(3)
    for trial in range(20):
        n_pos, n_neg = int(rng.integers(1, 80)), int(rng.integers(0, 80))
        y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
        s = rng.integers(-3, 4, len(y)) / 2.0 if trial % 2 else rng.standard_normal(len(y))
        for k in {1, max(1, n_pos // 3), n_pos}:
            assert surrogates.get(name, k).value(y, s) == pytest.approx(
                closed_form(name, y, s, k), abs=1e-9)


def algorithm_4(y, s, k):
    """Kar et al. 2015 Algorithm 4 as printed (a loop over k'), on a generic instance: the
    subgradient with respect to the scores of the maximizing candidate."""
    pos, neg = np.flatnonzero(y), np.flatnonzero(y == 0)
    pos, neg = pos[np.argsort(-s[pos])], neg[np.argsort(-s[neg])]
    n_pos = len(pos)
    best, best_grad = -np.inf, None
    for kp in range(k + 1):
        if k - kp > len(neg):
            continue
        d = (k - kp) / (n_pos - kp) if kp < n_pos else 0.0
        delta = k - kp - d * s[pos[kp:]].sum() + s[neg[:k - kp]].sum()
        grad = np.zeros(len(s))
        grad[neg[:k - kp]] = 1.0
        grad[pos[kp:]] = -d
        if delta > best:
            best, best_grad = delta, grad
    return best, best_grad


def test_avg_subgradient_is_algorithm_4_on_generic_instances():
    rng = np.random.default_rng(4)
    for _ in range(300):
        y, s = tiny_instance(rng, 6, 6)
        for k in every_k(y):
            value, grad = surrogates.get("prec@k-avg", k).value_and_subgradient(y, s)
            alg_value, alg_grad = algorithm_4(y, s, k)
            assert value == pytest.approx(alg_value, abs=1e-12)
            np.testing.assert_allclose(grad, alg_grad, atol=1e-12)


def random_directions(rng, n, count):
    """``count`` random directions at three scales: near (1e-4), unit and far (10)."""
    scales = np.repeat([1e-4, 1.0, 10.0], -(-count // 3))[:count]
    return rng.standard_normal((count, n)) * scales[:, None]


# ---- the ramp's difference-of-convex parts -------------------------------------------------

def top_positive_sum(y, s, k):
    """H(s) = sum_largest(s⁺, k), the subtracted part of the ramp."""
    return np.sort(s[y == 1])[::-1][:k].sum()


def test_ramp_difference_of_convex_parts():
    rng = np.random.default_rng(8)
    for y, s in instances(seed=9, count=60):
        for k in every_k(y):
            # G = ramp + H, as a DCP expression
            bound = PrecRamp(k).bind(y)
            g_expr, g_cons = bound.convex_part_expression(cp.Constant(s))
            assert g_expr.is_convex()
            problem = cp.Problem(cp.Minimize(g_expr), g_cons)
            problem.solve(solver=cp.CLARABEL)
            big_g = ref.prec_ramp(y, s, k) + top_positive_sum(y, s, k)
            assert problem.value == pytest.approx(big_g, abs=SOLVER_TOL)
            # a subgradient of the convex H, ties included
            h_sub = bound.subtracted_subgradient(s)
            big_h = top_positive_sum(y, s, k)
            for s2 in s + random_directions(rng, len(s), 12):
                assert top_positive_sum(y, s2, k) >= big_h + h_sub @ (s2 - s) - 1e-9
            # the ramp's DC subgradient is ∂G − ∂H, with ∂G the indicator of the top k of
            # s + 1 − y (struct's subgradient plus y)
            g_sub = PrecRamp(k).subgradient(y, s) + h_sub
            np.testing.assert_array_equal(g_sub, PrecStruct(k).subgradient(y, s) + y)


# ---- expression face ------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONVEX)
def test_expression_with_fraction_kappa(name):
    for y, s in instances(seed=17, count=20, max_pos=7):
        for kappa in (0.2, 0.5, 1.0):
            k = max(1, ceil_fraction(kappa, int(y.sum())))
            value = solve_expression(name, kappa, y, s, fixed_variable=False)
            assert value == pytest.approx(definition(name)(y, s, k), abs=SOLVER_TOL)


@pytest.mark.parametrize("name", ["prec@k-max", "prec@k-avg"])
def test_compact_expression_matches_value_on_medium_instances(name):
    rng = np.random.default_rng(11)
    for n_pos, n_neg, k in [(30, 40, 1), (30, 40, 8), (30, 40, 30), (25, 5, 12), (12, 60, 12)]:
        y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
        s = rng.standard_normal(len(y))
        expected = surrogates.get(name, k).value(y, s)
        assert solve_expression(name, k, y, s, False) == pytest.approx(expected, abs=SOLVER_TOL)


@pytest.mark.parametrize("name", ["prec@k-max", "prec@k-avg"])
def test_literal_form_matches_reference(name):
    """The literal maximum of k + 1 sum_largest terms (kept for benchmarks/dcp_forms.py)."""
    for y, s in instances(seed=16, count=40):
        for k in every_k(y):
            sur = surrogates.get(name, k)
            expr = sur.literal_expression(y, cp.Constant(s))
            assert expr.is_convex()
            assert expr.value == pytest.approx(definition(name)(y, s, k), abs=1e-9)


@pytest.mark.parametrize("name", ["prec@k-max", "prec@k-avg"])
def test_compact_and_literal_forms_give_the_same_regularized_optimum(name):
    rng = np.random.default_rng(12)
    for _ in range(4):
        X = rng.standard_normal((24, 3))
        y = (X @ np.array([1.0, -0.5, 0.2]) + rng.standard_normal(24) > 0.5).astype(int)
        for k in (1, 3, int(y.sum())):
            w = cp.Variable(3)
            expr, cons = surrogates.get(name, k).expression(y, X @ w)
            compact = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + 2.0 * expr), cons)
            compact.solve(solver=cp.CLARABEL)
            v = cp.Variable(3)
            literal = cp.Problem(cp.Minimize(
                0.5 * cp.sum_squares(v) + 2.0 * surrogates.get(name, k).literal_expression(
                    y, X @ v)))
            literal.solve(solver=cp.CLARABEL)
            assert compact.value == pytest.approx(literal.value, abs=SOLVER_TOL)
            at_solution = 0.5 * w.value @ w.value + 2.0 * surrogates.get(name, k).value(
                y, X @ w.value)
            assert compact.value == pytest.approx(at_solution, abs=1e-5)


@pytest.mark.parametrize("name", ["prec@k-max", "prec@k-avg"])
def test_compact_expression_has_linear_size(name):
    rng = np.random.default_rng(13)
    n_pos, n_neg, k = 200, 300, 100
    y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
    expr, cons = surrogates.get(name, k).expression(y, cp.Variable(len(y)))
    aux = sum(v.size for v in cp.Problem(cp.Minimize(expr), cons).variables()) - len(y)
    assert aux <= n_pos + n_neg + k + 3
    assert expr.is_convex() and all(c.is_dcp() for c in cons)


# ---- hierarchy and the papers' claims -----------------------------------------------------

def test_hierarchy_loss_ramp_avg_max():
    for y, s in instances(seed=14, count=200):
        for k in every_k(y):
            loss = ref.prec_at_k_loss(y, s, k)
            ramp, avg, mx = (surrogates.get(f"prec@k-{n}", k).value(y, s)
                             for n in ("ramp", "avg", "max"))
            assert loss <= ramp + 1e-12
            assert ramp <= avg + 1e-12
            assert avg <= mx + 1e-12


def test_avg_equals_struct_when_k_is_npos():
    for y, s in instances(seed=15, count=200):
        k = int(y.sum())
        assert surrogates.get("prec@k-avg", k).value(y, s) == pytest.approx(
            surrogates.get("prec@k-struct", k).value(y, s), abs=1e-12)
        assert surrogates.get("prec@k-avg", 1.0).value(y, s) == pytest.approx(
            surrogates.get("prec@k-struct", 1.0).value(y, s), abs=1e-12)


# Kar et al. 2015, Appendix A: relevant points at x = -1, -1, -2, irrelevant ones at -3, -3, -3.
APPENDIX_X = np.array([-1.0, -1.0, -2.0, -3.0, -3.0, -3.0])
APPENDIX_Y = np.array([1, 1, 1, 0, 0, 0])


def test_struct_is_not_an_upper_bound_on_appendix_a():
    """With w = -1 the three irrelevant points rank first: prec@1 loss 1, struct 0."""
    s = -APPENDIX_X
    assert ref.prec_at_k_loss(APPENDIX_Y, s, 1) == 1
    assert surrogates.get("prec@k-struct", 1).value(APPENDIX_Y, s) == pytest.approx(0.0)
    for name in UPPER_BOUNDS:
        assert surrogates.get(name, 1).value(APPENDIX_Y, s) >= 1
    # struct is unbounded below along w -> -inf (it equals 1 + w there)
    assert surrogates.get("prec@k-struct", 1).value(APPENDIX_Y, -50 * APPENDIX_X) == -49


def minimize_scalar_model(name, C):
    w = cp.Variable()
    expr, cons = surrogates.get(name, 1).expression(APPENDIX_Y, APPENDIX_X * w)
    problem = cp.Problem(cp.Minimize(0.5 * cp.square(w) + C * expr), cons)
    problem.solve(solver=cp.CLARABEL)
    assert problem.status == cp.OPTIMAL
    return float(w.value)


@pytest.mark.parametrize("C", [0.05, 0.3, 0.7, 3.0, 20.0])
def test_appendix_a_struct_picks_the_wrong_sign_and_avg_the_right_one(C):
    """By hand: struct(w) = max(1 + w, 2w, 3w), so ½w² + C·struct is minimized at w = −C;
    avg(w) = max(0, 1 − 5w/3), minimized at w = min(5C/3, 3/5); max(w) = (1 − w)₊."""
    w_struct = minimize_scalar_model("prec@k-struct", C)
    w_avg = minimize_scalar_model("prec@k-avg", C)
    w_max = minimize_scalar_model("prec@k-max", C)
    assert w_struct < 0 < w_avg
    assert w_struct == pytest.approx(-C, abs=1e-6)
    assert w_avg == pytest.approx(min(5 * C / 3, 0.6), abs=1e-6)
    assert w_max == pytest.approx(min(C, 1.0), abs=1e-6)
    assert ref.prec_at_k_loss(APPENDIX_Y, APPENDIX_X * w_avg, 1) == 0
    assert ref.prec_at_k_loss(APPENDIX_Y, APPENDIX_X * w_struct, 1) == 1


@pytest.mark.parametrize("name", CONVEX)
def test_expression_solves_again_on_a_variable_holding_a_value(name):
    """k = n (no irrelevant item, k = n₊) on a variable that already holds a value: cvxpy
    1.9 fails on sum_largest(x, len(x)) there, so the surrogates must not emit it."""
    y, s = np.ones(3, int), np.array([0.5, -1.0, 2.0])
    x = cp.Variable(3)
    expr, cons = surrogates.get(name, 3).expression(y, x)
    for _ in range(2):
        problem = cp.Problem(cp.Minimize(expr), cons + [x == s])
        problem.solve(solver=cp.CLARABEL)
        assert problem.value == pytest.approx(definition(name)(y, s, 3), abs=SOLVER_TOL)


def test_no_negatives_gives_zero_for_the_upper_bounds():
    y, s = np.ones(4, int), np.array([0.3, -1.0, 2.0, 0.0])
    for name in UPPER_BOUNDS:
        for k in range(1, 5):
            sur = surrogates.get(name, k)
            assert sur.value(y, s) == 0.0
            np.testing.assert_array_equal(sur.subgradient(y, s), np.zeros(4))
            if sur.convex:
                assert solve_expression(name, k, y, s, fixed_variable=True) == pytest.approx(0)


# ---- bad input ------------------------------------------------------------------------------

Y = np.array([1, 0, 1, 0, 0])
S = np.array([0.3, 0.1, 0.2, 0.5, -1.0])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("method", ["value", "subgradient", "value_and_subgradient"])
@pytest.mark.parametrize("k, error, message", [
    (0, ValueError, r"k must satisfy 1 <= k <= 2 \(the number of relevant items n₊\), got 0"),
    (-1, ValueError, r"k must satisfy 1 <= k"),
    (3, ValueError, r"k must satisfy 1 <= k <= 2 .*got 3"),
    (0.0, ValueError, r"k must lie in \(0, 1\], got 0.0"),
    (1.5, ValueError, r"k must lie in \(0, 1\], got 1.5"),
    (float("nan"), ValueError, r"k must lie in \(0, 1\]"),
    (True, TypeError, r"k must be an int or a float in \(0, 1\], got a bool"),
    ("2", TypeError, r"k must be an int or a float in \(0, 1\], got str"),
])
def test_bad_k(name, method, k, error, message):
    with pytest.raises(error, match=message):
        getattr(surrogates.get(name, k), method)(Y, S)


@pytest.mark.parametrize("name", ALL)
def test_bad_scores_and_labels(name):
    sur = surrogates.get(name, 1)
    with pytest.raises(ValueError, match="y_score contains NaN or infinite"):
        sur.value(Y, np.array([0.3, np.nan, 0.2, 0.5, -1.0]))
    with pytest.raises(ValueError, match="y_score contains NaN or infinite"):
        sur.subgradient(Y, np.array([0.3, np.inf, 0.2, 0.5, -1.0]))
    with pytest.raises(ValueError, match="y_true has no relevant item"):
        sur.value(np.zeros(5), S)
    with pytest.raises(ValueError, match="y_true has 5, y_score has 4"):
        sur.value(Y, S[:4])
    with pytest.raises(ValueError, match="y_score must be 1-dimensional"):
        sur.value(Y, S[:, None])
    with pytest.raises(ValueError, match="y_true must hold binary labels"):
        sur.value(np.array([1, 2, 0, 0, 0]), S)
    with pytest.raises(ValueError, match="y_true is empty"):
        sur.value([], [])


@pytest.mark.parametrize("name", CONVEX)
def test_bad_score_expressions(name):
    sur = surrogates.get(name, 1)
    x = cp.Variable(5)
    with pytest.raises(ValueError, match=r"score_expr must have shape \(5,\).*got \(4,\)"):
        sur.expression(Y, cp.Variable(4))
    with pytest.raises(ValueError, match=r"score_expr must have shape \(5,\)"):
        sur.expression(Y, cp.Variable((5, 1)))
    with pytest.raises(ValueError, match="score_expr must be affine"):
        sur.expression(Y, cp.square(x))
    with pytest.raises(TypeError, match="score_expr must be a cvxpy Expression, got ndarray"):
        sur.expression(Y, S)
    with pytest.raises(ValueError, match="y_true has no relevant item"):
        sur.expression(np.zeros(5), x)
    with pytest.raises(ValueError, match=r"k must satisfy 1 <= k <= 2"):
        surrogates.get(name, 3).expression(Y, x)


def test_ramp_has_no_expression():
    with pytest.raises(ValueError, match="prec@k-ramp is not convex"):
        surrogates.get("prec@k-ramp", 1).expression(Y, cp.Variable(5))

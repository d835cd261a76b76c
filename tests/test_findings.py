"""Every counterexample of docs/findings.md, with its exact numbers, checked with the
brute-force reference (and the fast faces where the surrogate is one of cvxtop's)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from cvxtop import reference as ref
from cvxtop import surrogates
from conftest import tiny_instance


def value(name, y, s, k):
    return surrogates.get(name, k).value(y, s)


# ---- Hiranandani et al. 2020 Prop. 3: avg is not an upper bound on the pAp@k risk ---------------

@pytest.mark.parametrize("y, s, k", [
    ([1, 1, 1, 0, 0], [10.0, -1.0, -1.0, 0.0, 0.0], 2),  # n₊ > k
    ([1, 1, 0, 0], [2.0, 0.0, 0.0, 0.0], 2),              # n₊ = k = β
])
def test_avg_is_not_an_upper_bound(y, s, k):
    assert ref.pap_risk(y, s, k) == 0.5
    assert ref.pap_avg(y, s, k) == 0.0
    assert value("pap@k-avg", y, s, k) == 0.0


def eq_9(y, s, k):
    """Hiranandani et al. 2020 eq. (9) by enumeration: max over Z₋ and valid π of (1/(βk)) [Σ π_ij +
    Σ_j q_j z_j − max over ordered β-subsets Z₊ of Σ_i p_i s_{z_i}] (pap_max has a min there)."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    pos, neg = s[y == 1], s[y == 0]
    beta = min(len(pos), k)
    pis = ref.valid_orderings(beta, k).astype(float)
    ordered = np.array(list(itertools.permutations(range(len(pos)), beta)))
    max_pos = (pis.sum(axis=2) @ pos[ordered].T).max(axis=1)
    return max(float(np.max(pis.sum(axis=(1, 2)) + pis.sum(axis=1) @ neg[list(zn)] - max_pos))
               for zn in itertools.combinations(range(len(neg)), k)) / (beta * k)


def test_eq_9_is_below_the_ramp_it_claims_to_equal():
    """The step (8) -> (9) exchanges min over Z₊ with max over π: only (9) <= (8) holds."""
    y, s, k = [1, 1, 0, 0], [2.0, 0.0, 0.0, 0.0], 2
    assert eq_9(y, s, k) == 0.0 < ref.pap_ramp(y, s, k) == 0.5
    for y, s in (tiny_instance(np.random.default_rng(i), 3, 3, ties=True) for i in range(60)):
        for k in range(1, int((y == 0).sum()) + 1):
            assert eq_9(y, s, k) <= ref.pap_ramp(y, s, k) + 1e-12
            assert eq_9(y, s, k) <= ref.pap_avg(y, s, k) + 1e-12


# ---- Hiranandani et al. 2020 Prop. 5: ramp <= avg and ramp <= TS fail ---------------------------

def random_search(seed, tries, draw, violated):
    """Draw instances with ``draw(rng)`` and return those where ``violated`` holds."""
    rng = np.random.default_rng(seed)
    return [inst for inst in (draw(rng) for _ in range(tries)) if violated(*inst)]


def draw_integer_list(rng, max_pos=3, max_neg=3, low=-3, high=3):
    n_pos, n_neg = int(rng.integers(1, max_pos + 1)), int(rng.integers(1, max_neg + 1))
    y = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
    s = rng.integers(low, high + 1, size=n_pos + n_neg).astype(float)
    return y, s, int(rng.integers(1, n_neg + 1))


def test_random_search_finds_avg_below_ramp():
    found = random_search(2020, 2000, draw_integer_list,
                          lambda y, s, k: ref.pap_avg(y, s, k) < ref.pap_ramp(y, s, k) - 1e-9)
    assert len(found) > 50


def test_avg_below_ramp():
    y, s, k = [1, 1, 0, 0], [1.0, -1.0, 0.0, -1.0], 2
    assert ref.pap_avg(y, s, k) == 0.5
    assert ref.pap_ramp(y, s, k) == 0.75
    assert ref.pap_risk(y, s, k) == 0.5
    assert value("pap@k-avg", y, s, k) == 0.5 and value("pap@k-ramp", y, s, k) == 0.75


@pytest.mark.parametrize("y, s, k, ramp", [
    ([1, 1, 0], [0.5, 0.75, 0.0], 1, 0.25),
    ([1, 1, 0, 0, 0], [1.3459, 1.5139, 0.7813, -0.3139, 0.2645], 1, 0.2674),
])
def test_ramp_above_ts(y, s, k, ramp):
    assert ref.pap_ramp(y, s, k) == pytest.approx(ramp, abs=1e-12)
    assert ref.pap_ts(y, s, k) == 0.0
    assert ref.pap_risk(y, s, k) == 0.0
    assert value("pap@k-ts", y, s, k) == 0.0


# ---- Hiranandani et al. 2020 Algorithm 2 (TS branch) is not eq. (14) ----------------------------

def test_algorithm_2_value_differs_from_eq_14():
    y, s, k = [1, 1, 1, 1, 0, 0], [1.2, -0.4, -0.4, -2.1, 1.0, -0.9], 2
    assert ref.pap_ts(y, s, k) == pytest.approx(2.225, abs=1e-12)
    assert value("pap@k-ts", y, s, k) == pytest.approx(2.225, abs=1e-12)
    assert value("pap@k-ts-paper", y, s, k) == pytest.approx(2.35, abs=1e-12)
    assert ref.pap_risk(y, s, k) == 0.25


def midpoint_gap(name, y, s, s2, k):
    """f(midpoint) − mean of the end values: > 0 violates convexity on the line s → s2."""
    f = surrogates.get(name, k)
    return f.value(y, (s + s2) / 2) - (f.value(y, s) + f.value(y, s2)) / 2


def test_random_search_finds_algorithm_2_not_convex():
    def draw(rng):
        y, s, k = draw_integer_list(rng, max_neg=2, low=-2, high=2)
        return y, s, rng.integers(-2, 3, size=len(s)).astype(float), k

    found = random_search(5, 3000, draw,
                          lambda y, s, s2, k: midpoint_gap("pap@k-ts-paper", y, s, s2, k) > 1e-9)
    assert len(found) > 0
    for y, s, s2, k in found:  # eq. (14) itself stays convex on the same lines
        assert midpoint_gap("pap@k-ts", y, s, s2, k) <= 1e-12


def test_algorithm_2_not_convex_on_a_line():
    y, k = [1, 1, 0], 1
    s, s2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    assert value("pap@k-ts-paper", y, s, k) == 0.0
    assert value("pap@k-ts-paper", y, s2, k) == 0.0
    assert value("pap@k-ts-paper", y, (s + s2) / 2, k) == 0.5
    for point in (s, s2, (s + s2) / 2):
        assert ref.pap_ts(y, point, k) == 0.0


def test_algorithm_2_gradient_is_not_a_subgradient_of_eq_14():
    y, k = [1, 1, 0], 1
    s, s2 = np.array([0.5, 0.25, 0.0]), np.array([0.5, 0.5, 0.0])
    g_paper = surrogates.get("pap@k-ts-paper", k).subgradient(y, s)
    assert g_paper.tolist() == [-1.0, 0.0, 1.0]
    assert ref.pap_ts(y, s, k) == 0.25 and ref.pap_ts(y, s2, k) == 0.0
    assert ref.pap_ts(y, s2, k) < ref.pap_ts(y, s, k) + g_paper @ (s2 - s)  # 0 < 0.25
    g_exact = surrogates.get("pap@k-ts", k).subgradient(y, s)
    assert g_exact.tolist() == [-1.0, -1.0, 2.0]
    assert ref.pap_ts(y, s2, k) >= ref.pap_ts(y, s, k) + g_exact @ (s2 - s)  # 0 >= 0


# ---- pauc-struct is a valid upper bound: the average over β-subsets --------------------

def test_pauc_struct_is_the_mean_over_beta_subsets_of_a_risk_bound(rng):
    for _ in range(150):
        y, s = tiny_instance(rng, max_pos=5, max_neg=4, ties=bool(rng.integers(2)))
        pos, neg = s[y == 1], np.sort(s[y == 0])[::-1]
        for k in range(1, len(neg) + 1):
            beta = min(len(pos), k)
            bounds = [np.maximum(1 + neg[None, :k] - pos[list(z), None], 0).sum() / (beta * k)
                      for z in itertools.combinations(range(len(pos)), beta)]
            errors = [np.sum(pos[list(z), None] <= neg[None, :k]) / (beta * k)
                      for z in itertools.combinations(range(len(pos)), beta)]
            assert ref.pauc_struct(y, s, k) == pytest.approx(np.mean(bounds), abs=1e-12)
            assert min(errors) == pytest.approx(ref.pap_risk(y, s, k))
            assert np.mean(bounds) >= min(bounds) >= min(errors) - 1e-12


# ---- Kar et al. 2015, Appendix A: prec@k struct (Joachims) -------------------------------

X6 = np.array([-1.0, -1.0, -2.0, -3.0, -3.0, -3.0])
Y6 = np.array([1, 1, 1, 0, 0, 0])


def appendix_a_struct(w):
    """Appendix A's normalized struct surrogate of the model w: the loss scale of eq. (3)
    divided by k, on scores w·x/n (n = 6, k = 1)."""
    return ref.prec_struct(Y6, w * X6 / 6, 1)


def test_prec_struct_is_not_an_upper_bound():
    for w in (-12.0, -6.0, -1.0):
        assert ref.prec_at_k_loss(Y6, w * X6, 1) == 1  # a negative is ranked first
        assert appendix_a_struct(w) == pytest.approx(1 + w / 6)  # < 1, and < 0 for w < −6
    assert appendix_a_struct(-12.0) == pytest.approx(-1.0)
    # the closed form is max(1 + w/6, w/2); Appendix A's case (i) writes w/2 from w > 3/2 on
    assert appendix_a_struct(2.0) == pytest.approx(4 / 3) and appendix_a_struct(4.0) == 2.0


@pytest.mark.parametrize("C", [0.5, 3.0, 60.0])
def test_prec_struct_minimizer_has_the_wrong_sign(C):
    objective = lambda w: 0.5 * w * w + C * appendix_a_struct(w)  # noqa: E731
    best = minimize_scalar(objective, bounds=(-50.0, 50.0), method="bounded",
                           options={"xatol": 1e-10})
    assert best.x == pytest.approx(-C / 6, abs=1e-6)
    assert ref.prec_at_k_loss(Y6, best.x * X6, 1) == 1
    assert ref.prec_at_k_loss(Y6, 1.0 * X6, 1) == 0  # any w > 0 is optimal for prec@1


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_svmperf_program_returns_the_zero_model_on_the_appendix_example(C):
    """SVMperf's own loss (prec@k-svmperf) is not eq. (3): on the Appendix A example it is
    1 at w = 0, 2 at w = 1 and 9.5 at w = −1, and its regularized minimizer is w = 0."""
    loss = lambda w: ref.prec_svmperf(Y6, w * X6, 1)  # noqa: E731
    assert (loss(0.0), loss(1.0), loss(-1.0)) == pytest.approx((1.0, 2.0, 9.5))
    objective = lambda w: 0.5 * w * w + C * loss(w)  # noqa: E731
    best = minimize_scalar(objective, bounds=(-50.0, 50.0), method="bounded",
                           options={"xatol": 1e-10})
    assert best.x == pytest.approx(0.0, abs=1e-6)
    assert objective(0.0) <= min(objective(w) for w in np.linspace(-5, 5, 201)) + 1e-12

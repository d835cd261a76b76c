"""The pAp@k surrogates of Hiranandani et al. 2020: each face against the brute-force reference, the
subgradient inequality, the DCP forms solved with cvxpy, and bad input."""

from __future__ import annotations

import itertools

import cvxpy as cp
import numpy as np
import pytest

from cvxtop import reference as ref
from cvxtop import surrogates
from cvxtop.surrogates import PapSurrogate
from conftest import registered, tiny_instance

ALL = registered(PapSurrogate)
CONVEX = registered(PapSurrogate, convex=True)


def instances(seed: int, count: int, ties: bool):
    """Tiny random lists, half with more positives than negatives, with every valid k."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        shape = dict(max_pos=4, max_neg=4) if i % 2 else dict(max_pos=6, max_neg=3)
        y, s = tiny_instance(rng, ties=ties, **shape)
        for k in range(1, int((y == 0).sum()) + 1):
            yield y, s, k


def grouped(y, s, g):
    """Subgradient entries summed over items with the same label and score: what stays fixed
    when tied items trade places (which of them counts as 'top-k' is arbitrary)."""
    out: dict[tuple[int, float], float] = {}
    for label, score, value in zip(y.tolist(), s.tolist(), g.tolist()):
        out[(label, score)] = out.get((label, score), 0.0) + value
    return out


def assert_same_subgradient(y, s, g, expected):
    a, b = grouped(y, s, g), grouped(y, s, expected)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-12)


# ---- registry --------------------------------------------------------------------------

def test_registered_names_and_convexity():
    expected = {"pap@k-avg": True, "pap@k-max": True, "pap@k-ts": True, "pauc-struct": True,
                "pap@k-ramp": False, "pap@k-ts-paper": False}
    for name, convex in expected.items():
        sur = surrogates.get(name, 2)
        assert isinstance(sur, PapSurrogate) and sur.name == name and not sur.additive
        assert sur.convex == convex
    assert set(expected) <= set(ALL)


# ---- value against cvxtop.reference ----------------------------------------------------

def pair_matrix_values(y, s, k):
    """The closed forms of docs/pap-at-k.md with an explicit pair matrix: O(n₊·n₋), for mid sizes
    where enumeration is impossible."""
    pos = np.sort(s[y == 1])[::-1]
    z = np.sort(s[y == 0])[::-1][:k]
    n_pos, beta = len(pos), min(len(pos), k)
    h1 = np.maximum(1 + z[None, :] - pos[:, None], 0)
    h0 = np.maximum(z[None, :] - pos[:, None], 0)
    a, b = h1.sum(axis=0), h0.sum(axis=0)
    ts_by_t = [(beta - n_pos) * t + a[:t].sum() + b[t:].sum() for t in range(k + 1)]
    return {
        "pap@k-avg": np.maximum(1 + z - pos.mean(), 0).sum() / k,
        "pap@k-max": h1[n_pos - beta:].sum() / (beta * k),
        "pap@k-ts": max(ts_by_t) / (beta * k),
        "pap@k-ramp": h1[:beta].sum() / (beta * k),
        "pauc-struct": h1.sum() / (n_pos * k),
        "pap@k-ts-paper": (h1[:beta].sum() + h0[beta:].sum()) / (beta * k),
    }


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_value_matches_pair_matrix_at_mid_sizes(ties):
    rng = np.random.default_rng(7)
    for _ in range(40):
        y, s = tiny_instance(rng, max_pos=60, max_neg=80, min_pos=1, min_neg=5, ties=ties)
        for k in sorted({1, int((y == 0).sum()), int(rng.integers(1, (y == 0).sum() + 1))}):
            expected = pair_matrix_values(y, s, k)
            for name in expected:
                assert surrogates.get(name, k).value(y, s) == pytest.approx(
                    expected[name], rel=1e-12, abs=1e-12)


# ---- subgradients ----------------------------------------------------------------------

def algorithm_2_ts(y, s, k):
    """Hiranandani et al. 2020 Algorithm 2 for 'TS', written literally: lines 1 and 10 sort, line 11
    builds π̄, line 12 the gradient; the value is the function that gradient differentiates."""
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    top_neg = neg[np.argsort(-s[neg], kind="stable")][:k]            # line 1
    ranked = pos[np.argsort(-s[pos], kind="stable")]                  # line 10
    beta = min(len(pos), k)
    margin = (np.arange(len(ranked)) < beta).astype(float)           # 1(i <= β)
    diff = s[ranked][:, None] - s[top_neg][None, :]
    pi_bar = (diff <= margin[:, None]).astype(float)                  # line 11
    grad = np.zeros(len(s))
    np.add.at(grad, top_neg, pi_bar.sum(axis=0))                      # line 12
    np.add.at(grad, ranked, -pi_bar.sum(axis=1))
    value = np.maximum(margin[:, None] - diff, 0.0).sum()
    return value / (beta * k), grad / (beta * k)


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_ts_paper_is_algorithm_2_literally(ties):
    for y, s, k in instances(seed=17, count=150, ties=ties):
        v, g = surrogates.get("pap@k-ts-paper", k).value_and_subgradient(y, s)
        v_lit, g_lit = algorithm_2_ts(y, s, k)
        assert v == pytest.approx(v_lit, abs=1e-12)
        if ties:
            assert_same_subgradient(y, s, g, g_lit)
        else:
            assert np.allclose(g, g_lit, atol=1e-12)


def bottom_rows_h(y, s, k):
    """H of the ramp's DC split, by its definition: (1/(βk)) Σ over the bottom n₊ − β
    positives and the top-k negatives of (1 + s_j − s_i)₊."""
    pos = np.sort(s[y == 1])
    z = np.sort(s[y == 0])[::-1][:k]
    beta = min(len(pos), k)
    return np.maximum(1 + z[None, :] - pos[:len(pos) - beta, None], 0).sum() / (beta * k)


def test_ramp_dc_parts_are_convex_with_valid_subgradients():
    rng = np.random.default_rng(19)
    for y, s, k in instances(seed=23, count=80, ties=True):
        sur = surrogates.get("pap@k-ramp", k)
        h = sur.bind(y).subtracted_subgradient(s)
        r, g_ramp = sur.value_and_subgradient(y, s)
        g_big = g_ramp + h  # ∇G = ∇ramp + ∇H on the active piece
        big = r + bottom_rows_h(y, s, k)
        for _ in range(12):
            s2 = s + rng.choice([0.05, 1.0, 4.0]) * rng.standard_normal(len(s))
            h2 = bottom_rows_h(y, s2, k)
            assert h2 >= bottom_rows_h(y, s, k) + h @ (s2 - s) - 1e-9
            assert sur.value(y, s2) + h2 >= big + g_big @ (s2 - s) - 1e-9


def test_ts_is_pauc_struct_and_ramp_when_few_positives():
    for y, s, k in instances(seed=29, count=80, ties=True):
        if y.sum() <= k:
            pauc = surrogates.get("pauc-struct", k).value(y, s)
            assert surrogates.get("pap@k-ts", k).value(y, s) == pytest.approx(pauc, abs=1e-12)
            assert surrogates.get("pap@k-ramp", k).value(y, s) == pytest.approx(pauc, abs=1e-12)


# ---- cvxpy expressions -----------------------------------------------------------------

def solve(expr, constraints, score, s):
    problem = cp.Problem(cp.Minimize(expr), [*constraints, score == s])
    problem.solve(solver=cp.CLARABEL)
    assert problem.status == cp.OPTIMAL
    return problem.value


def dcp_value(sur, y, s, k, convex_part=False, affine=False):
    """min expr s.t. constraints at the scores s; with ``affine`` the surrogate gets an affine
    expression of the score variable rather than the variable itself."""
    score = cp.Variable(len(s))
    given = 2 * score - s if affine else score  # equals score at the optimum (score == s)
    if convex_part:
        expr, constraints = sur.bind(y).convex_part_expression(given)
    else:
        expr, constraints = sur.expression(y, given)
    assert expr.is_dcp() and expr.is_convex() and all(c.is_dcp() for c in constraints)
    return solve(expr, constraints, score, s)


@pytest.mark.parametrize("name", CONVEX)
def test_expression_matches_value_at_mid_sizes(name):
    rng = np.random.default_rng(37)
    for _ in range(4):
        y, s = tiny_instance(rng, max_pos=14, max_neg=14, min_pos=6, min_neg=6)
        for k in (1, 3, int((y == 0).sum())):
            sur = surrogates.get(name, k)
            for affine in (False, True):
                assert dcp_value(sur, y, s, k, affine=affine) == pytest.approx(
                    sur.value(y, s), abs=1e-6)


@pytest.mark.parametrize("name", CONVEX)
def test_expression_solves_again_with_k_equal_to_n_neg(name):
    """A second solve (variables holding values, as in any iterative method) with k = n₋."""
    y, s = np.array([1, 0, 1, 0, 0, 1]), np.array([0.3, 0.1, -0.2, 0.5, -1.0, 0.4])
    sur = surrogates.get(name, 3)
    score = cp.Variable(6)
    expr, constraints = sur.expression(y, score)
    first = solve(expr, constraints, score, s)
    assert solve(expr, constraints, score, s + 1.0) == pytest.approx(first, abs=1e-6)
    assert first == pytest.approx(sur.value(y, s), abs=1e-6)


PAIR_FORMS = {"pap@k-max": "pap_max", "pap@k-ts": "tight_struct", "pauc-struct": "pauc_struct"}


@pytest.mark.parametrize("levels", [True, False])
@pytest.mark.parametrize("name", sorted(PAIR_FORMS))
def test_pair_row_forms_on_levels_and_on_negatives_are_the_surrogate(name, levels):
    """Both writings of a pair-row form (rows on the negatives, or on k levels bounded by
    the partial sums of the top-k negatives) minimize to the brute-force value, ties
    included, for every valid k."""
    from cvxtop.surrogates import _pap_dcp

    form = getattr(_pap_dcp, PAIR_FORMS[name])
    for y, s, k in itertools.islice(instances(seed=53, count=30, ties=True), 70):
        score = cp.Variable(len(s))
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        expr, constraints = form(pos, neg, score, k, levels=levels)
        definition = surrogates.get(name, k).definition(y, s, k)
        assert solve(expr, constraints, score, s) == pytest.approx(definition, abs=1e-6)


def test_levels_only_bound_the_top_k_sum_from_above():
    """The lemma behind the levels: for a convex nondecreasing row function, any levels
    whose partial sums reach those of the top-k negatives give a sum at least the top-k
    sum (random feasible levels, the TS row function)."""
    rng = np.random.default_rng(54)
    for _ in range(200):
        pos, neg = rng.standard_normal(int(rng.integers(1, 6))), rng.standard_normal(8)
        k = int(rng.integers(1, 9))
        c = len(pos) - min(len(pos), k)

        def row(x):
            return max(np.maximum(1 + x - pos, 0).sum() - c, np.maximum(x - pos, 0).sum())

        top = np.sort(neg)[::-1][:k]
        levels = top + rng.standard_normal(k)
        # lift the first level until every partial sum reaches the top-k's
        levels[0] += max(0.0, float(np.max(np.cumsum(top) - np.cumsum(levels))))
        assert np.all(np.cumsum(levels) >= np.cumsum(top) - 1e-12)
        assert sum(map(row, levels)) >= sum(map(row, top)) - 1e-9


@pytest.mark.parametrize("name", sorted(PAIR_FORMS))
def test_a_small_k_form_grows_as_n_not_as_pairs(name):
    """At k = 3 the form is written on levels: its coefficients grow as n·k, and
    ``dcp_size`` counts that form, not n₊·n₋ pairs."""
    rng = np.random.default_rng(55)
    sur = surrogates.get(name, 3)
    for n in (400, 1600):
        y = (rng.random(n) < 0.4).astype(int)
        scores = cp.Variable(n)
        expr, constraints = sur.expression(y, scores)
        problem = cp.Problem(cp.Minimize(expr + 0.5 * cp.sum_squares(scores)), constraints)
        assert problem.get_problem_data(cp.CLARABEL)[0]["A"].nnz <= 40 * n
        assert sur.dcp_size(int(y.sum()), n - int(y.sum())) <= 12 * n


def test_ramp_convex_part_minus_subtracted_part_is_the_ramp():
    for y, s, k in instances(seed=41, count=60, ties=True):
        sur = surrogates.get("pap@k-ramp", k)
        big = dcp_value(sur, y, s, k, convex_part=True, affine=bool(y[0]))
        assert big - bottom_rows_h(y, s, k) == pytest.approx(ref.pap_ramp(y, s, k), abs=1e-6)


def ts_by_t_blocks(y, s, k):
    """TS as the per-t blocks of docs/pap-at-k.md ("The closed form of TS") in LP form: for each t,
    the dual of the selection LP min Σu_j + tα + (k−t)γ s.t. a_j <= u_j + α, b_j <= u_j + γ, u >= 0;
    the max over t."""
    pos, neg = s[y == 1], s[y == 0]
    beta = min(len(pos), k)
    a = np.maximum(1 + neg[:, None] - pos[None, :], 0).sum(axis=1)
    b = np.maximum(neg[:, None] - pos[None, :], 0).sum(axis=1)
    best = -np.inf
    for t in range(k + 1):
        u, alpha, gamma = cp.Variable(len(neg), nonneg=True), cp.Variable(), cp.Variable()
        block = cp.Problem(cp.Minimize(cp.sum(u) + t * alpha + (k - t) * gamma),
                           [a <= u + alpha, b <= u + gamma])
        block.solve(solver=cp.CLARABEL)
        best = max(best, (beta - len(pos)) * t + block.value)
    return best / (beta * k)


def test_ts_merged_form_equals_the_per_t_blocks():
    for y, s, k in itertools.islice(instances(seed=43, count=12, ties=True), 25):
        ts = surrogates.get("pap@k-ts", k).value(y, s)
        assert ts == pytest.approx(ts_by_t_blocks(y, s, k), abs=1e-6)


def test_expression_of_an_affine_model():
    """score_expr = X w: min ½‖w‖² + C·f(Xw) is DCP and solves for every convex face."""
    rng = np.random.default_rng(47)
    X = rng.standard_normal((30, 3))
    y = (X @ np.array([1.0, -1.0, 0.5]) + 0.5 * rng.standard_normal(30) > 0.8).astype(int)
    w = cp.Variable(3)
    for name in CONVEX:
        sur = surrogates.get(name, 4)
        expr, constraints = sur.expression(y, X @ w)
        problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + 10 * expr), constraints)
        problem.solve(solver=cp.CLARABEL)
        assert problem.status == cp.OPTIMAL
        objective = 0.5 * float(w.value @ w.value) + 10 * sur.value(y, X @ w.value)
        assert problem.value == pytest.approx(objective, abs=1e-5)


def test_avg_form_on_score_variables_has_linear_size():
    """Eq. (10)'s form on a score variable (the direct program's): its coefficients grow as
    n, not n₊·n₋. The mean written into each negative's entry had put every positive score
    in each of the n₋ rows: 82 million coefficients on MAGIC, 12 GB in cvxpy."""
    rng = np.random.default_rng(48)
    for n in (400, 1600):
        y = (rng.random(n) < 0.4).astype(int)
        scores = cp.Variable(n)
        expr, constraints = surrogates.get("pap@k-avg", 10).expression(y, scores)
        problem = cp.Problem(cp.Minimize(expr + 0.5 * cp.sum_squares(scores)), constraints)
        A = problem.get_problem_data(cp.CLARABEL)[0]["A"]
        assert A.nnz <= 8 * n


# ---- bad input -------------------------------------------------------------------------

Y = np.array([1, 0, 1, 0, 0])
S = np.array([0.3, 0.1, 0.2, 0.5, -1.0])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("face", ["value", "subgradient", "value_and_subgradient"])
def test_bad_input(name, face):
    call = lambda k, y, s: getattr(surrogates.get(name, k), face)(y, s)  # noqa: E731
    with pytest.raises(ValueError, match=r"k must satisfy 1 <= k <= 3"):
        call(0, Y, S)
    with pytest.raises(ValueError, match=r"k must satisfy 1 <= k <= 3 \(the number of irr"):
        call(4, Y, S)
    with pytest.raises(TypeError, match="k must be an integer"):
        call(1.5, Y, S)
    with pytest.raises(ValueError, match="y_true has no relevant item"):
        call(1, np.zeros(5), S)
    with pytest.raises(ValueError, match="y_true has no irrelevant item"):
        call(1, np.ones(5), S)
    with pytest.raises(ValueError, match="y_score contains NaN or infinite"):
        call(1, Y, np.where(Y == 1, np.nan, S))
    with pytest.raises(ValueError, match="y_score contains NaN or infinite"):
        call(1, Y, np.where(Y == 1, np.inf, S))
    with pytest.raises(ValueError, match="y_true has 5, y_score has 4"):
        call(1, Y, S[:4])
    with pytest.raises(ValueError, match="y_true must hold binary labels"):
        call(1, [0, 1, 2, 0, 0], S)


@pytest.mark.parametrize("name", CONVEX)
def test_bad_score_expr(name):
    sur = surrogates.get(name, 2)
    with pytest.raises(TypeError, match="score_expr must be a cvxpy Expression"):
        sur.expression(Y, S)
    with pytest.raises(ValueError, match=r"score_expr must have shape \(5,\)"):
        sur.expression(Y, cp.Variable(4))
    with pytest.raises(ValueError, match="score_expr must be affine"):
        sur.expression(Y, cp.square(cp.Variable(5)))
    with pytest.raises(ValueError, match="k must satisfy"):
        surrogates.get(name, 4).expression(Y, cp.Variable(5))
    with pytest.raises(ValueError, match="no relevant item"):
        sur.expression(np.zeros(5), cp.Variable(5))


@pytest.mark.parametrize("name", registered(PapSurrogate, convex=False))
def test_nonconvex_faces_have_no_expression(name):
    with pytest.raises(ValueError, match="is not convex"):
        surrogates.get(name, 2).expression(Y, cp.Variable(5))

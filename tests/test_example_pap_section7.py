"""The helpers of examples/pap_section7.py (Hiranandani et al. 2020 Sections 7.1-7.2): the AUC@k
metric against a brute-force enumeration, the margin-condition data, the Table 2 counts, and the
LP deciding when the zero model is the exact minimizer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from conftest import load_example, tiny_instance
from cvxtop import TopRanker

ex = load_example("pap_section7")


def brute_auc_at_k(y: np.ndarray, s: np.ndarray, k: int) -> float:
    """Enumerate the k-subsets that can be the top k (no item outside scores higher than
    one inside), keep those with the fewest relevant items (ties against the ranker), and
    return the fraction of their (relevant, irrelevant) pairs strictly ordered right."""
    valid = [S for S in itertools.combinations(range(len(y)), k)
             if s[list(S)].min() >= np.delete(s, list(S)).max(initial=-np.inf)]
    fewest = min(valid, key=lambda S: y[list(S)].sum())
    yt, st = y[list(fewest)], s[list(fewest)]
    pos, neg = st[yt == 1], st[yt == 0]
    if len(neg) == 0:
        return 1.0
    if len(pos) == 0:
        return 0.0
    return float(np.mean([p > q for p in pos for q in neg]))


@pytest.mark.parametrize("ties", [False, True])
def test_auc_at_k_matches_brute_force(rng, ties):
    for _ in range(300):
        y, s = tiny_instance(rng, max_pos=4, max_neg=4, ties=ties)
        for k in range(1, len(y) + 1):
            assert ex.auc_at_k(y, s, k) == pytest.approx(brute_auc_at_k(y, s, k), abs=1e-12)


def test_auc_at_k_all_or_no_relevant_items_on_top():
    y = np.array([1, 1, 0, 0])
    assert ex.auc_at_k(y, np.array([4.0, 3.0, 2.0, 1.0]), 2) == 1.0
    assert ex.auc_at_k(y, np.array([1.0, 2.0, 3.0, 4.0]), 2) == 0.0
    # a tie at the cut goes to the irrelevant item, then counts as a misordered pair
    assert ex.auc_at_k(y, np.array([3.0, 2.0, 2.0, 0.0]), 2) == 1.0
    assert ex.auc_at_k(y, np.array([2.0, 3.0, 2.0, 0.0]), 3) == 0.5


@pytest.mark.parametrize("condition, expected", [
    ("strong", {"strong": True, "β": True, "moderate": True}),
    ("β", {"strong": False, "β": True, "moderate": False}),
    ("moderate", {"strong": False, "β": False, "moderate": True}),
])
def test_margin_data_realizes_exactly_its_condition(condition, expected):
    X, y = ex.margin_data(condition, np.random.default_rng(7))
    assert X.shape == (ex.N_POS72 + ex.N_NEG72, ex.D)
    assert int(y.sum()) == ex.N_POS72
    assert ex.holds(ex.margins(X, y)) == expected


def test_conditioned_gaussian_respects_bounds_and_keeps_the_other_directions():
    rng = np.random.default_rng(3)
    mean = np.array([0.5, -1.0, 2.0, 0.0, 1.0])
    X = ex.conditioned_gaussian(rng, mean, 20000, low=1.0, high=2.0)
    f = X @ ex.REALIZER
    assert f.min() >= 1.0 and f.max() <= 2.0
    e = ex.REALIZER / np.linalg.norm(ex.REALIZER)
    rest = X - np.outer(X @ e, e)
    # orthogonal to e the draws keep the Gaussian's mean and unit variance
    assert np.allclose(rest.mean(axis=0), mean - (mean @ e) * e, atol=0.05)
    assert np.allclose(np.linalg.svd(rest - rest.mean(axis=0), compute_uv=False)[:4] ** 2
                       / len(X), 1.0, atol=0.05)


def _result(prec: list[list[float]], auc: list[list[float]]) -> ex.CaseResult:
    runs = len(prec)
    values = {(split, name): np.zeros((runs, len(ex.METHODS)))
              for split in ex.SPLITS for name in ex.METRICS}
    values["train", "prec@k"][:, :2] = prec
    values["train", "AUC@k"][:, :2] = auc
    shape = (runs, len(ex.METHODS))
    return ex.CaseResult(ex.CASES[0], values, np.zeros(shape), np.zeros(shape),
                         np.zeros(shape, bool), np.zeros(shape, bool))


def test_head_to_head_counts_table2_columns():
    a, b = ex.LABELS[0], ex.LABELS[1]
    res = _result(prec=[[0.5, 0.4], [0.3, 0.4], [0.4, 0.4], [0.2, 0.2], [0.1, 0.1]],
                  auc=[[0.9, 0.1], [0.1, 0.9], [0.8, 0.6], [0.5, 0.7], [0.3, 0.3]])
    side_a, side_b, both_tied = ex.head_to_head(res, "train", a, b)
    assert (side_a.prec_wins, side_b.prec_wins) == (1, 1)
    assert side_a.auc[2] == side_b.auc[2] == 3  # runs with the same prec@k
    assert side_a.auc[0] == pytest.approx((0.8 + 0.5 + 0.3) / 3)
    assert side_b.auc[0] == pytest.approx((0.6 + 0.7 + 0.3) / 3)
    assert (side_a.auc_wins, side_b.auc_wins, both_tied) == (1, 1, 1)
    assert side_a.prec == pytest.approx((0.3, np.std([0.5, 0.3, 0.4, 0.2, 0.1]), 5))


@pytest.mark.parametrize("surrogate", ["pap@k-avg", "pap@k-ts", "prec@k-avg"])
def test_zero_model_lp_agrees_with_the_exact_solvers(surrogate):
    case = ex.CASES[1]  # n₊ = 20, k = 10: prec@k-avg uses the same cut-off
    verdicts = []
    for run in range(4, 8):
        X, y = ex.case_sample(np.random.default_rng([2020, case.k, run]), case)
        zero = ex.zero_is_optimal(X, y, case.k)
        verdicts.append(zero)
        for C in (1.0, 100.0):
            model = TopRanker(surrogate, k=case.k, C=C).fit(X, y)
            assert (np.linalg.norm(model.coef_) <= ex.ZERO_MODEL) == zero
    assert any(verdicts) and not all(verdicts)


def test_figure_1c_ts_optimum_leaves_the_ramp_far_from_zero():
    """Hiranandani et al. 2020 §7.2 reads Figure 1 (c) as "the ramp and TS surrogates converge to
    zero" when TS is minimized on moderate-margin data. For TS as eq. (14) defines it, the certified
    regularized minimizer has TS = 0 and pAp@k risk 0 with the ramp far from 0: TS asks for
    margin 1 only on aggregate (docs/findings.md §3, ramp <= TS fails)."""
    X, y = ex.margin_data("moderate", np.random.default_rng(11))
    model = TopRanker("pap@k-ts", k=ex.K72, C=10.0, engine="cutting-plane").fit(X, y)
    s = X @ model.coef_
    values = {label: ex.surrogates.get(name, ex.K72).value(y, s)
              for label, name in ex.CURVES.items()}
    assert model.gap_ <= 1e-6
    assert values["TS"] <= 1e-3
    assert ex.metrics.pap_at_k(y, s, ex.K72) == 1.0
    assert values["ramp"] >= 0.5

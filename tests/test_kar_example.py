"""examples/kar_section6.py (Kar et al. 2015 Section 6 on the letter data) on a tiny configuration.

The example's core functions run end to end here, so that it cannot rot; its zero-model
criterion is checked against certified exact fits, and its scan against two letters whose
outcome is known (A: a proper ranker; B: the zero model).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

from conftest import load_example
from cvxtop import TopRanker

@pytest.fixture(scope="module")
def kar():
    yield load_example("kar_section6")
    del sys.modules["kar_section6"]


@pytest.fixture(scope="module")
def tiny(kar):
    return kar.Config(letters=("A", "B"), seeds=(0,), epochs=(1, 2), kappas=(0.25, 1.0),
                      batch_sizes=(250, 500), scan_letters=("A", "B"), scan_seeds=(0,))


def test_run_writes_the_plots_and_the_report(kar, tiny, tmp_path):
    text = kar.run(tiny, tmp_path, "test")
    for name in ("figure2.png", "figure3ab.png", "figure3ce.png", "zero_scan.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "kar_section6.md").read_text() == text
    for heading in ("## 1. Figure 2", "## 2. Figure 3 (a)-(b)", "## 3. Figure 3 (c)-(e)",
                    "## 4. Is the exact prec@k-avg optimum the zero model?",
                    "## Against the paper's claims"):
        assert heading in text
    # every method appears in the Figure 2 table of both letters and in the consistency table
    for method in kar.METHODS:
        assert text.count(f"| {method} |") >= 5


def test_scan_finds_the_zero_model_on_b_and_not_on_a(kar, tiny):
    rows = {r.letter: r for r in kar.zero_scan(tiny)}
    assert (rows["A"].hulls_meet, rows["A"].fit_says_zero) == (False, False)
    assert (rows["B"].hulls_meet, rows["B"].fit_says_zero) == (True, True)
    assert rows["B"].exact.objective_ratio == pytest.approx(1.0, abs=1e-5)
    assert rows["A"].exact.objective_ratio < 0.9
    # at w = 0 every test score ties: the pessimistic tie rule gives prec 0
    assert rows["B"].fits["exact avg"].precision == 0.0
    assert rows["A"].fits["exact avg"].precision > 0.9
    # the max surrogate's optimum is w = 0 even on A (its hull condition is weaker)
    assert rows["A"].exact_max.zero_within_radius and rows["B"].exact_max.zero_within_radius


def test_zero_criterion_agrees_with_certified_exact_fits(kar):
    rng = np.random.default_rng(11)
    outcomes = set()
    for _ in range(12):
        n_pos, n_neg, d = int(rng.integers(3, 8)), int(rng.integers(6, 14)), int(rng.integers(1, 4))
        X = np.vstack([rng.standard_normal((n_pos, d)) + rng.uniform(0.0, 2.5),
                       rng.standard_normal((n_neg, d))])
        y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)]
        k = int(rng.integers(1, min(n_pos, n_neg) + 1))
        zero = kar.avg_optimum_is_zero(X, y, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model = TopRanker("prec@k-avg", k=k, C=2.0).fit(X, y)
        # the avg surrogate is k at w = 0; the certified relative gap is 1e-6
        assert (model.objective_ >= 2.0 * k * (1 - 1e-5)) == zero
        outcomes.add(zero)
    assert outcomes == {True, False}


def test_split_is_stratified_standardized_and_read_only(kar):
    X_tr, X_te, y_tr, y_te = kar.letter_split("C", 3)
    assert len(y_tr) == 14000 and len(y_te) == 6000
    assert abs(y_tr.mean() - y_te.mean()) < 1e-3
    np.testing.assert_allclose(X_tr.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(X_tr.std(axis=0), 1.0, atol=1e-10)
    assert not X_tr.flags.writeable
    assert kar.letter_split("C", 3)[0] is X_tr  # memoized


def test_cutoff_is_ceil_of_kappa_times_the_relevant_count(kar):
    y = np.r_[np.ones(541, dtype=np.int64), np.zeros(10, dtype=np.int64)]
    assert [kar.cutoff(kappa, y) for kappa in (0.1, 0.25, 0.5, 1.0)] == [55, 136, 271, 541]


def test_settings_a_method_ignores_share_one_fit(kar):
    exact = kar.evaluate("exact avg", "A", 0)
    assert kar.evaluate("exact avg", "A", 0, batch_size=100, epochs=3) is exact
    assert kar.evaluate("1PMB", "A", 0, epochs=7) is kar.evaluate("1PMB", "A", 0)
    assert kar.evaluate("SGD@k-avg", "A", 0, epochs=1) is not \
        kar.evaluate("SGD@k-avg", "A", 0, epochs=2)
    assert exact.radius is not None and kar.evaluate("1PMB", "A", 0).radius is None


def test_relative_variation(kar):
    def point(mean: float):
        return kar.Point(seconds=0.0, mean=mean, std=0.0, worst=mean)

    assert kar.relative_variation([point(0.5), point(1.0), point(0.75)]) == pytest.approx(0.5)
    assert kar.relative_variation([point(0.9), point(0.9)]) == 0.0
    assert kar.relative_variation([point(0.0), point(0.0)]) == 0.0

"""prec@k-svmperf's loss restricted to its highest sizes as one program
(cvxtop.solvers.size_program): the cut of any multipliers is valid at every score vector,
checked against the brute-force enumeration of SVMperf's loss with ties; where the
restriction holds every size and item, the program's answer is the optimum; and the
cutting plane takes it where its gap stalls, on lists with more items than features."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from cvxtop import TopRanker, reference, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data, make_sparse_ranking_data
from cvxtop.solvers import count_dual, cutting_plane, size_dual, size_program
from cvxtop.solvers.objective import RankingObjective
from conftest import svmperf_intercepts_off
from svmperf_tiny import tiny

DATA = Path(__file__).resolve().parents[1] / "data"


def objective_of(X: np.ndarray, y: np.ndarray, k: int, C: float = 1.0) -> RankingObjective:
    return RankingObjective(X, y, surrogates.get("prec@k-svmperf", k), C)


def scores_with_ties(rng: np.random.Generator, n: int, trial: int) -> np.ndarray:
    return rng.standard_normal(n) if trial % 2 else rng.integers(-2, 3, n) / 2.0


@pytest.mark.parametrize("seed", range(60))
def test_the_cut_of_any_multipliers_is_valid(seed, monkeypatch):
    """Random pieces at random scores (ties included) and random multipliers, negative,
    above their bounds and of any scale, as a solver's inaccurate answer could leave them,
    mixed with a given cut: ``L(s) >= intercept + g·s`` everywhere for the sizes' part and
    for the whole combination."""
    rng = np.random.default_rng(seed)
    X, y, k = tiny(seed)
    n = len(y)
    monkeypatch.setattr(size_program, "BAND", int(rng.integers(1, n + 1)))
    objective = objective_of(X, y, k)
    sizes = np.unique(rng.integers(k, n + 1, size=int(rng.integers(1, 4))))
    pieces = size_program._pieces(scores_with_ties(rng, n, seed), y.astype(float), k, sizes)
    lam = np.array([float(rng.choice([-1.0, 0.0, 1e-9, rng.random(), 10 * rng.random()]))
                    for _ in pieces])
    # a valid cut to mix in: the subgradient cut of the loss at random scores
    at = scores_with_ties(rng, n, seed + 1)
    loss, subgradient = objective.loss_and_score_gradient(at)
    given = (subgradient, loss - float(subgradient @ at))
    lam, alpha = size_program._on_simplex(lam, np.array([rng.random() * 2]))
    assert lam.sum() + alpha.sum() <= 1.0 + 1e-12 and np.all(lam >= 0) and np.all(alpha >= 0)
    hinges = [rng.standard_normal(len(p.free)) * rng.choice([1e-3, 1.0, 1e3])
              for p in pieces]
    g, intercept = size_dual.combination(pieces, lam, hinges, y.astype(float), k)
    g_all, b_all = g + alpha[0] * given[0], intercept + alpha[0] * given[1]
    for trial in range(20):
        s = scores_with_ties(rng, n, trial)
        loss_s = reference.prec_svmperf(y, s, k)
        assert loss_s >= intercept + float(g @ s) - 1e-9
        assert loss_s >= b_all + float(g_all @ s) - 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_the_restricted_pieces_are_labelings_of_their_size(seed):
    """Each size's items fixed at one and free make room for exactly its size, and the
    fixed ones rank above the free ones at the scores they were chosen at."""
    rng = np.random.default_rng(seed)
    _, y, k = tiny(seed)
    s = scores_with_ties(rng, len(y), seed)
    for p in size_program._pieces(s, y.astype(float), k, np.arange(k, len(y) + 1)):
        assert len(p.at_one) <= p.size <= len(p.at_one) + len(p.free)
        assert len(np.intersect1d(p.at_one, p.free)) == 0
        if len(p.at_one) and len(p.free):
            augmented = s + p.c
            assert augmented[p.at_one].min() >= augmented[p.free].max()


@pytest.mark.parametrize("seed", range(8))
def test_the_unrestricted_program_is_the_optimum(seed, monkeypatch):
    """With every size and every item free the program is the whole problem: its answer's
    objective is the direct engine's optimum, and its multipliers' cut bounds the loss
    everywhere and the optimum from below within the solver's accuracy; sparse features
    (odd seeds) give the same."""
    X, y, k = tiny(seed)
    n = len(y)
    C = [0.1, 1.0, 10.0, 100.0][seed % 4]
    monkeypatch.setattr(size_program, "BAND", n)
    monkeypatch.setattr(size_program, "_sizes", lambda objective, scores: np.arange(k, n + 1))
    objective = objective_of(sp.csr_matrix(X) if seed % 2 else X, y, k, C)
    direct = TopRanker("prec@k-svmperf", k=k, C=C, engine="direct").fit(X, y)
    answer = size_program.restricted_answer(objective, np.zeros(n), np.zeros((0, X.shape[1])),
                                            np.zeros(0), 1e2)
    assert answer is not None
    w = answer.weights
    value = 0.5 * float(w @ w) + C * reference.prec_svmperf(y, X @ w, k)
    assert value == pytest.approx(direct.objective_, rel=1e-6, abs=1e-9)
    h = X.T @ answer.g
    dual_value = C * answer.intercept - 0.5 * C * C * float(h @ h)
    assert dual_value <= direct.objective_ + 1e-9 * max(1.0, abs(direct.objective_))
    assert dual_value == pytest.approx(direct.objective_, rel=1e-5, abs=1e-8)
    rng = np.random.default_rng(seed)
    for trial in range(10):
        s = scores_with_ties(rng, n, trial)
        assert reference.prec_svmperf(y, s, k) >= answer.intercept + float(answer.g @ s) - 1e-12


def test_the_program_is_tried_on_tall_lists_of_prec_at_k_svmperf_only():
    X, y = make_ranking_data(500, 10, random_state=0)
    assert size_program.suits(objective_of(X, y, 5))
    assert not size_program.suits(objective_of(X, y, 5, C=0.0))
    for other in ("prec@k-struct", "prec@k-avg", "pap@k-avg"):
        assert not size_program.suits(RankingObjective(X, y, surrogates.get(other, 5), 1.0))
    wide_X, wide_y = make_sparse_ranking_data(200, 2000, density=0.01, random_state=0)
    wide = objective_of(wide_X, wide_y, 5)
    assert not size_program.suits(wide) and size_dual.suits(wide)
    X, y = make_ranking_data(2000, count_dual.MIN_FEATURES, random_state=0)
    assert not size_program.suits(objective_of(X, y, 5))  # the solve over counts takes it


def test_a_stalled_fit_on_features_as_shipped_is_certified_through_the_program(monkeypatch):
    """3,000 rows of MAGIC as shipped, prec@1, C = 1e4: the optimum mixes dozens of
    labeling sizes and the rounds' bound crept (they ended at max_iter without the program)
    with the cuts' intercepts ``L(s) − g·s``; read off the labelings' counts, as shipped,
    the rounds certify alone (444 rounds), so the program is exercised with the former.
    With the defaults the fit certifies whichever way the rounds go: by the program's cut,
    or, where a CPU's rounding lets the best point rest for the hand-over's rounds first, by
    the hand-over to a smaller C (both seen, on two machines). Without the hand-over the
    program's cut certifies it on any CPU; 700 rounds alone give bounds consistent with
    both."""
    X, y = load_paper_dataset("magic", DATA)
    take = np.random.default_rng(0).choice(len(y), 3000, replace=False)
    X, y = X[take], y[take]
    shipped = TopRanker("prec@k-svmperf", k=1, C=1e4).fit(X, y)
    assert shipped.status_ == "optimal" and shipped.gap_ <= 1e-6
    svmperf_intercepts_off(monkeypatch)
    fit = TopRanker("prec@k-svmperf", k=1, C=1e4).fit(X, y)
    assert fit.status_ == "optimal" and fit.gap_ <= 1e-6
    monkeypatch.setattr(cutting_plane, "CONTINUATION_LEVELS", 0)
    through = TopRanker("prec@k-svmperf", k=1, C=1e4).fit(X, y)
    assert through.status_ == "optimal" and through.gap_ <= 1e-6
    assert through.solve_stats_["direct_solve_seconds"] > 0
    monkeypatch.setattr(size_program, "REPEATS", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the warning of an uncertified end)
        alone = TopRanker("prec@k-svmperf", k=1, C=1e4, max_iter=700,
                          accept_inaccurate=True).fit(X, y)
    assert "direct_solve_seconds" not in alone.solve_stats_
    for a, b in ((alone, through), (through, alone), (fit, through), (through, fit),
                 (shipped, through), (through, shipped)):
        assert a.lower_bound_ <= b.objective_ + 1e-12 * abs(b.objective_)

"""The zero model's certificate for prec@k-avg and -max (cvxtop.solvers.zero_model): the
projection onto a capped simplex is the Euclidean one, the cut's point lies on the zero
model's face of the selection LP's polytope and is valid at every score vector (ties
included), it certifies the zero model where that is optimal at any C, and gives nothing
where it is not; the cutting plane then certifies a zero-model optimum at a large C by its
first dual round."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from cvxtop import TopRanker, surrogates
from cvxtop.solvers import cutting_plane as cutting
from cvxtop.solvers import zero_model
from cvxtop.solvers.objective import RankingObjective
from cvxtop.solvers.selection_dual import SelectionDual
from cvxtop.solvers.zero_model import onto_capped_simplex, zero_model_cut

NAMES = ["prec@k-avg", "prec@k-max"]


def zero_optimal(seed: int, n_pos: int = 12, extra: int = 30, d: int = 40):
    """Irrelevant items that repeat every relevant one, and others: the relevant points'
    mean is a point of the irrelevant ones' reduced hull, so ``w = 0`` is optimal at every C
    (docs/prec-at-k.md, "When the optimum is the zero model")."""
    rng = np.random.default_rng(seed)
    relevant = rng.standard_normal((n_pos, d))
    X = np.vstack([relevant, relevant[rng.permutation(n_pos)],
                   rng.standard_normal((extra, d)) * rng.uniform(0.5, 2.0)])
    y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_pos + extra, dtype=np.int64)]
    order = rng.permutation(len(y))
    return X[order], y[order]


@pytest.fixture
def residuals(monkeypatch) -> list[int]:
    """A list that grows by one with every product ``h = X₋ᵀu − X₊ᵀv`` of the face's solve:
    its work."""
    calls: list[int] = []
    original = zero_model._Face.residual

    def counted(self, u, v):
        calls.append(1)
        return original(self, u, v)

    monkeypatch.setattr(zero_model._Face, "residual", counted)
    return calls


@pytest.mark.parametrize("seed", range(30))
def test_the_projection_onto_a_capped_simplex_is_euclidean(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    x = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e3])
    if seed % 3 == 0:  # ties
        x = np.round(x, 0)
    cap = float(rng.choice([1.0, 0.25, 3.0]))
    total = float(rng.uniform(0.0, cap * n))
    p, theta = onto_capped_simplex(x, cap, total, start=float(rng.standard_normal()))
    q = cp.Variable(n)
    cp.Problem(cp.Minimize(cp.sum_squares(q - x)),
               [q >= 0, q <= cap, cp.sum(q) == total]).solve(solver="CLARABEL")
    scale = max(1.0, float(np.abs(x).max()))
    assert p.min() >= 0.0 and p.max() <= cap
    assert p.sum() == pytest.approx(total, rel=1e-12, abs=1e-12 * scale)
    assert np.allclose(p, q.value, atol=1e-6 * scale)
    assert np.allclose(p, np.clip(x - theta, 0.0, cap), atol=1e-12 * scale)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("sparse", [False, True])
def test_the_cut_lies_on_the_face_is_valid_and_certifies_the_zero_model(name, seed, sparse):
    X, y = zero_optimal(seed)
    C = [1.0, 1e3, 1e6][seed % 3]
    objective = RankingObjective(sp.csr_matrix(X) if sparse else X, y,
                                 surrogates.get(name, 0.5), C)
    cut = zero_model_cut(objective, 1e-8)
    assert cut is not None
    dual = SelectionDual(X, y, objective.ks[0], C, objective.surrogate)
    u, v = cut.g[dual.neg], -cut.g[dual.pos]
    zero_loss = objective.loss_and_score_gradient(np.zeros(len(y)))[0]
    # a point of the face: every sum L(0), u in [0, 1], v under the cap there
    assert u.min() >= 0 and u.max() <= 1 and v.min() >= 0
    assert v.max() <= dual.cap(u.sum()) + 1e-12
    assert u.sum() == pytest.approx(v.sum(), rel=1e-12)
    assert cut.intercept == pytest.approx(zero_loss, rel=1e-12)
    # valid: L(s) >= b + g·s at random scores, ties included
    rng = np.random.default_rng(seed)
    surrogate = objective.surrogate
    for _ in range(40):
        s = rng.standard_normal(len(y)) * rng.choice([0.01, 1.0, 10.0])
        if rng.random() < 0.5:
            s = np.round(s, 0)
        assert surrogate.value(y, s) >= cut.intercept + cut.g @ s - 1e-9 * (1 + np.abs(s).sum())
    # it bounds the optimum within 1e-8 of the zero model's objective
    assert C * zero_loss - cut.dual_value(C) <= 1e-8 * C * zero_loss


@pytest.mark.parametrize("name", NAMES)
def test_no_cut_where_the_zero_model_is_not_optimal(name):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 40))
    y = (X[:, 0] > 0.5).astype(np.int64)  # the first feature separates the classes
    objective = RankingObjective(X, y, surrogates.get(name, 0.5), 10.0)
    assert zero_model_cut(objective, 1e-6) is None


def test_groups_and_other_surrogates_get_no_cut():
    X, y = zero_optimal(0)
    for name, groups in [("prec@k-struct", None), ("pap@k-avg", None),
                         ("prec@k-avg", np.arange(len(y)) % 2)]:
        k = 3 if name.startswith("pap") else 0.5
        objective = RankingObjective(X, y, surrogates.get(name, k), 1.0, groups=groups)
        assert zero_model_cut(objective, 1e-6) is None


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("C", [1e2, 1e4, 1e8])
def test_a_zero_model_optimum_is_certified_at_the_first_dual_round(name, C):
    X, y = zero_optimal(11, n_pos=40, extra=200, d=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the fit is the zero model
        model = TopRanker(name, k=0.5, C=C).fit(X, y)
    zero_value = C * surrogates.get(name, 0.5).value(y, np.zeros(len(y)))
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert model.objective_ == pytest.approx(zero_value, rel=1e-6)
    # w = 0 is the optimum, so ½‖w‖² <= F(w) − F(0), which the certified gap bounds
    coef = model.coef_
    assert 0.5 * float(coef @ coef) <= model.gap_ * model.objective_
    assert model.n_iter_ <= min(cutting.DUAL_SOLVE_ROUNDS)


def test_where_the_zero_model_is_not_optimal_a_proven_floor_ends_the_solve(residuals):
    # the face's least ‖h‖² is positive: a lower bound above what the aim allows ends the
    # steps well before their budget, the bound is below the least ‖h‖² (an independent
    # cvxpy program over the face), and a second try on the same objective does no work
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 50))
    y = (X[:, 0] > 0.6).astype(np.int64)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.5), 1.0)
    assert zero_model_cut(objective, 1e-6) is None
    assert 0 < len(residuals) < zero_model.MAX_STEPS
    dual = SelectionDual(X, y, objective.ks[0], 1.0, objective.surrogate)
    total = objective.loss_and_score_gradient(np.zeros(len(y)))[0]
    u, v = cp.Variable(len(dual.neg)), cp.Variable(len(dual.pos))
    least = cp.Problem(cp.Minimize(cp.sum_squares(X[dual.neg].T @ u - X[dual.pos].T @ v)),
                       [u >= 0, u <= 1, cp.sum(u) == total, v >= 0,
                        v <= dual.cap(total), cp.sum(v) == total])
    least.solve(solver="CLARABEL")
    assert 1e-6 * total < objective.zero_face_floor <= least.value * (1 + 1e-6) + 1e-9
    residuals.clear()
    assert zero_model_cut(objective, 1e-6) is None
    assert not residuals


def test_a_try_given_up_is_not_repeated_at_an_aim_no_looser(monkeypatch, residuals):
    X, y = zero_optimal(5)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.5), 1e6)
    monkeypatch.setattr(zero_model, "REACH_STEPS", 1)  # give up at the first pace check
    assert zero_model_cut(objective, 1e-8) is None
    assert residuals and objective.zero_face_missed > 0
    residuals.clear()
    assert zero_model_cut(objective, 1e-9) is None  # a tighter aim: not tried
    assert not residuals
    monkeypatch.setattr(zero_model, "REACH_STEPS", 10 ** 6)
    assert zero_model_cut(objective, 1e-6) is not None  # a looser one is
    assert residuals


def test_a_zero_model_optimum_is_certified_at_the_first_dual_round_with_a_positive_bound():
    """On ``make_ranking_data(3,000, 100)`` prec@k-max at C = 1,000 the zero model is optimal,
    and at the first dual round (50) the bound is still below zero: the solve over the items
    fails there (every item is tied) and the zero model's certificate is not asked for
    (:mod:`cvxtop.solvers.cutting_plane`). The rounds did not try either again until the
    best point moved, which it never does: 501 rounds. The certificate is asked for at the
    next dual round, whose bound is positive."""
    from cvxtop.datasets import make_ranking_data

    X, y = make_ranking_data(3000, 100, noise=0.3, random_state=0)
    objective = RankingObjective(X, y, surrogates.get("prec@k-max", 0.25), 1e3)
    bounds: list[float] = []
    result = cutting.solve_cutting_plane(objective, tol=1e-6,
                                         callback=lambda it, upper, lower: bounds.append(lower))
    assert result.status == "optimal" and not result.coef.any()
    assert bounds[min(cutting.DUAL_SOLVE_ROUNDS) - 1] <= 0.0
    assert result.n_iter in cutting.DUAL_SOLVE_ROUNDS

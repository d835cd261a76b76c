"""The problems of Jain et al. 2015 against brute-force enumeration of their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cvxtop.reference import predtron as brute
from cvxtop.predtron import (Binary, FiniteProblem, Multiclass, Multilabel,
                             MultilabelRanking, Ordinal, SubsetRanking)

PROBLEMS = [
    Binary(),
    Binary(costs=(0.4, 1.5)),
    Binary(reject_costs=(0.3, 0.45)),
    Binary(costs=(2.0, 1.0), reject_costs=(0.5, 0.25)),
    Multiclass(4),
    Multiclass(3, reject_cost=0.4),
    Multiclass(3, reject_cost=[0.2, 0.5, 0.9]),
    Ordinal(5),
    Multilabel(4, loss="hamming"),
    Multilabel(4, loss="subset_01"),
    Multilabel(4, loss="error_set_size"),
    Multilabel(5, loss="error_set_size"),
    Multilabel(1, loss="subset_01"),
    SubsetRanking(4),
    SubsetRanking(5, f=lambda i: 1.0 / i),
    SubsetRanking(4, f=lambda i: -float(i) ** 2),
    SubsetRanking(3, f=[3.0, 0.5, -2.0]),
    MultilabelRanking(4),
]


def random_label(problem, rng):
    if isinstance(problem, FiniteProblem):
        return int(rng.integers(problem.n_labels))
    if isinstance(problem, Multilabel):
        return rng.integers(0, 2, size=problem.m)
    return rng.integers(0, 3, size=problem.m).astype(float)  # grades with ties


def random_scores(problem, rng, ties):
    if ties:  # a coarse grid: equal scores are common, t = 0 included
        return rng.integers(-2, 3, size=problem.dim) / 2.0
    return rng.standard_normal(problem.dim)


def cases(problem, seed, n=60):
    rng = np.random.default_rng(seed)
    for i in range(n):
        yield random_scores(problem, rng, ties=i % 2 == 1), random_label(problem, rng)


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_psi_equals_brute_force(problem):
    for t, y in cases(problem, 1):
        value, sigma = problem.psi(t, y)
        assert value == pytest.approx(brute.psi(problem, t, y), abs=1e-9)
        # the returned prediction attains the maximum of eq. (2)
        rep_y, _ = brute.rep_loss(problem, brute.sigma_y(problem, y), y)
        rep, loss = brute.rep_loss(problem, sigma, y)
        assert loss - (rep_y - rep) @ t == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_loss_rep_and_decoding_match_definitions(problem):
    rng = np.random.default_rng(2)
    for sigma in brute.predictions(problem):
        y = random_label(problem, rng)
        rep, loss = brute.rep_loss(problem, sigma, y)
        np.testing.assert_allclose(problem.rep(sigma), rep, atol=1e-12)
        assert np.linalg.norm(problem.rep(sigma)) == pytest.approx(1.0)
        assert problem.loss(sigma, y) == pytest.approx(loss, abs=1e-12)
        # pred(rep(σ)) = σ (Jain et al. 2015 Section 2.1)
        np.testing.assert_array_equal(problem.pred(problem.rep(sigma)), sigma)
    for t, y in cases(problem, 3):
        sims = [sim for *_, sim in brute.table(problem, t, y)]
        chosen = problem.rep(problem.pred(t)) @ t
        assert chosen == pytest.approx(max(sims), abs=1e-12)


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_worst_loss_is_the_pessimistic_tie_break(problem):
    for t, y in cases(problem, 4):
        worst = problem.worst_loss(t, y)
        assert worst == pytest.approx(brute.worst_loss(problem, t, y), abs=1e-12)
        assert worst >= problem.loss(problem.pred(t), y) - 1e-12
        # ψ is non-negative and bounds the loss of every maximizer of eq. (1)
        assert problem.psi(t, y)[0] >= worst - 1e-12 >= -1e-12


def compatible_score(problem, y):
    """A score whose maximizers in eq. (1) are the correct predictions, when one exists:
    rep(σ_y), or for rankings the grades themselves (equal on ties of y)."""
    if isinstance(problem, SubsetRanking):
        return 1.3 * y - 0.2
    return problem.rep(problem.correct_prediction(y))


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_margin_equals_brute_force(problem):
    checked = 0
    for t, y in cases(problem, 6, n=40):
        # also scores with a margin, exactly and after a perturbation
        good = compatible_score(problem, y)
        for score in (t, good, 1.7 * good + 0.01 * t):
            expected = brute.margin(problem, score, y)
            got = problem.margin(score, y)
            if math.isinf(expected):
                assert math.isinf(got)
            else:
                assert got == pytest.approx(expected, abs=1e-9)
            checked += expected > 0
    if not (isinstance(problem, Multilabel) and problem.loss_name == "error_set_size"):
        assert checked > 0


def test_multiclass_psi_is_the_multiclass_hinge():
    rng = np.random.default_rng(7)
    for m in (2, 3, 6):
        problem = Multiclass(m)
        for _ in range(200):
            t = rng.standard_normal(m) * rng.choice([0.1, 1, 5])
            y = int(rng.integers(m))
            hinge = max(0.0, 1 + max(t[j] for j in range(m) if j != y) - t[y])
            assert problem.psi(t, y)[0] == pytest.approx(hinge, abs=1e-12)


def test_binary_margin_is_twice_the_classical_margin():
    problem = Binary()
    for t in (-2.5, -0.1, 0.3, 4.0):
        y = int(t > 0)
        assert problem.margin([t], y) == pytest.approx(2 * abs(t))
        assert problem.margin([t], 1 - y) == 0.0
    assert problem.margin([0.0], 1) == 0.0


def test_binary_labels_accept_plus_minus_one_and_booleans():
    problem = Binary(costs=(0.5, 2.0))
    assert problem.loss(1, -1) == 0.5 and problem.loss(0, True) == 2.0
    np.testing.assert_array_equal(problem.check_labels([-1, 1, 1]), [0, 1, 1])


def test_error_set_size_admits_no_margin_except_for_trivial_labels():
    # Σ_y = {σ ⊆ y} ∪ {σ ⊇ y} is never the product set of the maximizers of eq. (1) unless
    # y is empty or full: the margin notion of Section 2.2 is empty for this loss.
    problem = Multilabel(3, loss="error_set_size")
    for y in ([1, 0, 0], [1, 1, 0]):
        assert problem.margin(problem.rep(y), y) == 0.0
        assert brute.margin(problem, problem.rep(y), np.array(y)) == 0.0
    assert math.isinf(problem.margin(np.zeros(3), [0, 0, 0]))
    assert problem.margin([0.1, 0, 0], [1, 1, 1]) == 0.0


def test_finite_problem_from_matrices():
    # A three-class problem with an asymmetric loss and a custom unit representation.
    rep = np.array([[1.0, 0.0], [0.0, 1.0], [-math.sqrt(0.5), -math.sqrt(0.5)]])
    loss = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [0.5, 0.5, 0.0]])
    problem = FiniteProblem(rep, loss)
    rng = np.random.default_rng(8)
    for _ in range(100):
        t = rng.standard_normal(2)
        y = int(rng.integers(3))
        sims = rep @ t
        expected = max(loss[s, y] - (rep[y] - rep[s]) @ t for s in range(3))
        assert problem.psi(t, y)[0] == pytest.approx(expected)
        assert problem.pred(t) == int(np.argmax(sims))


@pytest.mark.parametrize("factory, message", [
    (lambda: Multiclass(1), "m must satisfy"),
    (lambda: Multiclass(3.0), "m must be an integer"),
    (lambda: Multiclass(3, reject_cost=0.0), "reject_cost must be a finite number > 0"),
    (lambda: Multiclass(3, reject_cost=[1, 2]), "reject_cost must have 3 entries"),
    (lambda: Multiclass(3, reject_cost=[1, -2, 1]), "reject_cost must hold costs > 0"),
    (lambda: Binary(costs=(1.0, np.nan)), "costs contains NaN"),
    (lambda: Binary(reject_costs=-1), "reject_costs must be a finite number > 0"),
    (lambda: Ordinal(1), "levels must satisfy"),
    (lambda: Multilabel(3, loss="jaccard"), "loss must be one of"),
    (lambda: Multilabel(0), "m must satisfy"),
    (lambda: SubsetRanking(1), "m must satisfy"),
    (lambda: SubsetRanking(4, f=lambda i: float(i)), "f must be strictly decreasing"),
    (lambda: SubsetRanking(3, f=[1.0, 1.0, 0.0]), "f must be strictly decreasing"),
    (lambda: SubsetRanking(3, f=[1.0, 0.0]), "f must have 3 entries"),
    (lambda: SubsetRanking(3, f=lambda i: 1.0 / (i - 2)), "f could not be evaluated"),
    (lambda: FiniteProblem(np.eye(2) * 2, np.zeros((2, 2))), "unit norm"),
    (lambda: FiniteProblem(np.eye(2), np.ones((2, 2))), "needs a zero"),
    (lambda: FiniteProblem(np.eye(2), -np.eye(2)), "non-negative"),
    (lambda: FiniteProblem(np.eye(2), np.zeros((3, 2))), "one row per prediction"),
    (lambda: FiniteProblem([[1.0], [1.0]], np.zeros((2, 1))), "distinct"),
])
def test_bad_problem_parameters(factory, message):
    with pytest.raises((ValueError, TypeError), match=message):
        factory()


@pytest.mark.parametrize("problem, t, y, message", [
    (Multiclass(3), [1.0, 2.0], 0, "t must have 3 entries"),
    (Multiclass(3), [1.0, np.nan, 0.0], 0, "t contains NaN"),
    (Multiclass(3), [1.0, 2.0, 0.0], 3, r"y must hold class labels in 0\.\.2"),
    (Multiclass(3), [1.0, 2.0, 0.0], 1.5, "non-integer"),
    (Multiclass(3), "abc", 0, "t must be an array-like of numbers"),
    (Binary(), [0.5], 2, "binary labels"),
    (Multilabel(3), [1.0, 2.0, 0.0], [1, 0], r"y must have shape \(1, 3\)"),
    (Multilabel(3), [1.0, 2.0, 0.0], [1, 0, 2], "binary labels"),
    (SubsetRanking(3), [1.0, 2.0, 0.0], [1, -1, 0], "non-negative relevance grades"),
    (SubsetRanking(3), [[1.0, 2.0, 0.0]], [1, 0, 0], "t must be 1-dimensional"),
])
def test_bad_scores_and_labels(problem, t, y, message):
    with pytest.raises((ValueError, TypeError), match=message):
        problem.psi(t, y)


@pytest.mark.parametrize("problem, prediction, message", [
    (Multiclass(3), 3, "prediction must satisfy"),
    (Multiclass(3, reject_cost=0.5), -1, "prediction must satisfy"),
    (Multilabel(3), [1, 0], "0/1 vector of length 3"),
    (SubsetRanking(3), [1, 1, 2], "permutation of 1..m"),
    (SubsetRanking(3), [0, 1, 2], "permutation of 1..m"),
])
def test_bad_predictions(problem, prediction, message):
    label = np.zeros(problem.label_shape, dtype=int) if problem.label_shape else 0
    with pytest.raises(ValueError, match=message):
        problem.loss(prediction, label)

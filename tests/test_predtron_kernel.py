"""Kernel Predtron (Jain et al. 2015 Section 2.3, W = Σ g_i X_iᵀ)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cvxtop.predtron import (Binary, KernelPredtron, Multiclass, Multilabel,
                             MultilabelRanking, Predtron, SubsetRanking)


def data(problem, rng, n=40, p=4):
    if problem.input_kind == "matrix":
        Y = rng.integers(0, 3, size=(n, problem.m)).astype(float)
        X = rng.standard_normal((n, problem.m, p))
        X[:, :, 0] += Y
        return X, Y
    X = rng.standard_normal((n, p))
    if isinstance(problem, Binary):
        return X, (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    if isinstance(problem, Multiclass):
        return X, np.argmax(X[:, :problem.m] + 0.3 * rng.standard_normal((n, problem.m)), 1)
    if isinstance(problem, Multilabel):
        return X, (X[:, :problem.m] > 0).astype(int)
    return X, np.clip(np.round(X[:, :problem.m] + 1), 0, 2)


PROBLEMS = [Binary(), Multiclass(3), Multilabel(3, loss="subset_01"), SubsetRanking(4),
            MultilabelRanking(3)]


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_linear_kernel_is_predtron(problem):
    rng = np.random.default_rng(30)
    X, Y = data(problem, rng)
    primal = Predtron(problem, eta=0.7, epochs=3).fit(X, Y)
    kernel = KernelPredtron(problem, eta=0.7, epochs=3, kernel="linear").fit(X, Y)
    assert kernel.mistakes_ == primal.mistakes_ > 3
    np.testing.assert_allclose(kernel.decision_function(X), primal.decision_function(X),
                               atol=1e-10)
    # W = Σ g_i X_iᵀ: the support rows and coefficients rebuild the primal weights
    rebuilt = kernel.support_rows_.T @ kernel.dual_coef_
    expected = primal.coef_.T if problem.input_kind == "vector" else primal.coef_[:, None]
    np.testing.assert_allclose(rebuilt, expected, atol=1e-10)


def quadratic_features(X, gamma, coef0):
    """φ with <φ(a), φ(b)> = (γ a·b + c0)²."""
    pairs = [np.sqrt(2.0 if i != j else 1.0) * gamma * X[..., i] * X[..., j]
             for i, j in itertools.combinations_with_replacement(range(X.shape[-1]), 2)]
    linear = [np.sqrt(2 * gamma * coef0) * X[..., i] for i in range(X.shape[-1])]
    return np.stack(pairs + linear + [np.full(X.shape[:-1], coef0)], axis=-1)


@pytest.mark.parametrize("problem", [Multiclass(3), SubsetRanking(4)], ids=repr)
def test_polynomial_kernel_is_predtron_on_explicit_features(problem):
    rng = np.random.default_rng(31)
    X, Y = data(problem, rng, p=3)
    explicit = Predtron(problem, eta=0.4, epochs=3).fit(quadratic_features(X, 0.5, 1.5), Y)
    kernel = KernelPredtron(problem, eta=0.4, epochs=3, kernel="poly", degree=2, gamma=0.5,
                            coef0=1.5).fit(X, Y)
    assert kernel.mistakes_ == explicit.mistakes_ > 3
    np.testing.assert_allclose(kernel.decision_function(X),
                               explicit.decision_function(quadratic_features(X, 0.5, 1.5)),
                               atol=1e-9)


def test_rbf_kernel_separates_what_no_linear_model_can():
    rng = np.random.default_rng(32)
    X = rng.uniform(-1, 1, size=(120, 2))
    radius = np.linalg.norm(X, axis=1)
    keep = np.abs(radius - 0.6) > 0.1
    X, y = X[keep], (radius[keep] < 0.6).astype(int)  # a disc inside a ring
    rbf = KernelPredtron(Binary(), kernel="rbf", gamma=5.0, epochs=200).fit(X, y)
    assert rbf.n_iter_ < 200 and rbf.average_loss(X, y) == 0.0
    linear = Predtron(Binary(), epochs=200).fit(X, y)
    assert linear.n_iter_ == 200 and linear.average_loss(X, y) > 0.1


def test_callable_kernel_matches_the_named_one():
    rng = np.random.default_rng(33)
    X, Y = data(Multiclass(3), rng, n=30)
    named = KernelPredtron(Multiclass(3), kernel="rbf", gamma=0.3, epochs=2).fit(X, Y)
    own = KernelPredtron(Multiclass(3), kernel=lambda a, b: np.exp(-0.3 * np.sum((a - b) ** 2)),
                         epochs=2).fit(X, Y)
    assert own.mistakes_ == named.mistakes_
    np.testing.assert_allclose(own.decision_function(X), named.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"kernel": "gaussian"}, ValueError, "kernel must be a callable or one of"),
    ({"gamma": 0.0}, ValueError, "gamma must be a finite number > 0"),
    ({"degree": 0}, ValueError, "degree must satisfy"),
    ({"coef0": "1"}, TypeError, "coef0 must be a finite real number"),
])
def test_bad_kernel_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        KernelPredtron(Binary(), **kwargs).fit(np.ones((2, 2)), [0, 1])

"""Predtron and Predtron.Link (Jain et al. 2015): the classic perceptron, the loss bounds of
Theorem 1 and Corollaries 5-8 on generated separable data, streams, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from cvxtop.reference import predtron as brute
from cvxtop.predtron import (Binary, FiniteProblem, Multiclass, Multilabel,
                             MultilabelRanking, Ordinal, Predtron, PredtronLink,
                             SubsetRanking)

MAX_EPOCHS = 3000


# ---- the classic perceptron ------------------------------------------------------------

def perceptron_mistake_rounds(X, y_pm, epochs):
    """Rosenblatt's perceptron from w = 0: a mistake when y w·x <= 0, then w += y x."""
    w = np.zeros(X.shape[1])
    rounds = []
    for r, (x, y) in enumerate([(x, y) for _ in range(epochs) for x, y in zip(X, y_pm)]):
        if y * (w @ x) <= 0:
            rounds.append(r)
            w += y * x
    return rounds, w


@pytest.mark.parametrize("costs, eta", [((1.0, 1.0), 1.0), ((0.3, 2.0), 0.05)])
def test_binary_predtron_makes_the_classic_perceptrons_mistakes(costs, eta):
    rng = np.random.default_rng(20)
    X = rng.standard_normal((60, 4))
    y_pm = np.where(X @ [1.0, -2.0, 0.5, 0.0] + 0.8 * rng.standard_normal(60) > 0, 1, -1)
    expected, w = perceptron_mistake_rounds(X, y_pm, epochs=3)
    model = Predtron(Binary(costs=costs), eta=eta)
    rounds = []
    for r, (x, y) in enumerate([(x, y) for _ in range(3) for x, y in zip(X, y_pm)]):
        before = model.mistakes_ if r else 0
        model.partial_fit(x[None, :], [y])
        if model.mistakes_ > before:
            rounds.append(r)
    assert rounds == expected
    assert len(expected) > 20
    np.testing.assert_allclose(model.coef_[0], 2 * eta * w)  # rep(1) − rep(0) = 2


# ---- separable data ----------------------------------------------------------------------

def separable_vector_data(problem, rng, n, p, gamma0):
    """Inputs x and labels y on which a unit-Frobenius W* has margin >= gamma0."""
    W = rng.standard_normal((problem.dim, p))
    W /= np.linalg.norm(W)
    X, Y = [], []
    while len(X) < n:
        x = rng.standard_normal(p)
        t = W @ x
        if isinstance(problem, FiniteProblem):
            y = max(range(problem.n_labels), key=lambda c: problem.margin(t, c))
        else:
            y = (t > 0).astype(int)
        if problem.margin(t, y) >= gamma0:
            X.append(x)
            Y.append(y)
    X, Y = np.array(X), np.array(Y)
    gamma = min(problem.margin(W @ x, y) for x, y in zip(X, Y))
    return X, Y, gamma


def loss_range(problem):
    """(c_L, C_L): the smallest positive and the largest loss (Jain et al. 2015 Section 2.1)."""
    if isinstance(problem, FiniteProblem):
        entries = problem.loss_matrix
        return float(entries[entries > 0].min()), float(entries.max())
    return 1.0, float(problem.m if problem.loss_name == "hamming" else 1)


def fit_to_convergence(model, X, Y):
    model.set_params(epochs=MAX_EPOCHS).fit(X, Y)
    assert model.n_iter_ < MAX_EPOCHS, "no mistake-free pass: the data were not separated"
    assert model.mistakes_ > 0
    return model


@pytest.mark.parametrize("problem", [
    Binary(), Binary(costs=(0.5, 2.0)), Binary(reject_costs=(0.4, 0.25)),
    Multiclass(4), Multiclass(3, reject_cost=0.3), Ordinal(4),
    Multilabel(3, loss="hamming"), Multilabel(3, loss="subset_01"),
], ids=repr)
def test_theorem1_loss_bound_on_separable_data(problem):
    rng = np.random.default_rng(21)
    X, Y, gamma = separable_vector_data(problem, rng, n=80, p=5, gamma0=0.05)
    c_low, c_high = loss_range(problem)
    R = np.linalg.norm(X, axis=1).max()
    model = fit_to_convergence(Predtron(problem, eta=c_low / (4 * R**2)), X, Y)
    assert model.cumulative_loss_ <= 4 * R**2 * c_high**2 / (c_low * gamma**2)
    assert model.average_loss(X, Y) == 0.0


def graded_labels(rng, n, m, y_max):
    """Integer grades in 0..y_max, never constant within a list, ties common."""
    Y = rng.integers(0, y_max + 1, size=(n, m)).astype(float)
    Y[:, 0], Y[:, 1] = y_max, 0.0
    return rng.permuted(Y, axis=1)


def ranking_data(rng, n, m, p0, y_max=2, scale=0.5):
    """Subset-ranking inputs on which w* = e_1 (unit in ℓ1 and ℓ2) has a margin: the first
    feature of each document is its grade times ``scale``."""
    Y = graded_labels(rng, n, m, y_max)
    X = rng.standard_normal((n, m, p0))
    X[:, :, 0] = scale * Y
    return X, Y


def min_positive_ndcg_loss(problem, Y):
    perms = brute.predictions(problem)
    return min(loss for y in Y for loss in (problem.loss(p, y) for p in perms) if loss > 0)


def corollary5_constant(m, y_max):
    """2^{Ymax+3} m² log2²(2m): Corollary 5's bound is this times R²/γ²."""
    return 2 ** (y_max + 3) * m**2 * math.log2(2 * m) ** 2


def test_corollary5_loss_bound_subset_ranking():
    rng = np.random.default_rng(22)
    m, y_max = 4, 2
    problem = SubsetRanking(m)
    X, Y = ranking_data(rng, n=40, m=m, p0=6, y_max=y_max)
    gamma = min(problem.margin(x[:, 0], y) for x, y in zip(X, Y))
    R = max(np.linalg.norm(x, 2) for x in X)  # operator norm
    bound = corollary5_constant(m, y_max) * R**2 / gamma**2
    c_paper = 4 / corollary5_constant(m, y_max)  # the c_L lower bound behind Corollary 5
    model = fit_to_convergence(Predtron(problem, eta=c_paper / (4 * R**2)), X, Y)
    assert model.cumulative_loss_ <= bound
    # Theorem 1 with the exact c_L of the data (C_L <= 1)
    c_exact = min_positive_ndcg_loss(problem, Y)
    model = fit_to_convergence(Predtron(problem, eta=c_exact / (4 * R**2)), X, Y)
    assert model.cumulative_loss_ <= 4 * R**2 / (c_exact * gamma**2)


def multilabel_ranking_data(rng, n, m, p, y_max, scale):
    """Inputs x whose first m features are the grades times ``scale``; W* = [I 0]·s."""
    Y = graded_labels(rng, n, m, y_max)
    X = rng.standard_normal((n, p))
    X[:, :m] = scale * Y
    return X, Y


def test_corollary7_loss_bound_multilabel_ranking():
    rng = np.random.default_rng(23)
    m, p, y_max = 4, 7, 2
    problem = MultilabelRanking(m, f=lambda i: -float(i) ** 2)
    X, Y = multilabel_ranking_data(rng, n=40, m=m, p=p, y_max=y_max, scale=0.5)
    W = np.hstack([np.eye(m), np.zeros((m, p - m))]) / math.sqrt(m)  # unit Frobenius norm
    gamma = min(problem.margin(W @ x, y) for x, y in zip(X, Y))
    R = np.linalg.norm(X, axis=1).max()
    c_paper = 4 / corollary5_constant(m, y_max)
    model = fit_to_convergence(Predtron(problem, eta=c_paper / (4 * R**2)), X, Y)
    assert model.cumulative_loss_ <= corollary5_constant(m, y_max) * R**2 / gamma**2
    assert model.average_loss(X, Y) == 0.0


def link_eta(c_low, R, p):
    """η = c_L/(4 e² (log p − 1) R²): with ½‖·‖²_r (r − 1)-strongly convex, r − 1 =
    1/(log p − 1), and ‖∇‖_q <= p^{1/q}·2R = 2eR, mirror descent gives Corollary 6's bound
    4 e² (log p − 1) R² C_L²/(c_L γ²) <= 9·(...)·log p (the appendix with the paper's η is
    not in the text)."""
    return c_low / (4 * math.e**2 * (math.log(p) - 1) * R**2)


def test_corollary6_l1_margin_bound_subset_ranking():
    rng = np.random.default_rng(24)
    m, p0, y_max = 4, 12, 2
    problem = SubsetRanking(m)
    X, Y = ranking_data(rng, n=40, m=m, p0=p0, y_max=y_max)
    gamma = min(problem.margin(x[:, 0], y) for x, y in zip(X, Y))  # ‖e_1‖_1 = 1
    R = np.linalg.norm(X, axis=1).max()  # largest column norm of an input matrix
    c_paper = 4 / corollary5_constant(m, y_max)
    model = fit_to_convergence(PredtronLink(problem, eta=link_eta(c_paper, R, p0)), X, Y)
    assert model.r_ == pytest.approx(math.log(p0) / (math.log(p0) - 1))
    assert model.cumulative_loss_ <= \
        9 * corollary5_constant(m, y_max) * R**2 * math.log(p0) / gamma**2


def test_corollary8_group_margin_bound_multilabel_ranking():
    rng = np.random.default_rng(25)
    m, p, y_max = 3, 10, 2
    problem = MultilabelRanking(m)
    X, Y = multilabel_ranking_data(rng, n=40, m=m, p=p, y_max=y_max, scale=0.5)
    W = np.hstack([np.eye(m), np.zeros((m, p - m))]) / m  # ‖W‖_{2,1} = 1
    gamma = min(problem.margin(W @ x, y) for x, y in zip(X, Y))
    R = np.abs(X).max()
    c_paper = 4 / corollary5_constant(m, y_max)
    model = fit_to_convergence(PredtronLink(problem, eta=link_eta(c_paper, R, p)), X, Y)
    assert model.cumulative_loss_ <= \
        9 * corollary5_constant(m, y_max) * R**2 * math.log(p) / gamma**2


# ---- Predtron.Link -------------------------------------------------------------------------

@pytest.mark.parametrize("problem", [Multiclass(3), SubsetRanking(4)], ids=repr)
def test_link_with_r2_is_predtron(problem):
    rng = np.random.default_rng(26)
    if problem.input_kind == "vector":
        X, Y, _ = separable_vector_data(problem, rng, n=50, p=4, gamma0=0.0)
    else:
        X, Y = ranking_data(rng, n=50, m=4, p0=5)
        X[:, :, 0] += 0.3 * rng.standard_normal((50, 4))  # not separable: many updates
    plain = Predtron(problem, eta=0.3, epochs=3).fit(X, Y)
    link = PredtronLink(problem, eta=0.3, epochs=3, r=2.0).fit(X, Y)
    assert link.mistakes_ == plain.mistakes_ > 5
    np.testing.assert_allclose(link.coef_, plain.coef_, atol=1e-12)
    np.testing.assert_allclose(link.dual_coef_, plain.coef_, atol=1e-12)


def test_link_weights_are_the_gradient_of_the_conjugate():
    """coef_ = ∇(½‖θ‖²_{2,q}) and θ = ∇(½‖W‖²_{2,r}): the two maps are inverse."""
    rng = np.random.default_rng(27)
    problem = Multiclass(3)
    X = rng.standard_normal((40, 9))
    Y = rng.integers(0, 3, size=40)
    model = PredtronLink(problem, eta=0.5, epochs=2).fit(X, Y)
    W, theta, r = model.coef_, model.dual_coef_, model.r_
    col = np.linalg.norm(W, axis=0)
    total = np.linalg.norm(col, ord=r)
    np.testing.assert_allclose(W * (col / total) ** (r - 2), theta, rtol=1e-9, atol=1e-12)
    assert r == pytest.approx(math.log(9) / (math.log(9) - 1))
    # with few features the paper's r would exceed 2: the Euclidean link is used
    assert PredtronLink(problem).fit(X[:, :5], Y).r_ == 2.0


# ---- streams and prediction --------------------------------------------------------------

def test_partial_fit_accepts_streams_of_batches():
    rng = np.random.default_rng(28)
    problem = SubsetRanking(5)
    X, Y = ranking_data(rng, n=30, m=5, p0=4)
    X[:, :, 0] += 0.2 * rng.standard_normal((30, 5))
    whole = Predtron(problem, eta=0.5).fit(X, Y)
    stream = ((X[i:i + 7], Y[i:i + 7]) for i in range(0, 30, 7))
    streamed = Predtron(problem, eta=0.5).partial_fit(stream)
    by_batch = Predtron(problem, eta=0.5)
    for i in range(0, 30, 4):
        by_batch.partial_fit(X[i:i + 4], Y[i:i + 4])
    for model in (streamed, by_batch):
        np.testing.assert_array_equal(model.coef_, whole.coef_)
        assert model.mistakes_ == whole.mistakes_ and model.n_rounds_ == 30
        assert model.cumulative_loss_ == pytest.approx(whole.cumulative_loss_)


def test_predict_and_decision_function_shapes():
    rng = np.random.default_rng(29)
    X, Y = ranking_data(rng, n=12, m=5, p0=3)
    model = Predtron(SubsetRanking(5), epochs=50).fit(X, Y)
    positions = model.predict(X)
    assert positions.shape == (12, 5)
    np.testing.assert_array_equal(np.sort(positions, axis=1), np.tile(np.arange(1, 6), (12, 1)))
    assert model.decision_function(X).shape == (12, 5)
    Xv = rng.standard_normal((10, 4))
    multi = Predtron(Multiclass(3)).fit(Xv, rng.integers(0, 3, size=10))
    assert multi.predict(Xv).shape == (10,) and multi.coef_.shape == (3, 4)
    np.testing.assert_array_equal(multi.predict(Xv), np.argmax(Xv @ multi.coef_.T, axis=1))
    labels = Predtron(Multilabel(3)).fit(Xv, rng.integers(0, 2, size=(10, 3)))
    assert labels.predict(Xv).shape == (10, 3)


# ---- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("make, X, y, error, message", [
    (lambda: Predtron("binary"), np.ones((2, 2)), [0, 1], TypeError, "problem must be"),
    (lambda: Predtron(Binary(), eta=0), np.ones((2, 2)), [0, 1], ValueError, "eta must be"),
    (lambda: Predtron(Binary(), epochs=0), np.ones((2, 2)), [0, 1], ValueError, "epochs must"),
    (lambda: Predtron(Binary()), np.ones(3), [0, 1, 1], ValueError, "X must be 2-dimensional"),
    (lambda: Predtron(Binary()), np.ones((3, 2)), [0, 1], ValueError, r"y must have shape"),
    (lambda: Predtron(Binary()), [[1.0, np.nan]], [1], ValueError, "X contains NaN"),
    (lambda: Predtron(Multiclass(3)), np.ones((2, 2)), [0, 3], ValueError, "class labels"),
    (lambda: Predtron(SubsetRanking(3)), np.ones((2, 4, 2)), np.ones((2, 3)), ValueError,
     "3 documents per input"),
    (lambda: Predtron(SubsetRanking(3)), np.ones((2, 3)), np.ones((2, 3)), ValueError,
     "X must be 3-dimensional"),
    (lambda: PredtronLink(Binary(), r=2.5), np.ones((2, 2)), [0, 1], ValueError,
     r"r must lie in \(1, 2\]"),
    (lambda: PredtronLink(Binary(), r=1.0), np.ones((2, 2)), [0, 1], ValueError,
     r"r must lie in \(1, 2\]"),
])
def test_bad_fit_input(make, X, y, error, message):
    with pytest.raises(error, match=message):
        make().fit(X, y)
    with pytest.raises(error, match=message):
        make().partial_fit(X, y)


def test_bad_streams_and_unfitted_models():
    model = Predtron(Binary())
    with pytest.raises(TypeError, match="y is required"):
        model.partial_fit(np.ones((3, 2)))
    with pytest.raises(TypeError, match=r"batch 0 of the stream must be an \(X, y\) pair"):
        model.partial_fit([np.ones((3, 2))])
    with pytest.raises(NotFittedError):
        model.predict(np.ones((2, 2)))
    model.partial_fit(np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="started with 2"):
        model.partial_fit(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="started with 2"):
        model.decision_function(np.ones((2, 3)))


def test_paper_link_exponent_is_used_only_where_it_is_valid():
    """docs/findings.md item 9: log p/(log p − 1) lies in (1, 2] only for p >= e² (p >= 8);
    below that paper_r falls back to the Euclidean r = 2."""
    from cvxtop.predtron.links import paper_r

    assert [paper_r(p) for p in range(1, 8)] == [2.0] * 7
    for p in (2, 3, 7):  # the paper's formula: above 2, or no valid value
        formula = math.log(p) / (math.log(p) - 1) if math.log(p) != 1 else math.inf
        assert not 1 < formula <= 2
    values = [paper_r(p) for p in (8, 20, 100, 10**4)]
    assert all(1 < r <= 2 for r in values) and values == sorted(values, reverse=True)
    assert paper_r(8) == pytest.approx(math.log(8) / (math.log(8) - 1))

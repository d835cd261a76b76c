"""The exact batch reference: DCP forms of ψ, certified optima, solver failures."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from cvxtop import SolverError
from cvxtop.predtron import (Binary, Multiclass, Multilabel, MultilabelRanking, Ordinal,
                             Predtron, SubsetRanking, batch_objective, batch_reference,
                             linear_loss)
from test_predtron_problems import PROBLEMS, cases


def minimized(expr, constraints):
    if not constraints and not expr.variables():
        return float(expr.value)
    program = cp.Problem(cp.Minimize(expr), constraints)
    program.solve(solver="CLARABEL")
    assert program.status == cp.OPTIMAL
    return float(program.value)


@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_psi_expression_equals_psi(problem):
    for t, y in cases(problem, 40, n=6):
        expr, constraints = problem.psi_expression(cp.Constant(t), y)
        assert minimized(expr, constraints) == pytest.approx(problem.psi(t, y)[0], abs=1e-6)
        variable = cp.Variable(problem.dim)
        expr, constraints = problem.psi_expression(variable, y)
        assert expr.is_convex() and all(c.is_dcp() for c in constraints)


def vector_data(problem, rng, n=25, p=4):
    X = rng.standard_normal((n, p))
    if isinstance(problem, (Binary, Multiclass, Ordinal)):
        n_labels = problem.n_labels
        return X, np.clip(np.round(X[:, 0] * n_labels / 3 + n_labels / 2), 0, n_labels - 1)
    if isinstance(problem, Multilabel):
        return X, (X[:, :problem.m] + 0.5 * rng.standard_normal((n, problem.m)) > 0).astype(int)
    return X, rng.integers(0, 3, size=(n, problem.m)).astype(float)


def matrix_data(problem, rng, n=20, p0=3):
    Y = rng.integers(0, 3, size=(n, problem.m)).astype(float)
    X = rng.standard_normal((n, problem.m, p0))
    X[:, :, 0] += 0.5 * Y
    return X, Y


@pytest.mark.parametrize("problem", [
    Binary(), Binary(reject_costs=(0.3, 0.4)), Multiclass(3, reject_cost=0.5), Ordinal(4),
    Multilabel(3, loss="hamming"), Multilabel(3, loss="subset_01"),
    Multilabel(3, loss="error_set_size"), SubsetRanking(4), MultilabelRanking(3),
], ids=repr)
def test_batch_reference_is_a_certified_optimum(problem):
    rng = np.random.default_rng(41)
    data = matrix_data if problem.input_kind == "matrix" else vector_data
    X, Y = data(problem, rng)
    result = batch_reference(problem, X, Y, lam=0.5)
    assert result.status == "optimal" and result.success
    assert abs(result.objective - result.solver_value) <= 1e-6 * (1 + result.objective)
    assert result.objective == pytest.approx(batch_objective(problem, result.coef, X, Y, 0.5))
    # no other point does better: the online weights, and random perturbations
    online = Predtron(problem, eta=0.5, epochs=5).fit(X, Y)
    assert batch_objective(problem, online.coef_, X, Y, 0.5) >= result.objective - 1e-6
    for scale in (1e-3, 1e-1):
        for _ in range(10):
            moved = result.coef + scale * rng.standard_normal(result.coef.shape)
            assert batch_objective(problem, moved, X, Y, 0.5) >= result.objective - 1e-6


def test_online_and_batch_both_separate_separable_data():
    rng = np.random.default_rng(42)
    problem = SubsetRanking(4)
    Y = rng.integers(0, 3, size=(20, 4)).astype(float)
    X = rng.standard_normal((20, 4, 3))
    X[:, :, 0] = Y
    online = Predtron(problem, epochs=500).fit(X, Y)
    batch = batch_reference(problem, X, Y, lam=1e-3)
    assert online.average_loss(X, Y) == 0.0 == linear_loss(problem, online.coef_, X, Y)
    assert linear_loss(problem, batch.coef, X, Y) == 0.0
    assert linear_loss(problem, np.zeros(3), X, Y) > 0.1


def test_solver_failures_raise_or_warn(monkeypatch):
    X, y = np.eye(3), [0, 1, 1]

    def fail(self, *args, **kwargs):
        raise cp.error.SolverError("boom")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    with pytest.raises(SolverError, match="CLARABEL failed"):
        batch_reference(Binary(), X, y)

    def inaccurate(self, *args, **kwargs):
        for v in self.variables():
            v.value = np.zeros(v.shape)
        self._status = cp.OPTIMAL_INACCURATE
        self._value = 0.0

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    with pytest.raises(SolverError, match="optimal_inaccurate"):
        batch_reference(Binary(), X, y)
    with pytest.warns(UserWarning, match="inaccurate"):
        result = batch_reference(Binary(), X, y, accept_inaccurate=True)
    assert result.status == cp.OPTIMAL_INACCURATE and not result.success
    assert result.objective - result.solver_value == pytest.approx(3.0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: batch_reference(Binary(), np.eye(2), [0, 1], lam=0), ValueError, "lam must be"),
    (lambda: batch_reference(Binary(), np.eye(2), [0, 1], cvx_solver="GUROBI_X"), ValueError,
     "solver must be one of"),
    (lambda: batch_reference(Binary(), np.eye(2), [0, 2]), ValueError, "binary labels"),
    (lambda: batch_reference(None, np.eye(2), [0, 1]), TypeError, "problem must be"),
    (lambda: batch_objective(Multiclass(3), np.zeros((2, 2)), np.eye(2), [0, 1]), ValueError,
     r"coef must have shape \(3, 2\)"),
    (lambda: batch_objective(SubsetRanking(3), np.zeros(3), np.ones((1, 3, 2)), [[1, 0, 0]]),
     ValueError, r"coef must have shape \(2,\)"),
])
def test_bad_batch_input(call, error, message):
    with pytest.raises(error, match=message):
        call()

"""The zero-model criterion of ``docs/prec-at-k.md`` ("When the optimum is the zero model").

For a linear model without intercept, ``min ½‖w‖² + C·L(y, Xw)`` has ``w = 0`` as its
minimizer for every C exactly when the reduced convex hulls ``R_a(X⁺)`` and ``R_k(X⁻)`` meet,
``R_m(A) = {Σ λᵢ aᵢ : Σλ = 1, 0 <= λᵢ <= 1/m}``, with ``a = n₊`` (the mean of the relevant
points) for prec@k-avg, pap@k-avg, pap@k-ts and pauc-struct, ``a = k`` for prec@k-max and
``a = β = min(n₊, k)`` for pap@k-max (``k <= n₋``). The test decides the hull condition by
a feasibility LP and compares it with certified exact fits on random instances, both ways:
zero optimal (objective equal to ``C·L(y, 0)``) exactly when the hulls meet.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog

from cvxtop import TopRanker, surrogates

HULL_SIZE = {  # m of R_m(X⁺), given n₊ and k
    "prec@k-avg": lambda n_pos, k: n_pos,
    "pap@k-avg": lambda n_pos, k: n_pos,
    "pap@k-ts": lambda n_pos, k: n_pos,
    "pauc-struct": lambda n_pos, k: n_pos,
    "prec@k-max": lambda n_pos, k: k,
    "pap@k-max": lambda n_pos, k: min(n_pos, k),
}


def reduced_hulls_meet(A: np.ndarray, a: int, B: np.ndarray, b: int) -> bool:
    """Is there a point Σλᵢ Aᵢ = Σμⱼ Bⱼ with Σλ = Σμ = 1, 0 <= λ <= 1/a, 0 <= μ <= 1/b?"""
    d = A.shape[1]
    A_eq = np.vstack([np.hstack([A.T, -B.T]),
                      np.r_[np.ones(len(A)), np.zeros(len(B))],
                      np.r_[np.zeros(len(A)), np.ones(len(B))]])
    result = linprog(np.zeros(len(A) + len(B)), A_eq=A_eq, b_eq=np.r_[np.zeros(d), 1.0, 1.0],
                     bounds=[(0.0, 1.0 / a)] * len(A) + [(0.0, 1.0 / b)] * len(B),
                     method="highs")
    assert result.status in (0, 2), result.message  # feasible or infeasible, nothing else
    return result.status == 0


def instances(seed: int, count: int):
    """Relevant points shifted away from the irrelevant ones by a random amount, so that both
    outcomes of the criterion occur."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n_pos, n_neg, d = int(rng.integers(3, 8)), int(rng.integers(6, 14)), int(rng.integers(1, 4))
        X = np.vstack([rng.standard_normal((n_pos, d)) + rng.uniform(0.0, 2.5),
                       rng.standard_normal((n_neg, d))])
        y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)]
        yield X, y, int(rng.integers(1, min(n_pos, n_neg) + 1))


@pytest.mark.parametrize("name", sorted(HULL_SIZE))
def test_zero_is_the_optimum_exactly_when_the_reduced_hulls_meet(name):
    outcomes = set()
    for X, y, k in instances(seed=2024, count=14):
        n_pos = int(y.sum())
        meet = reduced_hulls_meet(X[y == 1], HULL_SIZE[name](n_pos, k), X[y == 0], k)
        C = 5.0
        zero_objective = C * surrogates.get(name, k).value(y, np.zeros(len(y)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = TopRanker(name, k=k, C=C).fit(X, y)
        warned = any("is the zero model" in str(w.message) for w in caught)
        # the certified gap is 1e-6 (relative): a non-zero optimum is well below P(0) here
        zero_is_optimal = model.objective_ >= zero_objective * (1 - 1e-5)
        assert zero_is_optimal == meet, (name, k, X.tolist())
        assert warned == meet  # the estimator says so exactly when it happens
        if meet:
            # ½‖w‖² <= P(0) − P(w*) + gap: the solution is the zero model up to the gap
            assert np.linalg.norm(model.coef_) <= np.sqrt(2e-5 * zero_objective)
        outcomes.add(meet)
    assert outcomes == {True, False}  # the instances exercise both directions

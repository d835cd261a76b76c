"""A finding: the regularized avg and max surrogates of prec@k are often minimized by w = 0.

At s = 0 every term of the avg surrogate (papers/000 eq. (7)) ties, and its subdifferential
there is {(u, −(k/n₊)·1)} with u in the capped simplex {0 <= u <= 1, Σu = k}. So w = 0
minimizes ½‖w‖² + C·avg(y, Xw) for every C > 0 exactly when the mean relevant item is an
average of k irrelevant items in the fractional sense: mean(X⁺) ∈ P_k(X⁻) = {X⁻ᵀu / k}.
For max (eq. (6)) the condition is P_m(X⁻) ∩ P_m(X⁺) ≠ ∅, m = min(k, n₋). With many
irrelevant items and a small k these polytopes are nearly the classes' convex hulls, so the
conditions hold on most real data: the exact minimizer is the zero model, whose scores all
tie (the worst prec@k). docs/findings.md states it; these tests check it both ways.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from cvxtop import TopRanker


def in_k_average_polytope(point: np.ndarray, X: np.ndarray, k: int) -> bool:
    """Is ``point`` = X ᵀu / k for some 0 <= u <= 1 with Σu = k? (an LP feasibility test)"""
    n, d = X.shape
    A_eq = np.vstack([X.T, np.ones((1, n))])
    b_eq = np.r_[k * point, k]
    res = linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=[(0, 1)] * n, method="highs")
    return res.status == 0


def k_average_polytopes_meet(X1: np.ndarray, X2: np.ndarray, m: int) -> bool:
    n1, n2 = len(X1), len(X2)
    A_eq = np.vstack([np.hstack([X1.T, -X2.T]),
                      np.r_[np.ones(n1), np.zeros(n2)], np.r_[np.zeros(n1), np.ones(n2)]])
    b_eq = np.r_[np.zeros(X1.shape[1]), m, m]
    res = linprog(np.zeros(n1 + n2), A_eq=A_eq, b_eq=b_eq, bounds=[(0, 1)] * (n1 + n2),
                  method="highs")
    return res.status == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shift", [0.3, 3.0])
def test_avg_and_max_minimizers_are_zero_exactly_under_the_polytope_conditions(seed, shift):
    rng = np.random.default_rng(seed)
    n_pos, n_neg, d, k = 12, 60, 3, 3
    X = np.vstack([rng.standard_normal((n_pos, d)) + shift, rng.standard_normal((n_neg, d))])
    y = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
    avg_zero = in_k_average_polytope(X[:n_pos].mean(axis=0), X[n_pos:], k)
    max_zero = k_average_polytopes_meet(X[:n_pos], X[n_pos:], k)
    for C in (0.1, 10.0):
        for name, zero in (("prec@k-avg", avg_zero), ("prec@k-max", max_zero)):
            model = TopRanker(name, k=k, C=C, tol=1e-7).fit(X, y)
            # P is 1-strongly convex: ‖w − w*‖² <= 2·(P(w) − P*) <= 2·gap·P(w)
            radius = np.sqrt(2 * model.gap_ * model.objective_) + 1e-9
            if zero:  # the zero model is optimal, with objective C·k
                assert np.linalg.norm(model.coef_) <= radius
                assert model.lower_bound_ <= C * k * (1 + 1e-12) <= model.objective_ * (1 + 1e-7)
            else:
                assert np.linalg.norm(model.coef_) > 10 * radius
                assert model.objective_ < C * k

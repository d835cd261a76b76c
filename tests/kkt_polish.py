"""A test helper: the exact KKT point of a candidate's dual near an approximate one."""

from __future__ import annotations

import numpy as np


def polish(Q: np.ndarray, upper: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """An exact KKT point of min ½αᵀQα − 1ᵀα over [0, u] near an approximate ``alpha``
    (an interior-point answer is only accurate to about the square root of its gap in w).

    Slots are classified by ``alpha`` (near 0, near u, or free), the free ones solve
    Q_FF α_F = 1 − Q_FU u_U (the solution nearest ``alpha`` when the face is degenerate),
    and the result is returned only if it satisfies the KKT conditions."""
    tol = 1e-6 * upper
    lower, up = alpha <= tol, alpha >= upper - tol
    free = ~(lower | up)
    exact = np.where(up, upper, 0.0)
    if free.any():
        rhs = 1.0 - Q[np.ix_(free, up)] @ upper[up]
        Qff = Q[np.ix_(free, free)]
        sol, *_ = np.linalg.lstsq(Qff, rhs, rcond=None)
        null = np.eye(free.sum()) - np.linalg.pinv(Qff) @ Qff
        exact[free] = sol + null @ (alpha[free] - sol)
    grad = Q @ exact - 1.0
    scale = 1e-9 * (1.0 + np.abs(Q).max() * upper.max())
    kkt = (np.all(exact >= -scale) and np.all(exact <= upper + scale)
           and np.all(np.abs(grad[free]) <= scale)
           and np.all(grad[lower] >= -scale) and np.all(grad[up] <= scale))
    assert kkt, "the approximate solution does not identify an optimal face"
    return exact

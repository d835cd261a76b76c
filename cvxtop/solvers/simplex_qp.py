"""A warm-started active-set solver of the cutting plane's master problem.

The master dual is a small convex QP over the probability simplex,

    min_λ  ½ λᵀQλ − cᵀλ   subject to  λ >= 0,  Σλ = 1,

with ``Q`` the Gram matrix of the cuts (positive semidefinite, often singular) and ``m``, the
number of cuts, a few dozen to a few hundred. A primal active-set method (Nocedal & Wright
2006, Algorithm 16.3) solves it exactly: on the current support it solves the
equality-constrained QP by its KKT system, steps to the nearest bound that blocks, and frees
the bound with the most negative multiplier until none is negative. Successive masters differ
by one cut, so starting from the previous solution takes a handful of iterations. ``Q`` gets
a ridge of ``1e-12`` of its largest diagonal entry, which makes every KKT system regular and
moves the optimal value by at most that much; the caller evaluates its bound exactly at the
returned point, which is feasible, so the bound stays rigorous either way.
"""

from __future__ import annotations

import numpy as np

__all__ = ["solve_simplex_qp"]

RIDGE = 1e-12


def _start(Q: np.ndarray, c: np.ndarray, lam0: np.ndarray | None) -> np.ndarray:
    """A feasible start: ``lam0`` clipped and renormalized, else the best vertex."""
    if lam0 is not None:
        lam = np.maximum(np.asarray(lam0, dtype=np.float64), 0.0)
        if lam.sum() > 0:
            return lam / lam.sum()
    lam = np.zeros(len(c))
    lam[int(np.argmax(c - 0.5 * np.diag(Q)))] = 1.0
    return lam


def _at_most_two(Q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The minimizer for one or two variables in closed form: with ``λ = (1 − γ, γ)`` the
    objective is a quadratic in ``γ``, minimized at its clipped stationary point."""
    if len(c) == 1:
        return np.ones(1)
    curvature = Q[0, 0] - 2.0 * Q[0, 1] + Q[1, 1]
    slope = c[1] - c[0] + Q[0, 0] - Q[0, 1]  # −(the derivative at γ = 0)
    if curvature > 0:
        gamma = min(1.0, max(0.0, slope / curvature))
    else:  # Q constant along the edge: the better vertex
        gamma = 1.0 if slope > 0 else 0.0
    return np.array([1.0 - gamma, gamma])


def solve_simplex_qp(Q: np.ndarray, c: np.ndarray, lam0: np.ndarray | None = None,
                     max_iter: int = 1000) -> np.ndarray | None:
    """The minimizer of ``½λᵀQλ − cᵀλ`` over the simplex, from the start ``lam0``; ``None``
    if ``max_iter`` iterations do not reach it (the caller then uses another solver).
    One or two variables are solved in closed form."""
    m = len(c)
    if m <= 2:
        return _at_most_two(Q, c)
    Q = Q + RIDGE * max(1.0, float(np.max(np.diag(Q)))) * np.eye(m)
    lam = _start(Q, c, lam0)
    free = lam > 0
    scale = max(1.0, float(np.max(np.abs(c))), float(np.max(np.diag(Q))))
    stationary = False  # whether λ minimizes the objective on its current face
    for _ in range(max_iter):
        F = np.flatnonzero(free)
        grad = Q @ lam - c
        if not stationary:
            kkt = np.zeros((len(F) + 1, len(F) + 1))
            kkt[:-1, :-1] = Q[np.ix_(F, F)]
            kkt[:-1, -1] = -1.0
            kkt[-1, :-1] = 1.0
            p = np.linalg.solve(kkt, np.r_[-grad[F], 0.0])[:-1]
            if np.max(np.abs(p)) > 1e-15 * max(1.0, float(np.max(lam))):
                shrinking = p < 0
                ratios = np.full(len(F), np.inf)
                ratios[shrinking] = -lam[F][shrinking] / p[shrinking]
                blocking = int(np.argmin(ratios))
                step = min(1.0, float(ratios[blocking]))
                lam[F] += step * p
                if step < 1.0:
                    lam[F[blocking]] = 0.0
                    free[F[blocking]] = False
                lam = np.maximum(lam, 0.0)
                lam /= lam.sum()
                stationary = step == 1.0  # a full step reaches the face's minimizer
                continue
        nu = float(np.mean(grad[F]))  # on the face's minimizer grad_F = ν·1
        multipliers = grad - nu
        multipliers[F] = 0.0
        worst = int(np.argmin(multipliers))
        if multipliers[worst] >= -1e-13 * scale:
            return lam
        free[worst] = True
        stationary = False
    return None

"""Brute-force definitions of accuracy at the top (Boyd et al. 2012), written from the
paper's text and independent of :mod:`cvxtop.aatp`'s code paths: the quantile of Section 2
in exact rational arithmetic, the candidate kernel and dual objective of eq. (4) entry by
entry, the scores of a candidate's solution, the optimum of a candidate's dual by
enumerating every partition of its variables, and the selection rule of Section 3.2."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

__all__ = ["rho", "quantile", "kernel_k", "dual_objective", "kernel_scores",
           "box_qp_by_enumeration", "select"]


def rho(u: Fraction, tau: Fraction) -> Fraction:
    """ρ_τ(u) = −τ·min(u, 0) + (1 − τ)·max(u, 0), Section 2."""
    return -tau * min(u, 0) + (1 - tau) * max(u, 0)


def quantile(scores, tau: float, weights=None) -> float:
    """Largest minimizer of Σ_i c_i ρ_τ(s_i − u), in exact rational arithmetic.

    F is convex and piecewise linear with kinks at the scores, so its minimum is attained
    at a score; the largest minimizer is the largest score attaining it, and the check
    below also scans midpoints and points beyond the extremes to confirm."""
    s = [Fraction(float(v)) for v in scores]
    c = [1] * len(s) if weights is None else [int(v) for v in weights]
    t = Fraction(repr(float(tau)))  # the decimal written, as cvxtop reads tau

    def F(u):
        return sum(ci * rho(si - u, t) for si, ci in zip(s, c))

    pts = sorted(set(s))
    best = min(F(u) for u in pts)
    probes = pts + [(a + b) / 2 for a, b in zip(pts, pts[1:])] + [pts[0] - 1, pts[-1] + 1]
    assert min(F(u) for u in probes) == best
    return float(max(u for u in pts if F(u) == best))


def kernel_k(K: np.ndarray, k: int) -> np.ndarray:
    """K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z') + K(z_k, z_k), eq. (4), entry by entry."""
    n = len(K)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = K[i, j] - K[i, k] - K[k, j] + K[k, k]
    return out


def dual_objective(K: np.ndarray, y_pm: np.ndarray, alpha: np.ndarray, k: int) -> float:
    """Σ α_i − ½ Σ_{i,j} α_i α_j y_i y_j K_k(z_i, z_j), eq. (4), as a double sum."""
    Kk = kernel_k(K, k)
    total = float(alpha.sum())
    for i in range(len(alpha)):
        for j in range(len(alpha)):
            total -= 0.5 * alpha[i] * alpha[j] * y_pm[i] * y_pm[j] * Kk[i, j]
    return total


def kernel_scores(K_new_train: np.ndarray, beta: np.ndarray, k: int) -> np.ndarray:
    """h(x) = Σ_j α_j y_j [K(z_j, x) − K(z_k, x)] for each row x, by explicit loops."""
    out = np.zeros(len(K_new_train))
    for r in range(len(K_new_train)):
        for j in range(len(beta)):
            out[r] += beta[j] * (K_new_train[r, j] - K_new_train[r, k])
    return out


def box_qp_by_enumeration(Q: np.ndarray, upper: np.ndarray) -> float:
    """min ½αᵀQα − 1ᵀα over 0 ≤ α ≤ u by enumerating every partition (lower, free, upper)
    and keeping the KKT points; the problem is convex, so any KKT point is optimal."""
    n = len(upper)
    from ._common import guard

    guard(3 ** n, "the partitions of the dual variables")
    best = None
    for labels in itertools.product((0, 1, 2), repeat=n):
        lab = np.array(labels)
        alpha = np.where(lab == 2, upper, 0.0)
        free = lab == 1
        if free.any():
            rhs = 1.0 - Q[np.ix_(free, ~free)] @ alpha[~free]
            sol, *_ = np.linalg.lstsq(Q[np.ix_(free, free)], rhs, rcond=None)
            alpha[free] = sol
        grad = Q @ alpha - 1.0
        tol = 1e-9 * (1 + np.abs(Q).max() * upper.max())
        ok = (np.all(alpha >= -tol) and np.all(alpha <= upper + tol)
              and np.all(np.abs(grad[free]) <= tol)
              and np.all(grad[lab == 0] >= -tol) and np.all(grad[lab == 2] <= tol))
        if ok:
            value = 0.5 * alpha @ Q @ alpha - alpha.sum()
            best = value if best is None else min(best, value)
    return float(best)


def select(candidates, gaps, objectives, gap_atol=1e-6, objective_rtol=1e-7) -> int:
    """The selection rule of Section 3.2 with the documented tolerances, written as a sort:
    smallest gap (ties within gap_atol), then smallest objective (ties within
    objective_rtol), then smallest candidate index."""
    g_min = min(gaps)
    pool = [i for i in range(len(gaps)) if gaps[i] <= g_min + gap_atol]
    o_min = min(objectives[i] for i in pool)
    pool = [i for i in pool if objectives[i] <= o_min + objective_rtol * max(1.0, abs(o_min))]
    return int(min(candidates[i] for i in pool))

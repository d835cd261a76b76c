"""cvxpy forms of the prec@k surrogates (Kar et al. 2015, eqs. 3, 4, 6, 7).

The forms of max and avg are compact LP duals with ``O(n + k)`` auxiliary variables
instead of the literal maximum of ``k + 1`` ``sum_largest`` terms (``O(k·n)`` variables);
:func:`selection_lp_dual` derives them. The literal form is kept
(:func:`literal_selection`) to check the compact one and for ``benchmarks/dcp_forms.py``.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

__all__ = ["sum_largest", "loss_augmented_top", "struct", "selection_lp_dual",
           "literal_selection"]


def sum_largest(x: cp.Expression, m: int) -> cp.Expression:
    """``cp.sum_largest(x, m)`` for ``1 <= m <= len(x)``; ``m = len(x)`` as a plain sum
    (cvxpy 1.9's canonicalization of ``sum_largest(x, len(x))`` fails once ``x`` holds a
    value, e.g. when the same variable is solved a second time)."""
    return cp.sum(x) if m == x.size else cp.sum_largest(x, m)


def loss_augmented_top(y: np.ndarray, s: cp.Expression, k: int) -> cp.Expression:
    """``sum_largest(s + 1 − y, k)``, the first term of eqs. (3) and (4)."""
    return sum_largest(s + (1.0 - y), k)


def struct(y: np.ndarray, s: cp.Expression, k: int) -> cp.Expression:
    """Eq. (3): ``sum_largest(s + 1 − y, k) − y·s``."""
    return loss_augmented_top(y, s, k) - y.astype(np.float64) @ s


def selection_lp_dual(s_neg: cp.Expression, s_pos: cp.Expression, j_max: int,
                      cap_slopes: np.ndarray, cap_intercepts: np.ndarray
                      ) -> tuple[cp.Expression, list[cp.Constraint]]:
    """Epigraph (LP dual) of the selection LP shared by the max and avg surrogates.

    Primal, for scores ``s⁻`` (negatives) and ``s⁺`` (positives)::

        max (s⁻ + 1)·u − s⁺·v   s.t.  0 <= u <= 1,  0 <= v <= z·1,  Σu = Σv = t,
                                      0 <= t <= J,  z >= 0,  z <= a_l t + b_l  (all l).

    The cap ``z(t) = min_l (a_l t + b_l)`` is concave and piecewise linear, and larger is
    better, so ``z = z(t)``. With the single piece ``z <= 1`` this is the max surrogate;
    with the pieces interpolating ``φ(j) = j/(c + j)`` at the integers ``0..J`` it is the
    avg surrogate. For ``t`` in ``[j, j + 1]`` the optimal ``u`` is the fractional top-``t``
    of ``s⁻ + 1`` and the optimal ``v`` fills the ``m_j`` lowest positives to the cap
    (``m_j = j`` for max, ``c + j`` for avg, as ``m_j·z(t) <= t <= (m_j + 1)·z(t)``) and
    puts the rest on the next one; both are linear in ``t`` there, so the maximum is at an
    integer ``t = j``, where it is the ``j``-th term ``sum_largest(s⁻ + 1, j) −
    z(j)·sum_smallest(s⁺, m_j)`` of the surrogate. The dual (LP strong duality; every
    constraint is affine in the scores, so the form is DCP)::

        min Σμ + Σ_l b_l π_l + J σ
        s.t. μ >= s⁻ + 1 − θ,  ν >= −s⁺ − ρ,  Σν <= Σπ,  σ >= θ + ρ + Σ_l a_l π_l,
             μ, ν, π, σ >= 0,  θ, ρ free.

    ``n₋ + n₊ + (number of pieces) + 3`` variables.
    """
    mu = cp.Variable(s_neg.shape, nonneg=True)
    nu = cp.Variable(s_pos.shape, nonneg=True)
    pi = cp.Variable(len(cap_slopes), nonneg=True)
    sigma = cp.Variable(nonneg=True)
    theta = cp.Variable()
    rho = cp.Variable()
    constraints = [
        mu >= s_neg + 1 - theta,
        nu >= -s_pos - rho,
        cp.sum(nu) <= cp.sum(pi),
        sigma >= theta + rho + cap_slopes @ pi,
    ]
    return cp.sum(mu) + cap_intercepts @ pi + j_max * sigma, constraints


def literal_selection(s_neg: cp.Expression, s_pos: cp.Expression, weights: np.ndarray,
                      widths: np.ndarray) -> cp.Expression:
    """``max_{j=0..J} [sum_largest(s⁻ + 1, j) − w_j·sum_smallest(s⁺, m_j)]`` written out
    term by term (``J + 1`` ``sum_largest`` atoms)."""
    j_max = len(weights) - 1
    terms = [cp.Constant(0.0)] + [
        sum_largest(s_neg + 1, j) + weights[j] * sum_largest(-s_pos, int(widths[j]))
        for j in range(1, j_max + 1)
    ]
    return cp.maximum(*terms) if j_max else terms[0]

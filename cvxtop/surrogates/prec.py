"""The four prec@k surrogates of papers/000 (Kar, Narasimhan & Jain, ICML 2015).

All four are maxima over candidate labelings ``ŷ`` with ``‖ŷ‖₁ = k`` and live on the loss
scale of papers/000 eq. (1): the number of irrelevant items among the top ``k``, for
``1 <= k <= n₊`` (a float κ in (0, 1] means ``ceil(κ·n₊)``). Their closed forms, checked
against the enumerations of :mod:`cvxtop.reference`, with ``s⁺``/``s⁻`` the scores of the
relevant/irrelevant items:

* struct, eq. (3): ``sum_largest(s + 1 − y, k) − y·s`` (convex, not an upper bound);
* ramp, eq. (4): ``sum_largest(s + 1 − y, k) − sum_largest(s⁺, k)`` (a difference of
  convex functions);
* max, eq. (6): ``Σ_{i ≤ min(k, n₋)} (1 + s⁻_(i) − s⁺_[i])₊``, the i-th highest negative
  paired with the i-th lowest positive (convex);
* avg, eq. (7): ``max_{j=0..J} [sum_largest(s⁻ + 1, j) − φ(j)·sum_smallest(s⁺, c + j)]``
  with ``j = k − k'`` the number of negatives the labeling selects, ``c = n₊ − k``,
  ``J = min(k, n₋)`` and ``φ(j) = j / (c + j)`` (``φ(0) = 0``) (convex).

Evaluation sorts only the top ``min(k, ·)`` entries of each class (``argpartition`` then a
sort), so value and subgradient cost ``O(n + k log k)`` and share that one sort.

The cvxpy forms of max and avg are compact LP duals with ``O(n + k)`` auxiliary variables
instead of the literal maximum of ``k + 1`` ``sum_largest`` terms (``O(k·n)`` variables);
see :func:`_selection_lp_dual` for the derivation.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import cvxpy as cp
import numpy as np

from . import register
from .base import DifferenceOfConvex, PrecSurrogate

__all__ = ["PrecStruct", "PrecRamp", "PrecMax", "PrecAvg"]


# ---- numpy helpers ---------------------------------------------------------------------

def _largest(values: np.ndarray, m: int) -> np.ndarray:
    """Indices of the ``m`` largest entries of ``values``, in decreasing order of value."""
    if m == 0:
        return np.empty(0, dtype=np.intp)
    top = np.argpartition(-values, m - 1)[:m]
    return top[np.argsort(-values[top], kind="stable")]


def _indicator(n: int, index: np.ndarray) -> np.ndarray:
    """A length-``n`` vector equal to 1 on ``index`` and 0 elsewhere."""
    out = np.zeros(n)
    out[index] = 1.0
    return out


def _loss_augmented_top(y: np.ndarray, s: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """``sum_largest(s + 1 − y, k)`` and the indicator of a maximizing set (its subgradient).

    This is ``max_{‖ŷ‖₁ = k} Δ(y, ŷ) + ŷ·s``, the first term of papers/000 eqs. (3) and (4).
    """
    augmented = s + (1 - y)
    top = _largest(augmented, k)
    return float(augmented[top].sum()), _indicator(len(s), top)


def _top_positives(y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
    """Indices (into ``s``) of the ``k`` highest-scoring relevant items, decreasing."""
    pos = np.flatnonzero(y)
    return pos[_largest(s[pos], k)]


def _avg_weights(c: int, j_max: int) -> np.ndarray:
    """``φ(j) = j / (c + j)`` for ``j = 0..j_max`` with ``φ(0) = 0``: the factor
    ``D_{k'} = (k − k') / (n₊ − k')`` of papers/000 Algorithm 4 written in ``j = k − k'``."""
    j = np.arange(j_max + 1)
    return j / np.maximum(c + j, 1)


# ---- cvxpy helpers ---------------------------------------------------------------------

def _sum_largest(x: cp.Expression, m: int) -> cp.Expression:
    """``cp.sum_largest(x, m)`` for ``1 <= m <= len(x)``.

    ``m = len(x)`` is written as a plain sum: cvxpy 1.9's canonicalization of
    ``sum_largest(x, len(x))`` fails (a max over an empty array) whenever ``x`` already
    holds a value, e.g. when the same variable is solved a second time.
    """
    return cp.sum(x) if m == x.size else cp.sum_largest(x, m)


def _selection_lp_dual(s_neg: cp.Expression, s_pos: cp.Expression, j_max: int,
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


def _split(y: np.ndarray, s: cp.Expression) -> tuple[cp.Expression, cp.Expression]:
    """The sub-expressions of the irrelevant and the relevant items' scores."""
    return s[np.flatnonzero(y == 0)], s[np.flatnonzero(y)]


class _OneSortPrecSurrogate(PrecSurrogate):
    """Value and subgradient from one shared computation (the solvers' hot path)."""

    @abstractmethod
    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        """The surrogate and a subgradient at ``s``, from one partial sort per class."""

    def _value(self, y: np.ndarray, s: np.ndarray, k: int) -> float:
        return self._value_and_subgradient(y, s, k)[0]

    def _subgradient(self, y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
        return self._value_and_subgradient(y, s, k)[1]


class _SelectionSurrogate(_OneSortPrecSurrogate):
    """max and avg: ``max_{j=0..J} [sum_largest(s⁻ + 1, j) − w_j·sum_smallest(s⁺, m_j)]``,
    ``J = min(k, n₋)``, with two cvxpy forms: the compact LP dual (``expression``) and the
    literal maximum of ``J + 1`` ``sum_largest`` terms (``O(k·n)`` variables, kept to
    check the compact form and for ``benchmarks/dcp_forms.py``)."""

    @abstractmethod
    def _term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        """The weights ``w_j`` and widths ``m_j`` of the terms, ``j = 0..J``."""

    @abstractmethod
    def _cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        """Slopes ``a_l`` and intercepts ``b_l`` of the LP's cap ``z <= a_l t + b_l``."""

    def _expression(self, y: np.ndarray, s: cp.Expression, k: int
                    ) -> tuple[cp.Expression, list[cp.Constraint]]:
        n_pos = int(np.count_nonzero(y))
        j_max = min(k, len(y) - n_pos)
        if j_max == 0:  # no irrelevant item: only the empty selection, value 0
            return cp.Constant(0.0), []
        slopes, intercepts = self._cap_pieces(n_pos, k, j_max)
        s_neg, s_pos = _split(y, s)
        return _selection_lp_dual(s_neg, s_pos, j_max, slopes, intercepts)

    def _literal_expression(self, y: np.ndarray, s: cp.Expression, k: int) -> cp.Expression:
        n_pos = int(np.count_nonzero(y))
        j_max = min(k, len(y) - n_pos)
        weights, widths = self._term_weights(n_pos, k, j_max)
        s_neg, s_pos = _split(y, s)
        terms = [cp.Constant(0.0)] + [
            _sum_largest(s_neg + 1, j) + weights[j] * _sum_largest(-s_pos, int(widths[j]))
            for j in range(1, j_max + 1)
        ]
        return cp.maximum(*terms) if j_max else terms[0]


# ---- the four surrogates ---------------------------------------------------------------

@register
class PrecStruct(_OneSortPrecSurrogate):
    """Structural SVM surrogate of Joachims (2005), papers/000 eq. (3).

    ``max_{‖ŷ‖₁ = k} Δ(y, ŷ) + (ŷ − y)·s = sum_largest(s + 1 − y, k) − y·s``. Convex but
    *not* an upper bound on prec@k (papers/002 Appendix A); it equals the avg surrogate
    when ``k = n₊``. Subgradient: the indicator of the top ``k`` of ``s + 1 − y`` minus ``y``.
    """

    name: ClassVar[str] = "prec@k-struct"
    convex: ClassVar[bool] = True

    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        top_value, top_grad = _loss_augmented_top(y, s, k)
        # a masked sum rather than y @ s: the BLAS dot may go multithreaded at large n and
        # then stalls for milliseconds on a busy machine (seen at n = 10⁵ on 2 shared cores)
        return top_value - float(s[y == 1].sum()), top_grad - y

    def _expression(self, y: np.ndarray, s: cp.Expression, k: int
                    ) -> tuple[cp.Expression, list[cp.Constraint]]:
        return _sum_largest(s + (1.0 - y), k) - y.astype(np.float64) @ s, []


@register
class PrecRamp(_OneSortPrecSurrogate, DifferenceOfConvex):
    """Ramp surrogate, papers/000 eq. (4): ``G(s) − H(s)`` with
    ``G = sum_largest(s + 1 − y, k)`` and ``H = sum_largest(s⁺, k)``.

    Not convex, so :meth:`expression` raises; the convex-concave procedure uses
    :meth:`_convex_part_expression` (``G``) and :meth:`_subtracted_subgradient` (of ``H``).
    Its :meth:`subgradient` is the *difference-of-convex* "subgradient" ``∂G − ∂H``: the
    gradient where the function is smooth, but not a global under-estimator.
    """

    name: ClassVar[str] = "prec@k-ramp"
    convex: ClassVar[bool] = False

    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        g_value, g_grad = _loss_augmented_top(y, s, k)
        top_pos = _top_positives(y, s, k)
        return g_value - float(s[top_pos].sum()), g_grad - _indicator(len(s), top_pos)

    def _convex_part_expression(self, y: np.ndarray, s: cp.Expression, k: int
                                ) -> tuple[cp.Expression, list[cp.Constraint]]:
        return _sum_largest(s + (1.0 - y), k), []

    def _subtracted_subgradient(self, y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
        return _indicator(len(s), _top_positives(y, s, k))


@register
class PrecMax(_SelectionSurrogate):
    """Max surrogate, papers/000 eq. (6).

    ``max_{j ≤ J} [sum_largest(s⁻ + 1, j) − sum_smallest(s⁺, j)]
    = Σ_{i ≤ J} (1 + s⁻_(i) − s⁺_[i])₊``, ``J = min(k, n₋)``, pairing the i-th highest
    negative with the i-th lowest positive. Subgradient: +1 on the negatives and −1 on the
    positives of the pairs with a positive hinge (the maximizing ``j`` and its labeling).
    """

    name: ClassVar[str] = "prec@k-max"
    convex: ClassVar[bool] = True

    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        neg, pos = np.flatnonzero(y == 0), np.flatnonzero(y)
        j_max = min(k, len(neg))
        high_neg = neg[_largest(s[neg], j_max)]
        low_pos = pos[_largest(-s[pos], j_max)]
        hinge = 1.0 + s[high_neg] - s[low_pos]  # non-increasing, so the active pairs lead
        active = hinge > 0
        grad = _indicator(len(s), high_neg[active]) - _indicator(len(s), low_pos[active])
        return float(hinge[active].sum()), grad

    def _term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return np.ones(j_max + 1), np.arange(j_max + 1)

    def _cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(1), np.ones(1)  # z <= 1


@register
class PrecAvg(_SelectionSurrogate):
    """Avg surrogate, papers/000 eq. (7).

    With ``j = k − k'`` negatives selected, ``c = n₊ − k`` and ``φ(j) = j/(c + j)``:
    ``max_{j=0..min(k, n₋)} [sum_largest(s⁻ + 1, j) − φ(j)·sum_smallest(s⁺, c + j)]``.
    Equal to the struct surrogate when ``k = n₊``. The subgradient is papers/000
    Algorithm 4: for the best ``j``, +1 on the ``j`` highest negatives and ``−φ(j)`` on the
    positives outside the ``k − j`` highest ones (the false negatives of that labeling).
    """

    name: ClassVar[str] = "prec@k-avg"
    convex: ClassVar[bool] = True

    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        neg, pos = np.flatnonzero(y == 0), np.flatnonzero(y)
        j_max = min(k, len(neg))
        phi = _avg_weights(len(pos) - k, j_max)
        high_neg = neg[_largest(s[neg], j_max)]
        top_pos = pos[_largest(s[pos], k)]
        neg_gain = np.concatenate(([0.0], np.cumsum(s[high_neg] + 1.0)))
        top_pos_sums = np.concatenate(([0.0], np.cumsum(s[top_pos])))
        # sum_smallest(s⁺, c + j) = Σ s⁺ − sum_largest(s⁺, k − j)
        low_pos_sums = s[pos].sum() - top_pos_sums[k - np.arange(j_max + 1)]
        terms = neg_gain - phi * low_pos_sums
        best = int(np.argmax(terms))
        grad = _indicator(len(s), high_neg[:best])
        grad[pos] = -phi[best]
        grad[top_pos[:k - best]] = 0.0
        return float(terms[best]), grad

    def _term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return _avg_weights(n_pos - k, j_max), n_pos - k + np.arange(j_max + 1)

    def _cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        phi = _avg_weights(n_pos - k, j_max)
        slopes = np.diff(phi)  # the linear interpolation of the concave φ at 0..J
        return slopes, phi[:-1] - slopes * np.arange(j_max)

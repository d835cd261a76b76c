"""The four prec@k surrogates of Kar et al. 2015.

All four are maxima over candidate labelings ``ŷ`` with ``‖ŷ‖₁ = k`` and live on the loss
scale of eq. (1): the number of irrelevant items among the top ``k``, for ``1 <= k <= n₊``
(a float κ in (0, 1] means ``ceil(κ·n₊)``). Their closed forms, with ``s⁺``/``s⁻`` the
scores of the relevant/irrelevant items:

* struct, eq. (3): ``sum_largest(s + 1 − y, k) − y·s`` (convex, not an upper bound);
* ramp, eq. (4): ``sum_largest(s + 1 − y, k) − sum_largest(s⁺, k)`` (a difference of
  convex functions);
* max, eq. (6): ``Σ_{i ≤ min(k, n₋)} (1 + s⁻_(i) − s⁺_[i])₊``, the i-th highest negative
  paired with the i-th lowest positive (convex);
* avg, eq. (7): ``max_{j=0..J} [sum_largest(s⁻ + 1, j) − φ(j)·sum_smallest(s⁺, c + j)]``
  with ``j = k − k'`` the number of negatives the labeling selects, ``c = n₊ − k``,
  ``J = min(k, n₋)`` and ``φ(j) = j / (c + j)`` (``φ(0) = 0``) (convex).

Evaluation sorts only the top ``min(k, ·)`` entries of each class (a selection then a
sort), so value and subgradient cost ``O(n + k log k)`` and share that one sort; items tied
at a cut are chosen by index, on every CPU (:mod:`.top_indices`). The cvxpy
forms live in :mod:`._prec_dcp`.
"""

from __future__ import annotations

from abc import abstractmethod
from functools import lru_cache
from typing import Any, Callable, ClassVar

import numpy as np

from .. import reference
from .base import Bound, DifferenceOfConvex, PrecSurrogate
from .registry import register
from .segment import Segment, SegmentPoint, reach
from .top_indices import top_indices

#: The scores of given items (of the list, or of a point on a segment).
Scores = Callable[[np.ndarray], np.ndarray]

__all__ = ["SelectionSurrogate", "PrecStruct", "PrecRamp", "PrecMax", "PrecAvg"]


def _largest(values: np.ndarray, m: int) -> np.ndarray:
    """Indices of the ``m`` largest entries of ``values``, in decreasing order of value."""
    top = top_indices(values, m)
    return top[np.argsort(-values[top], kind="stable")]


def _top_sorted(score: Scores, items: np.ndarray, m: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``m`` highest-scoring of ``items`` in no order, their scores, and those scores in
    decreasing order (a sort of values, cheaper than ordering the items)."""
    values = score(items)
    if m < len(values):
        part = top_indices(values, m)
        items, values = items[part], values[part]
    return items, values, -np.sort(-values)


def _highest(items: np.ndarray, values: np.ndarray, j: int) -> np.ndarray:
    """The ``j`` of ``items`` with the highest ``values`` (ties by position in ``items``)."""
    return items if j >= len(items) else items[top_indices(values, j)]


def _indicator(n: int, index: np.ndarray) -> np.ndarray:
    """A length-``n`` vector equal to 1 on ``index`` and 0 elsewhere."""
    out = np.zeros(n)
    out[index] = 1.0
    return out


def _on_segment(s: np.ndarray, ds: np.ndarray) -> Callable[[float], Scores]:
    """``τ ↦`` the scores ``s + τ·ds`` of given items."""
    return lambda tau: (lambda items: s[items] + tau * ds[items])


def _loss_augmented_top(b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
    """``sum_largest(s + 1 − y, k)`` and the indicator of a maximizing set (its subgradient):
    ``max_{‖ŷ‖₁ = k} Δ(y, ŷ) + ŷ·s``, the first term of eqs. (3) and (4)."""
    augmented = s + (1 - b.y)
    top = _highest(np.arange(len(s)), augmented, b.k)
    # summed in decreasing order, as the ramp's concave part sums its top scores: with no
    # irrelevant item the two cancel exactly (a sort of values, no argsort)
    return float(-np.sort(-augmented[top]).sum()), _indicator(len(s), top)


def _top_positives(b: Bound, s: np.ndarray, m: int) -> np.ndarray:
    """Indices (into ``s``) of the ``m`` highest-scoring relevant items, decreasing."""
    return b.pos[_largest(s[b.pos], m)]


@lru_cache(maxsize=64)
def _avg_weights(c: int, j_max: int) -> np.ndarray:
    """``φ(j) = j / (c + j)`` for ``j = 0..j_max`` with ``φ(0) = 0``: the factor
    ``D_{k'} = (k − k') / (n₊ − k')`` of Algorithm 4 written in ``j = k − k'``. Cached
    (every evaluation on a list needs the same weights), so read-only."""
    j = np.arange(j_max + 1)
    phi = j / np.maximum(c + j, 1)
    phi.flags.writeable = False
    return phi


class SelectionSurrogate(PrecSurrogate):
    """max and avg: ``max_{j=0..J} [sum_largest(s⁻ + 1, j) − w_j·sum_smallest(s⁺, m_j)]``,
    ``J = min(k, n₋)``, whose cvxpy form is the compact LP dual of
    :func:`._prec_dcp.selection_lp_dual`. A subclass declares the dual over the items of
    :mod:`cvxtop.solvers.selection_dual` (``dual_form = "selection"``), which reads the
    terms through :meth:`term_weights` and :meth:`cap_pieces`."""

    dual_form: ClassVar[str | None] = "selection"
    intercept_from_irrelevant: ClassVar[bool] = True

    @abstractmethod
    def term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        """The weights ``w_j`` and widths ``m_j`` of the terms, ``j = 0..J``."""

    @abstractmethod
    def cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        """Slopes ``a_l`` and intercepts ``b_l`` of the LP's cap ``z <= a_l t + b_l``."""

    def _expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        import cvxpy as cp

        from . import _prec_dcp

        j_max = min(b.k, b.n_neg)
        if j_max == 0:  # no irrelevant item: only the empty selection, value 0
            return cp.Constant(0.0), []
        slopes, intercepts = self.cap_pieces(b.n_pos, b.k, j_max)
        return _prec_dcp.selection_lp_dual(s[b.neg], s[b.pos], j_max, slopes, intercepts)

    def literal_expression(self, y_true: Any, s: Any) -> Any:
        """The literal maximum of ``J + 1`` ``sum_largest`` terms (``O(k·n)`` variables),
        kept to check the compact form and to measure it."""
        from . import _prec_dcp

        b = self.bind(y_true)
        j_max = min(b.k, b.n_neg)
        weights, widths = self.term_weights(b.n_pos, b.k, j_max)
        return _prec_dcp.literal_selection(s[b.neg], s[b.pos], weights, widths)


@register
class PrecStruct(PrecSurrogate):
    """Structural SVM surrogate of Joachims (2005), Kar et al. 2015 eq. (3).

    ``max_{‖ŷ‖₁ = k} Δ(y, ŷ) + (ŷ − y)·s = sum_largest(s + 1 − y, k) − y·s``. Convex but
    *not* an upper bound on prec@k (Kar et al. 2015, Appendix A); it equals the avg
    surrogate when ``k = n₊``. Subgradient: the indicator of the top ``k`` of ``s + 1 − y``
    minus ``y``.
    """

    name: ClassVar[str] = "prec@k-struct"
    convex: ClassVar[bool] = True
    dual_form: ClassVar[str | None] = "box-struct"
    intercept_from_irrelevant: ClassVar[bool] = True
    definition = staticmethod(reference.prec_struct)

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        top_value, top_grad = _loss_augmented_top(b, s)
        return top_value - float(s[b.pos].sum()), top_grad - b.y

    def _segment(self, b: Bound, s: np.ndarray, ds: np.ndarray, T: float) -> Segment:
        augmented = s + (1 - b.y)
        items = reach(augmented, ds, T, np.arange(b.n), b.k)
        pos_s, pos_ds = float(s[b.pos].sum()), float(ds[b.pos].sum())
        scores = _on_segment(augmented, ds)

        def at(tau: float) -> SegmentPoint:
            top, top_scores, _ = _top_sorted(scores(tau), items, b.k)
            return SegmentPoint(float(top_scores.sum()) - (pos_s + tau * pos_ds),
                                float(ds[top].sum()) - pos_ds,
                                lambda: _indicator(b.n, top) - b.y)

        return at

    def _expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        from . import _prec_dcp

        return _prec_dcp.struct(b.y, s, b.k), []


@register
class PrecRamp(PrecSurrogate, DifferenceOfConvex):
    """Ramp surrogate, Kar et al. 2015 eq. (4): ``G(s) − H(s)`` with
    ``G = sum_largest(s + 1 − y, k)`` and ``H = sum_largest(s⁺, k)``.

    Not convex, so :meth:`expression` raises; the convex-concave procedure uses ``G``'s
    cvxpy form and ``H``'s subgradient. Its :meth:`subgradient` is the
    difference-of-convex "subgradient" ``∂G − ∂H``: the gradient where the function is
    smooth, but not a global under-estimator.
    """

    name: ClassVar[str] = "prec@k-ramp"
    convex: ClassVar[bool] = False
    definition = staticmethod(reference.prec_ramp)
    dca_start: ClassVar[str | None] = "prec@k-avg"

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        g_value, g_grad = _loss_augmented_top(b, s)
        top_pos = _top_positives(b, s, b.k)
        return g_value - float(s[top_pos].sum()), g_grad - _indicator(len(s), top_pos)

    def _convex_part_expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        from . import _prec_dcp

        return _prec_dcp.loss_augmented_top(b.y, s, b.k), []

    def _subtracted_subgradient(self, b: Bound, s: np.ndarray) -> np.ndarray:
        return _indicator(len(s), _top_positives(b, s, b.k))


@register
class PrecMax(SelectionSurrogate):
    """Max surrogate, Kar et al. 2015 eq. (6).

    ``max_{j ≤ J} [sum_largest(s⁻ + 1, j) − sum_smallest(s⁺, j)]
    = Σ_{i ≤ J} (1 + s⁻_(i) − s⁺_[i])₊``, ``J = min(k, n₋)``, pairing the i-th highest
    negative with the i-th lowest positive. Subgradient: +1 on the negatives and −1 on the
    positives of the pairs with a positive hinge (the maximizing ``j`` and its labeling).
    """

    name: ClassVar[str] = "prec@k-max"
    convex: ClassVar[bool] = True
    definition = staticmethod(reference.prec_max)
    perceptron: ClassVar[str | None] = "max"

    @staticmethod
    def _active_pairs(b: Bound, score: Scores, neg: np.ndarray, pos: np.ndarray
                      ) -> tuple[float, np.ndarray, np.ndarray]:
        """The value, and the negatives and positives of the pairs with a positive hinge
        (``neg``/``pos``: the candidates for the highest negatives and lowest positives)."""
        j_max = min(b.k, b.n_neg)
        neg_items, neg_values, high_scores = _top_sorted(score, neg, j_max)
        pos_items, pos_values, low_scores = _top_sorted(lambda items: -score(items), pos, j_max)
        hinge = 1.0 + high_scores + low_scores  # non-increasing, so the active pairs lead
        active = int(np.sum(hinge > 0))
        return (float(hinge[:active].sum()), _highest(neg_items, neg_values, active),
                _highest(pos_items, pos_values, active))

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        value, neg, pos = self._active_pairs(b, s.__getitem__, b.neg, b.pos)
        return value, _indicator(b.n, neg) - _indicator(b.n, pos)

    def _segment(self, b: Bound, s: np.ndarray, ds: np.ndarray, T: float) -> Segment:
        j_max = min(b.k, b.n_neg)
        neg, pos = reach(s, ds, T, b.neg, j_max), reach(-s, -ds, T, b.pos, j_max)
        scores = _on_segment(s, ds)

        def at(tau: float) -> SegmentPoint:
            value, high_neg, low_pos = self._active_pairs(b, scores(tau), neg, pos)
            return SegmentPoint(value, float(ds[high_neg].sum() - ds[low_pos].sum()),
                                lambda: _indicator(b.n, high_neg) - _indicator(b.n, low_pos))

        return at

    def term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return np.ones(j_max + 1), np.arange(j_max + 1)

    def cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(1), np.ones(1)  # z <= 1


@register
class PrecAvg(SelectionSurrogate):
    """Avg surrogate, Kar et al. 2015 eq. (7).

    With ``j = k − k'`` negatives selected, ``c = n₊ − k`` and ``φ(j) = j/(c + j)``:
    ``max_{j=0..min(k, n₋)} [sum_largest(s⁻ + 1, j) − φ(j)·sum_smallest(s⁺, c + j)]``.
    Equal to the struct surrogate when ``k = n₊``. The subgradient is Algorithm 4: for the
    best ``j``, +1 on the ``j`` highest negatives and ``−φ(j)`` on the positives outside
    the ``k − j`` highest ones (the false negatives of that labeling).
    """

    name: ClassVar[str] = "prec@k-avg"
    convex: ClassVar[bool] = True
    definition = staticmethod(reference.prec_avg)
    perceptron: ClassVar[str | None] = "avg"

    @staticmethod
    def _best_labeling(b: Bound, score: Scores, neg: np.ndarray, pos: np.ndarray,
                       pos_total: float) -> tuple[float, float, np.ndarray, np.ndarray]:
        """The value, the weight ``φ(j)`` of the best ``j``, its ``j`` highest negatives and
        the ``k − j`` highest positives it leaves out of the false negatives (``neg``/``pos``:
        the candidates for the highest ones; ``pos_total``: ``Σ s⁺``)."""
        k = b.k
        j_max = min(k, b.n_neg)
        phi = _avg_weights(b.n_pos - k, j_max)
        neg_items, neg_values, high_scores = _top_sorted(score, neg, j_max)
        pos_items, pos_values, top_scores = _top_sorted(score, pos, k)
        neg_gain = np.concatenate(([0.0], np.cumsum(high_scores + 1.0)))
        top_pos_sums = np.concatenate(([0.0], np.cumsum(top_scores)))
        # sum_smallest(s⁺, c + j) = Σ s⁺ − sum_largest(s⁺, k − j), j = 0..J
        low_pos_sums = pos_total - top_pos_sums[k - j_max:k + 1][::-1]
        terms = neg_gain - phi * low_pos_sums
        best = int(terms.argmax())
        return (float(terms[best]), float(phi[best]), _highest(neg_items, neg_values, best),
                _highest(pos_items, pos_values, k - best))

    @staticmethod
    def _subgradient_of(b: Bound, weight: float, high_neg: np.ndarray, top_pos: np.ndarray
                        ) -> np.ndarray:
        """Algorithm 4's subgradient: +1 on ``high_neg``, ``−φ(j)`` on the other positives
        than ``top_pos``."""
        grad = _indicator(b.n, high_neg)
        grad[b.pos] = -weight
        grad[top_pos] = 0.0
        return grad

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        value, weight, high_neg, top_pos = self._best_labeling(
            b, s.__getitem__, b.neg, b.pos, float(s[b.pos].sum()))
        return value, self._subgradient_of(b, weight, high_neg, top_pos)

    def _segment(self, b: Bound, s: np.ndarray, ds: np.ndarray, T: float) -> Segment:
        neg, pos = reach(s, ds, T, b.neg, min(b.k, b.n_neg)), reach(s, ds, T, b.pos, b.k)
        pos_s, pos_ds = float(s[b.pos].sum()), float(ds[b.pos].sum())
        scores = _on_segment(s, ds)

        def at(tau: float) -> SegmentPoint:
            value, weight, high_neg, top_pos = self._best_labeling(
                b, scores(tau), neg, pos, pos_s + tau * pos_ds)
            slope = float(ds[high_neg].sum()) - weight * (pos_ds - float(ds[top_pos].sum()))
            return SegmentPoint(value, slope,
                                lambda: self._subgradient_of(b, weight, high_neg, top_pos))

        return at

    def term_weights(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        return _avg_weights(n_pos - k, j_max), n_pos - k + np.arange(j_max + 1)

    def cap_pieces(self, n_pos: int, k: int, j_max: int) -> tuple[np.ndarray, np.ndarray]:
        phi = _avg_weights(n_pos - k, j_max)
        slopes = np.diff(phi)  # the linear interpolation of the concave φ at 0..J
        return slopes, phi[:-1] - slopes * np.arange(j_max)

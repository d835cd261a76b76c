"""A surrogate along a segment of scores, ``τ ↦ L(s + τ·ds)`` for ``τ`` in ``[0, T]``.

A line search evaluates the surrogate many times along one segment. The prec@k
surrogates depend on the scores only through the top (or bottom) ``m`` items of each class
and through sums that are linear in ``τ``, and along a short segment few items can ever
enter a top ``m``: with ``lo_i``/``hi_i`` the smallest and largest score of item ``i`` on the
segment, an item whose ``hi_i`` lies below the ``m``-th largest ``lo`` of its class is beaten
by ``m`` items at every ``τ`` (:func:`reach`). A surrogate that knows this evaluates the
segment on those candidates only (:meth:`Surrogate._segment`); every other surrogate is
evaluated on the whole list (:func:`whole_list`). Either way a point of the segment carries
the loss, the slope ``g·ds`` of a subgradient ``g`` and a way to build ``g`` itself, which
the line search needs only at the point it returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["SegmentPoint", "Segment", "reach", "whole_list"]


@dataclass(frozen=True)
class SegmentPoint:
    """``L`` at ``s + τ·ds``, the slope ``g·ds`` of a score subgradient ``g`` there, and a
    function that builds ``g`` (the whole score vector's length)."""

    loss: float
    slope: float
    subgradient: Callable[[], np.ndarray]


#: ``τ ↦ SegmentPoint`` for ``τ`` in ``[0, T]``.
Segment = Callable[[float], SegmentPoint]


def whole_list(value_and_subgradient: Callable[[np.ndarray], tuple[float, np.ndarray]],
               s: np.ndarray, ds: np.ndarray) -> Segment:
    """The segment evaluated on the whole list at every ``τ``."""

    def at(tau: float) -> SegmentPoint:
        loss, g = value_and_subgradient(s + tau * ds)
        return SegmentPoint(float(loss), float(g @ ds), lambda: g)

    return at


def reach(s: np.ndarray, ds: np.ndarray, T: float, index: np.ndarray, m: int) -> np.ndarray:
    """The items of ``index`` that can be among its ``m`` highest of ``s + τ·ds`` for some
    ``τ`` in ``[0, T]`` (every item of a top ``m`` at such a ``τ``, whatever the tie order).

    Floating-point rounding is monotone, so the computed ``s_i + τ·ds_i`` lies between the
    computed end points; an item whose highest end point is below the ``m``-th largest
    lowest end point is strictly below ``m`` items all along the segment.
    """
    if m <= 0 or m >= len(index):
        return index if m > 0 else index[:0]
    start, end = s[index], s[index] + T * ds[index]
    low, high = np.minimum(start, end), np.maximum(start, end)
    threshold = np.partition(low, len(low) - m)[len(low) - m]
    return index[high >= threshold]

"""Relative optimality gaps, ``(upper − lower)/|upper|``, and the least ``|upper|`` they
divide by.

A relative gap needs a floor under its denominator, for an objective of exactly 0 (a loss
of 0 at the zero model). A fixed floor of ``1e-12`` turned the gap into an absolute one
wherever the objective itself fell below it, which a small ``C`` does: the objective is at
most ``C·L(0)`` (the zero model's), so at ``C = 1e-30`` a model with ``½‖w‖² = 5e-28``,
270 times the zero model's objective, passed as certified within ``5e-16``. The floor
therefore scales with ``C`` below 1, ``1e-12·C`` (the objective's own scale there), and stays
``1e-12`` from ``C = 1`` up, where it binds only on an objective within 1e-12 of zero.

An objective near 0 can also be a difference of large terms. Kar et al. 2015's struct
surrogate (eq. (3)) is negative wherever the relevant items outscore the irrelevant ones
by enough, so the optimal ``½‖w‖² + C·L`` is about ``C·L(0) > 0`` at a small ``C`` and
negative at a large one, and at the ``C`` where it crosses 0 its terms cancel: on
``make_ranking_data(300, 5)`` at C = 0.0511257052 both are about 0.38 and the objective
within 4e-10 of 0. A gap relative to that objective asked the bounds for an accuracy no
float64 sum of the terms has, and every engine ended in ``SolverError`` after 2,000 rounds
(standardized MAGIC too, at C = 4.6348e-4, and at C = 4.64e-4 from ``tol = 1e-8`` on). So
a gap also divides by at least the regularizer ``½‖w‖²`` at the upper bound's point
(``regularizer``, :func:`half_square`), the size of the terms where they cancel. For a loss
that is never negative (every surrogate but the struct one) the objective is at least
``½‖w‖²``, and nothing changes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOOR", "gap_floor", "gap_scale", "half_square", "relative_gap", "within"]

#: The floor under a relative gap's denominator at ``C >= 1`` (module docstring).
FLOOR = 1e-12
_TINY = float(np.finfo(np.float64).tiny)


def gap_floor(C: float, floor: float = FLOOR) -> float:
    """The least ``|upper|`` a relative gap divides by at this ``C``: ``floor·min(1, C)``
    (``1e-12·min(1, C)`` by default), and never 0."""
    return max(floor * min(1.0, float(C)), _TINY)


def half_square(w: np.ndarray) -> float:
    """``½‖w‖²``, the regularizer at a point: what a relative gap divides by at least, for
    the point whose objective is its upper bound (module docstring)."""
    return 0.5 * float(w @ w)


def gap_scale(upper: float, C: float, regularizer: float = 0.0) -> float:
    """What a relative gap divides by: ``max(|upper|, regularizer, gap_floor(C))``, with
    ``regularizer`` the ``½‖w‖²`` of the point whose objective is ``upper`` (module
    docstring; 0 where the point is not at hand, the stricter scale)."""
    return max(abs(upper), regularizer, gap_floor(C))


def relative_gap(upper: float, lower: float, C: float, regularizer: float = 0.0) -> float:
    """``(upper − lower)/gap_scale(upper, C, regularizer)``."""
    return float((upper - lower) / gap_scale(upper, C, regularizer))


def within(upper: float, lower: float, tol: float, C: float, regularizer: float = 0.0
           ) -> bool:
    """Whether ``upper − lower <= tol·gap_scale(upper, C, regularizer)``."""
    return bool(upper - lower <= tol * gap_scale(upper, C, regularizer))

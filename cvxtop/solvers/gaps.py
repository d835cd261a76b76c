"""Relative optimality gaps, ``(upper − lower)/|upper|``, and the least ``|upper|`` they
divide by.

A relative gap needs a floor under its denominator, for an objective of exactly 0 (a loss
of 0 at the zero model). A fixed floor of ``1e-12`` turned the gap into an absolute one
wherever the objective itself fell below it, which a small ``C`` does: the objective is at
most ``C·L(0)`` (the zero model's), so at ``C = 1e-30`` a model with ``½‖w‖² = 5e-28``,
270 times the zero model's objective, passed as certified within ``5e-16``. The floor
therefore scales with ``C`` below 1, ``1e-12·C`` (the objective's own scale there), and stays
``1e-12`` from ``C = 1`` up, where it binds only on an objective within 1e-12 of zero.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOOR", "gap_floor", "relative_gap", "within"]

#: The floor under a relative gap's denominator at ``C >= 1`` (module docstring).
FLOOR = 1e-12
_TINY = float(np.finfo(np.float64).tiny)


def gap_floor(C: float, floor: float = FLOOR) -> float:
    """The least ``|upper|`` a relative gap divides by at this ``C``: ``floor·min(1, C)``
    (``1e-12·min(1, C)`` by default), and never 0."""
    return max(floor * min(1.0, float(C)), _TINY)


def relative_gap(upper: float, lower: float, C: float) -> float:
    """``(upper − lower)/max(|upper|, gap_floor(C))``."""
    return float((upper - lower) / max(abs(upper), gap_floor(C)))


def within(upper: float, lower: float, tol: float, C: float) -> bool:
    """Whether ``upper − lower <= tol·max(|upper|, gap_floor(C))``."""
    return bool(upper - lower <= tol * max(abs(upper), gap_floor(C)))

"""Badly scaled features: the exact engines solve an equivalent, well-scaled problem.

Dividing the features by ``s`` and multiplying ``C`` by ``s²`` gives the same problem:
``½‖w‖² + C·L(y, Zw) = (½‖w'‖² + C s²·L(y, (Z/s)w'))/s²`` with ``w' = s·w``, so its
minimizer is ``s·w*``, its values (and lower bounds) ``s²`` times the original ones, and
its relative gaps the same. With ``s`` a power of two every one of these maps is exact in
floating point. Interior-point and cutting-plane solvers work with absolute tolerances
around 1e-8, so features of magnitude 1e-6 (with ``C`` near 1e12) or 1e6 make them stop
early or call a feasible problem infeasible; the rescaled problem has features of
magnitude about 1 and is solved as well as any other.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from .._validation import is_sparse
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["SCALE_BAND", "feature_scale", "magnitude_scale", "rescaled", "scaled_C",
           "unscaled", "unscaled_callback"]

#: Features whose largest magnitude lies in ``[2^-SCALE_BAND, 2^SCALE_BAND]`` are solved as
#: given (bit for bit the problem the user posed); outside, they are divided by the power of
#: two nearest that magnitude.
SCALE_BAND = 10


def feature_scale(Z: Any) -> float:
    """:func:`magnitude_scale` of ``max |Z|``."""
    values = Z.data if is_sparse(Z) else Z
    if not np.size(values):
        return 1.0
    # the largest magnitude from the extremes: no |Z| temporary the size of the data
    return magnitude_scale(max(abs(float(values.max())), abs(float(values.min()))))


def magnitude_scale(largest: float) -> float:
    """``1.0`` for a feature magnitude within the band (or zero), else the power of two
    nearest to it."""
    if largest == 0.0 or 2.0 ** -SCALE_BAND <= largest <= 2.0 ** SCALE_BAND:
        return 1.0
    return 2.0 ** round(math.log2(largest))


def scaled_C(C: float, scale: float) -> float:
    """``C·scale²``, the ``C`` of the same problem on the features divided by ``scale``;
    ``ValueError`` naming ``X`` and ``C`` where it leaves float64's normal range (features
    near 1e±300, or a ``C`` that the features' scale pushes past it): no solver can pose
    that problem."""
    value = C * scale * scale
    if not np.isfinite(value) or value < np.finfo(np.float64).tiny:
        raise ValueError(
            f"X's largest magnitude (about 2^{int(math.log2(scale))}) and C = {C:.3g} pose a "
            f"problem whose C, with the features scaled to about 1, is C·scale² = {value:.3g}, "
            "outside float64's range: rescale X or C")
    return value


def rescaled(objective: RankingObjective, scale: float) -> RankingObjective:
    """The same problem on ``Z/scale`` with ``C·scale²`` (labels, groups and their bound
    surrogates shared, not rebuilt); ``ValueError`` as :func:`scaled_C`."""
    other = copy.copy(objective)
    other.C = scaled_C(objective.C, scale)
    other.Z = objective.Z / scale
    other.derived_values = {}  # (of the features, which changed: the digest too)
    other.zero_face_floor = other.zero_face_missed = 0.0
    return other


def unscaled(result: SolveResult, scale: float, *, dual: bool = False) -> SolveResult:
    """A result of the rescaled problem in the original problem's terms: values divided
    by ``scale²``, and ``coef`` by ``scale`` (a primal ``w``) or, with ``dual``, by
    ``scale²`` (dual variables ``α``, as AATP's: their problem's Gram matrix is divided by
    ``scale²`` and its ``C`` multiplied by it)."""
    factor = scale * scale

    def value(v: float | None) -> float | None:
        return None if v is None else v / factor

    coef = result.coef / (factor if dual else scale)
    return replace(result, coef=coef, objective=result.objective / factor,
                   lower_bound=value(result.lower_bound), solver_value=value(result.solver_value),
                   message=f"{result.message}; solved on the features divided by 2^"
                           f"{int(math.log2(scale))} with C multiplied by its square")


def unscaled_callback(callback: Callable[[int, float, float | None], None] | None,
                      scale: float) -> Callable[[int, float, float | None], None] | None:
    """A user's ``callback(round, upper, lower)`` fed the original problem's values."""
    if callback is None:
        return None
    factor = scale * scale

    def mapped(it: int, upper: float, lower: float | None) -> None:
        callback(it, upper / factor, None if lower is None else lower / factor)
    return mapped

"""Exact line search of the regularized objective along a segment.

Along ``w + τd`` (``τ >= 0``) the objective is

    φ(τ) = ½‖w + τd‖² + C·L(s + τ·ds),   ds = Z d,

a convex quadratic plus ``C`` times a convex function of one variable. Every surrogate
evaluation at ``τ_i`` gives a line below ``L`` (its value and the slope ``g_i·ds`` of a
subgradient), so the maximum of the lines seen is a model ``M ≤ L``. Minimizing the
quadratic plus ``C·M`` is exact and cheap (the minimizer is at ``0``, at a line's stationary
point or where two lines cross), and the surrogate is then evaluated there. When ``L``
agrees with the model at that point, the point minimizes ``φ`` itself, since the model lies
below ``L`` everywhere. For the piecewise-linear surrogates of the papers each evaluation
adds the piece active at the model's minimizer, so the search ends after a few evaluations,
at the exact minimizer (a kink or a stationary point), with no tolerance on ``τ``. The
model's minimum is also a lower bound on the minimum of ``φ``: a caller that needs the
step only to within some tolerance (the cutting plane, relative to its current gap) can
stop as soon as the best point evaluated is that close to the bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..surrogates.segment import SegmentPoint
from .objective import RankingObjective

__all__ = ["line_search", "LineSearch"]

#: Relative agreement of ``L`` with its model at which the model's minimizer is accepted
#: (rounding of the scores ``s + τ·ds``, not an approximation of the search).
AGREEMENT_RTOL = 1e-11


@dataclass(frozen=True)
class LineSearch:
    """The step ``tau``, the surrogate loss ``L`` at ``s + tau·ds`` and a score subgradient
    there, the number of surrogate evaluations, and whether the step is the exact
    minimizer."""

    tau: float
    loss: float
    grad: np.ndarray
    evaluations: int
    exact: bool


def _model_minimizer(intercepts: np.ndarray, slopes: np.ndarray, wd: float, dd: float,
                     C: float) -> tuple[float, float, float]:
    """Minimize ``½dd·τ² + wd·τ + C·max_j(a_j + m_j τ)`` over ``τ >= 0``; return the
    minimizer, the model's ``max_j`` at it and the minimum. The minimum of a convex
    function of one variable lies at ``0``, at a stationary point of one line's piece or at
    a crossing of two lines, so the smallest value over those candidates is the minimum."""
    roots = -(wd + C * slopes) / dd
    da = intercepts[:, None] - intercepts[None, :]
    dm = slopes[None, :] - slopes[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = (da / dm)[np.abs(dm) > 0]
    candidates = np.concatenate([[0.0], roots, crossings])
    candidates = candidates[np.isfinite(candidates) & (candidates >= 0)]
    model = (intercepts[None, :] + slopes[None, :] * candidates[:, None]).max(axis=1)
    values = 0.5 * dd * candidates ** 2 + wd * candidates + C * model
    best = int(values.argmin())
    return float(candidates[best]), float(model[best]), float(values[best])


def line_search(objective: RankingObjective, w: np.ndarray, s: np.ndarray, d: np.ndarray,
                ds: np.ndarray, max_evaluations: int = 30, tolerance: float = 0.0,
                start: tuple[float, np.ndarray] | None = None,
                below: tuple[float, float] | None = None) -> LineSearch:
    """Minimize ``φ(τ) = P(w + τd)`` over ``τ >= 0``, where ``s = Z w`` and ``ds = Z d``.

    Exact for piecewise-linear surrogates (all of the papers'). With ``tolerance > 0`` the
    search stops as soon as the best point evaluated is provably within ``tolerance`` of
    the minimum of ``φ`` (the model's minimum is a lower bound on it); that point, or the
    best one after ``max_evaluations``, is returned with ``exact=False``. ``start`` is ``L``
    and a score subgradient at ``s`` when the caller has them already (no evaluation then).
    ``below`` is the intercept and slope in ``τ`` of a line the caller knows to lie below
    ``L`` on the segment (the cutting plane's aggregate cut, exact at the master's point):
    the model starts with it, which saves evaluations and leaves the minimizer unchanged.

    The line of the subgradient at ``0`` bounds the search: ``φ(τ) >= φ(0)`` beyond
    ``T = 2·max(0, −(w·d + C·g₀·ds))/‖d‖²``, so the minimizer lies in ``[0, T]`` and the
    surrogate is evaluated along that segment only (:meth:`RankingObjective.segment`, which
    looks at the items that can reach a top-``k`` there).
    """
    dd, wd, C = float(d @ d), float(w @ d), objective.C
    evaluations = 0
    if start is None:
        start = objective.loss_and_score_gradient(s)
        evaluations += 1
    origin = SegmentPoint(start[0], float(start[1] @ ds), lambda: start[1])
    intercepts, slopes = [origin.loss], [origin.slope]
    if below is not None:  # a line the caller knows to lie below L (the model starts with it)
        intercepts.append(below[0])
        slopes.append(below[1])
    probes: list[tuple[float, SegmentPoint]] = [(0.0, origin)]

    def result(index: int, exact: bool) -> LineSearch:
        tau, point = probes[index]
        return LineSearch(tau, point.loss, point.subgradient(), evaluations, exact)

    t_max = 2.0 * -(wd + C * origin.slope) / dd if dd > 0 else 0.0
    if not t_max > 0:  # φ does not decrease from 0 (or d = 0)
        return result(0, True)
    along = objective.segment(s, ds, t_max)
    best_phi, best = C * origin.loss, 0  # φ(τ) − ½‖w‖² of the best probe
    while evaluations < max_evaluations:
        tau, model, lowest = _model_minimizer(np.array(intercepts), np.array(slopes), wd, dd,
                                              C)
        if tau == 0.0:  # the model equals L at 0, where a line touches it
            return result(0, True)
        if best_phi - lowest <= tolerance:
            break
        tau = min(tau, t_max)  # beyond it only by rounding
        point = along(tau)
        evaluations += 1
        probes.append((tau, point))
        intercepts.append(point.loss - point.slope * tau)
        slopes.append(point.slope)
        if point.loss - model <= AGREEMENT_RTOL * max(1.0, abs(point.loss)):
            return result(len(probes) - 1, True)
        phi = 0.5 * dd * tau * tau + wd * tau + C * point.loss
        if phi < best_phi:
            best_phi, best = phi, len(probes) - 1
    return result(best, False)

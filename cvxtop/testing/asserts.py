"""Assertions that compare another project's code with the definitions of the papers.

Each raises ``AssertionError`` with a message that can be read without a debugger: the
instance, both values, and what the definition does with it (the worst tie order at the
cut, the exact product κ·n₊, the point where a subgradient inequality fails, the certified
distance to the optimum).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .. import metrics, reference
from .._validation import check_labels, check_scores
from ..cutoff import pap_cutoff, prec_cutoff

__all__ = ["assert_metric_matches", "assert_surrogate_matches", "assert_cutoff_matches",
           "assert_near_optimum"]



def _instance(y: np.ndarray, s: np.ndarray, **params: Any) -> str:
    values = ", ".join(f"{name} = {value!r}" for name, value in params.items())
    return (f"y = {y.tolist()}, s = {[float(v) for v in s]}" +
            (f", {values}" if values else ""))


def _worst_order(y: np.ndarray, s: np.ndarray, k: int | None) -> str:
    """Items by decreasing score, tied ones irrelevant first (the pessimistic order every
    cvxtop definition uses), with the cut after the k-th."""
    order = np.lexsort((y, -s))
    shown = []
    for rank, i in enumerate(order, start=1):
        shown.append(f"{float(s[i]):g}{'+' if y[i] else '-'}")
        if k is not None and rank == k:
            shown.append("|")
    return " ".join(shown)


def _close(got: float, expected: float, rtol: float, atol: float) -> bool:
    return bool(np.isfinite(got)) and abs(got - expected) <= atol + rtol * abs(expected)


def _rounding(*scores: np.ndarray) -> float:
    """What floating point cannot tell apart in a value built from sums of these scores:
    a few units in the last place of the largest score, per item. Scores of 1e17 next to
    scores of 1 make any formula that adds them lose the small ones."""
    largest = max(float(np.max(np.abs(v), initial=0.0)) for v in scores)
    return 4.0 * len(scores[0]) * np.finfo(np.float64).eps * max(1.0, largest)


def _inputs(y: Any, s: Any) -> tuple[np.ndarray, np.ndarray]:
    y = check_labels(y, "y_true")
    s = check_scores(s, "y_score")
    return y, s


# ---- metrics ---------------------------------------------------------------------------------
def _metric_truth(name: str, y: np.ndarray, s: np.ndarray, param: Any) -> float:
    """The metric by its definition: the enumerations of :mod:`cvxtop.reference` for
    precision@k (k <= n₊) and pAp@k, :mod:`cvxtop.metrics` (tested against them) else."""
    n_pos = int(y.sum())
    if name == "precision_at_k":
        k = prec_cutoff(param, n_pos) if isinstance(param, float) else int(param)
        if k <= n_pos:
            return 1.0 - reference.prec_at_k_loss(y, s, k) / k
    if name == "pap_at_k":
        return 1.0 - reference.pap_risk(y, s, param)
    args = () if metrics.PARAMETERS[name] is None else (param,)
    return float(metrics.METRICS[name](y, s, *args))


def assert_metric_matches(metric: Callable[..., float], name: str, y_true: Any, y_score: Any,
                          param: Any = None, *, rtol: float = 1e-9,
                          atol: float = 1e-12) -> None:
    """``metric(y_true, y_score[, param])`` equals cvxtop's ``name`` (a key of
    :data:`cvxtop.metrics.METRICS`; ``param`` is its ``k`` or ``tau``) on this instance.

    Ties at the cut are pessimistic, as in Kar et al. 2015 eq. (1) and Hiranandani et al.
    2020 eq. (1): the failure message shows that worst order.
    """
    if name not in metrics.PARAMETERS:
        raise ValueError(f"name must be one of {sorted(metrics.PARAMETERS)}, got {name!r}")
    y, s = _inputs(y_true, y_score)
    expected = _metric_truth(name, y, s, param)
    args = () if metrics.PARAMETERS[name] is None else (param,)
    got = float(metric(y_true, y_score, *args))
    if not _close(got, expected, rtol, atol):
        k = None
        if metrics.PARAMETERS[name] == "k":
            k = prec_cutoff(param, int(y.sum())) if isinstance(param, float) else int(param)
        shown = {metrics.PARAMETERS[name]: param} if metrics.PARAMETERS[name] else {}
        raise AssertionError(
            f"{name} differs from its definition on {_instance(y, s, **shown)}: got "
            f"{got!r}, expected {expected!r}. Items by decreasing score, ties irrelevant "
            f"first (the definition's worst order; '|' is the cut): {_worst_order(y, s, k)}")


# ---- surrogates -------------------------------------------------------------------------------
def _surrogate_reference(name: str) -> tuple[Callable[..., float], bool]:
    if name not in reference.SURROGATES:
        raise ValueError(f"name must be one of {sorted(reference.SURROGATES)}, got {name!r}")
    return reference.SURROGATES[name]


def _resolved_k(name: str, y: np.ndarray, k: Any) -> int:
    if name.startswith("prec"):
        return prec_cutoff(k, int(y.sum()))
    return pap_cutoff(k, len(y) - int(y.sum()))


def _probe_points(s: np.ndarray) -> list[np.ndarray]:
    """Points around ``s`` where a subgradient inequality fails if a term is wrong: each
    coordinate moved by ±1 and ±1/2, every coordinate reversed in sign, all zero."""
    points = []
    for i in range(len(s)):
        for step in (1.0, -1.0, 0.5, -0.5):
            t = s.copy()
            t[i] += step
            points.append(t)
    points += [-s, np.zeros_like(s), s + np.linspace(-1.0, 1.0, len(s))]
    return points


def assert_surrogate_matches(value: Callable[..., float], name: str, y_true: Any,
                             y_score: Any, k: Any, *,
                             subgradient: Callable[..., Any] | None = None,
                             rtol: float = 1e-9, atol: float = 1e-9) -> None:
    """``value(y_true, y_score, k)`` equals the enumeration of surrogate ``name``
    (:data:`cvxtop.reference.SURROGATES`), and, for a convex surrogate, the user's values
    are convex along lines and ``subgradient(y_true, y_score, k)`` (when given) satisfies
    ``f(s') >= f(s) + g·(s' − s)`` at probe points ``s'`` with the true ``f``.

    ``k`` follows cvxtop's conventions (a float κ for prec@κ means ``ceil(κ·n₊)``); the
    user's functions receive it as given.
    """
    truth, convex = _surrogate_reference(name)
    y, s = _inputs(y_true, y_score)
    k_int = _resolved_k(name, y, k)
    expected = truth(y, s, k_int)
    got = float(value(y_true, y_score, k))
    where = _instance(y, s, k=k)
    if not _close(got, expected, rtol, atol + _rounding(s)):
        raise AssertionError(f"{name} differs from its definition on {where}: got {got!r}, "
                             f"expected {expected!r} (the enumeration of "
                             f"cvxtop.reference.{truth.__name__} at k = {k_int})")
    if not convex:
        return
    for other in _probe_points(s)[::3]:
        mid = 0.5 * (s + other)
        left, right = float(value(y, mid, k)), 0.5 * (got + float(value(y, other, k)))
        if left > right + atol + rtol * abs(right) + _rounding(s, other):
            raise AssertionError(f"{name} is not convex along the line from s to s' = "
                                 f"{other.tolist()} on {where}: f(midpoint) = {left!r} > "
                                 f"mean of the ends {right!r}")
    if subgradient is None:
        return
    g = np.asarray(subgradient(y_true, y_score, k), dtype=np.float64)
    if g.shape != s.shape or not np.all(np.isfinite(g)):
        raise AssertionError(f"the subgradient of {name} on {where} must be {len(s)} finite "
                             f"numbers, got {g.tolist()}")
    for other in _probe_points(s):
        bound = expected + float(g @ (other - s))
        actual = truth(y, other, k_int)
        slack = atol + rtol * abs(bound) + _rounding(s, other) * (1.0 + np.abs(g).sum())
        if actual < bound - slack:
            raise AssertionError(
                f"g = {g.tolist()} is not a subgradient of {name} on {where}: at s' = "
                f"{other.tolist()} the definition gives f(s') = {actual!r} < f(s) + g·(s' − s) "
                f"= {bound!r}")


# ---- cut-offs --------------------------------------------------------------------------------
def assert_cutoff_matches(cutoff: Callable[[Any, int], int], k: Any, n_pos: int) -> None:
    """``cutoff(k, n_pos)`` is prec@k's cut-off: ``k`` itself for an int, and for a float
    κ the smallest integer at or above κ·n₊ computed exactly (``ceil``, at least 1; Kar et
    al. 2015's prec@κ), as :func:`cvxtop.cutoff.prec_cutoff` and every cvxtop solver use."""
    expected = prec_cutoff(k, n_pos)
    got = cutoff(k, n_pos)
    if got != expected:
        exact = Fraction(k) * n_pos if isinstance(k, float) else Fraction(k)
        raise AssertionError(
            f"cut-off of k = {k!r} with n₊ = {n_pos}: got {got!r}, expected {expected} "
            f"(κ·n₊ = {float(exact)!r} in floating point, {exact} exactly as the float κ "
            f"holds it; the cut-off is its ceiling, at least 1)")


# ---- optimizers -------------------------------------------------------------------------------
def assert_near_optimum(w: Any, X: Any, y: Any, surrogate: str, k: Any, C: float, *,
                        rtol: float = 0.01, groups: Any = None) -> float:
    """Your solution ``w`` of ``½‖w‖² + C·L(y, Xw)`` is within ``rtol`` (relative) of the
    optimum, certified by cvxtop's exact solver and its lower bound. Returns the
    certified relative excess ``(f(w) − lower bound)/|lower bound|`` (an upper bound on the
    true excess). Loads cvxpy on first use.
    """
    import warnings

    from ..estimators import TopRanker
    from ..solvers import RankingObjective
    from ..surrogates import get

    w = np.asarray(w, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if w.shape != (X.shape[1],):
        raise ValueError(f"w must have shape ({X.shape[1]},) to match X, got {w.shape}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a zero-model optimum is no error here
        exact = TopRanker(surrogate, k=k, C=C, tol=min(1e-6, rtol / 10)).fit(X, y,
                                                                           groups=groups)
    objective = RankingObjective(X, check_labels(y, "y"), get(surrogate, k), float(C),
                                 groups)
    value = objective.value(w)
    lower = float(exact.lower_bound_)
    excess = (value - lower) / max(abs(lower), math.ulp(1.0))
    if excess > rtol:
        raise AssertionError(
            f"w is not within rtol = {rtol:g} of the optimum of {surrogate} (k = {k!r}, C = "
            f"{C!r}): its objective {value!r} is {excess:.3%} above the certified lower "
            f"bound {lower!r} (cvxtop's optimum: {exact.objective_!r}, so at least "
            f"{(value - exact.objective_) / max(abs(lower), math.ulp(1.0)):.3%} above the "
            "optimum)")
    return float(excess)

"""Assertions that compare another project's code with the definitions of the papers.

Each raises ``AssertionError`` with a message that can be read without a debugger: the
instance, both values, and what the definition does with it (the worst tie order at the
cut, the exact product κ·n₊, the point where a subgradient inequality fails, the certified
distance to the optimum).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable

import numpy as np

from .. import metrics, reference, surrogates
from .._validation import (check_features, check_labels, check_ranked_scores,
                           check_same_length, check_scores, check_vector, exact_decimal)
from ..cutoff import is_fraction, prec_cutoff, tau_cutoff
from ..groups import Groups

__all__ = ["assert_metric_matches", "assert_surrogate_matches", "assert_cutoff_matches",
           "set_tolerances",
           "assert_near_optimum"]



def _instance(y: np.ndarray, s: np.ndarray, **params: Any) -> str:
    values = ", ".join(f"{name} = {value!r}" for name, value in params.items())
    return (f"y = {y.tolist()}, s = {[float(v) for v in s]}" +
            (f", {values}" if values else ""))


def _worst_order(y: np.ndarray, s: np.ndarray, cut: int | None, irrelevant: bool = False
                 ) -> str:
    """Items by decreasing score, tied ones irrelevant first (the pessimistic order every
    cvxtop definition uses), with the cut (``|``) after the ``cut``-th item, or with
    ``irrelevant`` after the ``cut``-th irrelevant item (pAp@k and partial AUC count
    their k among the irrelevant items)."""
    order = np.lexsort((y, -s))
    shown, seen = [], 0
    for rank, i in enumerate(order, start=1):
        shown.append(f"{float(s[i]):g}{'+' if y[i] else '-'}")
        seen = seen + (not y[i]) if irrelevant else rank
        if cut is not None and seen == cut and not (irrelevant and y[i]):
            shown.append("|")
    return " ".join(shown)


def _metric_cut(name: str, y: np.ndarray, param: Any) -> tuple[int | None, bool, str]:
    """Where ``name`` cuts the worst order: (cut, counted among irrelevant items, words)."""
    kind = metrics.PARAMETERS[name]
    if name == "precision_at_k":
        k = _precision_cutoff(param, y)
        return k, False, f"the cut after the {k}-th item"
    if name in ("pap_at_k", "partial_auc"):
        return int(param), True, f"the cut after the {int(param)}-th irrelevant item"
    if kind == "k":
        return int(param), False, f"the cut after the {int(param)}-th item"
    if kind == "tau":
        m = tau_cutoff(param, len(y))
        return m, False, f"the cut after item ceil(τ·n) = {m}"
    return None, False, "no cut"


def _close(got: float, expected: float, rtol: float, atol: float) -> bool:
    return bool(np.isfinite(got)) and abs(got - expected) <= atol + rtol * abs(expected)


#: The tolerances the assertions use when not given: ``rtol`` follows the scores' dtype
#: (``max(1e-9, 100·ε)``: 1e-9 for float64 and integers, about 1.2e-5 for float32);
#: :func:`set_tolerances` changes them for a whole suite (a ``conftest.py``).
_DEFAULTS: dict[str, float | None] = {"rtol": None, "atol": None}


def set_tolerances(*, rtol: float | None = None, atol: float | None = None) -> None:
    """Set the tolerances the assertions use when a call gives none (``None``: back to
    the dtype-based rule), for every test of a suite: call it in ``conftest.py`` next to
    ``settings.load_profile("cvxtop")``."""
    _DEFAULTS["rtol"] = None if rtol is None else _tolerance(rtol, "rtol")
    _DEFAULTS["atol"] = None if atol is None else _tolerance(atol, "atol")


def _default_tolerances(y_score: Any, rtol: Any, atol: Any, atol_default: float
                        ) -> tuple[float, float]:
    """The call's tolerances, else the suite's (:func:`set_tolerances`), else ``rtol``
    from the scores' dtype."""
    if rtol is None:
        rtol = _DEFAULTS["rtol"]
    if rtol is None:
        dtype = np.asarray(y_score).dtype
        eps = float(np.finfo(dtype).eps) if dtype.kind == "f" else 0.0
        rtol = max(1e-9, 100.0 * eps)
    if atol is None:
        atol = atol_default if _DEFAULTS["atol"] is None else _DEFAULTS["atol"]
    return _tolerance(rtol, "rtol"), _tolerance(atol, "atol")


def _tolerance(value: Any, name: str) -> float:
    """``rtol`` or ``atol``: a finite number ``>= 0`` (NaN would make every check pass)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number >= 0, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def _user_value(function: Callable[..., Any], what: str, *args: Any) -> float:
    """The user's function's value as a float, which must be finite."""
    value = float(function(*args))
    if not math.isfinite(value):
        raise AssertionError(f"{what} returned {value!r}, not a finite number")
    return value


def _rounding(*scores: np.ndarray) -> float:
    """What floating point cannot tell apart in a value built from sums of these scores:
    a few units in the last place of the largest score, per item. Scores of 1e17 next to
    scores of 1 make any formula that adds them lose the small ones."""
    largest = max(float(np.max(np.abs(v), initial=0.0)) for v in scores)
    return 4.0 * len(scores[0]) * np.finfo(np.float64).eps * max(1.0, largest)


def _inputs(y: Any, s: Any, ranked: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Labels, and scores: exact ``float64`` values (surrogates), or with ``ranked`` the
    exact order and ties of any integer scores (metrics compare scores only)."""
    y = check_labels(y, "y_true")
    s = check_ranked_scores(s, "y_score")[0] if ranked else check_scores(s, "y_score")
    check_same_length(y_true=y, y_score=s)
    return y, s


# ---- metrics ---------------------------------------------------------------------------------
#: Lists up to this long are checked against the enumerations of :mod:`cvxtop.reference`;
#: longer ones (the decimal traps of prec@κ need 25 relevant items) against the metrics.
ENUMERATED_ITEMS = 16


def _metric_truth(name: str, y: np.ndarray, s: np.ndarray, param: Any) -> float:
    """The metric by its definition: the enumerations of :mod:`cvxtop.reference` for
    precision@k (k <= n₊) and pAp@k on lists of up to :data:`ENUMERATED_ITEMS` items,
    :mod:`cvxtop.metrics` (tested against them) else."""
    small = len(y) <= ENUMERATED_ITEMS
    if small and name == "precision_at_k":
        k = _precision_cutoff(param, y)
        if k <= int(y.sum()):
            return 1.0 - reference.prec_at_k_loss(y, s, k) / k
    if small and name == "pap_at_k":
        return 1.0 - reference.pap_risk(y, s, param)
    args = () if metrics.PARAMETERS[name] is None else (param,)
    return float(metrics.METRICS[name](y, s, *args))


def assert_metric_matches(metric: Callable[..., float], name: str, y_true: Any, y_score: Any,
                          param: Any = None, *, groups: Any = None,
                          rtol: float | None = None, atol: float | None = None,
                          **options: Any) -> None:
    """``metric(y_true, y_score[, param])`` equals cvxtop's ``name`` (a key of
    :data:`cvxtop.metrics.METRICS`; ``param`` is its ``k`` or ``tau``) on this instance.

    ``options`` are the cvxtop metric's own, to state the convention the checked library
    follows: ``ties="average"`` (scikit-learn's ``ndcg_score``), ``ties="threshold"``
    (``average_precision_score``), ``ties="order", tie_key=...`` (a library's given order),
    ``ties="half"`` (ROC AUC's Mann-Whitney count); by default ties at the cut are
    pessimistic, as in Kar et al. 2015 eq. (1) and Hiranandani et al. 2020 eq. (1), and
    the failure message shows that worst order. With ``groups`` (one list id per item)
    the check runs per list, the unit of per-query libraries: ``metric`` gets each list's
    items (and ``param``), and a failure names the list. ``rtol`` and ``atol`` default to
    the suite's (:func:`set_tolerances`), else ``rtol`` follows the scores' dtype (a
    float32 library's correct result passes) and ``atol`` is 1e-12.
    """
    if not isinstance(name, str) or name not in metrics.PARAMETERS:
        raise ValueError(f"name must be one of {sorted(metrics.PARAMETERS)}, got {name!r}")
    rtol, atol = _default_tolerances(y_score, rtol, atol, 1e-12)
    y, s = _inputs(y_true, y_score, ranked=True)
    if groups is None:
        _check_one_list(metric, name, y_true, y_score, y, s, param, rtol, atol, options, "")
        return
    lists = Groups.of(groups, len(y))
    key = options.get("tie_key")
    for code, index in enumerate(lists):
        listed = dict(options)
        if key is not None:
            listed["tie_key"] = np.asarray(key)[index]
        _check_one_list(metric, name, np.asarray(y_true)[index], np.asarray(y_score)[index],
                        y[index], s[index], param, rtol, atol, listed,
                        f" in list {lists.id(code)!r}")


def _check_one_list(metric: Callable[..., float], name: str, y_given: Any, s_given: Any,
                    y: np.ndarray, s: np.ndarray, param: Any, rtol: float, atol: float,
                    options: dict[str, Any], where: str) -> None:
    args = () if metrics.PARAMETERS[name] is None else (param,)
    if options:
        expected = float(metrics.METRICS[name](y, s, *args, **options))
    else:
        expected = _metric_truth(name, y, s, param)
    got = float(metric(y_given, s_given, *args))
    if _close(got, expected, rtol, atol):
        return
    shown = {metrics.PARAMETERS[name]: param} if metrics.PARAMETERS[name] else {}
    policy = options.get("ties")
    if policy not in (None, "pessimistic", "error"):
        order = f"Ties by the policy {policy!r} (cvxtop.ties)."
    else:
        cut, irrelevant, words = _metric_cut(name, y, param)
        order = ("Items by decreasing score, ties irrelevant first (the definition's worst "
                 f"order; '|' is {words}): {_worst_order(y, s, cut, irrelevant)}")
    raise AssertionError(
        f"{name} differs from its definition{where} on {_instance(y, s, **shown)}: got "
        f"{got!r}, expected {expected!r}. {order}")


# ---- surrogates -------------------------------------------------------------------------------
def _surrogate_reference(name: str) -> tuple[Callable[..., float], bool]:
    if name not in reference.SURROGATES:
        raise ValueError(f"name must be one of {sorted(reference.SURROGATES)}, got {name!r}")
    return reference.SURROGATES[name]


def _precision_cutoff(k: Any, y: np.ndarray) -> int:
    """precision_at_k's cut-off: an int ``k``, or prec@κ's ``ceil(κ·n₊)`` for a fraction."""
    return prec_cutoff(k, int(y.sum())) if is_fraction(k) else int(k)


def _resolved_k(name: str, y: np.ndarray, k: Any) -> int:
    """The surrogate's own rule for ``k`` on these labels (its family's, not its name's)."""
    return surrogates.get(name, k).resolve_k(y)


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
                             rtol: float | None = None, atol: float | None = None) -> None:
    """``value(y_true, y_score, k)`` equals the enumeration of surrogate ``name``
    (:data:`cvxtop.reference.SURROGATES`), and, for a convex surrogate, the user's values
    are convex along lines and ``subgradient(y_true, y_score, k)`` (when given) satisfies
    ``f(s') >= f(s) + g·(s' − s)`` at probe points ``s'`` with the true ``f``.

    ``k`` follows cvxtop's conventions (a float κ for prec@κ means ``ceil(κ·n₊)``); the
    user's functions receive it as given. Tolerances as :func:`assert_metric_matches`
    (``atol`` 1e-9 by default).
    """
    truth, convex = _surrogate_reference(name)
    rtol, atol = _default_tolerances(y_score, rtol, atol, 1e-9)
    y, s = _inputs(y_true, y_score)
    k_int = _resolved_k(name, y, k)
    expected = truth(y, s, k_int)
    where = _instance(y, s, k=k)
    got = _user_value(value, f"your {name} on {where}", y_true, y_score, k)
    if not _close(got, expected, rtol, atol + _rounding(s)):
        raise AssertionError(f"{name} differs from its definition on {where}: got {got!r}, "
                             f"expected {expected!r} (the enumeration of "
                             f"cvxtop.reference.{truth.__name__} at k = {k_int})")
    if not convex:
        return
    for other in _probe_points(s)[::3]:
        mid = 0.5 * (s + other)
        left = _user_value(value, f"your {name} at s' = {mid.tolist()} (y and k of {where})",
                           y, mid, k)
        right = 0.5 * (got + _user_value(value, f"your {name} at s' = {other.tolist()} (y "
                                          f"and k of {where})", y, other, k))
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
    """``cutoff(k, n_pos)`` is prec@k's cut-off: ``k`` itself for an int, and for a
    fraction κ the smallest integer at or above κ·n₊, computed exactly on the decimal κ was
    written as (``ceil``, at least 1; Kar et al. 2015's prec@κ; the rule of
    :mod:`cvxtop.cutoff`), as :func:`cvxtop.cutoff.prec_cutoff` and every cvxtop solver
    use. ``k`` and ``n_pos`` are checked first (``ValueError``/``TypeError``)."""
    expected = prec_cutoff(k, n_pos)
    got = cutoff(k, n_pos)
    if isinstance(got, (bool, np.bool_)) or got != expected:
        if is_fraction(k):
            decimal = exact_decimal(k, "k")
            detail = (f"κ·n₊ = {float(k) * n_pos!r} in floating point, but the rule takes "
                      f"the decimal κ was written as, {decimal}, so κ·n₊ = "
                      f"{decimal * n_pos} exactly; the cut-off is its ceiling, at least 1")
        else:
            detail = "an int k is the cut-off itself"
        raise AssertionError(f"cut-off of k = {k!r} with n₊ = {n_pos}: got {got!r}, expected "
                             f"{expected} ({detail})")


# ---- optimizers -------------------------------------------------------------------------------
def assert_near_optimum(w: Any, X: Any, y: Any, surrogate: str, k: Any, C: float, *,
                        rtol: float = 0.01, groups: Any = None) -> float:
    """Your solution ``w`` of ``½‖w‖² + C·L(y, Xw)`` is within ``rtol`` (relative) of the
    optimum, certified by cvxtop's exact solver and its lower bound. Returns the
    certified relative excess ``(f(w) − lower bound)/|lower bound|`` (an upper bound on the
    true excess), over at least the optimum's ``½‖w*‖²`` (an objective that its terms
    cancel to near 0, as prec@k-struct's does at one C, has no relative accuracy of its own:
    :mod:`cvxtop.solvers.gaps`). Loads cvxpy on first use.
    """
    import warnings

    from ..estimators import TopRanker
    from ..solvers import RankingObjective
    from ..solvers.gaps import gap_floor, half_square
    from ..surrogates import get

    rtol = _tolerance(rtol, "rtol")
    X = check_features(X, "X")
    w = check_vector(w, X.shape[1], "w")  # finite: a NaN or inf solution is no solution
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a zero-model optimum is no error here
        exact = TopRanker(surrogate, k=k, C=C, tol=min(1e-6, rtol / 10)).fit(X, y,
                                                                           groups=groups)
    objective = RankingObjective(X, check_labels(y, "y"), get(surrogate, k), float(C),
                                 groups)
    value = objective.value(w)
    lower = float(exact.lower_bound_)
    # the floor follows C below 1, where the optimum is at most C·L(0): a fixed one made
    # the test absolute there (at C = 1e-20 a w 100 times the optimum passed)
    scale = max(abs(lower), half_square(exact.coef_), gap_floor(C, floor=math.ulp(1.0)))
    excess = (value - lower) / scale
    if excess > rtol:
        raise AssertionError(
            f"w is not within rtol = {rtol:g} of the optimum of {surrogate} (k = {k!r}, C = "
            f"{C!r}): its objective {value!r} is {excess:.3%} above the certified lower "
            f"bound {lower!r} (cvxtop's optimum: {exact.objective_!r}, so at least "
            f"{(value - exact.objective_) / scale:.3%} above the "
            "optimum)")
    return float(excess)

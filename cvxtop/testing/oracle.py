"""Answers to ground-truth questions asked as JSON, for projects that cannot call Python.

:func:`answer` takes one case (a JSON object) and returns one answer (a JSON object with
stable keys, numbers as numbers). ``cvxtop oracle`` applies it to every line of its
standard input (JSON Lines) in one process, and flushes every answer as soon as it is
written, so a client may write one line and wait for its answer. The operations:

==============  ==========================================  ===============================
``op``          fields of the case                          fields of the answer
==============  ==========================================  ===============================
``metric``      ``name`` (of ``cvxtop.metrics.METRICS``),   ``value``
                ``y``, ``s``, and ``k``, ``kappa`` or
                ``tau``
``surrogate``   ``name``, ``y``, ``s``, ``k`` or ``kappa``  ``value``, ``subgradient``
``reference``   ``name`` (a surrogate, ``prec_at_k_loss``   ``value`` (the enumeration of
                or ``pap_risk``), ``y``, ``s``, ``k`` or    the definition)
                ``kappa``
``cutoff``      ``k`` or ``kappa``, ``n_pos``               ``value`` (the integer cut-off)
``optimum``     ``surrogate``, ``k`` or ``kappa``, ``C``,   ``coef``, ``objective``,
                ``X`` (rows), ``y``, optional ``groups``    ``lower_bound``, ``gap``,
                                                            ``status``
==============  ==========================================  ===============================

**Cut-offs: ``k`` counts, ``kappa`` is a fraction.** ``k`` must be a JSON integer (``1``,
not ``1.0``); ``kappa`` is a number in (0, 1] meaning ``ceil(κ·n₊)`` (prec@κ, exactly on
the decimal written, :mod:`cvxtop.cutoff`). Many JSON writers print the float ``1.0`` as
``1``, so a single field could not tell κ = 1 (every relevant item) from k = 1: a case
gives one of the two fields, never both.

Every answer has ``id`` (the case's own ``id``, or ``null``) and ``ok``; a case that cannot
be answered (a missing or bad field, a value that overflows ``float64``, a line that is not
JSON, or NaN and Infinity, which are not JSON) gets ``ok: false`` and ``error`` (the message
that names the field), and the stream goes on.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from .. import metrics, reference
from .._validation import (check_fraction, check_labels, check_matrix, check_ranked_scores,
                           check_scores)
from ..cutoff import is_fraction, prec_cutoff
from ..reference import SURROGATES

__all__ = ["answer", "OPERATIONS", "run_lines"]

#: What ``op: reference`` enumerates: every surrogate and the two metrics by name.
_REFERENCE = {**{name: function for name, (function, _) in reference.SURROGATES.items()},
              "prec_at_k_loss": reference.prec_at_k_loss, "pap_risk": reference.pap_risk}


def _field(case: dict[str, Any], name: str) -> Any:
    if name not in case:
        raise ValueError(f"the case needs a field {name!r}")
    return case[name]


def _name(case: dict[str, Any], field: str, allowed: Any) -> str:
    """A field naming one of ``allowed`` (checked as a string first)."""
    name = _field(case, field)
    if not isinstance(name, str) or name not in allowed:
        raise ValueError(f"{field} must be one of {sorted(allowed)}, got {name!r}")
    return name


def _cutoff_field(case: dict[str, Any]) -> int | float:
    """``k`` (a JSON integer: a count) or ``kappa`` (a fraction), exactly one of them."""
    if "k" in case and "kappa" in case:
        raise ValueError("give the field 'k' (an integer count) or 'kappa' (a fraction in "
                         "(0, 1]), not both")
    if "kappa" in case:
        kappa = case["kappa"]
        if isinstance(kappa, bool) or not isinstance(kappa, (int, float)):
            raise TypeError(f"kappa must be a number in (0, 1], got {kappa!r}")
        check_fraction(kappa, "kappa", closed_right=True)
        return float(kappa)
    if "k" not in case:
        raise ValueError("the case needs a field 'k' (an integer count) or 'kappa' (a "
                         "fraction in (0, 1])")
    k = case["k"]
    if isinstance(k, bool) or not isinstance(k, int):
        hint = " (a fraction of the relevant items goes in 'kappa')" \
            if isinstance(k, float) else ""
        raise TypeError(f"k must be a JSON integer, got {k!r}{hint}")
    return k


def _labels(case: dict[str, Any]) -> np.ndarray:
    return check_labels(_field(case, "y"), "y")


def _same_length(y: np.ndarray, s: Any) -> None:
    if len(y) != len(s):
        raise ValueError(f"y and s must have the same length, got {len(y)} and {len(s)}")


def _metric(case: dict[str, Any]) -> dict[str, Any]:
    name = _name(case, "name", metrics.METRICS)
    y, s = _labels(case), _field(case, "s")
    _same_length(y, check_ranked_scores(s, "s")[0])  # s as given: ranked exactly
    parameter = metrics.PARAMETERS[name]
    if parameter == "k":
        args = [_cutoff_field(case)]
        if name != "precision_at_k" and "kappa" in case:
            raise ValueError(f"{name} takes an integer k, not kappa")
    else:
        args = [] if parameter is None else [_field(case, parameter)]
    return {"value": float(metrics.METRICS[name](y, s, *args))}


def _surrogate(case: dict[str, Any]) -> dict[str, Any]:
    from ..surrogates import available, get

    surrogate = get(_name(case, "name", available()), _cutoff_field(case))
    y, s = _labels(case), check_scores(_field(case, "s"), "s")
    _same_length(y, s)
    value, grad = surrogate.value_and_subgradient(y, s)
    return {"value": float(value), "subgradient": np.asarray(grad, dtype=float).tolist()}


def _reference(case: dict[str, Any]) -> dict[str, Any]:
    name = _name(case, "name", _REFERENCE)
    y, s, k = _labels(case), _field(case, "s"), _cutoff_field(case)
    _same_length(y, check_ranked_scores(s, "s")[0])
    if name in SURROGATES:
        from ..surrogates import get

        s = check_scores(s, "s")
        k = get(name, k).resolve_k(y)
    elif is_fraction(k):
        k = prec_cutoff(k, int(y.sum()), "kappa")
    return {"value": float(_REFERENCE[name](y, s, k))}


def _cutoff(case: dict[str, Any]) -> dict[str, Any]:
    k = _cutoff_field(case)
    return {"value": prec_cutoff(k, _field(case, "n_pos"), "kappa" if is_fraction(k) else "k")}


def _optimum(case: dict[str, Any]) -> dict[str, Any]:
    import warnings

    from ..estimators import TopRanker

    X = check_matrix(_field(case, "X"), "X")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a zero-model optimum is an answer
        model = TopRanker(_field(case, "surrogate"), k=_cutoff_field(case),
                          C=_field(case, "C")).fit(X, _labels(case), groups=case.get("groups"))
    return {"coef": model.coef_.tolist(), "objective": float(model.objective_),
            "lower_bound": float(model.lower_bound_), "gap": float(model.gap_),
            "status": model.status_}


#: op -> the function answering it.
OPERATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "metric": _metric, "surrogate": _surrogate, "reference": _reference, "cutoff": _cutoff,
    "optimum": _optimum,
}


def _echo(case: Any) -> Any:
    """The case's ``id`` to echo: any JSON value (the parser has refused NaN already)."""
    return case.get("id") if isinstance(case, dict) else None


def answer(case: Any) -> dict[str, Any]:
    """The answer to one case (see the module docstring); never raises for a bad case."""
    case_id = _echo(case)
    try:
        if not isinstance(case, dict):
            raise ValueError(f"a case is a JSON object, got {type(case).__name__}")
        op = _name(case, "op", OPERATIONS)
        result = OPERATIONS[op](case)
        json.dumps(result, allow_nan=False)  # a result that overflowed is no answer
    except Exception as exc:  # every failure of a case is that case's answer
        return {"id": case_id, "ok": False, "error": _error_text(exc)}
    return {"id": case_id, "ok": True, **result}


def _error_text(exc: Exception) -> str:
    if isinstance(exc, ValueError) and "Out of range float values" in str(exc):
        return "the result overflows float64 (inf or NaN is no JSON number)"
    if isinstance(exc, (ValueError, TypeError, RuntimeError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _parse(line: str, number: int) -> tuple[Any, dict[str, Any] | None]:
    """The case on one line, or the error answer for a line that is not a JSON value."""
    try:
        return json.loads(line, parse_constant=_not_json), None
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, {"id": None, "ok": False, "error": f"line {number}: not JSON ({reason})"}


def run_lines(lines: Any, write: Callable[[str], Any],
              flush: Callable[[], Any] | None = None) -> int:
    """Answer every JSON line of ``lines`` (blank lines skipped) with one line through
    ``write`` (then ``flush``, if given); return the number of cases that got an error."""
    errors = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        case, result = _parse(line, number)
        if result is None:
            result = answer(case)
        errors += not result["ok"]
        write(json.dumps(result, allow_nan=False) + "\n")
        if flush is not None:
            flush()
    return errors

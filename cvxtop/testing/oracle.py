"""Answers to ground-truth questions asked as JSON, for projects that cannot call Python.

:func:`answer` takes one case (a JSON object) and returns one answer (a JSON object with
stable keys, numbers as numbers). ``cvxtop oracle`` applies it to every line of its
standard input (JSON Lines) in one process. The operations:

==============  ==========================================  ===============================
``op``          fields of the case                          fields of the answer
==============  ==========================================  ===============================
``metric``      ``name`` (of ``cvxtop.metrics.METRICS``),   ``value``
                ``y``, ``s``, and ``k`` or ``tau``
``surrogate``   ``name``, ``y``, ``s``, ``k``               ``value``, ``subgradient``
``reference``   ``name`` (a surrogate, ``prec_at_k_loss``   ``value`` (the enumeration of
                or ``pap_risk``), ``y``, ``s``, ``k``       the definition)
``cutoff``      ``k`` (int or float κ), ``n_pos``           ``value`` (``ceil(κ·n₊)``)
``optimum``     ``surrogate``, ``k``, ``C``, ``X`` (rows),  ``coef``, ``objective``,
                ``y``, optional ``groups``                  ``lower_bound``, ``gap``,
                                                            ``status``
==============  ==========================================  ===============================

Every answer has ``id`` (the case's own ``id``, or ``null``) and ``ok``; a case that cannot
be answered gets ``ok: false`` and ``error`` (the message that names the field or
argument), and the stream goes on.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from .. import metrics, reference
from ..cutoff import prec_cutoff

__all__ = ["answer", "OPERATIONS", "run_lines"]

#: What ``op: reference`` enumerates: every surrogate and the two metrics by name.
_REFERENCE = {**{name: function for name, (function, _) in reference.SURROGATES.items()},
              "prec_at_k_loss": reference.prec_at_k_loss, "pap_risk": reference.pap_risk}


def _field(case: dict[str, Any], name: str) -> Any:
    if name not in case:
        raise ValueError(f"the case needs a field {name!r}")
    return case[name]


def _metric(case: dict[str, Any]) -> dict[str, Any]:
    name = _field(case, "name")
    if name not in metrics.METRICS:
        raise ValueError(f"name must be one of {sorted(metrics.METRICS)}, got {name!r}")
    parameter = metrics.PARAMETERS[name]
    args = [] if parameter is None else [_field(case, parameter)]
    return {"value": float(metrics.METRICS[name](_field(case, "y"), _field(case, "s"), *args))}


def _surrogate(case: dict[str, Any]) -> dict[str, Any]:
    from ..surrogates import get

    surrogate = get(_field(case, "name"), _field(case, "k"))
    y, s = _field(case, "y"), np.asarray(_field(case, "s"), dtype=np.float64)
    return {"value": float(surrogate.value(y, s)),
            "subgradient": np.asarray(surrogate.subgradient(y, s), dtype=float).tolist()}


def _reference(case: dict[str, Any]) -> dict[str, Any]:
    name = _field(case, "name")
    if name not in _REFERENCE:
        raise ValueError(f"name must be one of {sorted(_REFERENCE)}, got {name!r}")
    y = np.asarray(_field(case, "y"))
    k = _field(case, "k")
    if isinstance(k, float) and name.startswith("prec"):
        k = prec_cutoff(k, int(np.sum(y == 1)))
    return {"value": float(_REFERENCE[name](y, _field(case, "s"), k))}


def _cutoff(case: dict[str, Any]) -> dict[str, Any]:
    return {"value": prec_cutoff(_field(case, "k"), _field(case, "n_pos"), "k")}


def _optimum(case: dict[str, Any]) -> dict[str, Any]:
    import warnings

    from ..estimators import TopRanker

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a zero-model optimum is an answer
        model = TopRanker(_field(case, "surrogate"), k=_field(case, "k"),
                          C=_field(case, "C")).fit(np.asarray(_field(case, "X"), dtype=float),
                                                   _field(case, "y"), groups=case.get("groups"))
    return {"coef": model.coef_.tolist(), "objective": float(model.objective_),
            "lower_bound": float(model.lower_bound_), "gap": float(model.gap_),
            "status": model.status_}


#: op -> the function answering it.
OPERATIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "metric": _metric, "surrogate": _surrogate, "reference": _reference, "cutoff": _cutoff,
    "optimum": _optimum,
}


def answer(case: Any) -> dict[str, Any]:
    """The answer to one case (see the module docstring); never raises for a bad case."""
    case_id = case.get("id") if isinstance(case, dict) else None
    try:
        if not isinstance(case, dict):
            raise ValueError(f"a case is a JSON object, got {type(case).__name__}")
        op = _field(case, "op")
        if op not in OPERATIONS:
            raise ValueError(f"op must be one of {sorted(OPERATIONS)}, got {op!r}")
        result = OPERATIONS[op](case)
    except (ValueError, TypeError, RuntimeError) as exc:
        return {"id": case_id, "ok": False, "error": str(exc)}
    return {"id": case_id, "ok": True, **result}


def run_lines(lines: Any, write: Callable[[str], Any]) -> int:
    """Answer every JSON line of ``lines`` (blank lines skipped) with one line through
    ``write``; return the number of cases that got an error."""
    errors = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as exc:
            result = {"id": None, "ok": False, "error": f"line {number}: not JSON ({exc})"}
        else:
            result = answer(case)
        errors += not result["ok"]
        write(json.dumps(result, allow_nan=False) + "\n")
    return errors

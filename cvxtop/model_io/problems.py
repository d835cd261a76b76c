"""Predtron problems (Jain et al. 2015 Sections 3-5) as the JSON objects of a model file.

Each problem is stored as its class name and constructor arguments: ``{"name":
"Multiclass", "m": 3, "reject_cost": null}``. A ranking problem's representation function
is stored by its values ``f(1), ..., f(m)``, which is all the problem uses of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..predtron import (Binary, FiniteProblem, Multiclass, Multilabel, MultilabelRanking,
                        Ordinal, Problem, SubsetRanking)
from .document import Fields

__all__ = ["encode_problem", "decode_problem", "PROBLEM_ARGUMENTS"]

#: Class name -> (class, its constructor arguments as stored).
PROBLEM_ARGUMENTS: dict[str, tuple[type, tuple[str, ...]]] = {
    "Binary": (Binary, ("costs", "reject_costs")),
    "Multiclass": (Multiclass, ("m", "reject_cost")),
    "Ordinal": (Ordinal, ("levels",)),
    "Multilabel": (Multilabel, ("m", "loss")),
    "SubsetRanking": (SubsetRanking, ("m", "f")),
    "MultilabelRanking": (MultilabelRanking, ("m", "f")),
    "FiniteProblem": (FiniteProblem, ("representation", "loss_matrix")),
}


def _plain(value: Any) -> Any:
    """A constructor argument as JSON: a string, null, an int, a number or nested lists."""
    if value is None or isinstance(value, str):
        return value
    if np.ndim(value):
        return np.asarray(value, dtype=np.float64).tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    return float(value)


def encode_problem(problem: Problem) -> dict[str, Any]:
    """The JSON object of one of the problems of :data:`PROBLEM_ARGUMENTS`."""
    name = type(problem).__name__
    if name not in PROBLEM_ARGUMENTS or type(problem) is not PROBLEM_ARGUMENTS[name][0]:
        raise TypeError(f"a model file stores the problems {', '.join(PROBLEM_ARGUMENTS)}; "
                        f"{name} is not one of them (save its weights with numpy instead)")
    values = {
        "costs": lambda p: p.costs, "reject_costs": lambda p: p.reject_costs,
        "m": lambda p: p.m, "reject_cost": lambda p: p.reject_cost,
        "levels": lambda p: p.levels, "loss": lambda p: p.loss_name,
        "f": lambda p: p.f_values, "representation": lambda p: p.representation,
        "loss_matrix": lambda p: p.loss_matrix,
    }
    return {"name": name, **{arg: _plain(values[arg](problem))
                             for arg in PROBLEM_ARGUMENTS[name][1]}}


def decode_problem(fields: Fields, spec: Any) -> Problem:
    """The problem a file's ``problem`` field (an object, checked by the caller)
    describes, checked by its own constructor."""
    name = fields.get(spec, "name", "problem.name", "str",
                      check=lambda v: None if v in PROBLEM_ARGUMENTS else
                      f"must be one of {', '.join(PROBLEM_ARGUMENTS)}")
    cls, arguments = PROBLEM_ARGUMENTS[name]
    fields.only(spec, ("name",) + arguments, "problem")
    missing = [arg for arg in arguments if arg not in spec]
    if missing:
        raise fields.error(f"problem.{missing[0]}", "missing")
    try:
        return cls(**{arg: spec[arg] for arg in arguments})
    except (TypeError, ValueError) as exc:
        raise fields.error("problem", f"not a valid {name}: {exc}") from None

"""Golden cases: instances with every metric, surrogate, cut-off and a few certified optima,
shipped with cvxtop as a versioned JSON file for projects that cannot run Python.

The file (``cvxtop/data/golden-v2.json``, path from :func:`golden_path`) is written by
``cvxtop golden --out FILE`` from :func:`build_golden`, a deterministic construction: the
tests rebuild it and compare. Its layout:

* ``format`` (``"cvxtop-golden"``), ``version`` (2), ``cvxtop_version``;
* ``lists``: ``{"id", "y", "s", "k", "tau", "metrics": {name: value},
  "surrogates": {name: {"value", "subgradient"}}}``; ``k`` is valid for every metric and
  surrogate (``1 <= k <= min(n₊, n₋)``), surrogate values are the enumerations of
  :mod:`cvxtop.reference` and subgradients those of :mod:`cvxtop.surrogates`, metrics
  use the pessimistic tie order;
* ``cutoffs``: ``{"k" or "kappa", "n_pos", "value"}``: ``value`` is ``k`` itself, or
  ``max(1, ceil(κ·n₊))`` for ``kappa`` (:mod:`cvxtop.cutoff`'s rule);
* ``optima``: ``{"id", "surrogate", "k" or "kappa", "C", "X", "y", "objective",
  "lower_bound", "coef"}``, certified to a relative gap of 1e-9 (the optimum lies in
  ``[lower_bound, objective]``).

A cut-off is ``k`` (an integer count) or ``kappa`` (a fraction), never one field for both:
JSON writers and readers often turn ``1.0`` into ``1``, which would make κ = 1 (every
relevant item) read as k = 1. Version 1 used ``k`` for both, and is superseded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .. import metrics, reference
from ..cutoff import is_fraction, prec_cutoff

__all__ = ["GOLDEN_VERSION", "golden_path", "load_golden", "build_golden", "golden_text",
           "cutoff_fields"]

GOLDEN_VERSION = 2
_SEED = 20261125
_TAU = 0.3


def golden_path() -> Path:
    """The golden file shipped with this cvxtop."""
    return Path(__file__).resolve().parents[1] / "data" / f"golden-v{GOLDEN_VERSION}.json"


def load_golden() -> dict[str, Any]:
    """The shipped golden cases."""
    return json.loads(golden_path().read_text(encoding="utf-8"))


def _lists() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Hand-made hard cases, then tie-heavy random ones (shuffled, 1-4 items per class)."""
    cases = [
        ("tie at the cut", np.array([1, 0]), np.array([0.0, 0.0])),
        ("avg is not an upper bound on pAp@k", np.array([1, 1, 1, 0, 0]),
         np.array([10.0, -1.0, -1.0, 0.0, 0.0])),
        ("all tied", np.array([1, 0, 1, 0]), np.zeros(4)),
        ("huge and tiny scores", np.array([0, 1, 1, 0]), np.array([1e100, 1e-100, -1e-100, 3.0])),
    ]
    rng = np.random.default_rng(_SEED)
    for i in range(24):
        n_pos, n_neg = rng.integers(1, 5, size=2)
        y = rng.permutation(np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)])
        s = rng.integers(-2, 3, size=len(y)) / 2.0
        cases.append((f"random {i}", y, s))
    return cases


def cutoff_fields(k: Any) -> dict[str, Any]:
    """A cut-off as the golden file and ``cvxtop oracle`` write it: ``{"k": int}`` for a
    count, ``{"kappa": float}`` for a fraction."""
    return {"kappa": float(k)} if is_fraction(k) else {"k": int(k)}


def _list_entry(name: str, y: np.ndarray, s: np.ndarray, k: int) -> dict[str, Any]:
    from ..surrogates import get

    params = {"k": k, "tau": _TAU}
    values = {}
    for metric, fn in metrics.METRICS.items():
        parameter = metrics.PARAMETERS[metric]
        values[metric] = float(fn(y, s, *([] if parameter is None else [params[parameter]])))
    surrogates = {n: {"value": float(f(y, s, k)),
                      "subgradient": get(n, k).subgradient(y, s).tolist()}
                  for n, (f, _) in reference.SURROGATES.items()}
    return {"id": name, "y": y.tolist(), "s": s.tolist(), "k": k, "tau": _TAU,
            "metrics": values, "surrogates": surrogates}


def _optima() -> list[dict[str, Any]]:
    import warnings

    from ..estimators import TopRanker

    rng = np.random.default_rng(_SEED + 1)
    out = []
    for i, (surrogate, k, C) in enumerate([("prec@k-avg", 0.25, 1.0), ("prec@k-struct", 2, 10.0),
                                           ("pap@k-avg", 3, 1.0), ("pauc-struct", 2, 0.1)]):
        X = np.round(rng.standard_normal((16, 2)), 3)
        y = (X[:, 0] + 0.5 * rng.standard_normal(16) > 0.4).astype(np.int64)
        y[:2] = [1, 0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model = TopRanker(surrogate, k=k, C=C, tol=1e-9).fit(X, y)
        out.append({"id": f"optimum {i}", "surrogate": surrogate, **cutoff_fields(k), "C": C,
                    "X": X.tolist(), "y": y.tolist(), "objective": float(model.objective_),
                    "lower_bound": float(model.lower_bound_), "coef": model.coef_.tolist()})
    return out


def build_golden() -> dict[str, Any]:
    """The golden cases, computed now (deterministic)."""
    from .. import __version__

    lists = []
    for name, y, s in _lists():
        k = min(int(y.sum()), int((y == 0).sum()))
        lists.append(_list_entry(name, y, s, k))
    cutoffs = [{**cutoff_fields(k), "n_pos": n, "value": prec_cutoff(k, n)}
               for k, n in [(0.55, 100), (0.25, 5), (1 / 3, 3), (0.1, 7), (0.7, 10), (1.0, 4),
                            (0.01, 3), (0.5, 1), (3, 5), (1, 1)]]
    return {"format": "cvxtop-golden", "version": GOLDEN_VERSION, "cvxtop_version": __version__,
            "lists": lists, "cutoffs": cutoffs, "optima": _optima()}


def golden_text(golden: dict[str, Any]) -> str:
    """The file's text: indented JSON, floats in their shortest round-trip form."""
    return json.dumps(golden, indent=1, allow_nan=False) + "\n"

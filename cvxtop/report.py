"""The metric summary printed by the command line, as numbers or as a table."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import metrics
from ._validation import check_labels, check_ranked_scores, check_same_length
from .groups import Groups

__all__ = ["REPORTED_METRICS", "evaluate_scores", "metric_rows", "format_table", "pyplot"]


#: the metrics ``cvxtop evaluate`` reports, in order, with the parameters each takes
REPORTED_METRICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("precision_at_k", ("k",)),
    ("pap_at_k", ("k",)),
    ("roc_auc", ()),
    ("partial_auc", ("k",)),
    ("average_precision", ()),
    ("precision_at_tau", ("tau",)),
    ("ndcg_at_tau", ("tau",)),
    ("positives_at_top", ()),
)


def evaluate_scores(y_true: Any, y_score: Any, *, k: int, tau: float,
                    groups: Any = None) -> dict[str, Any]:
    """Every reported metric of scored items, under keys that do not change with ``k``.

    Returns ``{"items", "relevant", "k", "tau", "groups", "metrics", "groups_used",
    "errors"}``: ``metrics`` maps each name of :data:`REPORTED_METRICS` to its value, or
    ``None`` when it is undefined for these items (``k`` larger than the number of
    irrelevant items, say), with the reason in ``errors`` (a list of strings). With
    ``groups`` every metric is the mean over the lists where it is defined, ``groups`` is
    the number of lists and ``groups_used`` says over how many lists each mean is taken;
    without groups both are ``None``. Invalid inputs (non-binary labels, NaN scores,
    lengths that differ) raise ``ValueError`` at once.
    """
    y_true = check_labels(y_true, "y_true")
    y_score, _ = check_ranked_scores(y_score, "y_score")  # the metrics need the order only
    check_same_length(y_true=y_true, y_score=y_score)
    values = {"k": k, "tau": tau}
    result: dict[str, Any] = {"items": len(y_true), "relevant": int(y_true.sum()), "k": k,
                              "tau": tau, "groups": None, "metrics": {}, "groups_used": None,
                              "errors": []}
    if groups is not None:
        groups = Groups.of(groups, len(y_true))  # split once for every metric
        result["groups"] = groups.n_groups
        result["groups_used"] = {}
    for name, params in REPORTED_METRICS:
        kwargs = {p: values[p] for p in params}
        value: float | None = None
        try:
            if groups is None:
                value = metrics.METRICS[name](y_true, y_score, **kwargs)
            else:
                per_list = metrics.group_values(name, y_true, y_score, groups, **kwargs)
                defined = [v for v in per_list.values() if v is not None]
                result["groups_used"][name] = len(defined)
                if defined:
                    value = float(np.mean(defined))
                else:
                    result["errors"].append(f"{name}: undefined in every group")
        except ValueError as exc:
            result["errors"].append(f"{name}: {exc}")
        result["metrics"][name] = value
    return result


def metric_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a table of :func:`evaluate_scores`' result: metric, value and, with
    groups, the number of lists behind each mean."""
    rows = []
    for name, value in result["metrics"].items():
        row = {"metric": name, "value": "undefined" if value is None else value}
        if result["groups_used"] is not None:
            row["groups used"] = result["groups_used"][name]
        rows.append(row)
    return rows


def _cell(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return f"{value:.1e}" if 0 < abs(value) < 1e-3 else f"{value:.4f}"
    return str(value)


def format_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    """A plain-text table with one line per row and aligned columns."""
    if not rows:
        return ""
    columns = columns or list(rows[0])
    cells = [[_cell(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join([line, rule, *body])


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend, for scripts that save figures.

    matplotlib is the optional ``plot`` extra; without it this raises ``ImportError`` naming
    the command that installs it, so that a table-only run never needs it.
    """
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("drawing figures needs matplotlib: pip install 'cvxtop[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt

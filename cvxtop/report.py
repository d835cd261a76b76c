"""The metric summary printed by the command line, as numbers or as a table."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import metrics
from ._validation import check_labels, check_same_length, check_scores

__all__ = ["evaluate_scores", "format_table", "pyplot"]


def evaluate_scores(
    y_true: Any, y_score: Any, *, k: int, tau: float, groups: Any = None
) -> dict[str, float | int | str]:
    """Every cvxtop metric of one scored list, keyed by a short name.

    A metric that is undefined for these inputs (``k`` larger than the number of
    irrelevant items, say) is reported as the string ``"n/a: <reason>"`` instead of
    stopping the whole report. Invalid inputs (non-binary labels, NaN scores, lengths that
    differ) raise ``ValueError`` at once.
    """
    y_true = check_labels(y_true, "y_true")
    y_score = check_scores(y_score, "y_score")
    check_same_length(y_true=y_true, y_score=y_score)
    checks: dict[str, Callable[[], Any]] = {
        f"prec@{k}": lambda: metrics.precision_at_k(y_true, y_score, k),
        f"pAp@{k}": lambda: metrics.pap_at_k(y_true, y_score, k),
        "AUC": lambda: metrics.roc_auc(y_true, y_score),
        f"pAUC@{k}": lambda: metrics.partial_auc(y_true, y_score, k),
        "AP": lambda: metrics.average_precision(y_true, y_score),
        f"P@{tau:g}": lambda: metrics.precision_at_tau(y_true, y_score, tau),
        f"NDCG@{tau:g}": lambda: metrics.ndcg_at_tau(y_true, y_score, tau),
        "positives@top": lambda: metrics.positives_at_top(y_true, y_score),
    }
    if groups is not None:
        checks[f"group pAp@{k}"] = lambda: metrics.pap_at_k(
            y_true, y_score, k, groups=groups, average="group")
        checks[f"pooled pAp@{k}"] = lambda: metrics.pap_at_k(
            y_true, y_score, k, groups=groups, average="pooled")
    out: dict[str, float | int | str] = {}
    for name, compute in checks.items():
        try:
            out[name] = compute()
        except ValueError as exc:
            out[name] = f"n/a: {exc}"
    return out


def _cell(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4f}"
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

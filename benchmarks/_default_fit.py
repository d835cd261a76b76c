"""One fit of ``TopRanker`` with every setting as shipped but the surrogate, k and C, as the
benchmarks of the defaults report it: certified or not, the ``SolverError``'s status and
the gap it names, the rounds and the seconds."""

from __future__ import annotations

import re
import time
import warnings
from typing import Any, Callable

from cvxtop import SolverError, TopRanker

TOL = 1e-6  # the exact engines' default


def default_fit(surrogate: str, k: float, C: float, X: Any, y: Any) -> dict:
    """``TopRanker(surrogate, k=k, C=C).fit(X, y)``: ``certified``, ``outcome``, ``rounds``,
    ``seconds`` and the fitted ``model`` (None after a ``SolverError``). A ``ValueError``
    (an argument refused) propagates."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        try:
            model = TopRanker(surrogate, k=k, C=C).fit(X, y)
        except SolverError as exc:
            gap = re.search(r"relative gap ([0-9.e+-]+)", str(exc))
            return {"certified": False, "seconds": time.perf_counter() - start,
                    "outcome": f"`SolverError` ({exc.status or 'failed'}"
                               + (f", gap {float(gap.group(1)):.1e})" if gap else ")"),
                    "rounds": "", "model": None}
    seconds = time.perf_counter() - start
    certified = bool(model.status_ == "optimal" and model.gap_ is not None
                     and model.gap_ <= TOL)
    return {"certified": certified, "seconds": seconds,
            "outcome": f"certified, gap {model.gap_:.0e}" if certified
            else f"{model.status_}, gap {model.gap_:.1e}",
            "rounds": str(model.n_iter_), "model": model}


def report(title: str, preamble: str, columns: dict[str, Callable[[dict], str]],
           rows: list[dict], cell_name: Callable[[dict], str]) -> None:
    """Prints ``rows`` (each ``default_fit``'s answer with the cell's own keys), the
    uncertified first and then the slowest, as a table of ``columns`` (header: the text of
    an entry), and the ``SUMMARY:`` line that names the worst cell (``cell_name``) and every
    uncertified one."""
    rows = sorted(rows, key=lambda r: (r["certified"], -r["seconds"]))
    print(f"# {title}\n\n{preamble}\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        print("| " + " | ".join(text(r) for text in columns.values()) + " |")
    failed = [r for r in rows if not r["certified"]]
    worst = rows[0]
    print()
    print(f"SUMMARY: {len(rows) - len(failed)} of {len(rows)} fits certified; worst cell "
          f"{cell_name(worst)}: {worst['outcome']} after {worst['seconds']:.1f} s; "
          f"{sum(r['seconds'] for r in rows):.0f} s in all; not certified: "
          + (", ".join(cell_name(r) for r in failed) or "none"))

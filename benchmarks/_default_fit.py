"""One fit of ``TopRanker`` with every setting as shipped but the surrogate, k and C, as the
benchmarks of the defaults report it: certified or not, the ``SolverError``'s status and
the gap it names, the rounds and the seconds."""

from __future__ import annotations

import re
import time
import warnings
from typing import Any

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

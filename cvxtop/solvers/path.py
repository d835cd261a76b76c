"""A regularization path over ``C``: one exact solve per ``C`` on one objective.

The cutting plane's cuts bound the loss, which does not depend on ``C``, so a solve at the
next ``C`` starts from the last one's cuts and point (:mod:`.cut_store`). What depends on
the data alone is worked out once for the whole path, where separate fits redo it at every
point: the features' scale (:mod:`.scaling`), the digest of the loss's data that the cuts
carry (:func:`.cut_store.loss_key`; none where the cuts never leave the path), ``‖Z‖_F``
for the cuts' rounding, and the zero model's loss. Every point is still certified to
``tol`` on its own.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from .._threads import single_threaded_blas
from ..exceptions import SolverError
from .cut_store import key_by_identity
from .minimize import _options, _solve
from .objective import RankingObjective
from .result import SolveResult
from .scaling import feature_scale, rescaled, unscaled

__all__ = ["solve_path"]


def solve_path(objective: RankingObjective, Cs: Any, options: dict[str, Any] | None = None,
               *, export_cuts: bool = True) -> Iterator[SolveResult | SolverError]:
    """Solve ``objective`` at every ``C`` of ``Cs``, in that order, by the cutting plane.

    Yields, for each ``C``, its :class:`SolveResult` (certified to ``options["tol"]``), or
    the :class:`~cvxtop.SolverError` its solve raised; the next ``C`` then starts from the
    last solve that succeeded. ``options`` are those of ``minimize(..., "cutting-plane")``
    except ``cuts`` and ``keep_cuts``, which the path sets; ``w0`` starts the first point.
    ``objective.C`` is left at the last ``C``. The order is the caller's: upwards from the
    smallest ``C`` is the order :class:`cvxtop.model_selection.TopRankerCV` uses.
    ``export_cuts=False`` says that the results' cuts will not start a solve outside the
    path: they are then keyed by the solved objective's identity rather than by the digest
    of its data (:func:`.cut_store.key_by_identity`), which the path then never computes.
    """
    opts = _options("cutting-plane", options)
    if opts["cuts"] is not None or opts["keep_cuts"]:
        raise ValueError("solve_path sets the options cuts and keep_cuts itself")
    scale = feature_scale(objective.Z)
    problem = objective if scale == 1.0 else rescaled(objective, scale)
    if not export_cuts:
        key_by_identity(problem)
    w0 = opts["w0"]
    opts = {**opts, "keep_cuts": True,
            "w0": None if w0 is None else np.asarray(w0, dtype=np.float64) * scale}
    for C in Cs:
        objective.C = float(C)
        problem.C = objective.C * scale * scale
        try:
            with single_threaded_blas():
                result = _solve(problem, "cutting-plane", opts, None)
        except SolverError as exc:
            yield exc
            continue
        opts = {**opts, "cuts": result.cuts, "w0": result.coef}
        yield result if scale == 1.0 else unscaled(result, scale)

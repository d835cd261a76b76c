"""The whole regularized problem ``½‖w‖² + C·L(Zw)`` as one cvxpy program: the direct
engine's (:mod:`.direct`), and a candidate point for the cutting plane where its gap has
stopped falling.

The cutting plane's best point is the best master point it has evaluated. Where the
optimum ties many items and the loss is steep (a large C on features whose scales differ
by thousands), the master points can stay above the optimum while the master's bound is
already close to it, and the duals over the items, which would jump to the optimum's
face, can fail on such data. On spambase's features as shipped, prec@k-avg at C = 1e4
ended at a relative gap of 2.3e-6 after 3,127 rounds, with every selection-dual solve
failed, although its bound was within 3e-7 of the optimum. So where the gap falls by less
than a tenth over 100 rounds, from round :data:`FROM_ROUND` on, the cutting plane solves
this program once and takes its answer as a candidate: its objective is evaluated exactly
like any other point's, its cut joins the store, and the certificate stays the master's
bound.

**Scale.** An interior-point answer's accuracy depends on the numbers the solver sees.
The cutting plane works on features scaled to about 1 (:mod:`.scaling`), where C is then
large (2.7e12 on that fit), and there ECOS failed and Clarabel called the program
infeasible. The program is therefore solved in ``v = w/ρ``, as
``min ½‖v‖² + c·L(ρZv)`` with ``ρ² = C/c``: the same problem for every ``c``. On the
UCI fits measured, the better of ECOS's answers at the two :data:`LOSS_WEIGHTS` came within
1e-6 of the cutting plane's bound every time, where larger weights fell short or failed
(docs/solvers.md, "The direct program as a candidate"). Both are solved and the better
answer kept.

Only programs that grow linearly with the items are tried (``expression_size`` of
:class:`~cvxtop.surrogates.base.Surrogate`; prec@k-svmperf's has a constraint per labeling
size and item), on lists up to :data:`MAX_ITEMS` items and :data:`MAX_ENTRIES` items
times features.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from .objective import RankingObjective

__all__ = ["FROM_ROUND", "LOSS_WEIGHTS", "MAX_ENTRIES", "MAX_ITEMS", "TIGHT",
           "candidate_point", "program", "suits"]

#: Items, and items times features, up to which the program is tried as a candidate (its
#: cost on spambase and MAGIC: docs/solvers.md, "The direct program as a candidate").
#: Items times features, not stored entries: pAp@k-avg's program holds every irrelevant
#: row less the relevant items' mean row, dense however sparse ``Z`` is (on sparse
#: 1,000 × 3,000 data ECOS took minutes).
MAX_ITEMS, MAX_ENTRIES = 20_000, 500_000
#: Rounds of a solve before which the program is not tried: a gap that stalls earlier is
#: a plateau the rounds usually leave, at a fraction of the program's cost.
FROM_ROUND = 500
#: The loss weights ``c`` the program is solved at (module docstring, "Scale").
LOSS_WEIGHTS = (1e2, 1e4)
#: ECOS's tolerances for the candidate: far below the gap aimed at, since the candidate's
#: objective, not the solver's, is what counts.
TIGHT = {"abstol": 1e-12, "reltol": 1e-12, "feastol": 1e-12, "max_iters": 500}


def program(objective: RankingObjective, loss_weight: float | None = None
            ) -> tuple[cp.Problem, cp.Variable, float]:
    """The program ``min ½‖v‖² + c·L(ρZv)`` with the surrogate's DCP expression, its
    variable ``v`` and ``ρ``, with ``w = ρv`` (``ρ² = C/c``; ``c = C`` and ``ρ = 1``
    where ``loss_weight`` ``c`` is not given)."""
    c = objective.C if loss_weight is None else float(loss_weight)
    rho = math.sqrt(objective.C / c)
    v = cp.Variable(objective.Z.shape[1])
    Z = objective.Z if rho == 1.0 else rho * objective.Z
    loss, constraints = objective.loss_expression(Z @ v)
    return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(v) + c * loss), constraints), v, rho


def suits(objective: RankingObjective) -> bool:
    """Whether the cutting plane may try the program's answer as a candidate: a convex
    surrogate whose program grows linearly with the items, on a list within
    :data:`MAX_ITEMS` items and :data:`MAX_ENTRIES` items times features, at ``C > 0``."""
    n, d = objective.Z.shape
    return objective.surrogate.convex and objective.surrogate.expression_size == "linear" \
        and n <= MAX_ITEMS and n * d <= MAX_ENTRIES and objective.C > 0


def candidate_point(objective: RankingObjective) -> np.ndarray | None:
    """Of ECOS's answers to :func:`program` at each of :data:`LOSS_WEIGHTS` (inaccurate ones
    included), the ``w`` of lowest objective; ``None`` where no solve stops with a point.
    Nothing about the answers is assumed: the objective is evaluated here."""
    best, best_value = None, np.inf
    for weight in LOSS_WEIGHTS:
        problem, v, rho = program(objective, weight)
        try:
            _cvxpy.solve(problem, "ECOS", TIGHT, what="the training problem",
                         accept_inaccurate=True, warn=False)
        except SolverError:
            continue
        if v.value is None or not np.all(np.isfinite(v.value)):
            continue
        w = rho * np.asarray(v.value, dtype=np.float64)
        value = objective.value(w)
        if value < best_value:
            best, best_value = w, value
    return best

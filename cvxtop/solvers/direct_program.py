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
bound. The solver's multipliers of the scores are near a subgradient of the loss at the
optimum, a point of the surrogate's dual polytope: moved onto that polytope exactly
(:func:`cut_near`), they give a cut whose bound is valid whatever their accuracy. That
lifts the bound where it is the master that lags: on five folds of raw spambase
(``TopRankerCV``), prec@k-avg's fits at C = 2,154 and 1e4 ended at gaps of 1.3e-6 to
5.2e-6, and on the one checked the program's answers came no lower than the rounds'
point: the bound lagged. With these cuts every fold certifies every C.

**Scale.** An interior-point answer's accuracy depends on the numbers the solver sees.
The cutting plane works on features scaled to about 1 (:mod:`.scaling`), where C is then
large (2.7e12 on that fit), and there ECOS failed and Clarabel called the program
infeasible. The program is therefore solved in ``v = w/ρ``, as
``min ½‖v‖² + c·L(ρZv)`` with ``ρ² = C/c``: the same problem for every ``c``. On the
UCI fits measured, the better of ECOS's answers at the two :data:`LOSS_WEIGHTS` came within
1e-6 of the cutting plane's bound every time, where larger weights fell short or failed
(docs/solvers.md, "The direct program as a candidate"). Both are solved, the second
unless the first's answer already closes the gap: the lower objective is the candidate,
the higher bound the dual cut. The pAp@k forms with epigraph matrices are solved by
Clarabel, the others by ECOS, and the other solver is asked where the first gives no
answer (:func:`solvers`).

Only programs of at most :data:`MAX_SIZE` auxiliary variables
(:meth:`~cvxtop.solvers.objective.RankingObjective.dcp_size`: one an item for the
``sum_largest`` forms; one a labeling size and an item for prec@k-svmperf; for pAp@k-max
and -ts and pAUC's struct one a pair of items, or at a small k one a relevant item and
level) and :data:`MAX_ENTRIES` items times features are tried.
"""

from __future__ import annotations

import math
from typing import Any

import cvxpy as cp
import numpy as np

from .. import _cvxpy
from ..exceptions import SolverError
from . import box_dual, pap_ts_cut, selection_dual
from .objective import RankingObjective
from .selection_dual import DualCut

__all__ = ["FROM_ROUND", "LOSS_WEIGHTS", "MAX_ENTRIES", "MAX_SIZE", "SOLVERS", "TIGHT",
           "answers", "cut_near", "program", "solvers", "suits"]

#: Auxiliary variables, and items times features, up to which the program is tried as a
#: candidate (its cost on spambase and MAGIC: docs/solvers.md, "The direct program as a
#: candidate"; 25,000 lets in pAp@k-TS's form at k = 3 on spambase, about 21,000). Items
#: times features, not stored entries: pAp@k-avg's program holds every irrelevant row
#: less the relevant items' mean row, dense however sparse ``Z`` is (on sparse
#: 1,000 × 3,000 data ECOS took minutes).
MAX_SIZE, MAX_ENTRIES = 25_000, 500_000
#: Rounds of a solve before which the program is not tried: a gap that stalls earlier is
#: a plateau the rounds usually leave, at a fraction of the program's cost.
FROM_ROUND = 500
#: The loss weights ``c`` the program is solved at (module docstring, "Scale").
LOSS_WEIGHTS = (1e2, 1e4)
#: ECOS's tolerances for the candidate: far below the gap aimed at, since the candidate's
#: objective, not the solver's, is what counts.
TIGHT = {"abstol": 1e-12, "reltol": 1e-12, "feastol": 1e-12, "max_iters": 500}
#: The solvers' tolerances for the candidate (:func:`solvers` gives their order).
SOLVERS = {"ECOS": TIGHT,
           "CLARABEL": {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12}}


def solvers(objective: RankingObjective) -> tuple[str, ...]:
    """The solvers of :data:`SOLVERS` in the order they are tried, the next only where the
    last gave no answer (``cutting_plane._direct_candidate``): Clarabel first
    for the pAp@k forms with epigraph matrices (max, TS, pauc-struct), ECOS first for the
    others. On the sum forms of spambase and MAGIC as shipped at C = 1e4 ECOS's answers
    were the better; on TS at k = 1 on spambase as shipped (C = 0.01 to 1e4) Clarabel's
    came within 1e-9 of the optimum, ECOS's at 2 to 5 times the optimum, and took longer
    (docs/solvers.md, "pAp@k-TS at a small k")."""
    if getattr(objective.surrogate, "pair_matrices", 0):
        return ("CLARABEL", "ECOS")
    return ("ECOS", "CLARABEL")


def program(objective: RankingObjective, loss_weight: float | None = None
            ) -> tuple[cp.Problem, cp.Variable, float]:
    """The program ``min ½‖v‖² + c·L(ρZv)`` with the surrogate's DCP expression, its
    variable ``v`` and ``ρ``, with ``w = ρv`` (``ρ² = C/c``; ``c = C`` and ``ρ = 1``
    where ``loss_weight`` ``c`` is not given)."""
    c, rho, v = _scaled(objective, loss_weight)
    Z = objective.Z if rho == 1.0 else rho * objective.Z
    return _minimized(objective, v, c, Z @ v), v, rho


def _minimized(objective: RankingObjective, v: cp.Variable, c: float, scores: Any,
               link: list | None = None) -> cp.Problem:
    """``min ½‖v‖² + c·L(scores)`` with the surrogate's constraints and ``link``'s."""
    loss, constraints = objective.loss_expression(scores)
    return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(v) + c * loss),
                      constraints + (link or []))


def _scaled(objective: RankingObjective, loss_weight: float | None
            ) -> tuple[float, float, cp.Variable]:
    """The loss weight ``c``, ``ρ = √(C/c)`` and the variable ``v``."""
    c = objective.C if loss_weight is None else float(loss_weight)
    return c, math.sqrt(objective.C / c), cp.Variable(objective.Z.shape[1])


def suits(objective: RankingObjective) -> bool:
    """Whether the cutting plane may try the program's answer as a candidate: a convex
    surrogate whose program has at most :data:`MAX_SIZE` auxiliary variables, on at most
    :data:`MAX_ENTRIES` items times features, at ``C > 0``."""
    n, d = objective.Z.shape
    return objective.surrogate.convex and objective.dcp_size() <= MAX_SIZE \
        and n * d <= MAX_ENTRIES and objective.C > 0


def answers(objective: RankingObjective, solver: str = "ECOS",
            weights: tuple[float, ...] = LOSS_WEIGHTS) -> list[tuple[np.ndarray, np.ndarray]]:
    """``solver``'s answers to :func:`program` (at its tolerances in :data:`SOLVERS`) at
    each loss weight of ``weights`` (inaccurate ones included), each as its ``w`` and the
    multipliers of its scores as a score vector ``g`` (near a subgradient of the loss at the
    optimum, whose cut a dual form can build: :func:`cut_near`); none where a solve stops
    without a point. Nothing about the answers is assumed: the caller evaluates them."""
    found = []
    for weight in weights:
        c, rho, v = _scaled(objective, weight)
        # the scores as variables of their own, whose multipliers are −c·g
        scores = cp.Variable(objective.Z.shape[0])
        link = scores == (rho * objective.Z) @ v
        problem = _minimized(objective, v, c, scores, [link])
        try:
            _cvxpy.solve(problem, solver, SOLVERS[solver], what="the training problem",
                         accept_inaccurate=True, warn=False)
        except SolverError:
            continue
        if v.value is None or link.dual_value is None \
                or not np.all(np.isfinite(v.value)) \
                or not np.all(np.isfinite(link.dual_value)):
            continue
        found.append((rho * np.asarray(v.value, dtype=np.float64),
                      -np.asarray(link.dual_value, dtype=np.float64).ravel() / c))
    return found


def cut_near(objective: RankingObjective, g: np.ndarray) -> DualCut | None:
    """The cut of the surrogate's dual form at the point nearest ``g`` (an answer's
    multipliers, :func:`answers`), valid whatever ``g``: prec@k-avg's and -max's selection polytope
    (:func:`.selection_dual.cut_near`), prec@k-struct's and pAp@k-avg's boxes
    (:func:`.box_dual.cut_near`), pAp@k-TS's (:func:`.pap_ts_cut.cut_near`);
    ``None`` for another surrogate."""
    if pap_ts_cut.suits(objective):
        return pap_ts_cut.cut_near(objective, g)
    if objective.surrogate.dual_form == "selection":
        return selection_dual.cut_near(objective, g)
    return box_dual.cut_near(objective, g)

"""The cutting plane's master solved in the features' space from the cuts' rows, for the
masters whose Gram form has lost their answer to rounding.

The master ``min_w ½‖w‖² + C·max_c (b_c + h_c·w)`` is usually solved through its dual over
the simplex in the cuts' Gram matrix ``G = HHᵀ`` (:mod:`.master`). At a large C on badly
scaled features the answer combines long cuts into a short vector: on spambase's features
as shipped, prec@k-svmperf with k = 1 at C = 1e4 (2.7e12 once the features are scaled)
weighs rows of norm up to 34 by ``α = Cλ`` of order 1e12 into ``Hᵀα`` of norm about 100.
Products with ``G`` then carry relative errors near 1e-4, and the active-set master, even
refined from the rows (:func:`cvxtop.qp.refine_on_rows`), stood for hundreds of rounds at
a point whose own duality gap, measured from the rows, was 1.1% of the objective, which
froze both bounds of the cutting plane; cvxpy on the same Gram matrix did no better.

Here the same master is solved as the quadratic program it is in ``(w, t)``::

    minimize ½‖w‖²/C + t   subject to   b_c + h_c·w <= t  for every active cut,

whose numbers are the rows themselves (``w`` of norm about 100, ``t`` the loss), by
Clarabel. The constraints' multipliers sum to 1 at its optimum: normalized onto the
simplex they are a master answer ``λ`` like any other, whose rigorous bound
(:func:`.master._rigorous_bound`) is the certificate: it does not depend on this solve's
accuracy. :func:`.master.solve_master` asks for it only where an exact master's own gap
exceeds ``PRIMAL_RATIO`` times the cutting plane's (the Gram form's answer is broken, not
merely inexact), takes its answer where it halves that gap, and returns the higher of the
two bounds. A try that does not halve the master's gap pauses the next ones (a pause that
doubles, up to ``PRIMAL_PAUSE`` exact masters). On that fit the cutting plane then
certified after 1,671 rounds where it had ended at a relative gap of 2e-4 after its 2,000
(docs/solvers.md, "A master broken by its Gram matrix").

The answer's point is the program's own ``w``, not ``−C·Σ λ_c h_c``, which is the short
difference of long rows again. On that fit, once prec@k-svmperf's intercepts were read off
its labelings' counts, the latter's own gap ran from 6e11 to 2e13 (objective 8e11, the
plane's gap 1.5e7): no answer halved the Gram form's and the bounds stood still for 1,300
rounds. With the program's own point it certified after 1,622 rounds (docs/solvers.md,
"The rows' program's own point").
"""

from __future__ import annotations

import clarabel
import numpy as np
import scipy.sparse as sp

from .cut_store import CutStore

__all__ = ["MAX_FEATURES", "primal_master_answer", "suits"]

#: Features (rows' length) up to which the program is tried: it has one unknown a feature.
MAX_FEATURES = 2000
#: Clarabel's settings: the multipliers' accuracy is what the answer is made of.
_SETTINGS = {"verbose": False, "tol_gap_abs": 1e-14, "tol_gap_rel": 1e-14, "tol_feas": 1e-12,
             "max_iter": 500}
#: Clarabel's statuses whose multipliers are used (the answer is checked by its bound).
_USABLE = ("Solved", "AlmostSolved", "MaxIterations", "InsufficientProgress")


def suits(store: CutStore) -> bool:
    """Whether the store keeps the cuts' rows (not score subgradients) of at most
    :data:`MAX_FEATURES` numbers: the program's unknowns."""
    return not store.scores and store.row <= MAX_FEATURES


def primal_master_answer(store: CutStore, C: float
                         ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Master weights ``λ`` (over the store's slots, on the simplex) and the point ``w``
    from the program in ``(w, t)`` over the active cuts' rows (module docstring), solved
    by Clarabel called directly (cvxpy's compilation took longer than the solve), or
    ``None`` where the store keeps score subgradients instead of rows, the rows are longer
    than :data:`MAX_FEATURES`, or Clarabel gives no usable multipliers. ``w`` is the
    program's own point, not ``−C·Σ λ_c h_c``: where long rows combine into a short one,
    that sum loses the digits the program's ``w`` keeps (``None`` if not finite)."""
    if not suits(store):
        return None
    slots = np.flatnonzero(store.active[:store.used])
    if len(slots) == 0:
        return None
    d = store.row
    # unknowns (w, t): ½‖w‖²/C + t, subject to h_c·w − t <= −b_c for every active cut
    P = sp.diags(np.r_[np.full(d, 1.0 / C), 0.0], format="csc")
    q = np.r_[np.zeros(d), 1.0]
    A = sp.csc_matrix(np.hstack([store.cuts[slots], -np.ones((len(slots), 1))]))
    settings = clarabel.DefaultSettings()
    for name, value in _SETTINGS.items():
        setattr(settings, name, value)
    try:
        solution = clarabel.DefaultSolver(P, q, A, -store.b[slots],
                                          [clarabel.NonnegativeConeT(len(slots))],
                                          settings).solve()
    except Exception:  # (a solver that fails leaves the Gram form's answer)
        return None
    if str(solution.status) not in _USABLE:
        return None
    multipliers = np.maximum(np.asarray(solution.z, dtype=np.float64), 0.0)
    total = float(multipliers.sum())
    if not (np.isfinite(total) and total > 0):
        return None
    lam = np.zeros(len(store.b))
    lam[slots] = multipliers / total
    w = np.asarray(solution.x[:d], dtype=np.float64)
    return lam, w if np.isfinite(w).all() else None

"""The 1-slack cutting-plane engine with a certified gap.

A convex surrogate is the maximum of the affine functions its subgradients define, so every
query ``w_t`` yields a cut valid everywhere: with ``f_t, g_t`` the loss and a score
subgradient at ``s_t = Z w_t``,

    L(y, Z w) >= b_t + h_t·w,   h_t = Zᵀ g_t,   b_t = f_t − h_t·w_t.

For prec@k-avg this is the maximizing labeling of Kar et al. 2015 Algorithm 4, the separation
oracle of the structural-SVM view (Joachims 2005). The master problem replaces ``L`` by the
maximum of the cuts; we solve its dual, a QP over the simplex scaled by ``C``,

    max_{α >= 0, Σα = C}  D(α) = Σ_c α_c b_c − ½‖Σ_c α_c h_c‖²,   w_c = −Σ_c α_c h_c,

with cvxpy. ``D(α)`` at any feasible ``α`` is a lower bound on the optimum (weak duality):
after projecting the solver's ``α`` exactly onto the feasible set the bound is rigorous. The
best objective seen is an upper bound, and the method stops when the relative gap between
them is at most ``tol``.

Where the next cut is taken follows OCAS (Franc & Sonnenburg 2008), which needs far fewer
rounds than taking it at the master solution (plain BMRM): the next cut is taken at
``w_b + μ(w_c − w_b)``, between the best point ``w_b`` and the master's ``w_c``, and the best
point moves to a query that improves on it. OCAS also moves the best point to the minimizer
of the objective on the segment towards ``w_c`` every round (a line search,
:mod:`.line_search`, using the surrogate's values and subgradients and no extra matrix
product, since the scores are affine in the step; it stops once its step is provably within
:data:`LINE_SEARCH_SHARE` of the current gap of the exact one). Its four or five surrogate
evaluations cost more than a round itself until the products with the cut store dominate a
round (:data:`SEARCH_STORE_RATIO`), so by default it starts only then, or from the first
round on the candidates of prec@k's surrogates when ``X`` is wide (:data:`SEARCH_FEATURES`,
where it is cheap against a round's products). A query whose cut
the store holds already lies where the model is exact; the store refuses the repeat, and
the master's point itself is queried next. A repeat there too leaves the gap to the
master's own inaccuracy, and where the intercepts are exact the master is then solved from
the cuts' rows (:func:`.master.solve_master`).

The master is a small QP over the simplex in the Gram matrix ``G = HᵀH`` of the cuts, kept
up to date as cuts come and go (one product ``Hᵀh`` per round), and solved by a warm-started
active-set method (:mod:`cvxtop.qp.simplex`): successive masters differ by one cut, so it takes a
few iterations and its cost follows the number of active cuts, not the dimension. cvxpy
(the same QP in ``G``, polished on its support) is the reference and the fallback. When the
slots run out, cuts that stayed below the model for a while are replaced by their aggregate
(a convex combination of valid cuts is valid and keeps the last master solution feasible,
so the bound never falls back); that happens only once the store has reached room for a
full active set or its memory budget.

For prec@k-avg and -max on many features the rounds alone are slow (each adds one vertex
of the optimum's face, which has about d of them); after :data:`DUAL_SOLVE_ROUNDS` rounds
the dual is also solved over the items (:mod:`.selection_dual`), and its answer joins the
store as one more valid cut, with its weights as a candidate best point. Where the best
point is still no better than the zero model and the lower bound is above zero, whether
that model is optimal is asked first (:mod:`.zero_model`): its certificate must shrink
like ``1/√C``, which the rounds reach ever more slowly as ``C`` grows, and at the zero
model every item is tied, which the dual over the items gives up on. The same holds for
prec@k-svmperf where the best point's labeling predicts no relevant item: its hinge
part is solved over the irrelevant items, and prec@k-struct's dual over the items
(:mod:`.box_dual`). From round 150 on, prec@k-svmperf's loss restricted to a few counts
of relevant items is also solved, by an interior point (:mod:`.count_dual`), on lists with
few features or few items; on other lists with at least as many features as items, its
dual over its labeling sizes (:mod:`.size_dual`), where the best labeling predicts
relevant items. On lists with more items than features, where its whole program is too
large for the direct program's candidate, the program restricted to the sizes and items
near the top (:mod:`.size_program`) is solved instead at the same stalls.

The cuts of the loss do not depend on ``C``, so a solve may start from those of another
``C`` (``cuts``: a regularization path). A cold solve at a large ``C`` uses that too: the
first masters' points lie so far out that no query between them and the zero model improves
on it, so when the best point is still the zero model after :data:`STALL_ROUNDS` rounds,
with the lower bound below zero, the solve hands over to ``C / 10`` and starts again from
that solve's cuts and point.
"""

from __future__ import annotations

import contextlib
import copy
import time
import warnings
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Iterator

import numpy as np

from .._threads import single_threaded_blas
from .._validation import check_fraction
from ..exceptions import SolverError
from ..parameters import renamed_keyword
from . import box_dual, count_dual, direct_program, size_dual, size_program
from .cut_store import CutStore, Cuts, cut_rounding, loss_key, numbers_per_item
from .gaps import gap_scale, half_square, relative_gap, within
from .line_search import line_search as segment_minimum
from .master import combination_rounding, outlying_rows, rounding_allowance, solve_master
from .objective import RankingObjective
from .parallel_products import ProductThreads, product_threads
from .result import EXACT_MAX_ITER, EXACT_TOL, SolveResult
from .selection_dual import DualCut, selection_dual_cut
from .zero_model import zero_model_cut

__all__ = ["solve_cutting_plane"]

#: Relative change of the objective below which a new point counts as no improvement.
ROUNDING = 1e-13
#: The line search stops once its step is provably within this share of the current
#: (absolute) gap of the line's minimum: a more exact step would not move the bounds. For a
#: surrogate evaluated on the whole list the share is smaller: there the best point, which
#: only the search moves, is what the last rounds wait for (on the sparse 50,000 × 50,000
#: set at SVMperf's C_perf 10 the lower bound was within 1e-6 of the optimum after 170 of
#: 541 rounds), and a closer step took those 541 rounds to 479 (measured before the hinge
#: dual of :mod:`.box_dual`, which now ends that solve after 20 rounds).
LINE_SEARCH_SHARE, LINE_SEARCH_SHARE_WHOLE_LIST = 0.01, 0.003
#: OCAS's μ, the share of the way from the best point to the master's solution at which the
#: next cut is taken (the best point moves only to a query that improves on it until the
#: line search starts, and a longer step than OCAS's 0.1 finds better points sooner).
STEP_FRACTION = 0.2
#: The line search starts once a round's two products with the cut store read this many
#: numbers per item of the list (the store's slots in use times its row length, against
#: 50 n): from there a round costs enough more than the search's evaluations (about four
#: oracle calls on the whole list, or far less on the candidates of :mod:`.line_search`)
#: that the rounds it saves pay for them. On the sparse 50,000 × 50,000 set it
#: starts after 50 rounds; on MAGIC, spambase and letter it would take 4,000 or more cuts
#: (never within the default 2,000 rounds), and on the lists of
#: ``benchmarks/grouped_exact.py`` (d = 10) millions.
SEARCH_STORE_RATIO = 50
#: Where the segment is evaluated on its candidates, the search costs about two passes over
#: the scores and a few cheap evaluations, and it runs from the first round once ``Z``
#: holds this many numbers per item: there it is under a tenth of a round's products, and
#: the best point it finds is also the dual solve's start (:mod:`.selection_dual`)
#: (measured: docs/solvers.md, "Measurements behind the constants").
SEARCH_FEATURES = 500
#: Rounds after which prec@k-avg's or -max's dual is solved over the items from the best
#: point (:mod:`.selection_dual`), while the gap is above ``tol``: its cut closes the gap at
#: once where the rounds would add one vertex of the optimum's face at a time.
#: prec@k-svmperf's hinge part and prec@k-struct have their own rounds
#: (:data:`.box_dual.SOLVE_ROUNDS`).
DUAL_SOLVE_ROUNDS = frozenset({50, 150, 400, 1000})
#: The round at which a solve that starts from a path's cuts solves the dual from the last
#: dual point (:attr:`.cut_store.Cuts.dual_point`), unless its cuts certified before
#: (prec@k-svmperf's hinge part and prec@k-struct: :data:`.box_dual.PATH_ROUND`, from the
#: last point's items at 1 and between).
WARM_DUAL_ROUND = 10
#: A path's start on a list that prec@k-svmperf's solve over counts suits, whose last ``C``
#: mixed counts of relevant items and whose seeded cuts leave a relative gap within
#: ``COUNTS_SETTLE_SHARE`` times ``tol``, runs this many rounds before that solve: on
#: ``make_ranking_data(10⁴, 1,000)`` from C = 21.5 up the cuts of the last C leave 1.0e-6
#: to 1.6e-6, which 3 to 13 rounds close at a hundredth of the solve's cost (measured:
#: docs/solvers.md, "A path over C").
COUNTS_SETTLE_SHARE, COUNTS_SETTLE_ROUNDS = 10.0, 10
#: The share of ``tol`` that solve aims at on a path: its cut then carries over to the
#: next ``C``, whose seeded cuts certify it or nearly (on ``make_ranking_data(10⁴, 1,000)``
#: each solve costs more, but five of the six points from C = 4.6 up were then certified
#: by the rounds alone, and the path took 0.89 times as long: docs/solvers.md).
COUNTS_PATH_AIM = 0.1
#: Surrogate evaluations of the search along a path's start's own ray (:func:`_on_own_ray`).
#: Where the optimum is proportional to ``C`` the search's first probe is that optimum (the
#: stationary point of the line of the start's subgradient); prec@k-svmperf's optimum is
#: not on the ray, and an exact search there took 10 or 11 evaluations a point on MAGIC
#: (measured: docs/solvers.md, "A path over C").
RAY_EVALUATIONS = 3
#: A path's cut is left out of the next solve's store when its rounding margins alone
#: (:func:`.cut_store.cut_rounding`), weighted by ``C``, exceed this share of the gap aimed
#: at, relative to the start's objective: cuts made at a large ``C`` carry margins of
#: its scale, and on MAGIC a path down to C = 0.002 ended at 2,000 rounds with its gap
#: all rounding, where a cold fit certifies at once (benchmarks/c_path.py).
SEED_ROUNDING = 0.1
#: The relative gap the dual solve aims at when the rounds' own ``tol`` is zero.
DUAL_SOLVE_TOL = 1e-8
#: A solve whose best point is still its start after this many rounds (from the zero
#: model, with its lower bound still below zero; from another start, with a relative gap
#: above ``CONTINUATION_TOL``: :func:`_stalled`) hands over to a solve at
#: ``C / CONTINUATION_FACTOR`` to ``CONTINUATION_TOL`` (the same rule applies there),
#: whose cuts and point start the rest of it: at a large ``C`` the
#: master's points lie far out (norms of 10³ to 10⁴ where the optimum's is 15, spambase
#: prec@k-max at C = 2,154), so queries between them and the zero model never improve on it
#: and its 2,000 rounds ended at a relative gap of 0.32; handed over, it certifies in 1,340
#: rounds in all, and the rounds of C = 100 and 464 fall by a fifth and a third. A path
#: from C = 2,154 to 1e4 (prec@k-max, ``make_ranking_data(10⁴, 1,000)``) never moved from
#: its start in 2,000 rounds, where handed over it certifies in 166 (``benchmarks/c_path.py``;
#: docs/solvers.md, "A cold solve at a large C").
STALL_ROUNDS, CONTINUATION_FACTOR, CONTINUATION_TOL = 100, 10.0, 1e-2
#: The ratio of the columns' largest to smallest standard deviation from which a solve
#: that ends at ``max_iter`` names it in its message: on spambase's features as shipped
#: (7,950) prec@k-avg at C = 1e4 ends there, where the standardized features certify at
#: every C (``benchmarks/c_path.py``).
COLUMN_SPREAD = 1e3
#: The ratio of the rows' common offset to their spread about it
#: (:meth:`.RankingObjective.common_offset`) from which a solve that ends at ``max_iter``
#: names it: prec@k-svmperf on 60 Gaussian items with 4 features offset by 1e4, 1e5 and 1e6
#: took 133, 1,094 and more than 2,000 rounds, the centered items 28 (docs/solvers.md, "When
#: a solver fails").
COMMON_OFFSET = 1e3
#: Rounds that move neither bound after which the best point moves along its own ray
#: ``(1 + τ)·best`` (where the optimum's loss is zero, at a large ``C``, a point whose
#: margins fall short by rounding alone pays ``C`` times that loss), and, if that does not
#: move it, a first solve (not one started again after a hand-over) hands over as a stalled
#: one does: on spambase's features as shipped, pAp@k-avg at C = 2,154 kept both bounds
#: from round 150 to its 2,000th at a relative gap of 5.7e-6; the ray certifies it at
#: round 250 (docs/solvers.md, "Frozen bounds").
FROZEN_ROUNDS = 100
#: Rounds that move neither bound, with the relative gap below :data:`EXACT_MASTER_GAP`
#: times ``tol``, after which the master is solved to its own accuracy, its ridge's pull
#: taken out (:func:`.master.solve_master`'s ``gap``), for the rest of the solve. A master
#: whose ridge leaves it a gap of its own stalls both bounds (prec@k-svmperf on 71 × 14
#: lognormal features at C = 1e4: 2,000 rounds at a relative gap of 1.2e-6; certified in a
#: few hundred with it); elsewhere those proximal steps cost about as much again as the
#: master, and where the gap is wide it is not the master's that holds it (docs/solvers.md,
#: "The master's ridge"). From ``10·tol`` on, that lognormal fit took 500 to 2,585 rounds
#: over 16 orders of its rows, as without the steps.
EXACT_MASTER_ROUNDS, EXACT_MASTER_GAP = 10, 100.0
#: Rounds that move neither bound with the master already solved to its own accuracy
#: (``EXACT_MASTER_ROUNDS``), after which it is solved from the cuts' rows for the rest of
#: the solve (:func:`.master.solve_master`'s ``from_rows``; docs/solvers.md, "A master
#: solved from the rows"): half of ``FROZEN_ROUNDS``, so that a first solve tries it before
#: it hands over. There the master is held by the rounding of its Gram matrix and by the
#: longest cut's ridge, not by its cuts: on spambase's features as shipped, prec@k-svmperf
#: at C = 1e4 stood at a relative gap of 1.04e-6 for its last 1,700 rounds on one order of
#: the rows in five, and pAp@k-TS at C = 1 failed on two; from the rows every one of them
#: certifies. Not while the best point is the zero model: there its exact answers stalled
#: both bounds (MAGIC's features as shipped, prec@k-max at C = 464: 2,166 rounds instead
#: of 654), and the zero model's own certificate is what closes the gap.
ROWS_MASTER_ROUNDS = 50
#: Rounds that move neither bound, at any gap, after which the master is solved to its own
#: accuracy where the last master's answer was decided by its ridge, not by its cuts
#: (:data:`.master.RIDGE_SHARE`): there the gap is the master's at any width. pAp@k-TS at
#: k = 1 sums a hinge over every relevant item into each cut, and at a large C its cuts
#: combine to a point near zero: on standardized spambase at C = 1e4 the weighed cuts were
#: 1e10 times longer than their combination, and the ridge's pull on the answer 1.5 times
#: the master's value in the median. On MAGIC's features as shipped at C = 1e4 the rule
#: above never applied (a gap of 3.7e-2 after 4,427 rounds), and with this one the fit
#: certifies in 383 (docs/solvers.md, "A ridge that outweighs the master").
EXACT_MASTER_WIDE_ROUNDS = 10
#: A solve that reaches ``max_iter`` with its relative gap less than this share below the
#: gap halfway through says that more rounds are unlikely to certify it, and does not
#: advise raising ``max_iter``: on spambase's features as shipped, prec@k-avg at C = 1e4
#: ends at a gap of 3.49e-6 after 2,000 rounds (3.52e-6 at round 1,000) and at 2.9e-6
#: after 6,000 (docs/solvers.md, "A gap that stopped falling"). A cutting plane that
#: converges at its usual rate, ``O(1/t)``, halves its gap over the second half of its
#: rounds.
STALLED_FALL = 0.1
#: Hand-overs at most in one solve (down to ``C / 10⁸``). Where the larger C would leave
#: out cuts of the smaller C's rough solve for their rounding (pAp@k-avg on
#: ``make_ranking_data(10⁴, 1,000)`` at C = 1e4: 803 cuts, and 2,000 rounds to a gap of
#: 8.5e-2), that solve goes on to ``tol`` before the rounds start from it; where those
#: rounds end at ``max_iter``, it does too and they start again.
CONTINUATION_LEVELS = 8


def _final_bounds(objective: RankingObjective, bundle: CutStore, best: np.ndarray,
                  best_s: np.ndarray, lower: float, upper: float, exact_scores: bool,
                  oracle: tuple[float, np.ndarray] | None) -> tuple[float, float, float]:
    """Upper bound at ``best``: ``upper`` when it was computed on the scores ``Z @ best``
    themselves (``exact_scores``; ``oracle``, ``L`` with a score subgradient there), else
    recomputed from scratch (the scores were updated incrementally along the line
    searches); the lower bound; and the relative gap. The point, its scores and the oracle
    go to the store (:attr:`.cut_store.Cuts.last_point`).

    Both bounds carry floating-point rounding; a lower bound above the objective of a
    feasible point (the best one, or the zero model) by more than that would be a failed
    certificate, and is reported as such.
    """
    if not exact_scores:
        upper, best_s, oracle = _at_own_scores(objective, objective.Z, best)
    # (copies: the caller may change its coef)
    bundle.last_point = (best.copy(), best_s.copy(), (oracle[0], oracle[1].copy()))
    zero = objective.zero_value()  # a feasible objective the bound must not pass
    slack = 1e-12 * max(abs(upper), 1.0)
    if lower > min(upper, zero) + slack:
        raise SolverError(f"the certificate failed: the lower bound {lower!r} is above the "
                          f"objective {min(upper, zero)!r} of a feasible point (a cut lost its "
                          "validity to rounding; please report it)", status="certificate_failed")
    lower = min(lower, upper)
    return upper, lower, relative_gap(upper, lower, objective.C, half_square(best))


def _query_cut(objective: RankingObjective, Z: Any, loss: float, g: np.ndarray,
               scores: np.ndarray, row_norms: np.ndarray, every_item: bool) -> tuple:
    """The cut of the loss at the ``scores`` (``L`` there is ``loss``, ``g`` a subgradient),
    ``(Z, g, intercept, rounding)`` for :func:`_add_query_cut`. Where the surrogate's pieces
    allow it (:attr:`~cvxtop.surrogates.base.Surrogate.exact_intercepts`), the intercept is
    read off ``g`` (:meth:`.objective.RankingObjective.intercept_of`: the sum of ``g`` over
    the irrelevant items, a sum of terms no larger than ``g``'s whatever the scores, or
    prec@k-svmperf's ``k·b/(a + b)`` from its labeling's counts); otherwise ``L(s) − g·s``,
    whose rounding counts the scores that ``g`` weighs (:func:`.cut_store.cut_rounding`) and
    misses one that the loss reads twice with opposite signs (prec@k-struct's relevant item
    in its top ``k``, which ``g`` leaves at 0: at a score of 1e8 the intercept came out
    8.3e-8 above 0)."""
    intercept = objective.intercept_of(g)
    if intercept is not None:
        return Z, g, intercept, cut_rounding(intercept, g, None, row_norms, every_item)
    return Z, g, loss - float(g @ scores), cut_rounding(loss, g, scores, row_norms, every_item)


def _add_query_cut(bundle: CutStore, query_cut: tuple, refuse_repeat: bool) -> bool:
    """Stores the cut of a query, ``(Z, g, intercept, rounding)`` with its row ``Zᵀg``;
    whether it was new (:meth:`.cut_store.CutStore.add`)."""
    Z, g, intercept, rounding = query_cut
    return bundle.add(Z.T @ g, g, intercept, rounding, refuse_repeat=refuse_repeat)


def _searched(objective: RankingObjective, best_state: tuple, d: np.ndarray,
              ds: np.ndarray, **search: Any) -> tuple:
    """The best point's state ``(upper, best, best_s, best_oracle, exact_scores)``, moved to
    the minimizer of the objective along ``best + τd`` (``τ >= 0``, scores ``best_s + τ·ds``;
    ``search``: the options of :func:`.line_search.line_search`) where that is lower by
    more than rounding: an exact step can land on the best point's own kink and "improve"
    it by rounding only, and the point is kept then (an exact zero model stays exact)."""
    upper, best, best_s, best_oracle, _ = best_state
    step = segment_minimum(objective, best, best_s, d, ds, start=best_oracle, **search)
    if not step.tau > 0:
        return best_state
    moved = best + step.tau * d
    if _step_drift(objective, step.tau, ds, best_s, step.grad) > ROUNDING * max(1.0, abs(upper)):
        value, moved_s, oracle = _at_own_scores(objective, objective.Z, moved)
        exact = True
    else:
        moved_s, oracle, exact = best_s + step.tau * ds, (step.loss, step.grad), False
        value = 0.5 * float(moved @ moved) + objective.C * step.loss
    if value < upper - ROUNDING * max(1.0, abs(upper)):
        return value, moved, moved_s, oracle, exact
    return best_state


def _on_own_ray(objective: RankingObjective, best_state: tuple) -> tuple:
    """The best point's state moved along its own ray, ``t·best`` with ``t >= 0`` (its
    scores scale with it: no product with ``Z``), to the lowest objective a search of at
    most :data:`RAY_EVALUATIONS` evaluations finds: outwards first, inwards where that does
    not lower the objective. For the start of a path's point, the last ``C``'s answer:
    where the loss is linear on the optimum's face, the optimum is proportional to ``C``
    and lies on that ray (docs/solvers.md, "A path over C")."""
    _, best, best_s, _, _ = best_state
    outwards = _searched(objective, best_state, best, best_s, max_evaluations=RAY_EVALUATIONS)
    if outwards[1] is not best:
        return outwards
    return _searched(objective, best_state, -best, -best_s, max_evaluations=RAY_EVALUATIONS)


def _at_own_scores(objective: RankingObjective, Z: Any, w: np.ndarray
                   ) -> tuple[float, np.ndarray, tuple[float, np.ndarray]]:
    """The objective at ``w`` from its own scores ``Z w``, the scores, and ``L`` with a
    score subgradient there (a best point's state, exact)."""
    scores = np.asarray(Z @ w).ravel()
    oracle = objective.loss_and_score_gradient(scores)
    return 0.5 * float(w @ w) + objective.C * oracle[0], scores, oracle


def _step_drift(objective: RankingObjective, tau: float, ds: np.ndarray, s: np.ndarray,
                grad: np.ndarray) -> float:
    """A bound, to first order, on how far the objective at the scores ``s + τ·ds`` can be
    from its value at ``Z(w + τd)``: ``ds`` carries the rounding of the two score vectors
    it is the difference of, about ``ε·(‖ds‖∞ + 2‖s‖∞)`` per item, which the step
    multiplies by ``τ``, and ``L`` moves by at most ``‖g‖₁`` per unit of that. A direction
    of rounding alone (the master's point equal to the best one) can have a step of
    ``τ ≈ 1e11`` and scores off by ``1e-5``: its value, at ``C = 7.5e3``, 6% below the
    point's."""
    eps = np.finfo(np.float64).eps
    scale = float(np.max(np.abs(ds), initial=0.0)) + 2.0 * float(np.max(np.abs(s), initial=0.0))
    return objective.C * float(np.abs(grad).sum()) * tau * 4.0 * eps * scale


def _take_cut(bundle: CutStore, cut: DualCut, row_norms: np.ndarray, best_state: tuple
              ) -> tuple:
    """Stores a dual solve's cut and its point as the path's dual point, and returns the best
    point's state ``(upper, best, best_s, best_oracle, exact_scores)``, moved to the cut's
    weights where their objective is lower."""
    bundle.dual_point = cut.g
    bundle.add(cut.h, cut.g, cut.intercept,
               cut_rounding(cut.intercept, cut.g, None, row_norms, bundle.scores))
    if cut.value < best_state[0]:
        return cut.value, cut.weights, cut.scores, (cut.loss, cut.subgradient), True
    return best_state


def _candidate(objective: RankingObjective, bundle: CutStore, row_norms: np.ndarray,
               w: np.ndarray, best_state: tuple) -> tuple:
    """Stores the cut at a program's answer ``w`` and returns the best point's state
    ``(upper, best, best_s, best_oracle, exact_scores)``, moved to ``w`` where its objective,
    evaluated exactly, is lower."""
    scores = np.asarray(objective.Z @ w).ravel()
    loss, g = objective.loss_and_score_gradient(scores)
    _add_query_cut(bundle, _query_cut(objective, objective.Z, loss, g, scores, row_norms,
                                      bundle.scores), True)
    value = 0.5 * float(w @ w) + objective.C * loss
    return (value, w, scores, (loss, g), True) if value < best_state[0] else best_state


def _direct_candidate(objective: RankingObjective, bundle: CutStore, row_norms: np.ndarray,
                      best_state: tuple, lower: float, tol: float) -> tuple:
    """Stores the cuts at the direct program's answers (:mod:`.direct_program`), and the
    dual form's cut at the multipliers whose cut bounds highest; returns the best point's
    state ``(upper, best, best_s, best_oracle, exact_scores)``, moved to an answer or to
    that cut's weights where their objective is lower. The first solver of
    :func:`.direct_program.solvers` that answers is the only one asked; its loss weights
    are tried in turn until the best point's objective is within ``tol`` of the higher of
    ``lower`` and the best cut's dual value."""
    dual, answered = None, False
    for solver in direct_program.solvers(objective):
        for weight in direct_program.LOSS_WEIGHTS:
            for w, multipliers in direct_program.answers(objective, solver, (weight,)):
                answered = True
                best_state = _candidate(objective, bundle, row_norms, w, best_state)
                cut = direct_program.cut_near(objective, multipliers)
                if cut is not None and (dual is None or cut.dual_value(objective.C)
                                        > dual.dual_value(objective.C)):
                    dual = cut
            bound = lower if dual is None else max(lower, dual.dual_value(objective.C))
            if within(best_state[0], bound, tol, objective.C, half_square(best_state[1])):
                break
        if answered:
            break
    return best_state if dual is None else _take_cut(bundle, dual, row_norms, best_state)


def _size_candidate(objective: RankingObjective, bundle: CutStore, row_norms: np.ndarray,
                    best_state: tuple) -> tuple:
    """Stores the cut at the answer of prec@k-svmperf's restricted program
    (:mod:`.size_program`, with the store's cuts as constraints) and its multipliers' cut,
    the combination of its sizes' labelings and of the store's cuts it weighs, as one cut
    (the master finds it as one vertex of its simplex, where it may not find the same
    combination of many cuts: on letter's features as shipped at C = 1e4 and k = 5 its
    answer there was 6e-5 below the combination's); returns the best point's state
    ``(upper, best, best_s, best_oracle, exact_scores)``, moved to the answer where its
    objective is lower. Its loss weights are tried in turn until one answers."""
    active = np.flatnonzero(bundle.active[:bundle.used])
    rows, intercepts = bundle.cuts[active], bundle.b[active]
    for weight in direct_program.LOSS_WEIGHTS:
        answer = size_program.restricted_answer(objective, best_state[2], rows, intercepts,
                                                weight)
        if answer is None:
            continue
        best_state = _candidate(objective, bundle, row_norms, answer.weights, best_state)
        _add_combination(objective, bundle, answer, (rows, intercepts, active), row_norms)
        break
    return best_state


def _add_combination(objective: RankingObjective, bundle: CutStore,
                     answer: "size_program.Answer", given: tuple, row_norms: np.ndarray) -> None:
    """Stores the answer's cut, ``(answer.intercept + α·b) + (Zᵀ answer.g + Hα)·w`` for the
    store's cuts ``given`` (their rows ``H``, intercepts ``b`` and slots), with its rounding:
    the sizes' part's (:func:`.cut_store.cut_rounding`), the weighed margins of the store's
    cuts, and the rounding of the combination's sums (the store holds ``h`` itself: the
    program is tried on lists with more items than features)."""
    rows, intercepts, active = given
    alpha, eps = answer.alpha, np.finfo(np.float64).eps
    h_sizes = np.asarray(objective.Z.T @ answer.g).ravel()
    h = h_sizes + alpha @ rows
    intercept = answer.intercept + float(alpha @ intercepts)
    margin, h_error = cut_rounding(answer.intercept, answer.g, None, row_norms, bundle.scores)
    terms = len(alpha) + 2
    margin += float(alpha @ bundle.margin[active]) \
        + terms * eps * (abs(answer.intercept) + float(alpha @ np.abs(intercepts)))
    h_error += float(alpha @ bundle.h_error[active]) + terms * eps * (
        float(np.linalg.norm(h_sizes)) + float(alpha @ np.linalg.norm(rows, axis=1)))
    bundle.add(h, answer.g, intercept, (margin, h_error))


@renamed_keyword("solver", "cvx_solver")
def solve_cutting_plane(
    objective: RankingObjective,
    *,
    tol: float = EXACT_TOL,
    max_iter: int = EXACT_MAX_ITER,
    cvx_solver: str = "CLARABEL",
    solver_options: dict[str, Any] | None = None,
    w0: np.ndarray | None = None,
    capacity: int = 64,
    patience: int = 100,
    step_fraction: float | None = None,
    line_search: bool | None = None,
    master: str = "active-set",
    accept_inaccurate: bool = False,
    callback: Callable[[int, float, float], None] | None = None,
    stop: Callable[[float, float], bool] | None = None,
    cuts: Cuts | None = None,
    keep_cuts: bool = False,
) -> SolveResult:
    """Minimize ``½‖w‖² + C·L(y, Zw)`` to a certified relative gap ``tol``.

    Parameters
    ----------
    objective : RankingObjective
        The problem (convex surrogate).
    tol : float
        Stop when ``(upper − lower)/|upper| <= tol``.
    max_iter : int
        Rounds (oracle cuts) allowed; reaching it raises :class:`SolverError` (status
        ``max_iter``) unless ``accept_inaccurate``, which warns and returns the best point.
        A solve handed over to a smaller ``C`` (module docstring) allows each of its solves
        this many rounds, and its ``n_iter`` counts them all.
    cvx_solver : str
        The cvxpy solver of the master problem (``solver=`` is its deprecated name).
    solver_options : dict, optional
        Its options, passed to cvxpy's ``solve``.
    w0 : array of shape (d,), optional
        Starting point (a warm start); zeros by default.
    capacity : int
        Initial number of cut slots. The store doubles when every slot is in use, up to
        room for a full active set (``2(d + 2)`` cuts, within :data:`.cut_store.STORE_BYTES`); past
        that, cuts idle for ``patience`` rounds are aggregated. Storage therefore follows
        the number of cuts the solve needs, not ``d²``.
    patience : int
        Rounds a cut must stay below the model before it may be aggregated away (once the
        store has used :data:`.cut_store.STORE_BYTES`, one round). Aggregating sooner loses cuts that
        come back: on Spambase pAp@k-ts (d = 57) at C = 1 and 10, 10 rounds left the gap
        stuck near 1e-6 after 2000 rounds, where 100 certify it in 545 and 607.
    step_fraction : float, optional
        OCAS's μ: the next cut is taken at ``w_b + μ(w_c − w_b)`` (:data:`STEP_FRACTION` by
        default).
    line_search : bool, optional
        Whether the best point moves to the minimizer of the objective on the segment towards
        ``w_c`` every round (OCAS), or only to a query that improves on it. By default
        (``None``) the search starts once the store's products make a round dearer than its
        evaluations (:data:`SEARCH_STORE_RATIO`), and on the candidates of prec@k's
        surrogates from the first round when ``Z`` is wide (:data:`SEARCH_FEATURES`): on the
        UCI sets, dense synthetic data up to 10⁶ × 50 and grouped lists the rounds it saves
        cost less than it does
        (``benchmarks/exact_scaling.py``, ``benchmarks/svmperf_head_to_head.py``,
        ``benchmarks/grouped_exact.py``), on sparse data with 50,000 features more.
    master : {"active-set", "cvxpy"}
        The master's solver: the warm-started active-set method of :mod:`cvxtop.qp.simplex`
        (falling back to cvxpy if it does not converge), or cvxpy with ``cvx_solver`` alone
        (the reference).
    callback : callable(round, upper, lower), optional
        Called after every round (progress bars use it).
    stop : callable(upper, lower) -> bool, optional
        A caller's own stopping rule on the bounds, checked after every round; when it
        holds the best point is returned with status ``"converged"`` and its bounds (the
        certificate of an approximate solver's model, :mod:`.certificate`).
    cuts : Cuts, optional
        The cuts of an earlier solve of the same loss (``SolveResult.cuts``): they do not
        depend on ``C``, so the store starts with them and the master's first bound is
        already theirs (a regularization path). Cuts of other data raise ``ValueError``.
    keep_cuts : bool
        Return the final store's cuts in ``SolveResult.cuts`` (for the next ``C``).
    """
    if not objective.surrogate.convex:
        raise ValueError(f"{objective.surrogate.name} is not convex: the cutting plane needs a "
                         "convex surrogate")
    if master not in ("active-set", "cvxpy"):
        raise ValueError(f"master must be 'active-set' or 'cvxpy', got {master!r}")
    if step_fraction is not None:
        step_fraction = check_fraction(step_fraction, "step_fraction", closed_right=True)
    if line_search is not None and not isinstance(line_search, (bool, np.bool_)):
        raise TypeError(f"line_search must be True, False or None, got {line_search!r}")
    key = loss_key(objective) if cuts is not None or keep_cuts else None
    if cuts is not None and (not isinstance(cuts, Cuts) or cuts.key != key):
        raise ValueError("cuts must be the SolveResult.cuts of a solve of the same loss (the "
                         "same features, labels, surrogate and lists); only C may differ")
    if cuts is not None and objective.zero_loss is None:
        objective.zero_loss = cuts.zero_loss  # (the same loss: its digest matched)
    with single_threaded_blas(), product_threads() as threads:
        rounds = partial(_cutting_plane, threads=threads, max_iter=max_iter, solver=cvx_solver,
                         solver_options=solver_options, capacity=capacity, patience=patience,
                         step_fraction=step_fraction, line_search=line_search, master=master)
        store, result = _continued(rounds, objective, tol, w0, cuts, accept_inaccurate,
                                   callback, stop, CONTINUATION_LEVELS)
    return replace(result, cuts=store.export(key, objective.zero_loss)) if keep_cuts else result


def _continued(rounds: Callable[..., tuple[CutStore, SolveResult | int]],
               objective: RankingObjective, tol: float, w0: np.ndarray | None,
               cuts: Cuts | None, accept_inaccurate: bool,
               callback: Callable[[int, float, float], None] | None,
               stop: Callable[[float, float], bool] | None, levels: int
               ) -> tuple[CutStore, SolveResult]:
    """The rounds of ``objective``, handed over to a solve at ``C / CONTINUATION_FACTOR``
    once they stall (:data:`STALL_ROUNDS`, :func:`_stalled`), whose cuts (valid at every
    ``C``) and point then start them again. ``n_iter`` counts the rounds of every solve;
    ``max_iter`` bounds each."""
    stall = STALL_ROUNDS if levels > 0 else None
    store, result = rounds(objective, tol=tol, w0=w0, cuts=cuts,
                           accept_inaccurate=accept_inaccurate, callback=callback, stop=stop,
                           stall=stall, on_ray=cuts is not None)
    if not isinstance(result, int):
        return store, result
    stalled_at = result
    easier = copy.copy(objective)  # the same loss (and digest) at a smaller C
    easier.C = objective.C / CONTINUATION_FACTOR
    easier_tol = max(tol, CONTINUATION_TOL)
    with _quiet():
        easier_store, start = _continued(rounds, easier, easier_tol, None, None, True, None,
                                         None, levels - 1)
    told = stalled_at  # the rounds of this C a callback was told of

    def resumed(it: int, upper: float, lower: float) -> None:
        callback(told + it, upper, lower)

    spent = stalled_at + start.n_iter  # the rounds before the last start at this C
    while True:
        # a rough solve of the smaller C whose cuts this C would leave out for their
        # rounding (made far out) goes on to tol first; a start from a rough solve that
        # ends at max_iter does too, and this C starts again from it (as a path up would)
        retry = easier_tol > tol
        seed = easier_store.export("")
        if not retry or _keeps_every_cut(seed, start, easier, objective, tol):
            with _quiet() if retry else contextlib.nullcontext():
                store, result = rounds(objective, tol=tol, w0=start.coef, cuts=seed,
                                       accept_inaccurate=accept_inaccurate or retry,
                                       callback=None if callback is None else resumed,
                                       stop=stop, stall=None)
            if result.status != "max_iter" or not retry:
                break
            told, spent = told + result.n_iter, spent + result.n_iter
        easier_tol = tol
        with _quiet():
            easier_store, start = rounds(easier, tol=tol, w0=start.coef,
                                         cuts=seed, accept_inaccurate=True,
                                         callback=None, stop=None, stall=None)
        spent += start.n_iter
    stats = {**result.stats, "continued_at_C": easier.C, "continuation_rounds": spent}
    return store, replace(result, n_iter=result.n_iter + spent, stats=stats)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """A block whose solves' warnings are not the caller's: a hand-over's solves at a
    smaller ``C``, whose points only start the caller's own. (Their warnings that they
    stopped at ``max_iter`` named their own gap, and reached the caller before the fit's
    own warning or error.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _stalled(best: np.ndarray, start: np.ndarray, gap: float) -> bool:
    """Whether rounds whose best point is ``best`` after :data:`STALL_ROUNDS` have stalled:
    from the zero model, the best point is still zero and the lower bound below zero (a
    relative gap above 1); from another start (a path's last point, a warm start, ``w0``),
    the best point is still the start and the relative gap above
    :data:`CONTINUATION_TOL`."""
    if not start.any():
        return not best.any() and gap > 1.0
    return best is start and gap > CONTINUATION_TOL


def _aim(tol: float) -> float:
    """The gap the dual solves aim at, and the seeded cuts' rounding is weighed against:
    ``tol``, or :data:`DUAL_SOLVE_TOL` for a caller that stops the rounds itself
    (``tol = 0``)."""
    return tol if tol > 0 else DUAL_SOLVE_TOL


def _seed_rounding(aim: float, value: float, C: float, regularizer: float) -> float:
    """The largest rounding (in loss units) of a cut a solve at ``C`` keeps from a path:
    :data:`SEED_ROUNDING` of the gap ``aim`` relative to its start's objective ``value``
    (whose ``½‖w‖²`` is ``regularizer``: at least that, as in :mod:`.gaps`)."""
    return SEED_ROUNDING * aim * gap_scale(value, C, regularizer) / C


def _keeps_every_cut(cuts: Cuts, start: SolveResult, easier: RankingObjective,
                     objective: RankingObjective, tol: float) -> bool:
    """Whether a solve of ``objective`` started from ``start`` (a solve of the same loss at
    the smaller ``easier.C``) and its ``cuts`` keeps them all: its start's objective is
    ``½‖w‖² + C·L(w)``, with ``L(w)`` read off the smaller C's."""
    half_sq = half_square(start.coef)
    value = half_sq + objective.C * (start.objective - half_sq) / easier.C
    return bool(cuts.kept(_seed_rounding(_aim(tol), value, objective.C, half_sq),
                          float(np.linalg.norm(start.coef))).all())


def _cutting_plane(objective: RankingObjective, *, threads: ProductThreads, tol: float,
                   max_iter: int, solver: str, solver_options: dict[str, Any] | None,
                   w0: np.ndarray | None, capacity: int, patience: int,
                   step_fraction: float | None, line_search: bool | None, master: str,
                   accept_inaccurate: bool,
                   callback: Callable[[int, float, float], None] | None,
                   stop: Callable[[float, float], bool] | None, cuts: Cuts | None,
                   stall: int | None = None, on_ray: bool = False
                   ) -> tuple[CutStore, SolveResult | int]:
    """The rounds, with the large products over ``threads`` (:mod:`.parallel_products`);
    returns the store of cuts with the result, or with the round at which the rounds
    stalled (``stall`` given): ``stall`` rounds have left the best point where it started,
    with the gap of :func:`_stalled`, or have moved neither bound (:data:`FROZEN_ROUNDS`).
    ``on_ray``: the start ``w0`` is a path's last answer, and the first round moves it to
    the best point on its ray (:func:`_on_own_ray`); not for a hand-over's start (on the
    hostile data of ``benchmarks/hostile_exact.py`` the ray there took more rounds)."""
    Z, C = threads.operator(objective.Z), objective.C
    d = Z.shape[1]
    if step_fraction is None:
        step_fraction = STEP_FRACTION
    share = LINE_SEARCH_SHARE if objective.restricted_segment \
        else LINE_SEARCH_SHARE_WHOLE_LIST
    # by the rule (line_search None) the search starts once the store is dear
    searched, search_later = bool(line_search), line_search is None
    if search_later and objective.restricted_segment \
            and numbers_per_item(objective.Z) >= SEARCH_FEATURES:
        searched, search_later = True, False
    bundle = CutStore(Z, capacity, patience, master, solver, solver_options, threads)
    if cuts is not None:  # (seeded at round 1: which cuts to keep needs its objective)
        bundle.dual_point = cuts.dual_point
        bundle.box_faces = dict(cuts.box_faces or {})
    row_norms = objective.row_norms()
    bundle.outlying_rows = objective.derived("outlying_rows", lambda: outlying_rows(row_norms))
    known_oracle = None  # L with a score subgradient at the start, where already known
    if w0 is None:  # the zero model's scores need no product
        best, best_s = np.zeros(d), np.zeros(Z.shape[0])
    elif cuts is not None and cuts.last_point is not None \
            and np.array_equal(cuts.last_point[0], w0):
        # a path's last point: no product, and no evaluation of the loss (not of C)
        best, best_s = cuts.last_point[0].copy(), cuts.last_point[1].copy()
        known_oracle = cuts.last_point[2]
    else:
        best = np.asarray(w0, dtype=np.float64).copy()
        best_s = np.asarray(Z @ best).ravel()
    start = best  # (a solve whose best point stays there stalls: _stalled)
    # whether best_s is Z @ best itself, not updated along line searches (then the value
    # seen at best is already the final one)
    exact_scores = True
    dual_solves = True  # whether the dual solve over the items may still be tried
    # whether its last try started from the zero model and failed: it is tried again once
    # the best point has moved (at the zero model every item is tied), or once the zero
    # model's own certificate can be asked for (zero_asked: whether it has been)
    failed_at_zero, zero_asked = False, False
    box = box_dual.suits(objective)  # whether its dual over the items is a box with one sum
    # the box solve's proximal points: from its proximal round, and where that is the early
    # one (the hinge and pAp@k-avg on dense rows), in a path's first try from the last dual
    # point too
    box_proximal_round = box_dual.proximal_round(objective) if box else None
    early_proximal = box and box_proximal_round < box_dual.PROXIMAL_ROUND
    # prec@k-svmperf's dual over counts of relevant items (while it gives cuts), or where
    # that does not suit, over labeling sizes
    counts_suit = count_solves = count_dual.suits(objective)
    sizes_suit = size_dual.suits(objective) and not counts_suit
    dual_rounds = box_dual.SOLVE_ROUNDS if box else DUAL_SOLVE_ROUNDS
    warm_round = box_dual.PATH_ROUND if box else WARM_DUAL_ROUND
    if bundle.dual_point is not None:
        # a path's last dual point is near this C's: its solve is tried early
        dual_rounds = dual_rounds | {warm_round}
    # a path's start is near this C's optimum: its solve over counts runs at the warm round
    # where the hinge's leaves the gap open, not after PROXIMAL_ROUND rounds; and alone,
    # without the hinge's, where the last C's answer mixed counts of relevant items
    # (count_dual.mixes_counts of its dual point; the hinge's never does), which the hinge
    # does not describe (on make_ranking_data(10⁴, 1,000) at C = 0.046 its cut's
    # gap was 0.59): count_at is the round of that early solve
    warm_counts = counts_suit and bundle.dual_point is not None
    counts_first = warm_counts and count_dual.mixes_counts(objective, bundle.dual_point)
    count_at = warm_round if warm_counts else None
    aim = _aim(tol)
    query, query_s, mu = best, best_s, 0.0
    upper, lower, gap = np.inf, -np.inf, np.inf
    moved = (0, upper, lower)  # the last round that moved a bound, and the bounds then
    frozen_rayed = -1  # the frozen stretch (its first round) whose best point's ray was searched
    # whether a query had zero loss, and the last best point moved along its ray since
    zero_loss_seen, rayed = False, None
    exact_master = False  # whether the master takes its ridge's pull out (EXACT_MASTER_ROUNDS)
    rows_master = False  # whether it is solved from the cuts' rows (ROWS_MASTER_ROUNDS)
    # whether the direct program's answer may still be tried, where the gap falls by less
    # than STALLED_FALL over FROZEN_ROUNDS rounds (window_gap: the gap at their start)
    direct_candidate, window_gap = direct_program.suits(objective), np.inf
    # prec@k-svmperf's program restricted to its highest sizes, where the whole one is too
    # large: the stalls left at which it is solved again (size_program.REPEATS)
    size_candidates = size_program.REPEATS \
        if not direct_candidate and size_program.suits(objective) else 0
    stats = {"dual_solves": 0, "dual_solve_seconds": 0.0, "dual_steps": 0}
    best_oracle = None  # L and a score subgradient at the best point, once known
    half_gap = np.inf  # the relative gap halfway through max_iter (STALLED_FALL)
    for it in range(1, max_iter + 1):
        loss, g = objective.loss_and_score_gradient(query_s) if it > 1 or known_oracle is None \
            else (known_oracle[0], known_oracle[1].copy())
        if it == 1 and objective.zero_loss is None and not query.any():
            objective.zero_loss = loss  # (the zero model's, for the final bounds)
        value = 0.5 * float(query @ query) + C * loss
        zero_loss_seen = zero_loss_seen or (loss == 0.0 and query.any())
        if value < upper:
            upper, best, best_s, best_oracle = value, query, query_s, (loss, g)
            exact_scores = it == 1
        if it == 1 and cuts is not None:
            # a path's cuts, but for those whose rounding alone would cost a share of the
            # gap aimed at here (SEED_ROUNDING of it): made at a larger scale
            stats["seeded_cuts_left_out"] = bundle.seed(
                cuts, _seed_rounding(aim, value, C, half_square(query)),
                float(np.linalg.norm(query)))
            if on_ray and best.any():
                upper, best, best_s, best_oracle, exact_scores = _on_own_ray(
                    objective, (upper, best, best_s, best_oracle, exact_scores))
                start = best  # (the rounds start there: _stalled)
        try_dual = it in dual_rounds and dual_solves and not (counts_first and count_solves) \
            and not within(upper, lower, tol, C, half_square(best)) \
            and not (failed_at_zero and not best.any() and (zero_asked or lower <= 0))
        if try_dual:
            proximal = it >= box_dual.PROXIMAL_ROUND
            # prec@k-svmperf's hinge dual needs a best point predicting no relevant item;
            # elsewhere its dual over the labeling sizes, from the proximal round on, where
            # it suits; a round where neither applies is no failed solve
            applies = box and box_dual.applies(objective, best_oracle[1])
            by_sizes = sizes_suit and proximal and not applies
            try_dual = not box or applies or by_sizes
        warm = try_dual and it == warm_round and bundle.dual_point is not None
        count_round = counts_suit and count_solves and it in dual_rounds \
            and (it >= box_dual.PROXIMAL_ROUND or it == count_at)
        box_proximal = box and (it >= box_proximal_round or warm and early_proximal)
        # a cut the store holds already is refused, and the master's point is queried next;
        # a repeat there too means the model is exact at that point, and only the master's
        # own inaccuracy leaves a gap: that cut is stored again, which changes the master's
        # problem where its intercept, L(s) − g·s, differs from its twin's by rounding; an
        # intercept read off g (Surrogate.exact_intercepts) makes an exact copy,
        # which changes nothing, so the master is asked for the answer from the cuts' rows
        # (master.solve_master's exact_at_point). A path's warm dual solve comes first:
        # where its cut alone is within the aim, the master certifies with it and the
        # query's cut (a product with Z) is not made
        query_cut = _query_cut(objective, Z, loss, g, query_s, row_norms, bundle.scores)
        mastered = None  # the master's answer, when this round needed it before its end
        # prec@k-svmperf's dual solves at a path's start cost seconds where a master costs
        # milliseconds: the last C's cuts with this query's are asked first; where they
        # certify (a large C, whose optimum keeps its face along its ray) neither solve runs,
        # and where they nearly do, the rounds have COUNTS_SETTLE_ROUNDS to finish first
        settled_first = warm_counts and it == warm_round and (try_dual or count_round)
        if settled_first:
            new_cut = _add_query_cut(bundle, query_cut, mu < 1.0)
            mastered = solve_master(bundle, C, np.inf, rows_master)
            lower = max(lower, mastered[1])
            if within(upper, lower, tol, C, half_square(best)):
                try_dual = warm = count_round = False
            elif counts_first and within(upper, lower, COUNTS_SETTLE_SHARE * tol, C,
                                         half_square(best)):
                count_round, count_at = False, it + COUNTS_SETTLE_ROUNDS
                dual_rounds = dual_rounds | {count_at}
        else:
            new_cut = True if warm else _add_query_cut(bundle, query_cut, mu < 1.0)
        repeat_at_master = not warm and mu >= 1.0 and bundle.repeated \
            and objective.surrogate.exact_intercepts
        hinge_cut = False  # whether this round's first solve gave a cut
        if try_dual:
            started = time.perf_counter()
            if by_sizes:
                cut = size_dual.size_dual_cut(objective, best_s, best_oracle[1], upper, lower,
                                              aim, solver)
            elif box:
                cut = box_dual.box_dual_cut(objective, best_s, best_oracle[1], aim,
                                            box_proximal, bundle.dual_point if warm else None,
                                            bundle.box_faces)
            else:
                # at the zero model every item is tied: where the best point is no better
                # than that model (up to the gap aimed at), first whether it is optimal;
                # not while the bound is below zero, where the rounds stall and hand over
                # (the model of the smaller C asks, at a looser aim)
                at_zero = lower > 0 and objective.zero_value() - upper <= aim * abs(upper)
                cut = zero_model_cut(objective, aim) if at_zero else None
                zero_asked = zero_asked or at_zero
                # (a dual round let through for the zero model's certificate alone does not
                # try again the solve that failed from that model)
                if cut is None and not (failed_at_zero and not best.any()):
                    cut = selection_dual_cut(objective, best, aim, stats, threads,
                                             bundle.dual_point)
            stats["dual_solves"] += 1
            stats["dual_solve_seconds"] += time.perf_counter() - started
            # a box solve is tried again after its steps without proximal points, never
            # after one with them (its cut is the best its proximal points reach); any
            # other, only after a cut (or after a failed start from a path's point, from
            # the best point as usual, or from the zero model, once the best point moves)
            by_box = box and not by_sizes
            failed_at_zero = not by_box and cut is None and not best.any()
            dual_solves = not box_proximal if by_box else cut is not None or warm \
                or failed_at_zero
            if warm and cut is None:
                bundle.dual_point = None
            if cut is not None:  # a near-optimal dual point: its cut, and its weights
                hinge_cut, mastered = True, None
                upper, best, best_s, best_oracle, exact_scores = _take_cut(
                    bundle, cut, row_norms, (upper, best, best_s, best_oracle, exact_scores))
            if warm and not settled_first and (cut is None or cut.gap(C) > aim):
                new_cut = _add_query_cut(bundle, query_cut, mu < 1.0)
        if count_round and hinge_cut:
            # the hinge solve's cut often certifies (a zero model): the master's bound with
            # it decides whether the solve over counts, far dearer, is needed at all
            mastered = solve_master(bundle, C, upper - lower if exact_master else np.inf,
                                    rows_master)
            lower = max(lower, mastered[1])
        if count_round and not within(upper, lower, tol, C, half_square(best)):
            # prec@k-svmperf over a few counts of relevant items, from the point of this
            # round's hinge solve if there was one; tried again while it gives cuts
            started = time.perf_counter()
            cut = count_dual.count_dual_cut(objective, best, best_s, upper,
                                           aim * (COUNTS_PATH_AIM if warm_counts else 1.0),
                                           query_s,
                                           threads)
            stats["dual_solves"] += 1
            stats["dual_solve_seconds"] += time.perf_counter() - started
            count_solves = cut is not None
            if cut is not None:
                mastered = None  # (a new cut: the master is solved again)
                upper, best, best_s, best_oracle, exact_scores = _take_cut(
                    bundle, cut, row_norms, (upper, best, best_s, best_oracle, exact_scores))
        if mastered is None:
            mastered = solve_master(bundle, C, upper - lower if exact_master
                                    or repeat_at_master else np.inf, rows_master,
                                    repeat_at_master)
        w_c, bound = mastered
        lower = max(lower, bound)
        s_c = None  # the master point's scores, once needed (a round that certifies does not)
        if search_later and bundle.used * bundle.row >= SEARCH_STORE_RATIO * Z.shape[0]:
            searched, search_later = True, False
        if searched:
            s_c = Z @ w_c
            upper, best, best_s, best_oracle, exact_scores = _searched(
                objective, (upper, best, best_s, best_oracle, exact_scores), w_c - best,
                s_c - best_s, tolerance=share * (upper - lower),
                below=bundle.aggregate_line(best, w_c - best, w_c, C))
        if zero_loss_seen and best is not rayed:
            # a query of zero loss: at a large C the optimum lies on the edge of the region
            # of zero loss, and points short of it by a hair pay C times that; each new best
            # point moves along its own ray at once, without waiting for a frozen stretch
            # (docs/solvers.md, "Frozen bounds")
            upper, best, best_s, best_oracle, exact_scores = _searched(
                objective, (upper, best, best_s, best_oracle, exact_scores), best, best_s)
            rayed = best
        if upper < moved[1] or lower > moved[2]:
            moved = (it, upper, lower)
        elif it - moved[0] >= EXACT_MASTER_ROUNDS and gap <= EXACT_MASTER_GAP * tol \
                or it - moved[0] >= EXACT_MASTER_WIDE_ROUNDS and bundle.ridge_outweighs:
            rows_master = rows_master or exact_master and best.any() \
                and it - moved[0] >= ROWS_MASTER_ROUNDS
            exact_master = True
        if it - moved[0] >= FROZEN_ROUNDS and best.any() and frozen_rayed != moved[0] \
                and best is not rayed:
            # both bounds frozen: the best point's own ray (its scores scale with it: no
            # product with Z), once a frozen stretch (FROZEN_ROUNDS), unless it is there
            frozen_rayed = moved[0]
            upper, best, best_s, best_oracle, exact_scores = _searched(
                objective, (upper, best, best_s, best_oracle, exact_scores), best, best_s)
            rayed = best
            if upper < moved[1]:
                moved = (it, upper, lower)
        gap = relative_gap(upper, lower, C, half_square(best))
        if (direct_candidate or size_candidates) and it % FROZEN_ROUNDS == 0:
            if it >= direct_program.FROM_ROUND and gap > tol \
                    and gap > (1.0 - STALLED_FALL) * window_gap:
                # the gap has stopped falling: the whole program's answer, once a solve, or
                # the restricted one's, from each stall's best point
                started = time.perf_counter()
                state = (upper, best, best_s, best_oracle, exact_scores)
                if direct_candidate:
                    direct_candidate = False
                    state = _direct_candidate(objective, bundle, row_norms, state, lower, tol)
                else:
                    size_candidates -= 1
                    state = _size_candidate(objective, bundle, row_norms, state)
                upper, best, best_s, best_oracle, exact_scores = state
                stats["direct_solve_seconds"] = stats.get("direct_solve_seconds", 0.0) \
                    + time.perf_counter() - started
                if upper < moved[1]:
                    moved = (it, upper, lower)
                gap = relative_gap(upper, lower, C, half_square(best))
            window_gap = gap
        if it == max_iter // 2:
            half_gap = gap
        if callback is not None:
            callback(it, upper, lower)
        if not exact_scores and gap <= tol:
            # the bounds that end the rounds are those of the best point's own scores (a
            # caller's rule, which may count its calls, sees the bounds as they are; the
            # result's gap is the recomputed one)
            upper, best_s, best_oracle = _at_own_scores(objective, Z, best)
            exact_scores, gap = True, relative_gap(upper, lower, C, half_square(best))
        if gap <= tol:
            upper, lower, gap = _final_bounds(objective, bundle, best, best_s, lower, upper,
                                              exact_scores, best_oracle)
            return bundle, SolveResult(
                coef=best, objective=upper, status="optimal", method="cutting-plane",
                n_iter=it, lower_bound=lower, gap=gap,
                message=f"certified relative gap {gap:.2e} after {it} rounds", stats=stats)
        if stop is not None and stop(upper, lower):
            upper, lower, gap = _final_bounds(objective, bundle, best, best_s, lower, upper,
                                              exact_scores, best_oracle)
            return bundle, SolveResult(
                coef=best, objective=upper, status="converged", method="cutting-plane",
                n_iter=it, lower_bound=lower, gap=gap,
                message=f"the caller's rule stopped after {it} rounds, relative gap "
                        f"{gap:.2e}", stats=stats)
        if it == stall and _stalled(best, start, gap):
            return bundle, it
        if stall is not None and it - moved[0] >= FROZEN_ROUNDS:
            return bundle, it
        mu = step_fraction if new_cut else 1.0
        query = best + mu * (w_c - best)
        query_s = best_s + mu * ((Z @ w_c if s_c is None else s_c) - best_s)
    upper, lower, gap = _final_bounds(objective, bundle, best, best_s, lower, upper,
                                      exact_scores, best_oracle)
    message = f"cutting plane stopped after {max_iter} rounds with relative gap {gap:.2e}"
    alpha = C * bundle.lam
    rounding = rounding_allowance(bundle, alpha) / gap_scale(upper, C, half_square(best))
    # the master's point is -Hα: a combination no larger than its own rounding is noise
    norm, noise = float(np.linalg.norm(bundle.combination(alpha))), \
        combination_rounding(bundle, alpha)
    causes = []
    if rounding > 0.5 * tol:
        causes.append(f"the rounding allowances of the cuts alone account for a relative "
                      f"gap of {rounding:.2e}")
    if 0 < noise >= norm:
        causes.append(f"the cuts' combination that gives the master's point (norm "
                      f"{norm:.2e}) is within its own rounding ({noise:.2e})")
    if causes:
        message += ("; " + "; ".join(causes) + ": the problem is too badly conditioned to "
                    f"certify to tol (C = {C:.3g} once the features are scaled to about 1, so "
                    "large that float64 cannot certify its optimum's scores to tol)")
    spread = objective.column_spread()
    if spread >= COLUMN_SPREAD:
        message += (f"; the columns of X differ in scale by a factor of {spread:,.0f} (their "
                    "standard deviations), which makes a large C badly conditioned: "
                    "standardized columns (a different problem) are easier to certify")
    offset = objective.common_offset()
    if offset >= COMMON_OFFSET:
        message += (f"; the rows of X share an offset {offset:,.0f} times their spread about "
                    "it (the norm of their mean over their root-mean-square distance from "
                    "it): a small change of w along it moves every score nearly alike, which "
                    "makes the problem badly conditioned: centered columns (a different "
                    "problem) are easier to certify")
    overflow = not (np.isfinite(upper) and np.isfinite(lower))
    if overflow:
        message += (f"; its bounds are not finite ({upper:.3g} and {lower:.3g}): at C = "
                    f"{C:.3g} (once the features are scaled to about 1) the objective's terms "
                    "overflow float64, so no number of rounds can certify it")
    gap_stuck = overflow or gap > (1.0 - STALLED_FALL) * half_gap
    if gap_stuck and not overflow:
        message += (f"; its gap fell only from {half_gap:.2e} over the last "
                    f"{max_iter - max_iter // 2} rounds, so more rounds are unlikely to "
                    "certify it")
    if not accept_inaccurate:
        more = "use a smaller C" if overflow else "raise tol" if gap_stuck \
            else "raise max_iter or tol"
        raise SolverError(f"{message}: {more}, or pass accept_inaccurate=True to keep "
                          "this point with its certified gap", status="max_iter")
    warnings.warn(f"{message}: the point is returned with status max_iter and certified "
                  f"relative gap {gap:.3g}", UserWarning, stacklevel=3)
    return bundle, SolveResult(coef=best, objective=upper, status="max_iter",
                               method="cutting-plane", n_iter=max_iter, lower_bound=lower,
                               gap=gap, message=message, stats=stats)

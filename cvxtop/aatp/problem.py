"""The AATP problem data, the quantile, the empirical loss and the per-candidate certificate.

Notation of Boyd et al. 2012 Section 3: the sample is the list ``z_1, …, z_2m`` of the
non-preferred points ``x_i`` (sign ``y = −1``) and the preferred points ``x'_i``
(``y = +1``). Points that occur several times (an item in several preference pairs) are
stored once as a *slot* with a multiplicity ``c``: the hinge terms of eq. (2) and the
terms of the quantile function ``Q_τ`` are simply repeated ``c`` times. The bipartite
case (every labeled item once) is the case where every multiplicity is 1.

For a candidate ``k`` with factor row ``f_k`` (``K = F Fᵀ``, see :mod:`.kernels`) and
``b_s = y_s (f_s − f_k)``, eq. (2) and its dual eq. (4) read

* primal ``P(w) = ½‖w‖² + Σ_s C c_s (1 − b_s·w)₊``,
* dual ``D(α) = Σ_s α_s − ½‖Σ_s α_s b_s‖²`` with ``0 ≤ α_s ≤ C c_s``,

and ``w = Σ_s α_s b_s`` maps a dual point to a primal one, so
``P(w(α)) − D(α) ≥ 0`` is a computable certificate of optimality for both.

**How far ``w(α)`` is from the optimum.** ``P`` is 1-strongly convex, so
``P(w) − P* ≥ ½‖w − w*‖²``; ``D`` is a concave quadratic maximized over a box at ``α*``,
so ``D* − D(α) = −∇D(α*)·(α − α*) + ½‖w(α) − w*‖² ≥ ½‖w(α) − w*‖²`` (the first term is
non-negative by the optimality of ``α*``). With ``P* = D*`` the two add up to
``‖w(α) − w*‖² ≤ P(w(α)) − D(α)``: the certified gap ``G`` puts ``w(α)`` within ``√G`` of
the optimum (:func:`distance_bound`), a factor ``√2`` closer than strong convexity of the
primal alone gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._validation import check_fraction, check_labels, check_same_length, check_scores
from ..exceptions import SolverError
from ..solvers.gaps import relative_gap
from ..solvers.result import SolveResult
from ..cutoff import tau_cutoff
from ..metrics import top_quantile

__all__ = [
    "CERTIFICATE_RTOL",
    "AATPProblem",
    "CandidateSolution",
    "weighted_top_quantile",
    "aatp_loss",
    "aatp_pairs_loss",
    "items_problem",
    "pairs_problem",
    "primal_dual_values",
    "distance_bound",
    "solution_from_alpha",
    "solution_from_primal",
    "primal_value",
    "require_certified",
    "SCREENED_STATUS",
    "SCALE_ADVICE",
]

#: What an uncertified candidate most likely means, and what to do (every such error says it).
SCALE_ADVICE = ("features of very different scales at a large C? standardize them, or use a "
                "smaller C")

#: The status of a candidate whose solve stopped once it provably could not be chosen.
SCREENED_STATUS = "screened"

#: A candidate's solution is accepted when ``P − D ≤ CERTIFICATE_RTOL · max(1, |P|)``.
#: Well-scaled problems are solved far more accurately (the fast solver's crossover to
#: about 1e-13); badly scaled ones (raw features spanning orders of magnitude, large C)
#: reach about 1e-8 with Clarabel as well.
CERTIFICATE_RTOL = 1e-7


def weighted_top_quantile(scores: np.ndarray, tau: float,
                          weights: np.ndarray | None = None, *, rank: int | None = None
                          ) -> float:
    """The largest minimizer of ``Σ_i c_i ρ_τ(s_i − u)`` for integer weights ``c_i ≥ 0``.

    With ``weights=None`` this is :func:`cvxtop.metrics.top_quantile`. With weights it is
    the same function of the list in which score ``s_i`` is repeated ``c_i`` times
    (Boyd et al. 2012 Section 3.1, ``Q_τ`` over all 2m points): the left derivative
    ``τW − W(s ≥ u)`` is ≤ 0 exactly when ``W(s ≥ u) ≥ ceil(τW)``, so the answer is the
    largest score with at least ``ceil(τW)`` weight at or above it. ``rank``: that
    ``ceil(τW)`` when the caller has it already (a solver's loop, on checked scores).
    """
    if weights is None:
        if rank is None:
            return top_quantile(scores, tau)
        return float(np.partition(scores, len(scores) - rank)[len(scores) - rank])
    need = tau_cutoff(tau, int(weights.sum())) if rank is None else rank
    # with every weight at least 1 the answer is among the ``need`` highest scores: only
    # those are sorted (any ``need`` highest serve when scores tie at the cut)
    top = np.argpartition(-scores, need - 1)[:need] \
        if need < len(scores) and weights.min() >= 1 else np.arange(len(scores))
    top = top[np.argsort(-scores[top], kind="stable")]
    cumulative = np.cumsum(weights[top])
    return float(scores[top[np.searchsorted(cumulative, need, side="left")]])


def _empirical_loss(scores: np.ndarray, signs: np.ndarray, weights: np.ndarray | None,
                    tau: float) -> float:
    q = weighted_top_quantile(scores, tau, weights)
    wrong = np.where(signs < 0, scores > q, scores < q).astype(np.float64)
    if weights is None:
        return float(wrong.mean())
    return float(wrong @ weights / weights.sum())


def aatp_loss(y_true: Any, y_score: Any, tau: float) -> float:
    """The empirical AATP loss ``R̂(h)`` of Boyd et al. 2012 Section 3.1 for labeled items.

    The fraction of items on the wrong side of the top τ-quantile ``q̂`` of their own
    scores: irrelevant items scored strictly above ``q̂`` plus relevant items scored
    strictly below it, over the number of items (the paper's ``1/(2m)`` with every item
    counted once).
    """
    y = check_labels(y_true, "y_true")
    s = check_scores(y_score, "y_score")
    check_same_length(y_true=y, y_score=s)
    tau = check_fraction(tau, "tau")
    return _empirical_loss(s, 2.0 * y - 1.0, None, tau)


def aatp_pairs_loss(first_score: Any, second_score: Any, tau: float) -> float:
    """``R̂(h)`` of Boyd et al. 2012 Section 3.1 for preference pairs ``(x_i, x'_i)``.

    ``first_score[i] = h(x_i)`` (the non-preferred point) and ``second_score[i] = h(x'_i)``;
    ``q̂`` is the top τ-quantile of all 2m scores and
    ``R̂ = (1/2m) Σ_i [1{h(x_i) > q̂} + 1{h(x'_i) < q̂}]``.
    """
    a = check_scores(first_score, "first_score")
    b = check_scores(second_score, "second_score")
    check_same_length(first_score=a, second_score=b)
    tau = check_fraction(tau, "tau")
    signs = np.r_[-np.ones(len(a)), np.ones(len(b))]
    return _empirical_loss(np.r_[a, b], signs, None, tau)


@dataclass(frozen=True)
class AATPProblem:
    """The data shared by the per-candidate QPs (eq. 2 / eq. 4).

    Attributes
    ----------
    factor : (n_items, r) rows ``f_j`` with ``K = F Fᵀ``, or ``None`` when the solver works
        on the Gram matrix itself (:mod:`.face_descent`)
    slot_item : (S,) item index of each slot
    slot_sign : (S,) ``±1`` (−1: non-preferred ``x_i``, +1: preferred ``x'_i``)
    slot_count : (S,) multiplicity ``c_s ≥ 1`` of the slot in the list ``z_1..z_2m``
    C : regularization constant of eq. (2)
    item_weight : (n_items,) multiplicity of each item in ``Q_τ``, or ``None`` for one each
    n_items : number of items (rows of the factor or of the Gram matrix)
    primal_model : whether the fitted model is the weight vector ``w`` itself (the linear
        kernel), so that a candidate may be certified through a primal ``w`` other than
        ``w(α)`` (:func:`solution_from_primal`); for other kernels the model is ``α``
        (``dual_coef_``), which its own certificate must cover
    """

    factor: np.ndarray | None
    slot_item: np.ndarray
    slot_sign: np.ndarray
    slot_count: np.ndarray
    C: float
    item_weight: np.ndarray | None
    n_items: int
    primal_model: bool = False

    @cached_property
    def slot_factor(self) -> np.ndarray:
        """``A = F[slot_item]``: the factor row of every slot."""
        return self.factor[self.slot_item]

    @cached_property
    def center(self) -> np.ndarray:
        """Mean slot row. ``b_s = y_s (a_s − f_k)`` is unchanged when it is subtracted from
        every row, and the smaller numbers keep sums like ``Σ α_s b_s`` accurate on badly
        centred data."""
        return self.slot_factor.mean(axis=0)

    @property
    def upper(self) -> np.ndarray:
        """Box of the dual (eq. 4): ``0 ≤ α_s ≤ C c_s``."""
        return self.C * self.slot_count

    @property
    def candidates(self) -> np.ndarray:
        """Items that are points ``z_k`` of the sample (every item in the bipartite case)."""
        if self.item_weight is None:
            return np.arange(self.n_items)
        return np.flatnonzero(self.item_weight > 0)


def items_problem(factor: np.ndarray | None, y: np.ndarray, C: float,
                  duplicate_of: np.ndarray | None = None) -> AATPProblem:
    """Bipartite items: each labeled item is one point of the sample (y = 1 preferred).

    ``duplicate_of[i]`` names the smallest index of the items identical to item ``i``
    (:func:`.candidates.duplicate_representatives`). Identical items with the same label
    then form one slot at that index with their count (their hinge terms of eq. (2) are the
    same function of ``w``), and the quantile still counts every item once
    (``item_weight``). Without repeated points this is the plain problem. ``factor`` may be
    ``None`` for solvers that work on the Gram matrix itself.
    """
    n = len(y)
    if duplicate_of is None or np.array_equal(duplicate_of, np.arange(n)):
        return AATPProblem(factor, np.arange(n), 2.0 * y - 1.0, np.ones(n, dtype=np.int64),
                           float(C), None, n)
    keys, counts = np.unique(2 * np.asarray(duplicate_of) + y, return_counts=True)
    return AATPProblem(factor, keys // 2, 2.0 * (keys % 2) - 1.0, counts.astype(np.int64),
                       float(C), np.bincount(duplicate_of, minlength=n).astype(np.int64), n)


def pairs_problem(factor: np.ndarray | None, pairs: np.ndarray, C: float,
                  n_items: int | None = None) -> AATPProblem:
    """Preference pairs ``pairs[i] = (a, b)``: item ``b`` is preferred over item ``a``.

    The sample is ``z = (x_1..x_m, x'_1..x'_m)`` with ``x_i = item a_i`` (sign −1) and
    ``x'_i = item b_i`` (sign +1); repeated (item, sign) combinations become one slot
    with their count, and ``item_weight`` counts each item's occurrences among the 2m
    points. ``n_items`` (default ``len(factor)``) is needed when ``factor`` is ``None``.
    """
    n = len(factor) if n_items is None else n_items
    first = np.bincount(pairs[:, 0], minlength=n)
    second = np.bincount(pairs[:, 1], minlength=n)
    neg_items = np.flatnonzero(first)
    pos_items = np.flatnonzero(second)
    return AATPProblem(
        factor,
        np.r_[neg_items, pos_items],
        np.r_[-np.ones(len(neg_items)), np.ones(len(pos_items))],
        np.r_[first[neg_items], second[pos_items]].astype(np.int64),
        float(C),
        (first + second).astype(np.int64),
        n,
    )


@dataclass
class CandidateSolution:
    """A solved candidate QP: dual point ``alpha`` (per slot), ``w = Σ α_s b_s`` in the
    factor's coordinates (``None`` for solvers that work on the Gram matrix itself), the
    primal objective ``P(w)`` of eq. (2) and the dual objective ``D(α)`` of eq. (4).

    ``scores`` holds ``h(z_j)`` for every item, shifted so that ``h(z_k) = 0``, when the
    solver computed them; ``gap_bounds`` is set for a candidate whose solve stopped once it
    provably could not be chosen: an interval holding its gap ``|h(z_k) − q̂_k|``.
    """

    candidate: int
    alpha: np.ndarray
    w: np.ndarray | None
    objective: float
    dual_objective: float
    n_iter: int
    status: str
    scores: np.ndarray | None = None
    gap_bounds: tuple[float, float] | None = None

    @property
    def duality_gap(self) -> float:
        return self.objective - self.dual_objective

    def result(self, method: str, C: float) -> SolveResult:
        """This candidate's solve as a :class:`cvxtop.solvers.SolveResult`: the dual
        objective is its lower bound, the relative duality gap its certificate (over at
        least :func:`cvxtop.solvers.gaps.gap_floor` at the problem's ``C``). A screened
        candidate (its solve stopped once it provably could not be chosen) has no optimum
        to report: ``ValueError``; an uncertified one raises as :func:`require_certified`."""
        if self.status == SCREENED_STATUS:
            raise ValueError(f"candidate {self.candidate} was screened (its solve stopped "
                             "once it provably could not be chosen): it has no certified "
                             "optimum to report")
        require_certified(self, method)
        gap = relative_gap(self.objective, self.dual_objective, C)
        return SolveResult(coef=self.alpha, objective=self.objective, status="optimal",
                           method=method, n_iter=self.n_iter, lower_bound=self.dual_objective,
                           gap=gap, message=f"candidate {self.candidate}: {self.status}, "
                                            f"duality gap {self.duality_gap:.2e}")


def _centred_rows(problem: AATPProblem, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The slots' rows and candidate ``k``'s row less :attr:`AATPProblem.center`."""
    return problem.slot_factor - problem.center, problem.factor[k] - problem.center


def _primal_at(problem: AATPProblem, rows: tuple[np.ndarray, np.ndarray], w: np.ndarray
               ) -> float:
    A, fk = rows
    margins = problem.slot_sign * (A @ w - fk @ w)
    return 0.5 * float(w @ w) + float(problem.upper @ np.maximum(0.0, 1.0 - margins))


def primal_value(problem: AATPProblem, k: int, w: np.ndarray) -> float:
    """``P(w)`` of eq. (2) for candidate ``k`` at ``w`` (the factor's coordinates)."""
    return _primal_at(problem, _centred_rows(problem, k), w)


def primal_dual_values(problem: AATPProblem, k: int, alpha: np.ndarray
                       ) -> tuple[np.ndarray, float, float]:
    """``w(α)``, ``P(w(α))`` and ``D(α)`` for candidate ``k`` (module docstring)."""
    rows = _centred_rows(problem, k)
    beta = problem.slot_sign * alpha
    w = rows[0].T @ beta - beta.sum() * rows[1]
    dual = float(alpha.sum()) - 0.5 * float(w @ w)
    return w, _primal_at(problem, rows, w), dual


def distance_bound(duality_gap: float | np.ndarray) -> float | np.ndarray:
    """``√G``: a bound on ``‖w(α) − w*‖`` from the duality gap ``G = P(w(α)) − D(α)`` at a
    dual point ``α`` in the box (module docstring; a negative gap of round-off counts as
    0)."""
    return np.sqrt(np.maximum(duality_gap, 0.0))


def solution_from_alpha(problem: AATPProblem, k: int, alpha: np.ndarray, n_iter: int,
                        status: str) -> CandidateSolution:
    """Clip ``alpha`` into the box and evaluate both objectives at it."""
    alpha = np.clip(alpha, 0.0, problem.upper)
    w, primal, dual = primal_dual_values(problem, k, alpha)
    return CandidateSolution(int(k), alpha, w, primal, dual, n_iter, status)


def solution_from_primal(problem: AATPProblem, k: int, w: np.ndarray, alpha: np.ndarray,
                         n_iter: int, status: str) -> CandidateSolution:
    """A candidate solved in the primal (eq. 2): its point ``w`` and the hinge constraints'
    multipliers ``alpha``, certified by ``P(w) − D(α)`` rather than through ``w(α)``.

    Weak duality holds for any ``w`` and any ``α`` in the box. Where ``C·c_s`` is huge
    against features of very different scales, ``w(α) = Σ_s α_s b_s`` cancels terms far
    larger than itself and loses the digits the certificate needs, while the primal
    solver's own ``w`` keeps them: on 400 rows of spambase's raw features at C = 1,
    ``P(w(α)) − D(α)`` is 1e-10 to 2e-8 of the objective and ``P(w) − D(α)`` 1e-12 to
    5e-11. ``w`` is not ``w(α)``, so the module's bound ``‖w(α) − w*‖ ≤ √G`` does not apply
    to it; strong convexity of ``P`` gives ``‖w − w*‖² ≤ 2(P(w) − P*) ≤ 2G`` instead. The
    solution therefore records the lower bound ``D(α) − G`` (valid: it is below ``D(α)``),
    so that its duality gap is ``2G`` and :func:`distance_bound` of that gap bounds the
    distance of ``w`` as it does for ``w(α)``. Where ``w(α)`` certifies better, or where
    the model is ``α`` (not :attr:`AATPProblem.primal_model`), the solution is
    :func:`solution_from_alpha`'s."""
    by_alpha = solution_from_alpha(problem, k, alpha, n_iter, status)
    if not problem.primal_model:
        return by_alpha
    w = np.asarray(w, dtype=np.float64)
    primal = primal_value(problem, k, w)
    gap = max(primal - by_alpha.dual_objective, 0.0)  # (below 0 only by round-off)
    if not np.isfinite(primal) or by_alpha.duality_gap <= 2.0 * gap:
        return by_alpha
    return CandidateSolution(int(k), by_alpha.alpha, w, primal,
                             by_alpha.dual_objective - gap, n_iter, status)


def require_certified(solution: CandidateSolution, solver: str) -> CandidateSolution:
    """Return ``solution`` if its objectives are finite and its duality gap is within
    :data:`CERTIFICATE_RTOL`, else raise :class:`cvxtop.SolverError` with status
    ``"not_certified"`` (the message gives the gap and what the solver itself reported)."""
    if not (np.isfinite(solution.objective) and np.isfinite(solution.dual_objective)):
        raise SolverError(
            f"{solver}: candidate {solution.candidate} not certified: its objective "
            f"{solution.objective:.3g} and dual objective {solution.dual_objective:.3g} are "
            "not both finite, so C (with the features scaled to about 1) is too large for "
            "float64: use a smaller C", status="not_certified")
    allowed = CERTIFICATE_RTOL * max(1.0, abs(solution.objective))
    if not solution.duality_gap <= allowed:
        raise SolverError(
            f"{solver}: candidate {solution.candidate} not certified, duality gap "
            f"{solution.duality_gap:.3g} > {allowed:.3g}, though the solver reported "
            f"{solution.status!r} ({SCALE_ADVICE})",
            status="not_certified")
    return solution

"""Scoring a solved candidate and the selection rule of Boyd et al. 2012 Section 3.2.

For candidate ``k`` with solution ``w_k`` the scores of the sample points are
``h_k(z_j) = w_k·f_j = Σ_s α_s y_s [K(z_s, z_j) − K(z_k, z_j)]``; ``q̂_k`` is their top
τ-quantile (with the multiplicities of the 2m points) and the candidate's *gap* is
``|h_k(z_k) − q̂_k|``. The rule returns the candidate with the smallest gap, ties broken
by the smallest objective of eq. (2).

Tolerances (documented, explicit). Ties are common: a candidate is often its own quantile
point, with a gap of exactly 0, and several candidates can be. Solver round-off must not
decide among them, so the rule compares the computed values this way:

* gaps within :data:`GAP_ATOL` of the smallest gap tie. Scores are in margin units (the
  hinge of eq. (2) asks for a margin of 1), so ``1e-6`` is a millionth of the margin;
* among those, objectives within :data:`OBJECTIVE_RTOL` ``· max(1, |best|)`` of the
  smallest tie;
* the smallest candidate index among the remaining ties wins.

**What is certified.** Each candidate's QP is solved to a certified duality gap ``δ``
(relative :data:`~cvxtop.aatp.problem.CERTIFICATE_RTOL`), not exactly. Its primal objective
is 1-strongly convex in ``w`` and its dual a concave quadratic on a box, so the computed
``w = w(α)`` is within ``√δ`` of the optimal one (:func:`.problem.distance_bound`), every
score ``w·f_j`` within ``√δ·‖f_j‖``, the quantile (an order statistic) and the own score
each within ``√δ·max_j ‖f_j‖``: the true gap lies in ``gap ± 2√δ·max_j ‖f_j‖``
(:func:`certified_gap_bounds`; ``‖f_j‖² = K(z_j, z_j)``), and the true objective in
``[objective − δ, objective]``. That interval is wider than :data:`GAP_ATOL` in general
(about 1e-4 at ``δ = 1e-9`` on unit-norm features), so candidates whose true gaps or
objectives differ by less than their intervals may be ordered either way by the rounding
of another machine. The rule therefore promises, for the chosen candidate ``c`` and the
true values: its gap is at most the smallest true gap plus :data:`GAP_ATOL` plus the
widths of its own interval and of the best candidate's; among the candidates certainly
within the gap tolerance its objective is the smallest up to :data:`OBJECTIVE_RTOL` and
their ``δ``; and no candidate of smaller index is certainly preferred. Candidates apart by
more than their intervals are ordered exactly as the rule says.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .problem import AATPProblem, CandidateSolution, distance_bound, weighted_top_quantile

__all__ = ["GAP_ATOL", "OBJECTIVE_RTOL", "CandidateScore", "ScreenBounds", "score_candidate",
           "select", "certified_gap_bounds", "objective_excludes"]

#: Gaps ``|h(z_k) − q̂_k|`` closer than this (in margin units) to the smallest gap tie.
GAP_ATOL = 1e-6
#: Objectives within this relative distance of the smallest (among gap ties) tie.
OBJECTIVE_RTOL = 1e-7


@dataclass(frozen=True)
class CandidateScore:
    """What the selection rule needs from one solved candidate.

    For a screened candidate (``gap_bounds`` set) ``gap`` and ``objective`` are those of
    the feasible point where its solve stopped, and ``gap_bounds`` the certified interval
    of its gap at the optimum.
    """

    candidate: int
    score: float
    quantile: float
    gap: float
    objective: float
    duality_gap: float
    n_iter: int
    status: str
    gap_bounds: tuple[float, float] | None = None


@dataclass(frozen=True)
class ScreenBounds:
    """What a candidate is screened against, from the candidates solved before it: the
    smallest gap, and the smallest objective among those whose computed gap is exactly 0
    (``inf`` if none)."""

    gap: float = np.inf
    zero_gap_objective: float = np.inf


def objective_excludes(dual_value: float, zero_gap_objective: float) -> bool:
    """Whether a candidate whose optimum is at least ``dual_value`` (a dual point's value)
    cannot be chosen, given a solved candidate ``j`` of gap exactly 0 and objective
    ``zero_gap_objective``. ``j`` is among the gap ties whatever the other gaps (none is
    below 0), so the chosen objective is at most ``j``'s; any computed objective of this
    candidate is at least ``dual_value``, which exceeds ``j``'s by twice the tie tolerance
    (once more for the rounding of the two values), so it cannot tie; whatever gap the
    candidate's stopping point records, the smallest gap stays 0."""
    return dual_value > zero_gap_objective \
        + 2.0 * OBJECTIVE_RTOL * max(1.0, abs(zero_gap_objective))


def score_candidate(problem: AATPProblem, solution: CandidateSolution, tau: float
                    ) -> CandidateScore:
    """Scores ``h_k`` of the sample points, their top τ-quantile and the candidate's gap."""
    points = problem.candidates
    if solution.scores is not None:
        scores = solution.scores[points]
        own = float(solution.scores[solution.candidate])
    else:
        scores = problem.factor[points] @ solution.w
        own = float(problem.factor[solution.candidate] @ solution.w)
    weights = None if problem.item_weight is None else problem.item_weight[points]
    quantile = weighted_top_quantile(scores, tau, weights)
    return CandidateScore(solution.candidate, own, quantile, abs(own - quantile),
                          solution.objective, solution.duality_gap, solution.n_iter,
                          solution.status, solution.gap_bounds)


def select(candidates: np.ndarray, gaps: np.ndarray, objectives: np.ndarray, *,
           gap_atol: float = GAP_ATOL, objective_rtol: float = OBJECTIVE_RTOL) -> int:
    """Position (into the arrays) of the candidate chosen by the rule (module docstring)."""
    close_gap = gaps <= gaps.min() + gap_atol
    best = objectives[close_gap].min()
    tied = close_gap & (objectives <= best + objective_rtol * max(1.0, abs(best)))
    positions = np.flatnonzero(tied)
    return int(positions[np.argmin(candidates[positions])])


def certified_gap_bounds(gap: np.ndarray, duality_gap: np.ndarray, feature_radius: float
                         ) -> np.ndarray:
    """An interval holding each candidate's gap at its optimum, shape ``(n, 2)``: the
    computed ``gap ± 2√δ·feature_radius`` (module docstring; ``feature_radius`` is
    ``max_j ‖f_j‖`` over the sample points), clipped at 0."""
    width = 2.0 * feature_radius * distance_bound(duality_gap)
    return np.c_[np.maximum(gap - width, 0.0), gap + width]

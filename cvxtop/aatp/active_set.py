"""An exact solver of the candidate duals (Boyd et al. 2012, eq. 4) on a full-rank Gram matrix.

For candidate ``k`` the dual is ``min φ(α) = ½ αᵀQα − 1ᵀα`` over ``0 ≤ α ≤ u`` with
``Q_st = y_s y_t K_k(z_s, z_t)`` and ``K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z') +
K(z_k, z_k)``. The interior-point solver of :mod:`.fast` works on a factor ``K = F Fᵀ``
and is the right tool when the rank ``r`` is small; on a full-rank Gram matrix each of its
Newton systems costs ``O(n³)`` and the whole fit ``O(n⁴)``. The optimal ``α`` of a
support-vector problem is sparse, though: most slots sit at a bound and only the slots on
the margin are free. This solver works on ``K`` itself and touches only the rows of the
free slots and of slots that change state.

* **Kernel form.** The candidate's point enters only as the *anchor* ``φ_a`` of the
  scores ``h(x) = ⟨w, φ(x) − φ_a⟩``. With ``β_s = y_s α_s`` summed per item and
  ``σ = Σ β``, ``h(x) = (Kβ)(x) − σ K(x, a) − [(Kβ)(a) − σ K(a, a)]`` and
  ``∂φ/∂α_s = y_s h(z_s) − 1`` (the margin minus one). The part of ``Kβ`` that comes from
  slots at the upper bound does not depend on the anchor; it is carried from one candidate
  to the next and updated by the rows of the slots that enter or leave the bound.
* **Block principal pivoting** (Júdice & Pires 1994): a partition into slots at 0, free
  and at ``u`` determines the free values through the face equations
  ``Q_FF α_F = 1 − Q_FU u_U`` (a Cholesky factor of the small ``Q_FF``); every slot whose
  value leaves the box or whose gradient has the wrong sign switches state. When the
  number of such infeasibilities stops falling, the exchanges are limited to the largest
  violations, halving their number until it falls again. A partition without an
  infeasibility is the optimum.
* **Continuation.** Candidates follow a nearest-neighbour tour (:mod:`.candidates`), and
  each starts from the optimal partition of its predecessor. When pivoting from there does
  not converge within a budget, the anchor moves from the predecessor's point to the new
  one in steps, ``φ_a = (1 − t) φ_prev + t φ_k``: the solution depends continuously on
  ``t``, so a short enough step is a few pivots from the last partition; a failed step is
  halved. The first candidate of a run starts where every slot at its bound is optimal
  (``u`` scaled down) and follows the scale of ``u`` up to 1 the same way.
* **Certificate and fallback.** Every result is certified by the duality gap of
  :mod:`.problem`. Should the steps become too short, the last optimal point certifies a
  ball around the optimal ``w`` (gap-safe screening, Ndiaye et al. 2017): slots whose
  margin is provably above or below 1 are fixed at 0 or ``u``, and the remaining QP is
  solved by the dense interior-point method of :mod:`.box_qp`.
* **Screening of candidates.** Given an upper bound on the smallest candidate gap of the
  selection rule (:mod:`.selection`), each pivot's iterate, clipped into the box,
  certifies an interval for this candidate's gap ``|q̂_k|`` (its own score is 0 by
  construction, and ``‖w − w*‖ ≤ √(2G)`` moves every score ``h(z_j)`` by at most
  ``√(2G)·‖φ(z_j) − φ(z_k)‖``). A candidate whose interval lies above the bound plus the
  rule's tolerance cannot be chosen; its solve stops there (status
  :data:`SCREENED_STATUS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from .._threads import single_threaded_blas
from ..cutoff import tau_cutoff
from ..exceptions import SolverError
from ..gram import Gram
from .box_qp import solve_box_qp
from .problem import CERTIFICATE_RTOL, AATPProblem, CandidateSolution
from .selection import GAP_ATOL

__all__ = ["ActiveSetSolver", "SCREENED_STATUS", "ACTIVE_SET_RTOL", "PIVOT_BUDGET"]

#: Target of the relative duality gap of a candidate's solution.
ACTIVE_SET_RTOL = 1e-10
#: Status of a candidate whose solve stopped once it provably could not be chosen.
SCREENED_STATUS = "screened"
#: Pivots allowed for one step before the step is halved.
PIVOT_BUDGET = 150

_LOWER, _FREE, _UPPER = 0, 1, 2
_BACKUP = 3  # full exchanges allowed without progress before the exchanges are limited
_FEAS_ATOL = 1e-12  # relative to max u: a free value this far outside the box is feasible
_GRAD_ATOL = 1e-10  # a bound slot's gradient this far on the wrong side is optimal
_REFRESH = 64  # recompute the carried upper-bound part of Kβ every this many candidates
_MIN_STEP = 1.0 / 256  # shorter continuation steps give up for the fallback
_COLD_STEP = 0.25  # first step of the continuation in the scale of u


class _RowCache:
    """Rows of the Gram matrix as float64, kept in one buffer so that ``Σ_j c_j K[i_j]``
    is a single matrix-vector product over the buffer."""

    def __init__(self, gram: Gram, capacity: int = 64) -> None:
        self.gram = gram
        self.buffer = np.empty((capacity, gram.n))
        self.item_at = np.full(capacity, -1, dtype=np.int64)
        self.position = np.full(gram.n, -1, dtype=np.int64)
        self.used = 0

    def positions(self, items: np.ndarray) -> np.ndarray:
        """Buffer positions of ``items``, loading the missing rows; rows of other items may
        be evicted, so that the buffer stays about twice the size of what is asked."""
        missing = np.unique(items[self.position[items] < 0])
        if self.used + len(missing) > min(len(self.buffer), 2 * len(items) + 64):
            self._compact(items)
        if self.used + len(missing) > len(self.buffer):
            self._grow(self.used + len(missing))
        if len(missing):
            slots = np.arange(self.used, self.used + len(missing))
            self.buffer[slots] = self.gram.rows(missing)
            self.item_at[slots] = missing
            self.position[missing] = slots
            self.used += len(missing)
        return self.position[items]

    def _compact(self, keep: np.ndarray) -> None:
        held = self.item_at[:self.used].copy()
        stay = np.flatnonzero(np.isin(held, keep))
        self.position[held] = -1
        self.buffer[:len(stay)] = self.buffer[stay]
        self.item_at[:] = -1
        self.item_at[:len(stay)] = held[stay]
        self.position[held[stay]] = np.arange(len(stay))
        self.used = len(stay)

    def _grow(self, need: int) -> None:
        capacity = max(need, 2 * len(self.buffer))
        buffer = np.empty((capacity, self.gram.n))
        buffer[:self.used] = self.buffer[:self.used]
        item_at = np.full(capacity, -1, dtype=np.int64)
        item_at[:self.used] = self.item_at[:self.used]
        self.buffer, self.item_at = buffer, item_at

    def combine(self, positions: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``Σ_j coef_j K[item at positions_j]``."""
        return np.bincount(positions, weights=coef, minlength=self.used) @ self.buffer[:self.used]


@dataclass(frozen=True)
class _Anchor:
    """The anchor ``φ_a = Σ_i c_i φ(z_i)`` of a candidate QP: ``c = e_k`` for candidate
    ``k``, a mix of two candidates on the way from one to the other. ``row`` is
    ``K(z, a)`` over the items, ``kk`` is ``K(a, a)``, and ``own`` the slots with
    ``b_s = 0`` (those of item ``k`` when the anchor is ``z_k``: always at ``u``)."""

    k: int
    row: np.ndarray
    kk: float
    own: np.ndarray
    items: np.ndarray
    weights: np.ndarray

    def at(self, v: np.ndarray) -> float:
        """``Σ_i c_i v_i``: a function given by its values on the items, at the anchor."""
        return float(self.weights @ v[self.items])

    def toward(self, other: "_Anchor", t: float) -> "_Anchor":
        """The anchor ``(1 − t) φ_self + t φ_other``."""
        if t >= 1.0:
            return other
        cross = float(self.weights @ other.row[self.items])
        kk = (1 - t) ** 2 * self.kk + 2 * t * (1 - t) * cross + t * t * other.kk
        return _Anchor(other.k, (1 - t) * self.row + t * other.row, kk,
                       np.zeros(0, dtype=np.int64), np.r_[self.items, other.items],
                       np.r_[(1 - t) * self.weights, t * other.weights])


@dataclass(frozen=True)
class _Iterate:
    """A point ``alpha`` in the box, ``v = Kβ``, and its certificate for one anchor."""

    alpha: np.ndarray
    v: np.ndarray
    scores: np.ndarray  # h over the items (0 at the anchor)
    margins: np.ndarray  # per slot
    gap: float
    primal: float
    dual: float


@dataclass(frozen=True)
class _Outcome:
    """How a run of pivots ended: at an optimum, screened out (``bounds`` on the
    candidate's gap, ``point`` the certified point that proves it), or out of budget."""

    point: _Iterate | None
    pivots: int
    bounds: tuple[float, float] | None = None


class ActiveSetSolver:
    """Certified kernel-form solver of eq. (4) for many candidates (module docstring).

    ``iter_solutions(candidates, progress, gap_bound)`` yields one
    :class:`CandidateSolution` per candidate, in order; with ``gap_bound`` (a callable
    returning the smallest candidate gap certified so far, or ``inf``) candidates that
    provably cannot be chosen stop early with status :data:`SCREENED_STATUS` and carry
    bounds instead of an optimum. ``tau`` is needed for that screening only.
    """

    name = "fast"

    def __init__(self, problem: AATPProblem, gram: Gram, tau: float | None = None, *,
                 rtol: float = ACTIVE_SET_RTOL, budget: int = PIVOT_BUDGET) -> None:
        self.problem = problem
        self.gram = gram
        self.tau = tau
        self.rtol = rtol
        self.budget = budget
        self.item = problem.slot_item
        self.sign = problem.slot_sign
        self.u = problem.upper
        self.diag = gram.diagonal
        self.cache = _RowCache(gram)
        # the partition, the scale of u (cold start) and the upper-bound part of Kβ
        self.state: np.ndarray | None = None
        self.scale = 1.0
        self.v_upper = np.zeros(gram.n)
        self.sigma_upper = 0.0
        self.anchor: _Anchor | None = None
        self.last: _Iterate | None = None
        self._since_refresh = 0

    # ---- the upper-bound part of Kβ, carried between candidates ----------------------------
    def _refresh_upper(self) -> None:
        slots = np.flatnonzero(self.state == _UPPER)
        coef = np.bincount(self.item[slots], weights=self.sign[slots] * self.u[slots]
                           * self.scale, minlength=self.gram.n)
        items = np.flatnonzero(coef)
        self.v_upper = (coef[items] @ self.gram.rows(items) if len(items)
                        else np.zeros(self.gram.n))
        self.sigma_upper = float(coef.sum())
        self._since_refresh = 0

    def _set_state(self, new: np.ndarray) -> None:
        """Switch to the partition ``new``, updating ``Kβ`` of the upper-bound slots by the
        rows of the slots that enter or leave the bound."""
        entering = np.flatnonzero((new == _UPPER) & (self.state != _UPPER))
        leaving = np.flatnonzero((self.state == _UPPER) & (new != _UPPER))
        if len(entering) or len(leaving):
            slots = np.r_[entering, leaving]
            coef = self.sign[slots] * self.u[slots] * self.scale * np.r_[
                np.ones(len(entering)), -np.ones(len(leaving))]
            self.v_upper = self.v_upper + coef @ self.gram.rows(self.item[slots])
            self.sigma_upper += float(coef.sum())
        self.state = new

    def _set_scale(self, scale: float) -> None:
        self.v_upper = self.v_upper * (scale / self.scale)
        self.sigma_upper *= scale / self.scale
        self.scale = scale

    def _snapshot(self) -> tuple:
        return self.state.copy(), self.v_upper.copy(), self.sigma_upper, self.scale

    def _restore(self, snapshot: tuple) -> None:
        state, v, sigma, scale = snapshot
        self.state, self.v_upper = state.copy(), v.copy()
        self.sigma_upper, self.scale = sigma, scale

    # ---- points and certificates ---------------------------------------------------------
    def _scores(self, anchor: _Anchor, v: np.ndarray, sigma: float) -> np.ndarray:
        return v - sigma * anchor.row - (anchor.at(v) - sigma * anchor.kk)

    def _face(self, anchor: _Anchor, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Free values solving the face equations, and ``Kβ`` of the whole point.

        With ``D = diag(y_F)`` the face matrix is ``Q_FF = D M D``, ``M`` the anchored kernel
        ``K_k`` on the free slots' items, so ``Q_FF α_F = r`` is solved as ``M (D α_F) = D r``.
        """
        items, y = self.item[free], self.sign[free]
        pos = self.cache.positions(items)
        kf = anchor.row[items]

        def anchored() -> np.ndarray:
            M = np.take(np.take(self.cache.buffer, pos, axis=0), items, axis=1)
            M -= kf[:, None]
            M -= kf[None, :] - anchor.kk
            return M

        v, s = self.v_upper, self.sigma_upper
        rhs = y - (v[items] - kf * s - anchor.at(v) + anchor.kk * s)
        try:
            beta_f = cho_solve(cho_factor(anchored(), overwrite_a=True, check_finite=False),
                               rhs, check_finite=False)
        except LinAlgError:  # a singular face (e.g. one point with both signs free)
            beta_f = np.linalg.lstsq(anchored(), rhs, rcond=None)[0]
        return y * beta_f, self.v_upper + self.cache.combine(pos, beta_f)

    def _iterate(self, anchor: _Anchor, alpha: np.ndarray, v: np.ndarray) -> _Iterate:
        """Certificate of a point ``alpha`` in the box with ``Kβ = v``."""
        scores = self._scores(anchor, v, float(self.sign @ alpha))
        margins = self.sign * scores[self.item]
        slack = 1.0 - margins
        hinge = float(self.u @ np.maximum(slack, 0.0)) * self.scale
        half_sq = 0.5 * float(alpha @ margins)  # ‖w‖² = Σ_s β_s h(z_s) = Σ_s α_s m_s
        gap = hinge - float(alpha @ slack)  # Σ_s [u_s (1 − m_s)₊ − α_s (1 − m_s)] ≥ 0
        return _Iterate(alpha, v, scores, margins, gap, half_sq + hinge,
                        float(alpha.sum()) - half_sq)

    def _clipped(self, anchor: _Anchor, alpha: np.ndarray, v: np.ndarray,
                 outside: np.ndarray) -> _Iterate:
        """The point clipped into the box, ``Kβ`` corrected by the rows of clipped slots."""
        point = np.clip(alpha, 0.0, self.u * self.scale)
        moved = np.flatnonzero(outside)
        if len(moved):
            delta = self.sign[moved] * (point[moved] - alpha[moved])
            v = v + delta @ self.gram.rows(self.item[moved])
        return self._iterate(anchor, point, v)

    def _certified(self, point: _Iterate) -> bool:
        return point.gap <= self.rtol * max(1.0, abs(point.primal))

    # ---- block principal pivoting ----------------------------------------------------------
    def _pivot(self, anchor: _Anchor, gap_bound: float) -> _Outcome:
        """Pivot from the current partition, at most ``budget`` times."""
        u = self.u * self.scale
        tol_a = _FEAS_ATOL * max(1.0, float(u.max()))
        best_count, backup, limit = len(u) + 1, _BACKUP, 1.0
        for pivot in range(1, self.budget + 1):
            state = self.state
            free = np.flatnonzero(state == _FREE)
            alpha = np.where(state == _UPPER, u, 0.0)
            if len(free):
                alpha[free], v = self._face(anchor, free)
            else:
                v = self.v_upper
            grad = self.sign * self._scores(anchor, v, float(self.sign @ alpha))[self.item] - 1.0
            low = (state == _FREE) & (alpha < -tol_a)
            high = (state == _FREE) & (alpha > u + tol_a)
            up_wrong = (state == _UPPER) & (grad > _GRAD_ATOL)
            up_wrong[anchor.own] = False
            low_wrong = (state == _LOWER) & (grad < -_GRAD_ATOL)
            infeasible = low | high | up_wrong | low_wrong
            count = int(infeasible.sum())
            if count == 0:
                return _Outcome(self._iterate(anchor, np.clip(alpha, 0.0, u), v), pivot)
            if np.isfinite(gap_bound):
                clipped = self._clipped(anchor, alpha, v, low | high)
                bounds = self._gap_bounds(anchor, clipped)
                if bounds[0] > gap_bound + GAP_ATOL:
                    return _Outcome(clipped, pivot, bounds)
            if count < best_count:
                best_count, backup, limit, chosen = count, _BACKUP, 1.0, infeasible
            elif backup > 0:
                backup -= 1
                chosen = infeasible
            else:
                limit = max(limit / 2.0, 1.0 / count)
                violation = np.zeros(len(u))
                violation[low] = -alpha[low]
                violation[high] = alpha[high] - u[high]
                violation[up_wrong] = grad[up_wrong]
                violation[low_wrong] = -grad[low_wrong]
                chosen = np.zeros(len(u), dtype=bool)
                chosen[np.argsort(-violation)[:max(1, int(np.ceil(limit * count)))]] = True
            new = state.copy()
            new[chosen & low] = _LOWER
            new[chosen & high] = _UPPER
            new[chosen & (low_wrong | up_wrong)] = _FREE
            self._set_state(new)
        return _Outcome(None, self.budget)

    # ---- screening of candidates ---------------------------------------------------------
    def _gap_bounds(self, anchor: _Anchor, point: _Iterate) -> tuple[float, float]:
        """An interval holding the candidate's gap ``|q̂_k − h(z_k)| = |q̂_k|`` at the
        optimum: the top τ-quantile is an order statistic of the scores, so it moves by
        at most as much as they do."""
        radius = np.sqrt(2.0 * max(point.gap, 0.0))
        spread = radius * np.sqrt(np.maximum(self.diag + anchor.kk - 2.0 * anchor.row, 0.0))
        points = self.problem.candidates
        lo = self._quantile(point.scores[points] - spread[points])
        hi = self._quantile(point.scores[points] + spread[points])
        low_gap = 0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))
        return low_gap, max(abs(lo), abs(hi))

    def _quantile(self, scores: np.ndarray) -> float:
        """The top τ-quantile of the sample points' scores
        (:func:`.problem.weighted_top_quantile`)."""
        weights = self.problem.item_weight
        if weights is None:
            need = tau_cutoff(self.tau, len(scores))
            return float(np.partition(scores, len(scores) - need)[len(scores) - need])
        w = weights[self.problem.candidates]
        order = np.argsort(-scores, kind="stable")
        cumulative = np.cumsum(w[order])
        need = tau_cutoff(self.tau, int(cumulative[-1]))
        return float(scores[order[np.searchsorted(cumulative, need, side="left")]])

    # ---- fallback: gap-safe screening of slots, then a small dense QP ----------------------
    def _reduced(self, anchor: _Anchor, point: _Iterate) -> _Iterate:
        """Solve the candidate from a certified point: slots whose margin is provably above
        (below) 1 at the optimum are fixed at 0 (``u``); the rest is a dense QP."""
        u = self.u * self.scale
        radius = np.sqrt(2.0 * max(point.gap, 0.0))
        spread = radius * np.sqrt(np.maximum(self.diag + anchor.kk - 2.0 * anchor.row,
                                             0.0))[self.item]
        at_zero = point.margins - spread > 1.0
        at_upper = point.margins + spread < 1.0
        at_upper[anchor.own], at_zero[anchor.own] = True, False
        rest = np.flatnonzero(~(at_zero | at_upper))
        fixed = np.where(at_upper, u, 0.0)
        upper = np.flatnonzero(at_upper)
        coef = np.bincount(self.item[upper], weights=self.sign[upper] * u[upper],
                           minlength=self.gram.n)
        items = np.flatnonzero(coef)
        v_fixed = coef[items] @ self.gram.rows(items) if len(items) else np.zeros(self.gram.n)
        grad = self.sign * self._scores(anchor, v_fixed, float(self.sign @ fixed))[self.item]
        ri, ry = self.item[rest], self.sign[rest]
        rows = self.gram.rows(ri)
        kr = anchor.row[ri]
        Q = (rows[:, ri] - kr[:, None] - kr[None, :] + anchor.kk) * np.outer(ry, ry)
        result = solve_box_qp(Q, grad[rest] - 1.0, u[rest], rtol=1e-2 * self.rtol)
        alpha = fixed
        alpha[rest] = result.x
        new = np.where(alpha <= 0.0, _LOWER, np.where(alpha >= u, _UPPER, _FREE)).astype(np.int8)
        new[anchor.own] = _UPPER
        self.state = new
        self._refresh_upper()
        return self._iterate(anchor, alpha, v_fixed + (ry * result.x) @ rows)

    # ---- continuation --------------------------------------------------------------------
    def _follow(self, path: Callable[[float], tuple[_Anchor, float]], step: float,
                gap_bound: float) -> tuple[_Outcome, bool]:
        """Follow ``t`` from 0 (the current partition is optimal there) to 1, where
        ``path(t)`` gives the anchor and the scale of ``u``. Returns the outcome at ``t = 1``
        and whether the fallback was needed."""
        t, total = 0.0, 0
        snapshot = self._snapshot()
        while True:
            t_next = min(1.0, t + step)
            anchor, scale = path(t_next)
            self._set_scale(scale)
            own = anchor.own[self.state[anchor.own] != _UPPER]
            if len(own):
                new = self.state.copy()
                new[own] = _UPPER
                self._set_state(new)
            outcome = self._pivot(anchor, gap_bound if t_next >= 1.0 else np.inf)
            total += outcome.pivots
            if outcome.point is not None and outcome.bounds is None:
                self.last = outcome.point
                if t_next >= 1.0:
                    return _Outcome(outcome.point, total), False
                t, snapshot, step = t_next, self._snapshot(), 2.0 * step
                continue
            if outcome.bounds is not None:
                return _Outcome(outcome.point, total, outcome.bounds), False
            self._restore(snapshot)
            step /= 2.0
            if step < _MIN_STEP:
                # the last optimal point (of a smaller scale or another anchor) lies in
                # the box of the target, so it certifies the target's optimum too
                target, scale = path(1.0)
                self._set_scale(scale)
                start = self._iterate(target, self.last.alpha, self.last.v)
                return _Outcome(self._reduced(target, start), total), True

    def _anchor(self, k: int) -> _Anchor:
        return _Anchor(int(k), self.gram.rows(int(k)), float(self.diag[k]),
                       np.flatnonzero(self.item == k), np.array([int(k)]), np.ones(1))

    def _cold_start(self, target: _Anchor) -> tuple[Callable[[float], tuple[_Anchor, float]],
                                                   float]:
        """A first optimal partition, and the path from it to ``target``.

        The SVM with a bias (eq. 4 with ``Σ_s y_s α_s = 0``; libsvm through scikit-learn)
        has scores ``f = h + b``. Its optimum is also optimal for eq. (4) at any anchor
        ``φ_a`` on its decision boundary, ``f(a) = 0``: there ``σ = 0``, so ``w`` does not
        depend on the anchor, and the margins ``y_s (h(z_s) − h(a))`` are the SVM's. The
        anchor ``(1 − t₀) φ_k + t₀ φ_j``, between the target and the nearest point on the
        other side of the boundary, is such a point; the path moves it to ``φ_k``. Should
        every score have one sign, the scale of ``u`` is followed up instead, from the
        scale at which every slot at ``u`` is optimal.
        """
        from sklearn.svm import SVC

        rows = self.gram.rows(self.item)[:, self.item]
        svm = SVC(C=1.0, kernel="precomputed", tol=1e-8).fit(rows, self.sign,
                                                             sample_weight=self.u)
        alpha = np.zeros(len(self.u))
        alpha[svm.support_] = np.abs(svm.dual_coef_.ravel())
        f = svm.decision_function(rows)
        own = np.sign(f[target.own]) if len(target.own) else np.sign(
            svm.decision_function(self.gram.rows(np.array([target.k]))[:, self.item]))
        other = np.flatnonzero(np.sign(f) == -own[0]) if own[0] != 0 else np.zeros(0, int)
        self.scale = 1.0
        if own[0] == 0:
            start = target
        elif len(other):
            items = self.item[other]
            distance = self.diag[items] - 2.0 * target.row[items]
            j = int(other[np.argmin(distance)])
            f_k = float(svm.decision_function(target.row[self.item][None, :])[0])
            t0 = f_k / (f_k - f[j])
            start = target.toward(self._anchor(int(self.item[j])), t0)
        else:
            return self._scale_path(target)
        state = np.where(alpha <= 0.0, _LOWER, np.where(alpha >= self.u, _UPPER, _FREE))
        self.state = state.astype(np.int8)
        self._refresh_upper()
        settled = self._pivot(start, np.inf)
        if settled.point is None:
            v = np.bincount(self.item, weights=self.sign * alpha, minlength=self.gram.n)
            items = np.flatnonzero(v)
            point = self._iterate(start, alpha, v[items] @ self.gram.rows(items))
            settled = _Outcome(self._reduced(start, point), settled.pivots)
        self.last = settled.point
        return (lambda t: (start.toward(target, t), 1.0)), 1.0

    def _scale_path(self, target: _Anchor) -> tuple[Callable[[float], tuple[_Anchor, float]],
                                                    float]:
        """Every slot at ``u·s₀`` is optimal for ``s₀ = 1/max_s m_s(u)``; the path raises
        the scale geometrically from ``s₀`` to 1."""
        self.state = np.full(len(self.u), _UPPER, dtype=np.int8)
        self._refresh_upper()
        margins = self.sign * self._scores(target, self.v_upper, self.sigma_upper)[self.item]
        largest = float(np.max(margins, initial=0.0))
        start = min(1.0, 1.0 / largest) if largest > 0 else 1.0
        self._set_scale(start)
        self.last = self._iterate(target, self.u * start, self.v_upper)
        return (lambda t: (target, start ** (1.0 - t))), _COLD_STEP

    def _solve(self, k: int, gap_bound: float) -> CandidateSolution:
        target = self._anchor(k)
        if self.state is None:
            path, step = self._cold_start(target)
        else:
            self._restore(self._solved)  # the last optimum (a screened solve stops early)
            previous = self.anchor
            path, step = (lambda t: (previous.toward(target, t), 1.0)), 1.0
            self._since_refresh += 1
            if self._since_refresh >= _REFRESH:
                self._refresh_upper()
        outcome, fallback = self._follow(path, step, gap_bound)
        point = outcome.point
        if outcome.bounds is not None:
            return CandidateSolution(target.k, point.alpha, None, point.primal, point.dual,
                                     outcome.pivots, SCREENED_STATUS, scores=point.scores,
                                     gap_bounds=outcome.bounds)
        if not self._certified(point):
            point = self._reduced(target, point)
            fallback = True
        allowed = CERTIFICATE_RTOL * max(1.0, abs(point.primal))
        if not point.gap <= allowed:
            raise SolverError(f"{self.name}: candidate {k} not certified, duality gap "
                              f"{point.gap:.3g} > {allowed:.3g}", status="not_certified")
        self.last, self.anchor, self._solved = point, target, self._snapshot()
        status = "optimal (reduced interior point)" if fallback else "optimal"
        return CandidateSolution(target.k, point.alpha, None, point.primal, point.dual,
                                 outcome.pivots, status, scores=point.scores)

    # ---- public --------------------------------------------------------------------------
    def iter_solutions(self, candidates: Sequence[int],
                       progress: Callable[[int], None] | None = None,
                       gap_bound: Callable[[], float] | None = None
                       ) -> Iterator[CandidateSolution]:
        # the matrices are small: one BLAS thread each is fastest, and parallelism comes
        # from running chunks of candidates in separate workers (n_jobs)
        with single_threaded_blas():
            for k in candidates:
                yield self._solve(int(k), np.inf if gap_bound is None else gap_bound())
                if progress is not None:
                    progress(1)

    def solve_many(self, candidates: Sequence[int],
                   progress: Callable[[int], None] | None = None) -> list[CandidateSolution]:
        return list(self.iter_solutions(candidates, progress))

    def solve(self, k: int) -> CandidateSolution:
        return self.solve_many([k])[0]

"""Duals over the items whose polytope is a box with one sum, for the cutting plane's tail:
SVMperf's prec@k loss where no relevant item is predicted (its hinge part, over the
irrelevant items), Kar et al. 2015's struct surrogate (over all the items), and
Hiranandani et al. 2020's pAp@k-avg (over the irrelevant items, with a cap on the sum).

SVMperf's loss (Joachims 2005; :mod:`cvxtop.surrogates.prec_svmperf`) is a maximum over
labelings predicting ``a`` relevant and ``b`` irrelevant items. Those with ``a = 0`` (and so
``b >= k``) score ``k − Σs⁺ + top_b(s⁻)``, and their maximum is a hinge on the irrelevant
items' scores plus the ``k`` highest of them:

    L₀(s) = k − Σs⁺ + max_{v ∈ Q} v·s⁻,   Q = {v ∈ [0, 1]^{n₋} : Σv >= k}

(``Q``'s vertices are the 0/1 vectors with at least ``k`` ones, so the maximum over ``Q`` is
``max_{b >= k} top_b(s⁻)``). ``L₀ <= L``, so every ``v ∈ Q`` gives the cut
``L(s) >= k + g·s`` with ``g = (−1 on the relevant items, v on the others)``, valid
everywhere. When the scores are small against ``k`` no relevant item is worth predicting
(``k·b/(a + b)`` falls by about ``k/b`` an item, far more than its score), the optimum lies
where ``L = L₀``, and there thousands of irrelevant items sit exactly at score 0 (the hinge's
kink): on the sparse 50,000 × 50,000 set at SVMperf's C_perf 10, 21,887 of them. Each round
of the cutting plane adds one vertex of ``Q``'s face over them, so the rounds alone take
hundreds of them.

``½‖w‖² + C·L₀(Xw)`` has the dual ``max_{v ∈ Q} C·k − ½‖w‖²`` with ``w = −C·Xᵀg``. Its
optimality conditions put ``v_i = 1`` where ``s_i > θ``, ``0`` where ``s_i < θ`` and between
where ``s_i = θ`` (``s = Xw``), with the threshold ``θ = 0`` while that leaves ``Σv >= k``
and ``θ < 0`` with ``Σv = k`` where the sum's bound holds. Given which items are tied
(``T``) and which at 1 (``A``), the tied weights solve ``X_T X_Tᵀ v_T = X_T (X₊ᵀ1 − X_Aᵀ1)``
at ``θ = 0``, and where that leaves ``Σv < k`` they move by ``−θ·(X_T X_Tᵀ)⁻¹1/C`` with the
``θ`` that makes ``Σv = k``: systems solved by conjugate gradients (Hestenes & Stiefel 1952)
on products with ``X_T``, preconditioned by the rows' squared norms (Jacobi), started from
an earlier answer's weights where there is one. The gap of their answer is their relative
residual times a factor that grows with ``C``, so an answer whose gap is above the aim is
solved again from its own guess to a finer residual (:func:`_refined_cut`). The primal-dual
active-set method (Hintermüller, Ito and Kunisch 2002) starts from the cutting plane's best
point (items within :data:`TIE_SHARE` of the largest score tied) and moves the items that
violate the guess (of those at 0, the most violating :data:`MIN_ENTERING` or as many as are
tied), until none does. The answer, clipped onto ``Q``, gives one more cut for the master
and its weights a candidate best point: the certificate stays the master's. Where the steps
fail (as many tied items as features make the tied system singular: at the zero model every
irrelevant item is tied, and on ``make_ranking_data(10⁴, 1,000)`` at C = 1 the zero model is
the optimum), the solve goes on by proximal points (Rockafellar 1976), whose ridged systems
are definite; a solve that fails both ways adds nothing. ``L₀`` is ``k`` plus a positively
homogeneous function of the scores, so its minimizer is proportional to ``C`` and the tied
set the same at every ``C``: on the sparse set the solve certifies C_perf 0.1, 1 and 10
alike, after 20 rounds (measured: docs/solvers.md, "Measurements behind the constants").
Where the optimum predicts relevant items too (the UCI sets at SVMperf's grid, except
letter) the labelings of the best point have ``a > 0`` and the solve is not tried.

prec@k-struct (Kar et al. 2015 eq. (3)) is the maximum of ``v·(s + 1 − y) − y·s`` over
``{v ∈ [0, 1]^n : Σv = k}``: the same kind of dual, over all the items, with ``1 − y``
added to their scores and the threshold free (:func:`struct_dual_cut`). On the sparse set
it certifies after 20 rounds at every C, where the rounds alone need 47 to 410, and
``make_ranking_data(10,000, 1,000)`` faster too (measured: docs/solvers.md, "Measurements behind the constants").

pAp@k-avg (Hiranandani et al. 2020 eq. (10)) is ``(1/k)`` times the maximum of
``v·(1 + s⁻ − mean(s⁺))`` over ``{v ∈ [0, 1]^{n₋} : Σv <= k}``: the same kind of dual over
the irrelevant items, the threshold ``θ = 0`` while the sum stays within ``k`` and above 0
where the cap holds, on the rows ``(z_j − z̄⁺)/k`` (``z̄⁺`` the relevant items' mean row,
which makes sparse rows dense: they are kept as the sparse rows and the shift,
:class:`_ShiftedRows`) (:func:`pap_avg_dual_cut`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy.linalg as sl
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, cg

from .objective import RankingObjective
from .ridge_cg import StepResidual
from .selection_dual import MIN_FEATURES, DualCut, dual_cut, most_violating

__all__ = ["SOLVE_ROUNDS", "PATH_ROUND", "applies", "box_dual_cut", "cut_near", "hinge_dual_cut",
           "proximal_round", "struct_dual_cut", "suits"]

#: Rounds of the cutting plane after which the solve is tried (while the gap is open): it
#: needs no more than a rough best point to start from, and the rounds before it are
#: cheap. On the sparse 50,000 × 50,000 set, tried first after round 5, 10, 20 or 30, it
#: was fastest from round 20 (measured: docs/solvers.md, "Measurements behind the constants").
SOLVE_ROUNDS = frozenset({20, 50, 150, 400, 1000})
#: The round of the first try in a path (the cuts of another C kept with the last dual
#: point): it starts from that point's items at 1 and between, nearly this C's, and on the
#: sparse 50,000 × 50,000 set prec@k-struct then certifies after 1 round instead of 20
#: (benchmarks/c_path.py).
PATH_ROUND = 1
#: The first of those rounds at which proximal points take over where the steps fail on
#: sparse rows (:func:`proximal_round`): the rounds often certify such problems cheaply
#: before it (20,000 × 5,000 sparse data, with
#: 18,000 items tied at round 20, takes 39 to 91 rounds, at a tenth of the proximal
#: points' cost), while a zero-model optimum (every irrelevant item tied) is certified by
#: no number of rounds (measured: docs/solvers.md, "Measurements behind the constants").
PROXIMAL_ROUND = 150
#: The same for the hinge and pAp@k-avg on dense rows: the first solve round. Their ridged
#: systems are factored in the features' space (Woodbury), and there the proximal points
#: certify at once where the rounds went on to 150 or more: on spambase, pAp@k-avg at
#: round 20 instead of 71 to 252, on ``make_ranking_data(5,000, 50)`` prec@k-svmperf at
#: round 20 instead of 91 to 150 (measured: docs/solvers.md, "Measurements behind the
#: constants").
DENSE_PROXIMAL_ROUND = 20

#: Irrelevant items whose score at the best point is within this share of the largest
#: absolute score start tied at 0.
TIE_SHARE = 0.01
#: Active-set steps before a solve is given up. Without a proximal term it is also given
#: up as soon as as many items are tied as there are features: ``X_T X_Tᵀ`` is then
#: singular, the steps cycle (on 20,000 × 5,000 sparse data 30 steps of 13,500 tied items,
#: where the optimum ties none and 31 to 82 rounds certify it) (measured: docs/solvers.md,
#: "Measurements behind the constants"), and the proximal points take over.
MAX_STEPS = 30
#: Iterations of the conjugate gradients a step. Their relative residual is the gap the
#: solve aims at: on the sparse set 1e-6, 1e-8 and 1e-10 gave certified gaps of 4e-8,
#: 5e-10 and 5e-12 (measured: docs/solvers.md, "Measurements behind the constants").
CG_ITERATIONS = 2000
#: Where the steps fail, the proximal points' first ridge (relative to the rows' mean
#: squared norm), its factor after each point, the points tried, and the failed solves in a
#: row (each raising the ridge tenfold) after which they are given up.
RIDGE_START, RIDGE_DECAY, PROXIMAL_STEPS, PROXIMAL_FAILURES = 0.1, 0.3, 40, 3
#: Active-set steps of one proximal point before it counts as failed (and the ridge grows):
#: the points that converge take a few, while on ``make_ranking_data(10⁴, 1,000)`` at C = 1
#: a ridge too small cycled through all 30 of :data:`MAX_STEPS`, more than half of the fit
#: (measured: docs/solvers.md, "Measurements behind the constants").
PROXIMAL_INNER_STEPS = 8
#: Where the conjugate gradients' relative residual (the gap aimed at) leaves a cut's gap
#: above it, the residual the answer's guess is solved to again: the aim times this share
#: of the gap's excess, at most :data:`REFINEMENTS` times and never below
#: :data:`FINEST_RESIDUAL`. The gap is the residual times a factor that grows with ``C``:
#: pAp@k-avg on the sparse 50,000 × 50,000 set at C = 100 ends at 5.6e-6 from a residual of
#: 1e-6 and at 4.7e-8 from 1e-8 (measured: docs/solvers.md, "Measurements behind the
#: constants").
REFINE_SHARE, REFINEMENTS, FINEST_RESIDUAL = 0.1, 2, 1e-13
#: Items at 0 that may join the tied set in one step: the most violating, at most this
#: many or as many as are tied already (so the tied set can double a step). From a path's
#: earlier answer the first step can tie far more items than the answer needs: on the
#: sparse 50,000 × 50,000 set, prec@k-struct going down from C = 0.046 to 0.01 tied 33,564
#: items where 7,187 end tied, and the cap made that point's solve cheaper (measured:
#: docs/solvers.md, "Measurements behind the constants").
MIN_ENTERING = 1000
_START_ROUNDING = 1e-9  # an earlier answer's weight this close to 0 or 1 starts there
#: Equal tied rows are merged where their right sides agree to this share of the largest
#: (they then differ by rounding only; by the ``c/C`` of items of both labels otherwise).
MERGE_RTOL = 1e-12
#: The relative residual to which a guess's systems are solved for every ``C`` at once
#: (:class:`_Face`): a path's later points read their weights off these solutions, and the
#: gap of such weights is their residual times a factor that grows with ``C`` (conjugate
#: gradients; factored dense rows are solved as exactly as the floats allow).
FACE_RESIDUAL = 1e-12


def suits(objective: RankingObjective) -> bool:
    """Whether the objective is one this module solves: a surrogate that declares this dual
    (``dual_form`` ``"box-hinge"``, prec@k-svmperf, on one list with more irrelevant items
    than ``k``; ``"box-struct"``, prec@k-struct, on one list with more items than ``k``;
    ``"box-pap"``, pAp@k-avg, on one list with a relevant item and at least ``k``
    irrelevant ones),
    on at least :data:`.selection_dual.MIN_FEATURES` features (below, the rounds certify
    quickly (measured: docs/solvers.md, "Measurements behind the constants"))."""
    if objective.surrogate.dual_form not in ("box-hinge", "box-struct", "box-pap") \
            or not objective.one_list or objective.Z.shape[1] < MIN_FEATURES:
        return False
    bound = objective.parts[0].bound
    if objective.surrogate.dual_form == "box-struct":
        return bound.n > bound.k >= 1
    if objective.surrogate.dual_form == "box-pap":
        return bound.n_pos >= 1 and bound.n_neg >= bound.k >= 1
    return bound.n_neg > bound.k >= 1


def applies(objective: RankingObjective, subgradient: np.ndarray) -> bool:
    """Whether the solve is worth trying at a point with this score subgradient: the
    objective :func:`suits` it, and for prec@k-svmperf the point's maximizing labeling
    predicts no relevant item (every relevant item's subgradient is −1)."""
    if not suits(objective):
        return False
    return objective.surrogate.dual_form != "box-hinge" \
        or bool(np.all(subgradient[objective.parts[0].bound.pos] == -1.0))


def proximal_round(objective: RankingObjective) -> int:
    """The first round at which proximal points take over where the steps fail:
    :data:`DENSE_PROXIMAL_ROUND` for the hinge and pAp@k-avg on dense rows,
    :data:`PROXIMAL_ROUND` on sparse rows and for prec@k-struct, whose rounds certify soon
    after the first solve round anyway (on spambase after 33 to 42 cold, 26 to 31 on a
    path), where its proximal points cost as much as the rounds they save, and more on a
    path (measured: docs/solvers.md, "Measurements behind the constants")."""
    early = _factored(objective.Z) and objective.surrogate.dual_form != "box-struct"
    return DENSE_PROXIMAL_ROUND if early else PROXIMAL_ROUND


def box_dual_cut(objective: RankingObjective, best_scores: np.ndarray,
                 subgradient: np.ndarray, tol: float, proximal: bool = True,
                 start: np.ndarray | None = None, faces: dict | None = None
                 ) -> DualCut | None:
    """The cut of :func:`struct_dual_cut`, :func:`hinge_dual_cut` or
    :func:`pap_avg_dual_cut` for an objective that :func:`suits` this module, at a best
    point with these scores and score subgradient (``proximal``: whether proximal points
    take over where the steps fail; ``start``: the ``g`` of an earlier cut of this loss,
    whose items at 1 and between are tried first; ``faces``: where a start's guess solved
    for every ``C`` is kept, :class:`_Face`); ``None`` where the solve does not apply there
    or fails."""
    if not applies(objective, subgradient):
        return None
    if objective.surrogate.dual_form == "box-struct":
        return struct_dual_cut(objective, best_scores, tol, proximal, start, faces)
    if objective.surrogate.dual_form == "box-pap":
        return pap_avg_dual_cut(objective, best_scores, tol, proximal, start, faces)
    return hinge_dual_cut(objective, best_scores, tol, proximal, start, faces)


def _equal_rows(Z_T: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """For rows some of which are equal: the first of each distinct row (ascending), each
    row's group and the groups' sizes; ``None`` where every row differs. Rows are compared
    whole only within runs of close products with a random vector (one product and one
    sort, where sorting the rows themselves, as ``np.unique(axis=0)`` does, is far dearer:
    measured in docs/solvers.md, "Equal rows")."""
    m = Z_T.shape[0]
    if m < 2:
        return None
    probe = Z_T @ np.random.default_rng(0).standard_normal(Z_T.shape[1])
    order = np.argsort(probe, kind="stable")
    probe = probe[order]
    close = np.diff(probe) <= MERGE_RTOL * np.abs(probe[1:])
    if not close.any():
        return None
    # runs of sorted probes that come close: only rows within one run can be equal, and
    # each row of a run is compared with the run's distinct rows so far
    group = np.arange(m)
    starts = np.flatnonzero(np.r_[True, ~close])
    for start, end in zip(starts, np.r_[starts[1:], m]):
        if end - start < 2:
            continue
        heads: list[int] = []
        for item in order[start:end]:
            match = next((h for h in heads if np.array_equal(Z_T[h], Z_T[item])), None)
            if match is None:
                heads.append(int(item))
            else:
                group[item] = match
    first = np.flatnonzero(group == np.arange(m))
    if len(first) == m:
        return None
    index = np.full(m, -1)
    index[first] = np.arange(len(first))
    group = index[group]
    return first, group, np.bincount(group, minlength=len(first)).astype(np.float64)


def _factored(Z: Any) -> bool:
    """Whether tied systems of these rows are solved by a Cholesky factor (dense rows), as
    exactly as the floats allow, rather than by conjugate gradients to a residual."""
    return isinstance(Z, np.ndarray)


class _TiedSystem:
    """``(Z_T Z_Tᵀ + ridge·I) v = rhs`` for one guess's tied rows ``Z_T``. Sparse rows:
    conjugate gradients to the relative residual ``rtol``, with the diagonal (``squares``,
    the rows' squared norms, plus the ridge) as a Jacobi preconditioner, a right side at a
    time (splitting the products over two threads, as the rounds do, gave no steady gain
    here (measured: docs/solvers.md, "Measurements behind the constants")). Dense rows: a
    Cholesky factor, taken once for every right side, of the smaller of
    ``Z_T Z_Tᵀ + ridge·I`` and, by the Woodbury identity, ``Z_TᵀZ_T + ridge·I``.
    ``plane_rtol`` (default ``rtol``) is the residual of the runs on the plane of a sum
    (:meth:`solve_with_sum`).

    Equal dense rows make ``Z_T Z_Tᵀ`` singular however few features they span; without a
    ridge they are solved as one row each: their equations agree where their right sides
    do (else the system has no solution), the group's total ``V_g`` solves the system of
    the distinct rows, and each of its ``μ_g`` items takes ``V_g/μ_g`` (the solution of
    least norm). Real data repeat rows: on spambase's raw features, pAp@k-avg at C = 2,154
    ties 76 irrelevant items with 40 distinct rows, which 57 features determine
    (docs/solvers.md, "Equal rows")."""

    def __init__(self, Z_T, ridge: float, rtol: float, plane_rtol: float | None = None,
                 squares: np.ndarray | None = None) -> None:
        self.Z_T, self.ridge, self.rtol = Z_T, ridge, rtol
        self.plane_rtol = rtol if plane_rtol is None else plane_rtol
        self._factor: tuple | None = None
        self._groups = _equal_rows(Z_T) if _factored(Z_T) and ridge <= 0 else None
        #: rows whose equations can differ: the distinct ones where equal rows are merged
        self.distinct_rows = Z_T.shape[0] if self._groups is None else len(self._groups[0])
        if not _factored(Z_T):  # conjugate gradients: the transpose and the diagonal, once
            self._transposed = Z_T.T
            diagonal = (_row_squares(Z_T) if squares is None else squares) + ridge
            filled = diagonal > 0  # (an empty row's equation is left unscaled)
            self._inverse_diagonal = np.where(filled, 1.0 / np.where(filled, diagonal, 1.0),
                                              1.0)

    def _dense(self, rhs: np.ndarray) -> np.ndarray:
        if self._groups is not None:
            return self._merged(rhs)
        Z_T, ridge = self.Z_T, self.ridge
        m, d = Z_T.shape
        woodbury = m > d and ridge > 0
        if self._factor is None:
            gram = Z_T.T @ Z_T + ridge * np.eye(d) if woodbury \
                else Z_T @ Z_T.T + ridge * np.eye(m)
            self._factor = sl.cho_factor(gram, check_finite=False)
        if woodbury:
            return (rhs - Z_T @ sl.cho_solve(self._factor, Z_T.T @ rhs,
                                             check_finite=False)) / ridge
        return sl.cho_solve(self._factor, rhs, check_finite=False)

    def _merged(self, rhs: np.ndarray) -> np.ndarray:
        """The least-norm solution through the distinct rows (class docstring); raises
        ``LinAlgError`` where equal rows' right sides differ."""
        first, group, sizes = self._groups
        merged = rhs[first]
        if np.max(np.abs(rhs - merged[group]), initial=0.0) \
                > MERGE_RTOL * np.max(np.abs(rhs), initial=0.0):
            raise np.linalg.LinAlgError("equal tied rows with different right sides")
        if self._factor is None:
            Z_U = self.Z_T[first]
            self._factor = sl.cho_factor(Z_U @ Z_U.T, check_finite=False)
        totals = sl.cho_solve(self._factor, merged, check_finite=False)
        return (totals / sizes)[group]

    def _times(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(self.Z_T @ (self._transposed @ np.ravel(p))).ravel() + self.ridge * p

    def solve(self, rhs: np.ndarray, start: np.ndarray) -> np.ndarray | None:
        """``v``, or ``None`` (a singular factor, or gradients that did not converge)."""
        if _factored(self.Z_T):
            try:
                return self._dense(rhs)
            except np.linalg.LinAlgError:
                return None
        m = self.Z_T.shape[0]
        gram = LinearOperator((m, m), matvec=self._times, dtype=np.float64)
        jacobi = LinearOperator((m, m), matvec=lambda r: self._inverse_diagonal * np.ravel(r),
                                dtype=np.float64)
        solution, info = cg(gram, rhs, x0=start, rtol=self.rtol, maxiter=CG_ITERATIONS,
                            M=jacobi)
        return solution if info == 0 else None

    def solve_with_sum(self, rhs: np.ndarray, start: np.ndarray, total: float, C: float
                       ) -> tuple[np.ndarray, float] | None:
        """``v`` with ``Σv = total`` and the threshold ``θ`` of ``M v = rhs − (θ/C)·1``
        (``M`` this system's matrix), or ``None``. Factored rows: ``M⁻¹rhs`` shifted along
        ``M⁻¹1``. Sparse rows: one run of conjugate gradients on the plane ``Σv = total``
        (the residual projected onto ``1⊥``: Gould, Hribar & Nocedal 2001), where two runs
        would be needed for ``M⁻¹rhs`` and ``M⁻¹1``; ``θ`` is then ``C`` times the mean
        of the residual ``rhs − M v``. The run ends at ``plane_rtol`` times the norm of its
        own right-hand side, ``rhs − M·(total/m)·1`` less its mean (the system of the step
        off the plane's point nearest 0), not of ``rhs``: where ``rhs`` is nearly constant
        (at a small ``C`` it holds ``c/C``, and at the zero model ``Z_T``'s part vanishes)
        the norm of ``rhs`` would end the run at its start, far from the solution. The
        active-set steps give ``plane_rtol`` their tight residual even while their free
        systems are loose: at the zero model, plane runs at the loose residual left the tied
        sets swinging between steps (measured: docs/solvers.md, "SVMperf's loss on sparse
        data")."""
        if _factored(self.Z_T):
            free = self.solve(rhs, start)
            shift = None if free is None else self.solve(np.full(len(rhs), 1.0 / C), start)
            return None if shift is None else _on_plane(free, shift, total)
        m = len(rhs)
        reduced = rhs - self._times(np.full(m, total / m))
        scale = max(float(np.linalg.norm(reduced - reduced.mean())),
                    np.finfo(np.float64).eps * float(np.linalg.norm(rhs)))
        target = (self.plane_rtol * scale) ** 2
        v = start + (total - float(start.sum())) / m
        residual = rhs - self._times(v)
        inverse = self._inverse_diagonal
        weight = float(inverse.sum())

        def preconditioned(r: np.ndarray) -> tuple[np.ndarray, float]:
            # P⁻¹(r − λ·1) with the λ that keeps it on the plane (sum 0), and its product
            # with r − λ·1 (not with r, whose constant part, c/C at a small C, is large)
            shifted = r - float(inverse @ r) / weight
            z = inverse * shifted
            return z, float(shifted @ z)

        z, rho = preconditioned(residual)
        direction = z.copy()
        for _ in range(CG_ITERATIONS):
            projected = residual - residual.mean()
            if float(projected @ projected) <= target:
                return v, C * float(residual.mean())
            product = self._times(direction)
            curvature = float(direction @ product)
            if not curvature > 0:
                return None
            step = rho / curvature
            v = v + step * direction
            residual = residual - step * product
            previous = rho
            z, rho = preconditioned(residual)
            direction = z + (rho / previous) * direction
        return None


class _ShiftedRows:
    """The rows ``scale·(z_i − m)`` of a sparse ``Z`` shifted by one dense row ``m``, never
    formed (they would be dense), with the products the steps take of them: row subsets,
    the column sums, and products of them and of their transpose with vectors."""

    def __init__(self, Z: sp.csr_matrix, shift: np.ndarray, scale: float) -> None:
        self.Z, self.shift, self.scale = Z, shift, scale
        self.shape = Z.shape

    def __getitem__(self, rows: np.ndarray) -> "_ShiftedRows":
        return _ShiftedRows(self.Z[rows], self.shift, self.scale)

    def sum(self, axis: int) -> np.ndarray:
        """The sum of the rows (``axis`` 0, the only one the steps take)."""
        if axis != 0:
            raise ValueError(f"axis must be 0, got {axis!r}")
        total = np.asarray(self.Z.sum(axis=0)).ravel()
        return self.scale * (total - self.Z.shape[0] * self.shift)

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        x = np.ravel(x)
        return self.scale * (np.asarray(self.Z @ x).ravel() - float(self.shift @ x))

    @property
    def T(self) -> "_ShiftedColumns":
        return _ShiftedColumns(self)

    def squared_norms(self, unshifted: np.ndarray) -> np.ndarray:
        """``‖scale·(z_i − m)‖²`` for each row, from the rows' own ``‖z_i‖²``."""
        cross = np.asarray(self.Z @ self.shift).ravel()
        return self.scale ** 2 * (unshifted - 2.0 * cross + float(self.shift @ self.shift))


@dataclass
class _ShiftedColumns:
    """The transpose of :class:`_ShiftedRows`, for its products with vectors."""

    rows: _ShiftedRows

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        rows, v = self.rows, np.ravel(v)
        return rows.scale * (np.asarray(rows.Z.T @ v).ravel() - rows.shift * v.sum())


def _squares(objective: RankingObjective, items: np.ndarray | None = None) -> np.ndarray:
    """The squared norms of the rows of ``items`` (default every item), from the
    objective's row norms, for the tied systems' Jacobi preconditioner."""
    squares = objective.row_norms() ** 2
    return squares if items is None else squares[items]


def _row_squares(Z: Any) -> np.ndarray:
    """The squared norms of sparse or shifted rows, computed from them."""
    if isinstance(Z, _ShiftedRows):
        return Z.squared_norms(np.asarray(Z.Z.multiply(Z.Z).sum(axis=1)).ravel())
    return np.asarray(Z.multiply(Z).sum(axis=1)).ravel()


def _squared_norm(problem: "_BoxProblem") -> float:
    """The squared Frobenius norm of the problem's rows: the sum of its rows' squared norms
    where it has them, else from the rows."""
    Z = problem.Z_items
    if problem.squares is not None:
        return float(problem.squares.sum())
    return float(np.einsum("ij,ij->", Z, Z) if _factored(Z) else _row_squares(Z).sum())


def _exact_sum(v: np.ndarray) -> float:
    """``math.fsum(v)``, the same float (the correctly rounded sum), with the entries equal
    to 1 counted and only those neither 0 nor 1 summed: an answer of a box has most of its
    weights at a bound, and ``fsum`` walks every entry in Python."""
    rest = v[(v != 0.0) & (v != 1.0)]
    return math.fsum(np.append(float(np.count_nonzero(v == 1.0)), rest))


def _onto_box_sum(v: np.ndarray, k: int, equality: bool) -> np.ndarray:
    """``v`` clipped to ``[0, 1]``, its sum then brought to ``k`` (``equality``: scaled down
    from above, raised towards 1 from below; a point of the box with ``Σv = k`` up to
    rounding) or to at least ``k`` plus a margin far above the rounding of a sum (raised
    towards 1: a point of ``Q``, so that its cut is valid, where the solve's ``Σv = k`` is
    only as exact as its floats). Sums are taken exactly (``math.fsum``)."""
    v = np.clip(v, 0.0, 1.0)
    total = _exact_sum(v)
    if equality and total > k:
        return v * (k / total)
    margin = 0.0 if equality else 1e-12 * len(v)
    if total < k + margin:
        room = 1.0 - v
        v = v + room * min(1.0, (k + 2 * margin - total) / _exact_sum(room))
    return v


@dataclass
class _BoxProblem:
    """``max C·c·v − ½‖w‖² − (ρ/2)‖v − v̄‖²`` over ``v ∈ [0, 1]`` with ``Σv >= k``
    (``Σv = k`` if ``equality``), ``w = C(fixed − Z_itemsᵀv)``; ``ρ = C²·ridge``, no
    proximal term where ``ridge`` is 0."""

    Z_items: Any
    c: np.ndarray
    fixed: np.ndarray
    k: int
    C: float
    equality: bool
    #: ``Σv <= k`` instead of ``Σv >= k`` (``θ = 0`` while that leaves ``Σv <= k``)
    at_most: bool = False
    #: where the last guess solved at every ``C`` is kept (:class:`_Face`, under ``"last"``):
    #: the cut store's, which a path's cuts carry to its next ``C``
    faces: dict | None = None
    #: the items' rows' squared norms, the diagonal of the tied systems' Jacobi
    #: preconditioner (rows solved by conjugate gradients; ``None`` for dense rows)
    squares: np.ndarray | None = None


def _tied_squares(problem: _BoxProblem, tied: np.ndarray) -> np.ndarray | None:
    """The tied rows' squared norms, where the problem has them."""
    return None if problem.squares is None else problem.squares[tied]


@dataclass(frozen=True)
class _Face:
    """A guess (``A`` at 1, ``T`` tied) solved once for every ``C``: its tied weights are
    ``v_T = M⁻¹(rhs − (θ/C)·1)`` with ``M = Z_T Z_Tᵀ`` and ``rhs = Z_T·base + c_T/C`` (``base``
    the fixed sum less ``A``'s rows), so ``v_T = p + q/C − (θ/C)·r`` with ``p = M⁻¹Z_T·base``,
    ``q = M⁻¹c_T`` and ``r = M⁻¹1``, none of which depends on ``C``."""

    at_one: np.ndarray
    tied: np.ndarray
    p: np.ndarray
    q: np.ndarray
    r: np.ndarray

    def weights(self, problem: _BoxProblem) -> np.ndarray | None:
        """The guess's weights at ``problem.C``, ``θ`` chosen as :func:`_tied_weights`
        chooses it; ``None`` where no ``θ`` meets the sum's bound."""
        C, total = problem.C, problem.k - int(self.at_one.sum())
        free = self.p + self.q / C
        if _sum_binds(problem, total - float(free.sum())):
            found = _on_plane(free, self.r / C, total)
            if found is None:
                return None
            free = found[0]
        v = self.at_one.astype(np.float64)
        v[self.tied] = free
        return v


def _kept_face(problem: _BoxProblem, at_one: np.ndarray, tied: np.ndarray) -> _Face | None:
    """The :class:`_Face` kept in ``problem.faces``, if it is this guess's."""
    face = None if problem.faces is None else problem.faces.get("last")
    if face is not None and np.array_equal(face.at_one, at_one) \
            and np.array_equal(face.tied, tied):
        return face
    return None


def _keep_face(problem: _BoxProblem, at_one: np.ndarray, tied: np.ndarray) -> None:
    """Solve a guess's systems for every ``C`` (to :data:`FACE_RESIDUAL`) and keep its
    :class:`_Face` in ``problem.faces`` in place of the last; nothing where nothing is kept
    or tied, where a solve fails, once a kept face has been missed (``"missed"``: this
    loss's guesses do not hold from one ``C`` to the next, and a face's three solves cost
    more than the points that read one save; docs/solvers.md, "A path over C"), or for an
    ``equality`` (prec@k-struct): its steps from a guess that holds take one system on the
    plane of the sum, started at the last answer, a few products against the face's three
    solves to :data:`FACE_RESIDUAL` (docs/solvers.md, "No face for an equality"). (The
    steps have just solved this guess, so its system is not singular.)"""
    if problem.faces is None or problem.equality or not tied.any() \
            or problem.faces.get("missed"):
        return
    Z_items = problem.Z_items
    Z_T = Z_items[tied]
    system = _TiedSystem(Z_T, 0.0, FACE_RESIDUAL, squares=_tied_squares(problem, tied))
    base = problem.fixed - np.asarray(Z_items[at_one].sum(axis=0)).ravel()
    c_T = problem.c[tied]
    r_0, p_0, q_0 = _face_starts(problem.faces.get("last"), at_one, tied)
    r = system.solve(np.ones(len(c_T)), r_0)
    p = None if r is None else system.solve(np.asarray(Z_T @ base).ravel(), p_0)
    # (the hinge's c is 0 and pAp@k-avg's constant: a multiple of r)
    q = None if p is None else c_T[0] * r if np.all(c_T == c_T[0]) \
        else system.solve(c_T, q_0)
    if q is not None:
        problem.faces["last"] = _Face(at_one.copy(), tied.copy(), p, q, r)


def _face_starts(last: _Face | None, at_one: np.ndarray, tied: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts for a guess's three solves: the last face's solutions on the items both
    guesses tie (where both put the same items at 1; zero elsewhere), whose systems differ
    only by the items that changed."""
    starts = np.zeros((3, int(tied.sum())))
    if last is not None and np.array_equal(last.at_one, at_one):
        position = np.full(len(tied), -1)
        position[last.tied] = np.arange(int(last.tied.sum()))
        common = position[tied]
        shared = common >= 0
        for start, solved in zip(starts, (last.r, last.p, last.q)):
            start[shared] = solved[common[shared]]
    return starts[0], starts[1], starts[2]


def _face_cut(problem: _BoxProblem, face: _Face, tol: float,
              cut_of: Callable[[np.ndarray], DualCut]
              ) -> tuple[DualCut | None, np.ndarray | None]:
    """The cut of a face's weights at this ``C`` (no system solved) if its gap is within
    ``tol`` (where the face's guess is this ``C``'s optimal one too), else ``None``; and
    the weights, the exact answer of the face's guess at this ``C``, from which the steps
    then start (their first system is that guess's: its conjugate gradients start at the
    solution)."""
    v = face.weights(problem)
    if v is None:
        return None, None
    cut = cut_of(v)
    return (cut if cut.gap(problem.C) <= tol else None), v


def _on_plane(free: np.ndarray, shift: np.ndarray, total: float
              ) -> tuple[np.ndarray, float] | None:
    """``free − θ·shift`` with the ``θ`` that brings its sum to ``total`` (``free = M⁻¹rhs``,
    ``shift = M⁻¹1/C``), and ``θ``; ``None`` where ``shift`` does not move the sum."""
    if not float(shift.sum()) > 0:
        return None
    threshold = (float(free.sum()) - total) / float(shift.sum())
    return free - threshold * shift, threshold


def _sum_binds(problem: _BoxProblem, short: float) -> bool:
    """Whether ``θ`` is set by the sum, where the free solution's sum falls ``short`` of the
    bound's ``total``: always for ``Σv = k``; for ``Σv <= k`` where it exceeds it, for
    ``Σv >= k`` where it falls below it (else ``θ = 0``)."""
    return problem.equality or (short < 0 if problem.at_most else short > 0)


def _tied_weights(problem: _BoxProblem, system: _TiedSystem, rhs: np.ndarray,
                  start: np.ndarray, total: float, plane_first: bool
                  ) -> tuple[np.ndarray, float] | None:
    """The tied items' weights ``v_T = M⁻¹(rhs − (θ/C)·1)`` and their threshold ``θ``, or
    ``None``. ``θ`` is free where ``Σv_T = total`` (``equality``); else it is 0 unless the
    free solution ``M⁻¹rhs`` breaks the sum's bound, and then the solution on the plane
    ``Σv_T = total`` has ``θ`` of the bound's sign (above 0 for ``Σv <= k``, below 0 for
    ``Σv >= k``: ``Σ M⁻¹(rhs − (θ/C)·1)`` falls as ``θ`` rises). So where the last step's
    sum was bound (``plane_first``) the plane is solved first, and the free system only if
    its ``θ`` has the other sign (or the run fails): one run where the bound holds again,
    instead of two. A factored system's plane solve makes the free solution anyway, so
    there the free system always comes first."""
    C = problem.C
    if problem.equality:
        return system.solve_with_sum(rhs, start, total, C)
    if plane_first and not _factored(system.Z_T):
        found = system.solve_with_sum(rhs, start, total, C)
        if found is not None and (found[1] > 0 if problem.at_most else found[1] < 0):
            return found
    free = system.solve(rhs, start)
    if free is None:
        return None
    if _sum_binds(problem, total - float(free.sum())):
        return system.solve_with_sum(rhs, free, total, C)
    return free, 0.0


def _box_sum_weights(problem: _BoxProblem, at_one: np.ndarray, tied: np.ndarray,
                     tol: float, ridge: float = 0.0, centre: np.ndarray | None = None,
                     values: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The weights ``v`` solving ``problem`` by primal-dual active-set steps from the guess
    ``at_one``, ``tied`` (the rest at 0), with the guess they end at; ``None`` if the steps
    fail. ``v_i`` is 1 where ``s_i + c_i − ε(v_i − v̄_i)`` (``ε = C·ridge``) is above the
    threshold ``θ``, 0 below, between at it; ``θ = 0`` while that leaves ``Σv >= k`` (never
    for ``equality``, where ``θ`` is free). ``values``: an earlier answer, whose tied
    weights start the conjugate gradients (else ½), which shortens a path's points
    (measured: docs/solvers.md, "Measurements behind the constants"). Conjugate gradients
    solve the free systems to a loose residual first, and to ``tol`` before a guess is
    accepted (:class:`.ridge_cg.StepResidual`); the runs on the plane of the sum solve to
    ``tol`` throughout (:meth:`_TiedSystem.solve_with_sum`), so an ``equality``, whose every
    system is on its plane, has no loose steps, and a step that moves no item ends it
    (where a loose phase would solve the same system again before accepting it)."""
    Z_items, c, k, C = problem.Z_items, problem.c, problem.k, problem.C
    centre = np.zeros(len(c)) if centre is None else centre
    eps = C * ridge
    at_one, tied = at_one.copy(), tied.copy()
    v = at_one.astype(np.float64)
    v[tied] = 0.5 if values is None else values[tied]
    residual = StepResidual(tol, iterative=not _factored(Z_items) and not problem.equality)
    plane_first = True
    for _ in range(MAX_STEPS if ridge <= 0 else PROXIMAL_INNER_STEPS):
        # v = 1 on A and v_T on T: s_T + c_T − ε(v_T − v̄_T) = θ fixes v_T, as
        # v_T = M⁻¹(X_T·base + c_T/C + ridge·v̄_T) − θ·M⁻¹1/C with M = X_T X_Tᵀ + ridge·I
        base = problem.fixed - np.asarray(Z_items[at_one].sum(axis=0)).ravel()
        threshold = 0.0
        if tied.any():
            Z_T = Z_items[tied]
            system = _TiedSystem(Z_T, ridge, residual.rtol, residual.tight,
                                 _tied_squares(problem, tied))
            if ridge <= 0 and system.distinct_rows >= Z_items.shape[1]:
                return None  # M singular (equal dense rows count once): give up
            rhs = np.asarray(Z_T @ base).ravel() + c[tied] / C + ridge * centre[tied]
            found = _tied_weights(problem, system, rhs, v[tied], k - int(at_one.sum()),
                                  plane_first)
            if found is None:
                return None
            v_tied, threshold = found
            plane_first = threshold != 0.0
            v[tied] = v_tied
            base = base - np.asarray(Z_T.T @ v_tied).ravel()
        elif (at_one.sum() > k if problem.at_most else at_one.sum() < k) \
                or problem.equality and at_one.sum() != k:
            return None  # no tied item to bring the sum within its bound
        augmented = np.asarray(Z_items @ (C * base)).ravel() + c
        below, above = tied & (v < 0), tied & (v > 1)
        leave_one = at_one & (augmented - eps * (1.0 - centre) < threshold)
        leave_zero = most_violating(
            ~tied & ~at_one & (augmented + eps * centre > threshold),
            augmented + eps * centre - threshold, max(MIN_ENTERING, int(tied.sum())))
        moves = int(below.sum() + above.sum() + leave_one.sum() + leave_zero.sum())
        if moves == 0 and not residual.loose:
            v[~tied] = at_one[~tied]
            return v, at_one, tied
        residual.after(moves)
        v[below], v[above] = 0.0, 1.0
        tied = (tied & ~below & ~above) | leave_one | leave_zero
        at_one = (at_one & ~leave_one) | above
    return None


def _start_guess(scores: np.ndarray, centre: float, tie: float, k: int,
                 at_most: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Items above ``centre + tie`` at 1, those within ``tie`` of it tied. For a sum of at
    least (or exactly) ``k``, where that leaves no tied item or too few to fill the sum
    (every irrelevant score below 0, the hinge's threshold), the ``k − 1`` highest at 1
    and the next two tied; for a sum of at most ``k`` (``at_most``), where it leaves more
    than ``k`` at 1, the same."""
    at_one, tied = scores > centre + tie, np.abs(scores - centre) <= tie
    usable = at_one.sum() <= k if at_most \
        else tied.any() and at_one.sum() + tied.sum() > k
    if usable:
        return at_one, tied
    order = np.argsort(-scores, kind="stable")
    at_one, tied = np.zeros(len(scores), bool), np.zeros(len(scores), bool)
    at_one[order[:k - 1]], tied[order[k - 1:k + 1]] = True, True
    return at_one, tied


def _solve_box(problem: _BoxProblem, scores: np.ndarray, centre: float, tie: float,
               tol: float, cut_of: Callable[[np.ndarray], DualCut], proximal: bool,
               start: np.ndarray | None = None) -> DualCut | None:
    """The cut of ``problem``'s answer from the guess of an earlier answer ``start`` (its
    weights at 1 and between), if given and its steps succeed, else from the guess at
    ``scores`` (the items' ``s + c`` at the best point); where those steps fail (as many
    tied items as features: the system is singular), the proximal points of
    :func:`_proximal_box_weights` if ``proximal``."""
    if start is not None:
        at_one = start >= 1.0 - _START_ROUNDING
        tied = ~at_one & (start > _START_ROUNDING)
        face = _kept_face(problem, at_one, tied)
        cut, weights = (None, None) if face is None else _face_cut(problem, face, tol, cut_of)
        if cut is not None:
            return cut
        if face is not None:
            problem.faces["missed"] = True
        found = _box_sum_weights(problem, at_one, tied, tol,
                                 values=start if weights is None else weights)
        if found is not None:
            if face is None and np.array_equal(found[1], at_one) \
                    and np.array_equal(found[2], tied):
                # the last C's guess is this C's too: solved for every C, for the next
                _keep_face(problem, at_one, tied)
            return _refined_cut(problem, found, tol, cut_of)
    at_one, tied = _start_guess(scores, centre, tie, problem.k, problem.at_most)
    found = _box_sum_weights(problem, at_one, tied, tol)
    if found is not None:
        return _refined_cut(problem, found, tol, cut_of)
    return _proximal_box_weights(problem, at_one, tied, tol, cut_of) if proximal else None


def _refined_cut(problem: _BoxProblem, found: tuple[np.ndarray, np.ndarray, np.ndarray],
                 tol: float, cut_of: Callable[[np.ndarray], DualCut]) -> DualCut:
    """The cut of the steps' answer ``found``; where its gap is above ``tol`` and the tied
    system was solved by conjugate gradients, the answer's guess solved again to a smaller
    residual (:data:`REFINE_SHARE`), kept while the gap falls. Prec@k-svmperf's hinge is
    only a lower bound of its loss, so there a gap can stay open however exact the answer."""
    cut = cut_of(found[0])
    if _factored(problem.Z_items):
        return cut
    residual, gap = tol, cut.gap(problem.C)
    for _ in range(REFINEMENTS):
        if gap <= tol or residual <= FINEST_RESIDUAL:
            break
        residual = max(residual * REFINE_SHARE * tol / gap, FINEST_RESIDUAL)
        again = _box_sum_weights(problem, found[1], found[2], residual, values=found[0])
        if again is None:
            break
        finer = cut_of(again[0])
        finer_gap = finer.gap(problem.C)
        if finer_gap >= gap:
            break
        found, cut, gap = again, finer, finer_gap
    return cut


def _proximal_box_weights(problem: _BoxProblem, at_one: np.ndarray, tied: np.ndarray,
                          tol: float, cut_of: Callable[[np.ndarray], DualCut]
                          ) -> DualCut | None:
    """Proximal points (Rockafellar 1976) of ``problem``: each solve adds ``(ρ/2)‖v −
    v̄‖²`` around the last answer, which makes the tied system definite however many items
    are tied (at the zero model every item is: on ``make_ranking_data(10⁴, 1,000)`` at
    C = 1 it is the optimum), while ``ρ`` shrinks. The first cut whose gap is within
    ``tol`` is returned; else, once the dual value stops rising with the gap open (the
    problem's own optimum is reached and the loss's lies elsewhere: prec@k-svmperf's hinge
    is a lower bound of its loss, and on ``make_ranking_data(10⁴, 1,000, noise=0.3)`` the
    hinge's optimum is below the zero model's objective where the loss's optimum mixes in
    labelings with relevant items), the cut with the highest dual value, a valid cut that
    still raises the master's bound; ``None`` if no point was solved."""
    Z = problem.Z_items
    ridge = RIDGE_START * _squared_norm(problem) / Z.shape[0]
    centre = np.clip(at_one + 0.5 * tied, 0.0, 1.0)
    best, best_lower, failures = None, -np.inf, 0
    for _ in range(PROXIMAL_STEPS):
        if failures >= PROXIMAL_FAILURES or ridge <= 0:
            break
        found = _box_sum_weights(problem, at_one, tied, tol, ridge, centre)
        if found is None:
            ridge, failures = ridge * 10.0, failures + 1
            continue
        failures = 0
        centre, at_one, tied = found
        cut = cut_of(centre)
        if cut.gap(problem.C) <= tol:
            return cut
        lower = cut.dual_value(problem.C)
        if lower - best_lower <= tol * (cut.value - lower):
            break  # the dual value has stopped rising with the gap open
        best, best_lower = cut, lower
        ridge *= RIDGE_DECAY
    if best is not None and _factored(Z):
        # the last point's guess solved without the ridge (equal rows merged): exact where
        # the points have found the optimum's items but not yet its weights
        exact = _box_sum_weights(problem, at_one, tied, tol, values=centre)
        if exact is not None:
            cut = cut_of(exact[0])
            if cut.gap(problem.C) < best.gap(problem.C):
                return cut
    return best


def hinge_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float,
                   proximal: bool = True, start: np.ndarray | None = None,
                   faces: dict | None = None) -> DualCut | None:
    """The dual point of ``½‖w‖² + C·L₀(Zw)`` found from ``best_scores`` (see the module
    docstring), aiming at the relative gap ``tol``, as a cut of ``L``, with its weights;
    ``None`` if the solve fails (``proximal``: after the proximal points too). ``start``:
    an earlier cut's ``g``, tried first, with ``faces`` as for :func:`box_dual_cut`
    (:func:`_solve_box`)."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    pos, neg = bound.pos, bound.neg
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0))
    rows = objective.derived("irrelevant rows", lambda: Z[neg])
    fixed = objective.derived("relevant rows' sum", lambda: np.asarray(Z[pos].sum(axis=0)).ravel())
    squares = None if _factored(rows) else _squares(objective, neg)
    problem = _BoxProblem(rows, np.zeros(len(neg)), fixed, bound.k, objective.C, False,
                          faces=faces, squares=squares)

    def cut_of(v: np.ndarray) -> DualCut:
        g = np.zeros(bound.n)
        g[pos], g[neg] = -1.0, _onto_box_sum(v, bound.k, equality=False)
        return dual_cut(objective, g, float(bound.k))

    return _solve_box(problem, best_scores[neg], 0.0, tie, tol, cut_of, proximal,
                      None if start is None else start[neg])


def struct_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float,
                    proximal: bool = True, start: np.ndarray | None = None,
                    faces: dict | None = None) -> DualCut | None:
    """For prec@k-struct, ``sum_largest(s + 1 − y, k) − y·s`` (Kar et al. 2015 eq. (3)), the
    maximum of ``v·(s + 1 − y) − y·s`` over ``{0 <= v <= 1, Σv = k}``: the dual of
    ``½‖w‖² + C·L(Zw)`` over the items, solved as the hinge part's is (``θ`` free), from
    ``best_scores``. Its cut is ``L(s) >= (1 − y)·v + (v − y)·s``, with its weights;
    ``None`` if the solve fails (``proximal``: after the proximal points too). ``start``:
    an earlier cut's ``g = v − y``, tried first, with ``faces`` as for
    :func:`box_dual_cut` (:func:`_solve_box`)."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    y, k = bound.y.astype(np.float64), bound.k
    c = 1.0 - y
    augmented = best_scores + c
    centre = float(np.partition(augmented, len(augmented) - k)[len(augmented) - k])
    # the scale of the scores themselves (the augmented ones are 1 apart by class)
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0))
    fixed = objective.derived("relevant rows' sum", lambda: np.asarray(Z.T @ y).ravel())
    problem = _BoxProblem(Z, c, fixed, k, objective.C, True, faces=faces,
                          squares=None if _factored(Z) else _squares(objective))
    return _solve_box(problem, augmented, centre, tie, tol,
                      lambda v: _struct_cut(objective, v), proximal,
                      None if start is None else start + y)


def _struct_cut(objective: RankingObjective, v: np.ndarray) -> DualCut:
    """prec@k-struct's cut ``L(s) >= (1 − y)·v + (v − y)·s`` of ``v`` moved onto
    ``{0 <= v <= 1, Σv = k}``, with its weights."""
    bound = objective.parts[0].bound
    y = bound.y.astype(np.float64)
    v = _onto_box_sum(v, bound.k, equality=True)
    return dual_cut(objective, v - y, float((1.0 - y) @ v))


def pap_avg_dual_cut(objective: RankingObjective, best_scores: np.ndarray, tol: float,
                     proximal: bool = True, start: np.ndarray | None = None,
                     faces: dict | None = None) -> DualCut | None:
    """For pAp@k-avg, ``(1/k) Σ_{top k} (1 + s⁻ − mean(s⁺))₊`` (Hiranandani et al. 2020 eq.
    (10)), the maximum of ``(1/k) v·(1 + s⁻ − mean(s⁺))`` over ``{v ∈ [0, 1]^{n₋} : Σv <= k}``:
    a box with a cap on its sum, over the irrelevant items' rows shifted by the relevant
    items' mean row (``w = −(C/k)·Σ_j v_j (z_j − z̄⁺)``), solved as the hinge part's is
    (``θ = 0`` while ``Σv <= k``, else above 0), from ``best_scores``. Its cut is
    ``L(s) >= Σv/k + g·s`` with ``g = v/k`` on the irrelevant items and ``−Σv/(k·n₊)`` on
    each relevant one, valid for every such ``v``; with its weights, or ``None`` if the solve
    fails (``proximal``: after the proximal points too). ``start``: an earlier cut's ``g``,
    tried first (:func:`_solve_box`)."""
    Z = objective.Z
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    bound = objective.parts[0].bound
    pos, neg, k = bound.pos, bound.neg, bound.k

    def shifted() -> Any:
        mean = np.asarray(Z[pos].mean(axis=0)).ravel()
        return _ShiftedRows(Z[neg], mean, 1.0 / k) if sp.issparse(Z) else (Z[neg] - mean) / k

    rows = objective.derived("irrelevant rows shifted by the relevant mean, over k", shifted)
    squares = None if _factored(rows) else objective.derived(
        "irrelevant rows shifted by the relevant mean, over k: squared norms",
        lambda: rows.squared_norms(_squares(objective, neg)))
    problem = _BoxProblem(rows, np.full(len(neg), 1.0 / k), np.zeros(Z.shape[1]), k,
                          objective.C, False, at_most=True, faces=faces, squares=squares)
    augmented = (1.0 + best_scores[neg] - best_scores[pos].mean()) / k
    centre = max(0.0, float(np.partition(augmented, len(neg) - k)[len(neg) - k]))
    tie = TIE_SHARE * float(np.max(np.abs(best_scores), initial=0.0)) / k
    return _solve_box(problem, augmented, centre, tie, tol,
                      lambda v: _pap_avg_cut(objective, v), proximal,
                      None if start is None else k * start[neg])


def _pap_avg_cut(objective: RankingObjective, v: np.ndarray) -> DualCut:
    """pAp@k-avg's cut of ``v`` (over the irrelevant items) moved onto ``{0 <= v <= 1,
    Σv <= k}``: ``g = v/k`` on the irrelevant items, ``−Σv/(k·n₊)`` on each relevant one and
    the intercept ``Σv/k``, with its weights."""
    bound = objective.parts[0].bound
    v = _onto_box_cap(v, bound.k)
    total = _exact_sum(v)
    g = np.zeros(bound.n)
    g[bound.neg], g[bound.pos] = v / bound.k, -total / (bound.k * bound.n_pos)
    return dual_cut(objective, g, total / bound.k)


def cut_near(objective: RankingObjective, g: np.ndarray) -> DualCut | None:
    """The cut of the point of prec@k-struct's or pAp@k-avg's polytope read off a score
    vector ``g`` near one of its points (``g = v − y``; ``v/k`` on the irrelevant items),
    such as an interior point's multipliers of the scores (:mod:`.direct_program`), moved
    onto the polytope exactly up to rounding: valid whatever ``g``; ``None`` for another
    objective (another dual form, or several lists)."""
    form = objective.surrogate.dual_form
    if not objective.one_list or form not in ("box-struct", "box-pap"):
        return None
    bound = objective.parts[0].bound
    if form == "box-struct":
        return _struct_cut(objective, g + bound.y)
    return _pap_avg_cut(objective, bound.k * g[bound.neg])


def _onto_box_cap(v: np.ndarray, k: int) -> np.ndarray:
    """``v`` clipped to ``[0, 1]`` and, where its sum comes within a margin far above the
    rounding of a sum of ``k``, scaled below ``k`` by that margin: a point with ``Σv <= k``,
    so that its cut is valid. Sums are taken exactly (``math.fsum``)."""
    v = np.clip(v, 0.0, 1.0)
    total, cap = _exact_sum(v), k - 1e-12 * len(v)
    return v * (cap / total) if total > cap else v

"""A Newton-type solve of the max and avg surrogates' dual over the items, for the
cutting plane's tail.

The max and avg surrogates of Kar et al. 2015 eqs. (6) and (7) are the value of a
*selection LP* (:func:`cvxtop.surrogates._prec_dcp.selection_lp_dual`): with ``u`` on the
irrelevant items, ``v`` on the relevant ones, ``J = min(k, n₋)`` and a concave cap
``z(t) = min_l (a_l t + b_l)`` (``z <= 1`` for max; for avg the interpolation of
``φ(j) = j/(n₊ − k + j)`` at ``j = 0..J``),

    L(s) = max (s⁻ + 1)·u − s⁺·v   over  P = {0 <= u <= 1, 0 <= v <= z, Σu = Σv = t,
                                              0 <= t <= J, z <= a_l t + b_l}.

So ``½‖w‖² + C·L(Xw)`` has the dual ``max_{(u,v,t,z) ∈ P} C·Σu − ½‖w‖²`` with
``w = −C(X₋ᵀu − X₊ᵀv)``. Its optimality conditions say which items sit at a bound, which
are tied at one of two thresholds (``1 + s_i = θ⁻`` for an irrelevant item strictly
between 0 and 1, ``−s_i = θ⁺`` for a relevant one strictly between 0 and ``z``) and on which
piece of the cap, or at which of its breakpoints, ``t`` lies; given that guess they are one
linear system in the tied items' weights, the thresholds, ``t`` and ``z``. The primal-dual
active-set method (Hintermüller, Ito and Kunisch 2002) solves it and moves the items that
violate the guess, until none does.

On its own that diverges here: about as many items are tied at the optimum as ``X`` has
columns, so the system is singular or nearly so. Each solve is therefore of the proximal
problem ``max D(x) − (ρ/2)‖x − x̄‖²`` (``x = (u, v, z)``; Rockafellar 1976), strongly
concave, whose answer becomes the next centre ``x̄`` while ``ρ`` shrinks (and grows again
after a failed solve). On sparse features with many tied items the system's tied block,
``−(C·D B Bᵀ D + (ρ/C)·I)``, is solved by conjugate gradients on the tied rows ``B``
(:mod:`.ridge_cg`) and bordered by a Schur system of the other four unknowns. At most
:data:`MAX_MOVES` (a quarter of the features) items enter the tied sets a step, and a
guess with more than :data:`MAX_TIED` tied items is given up.

The answer is a point of ``P`` (clipped and rescaled onto it exactly, up to rounding): its
score vector ``g = (u, −v)`` gives the cut ``L(s) >= g·s + Σu``, valid everywhere, which
the cutting plane adds to its master; the certificate stays the master's. On
``make_ranking_data(10,000, d)`` 50 rounds and this solve certify where the rounds alone
need 663 to 3,454 (``benchmarks/exact_scaling.py``); on 100,000 × 50 (avg) the proximal
problems tie too many items and the solve gives up, and the rounds go on (measured: docs/solvers.md, "Measurements behind the constants").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sl
import scipy.sparse as sp

from ..surrogates.top_indices import top_indices
from . import ridge_cg
from .gaps import half_square, relative_gap
from .objective import RankingObjective
from .parallel_products import ProductThreads

if TYPE_CHECKING:
    from ..surrogates.prec import SelectionSurrogate

__all__ = ["SelectionDual", "DualCut", "cut_near", "dual_cut", "most_violating",
           "selection_dual_cut"]

#: Passes of :meth:`SelectionDual.onto`, and the share of the cap its items are clipped
#: below. On spambase's raw features an interior point's multipliers put 1.9e-12 too much
#: weight on 1,104 relevant items at a cap of 0.02; clipped to the cap itself, each pass
#: took 2.3% off that excess, and 28 passes reached :meth:`~SelectionDual.feasible`'s
#: 1e-12; clipped 1e-9 below it, one pass does.
ONTO_PASSES, ONTO_MARGIN = 8, 1e-9
#: Items that may enter the tied sets in one step, as a share of the features (at least 20).
MAX_MOVES = 0.25
#: Tied items beyond which a guess is given up: this many times the features, plus 100. On
#: many items (10⁵ × 50) the proximal problems tie far more items than the optimum does,
#: and a solve that would need them is given up early instead of paying for large systems.
MAX_TIED = 4
#: On sparse features, tied items from which a system is solved by conjugate gradients on
#: the tied rows instead of a dense Gram matrix (5,000 of them would take 200 MB a matrix).
ITERATIVE_FROM = 1000
#: Tied items up to which a system the conjugate gradients did not solve is solved densely.
MAX_DENSE_SPARSE = 5000
#: The conjugate gradients' first relative residual and their iterations. Their answer is
#: used if its residual is within ``CG_ACCEPT``, or ten times the residual asked for.
CG_RTOL, CG_ITERATIONS, CG_ACCEPT = 1e-7, 300, 1e-6
#: A proximal answer whose gap fell by less than ``CG_STALL`` from the last one's is held up
#: by the gradients' residual, not by the proximal term (large C: on the 50,000 × 50,000
#: set at C = 100 the gap stayed near 7e-5 at a residual of 1e-7): the residual then
#: tightens by ``CG_TIGHTEN``, down to ``CG_RTOL_FLOOR``.
CG_STALL, CG_TIGHTEN, CG_RTOL_FLOOR = 0.5, 0.01, 1e-13
#: Proximal steps, active-set steps within each, and active-set steps in all (each is a
#: dense solve in the tied items, so this bounds the cost of a solve that does not succeed);
#: a solve also ends after this many failed proximal steps in a row.
OUTER_STEPS, INNER_STEPS, ALL_STEPS, FAILURES = 50, 30, 300, 3
#: Features below which the dual solve is not tried: the rounds certify such problems
#: quickly (the optimum's face has at most about d vertices), while data with many equal
#: rows tie more items than a solve takes (MAGIC, d = 10: the solve failed and cost more
#: than the 17 rounds it would have saved).
MIN_FEATURES = 32
#: Tied items from which a system is solved by the Cholesky factor of its tied block.
CHOLESKY_FROM = 500
#: The first proximal weight, relative to the mean squared norm of the rows times C², and
#: its factor after a successful step.
RHO_START, RHO_DECAY = 0.1, 0.3
#: The first proximal weight on sparse features, where rows overlap in few features and
#: the proximal problems stay well conditioned at smaller weights: on the 50,000 × 50,000
#: set at C = 1 it took prec@k-max's solve from 25 active-set steps to 15
#: (measured: docs/solvers.md, "Measurements behind the constants").
RHO_START_SPARSE = 0.001
#: The first proximal weight of a solve started from an earlier solve's point (a path over
#: C), relative to the usual first weight.
RHO_WARM = 0.01
#: An active-set step that moves more than this many times the items of the first step
#: (plus 10), and more than one kind of move's cap, gives the guess up: the steps of a guess
#: that converges move fewer items as they go, while one that diverges moves more and more,
#: up to the caps, for all its steps. On ``make_ranking_data(10⁴, d)`` and spambase at C = 0.1,
#: 1 and 10 this made four solves that failed within :data:`ALL_STEPS` certify
#: (measured: docs/solvers.md, "Measurements behind the constants").
DIVERGING = 2


def _breakpoints(n_pieces: int, J: int) -> np.ndarray:
    """Where the cap's pieces meet, from ``t = 0`` to ``t = J``: the integers for avg (its
    ``J`` pieces interpolate φ there), ``[0, J]`` for max's single piece ``z <= 1``."""
    return np.arange(J + 1, dtype=np.float64) if n_pieces == J else np.array([0.0, J])


def _tie_next_to_threshold(upper: np.ndarray, tied: np.ndarray, at_upper: np.ndarray,
                           at_zero: np.ndarray, left: np.ndarray | None = None) -> None:
    """If no item of a class is tied, tie (in place) the one at the upper bound and the one
    at zero whose reduced gradients are nearest to changing sign, but for the items that
    have just ``left`` the tied set where there are others: their reduced gradients were
    computed tied, so they are the nearest, and tying them again repeats the step."""
    if tied.any():
        return
    fresh = np.ones(len(tied), bool) if left is None else ~left
    ones, zeros = np.flatnonzero(upper & fresh), np.flatnonzero(~upper & fresh)
    if not len(ones):
        ones = np.flatnonzero(upper)
    if not len(zeros):
        zeros = np.flatnonzero(~upper)
    if len(ones):
        i = ones[np.argmin(at_upper[ones])]
        upper[i], tied[i] = False, True
    if len(zeros):
        tied[zeros[np.argmax(at_zero[zeros])]] = True


def _dense(product) -> np.ndarray:
    """A product of rows as a dense array (products of sparse rows come back sparse)."""
    return product.toarray() if sp.issparse(product) else np.asarray(product)


def _bordered_solve(K: np.ndarray, rhs: np.ndarray, m: int) -> np.ndarray:
    """``K⁻¹ rhs`` for a system whose leading ``m × m`` block is symmetric negative
    definite (the tied items' block with the proximal ridge): a Cholesky factorization of
    it, half the work of ``K``'s LU, and the small Schur system of the other unknowns; the
    LU of ``K`` for small blocks (below :data:`CHOLESKY_FROM` items, where the extra calls
    cost more than they save (measured: docs/solvers.md, "Measurements behind the constants")) or a block that is not definite (no
    ridge)."""
    if m >= CHOLESKY_FROM:
        try:
            factor = sl.cho_factor(-K[:m, :m], overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            return np.linalg.solve(K, rhs)
        border = -sl.cho_solve(factor, K[:m, m:], check_finite=False)
        main = -sl.cho_solve(factor, rhs[:m], check_finite=False)
        schur = K[m:, m:] - K[m:, :m] @ border
        tail = np.linalg.solve(schur, rhs[m:] - K[m:, :m] @ main)
        return np.concatenate([main - border @ tail, tail])
    return np.linalg.solve(K, rhs)


@dataclass(frozen=True)
class DualCut:
    """The cut ``L(s) >= intercept + g·s`` of a dual point (``g = (u, −v)`` on the items),
    with ``h = Xᵀg``, the point's weights ``w = −C·h``, their scores ``X w``, the loss and a
    score subgradient there, and the objective ``value`` at ``w``."""

    g: np.ndarray
    intercept: float
    h: np.ndarray
    weights: np.ndarray
    scores: np.ndarray
    loss: float
    subgradient: np.ndarray
    value: float

    def dual_value(self, C: float) -> float:
        """The dual objective at this point, ``C·intercept − ½‖w‖²``: a lower bound of the
        optimum of ``½‖w‖² + C·L``."""
        return C * self.intercept - 0.5 * float(self.weights @ self.weights)

    def gap(self, C: float) -> float:
        """The gap between the objective at the weights and the dual value, relative to the
        objective (:mod:`.gaps`)."""
        return relative_gap(self.value, self.dual_value(C), C, half_square(self.weights))


def most_violating(mask: np.ndarray, violation: np.ndarray, limit: int) -> np.ndarray:
    """``mask`` reduced to its ``limit`` items of largest ``violation``, if it has more, equal
    violations at the cut taken by the smallest index (the same on every CPU: at the zero
    model every item is tied)."""
    index = np.flatnonzero(mask)
    if len(index) <= limit:
        return mask
    kept = np.zeros_like(mask)
    kept[index[top_indices(violation[index], limit)]] = True
    return kept


def dual_cut(objective: RankingObjective, g: np.ndarray, intercept: float) -> DualCut:
    """The cut ``L(s) >= intercept + g·s`` of a dual point, its weights ``w = −C·Zᵀg`` and
    the objective there."""
    h = np.asarray(objective.Z.T @ g).ravel()
    w = -objective.C * h
    scores = np.asarray(objective.Z @ w).ravel()
    loss, subgradient = objective.loss_and_score_gradient(scores)
    return DualCut(g, intercept, h, w, scores, loss, subgradient,
                   0.5 * float(w @ w) + objective.C * loss)


@dataclass
class _Guess:
    """Which items are at a bound or tied, and where ``t`` lies: ``("piece", l)`` strictly
    between the cap's breakpoints ``l`` and ``l + 1``, ``("kink", i)`` at breakpoint ``i``
    (the breakpoints are ``0..J`` for avg, ``0`` and ``J`` for max)."""

    at_one: np.ndarray      # irrelevant items with u = 1
    tied_neg: np.ndarray    # irrelevant items strictly between 0 and 1
    at_cap: np.ndarray      # relevant items with v = z
    tied_pos: np.ndarray    # relevant items strictly between 0 and z
    mode: tuple[str, int]

    def copy(self) -> "_Guess":
        return _Guess(self.at_one.copy(), self.tied_neg.copy(), self.at_cap.copy(),
                      self.tied_pos.copy(), self.mode)


@dataclass
class _Point:
    """A solution of one guess's linear system."""

    u_tied: np.ndarray
    v_tied: np.ndarray
    theta_neg: float
    theta_pos: float
    t: float
    z: float
    w: np.ndarray
    inexact: bool = False  # solved to a residual above the solve's own (a step's guess)


class SelectionDual:
    """The item-level dual of ``½‖w‖² + C·L(Xw)`` for ``surrogate`` (prec@k-avg or -max)
    on one list (module docstring). ``X`` dense, or CSR (then its tied rows' products are
    sparse and their systems dense)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, k: int, C: float,
                 surrogate: SelectionSurrogate, threads: ProductThreads | None = None
                 ) -> None:
        self.neg, self.pos = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
        self.X = X  # no copy: the classes are index sets
        self.threads = threads  # for the conjugate gradients' products
        self.C, self.k = C, k
        self.J = J = min(k, len(self.neg))
        # the labeling of j irrelevant items weights the m_j lowest relevant ones by w_j
        self.weights_j, self.widths = surrogate.term_weights(len(self.pos), k, J)
        self.slopes, self.intercepts = surrogate.cap_pieces(len(self.pos), k, J)
        self.breaks = _breakpoints(len(self.slopes), J)
        d = X.shape[1]
        self.max_moves = max(20, int(MAX_MOVES * d))
        self.max_tied = MAX_TIED * d + 100
        squares = X.multiply(X).sum() if sp.issparse(X) else np.einsum("ij,ij->", X, X)
        self.row_scale = C * C * float(squares) / X.shape[0]
        self.steps = 0  # active-set steps of the current solve
        self._sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # by class: its last sum
        # the Gram matrix of the last step's tied rows, by item: a step changes at most
        # max_moves of them, so the next one computes the products of its new rows only
        self._gram_items = np.zeros(0, dtype=np.int64)
        self._gram = np.zeros((0, 0))
        self._gram_slot = np.full(len(y), -1, dtype=np.int64)
        # the conjugate gradients' last columns, by item (sparse rows, many tied items)
        self._cg_items, self._cg_solution = np.zeros(0, dtype=np.int64), np.zeros((0, 4))
        self.cg_rtol = CG_RTOL

    # ---- the dual --------------------------------------------------------------------
    def _scores_vector(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The score-space vector ``g`` with ``u`` on the irrelevant items and ``−v`` on
        the relevant ones (``X.T @ g`` is then ``X₋ᵀu − X₊ᵀv``)."""
        g = np.zeros(len(self.neg) + len(self.pos))
        g[self.neg], g[self.pos] = u, -np.asarray(v, dtype=np.float64)
        return g

    def _row_sum(self, index: np.ndarray) -> np.ndarray:
        """The sum of ``X``'s rows at ``index``: from a copy of those rows when they are
        few, else by one product with ``X`` (no copy of a large share of it)."""
        if 8 * len(index) < self.X.shape[0]:
            return np.asarray(self.X[index].sum(axis=0)).ravel()
        indicator = np.zeros(self.X.shape[0])
        indicator[index] = 1.0
        return self.X.T @ indicator

    def _class_sum(self, kind: str, mask: np.ndarray) -> np.ndarray:
        """The sum of the rows of the class ``kind`` (``"neg"`` or ``"pos"``) at ``mask``,
        updated from that class's last sum by the rows that joined or left it when they are
        few (a step moves at most ``max_moves`` items of each kind)."""
        items = self.neg if kind == "neg" else self.pos
        last = self._sums.get(kind)
        if last is not None:
            changed = (mask != last[0]).nonzero()[0]
            if 8 * len(changed) < len(items):
                joined, left = changed[mask[changed]], changed[~mask[changed]]
                total = last[1] + self._row_sum(items[joined]) - self._row_sum(items[left])
                self._sums[kind] = (mask.copy(), total)
                return total
        total = self._row_sum(items[mask])
        self._sums[kind] = (mask.copy(), total)
        return total

    def weights(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``w = −C(X₋ᵀu − X₊ᵀv)``."""
        return -self.C * (self.X.T @ self._scores_vector(u, v))

    def _cut(self, u: np.ndarray, v: np.ndarray, objective: RankingObjective) -> DualCut:
        """The cut of the point ``(u, v)`` of ``P`` and the objective at its weights."""
        return dual_cut(objective, self._scores_vector(u, v), float(u.sum()))

    def value(self, u: np.ndarray, v: np.ndarray) -> float:
        """The dual objective ``C·Σu − ½‖w‖²``."""
        w = self.weights(u, v)
        return self.C * float(u.sum()) - 0.5 * float(w @ w)

    def cap(self, t: float) -> float:
        """``z(t)``, the cap at ``t``."""
        return float(np.min(self.slopes * t + self.intercepts)) if self.J else 0.0

    # ---- one guess ------------------------------------------------------------------
    def _solve(self, guess: _Guess, rho: float, centre: tuple[np.ndarray, np.ndarray, float],
               cg_rtol: float) -> _Point:
        """The linear system of ``guess`` for the proximal problem with weight ``rho``
        around ``centre = (ū, v̄, z̄)``: rows in score units (divided by C); ``cg_rtol`` is
        the conjugate gradients' relative residual where they solve it."""
        C = self.C
        F, G = np.flatnonzero(guess.tied_neg), np.flatnonzero(guess.tied_pos)
        nf, ng, n_cap = len(F), len(G), int(guess.at_cap.sum())
        u_bar, v_bar, z_bar = centre
        w0 = -C * self._class_sum("neg", guess.at_one)
        r = self._class_sum("pos", guess.at_cap)
        if sp.issparse(self.X) and nf + ng >= ITERATIVE_FROM:
            try:
                return self._solve_iterative(guess, rho, centre, w0, r, F, G, cg_rtol)
            except np.linalg.LinAlgError:
                if nf + ng > MAX_DENSE_SPARSE:
                    raise
        X_tied_neg, X_tied_pos = self.X[self.neg[F]], self.X[self.pos[G]]
        B = sp.vstack([X_tied_neg, X_tied_pos, sp.csr_matrix(r[None, :])], format="csr") \
            if sp.issparse(self.X) else np.vstack([X_tied_neg, X_tied_pos, r[None, :]])
        M, Bw0 = self._tied_gram(np.concatenate([self.neg[F], self.pos[G]]), B), B @ w0
        m = nf + ng + 4
        i_neg, i_pos, i_t, i_z = nf + ng, nf + ng + 1, nf + ng + 2, nf + ng + 3
        K, rhs = np.zeros((m, m)), np.zeros(m)
        ds_du, ds_dv, ds_dz = -C * M[:, :nf], C * M[:, nf:nf + ng], C * M[:, -1]
        rr = rho / C
        tied = np.arange(nf)
        # tied irrelevant items: 1 + s_i − rr(u_i − ū_i) = θ⁻
        K[:nf, :nf], K[:nf, nf:nf + ng], K[:nf, i_z] = ds_du[:nf], ds_dv[:nf], ds_dz[:nf]
        K[tied, tied] -= rr
        K[:nf, i_neg] = -1.0
        rhs[:nf] = -1.0 - Bw0[:nf] - rr * u_bar[F]
        # tied relevant items: −s_i − rr(v_i − v̄_i) = θ⁺
        rows = slice(nf, nf + ng)
        K[rows, :nf], K[rows, nf:nf + ng], K[rows, i_z] = -ds_du[rows], -ds_dv[rows], -ds_dz[rows]
        K[nf + np.arange(ng), nf + np.arange(ng)] -= rr
        K[rows, i_pos] = -1.0
        rhs[rows] = Bw0[rows] - rr * v_bar[G]
        # Σu = t and Σv = t
        K[i_neg, :nf], K[i_neg, i_t], rhs[i_neg] = 1.0, -1.0, -float(guess.at_one.sum())
        K[i_pos, nf:nf + ng], K[i_pos, i_z], K[i_pos, i_t] = 1.0, n_cap, -1.0
        kind, l = guess.mode
        if kind == "piece":
            a = self.slopes[l]
            # z on the piece, and t stationary: θ⁻ + θ⁺ + a·π/C = 0 with π/C the capped
            # items' multipliers Σ(−s_i − θ⁺ − rr(z − v̄_i)) less the prox on z, rr(z − z̄)
            K[i_t, i_z], K[i_t, i_t], rhs[i_t] = 1.0, -a, self.intercepts[l]
            K[i_z, i_neg], K[i_z, i_pos] = 1.0, 1.0 - a * n_cap
            K[i_z, :nf] -= a * ds_du[-1]
            K[i_z, nf:nf + ng] -= a * ds_dv[-1]
            K[i_z, i_z] -= a * (ds_dz[-1] + rr * (n_cap + 1))
            rhs[i_z] = a * Bw0[-1] - a * rr * (float(v_bar[guess.at_cap].sum()) + z_bar)
        else:
            K[i_t, i_t], rhs[i_t] = 1.0, self.breaks[l]
            K[i_z, i_z], rhs[i_z] = 1.0, self.cap(self.breaks[l])
        x = _bordered_solve(K, rhs, nf + ng)
        u_tied, v_tied = x[:nf], x[nf:nf + ng]
        z = float(x[i_z])
        w = w0 - C * (X_tied_neg.T @ u_tied) + C * (X_tied_pos.T @ v_tied) + C * z * r
        return _Point(u_tied, v_tied, float(x[i_neg]), float(x[i_pos]), float(x[i_t]), z, w)

    def _solve_iterative(self, guess: _Guess, rho: float,
                         centre: tuple[np.ndarray, np.ndarray, float], w0: np.ndarray,
                         r: np.ndarray, F: np.ndarray, G: np.ndarray, rtol: float
                         ) -> _Point:
        """The system of :meth:`_solve` on sparse rows with many tied items: its tied block
        is ``−P`` with ``P = C·D B Bᵀ D + (ρ/C)·I`` (``B`` the tied rows, ``D`` the signs
        ``+1`` irrelevant, ``−1`` relevant), so it is solved through the Schur complement of
        that block, whose four columns come from conjugate gradients (:mod:`.ridge_cg`),
        started from the last step's columns, to the relative residual ``rtol``. The
        bordering equations (the sums, ``t`` and ``z``) hold exactly whatever the residual
        of the gradients; that residual only makes the thresholds inexact, which the active
        set and the final gap check see."""
        C, rr = self.C, rho / self.C
        u_bar, v_bar, z_bar = centre
        nf, ng, n_cap = len(F), len(G), int(guess.at_cap.sum())
        items = np.concatenate([self.neg[F], self.pos[G]])
        B = self.X[items]
        signs = np.r_[np.ones(nf), -np.ones(ng)]
        Bw0, Br = B @ w0, B @ r
        # columns: θ⁻, θ⁺ and z of the tied rows' border (t has none), and the right side
        R = np.zeros((nf + ng, 4))
        R[:nf, 0], R[nf:, 1], R[:, 2] = -1.0, -1.0, C * signs * Br
        R[:nf, 3] = -1.0 - Bw0[:nf] - rr * u_bar[F]
        R[nf:, 3] = Bw0[nf:] - rr * v_bar[G]
        Y, residual = ridge_cg.solve(ridge_cg.RidgedGram(B, signs, C, rr, self.threads), R,
                                     self._cg_start(items), rtol, CG_ITERATIONS)
        if residual > max(CG_ACCEPT, 10.0 * rtol):
            raise np.linalg.LinAlgError(f"conjugate gradients reached {residual:.1e}")
        self._cg_items, self._cg_solution = items, Y
        # the bordering rows: F·x_tied + H·x_border = b, with x_tied = Y_E x_border − Y_rhs
        F_rows, H, b = np.zeros((4, nf + ng)), np.zeros((4, 4)), np.zeros(4)
        F_rows[0, :nf], H[0, 2], b[0] = 1.0, -1.0, -float(guess.at_one.sum())
        F_rows[1, nf:], H[1, 2], H[1, 3] = 1.0, -1.0, n_cap
        kind, l = guess.mode
        if kind == "piece":
            a = self.slopes[l]
            H[2, 3], H[2, 2], b[2] = 1.0, -a, self.intercepts[l]
            F_rows[3] = a * R[:, 2]
            H[3] = [1.0, 1.0 - a * n_cap, 0.0, -a * (C * float(r @ r) + rr * (n_cap + 1))]
            b[3] = a * float(r @ w0) - a * rr * (float(v_bar[guess.at_cap].sum()) + z_bar)
        else:
            H[2, 2], b[2] = 1.0, self.breaks[l]
            H[3, 3], b[3] = 1.0, self.cap(self.breaks[l])
        Y_border = np.zeros((nf + ng, 4))
        Y_border[:, [0, 1, 3]] = Y[:, :3]
        border = np.linalg.solve(H + F_rows @ Y_border, b + F_rows @ Y[:, 3])
        x = Y_border @ border - Y[:, 3]
        u_tied, v_tied, z = x[:nf], x[nf:], float(border[3])
        w = w0 - C * (B.T @ (signs * x)) + C * z * r
        return _Point(u_tied, v_tied, float(border[0]), float(border[1]), float(border[2]),
                      z, w, inexact=rtol > self.cg_rtol)

    def _cg_start(self, items: np.ndarray) -> np.ndarray:
        """The last step's columns of the items tied again, zero for the new ones."""
        start = np.zeros((len(items), 4))
        if len(self._cg_items):
            slot = np.full(self.X.shape[0], -1, dtype=np.int64)
            slot[self._cg_items] = np.arange(len(self._cg_items))
            kept = slot[items]
            start[kept >= 0] = self._cg_solution[kept[kept >= 0]]
        return start

    def _tied_gram(self, items: np.ndarray, B: np.ndarray) -> np.ndarray:
        """``B Bᵀ`` for ``B`` = the rows of ``items`` and one more row (the capped relevant
        items' sum): the products of rows that were tied at the last step are taken from
        its Gram matrix, and only the new rows are multiplied (a step moves at most
        ``max_moves`` items: at 10⁴ × 1,000, 13% of the full products' work
        (measured: docs/solvers.md, "Measurements behind the constants"))."""
        m = len(items)
        slot = self._gram_slot[items]  # each item's row in the last Gram matrix, or -1
        kept, new = np.flatnonzero(slot >= 0), np.flatnonzero(slot < 0)
        if 2 * len(new) >= m:  # mostly new rows: the full product is cheaper
            M = _dense(B @ B.T)
        else:
            # assembled with the kept rows first (contiguous blocks, no scattered writes),
            # then put in the rows' order
            order = np.concatenate([kept, new, [m]])  # the new rows and the sum row last
            nk = len(kept)
            P = np.empty((m + 1, m + 1))
            P[:nk, :nk] = self._gram.take(slot[kept], 0).take(slot[kept], 1)
            products = _dense(B[order[nk:]] @ B.T).take(order, 1)
            P[nk:, :] = products
            P[:nk, nk:] = products[:, :nk].T
            back = np.empty(m + 1, dtype=np.int64)
            back[order] = np.arange(m + 1)
            M = P.take(back, 0).take(back, 1)
        self._gram_slot[self._gram_items] = -1
        self._gram_items, self._gram = items, M[:m, :m]
        self._gram_slot[items] = np.arange(m)
        return M

    def _most(self, mask: np.ndarray, violation: np.ndarray) -> np.ndarray:
        """The at most ``max_moves`` most violating items of ``mask``."""
        return most_violating(mask, violation, self.max_moves)

    def _active_set(self, guess: _Guess, rho: float,
                    centre: tuple[np.ndarray, np.ndarray, float]
                    ) -> tuple[_Guess, _Point] | None:
        """Primal-dual active-set steps on the proximal problem from ``guess``; the guess
        that no item violates and its point, or ``None``. Systems solved by conjugate
        gradients are solved to a loose residual first (:class:`.ridge_cg.StepResidual`)."""
        rr = rho / self.C
        u_bar, v_bar, _ = centre
        first = None  # the items the first step moved
        residual = ridge_cg.StepResidual(self.cg_rtol)
        for _ in range(INNER_STEPS):
            self.steps += 1
            if self.steps > ALL_STEPS or \
                    guess.tied_neg.sum() + guess.tied_pos.sum() > self.max_tied:
                return None
            try:
                p = self._solve(guess, rho, centre, residual.rtol)
            except np.linalg.LinAlgError:
                return None
            s = self.X @ p.w
            s_neg, s_pos = s[self.neg], s[self.pos]
            # reduced gradients (score units) at the bounds: u = 1 needs >= 0, u = 0 <= 0,
            # v = z needs >= 0, v = 0 <= 0
            at_one = 1.0 + s_neg - rr * (1.0 - u_bar) - p.theta_neg
            at_zero = 1.0 + s_neg + rr * u_bar - p.theta_neg
            at_cap = -s_pos - rr * (p.z - v_bar) - p.theta_pos
            at_zero_pos = -s_pos + rr * v_bar - p.theta_pos
            slack = 1e-11 * max(1.0, abs(p.theta_neg), abs(p.theta_pos))
            nxt = guess.copy()
            F, G = np.flatnonzero(guess.tied_neg), np.flatnonzero(guess.tied_pos)
            up, down = F[p.u_tied > 1 + 1e-12], F[p.u_tied < -1e-12]
            nxt.tied_neg[up], nxt.at_one[up], nxt.tied_neg[down] = False, True, False
            up_v, down_v = G[p.v_tied > p.z + 1e-12], G[p.v_tied < -1e-12]
            nxt.tied_pos[up_v], nxt.at_cap[up_v], nxt.tied_pos[down_v] = False, True, False
            leave_one = self._most(guess.at_one & (at_one < -slack), -at_one)
            leave_zero = self._most(~guess.at_one & ~guess.tied_neg & (at_zero > slack), at_zero)
            nxt.at_one[leave_one], nxt.tied_neg[leave_one | leave_zero] = False, True
            leave_cap = self._most(guess.at_cap & (at_cap < -slack), -at_cap)
            leave_zero_pos = self._most(~guess.at_cap & ~guess.tied_pos
                                        & (at_zero_pos > slack), at_zero_pos)
            nxt.at_cap[leave_cap], nxt.tied_pos[leave_cap | leave_zero_pos] = False, True
            nxt.mode = self._next_mode(guess.mode, p, float(at_cap[guess.at_cap].sum()))
            self._keep_thresholds(nxt, at_one, at_zero, at_cap, at_zero_pos, guess)
            changed = (len(up) + len(down) + len(up_v) + len(down_v) + int(leave_one.sum())
                       + int(leave_zero.sum()) + int(leave_cap.sum())
                       + int(leave_zero_pos.sum()) + (nxt.mode != guess.mode))
            if not changed and not p.inexact:
                return guess, p
            # a new piece or kink of t moves the cap, and with it every capped item's weight
            residual.after(changed, settled=nxt.mode == guess.mode)
            if not changed:
                continue  # the guess is solved again before it is accepted
            first = changed if first is None else first
            if changed > max(DIVERGING * first + 10, self.max_moves):
                # the steps of a guess that converges move fewer items as they go; one that
                # diverges moves more and more, up to the caps of every kind of move
                return None
            guess = nxt
        return None

    def _next_mode(self, mode: tuple[str, int], p: _Point, pi: float) -> tuple[str, int]:
        """``t``'s next piece or kink: off the piece's ends, to the breakpoint nearest the
        system's ``t`` (the end it crossed, or one further on), or to the first piece where
        that breakpoint is 0 and the system's ``t`` above it (at ``t = 0`` no item is
        weighted, and from there a path's start on the sparse 50,000 × 50,000 set failed);
        at a kink, to the piece on the side the stationarity condition points to.

        Going to the end crossed alone moves ``t`` by one of avg's ``J`` pieces a step,
        while the items move by up to :data:`MAX_MOVES`: on spambase (``J = 453``) the
        first proximal problem walked from kink 67 to piece 72 and later ones diverged
        on the way; with the nearest breakpoint two solves that failed certify
        (measured: docs/solvers.md, "Measurements behind the constants")."""
        kind, l = mode
        if kind == "piece":
            if self.breaks[l] - 1e-12 <= p.t <= self.breaks[l + 1] + 1e-12:
                return mode
            t = min(max(p.t, 0.0), float(self.breaks[-1]))
            nearest = int(np.abs(self.breaks - t).argmin())
            # t = 0 is the zero dual point, where no item is weighted: a t above it goes to
            # the first piece instead
            return ("piece", 0) if nearest == 0 and p.t > 0 else ("kink", nearest)
        if pi < 0:  # capped items violate the guess: they move first
            return mode
        # t's derivative on the piece to either side is θ⁻ + θ⁺ + a·π (π the capped items'
        # multipliers; with none capped, π = 0 and the thresholds' sum alone decides)
        theta = p.theta_neg + p.theta_pos
        slack = 1e-12 * max(1.0, abs(p.theta_neg), abs(p.theta_pos))
        if l >= 1 and theta + self.slopes[l - 1] * pi < -slack:
            return ("piece", l - 1)
        if l < len(self.slopes) and theta + self.slopes[l] * pi > slack:
            return ("piece", l)
        return mode

    @staticmethod
    def _keep_thresholds(guess: _Guess, at_one: np.ndarray, at_zero: np.ndarray,
                         at_cap: np.ndarray, at_zero_pos: np.ndarray, last: _Guess) -> None:
        """A guess with no tied item of a class leaves its threshold undetermined: tie the
        two items next to it, other than those tied in the ``last`` guess."""
        _tie_next_to_threshold(guess.at_one, guess.tied_neg, at_one, at_zero, last.tied_neg)
        _tie_next_to_threshold(guess.at_cap, guess.tied_pos, at_cap, at_zero_pos,
                               last.tied_pos)

    # ---- the whole solve ------------------------------------------------------------
    def _start(self, w: np.ndarray) -> tuple[_Guess, tuple[np.ndarray, np.ndarray, float]]:
        """The guess of the best labeling at ``w`` (its ``j`` irrelevant items, as in
        Kar et al. 2015 Algorithm 4; ``t = j`` at a breakpoint or on the piece holding it),
        the items next to each threshold tied, and a feasible centre on it. ``j`` is at
        least 1: at a point of zero loss the labeling has none, and its centre would be
        the zero dual point, from which the steps give up at once (on
        ``make_ranking_data(10⁴, 1,000)``, prec@k-max's path down from C = 2,154, where the
        optimum has zero loss)."""
        s = self.X @ w
        s_neg, s_pos = s[self.neg] + 1.0, s[self.pos]
        # (ties by index: numpy's default sort orders them by the CPU's SIMD)
        order_neg = np.argsort(-s_neg, kind="stable")
        order_pos = np.argsort(s_pos, kind="stable")
        gain = np.r_[0.0, np.cumsum(s_neg[order_neg[:self.J]])]
        low = np.r_[0.0, np.cumsum(s_pos[order_pos])]
        j = max(int(np.argmax(gain - self.weights_j * low[self.widths])), 1)
        m = int(self.widths[j])
        at_break = np.flatnonzero(self.breaks == j)
        mode = ("kink", int(at_break[0])) if len(at_break) else \
            ("piece", int(np.searchsorted(self.breaks, j)) - 1)
        guess = _Guess(np.zeros(len(s_neg), bool), np.zeros(len(s_neg), bool),
                       np.zeros(len(s_pos), bool), np.zeros(len(s_pos), bool), mode)
        guess.at_one[order_neg[:max(j - 1, 0)]] = True
        guess.tied_neg[order_neg[max(j - 1, 0):j + 1]] = True
        guess.at_cap[order_pos[:max(m - 1, 0)]] = True
        guess.tied_pos[order_pos[max(m - 1, 0):m + 1]] = True
        z = self.cap(j)
        u = guess.at_one.astype(float)
        u[guess.tied_neg] = (j - guess.at_one.sum()) / guess.tied_neg.sum()
        v = guess.at_cap * z
        v[guess.tied_pos] = (j - guess.at_cap.sum() * z) / guess.tied_pos.sum()
        return guess, (np.clip(u, 0.0, 1.0), np.clip(v, 0.0, z), z)

    def _start_at(self, g: np.ndarray, w: np.ndarray
                  ) -> tuple[_Guess, tuple[np.ndarray, np.ndarray, float]] | None:
        """The guess of the point ``g = (u, −v)`` of ``P`` (its items at a bound or strictly
        between, ``t = Σu`` at a breakpoint or on the piece holding it) and the point as the
        centre. A class with no item strictly between (on the sparse 50,000 × 50,000 set
        every relevant item of prec@k-avg's optimum is at the cap) has the items next to
        its threshold at the scores of ``w`` tied (the one at its upper bound and the one at
        0 whose reduced gradients are nearest to changing sign), as a step's guess has;
        ``None`` if that leaves a class with no tied item (no threshold)."""
        u, v = np.asarray(g[self.neg], dtype=np.float64), -np.asarray(g[self.pos], np.float64)
        t = float(u.sum())
        z = self.cap(t)
        slack = 1e-12
        at_one, at_cap = u >= 1.0 - slack, v >= z - slack
        tied_neg, tied_pos = ~at_one & (u > slack), ~at_cap & (v > slack)
        if not tied_neg.any() or not tied_pos.any():
            # a reduced gradient is the score less its class's threshold (a constant here)
            s = np.asarray(self.X @ w).ravel()
            _tie_next_to_threshold(at_one, tied_neg, s[self.neg], s[self.neg])
            _tie_next_to_threshold(at_cap, tied_pos, -s[self.pos], -s[self.pos])
        if not tied_neg.any() or not tied_pos.any():
            return None
        at_break = np.flatnonzero(np.abs(self.breaks - t) <= 1e-9 * max(1.0, t))
        mode = ("kink", int(at_break[0])) if len(at_break) else \
            ("piece", int(np.clip(np.searchsorted(self.breaks, t) - 1, 0,
                                  len(self.breaks) - 2)))
        return _Guess(at_one, tied_neg, at_cap, tied_pos, mode), (u, v, z)

    def feasible(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(u, v)`` moved onto ``P`` exactly up to rounding (clipped to the bounds, the
        larger sum scaled down to the smaller), or ``None`` if that needs more than a
        rounding-sized move or the cap does not hold."""
        u, v = np.clip(u, 0.0, 1.0), np.clip(v, 0.0, None)
        su, sv = float(u.sum()), float(v.sum())
        if abs(su - sv) > 1e-9 * max(1.0, su):
            return None
        t = min(su, sv)
        if su > 0:
            u = u * (t / su)
        if sv > 0:
            v = v * (t / sv)
        if not 0.0 <= t <= self.J + 1e-12 or (len(v) and v.max() > self.cap(t) + 1e-12):
            return None
        return u, v

    def onto(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """A point of ``P`` near ``(u, v)`` however far it lies from ``P`` (an interior
        point's multipliers): clipped to the bounds, both sums scaled to the smaller (and to
        at most ``J``), and ``v`` clipped to the cap of that sum less :data:`ONTO_MARGIN`,
        until the cap holds, then checked by :meth:`feasible`; ``None`` if that fails.
        Clipping lowers the sum and so the cap: with ``m`` items at a cap of slope ``a``,
        clipping to the cap itself would leave ``m·a`` of the excess a pass, and the
        margin removes it at once where ``m·a < 1``."""
        u, v = np.clip(u, 0.0, 1.0), np.clip(v, 0.0, None)
        for _ in range(ONTO_PASSES):
            su, sv = float(u.sum()), float(v.sum())
            t = min(su, sv, float(self.J))
            if t <= 0.0:
                return None
            u, v = u * (t / su), v * (t / sv)
            z = self.cap(t)
            if not len(v) or v.max() <= z:
                break
            v = np.minimum(v, z * (1.0 - ONTO_MARGIN))
        return self.feasible(u, v)

    def solve(self, w_start: np.ndarray, objective: RankingObjective, tol: float,
              previous: np.ndarray | None = None) -> DualCut | None:
        """The cut of a point ``(u, v)`` of ``P`` whose dual value is within ``tol``
        (relative) of the objective at its weights, from the labeling at ``w_start``, or
        from ``previous`` (the score vector ``(u, −v)`` of a point of ``P``: ``P`` does not
        depend on ``C``, so a path's last point is a start near the next one, with a
        proximal weight :data:`RHO_WARM` times the first); ``None`` when the steps fail or
        do not get there."""
        rho = (RHO_START_SPARSE if sp.issparse(self.X) else RHO_START) * self.row_scale
        started = None if previous is None else self._start_at(previous, w_start)
        if started is None:
            guess, centre = self._start(w_start)
        else:
            (guess, centre), rho = started, rho * RHO_WARM
        self.steps, failures, last_gap = 0, 0, np.inf
        self.cg_rtol = CG_RTOL
        for _ in range(OUTER_STEPS):
            if self.steps >= ALL_STEPS or failures >= FAILURES:
                return None
            found = self._active_set(guess, rho, centre)
            if found is None:
                rho, failures = rho * 10.0, failures + 1
                continue
            failures = 0
            guess, p = found
            u = guess.at_one.astype(float)
            u[guess.tied_neg] = p.u_tied
            v = guess.at_cap * p.z
            v[guess.tied_pos] = p.v_tied
            point = self.feasible(u, v)
            if point is not None:
                cut = self._cut(*point, objective)
                gap = cut.gap(self.C)
                if gap <= tol:
                    return cut
                if gap > CG_STALL * last_gap:  # the gradients' residual holds the gap up
                    self.cg_rtol = max(self.cg_rtol * CG_TIGHTEN, CG_RTOL_FLOOR)
                last_gap = gap
            centre = (u, v, p.z)
            rho *= RHO_DECAY
        return None


def cut_near(objective: RankingObjective, g: np.ndarray) -> DualCut | None:
    """The cut of the point of ``P`` read off a score vector ``g = (u, −v)`` near one of its
    points, such as an interior point's multipliers of the scores
    (:mod:`.direct_program`), moved onto ``P`` (:meth:`SelectionDual.onto`): valid whatever
    ``g``; ``None`` for another surrogate, several lists, or where the move fails."""
    if objective.groups is not None or objective.surrogate.dual_form != "selection":
        return None
    Z = sp.csr_matrix(objective.Z) if sp.issparse(objective.Z) else np.asarray(objective.Z)
    dual = SelectionDual(Z, objective.y, objective.ks[0], objective.C, objective.surrogate)
    if dual.J == 0:
        return None
    g = np.asarray(g, dtype=np.float64)
    point = dual.onto(g[dual.neg], -g[dual.pos])
    return None if point is None else dual._cut(*point, objective)


def selection_dual_cut(objective: RankingObjective, w_start: np.ndarray, tol: float,
                       stats: dict[str, float] | None = None,
                       threads: ProductThreads | None = None,
                       previous: np.ndarray | None = None) -> DualCut | None:
    """For a surrogate that declares this dual (``dual_form = "selection"``: prec@k-avg and
    -max) on one list with at least :data:`MIN_FEATURES` features: a valid cut
    ``L(s) >= b + g·s`` whose dual point is within ``tol`` of optimal (module docstring),
    with the objective at its weights, or ``None`` (another surrogate, groups, few
    features, or the solve did not get there).

    On sparse features the tied rows' products are sparse; systems of fewer than
    :data:`ITERATIVE_FROM` tied items are dense, larger ones are solved by conjugate
    gradients on the tied rows (``threads``, when given, run their products). On the
    50,000 × 50,000 set at 0.1% density the optimum ties about 21,000 items: both
    surrogates are certified after 50 rounds at every C from 1e-4 to 1e4, where the rounds
    alone stopped at 2,000 with gaps of 1e-3 to 1e-2 at C = 1
    (measured: docs/solvers.md, "Measurements behind the constants").

    ``previous``, a dual point of an earlier solve of the same loss (another ``C``: a
    path), is the start when given (:meth:`SelectionDual.solve`).

    ``stats``, when given, has its ``"dual_steps"`` increased by the steps taken."""
    Z, surrogate = objective.Z, objective.surrogate
    if objective.groups is not None or surrogate.dual_form != "selection" \
            or Z.shape[1] < MIN_FEATURES:
        return None
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
    dual = SelectionDual(Z, objective.y, objective.ks[0], objective.C, objective.surrogate,
                         threads)
    if dual.J == 0:
        return None
    try:
        return dual.solve(np.asarray(w_start, dtype=np.float64), objective, tol, previous)
    finally:
        if stats is not None:
            stats["dual_steps"] = stats.get("dual_steps", 0) + dual.steps

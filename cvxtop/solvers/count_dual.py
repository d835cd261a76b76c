"""prec@k-svmperf's loss over a few counts of predicted relevant items, solved by an
interior point for the cutting plane's tail where the optimum mixes many labeling sizes.

SVMperf's loss (Joachims 2005; :mod:`cvxtop.surrogates.prec_svmperf`) is the largest of 0 and
``f(a, b) + T⁺_a(s) − Σs⁺ + T⁻_b(s)`` over the labelings predicting ``a`` relevant and
``b >= 1`` irrelevant items with ``a + b >= k``, where ``f(a, b) = k·b/(a + b)`` and ``T⁺_a``,
``T⁻_b`` are the sums of the ``a`` highest relevant and the ``b`` highest irrelevant scores.
:mod:`.size_dual` groups the labelings by their size ``a + b``; near the zero model that
grouping needs hundreds of sizes (on ``make_ranking_data(10⁴, 1,000)`` at C = 0.01 the
best labelings of the counts ``a = 0..4`` predict 3,396 to 3,922 irrelevant items, all
within 3e-4 of the loss). Grouping them by ``a`` instead needs a handful: for a fixed
``a``, ``f(a, ·)`` is concave, so the labelings of every ``b`` make one piece

    φ_a(s) = T⁺_a(s) − Σs⁺ + max {f̂_a(β) + u·s⁻ : u ∈ [0, 1]^{n₋}, Σu = β, β ∈ [b_a, n₋]},

with ``b_a = max(1, k − a)`` and ``f̂_a`` the piecewise-linear interpolation of ``f(a, ·)``
at the integers, equal to ``f(a, ·)`` there. A point ``u`` with a fractional sum
``β = b + θ`` is ``(1 − θ)`` times a point of the sum ``b`` plus ``θ`` times one of the sum
``b + 1``, so every point of a piece's polytope, and every convex combination of the
pieces' points with weights ``λ`` (``λ_0`` on the floor), is a combination of labelings'
points and gives a cut valid everywhere:

    L(s) >= Σ_a λ_a f̂_a(Σu_a⁻) + Σ_a λ_a ((u_a⁺ − 1)·s⁺ + u_a⁻·s⁻),   u_a⁺ ∈ [0, 1], Σu_a⁺ = a.

(``tests/test_count_dual.py`` checks it against the brute-force loss, ties included.)

This module minimizes ``½‖w‖² + C·t`` with ``t >= max(0, φ_a(Zw))`` over the counts ``a``
of the :data:`COUNTS` highest pieces at the best point, or over every count, which is the
whole loss, on a list with few relevant items (:data:`ALL_COUNTS`), in the linear
programming form of the sums (``T⁺_a(x) = min_ρ aρ + Σ(x_i − ρ)₊``, and for the irrelevant items
``min_σ ψ + Σ(x_i − σ)₊`` with ``ψ >= f(a, b) + bσ`` for every ``b``), by a primal-dual
interior point with a predictor-corrector step and a centrality corrector (Nocedal and
Wright 2006, ch. 14; Gondzio 1996). Each Newton system is reduced to one
dense system in ``w`` and three unknowns a piece: the items' unknowns are eliminated
(diagonal), the constraints ``t >= φ_a`` are a border of ``J`` rows (its ``J × J`` matrix
from the small system alone), and each solve is
refined once against the whole system. On lists with more items than features that
system is factored whole, and forming ``Zᵀ D Z`` (``n·d²``) is the cost of a step; on
lists with fewer items than features its ``w`` block is inverted in the items' space
(Woodbury: ``(I + ZᵀDZ)⁻¹ = I − ZᵀD^½ M⁻¹ D^½ Z`` with ``M = I + D^½ ZZᵀ D^½``), and a
step costs a factor of ``M``, of the items' order. The count ``a = n₊`` (every relevant
item predicted) is a piece without the relevant items' unknowns: its sum ``T⁺_{n₊} − Σs⁺``
is 0, where the linear programming form's threshold ``ρ`` would have a ray of optima.

The interior point's dual variables are the cut's ``λ_a``, ``λ_a u_a⁺`` and ``λ_a u_a⁻``;
moved onto the pieces' polytopes (exactly, up to rounding) they give the cut, whose
master value is a lower bound whatever the interior point's accuracy. The answer offered
to the cutting plane is that cut with the better of its own weights ``−C·Zᵀg`` and the
interior point's ``w``; the certificate stays the master's. Counts that the optimum uses
and the restriction misses only weaken the cut.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import scipy.linalg as sl
import scipy.sparse as sp

from . import box_dual
from .box_dual import _exact_sum, _onto_box_sum
from .._threads import callers_blas_threads
from ..surrogates.base import Bound
from ..surrogates.prec_svmperf import count_pieces
from .objective import RankingObjective
from .parallel_products import ProductThreads
from .selection_dual import DualCut, dual_cut

__all__ = ["ALL_COUNTS", "ALL_COUNTS_STEPS", "CLOSING", "CLOSING_STEPS", "COUNTS",
           "EXTEND_FROM", "EXTRA_STEPS", "MAX_ENTRIES", "MAX_FEATURES",
           "MIN_FEATURES", "MIXED_SPREAD", "REPEATS", "STEPS", "THREADED_ORDER",
           "count_dual_cut", "mixes_counts", "suits"]

#: Counts of relevant items kept: the pieces highest at the best point, and those highest
#: at the answer's point, for up to :data:`REPEATS` solves.
COUNTS, REPEATS = 8, 2
#: Relevant items below which the solve is over every count ``a = 0..n₊`` at once, which is
#: the whole loss, and not over a few: where the optimum mixes many counts (sparse
#: 2,000 × 2,000 at C = 1: 16 counts bound the optimum within 8.8e-3, 64 within 1.5e-3, all
#: 201 within 1e-6) the restricted solves and rounds end uncertified, and on every list
#: measured that reaches the solve with fewer relevant items and no more items than
#: features the restricted solves left the gap open for the one over every count to close.
#: A wide list tries the few first (:func:`count_dual_cut`; docs/solvers.md, "Sparse lists
#: with the defaults as shipped").
ALL_COUNTS = 256
#: Interior-point steps at most of that solve over every count: on sparse 2,000 × 2,000 at
#: C = 100 it stopped at :data:`STEPS` with its bound 4.7e-6 short of its best point, and
#: certifies after 85 steps (docs/solvers.md, "Sparse lists with the defaults as shipped").
ALL_COUNTS_STEPS = 160
#: Features from which the solve is tried, and the features or items (the fewer) up to
#: which. Below, the rounds certify quickly (the optimum's face has at most about d
#: vertices), and on spambase (d = 57) the solve cost far more than the rounds it saved
#: (measured: docs/solvers.md, "prec@k-svmperf over counts of relevant items"). Above,
#: each step's dense matrix of this order costs too much.
MIN_FEATURES, MAX_FEATURES = 200, 4000
#: Entries of ``Z`` (items times features; stored values if sparse) up to which the solve is
#: tried: it keeps a copy of ``Z`` in class order and, if dense with more items than
#: features, a scaled one (160 MB each at this size).
MAX_ENTRIES = 20_000_000
#: Interior-point steps at most, and the steps a solve may take beyond them while its own
#: gap (the restricted problem's objective at the step less the best lower bound) still
#: falls by at least the share ``1 − CLOSING`` over the last ``CLOSING_STEPS`` steps. On
#: ``make_ranking_data(3,000, 300)`` at C = 10 to 100 the restricted problems are
#: degenerate: each step goes 0.15 to 0.45 of the way, ``μ`` falls by about 0.85 a step
#: (Clarabel took as many iterations), and solves ended at 80 steps with cuts 5e-5 to 1e-4
#: short while their gaps still fell; two cells that stopped at ``max_iter`` certify with
#: the extra steps (docs/solvers.md, "Steps beyond 80 while the solve's own gap closes").
#: A solve that has stalled still ends at ``STEPS``.
STEPS, EXTRA_STEPS = 80, 80
#: The share of its own gap a solve past :data:`STEPS` keeps at most after
#: ``CLOSING_STEPS`` steps to take another (:func:`_closing`).
CLOSING, CLOSING_STEPS = 0.75, 10
#: The extra steps are taken only while the bound is more than this many times ``tol``
#: short of the best objective (relative to it): a cut about that close leaves the rounds
#: little to do (on ``make_ranking_data(10⁴, 1,000)``'s path, the solve at C = 21.5 went
#: from 2e-6 to 1.1e-7 short in 24 more steps, and the rounds after it saved less than
#: those steps cost).
EXTEND_FROM = 10.0
#: Centrality correctors a step (Gondzio 1996), and refinements of each Newton solve against
#: the whole system. A second refinement once kept the dual residual flat where one let it
#: grow by six orders of magnitude (``make_ranking_data(10⁴, 1,000)`` at C = 1e4); with the
#: Newton matrices solved as they are now (LU where rounding leaves them indefinite, the
#: border from the small system), one certifies that cell and every other measured, on
#: lists with more items than features in 5 to 35% less time (docs/solvers.md, "One
#: refinement a Newton solve").
CORRECTORS, REFINEMENTS = 1, 1
#: The share of the way to the boundary a step goes.
STEP_SHARE = 0.99
#: Steps whose Newton matrix rounding has left indefinite (solved by LU,
#: :class:`_SymmetricSolve`) after which a solve ends with its best cut: near its end such
#: steps finish it (a dense 90 × 140 list on OpenBLAS's SSE kernels: two of them, from
#: 1.9e-7 short of the optimum to 2e-11), but a solve whose matrices keep failing has lost
#: its way (sparse 400 × 4,000 at C = 1e4: 41 such steps gained nothing; docs/solvers.md,
#: "prec@k-svmperf over counts of relevant items").
LU_STEPS = 4
#: Order of a Newton matrix from which its factor, and the border's solves with it, run on
#: the caller's BLAS threads (:func:`cvxtop._threads.callers_blas_threads`); below, the
#: threads' start and wait cost more than they save. On two cores the threads made sparse
#: 2,000 × 2,000 at C = 1 (order 2,603) faster and dense 1,500 × 250 (order 703) slower
#: (measured: docs/solvers.md, "BLAS threads").
THREADED_ORDER = 1500
#: The relative complementarity gap of the restricted problem from which the cut is
#: evaluated at every step (it is the cut's lower bound that ends the solve).
CHECK_FROM = 1e-4
#: The spread of an answer's entries on the relevant items above which it mixes counts of
#: relevant items above 0 (:func:`mixes_counts`): a count's weight below it moves no
#: relevant item's entry by more.
MIXED_SPREAD = 1e-6


def suits(objective: RankingObjective) -> bool:
    """prec@k-svmperf on one list with more irrelevant items than ``k`` (as
    :func:`.box_dual.suits`), at least :data:`MIN_FEATURES` features, at most
    :data:`MAX_FEATURES` features or items, whichever is fewer (the order of a step's dense
    matrix), and at most :data:`MAX_ENTRIES` entries (stored values, for sparse ``Z``)."""
    Z = objective.Z
    n, d = Z.shape
    entries = Z.nnz if sp.issparse(Z) else n * d
    return objective.surrogate.dual_form == "box-hinge" and box_dual.suits(objective) \
        and MIN_FEATURES <= d and min(n, d) <= MAX_FEATURES and entries <= MAX_ENTRIES


def mixes_counts(objective: RankingObjective, g: np.ndarray) -> bool:
    """Whether the dual point ``g`` (a cut's score subgradient) mixes in counts of relevant
    items above 0: its relevant items' entries ``Σ_a λ_a (u_a⁺ − 1)`` differ by more than
    :data:`MIXED_SPREAD`. Where they do not (the hinge's points of :mod:`.box_dual`, whose
    relevant entries are all −1, or an answer of this solve on the count 0 alone), the
    hinge describes the point, and its box dual solves it for less."""
    relevant = g[objective.parts[0].bound.pos]
    return len(relevant) > 0 and bool(np.ptp(relevant) > MIXED_SPREAD)


@dataclass
class _Layout:
    """The restricted problem: the pieces' counts and where their unknowns lie in ``x``
    (``w``, ``t``, then each piece's ``ρ`` (pieces that rank), ``σ``, ``ψ``, ``ξ`` on the
    relevant items (pieces that rank), ``η`` on the irrelevant ones) and their constraints
    in ``s`` and ``z`` (``t >= 0``, then each piece's ``t >= φ_a`` (``c1``), ``ξ >= x⁺ − ρ``
    (``c2``), ``ξ >= 0`` (``c3``), ``η >= x⁻ − σ`` (``c4``), ``η >= 0`` (``c5``),
    ``ψ >= f(a, b) + bσ`` (``c6``)). Each kind is one block over the pieces (``blocks_x``,
    ``blocks_c``, read by :meth:`block`), in the pieces' order, so that the operations of a
    step run over all the pieces at once: the ``ξ``, ``c2`` and ``c3`` blocks are
    ``J_r × n₊`` arrays over the pieces that rank (``ranked``), the ``η``, ``c4`` and
    ``c5`` blocks ``J × n₋``, and the ``c6`` block the pieces' sizes one after the other
    (``starts6``, ``lengths``, ``piece6``)."""

    counts: list[int]
    n_x: int
    n_c: int
    n_pos: int
    n_neg: int
    blocks_x: dict[str, slice]
    blocks_c: dict[str, slice]
    a: np.ndarray         # the counts, as floats
    # whether each piece picks among the relevant items (ρ and ξ): not for a = 0 (none) or
    # a = n₊ (all; in the linear programming form its ρ could be anything below the lowest
    # relevant score, a ray of optima)
    ranked: np.ndarray
    # whether each piece leaves relevant items out (a < n₊): only then has its T⁺_a − Σs⁺
    # the term −Σs⁺ (for a = n₊ it is 0)
    leaving: np.ndarray
    b_all: np.ndarray     # the sizes of every piece, one piece after the other
    f_all: np.ndarray     # f(a, b) at each of them
    starts6: np.ndarray   # where each piece's sizes start in b_all
    lengths: np.ndarray   # how many sizes each piece has
    piece6: np.ndarray    # the piece of each size

    def block(self, v: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of a vector over ``x`` (``rho``, ``sigma``, ``psi``, ``xi``,
        ``eta``) or over the constraints (``c1`` to ``c6``), as a view: 2-D over the
        pieces for the items' blocks; for the rows of a 2-D ``v``, one more axis first."""
        where = self.blocks_x[name] if name in self.blocks_x else self.blocks_c[name]
        part = v[..., where]
        if name in ("xi", "c2", "c3"):
            return part.reshape(v.shape[:-1] + (-1, self.n_pos))
        if name in ("eta", "c4", "c5"):
            return part.reshape(v.shape[:-1] + (-1, self.n_neg))
        return part

    def per_piece(self, values: np.ndarray) -> np.ndarray:
        """The sums over each piece's sizes of a vector over the ``c6`` block."""
        return np.add.reduceat(values, self.starts6)

    @staticmethod
    def of(counts: list[int], d: int, n_pos: int, n_neg: int, k: int) -> "_Layout":
        J = len(counts)
        a = np.asarray(counts, dtype=np.float64)
        ranked = (a > 0) & (a < n_pos)
        J_r = int(ranked.sum())
        sizes = [np.arange(max(1, k - count), n_neg + 1, dtype=np.float64) for count in counts]
        lengths = np.array([len(b) for b in sizes], dtype=np.intp)
        blocks_x, i = {}, d + 1
        for name, width in (("rho", J_r), ("sigma", J), ("psi", J), ("xi", J_r * n_pos),
                            ("eta", J * n_neg)):
            blocks_x[name], i = slice(i, i + width), i + width
        blocks_c, j = {}, 1
        for name, width in (("c1", J), ("c2", J_r * n_pos), ("c3", J_r * n_pos),
                            ("c4", J * n_neg), ("c5", J * n_neg), ("c6", int(lengths.sum()))):
            blocks_c[name], j = slice(j, j + width), j + width
        b_all = np.concatenate(sizes) if sizes else np.zeros(0)
        piece6 = np.repeat(np.arange(J), lengths)
        return _Layout(counts, i, j, n_pos, n_neg, blocks_x, blocks_c, a, ranked, a < n_pos,
                       b_all, k * b_all / (a[piece6] + b_all), np.cumsum(lengths) - lengths,
                       lengths, piece6)


class _Items:
    """The rows of ``Z`` in class order, relevant first (one product serves both classes),
    their products (over the caller's threads where they are large:
    :mod:`.parallel_products`), and a buffer for the scaled rows of ``Zᵀ D Z``: made once
    for every solve of one call."""

    def __init__(self, objective: RankingObjective, threads: ProductThreads | None = None
                 ) -> None:
        bound = objective.parts[0].bound
        self.Z = objective.Z[np.r_[bound.pos, bound.neg]]
        self.n_pos = bound.n_pos
        self.Z_pos, self.Z_neg = self.Z[:self.n_pos], self.Z[self.n_pos:]
        self.p = np.asarray(self.Z_pos.sum(axis=0)).ravel()
        self.threads = ProductThreads(None) if threads is None else threads
        self.sparse = sp.issparse(self.Z)
        self._scaled = None if self.sparse or self.wide else np.empty_like(self.Z)
        self._item_gram: np.ndarray | None = None
        self._buffers: dict[str, np.ndarray] = {}
        # Zᵀ as rows, and Z with zero columns to the Newton matrix's order (gram_rows)
        self._transposed: sp.csr_matrix | None = None
        self._padded: sp.csr_matrix | None = None

    def buffer(self, name: str, order: int) -> np.ndarray:
        """A square array of this order kept for the Newton matrices of every step (its
        contents are the caller's to write): at 5,000 × 5,000 forming that matrix took a
        tenth of each step, much of it in a new zeroed array at every step, mapped and
        faulted in page by page, and in the factor's copy of it."""
        kept = self._buffers.get(name)
        if kept is None or kept.shape != (order, order):
            kept = self._buffers[name] = np.empty((order, order))
        return kept

    def scores(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The relevant and the irrelevant items' scores ``Zw`` (rows of items; a column
        each for the columns of a 2-D ``w``)."""
        scores = np.asarray(self.Z @ w) if self.sparse else self.threads.rows_times(self.Z, w)
        return scores[:self.n_pos], scores[self.n_pos:]

    @property
    def wide(self) -> bool:
        """Whether the list has fewer items than features: its Newton systems are then
        solved in the items' space (:class:`_ItemsFactor`)."""
        return self.Z.shape[0] < self.Z.shape[1]

    def times(self, V: np.ndarray) -> np.ndarray:
        """``Z V`` for a 2-D ``V`` (features × columns), the items in class order."""
        return np.asarray(self.Z @ V) if self.sparse else self.threads.rows_times(self.Z, V)

    def item_gram(self) -> np.ndarray:
        """``Z Zᵀ`` as a dense array, made at the first call."""
        if self._item_gram is None:
            product = self.Z @ self.Z.T
            self._item_gram = np.asarray(product.todense() if self.sparse else product)
        return self._item_gram

    def back(self, v: np.ndarray, relevant: bool | None = None) -> np.ndarray:
        """``Zᵀv`` for a vector ``v`` over the items in class order; for a 2-D ``v``, one
        such product for each of its rows, as rows. ``relevant``: ``v`` is over the
        relevant items only (``True``) or the irrelevant ones only (``False``)."""
        Z = self.Z if relevant is None else self.Z_pos if relevant else self.Z_neg
        if not self.sparse:
            return self.threads.times_rows(v, Z)
        return np.asarray(Z.T @ v.T).T  # (a sparse matrix times a dense array is dense)

    def gram_rows(self, weights: np.ndarray, rows: np.ndarray) -> None:
        """Writes ``[Zᵀ diag(weights) Z, 0]`` (``weights >= 0``, in class order) into
        ``rows``, the first ``d`` rows of a wider C-ordered array. Sparse rows make it as a
        sparse product with ``Z`` padded by zero columns to the rows' width, unpacked into
        them in place (the product made dense on its own and then copied into the rows took
        over three times as long at 5,000 × 5,000)."""
        d = self.Z.shape[1]
        if not self.sparse:
            rows[:, :d] = self.threads.weighted_gram(self.Z, weights, self._scaled)
            rows[:, d:] = 0.0
            return
        width = rows.shape[1]
        if self._transposed is None:
            self._transposed = self.Z.T.tocsr()
        if self._padded is None or self._padded.shape[1] != width:
            self._padded = sp.hstack([self.Z, sp.csr_matrix((self.Z.shape[0], width - d))],
                                     format="csr")
        (self._transposed.multiply(weights).tocsr() @ self._padded).toarray(out=rows)


class _Problem:
    """``min ½‖w‖² + C·t`` subject to ``G x <= h`` for the layout's constraints."""

    def __init__(self, objective: RankingObjective, counts: list[int],
                 items: _Items | None = None) -> None:
        bound = objective.parts[0].bound
        self.items = _Items(objective) if items is None else items
        self.C, self.k, self.d = objective.C, bound.k, objective.Z.shape[1]
        self.n_pos, self.n_neg = bound.n_pos, bound.n_neg
        self.p = self.items.p
        self.layout = _Layout.of(counts, self.d, self.n_pos, self.n_neg, self.k)
        self.h = np.zeros(self.layout.n_c)
        self.h[self.layout.blocks_c["c6"]] = -self.layout.f_all

    def G(self, x: np.ndarray, out: np.ndarray | None = None,
          scores: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """``G x``, into ``out`` if given (the items' blocks are written in place: at
        thousands of items their temporaries cost more than the arithmetic); ``scores``:
        the relevant and irrelevant items' scores of ``x``'s ``w`` where known (else a
        product with ``Z``)."""
        lay = self.layout
        w, t = x[:self.d], x[self.d]
        s_pos, s_neg = self.items.scores(w) if scores is None else scores
        out = np.empty(lay.n_c) if out is None else out
        out[0] = -t
        sigma, psi, eta = lay.block(x, "sigma"), lay.block(x, "psi"), lay.block(x, "eta")
        total = psi + eta.sum(axis=1) - t - float(self.p @ w) * lay.leaving
        rho, xi = lay.block(x, "rho"), lay.block(x, "xi")
        total[lay.ranked] += lay.a[lay.ranked] * rho + xi.sum(axis=1)
        out[lay.blocks_c["c1"]] = total
        c2 = lay.block(out, "c2")
        np.subtract(s_pos, rho[:, None], out=c2)
        c2 -= xi
        np.negative(xi, out=lay.block(out, "c3"))
        c4 = lay.block(out, "c4")
        np.subtract(s_neg, sigma[:, None], out=c4)
        c4 -= eta
        np.negative(eta, out=lay.block(out, "c5"))
        # each size's row b·σ − ψ of its piece: σ and ψ repeated over the piece's sizes
        # (a gather by piece6 made twice as many temporaries, at three times the cost)
        c6 = lay.block(out, "c6")
        np.multiply(lay.b_all, np.repeat(sigma, lay.lengths), out=c6)
        c6 -= np.repeat(psi, lay.lengths)
        return out

    def GT(self, z: np.ndarray) -> np.ndarray:
        """``Gᵀ z``."""
        lay = self.layout
        out = np.empty(lay.n_x)
        z1 = lay.block(z, "c1")
        z2, z3 = lay.block(z, "c2"), lay.block(z, "c3")
        z4, z5, z6 = lay.block(z, "c4"), lay.block(z, "c5"), lay.block(z, "c6")
        out[lay.blocks_x["rho"]] = lay.a[lay.ranked] * z1[lay.ranked] - z2.sum(axis=1)
        xi = lay.block(out, "xi")
        np.subtract(z1[lay.ranked][:, None], z2, out=xi)
        xi -= z3
        out[lay.blocks_x["sigma"]] = -z4.sum(axis=1) + lay.per_piece(lay.b_all * z6)
        out[lay.blocks_x["psi"]] = z1 - lay.per_piece(z6)
        eta = lay.block(out, "eta")
        np.subtract(z1[:, None], z4, out=eta)
        eta -= z5
        items = np.r_[z2.sum(axis=0), z4.sum(axis=0)]
        out[:self.d] = -self.p * float(z1 @ lay.leaving) + self.items.back(items).ravel()
        out[self.d] = -z[0] - z1.sum()
        return out

    def hessian_times(self, x: np.ndarray, weights: np.ndarray,
                      scores: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """``(P + Gᵀ W G) x`` (``scores``: as for :meth:`G`)."""
        out = self.GT(weights * self.G(x, scores=scores))
        out[:self.d] += x[:self.d]
        return out


def _threads_for(order: int) -> AbstractContextManager:
    """The caller's BLAS threads for a factor or solve of a matrix of this order, from
    :data:`THREADED_ORDER` on; below, one thread."""
    return callers_blas_threads() if order >= THREADED_ORDER else nullcontext()


class _SymmetricSolve:
    """Solves with a symmetric matrix that is definite in exact arithmetic: by its Cholesky
    factor, or by LU with partial pivoting (LAPACK's ``getrf``) where rounding has
    left it indefinite. Late in a solve the weights span twenty orders of magnitude and
    the Schur complement ``E − B̃ᵀA⁻¹B̃`` loses its definiteness to cancellation on some
    CPUs' BLAS kernels and not on others': on a dense 90 × 140 list at C = 0.1, OpenBLAS's
    SSE kernels left six negative eigenvalues at step 17 (the largest −1.4e3, against
    entries up to 2e12), the solve ended there 1.9e-7 short of the optimum, and AVX2
    kernels went on to 2e-11. The refinements of :meth:`_Newton.solve` against the whole
    system correct what the rounding costs the direction. ``LinAlgError`` where LU finds
    the matrix singular too. ``by_lu``: whether it came to LU (:data:`LU_STEPS`). A large
    factor runs on the caller's BLAS threads (:data:`THREADED_ORDER`): it is one long call
    of LAPACK."""

    def __init__(self, build: Callable[[], np.ndarray]) -> None:
        """Factors the matrix that ``build()`` writes, in the array it returns (made again
        for LU where the Cholesky factor failed half-way through it)."""
        self.cholesky = self.lu = None
        matrix = build()
        with _threads_for(len(matrix)):
            try:
                self.cholesky = sl.cho_factor(matrix, overwrite_a=True, check_finite=False)
            except np.linalg.LinAlgError:
                lu, pivots, info = sl.lapack.dgetrf(build(), overwrite_a=True)
                if info != 0:
                    raise np.linalg.LinAlgError("the Newton matrix is singular") from None
                self.lu = (lu, pivots)

    @property
    def by_lu(self) -> bool:
        return self.cholesky is None

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        if self.cholesky is not None:
            return sl.cho_solve(self.cholesky, rhs, check_finite=False)
        return sl.lu_solve(self.lu, rhs, check_finite=False)



class _FeaturesFactor:
    """The reduced Newton matrix ``[[I + ZᵀDZ, B], [Bᵀ, E]]`` (``w``, then each piece's
    ``ρ``, ``σ``, ``ψ``; ``B`` couples ``w`` with the ``ρ`` and ``σ``), factored whole:
    its order is ``d`` plus three a piece, for lists with at least as many items as
    features."""

    def __init__(self, items: _Items, weights: np.ndarray, border: np.ndarray,
                 E: np.ndarray) -> None:
        d, m = border.shape[0], E.shape[0]

        def build() -> np.ndarray:
            K = items.buffer("features", d + m)
            items.gram_rows(weights, K[:d])
            K.ravel()[:(d + m) * d:d + m + 1] += 1.0  # (the identity on the w block)
            K[:d, d:d + border.shape[1]] = border
            K[d:d + border.shape[1], :d] = border.T
            K[d + border.shape[1]:, :d] = 0.0
            K[d:, d:] = E
            return K

        self.factor = _SymmetricSolve(build)

    @property
    def by_lu(self) -> bool:
        """Whether the matrix came to LU (:class:`_SymmetricSolve`)."""
        return self.factor.by_lu

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """The matrix's inverse times ``rhs`` (rows: the unknowns; columns: right sides)."""
        return self.factor.solve(rhs)



class _ItemsFactor:
    """The same matrix for lists with fewer items than features, whose ``w`` block
    ``A = I + ZᵀDZ`` would be too large to form: ``A⁻¹ = I − ZᵀD^½ M⁻¹ D^½ Z`` with
    ``M = I + D^½ ZZᵀ D^½`` of the items' order (Woodbury), and the ``ρ, σ, ψ`` block by
    its Schur complement ``E − B̃ᵀA⁻¹B̃`` (``B̃ = [B, 0]``)."""

    def __init__(self, items: _Items, weights: np.ndarray, border: np.ndarray,
                 E: np.ndarray) -> None:
        self.items, self.root = items, np.sqrt(weights)
        n = len(self.root)

        def build() -> np.ndarray:
            M = np.multiply(items.item_gram(), self.root[:, None],
                            out=items.buffer("items", n))
            M *= self.root
            M.ravel()[::n + 1] += 1.0
            return M

        self.m = _SymmetricSolve(build)
        d = border.shape[0]
        self.B = np.zeros((d, E.shape[0]))
        self.B[:, :border.shape[1]] = border
        self.AB = self._a_inverse(self.B)
        self.schur = _SymmetricSolve(lambda: E - self.B.T @ self.AB)

    @property
    def by_lu(self) -> bool:
        """Whether either factor came to LU (:class:`_SymmetricSolve`)."""
        return self.m.by_lu or self.schur.by_lu

    def _a_inverse(self, V: np.ndarray) -> np.ndarray:
        """``A⁻¹V`` for a 2-D ``V`` (features × columns)."""
        scaled = self.root[:, None] * self.m.solve(self.root[:, None] * self.items.times(V))
        return V - self.items.back(scaled.T).T

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """The matrix's inverse times ``rhs`` (rows: the unknowns; columns: right sides)."""
        d = self.B.shape[0]
        head = self._a_inverse(rhs[:d])
        tail = self.schur.solve(rhs[d:] - self.B.T @ head)
        return np.vstack([head - self.AB @ tail, tail])



class _Newton:
    """Solves ``(P + Gᵀ W G) Δx = r``: the items' unknowns eliminated, a dense system in
    ``w`` and each piece's ``ρ, σ, ψ``, and the border of the ``t >= φ_a`` rows and ``t``
    (module docstring)."""

    def __init__(self, problem: _Problem, weights: np.ndarray) -> None:
        self.problem, self.weights = problem, weights
        lay, d = problem.layout, problem.d
        J = len(lay.counts)
        self.small = d + 3 * J
        # the unknowns after w: each piece's ρ, then each σ, then each ψ
        E = np.zeros((3 * J, 3 * J))
        # each piece's weights of the items in its ρ (relevant) and σ (irrelevant) columns,
        # then its items' c = W/e, whose products with Z give the border of the t >= φ_a
        # rows (without t) from the small system alone: the item elimination takes row j
        # to the small right side v_j (its w part g_j = Zᵀc_j − p, and 1, a − Σc₂, −Σc₄ at
        # its ψ, ρ, σ), so that row_j·M'⁻¹row_i = v_jᵀK⁻¹v_i + [i = j]·κ_j (κ_j = Σ1/e₄ +
        # Σ1/e₂): no n_x-long image of a row is formed
        n_pos, ranked = problem.n_pos, lay.ranked
        V = np.zeros((self.small, J))
        W2, W3 = lay.block(weights, "c2"), lay.block(weights, "c3")
        self.e2 = W2 + W3
        D2 = W2 * W3 / self.e2
        self.c2 = W2 / self.e2  # (the items' c = W/e of each piece's ρ and σ columns)
        rho_rows = np.flatnonzero(ranked)
        E[rho_rows, rho_rows] = D2.sum(axis=1)
        unranked = np.flatnonzero(~ranked)
        E[unranked, unranked] = 1.0  # (the slot of a ρ the piece does not have)
        V[d + rho_rows, rho_rows] = lay.a[ranked] - self.c2.sum(axis=1)
        W4, W5, W6 = (lay.block(weights, name) for name in ("c4", "c5", "c6"))
        self.e4 = W4 + W5
        D4 = W4 * W5 / self.e4
        self.c4 = W4 / self.e4
        pieces = np.arange(J)
        E[J + pieces, J + pieces] = D4.sum(axis=1) + lay.per_piece(lay.b_all ** 2 * W6)
        E[J + pieces, 2 * J + pieces] = E[2 * J + pieces, J + pieces] = \
            -lay.per_piece(lay.b_all * W6)
        E[2 * J + pieces, 2 * J + pieces] = lay.per_piece(W6)
        V[d + J + pieces, pieces] = -self.c4.sum(axis=1)
        V[d + 2 * J + pieces, pieces] = 1.0
        self.kappa = (1.0 / self.e4).sum(axis=1)
        self.kappa[ranked] += (1.0 / self.e2).sum(axis=1)
        # the rows' products with Z, each class's items on their own (a product over
        # every item would multiply the other class's zeros)
        products = np.zeros((d, 3 * J))
        on_pos = problem.items.back(np.vstack([D2, self.c2]), relevant=True).T
        products[:, rho_rows] = on_pos[:, :len(rho_rows)]
        products[:, 2 * J + rho_rows] = on_pos[:, len(rho_rows):]
        on_neg = problem.items.back(np.vstack([D4, self.c4]), relevant=False).T
        products[:, J + pieces] = on_neg[:, :J]
        products[:, 2 * J + pieces] += on_neg[:, J:]
        factor = _ItemsFactor if problem.items.wide else _FeaturesFactor
        self.factor = factor(problem.items, np.r_[D2.sum(axis=0), D4.sum(axis=0)],
                             -products[:, :2 * J], E)
        V[:d] = products[:, 2 * J:]
        V[:d, lay.leaving] -= problem.p[:, None]
        with _threads_for(self.small):  # (a solve with J right sides: one long BLAS call)
            self.V, self.KV = V, self.factor.solve(V)
        self.border = V.T @ self.KV + np.diag(self.kappa)
        self.W0 = weights[0]
        self.W1 = lay.block(weights, "c1").copy()

    def _small(self, R: np.ndarray) -> np.ndarray:
        """The small system's solutions (rows) for the rows of ``R``: with
        :meth:`_unknowns`, ``M'⁻¹ R`` for the system without the ``t >= φ_a`` rows, on the
        unknowns but ``t`` (``R[:, d]`` is ignored); one product with ``Z`` for all rows."""
        problem = self.problem
        lay, d = problem.layout, problem.d
        J = len(lay.counts)
        rhs = np.zeros((len(R), self.small))
        q_pos = lay.block(R, "xi") * self.c2
        q_neg = lay.block(R, "eta") * self.c4
        rhs[:, d + np.flatnonzero(lay.ranked)] = lay.block(R, "rho") - q_pos.sum(axis=2)
        rhs[:, d + J:d + 2 * J] = lay.block(R, "sigma") - q_neg.sum(axis=2)
        rhs[:, d + 2 * J:] = lay.block(R, "psi")
        rhs[:, :d] = R[:, :d] + problem.items.back(np.hstack([q_pos.sum(axis=1),
                                                              q_neg.sum(axis=1)]))
        return self.factor.solve(rhs.T).T

    def _unknowns(self, R: np.ndarray, small: np.ndarray
                  ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The unknowns of ``M'⁻¹R`` (rows of ``R``) from the small system's solutions
        ``small`` (rows): ``w``, ``ρ``, ``σ``, ``ψ``, and the items' by elimination; with
        the relevant and irrelevant items' scores of each row's ``w`` (columns). Linear in
        ``R`` and ``small`` together, so a difference of two images is one call."""
        problem, weights = self.problem, self.weights
        lay, d = problem.layout, problem.d
        J = len(lay.counts)
        out = np.zeros((len(small), lay.n_x))
        w = small[:, :d]
        out[:, :d] = w
        s_pos, s_neg = problem.items.scores(w.T)
        sigma = small[:, d + J:d + 2 * J]
        rho = small[:, d + np.flatnonzero(lay.ranked)]
        out[:, lay.blocks_x["sigma"]] = sigma
        out[:, lay.blocks_x["psi"]] = small[:, d + 2 * J:]
        out[:, lay.blocks_x["rho"]] = rho
        W4, W2 = lay.block(weights, "c4"), lay.block(weights, "c2")
        eta = (lay.block(R, "eta") + W4 * (s_neg.T[:, None, :] - sigma[:, :, None])) / self.e4
        xi = (lay.block(R, "xi") + W2 * (s_pos.T[:, None, :] - rho[:, :, None])) / self.e2
        out[:, lay.blocks_x["eta"]] = eta.reshape(len(out), -1)
        out[:, lay.blocks_x["xi"]] = xi.reshape(len(out), -1)
        return out, (s_pos, s_neg)

    def _once(self, r: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        J, d = len(self.W1), self.problem.d
        lay = self.problem.layout
        small = self._small(r[None, :])[0]
        # each row's product with M'⁻¹r: its small right side's, and its items' own terms
        products = small @ self.V + (lay.block(r, "eta") / self.e4).sum(axis=1)
        products[lay.ranked] += (lay.block(r, "xi") / self.e2).sum(axis=1)
        bordered = np.zeros((J + 1, J + 1))
        bordered[:J, :J] = self.border + np.diag(1.0 / self.W1)
        bordered[:J, J] = 1.0
        bordered[J, :J] = -1.0
        bordered[J, J] = self.W0
        solution = np.linalg.solve(bordered, np.r_[products, r[d]])
        # M'⁻¹r − Σ_j solution_j M'⁻¹row_j, the rows' images from their small solutions
        # K⁻¹v_j: one image of r − Σ_j solution_j row_j (one product with Z for its scores)
        multipliers = solution[:J]
        rows = np.zeros(lay.n_x)
        rows[:d] = -self.problem.p * float(multipliers @ lay.leaving)
        rows[lay.blocks_x["psi"]] = multipliers
        lay.block(rows, "eta")[:] = multipliers[:, None]
        rows[lay.blocks_x["rho"]] = lay.a[lay.ranked] * multipliers[lay.ranked]
        lay.block(rows, "xi")[:] = multipliers[lay.ranked][:, None]
        out, (s_pos, s_neg) = self._unknowns((r - rows)[None, :],
                                             (small - self.KV @ multipliers)[None, :])
        out = out[0]
        out[d] = solution[J]
        return out, (s_pos[:, 0], s_neg[:, 0])

    def solve(self, r: np.ndarray) -> np.ndarray:
        """``Δx``, refined :data:`REFINEMENTS` times against the whole system."""
        return self.solve_with_scores(r)[0]

    def solve_with_scores(self, r: np.ndarray
                          ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """:meth:`solve`'s ``Δx`` with the relevant and irrelevant items' scores of its
        ``w``: the sums of its parts' (each solve's image comes with them), so that the
        refinements' products and the caller's ``G Δx`` need no product with ``Z``."""
        dx, (s_pos, s_neg) = self._once(r)
        for _ in range(REFINEMENTS):
            step, (more_pos, more_neg) = self._once(
                r - self.problem.hessian_times(dx, self.weights, (s_pos, s_neg)))
            dx += step
            s_pos, s_neg = s_pos + more_pos, s_neg + more_neg
        return dx, (s_pos, s_neg)


def _short(upper: float, lower: float, share: float) -> bool:
    """Whether the bound ``lower`` is more than ``share`` of the best objective ``upper``
    (of its size, at least 1e-300) below it."""
    return upper - lower > share * max(abs(upper), 1e-300)


def _closing(gaps: list[float]) -> bool:
    """Whether the solve's own gaps (one a step: its objective less its best lower bound)
    fell by at least the share ``1 − CLOSING`` over the last :data:`CLOSING_STEPS` steps."""
    if len(gaps) <= CLOSING_STEPS:
        return False
    then = gaps[-1 - CLOSING_STEPS]
    return bool(np.isfinite(then) and gaps[-1] <= CLOSING * then)


def _extends(gaps: list[float], upper: float, lower: float, tol: float) -> bool:
    """Whether a solve past its steps takes another: its own gaps still close
    (:func:`_closing`) and its bound ``lower`` is more than :data:`EXTEND_FROM` times
    ``tol`` short of the best objective ``upper`` (relative to it)."""
    return _closing(gaps) and _short(upper, lower, EXTEND_FROM * tol)


def _step_to_boundary(v: np.ndarray, dv: np.ndarray, work: np.ndarray) -> float:
    """The longest step ``α`` with ``v + α·dv >= 0`` for ``v > 0``: ``1/max(−dv/v)``, one
    division into ``work`` (a buffer of the vectors' length) and one maximum, where
    selecting the falling entries first copied them twice."""
    ratio = np.divide(dv, v, out=work)
    fastest = -float(ratio.min())
    return 1.0 / fastest if fastest > 0.0 else np.inf


def _start(problem: _Problem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A start at ``w``: each piece's thresholds at its scores, slacks of at least the
    start's complementarity over the duals, and duals that make every piece's weights its
    polytope's centre (``λ`` even over the pieces and the floor)."""
    lay, d = problem.layout, problem.d
    s_pos, s_neg = problem.items.scores(w)
    x = np.zeros(lay.n_x)
    x[:d] = w
    descending = np.sort(s_pos)[::-1]
    share = problem.C / (len(lay.counts) + 1)
    z = np.zeros(lay.n_c)
    z[0] = share
    rho = descending[lay.a[lay.ranked].astype(np.intp) - 1]
    x[lay.blocks_x["rho"]] = rho
    lay.block(x, "xi")[:] = np.maximum(s_pos - rho[:, None], 0.0) + 1.0
    lay.block(x, "eta")[:] = np.maximum(s_neg, 0.0) + 1.0
    x[lay.blocks_x["psi"]] = np.maximum.reduceat(lay.f_all, lay.starts6) + 1.0
    share_pos = share * lay.a[lay.ranked] / problem.n_pos
    lay.block(z, "c2")[:] = share_pos[:, None]
    lay.block(z, "c3")[:] = (share - share_pos)[:, None]
    share_neg = share * lay.per_piece(lay.b_all) / lay.lengths / problem.n_neg
    z[lay.blocks_c["c1"]] = share
    lay.block(z, "c4")[:] = share_neg[:, None]
    lay.block(z, "c5")[:] = (share - share_neg)[:, None]
    z[lay.blocks_c["c6"]] = share / lay.lengths[lay.piece6]
    constraint = problem.G(x) - problem.h
    x[d] = max(0.0, float(np.max(lay.block(constraint, "c1")))) + 1.0
    constraint = problem.G(x) - problem.h
    mu = max(float(np.mean(np.maximum(-constraint, 0.0) * z)), 1e-2 * share)
    return x, np.maximum(-constraint, mu / z), z


def _cut(objective: RankingObjective, problem: _Problem, z: np.ndarray) -> DualCut | None:
    """The cut of the duals ``z``, moved onto the pieces' polytopes (module docstring)."""
    bound = objective.parts[0].bound
    lay, C, k = problem.layout, problem.C, problem.k
    piece_duals, relevant_duals, irrelevant_duals = (lay.block(z, name)
                                                     for name in ("c1", "c2", "c4"))
    lam = np.maximum(piece_duals, 0.0) / C
    if lam.sum() > 1.0:
        lam = lam / lam.sum()
    rank_row = np.cumsum(lay.ranked) - 1  # each ranked piece's row of the c2 block
    g, intercept = np.zeros(bound.n), 0.0
    for piece, (a, weight) in enumerate(zip(lay.counts, lam)):
        if weight <= 0.0:
            continue
        z1 = piece_duals[piece]
        u_pos = _onto_box_sum(relevant_duals[rank_row[piece]] / z1, a, equality=True) \
            if lay.ranked[piece] else np.full(problem.n_pos, 1.0 if a else 0.0)
        u_neg = np.clip(irrelevant_duals[piece] / z1, 0.0, 1.0)
        least = max(1, k - a)
        total = _exact_sum(u_neg)
        if total < least:
            u_neg = _onto_box_sum(u_neg, least, equality=False)
            total = _exact_sum(u_neg)
        beta = min(total, float(problem.n_neg))
        low = math.floor(beta)
        theta = beta - low
        f_low = k * low / (a + low)
        f_hat = f_low if theta == 0.0 else \
            (1.0 - theta) * f_low + theta * k * (low + 1) / (a + low + 1)
        g[bound.pos] += weight * (u_pos - 1.0)
        g[bound.neg] += weight * u_neg
        intercept += weight * f_hat
    if not np.any(lam > 0.0):
        return None
    return dual_cut(objective, g, intercept)


def _with_point(objective: RankingObjective, cut: DualCut, w: np.ndarray) -> DualCut:
    """The cut with the interior point's ``w`` as its point where that is better."""
    scores = np.asarray(objective.Z @ w).ravel()
    loss, subgradient = objective.loss_and_score_gradient(scores)
    value = 0.5 * float(w @ w) + objective.C * loss
    if value >= cut.value:
        return cut
    return replace(cut, weights=w.copy(), scores=scores, loss=loss,
                   subgradient=subgradient, value=value)


def count_dual_cut(objective: RankingObjective, best: np.ndarray, best_scores: np.ndarray,
                   upper: float, tol: float, guide: np.ndarray | None = None,
                   threads: ProductThreads | None = None) -> DualCut | None:
    """For an objective that :func:`suits` this module, at a best point ``best`` (with
    these scores and objective ``upper``): on a list with fewer than :data:`ALL_COUNTS`
    relevant items and no more items than features, the cut of the problem over every
    count (the whole loss) from ``best``; else the cut of the restricted problem over the
    :data:`COUNTS` highest pieces there and, if ``guide`` is given, at those scores too (the
    cutting plane passes its master's query), solved again with the answer's own highest
    counts where they are new (up to :data:`REPEATS` solves; module docstring), and on a
    wide list (fewer items than features) with fewer than :data:`ALL_COUNTS` relevant
    items, over every count where those leave the gap open: there a step over every count
    costs a product of the border's ``3J`` columns of ``d`` entries with each other, and the
    few counts certified sparse 2,000 × 20,000 in a sixth of the time. Of the interior
    point's steps, the cut with the highest lower bound, its point the better of its own and
    the interior point's. A solve's steps end once that bound is within ``tol`` of the best
    objective seen, after :data:`STEPS` (:data:`ALL_COUNTS_STEPS` over every count) unless
    its own gap still closes and the bound is more than :data:`EXTEND_FROM` times ``tol``
    short (then up to :data:`EXTRA_STEPS` more), or when a step fails.
    ``None`` if no step gave a cut. ``threads``: the solve's product threads
    (:mod:`.parallel_products`), which share each step's products with ``Z``."""
    bound = objective.parts[0].bound
    items = _Items(objective, threads)
    every_count = bound.n_pos < ALL_COUNTS
    if every_count and not items.wide:
        cut, _ = _interior_point(objective, list(range(bound.n_pos + 1)), best, upper, tol,
                                 items, ALL_COUNTS_STEPS)
        return cut
    counts = set() if guide is None else _highest(guide, bound)
    point, scores = np.asarray(best, dtype=np.float64), best_scores
    best_cut, best_lower = None, -np.inf

    def gap_open() -> bool:
        return _short(upper, best_lower, tol)

    for attempt in range(REPEATS):
        fresh = _highest(scores, bound)
        if attempt and fresh <= counts:
            break
        counts |= fresh
        cut, lower = _interior_point(objective, sorted(counts), point, upper, tol, items)
        if cut is None:
            break
        if lower > best_lower:
            best_cut, best_lower = cut, lower
        upper = min(upper, cut.value)
        if not gap_open():
            break
        point, scores = cut.weights, cut.scores
    if every_count and gap_open():
        cut, lower = _interior_point(objective, list(range(bound.n_pos + 1)), best, upper,
                                     tol, items, ALL_COUNTS_STEPS)
        if cut is not None and lower > best_lower:
            best_cut = cut
    return best_cut


def _highest(scores: np.ndarray, bound: Bound) -> set[int]:
    """The :data:`COUNTS` counts whose pieces are highest at these scores."""
    a, _, values = count_pieces(bound, scores)
    return set(int(c) for c in a[np.argsort(-values, kind="stable")[:COUNTS]])


def _interior_point(objective: RankingObjective, counts: list[int], start: np.ndarray,
                    upper: float, tol: float, items: _Items | None = None,
                    steps: int = STEPS) -> tuple[DualCut | None, float]:
    """The interior point's best cut over these counts and its lower bound, after at most
    ``steps`` steps, or :data:`EXTRA_STEPS` more while its own gap closes and the bound is
    more than :data:`EXTEND_FROM` times ``tol`` short (:func:`_extends`). A step whose
    weights or direction overflow (slacks far below their duals in a solve that has lost
    its way: sparse 2,000 × 2,000 at C = 1, ``benchmarks/sparse_defaults.py``) ends the
    solve with the best cut so far, and numpy's warnings of it stay here."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _steps(objective, counts, start, upper, tol, items, steps)


class _Work:
    """Buffers over the constraints that each step reuses: at thousands of items and
    hundreds of counts a vector over them is tens of megabytes, and a fresh one for every
    product cost more than the product (the memory is mapped anew and faulted in page by
    page)."""

    def __init__(self, m: int) -> None:
        self.primal, self.scaled, self.rhs, self.ratio = (np.empty(m) for _ in range(4))


def _steps(objective: RankingObjective, counts: list[int], start: np.ndarray,
           upper: float, tol: float, items: _Items | None, steps: int
           ) -> tuple[DualCut | None, float]:
    """The steps of :func:`_interior_point`."""
    problem = _Problem(objective, counts, items)
    x, s, z = _start(problem, start)
    C, d = problem.C, problem.d
    target = np.r_[np.zeros(d), C, np.zeros(problem.layout.n_x - d - 1)]
    m = len(s)
    work = _Work(m)
    best_cut, best_lower = None, -np.inf
    lu_steps = 0  # steps whose Newton matrix came to LU (LU_STEPS)
    gaps = []  # each step's objective less the best lower bound then (EXTRA_STEPS)
    for step in range(steps + EXTRA_STEPS):
        primal = problem.G(x, out=work.primal)
        primal -= problem.h
        primal += s
        dual = problem.GT(z) + target
        dual[:d] += x[:d]
        mu = float(s @ z) / m
        value = 0.5 * float(x[:d] @ x[:d]) + C * x[d]
        if float(s @ z) <= CHECK_FROM * max(abs(value), 1e-300):
            cut = _cut(objective, problem, z)
            if cut is not None:
                cut = _with_point(objective, cut, x[:d])
                lower = C * cut.intercept - 0.5 * float(cut.h @ cut.h) * C * C
                if lower > best_lower:
                    best_cut, best_lower = cut, lower
                upper = min(upper, cut.value)
                if not _short(upper, best_lower, tol):
                    break
        gaps.append(value - best_lower)
        if step >= steps and not _extends(gaps, upper, best_lower, tol):
            break
        try:
            newton = _Newton(problem, z / s)
        except (np.linalg.LinAlgError, ValueError):
            break
        lu_steps += newton.factor.by_lu
        if lu_steps > LU_STEPS:
            break

        weighted_primal = newton.weights * primal

        def direction(complementarity: np.ndarray) -> tuple[np.ndarray, ...]:
            # (P + GᵀWG)Δx = −r_d − Gᵀ(W r_p − r_c/s); Δz = W(GΔx + r_p) − r_c/s. The
            # temporaries go into the buffers of _Work; Δs and Δz are new arrays, as a
            # corrector's direction may be kept beside the last one
            scaled = np.divide(complementarity, s, out=work.scaled)
            dx, scores = newton.solve_with_scores(
                -dual - problem.GT(np.subtract(weighted_primal, scaled, out=work.rhs)))
            dz = problem.G(dx, scores=scores)
            dz += primal
            dz *= newton.weights
            dz -= scaled
            ds = s * dz
            ds += complementarity
            ds /= z
            return dx, np.negative(ds, out=ds), dz

        def reach_of(ds: np.ndarray, dz: np.ndarray) -> float:
            return min(_step_to_boundary(s, ds, work.ratio),
                       _step_to_boundary(z, dz, work.ratio))

        dx, ds, dz = direction(s * z)
        affine = min(reach_of(ds, dz), 1.0)
        centring = (float((s + affine * ds) @ (z + affine * dz)) / m / mu) ** 3
        complementarity = s * z
        complementarity += ds * dz
        complementarity -= centring * mu
        dx, ds, dz = direction(complementarity)
        reach = reach_of(ds, dz)
        for _ in range(CORRECTORS):
            aim = min(1.0, 1.5 * reach + 0.1)
            trial = (s + aim * ds) * (z + aim * dz)
            wanted = centring * mu
            shift = np.maximum(np.clip(trial, 0.1 * wanted, 10.0 * wanted) - trial,
                               -10.0 * wanted)
            candidate = direction(complementarity - shift)
            further = reach_of(candidate[1], candidate[2])
            if further < 1.01 * reach:
                break
            (dx, ds, dz), reach = candidate, further
        if not np.isfinite(reach) or not np.all(np.isfinite(dx)):
            break
        alpha = min(1.0, STEP_SHARE * reach)
        x += alpha * dx
        s += alpha * ds
        z += alpha * dz
    return best_cut, best_lower

"""The cutting plane's store of cuts ``L(Zw) >= b_c + h_c·w``, their Gram matrix and their
rounding.

A :class:`CutStore` keeps the cuts in slots with ``G = HᵀH`` up to date (one product a
new cut), replaces cuts that stayed below the model by their aggregate when its room runs
out, and records for each cut the bounds on its rounding (:func:`cut_rounding`) that keep
the master's lower bound rigorous at any scale (:func:`cvxtop.solvers.master.solve_master`).
The loop that queries the surrogate and adds the cuts is :mod:`.cutting_plane`.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .objective import RankingObjective
from .parallel_products import ProductThreads
from ..qp import FaceCache

__all__ = ["CutStore", "Cuts", "STORE_BYTES", "cut_rounding", "in_score_space",
           "key_by_identity", "loss_key", "numbers_per_item"]


def loss_key(objective: RankingObjective) -> str:
    """A digest of what the loss ``L(y, Zw)`` depends on (the features, the labels, the
    surrogate, and each list with its resolved cut-off), and not ``C``: cuts made for one
    key are valid for every problem with that key (:class:`Cuts`). Computed once per
    objective (:meth:`RankingObjective.derived`; a fit checks it twice: its options, then
    the cutting plane)."""
    return objective.derived("loss digest", lambda: _digest(objective))


def key_by_identity(objective: RankingObjective) -> None:
    """Key the cuts of ``objective`` by a token of this objective instead of the digest of
    its data (:func:`loss_key`), for cuts that never leave it: a path whose fits keep no
    cuts (:meth:`cvxtop.TopRanker.fit_path` without ``warm_start``) passes them only from
    one of its solves to the next, on this very objective, and hashing the data cost a
    tenth of a small path (docs/solvers.md, "The whole path in one call")."""
    objective.derived_values.setdefault("loss digest", f"objective {uuid.uuid4().hex}")


def _digest(objective: RankingObjective) -> str:
    Z = objective.Z
    digest = hashlib.sha256()  # (hardware-accelerated on most CPUs)
    if sp.issparse(Z):
        Z = Z.tocsr()
        arrays = [Z.data, Z.indices, Z.indptr]
    else:
        arrays = [np.ascontiguousarray(Z)]
    arrays.append(np.ascontiguousarray(objective.y))
    for part in objective.parts:
        arrays.append(np.ascontiguousarray(part.index, dtype=np.int64))
    for array in arrays:
        digest.update(repr((array.dtype.str, array.shape)).encode())
        digest.update(memoryview(array).cast("B"))
    digest.update(repr((objective.surrogate.name, Z.shape, objective.ks)).encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class Cuts:
    """Cuts ``L(y, Zw) >= b_c + h_c·w`` of one loss, with their rounding margins: valid
    whatever ``C`` (the loss does not depend on it), so a solve at another ``C`` of the same
    data may start from them (a regularization path). ``rows`` holds ``h_c``, or on wide
    data (``scores``) the score subgradients ``g_c`` with ``h_c = Zᵀg_c``; ``key`` is the
    :func:`loss_key` of the data they were made for."""

    key: str
    scores: bool
    rows: np.ndarray
    intercepts: np.ndarray
    margins: np.ndarray
    h_errors: np.ndarray
    #: The last near-optimal point of the dual over the items (:mod:`.selection_dual`,
    #: :mod:`.box_dual`), as its score vector ``g``: a point of the same polytope at every
    #: ``C``, from which the next solve's dual solve starts.
    dual_point: np.ndarray | None = None
    #: The loss of the zero model (:meth:`RankingObjective.zero_value`), which every solve
    #: of the loss checks its lower bound against, whatever ``C``.
    zero_loss: float | None = None
    #: The point ``w`` the solve returned, its scores ``Z w``, and the loss there with a
    #: score subgradient ``(L, g)``: the next solve of a path starts there (``w0``) and
    #: takes them from here instead of a product with ``Z`` and an evaluation of ``L``.
    last_point: tuple[np.ndarray, np.ndarray, tuple[float, np.ndarray]] | None = None
    #: The cuts' Gram matrix ``h_cᵀh_{c'}`` as the store computed it: it does not depend on
    #: ``C`` either, so a store seeded with the cuts takes it instead of its products with
    #: ``Z`` (two a cut where the rows are score subgradients).
    gram: np.ndarray | None = None
    #: The box duals' kept face (:class:`.box_dual._Face`, under ``"last"``): a guess of
    #: the dual over the items solved for every ``C``, from which the next ``C``'s dual
    #: solve reads its weights where that guess still holds; ``"missed"`` is set once a
    #: kept face's guess did not (no further face is kept then).
    box_faces: dict | None = None

    def __len__(self) -> int:
        return len(self.intercepts)

    def kept(self, max_rounding: float, norm_w: float) -> np.ndarray:
        """Which cuts a solve seeded with them keeps (:meth:`CutStore.seed`): those whose
        rounding at a point of norm ``norm_w`` (``margin + h_error·norm_w``) is at most
        ``max_rounding``."""
        return self.margins + self.h_errors * norm_w <= max_rounding

#: Memory for stored cuts (d × slots doubles) before stale cuts are aggregated.
STORE_BYTES = 256 * 2**20

def numbers_per_item(Z: Any) -> float:
    """The numbers ``Z`` stores per item (its features when dense, its nonzeros per row when
    sparse): what a product with it reads per item."""
    stored = Z.nnz if sp.issparse(Z) else Z.size
    return stored / max(Z.shape[0], 1)


def in_score_space(n_items: int, n_features: int) -> bool:
    """Whether the cut store keeps a cut ``h = Zᵀg`` as its score subgradient ``g``: when
    there are fewer than half as many items as features (wide, usually sparse, data), a
    row of ``n`` numbers instead of ``d`` makes the store's products cheaper by ``d/n``,
    for two more products with ``Z`` a round."""
    return 2 * n_items < n_features


class CutStore:
    """Cuts ``L(Zw) >= b_c + h_c·w`` in slots, with their Gram matrix ``G = HᵀH`` kept up
    to date, and pruning by aggregation.

    The cuts are stored slot-major, one row of ``cuts`` per slot: ``h_c`` itself, or on wide
    data (:func:`in_score_space`) the score subgradient ``g_c`` with ``h_c = Zᵀg_c``, and then
    ``G``'s new column is ``g_cᵀ(Z h)`` and a combination ``Hα`` is ``Zᵀ(Σ α_c g_c)``. Every
    product with the rows runs over the slots up to the last one in use, or over the
    master's support alone when that is smaller: at d = 50,000 a product with a whole store
    of d-dimensional rows costs as much as a pass over a sparse ``X``."""

    def __init__(self, Z: Any, capacity: int, patience: int, master: str, solver: str,
                 options: dict[str, Any] | None, threads: ProductThreads) -> None:
        n, d = Z.shape
        self.Z, self.scores, self.threads = Z, in_score_space(n, d), threads
        self.row = n if self.scores else d
        self.patience, self.master = patience, master
        self.solver, self.options = solver, options
        self.faces = FaceCache()  # the master's last factored face, for the next master
        self.dual_point: np.ndarray | None = None  # the last dual solve's point, if any
        self.box_faces: dict = {}  # (Cuts.box_faces)
        # (Cuts.last_point)
        self.last_point: tuple[np.ndarray, np.ndarray, tuple[float, np.ndarray]] | None = None
        self.row_ridge_misses = 0  # (master.ROW_RIDGE_MISSES)
        # whether every master tries the row-sized ridge first (master.OUTLYING_ROW)
        self.outlying_rows = False
        # tries of the master from the rows that did not halve its own gap, in a row, and
        # the exact masters left to skip before the next (master.PRIMAL_PAUSE)
        self.primal_misses, self.primal_wait = 0, 0
        self.ridge_outweighs = False  # the ridge decided the last answer (master.RIDGE_SHARE)
        self.repeated = False  # the last cut offered equals an active one (add)
        # Cuts are kept (the store doubling as needed) up to room for a full active set,
        # 2(rank + 2) with rank <= min(n, d), within a memory budget; past that, stale cuts
        # are aggregated.
        full = 2 * (min(n, d) + 2)
        self.limit = max(capacity, min(full, STORE_BYTES // (8 * max(self.row, 1))))
        # The rows of every slot up to the limit are reserved at once: zeroed pages cost no
        # memory until a cut is written to them, and the store then does not copy its rows
        # as it grows (at 50,000 features a doubling copied up to 200 MB).
        self.cuts = np.zeros((self.limit, self.row))
        self._used = 0  # one past the last slot in use (:attr:`used`)
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        if len(self.cuts) < capacity:  # past the limit: the rows double too
            rows = np.zeros((capacity, self.row))
            rows[:len(self.cuts)] = self.cuts
            self.cuts = rows
        self.G = np.zeros((capacity, capacity))
        self.b = np.zeros(capacity)
        # each cut's rounding (:func:`cut_rounding`): of its intercept, and of its h
        self.margin = np.zeros(capacity)
        self.h_error = np.zeros(capacity)
        self.active = np.zeros(capacity, dtype=bool)
        self.idle = np.zeros(capacity, dtype=np.int64)
        self.lam = np.zeros(capacity)

    @property
    def used(self) -> int:
        """One past the last slot in use: products with the cuts stop there."""
        return self._used

    def _recount(self) -> None:
        in_use = self.active.nonzero()[0]
        self._used = int(in_use[-1]) + 1 if len(in_use) else 0

    def combination(self, weights: np.ndarray) -> np.ndarray:
        """``H @ weights`` for weights that vanish on free slots, over their support."""
        support, used = np.flatnonzero(weights), self.used
        if 2 * len(support) < used:
            rows = self.threads.times_rows(weights[support], self.cuts[support])
        else:
            rows = self.threads.times_rows(weights[:used], self.cuts[:used])
        return np.asarray(self.Z.T @ rows).ravel() if self.scores else rows

    def _aggregate_stale(self, patience: int) -> None:
        """Replace the cuts that stayed below the model for ``patience`` rounds by their
        convex combination with the last master weights (valid, and it keeps the last
        master solution feasible, so the lower bound never falls back)."""
        stale = np.flatnonzero(self.idle >= patience)
        if len(stale) < 2:
            return
        weight = self.lam[stale].sum()
        mix = self.lam[stale] / weight if weight > 0 else None
        self.active[stale], self.lam[stale] = False, 0.0
        if mix is not None:
            keep = stale[0]
            self.cuts[keep] = mix @ self.cuts[stale]
            self.faces.rewritten(int(keep))
            self.b[keep] = float(self.b[stale] @ mix)
            self.margin[keep] = float(self.margin[stale] @ mix)
            self.h_error[keep] = float(self.h_error[stale] @ mix)
            column = self.G[:, stale] @ mix
            column[keep] = float(mix @ self.G[np.ix_(stale, stale)] @ mix)
            self.G[:, keep] = self.G[keep, :] = column
            self.active[keep], self.idle[keep] = True, 0
            # the merged cut carries the stale cuts' weight, so Σ λ_c h_c, the last master
            # point, is unchanged and the next master starts there
            self.lam[keep] = weight
        self._compact()
        self._recount()

    def _compact(self) -> None:
        """Move the cuts in use to the first slots, so that the products, which run up to
        the last slot in use, run over them alone."""
        slots = np.flatnonzero(self.active)
        m = len(slots)
        if m == 0 or slots[-1] == m - 1:
            return
        order = np.arange(m)  # new slot i holds old slot order[i]
        holes = np.flatnonzero(~self.active[:m])
        order[holes] = slots[slots >= m]
        self.cuts[holes] = self.cuts[order[holes]]
        for values in (self.b, self.margin, self.h_error, self.idle, self.lam):
            values[:m] = values[order]
        self.G[:m, :m] = self.G[np.ix_(order, order)]
        self.active[:m], self.active[m:] = True, False
        self.faces = FaceCache()  # the slots of the cached face moved

    def _free_slot(self) -> int:
        """A free slot: the first unused one; else, below the slot limit, a new one (the
        capacity doubles, up to the limit); else one freed by aggregating stale cuts (idle
        for ``patience`` rounds, or for one round once the store has used its memory
        budget); else a new one (the capacity doubles past the limit)."""
        if self.active.all() and len(self.b) >= self.limit:
            self._aggregate_stale(self.patience)
            if self.active.all() and 8 * len(self.b) * self.row >= STORE_BYTES:
                self._aggregate_stale(1)
        free = np.flatnonzero(~self.active)
        if len(free):
            return int(free[0])
        m = len(self.b)
        G, b, margin, h_error = self.G, self.b, self.margin, self.h_error
        idle, lam = self.idle, self.lam
        self._allocate(min(2 * m, self.limit) if m < self.limit else 2 * m)
        self.G[:m, :m], self.b[:m], self.active[:m] = G, b, True
        self.margin[:m], self.h_error[:m] = margin, h_error
        self.idle[:m], self.lam[:m] = idle, lam
        return m

    def export(self, key: str, zero_loss: float | None = None) -> Cuts:
        """The cuts of the last master's model (positive weight), for a solve of the same
        loss at another ``C``, with the loss of the zero model when known."""
        active = np.flatnonzero(self.active & (self.lam > 0))
        return Cuts(key, self.scores, self.cuts[active].copy(), self.b[active].copy(),
                    self.margin[active].copy(), self.h_error[active].copy(), self.dual_point,
                    zero_loss, self.last_point, self.G[np.ix_(active, active)].copy(),
                    dict(self.box_faces))

    def seed(self, cuts: Cuts, max_rounding: float = np.inf, norm_w: float = 0.0) -> int:
        """Add the cuts of an earlier solve of the same loss (their rows, intercepts and
        rounding margins as they were made), but for those whose rounding at a point of
        norm ``norm_w`` (``margin + h_error·norm_w``) exceeds ``max_rounding``: made at a
        much larger scale (a path down over C), they would hold the certified bound below
        ``tol`` of a small objective, whatever the rounds add. Returns how many were left
        out (their dual point is the caller's to take)."""
        if cuts.scores != self.scores or cuts.rows.shape[1:] != (self.row,):
            raise ValueError("cuts: made for data of another shape")
        kept = cuts.kept(max_rounding, norm_w)
        # (cuts kept by an estimator pickled before they carried their Gram matrix have
        # none: theirs is computed as each is added)
        if cuts.gram is not None and not self.active.any():
            self._seed_with_gram(cuts, np.flatnonzero(kept))
            return int(len(cuts) - kept.sum())
        for row, offset, margin, h_error in zip(cuts.rows[kept], cuts.intercepts[kept],
                                                cuts.margins[kept], cuts.h_errors[kept]):
            h = np.asarray(self.Z.T @ row).ravel() if self.scores else row
            self.add(h, row, float(offset), (float(margin), float(h_error)),
                     refuse_repeat=False)
        return int(len(cuts) - kept.sum())

    def _seed_with_gram(self, cuts: Cuts, kept: np.ndarray) -> None:
        """Fill an empty store's first slots with the ``kept`` cuts and their Gram block as
        exported: no product with ``Z`` or with the rows, and all of them at once."""
        m = len(kept)
        if len(self.b) < m:
            self._allocate(m)  # (an empty store: nothing to carry over)
        self.cuts[:m], self.b[:m] = cuts.rows[kept], cuts.intercepts[kept]
        self.margin[:m], self.h_error[:m] = cuts.margins[kept], cuts.h_errors[kept]
        self.active[:m], self.idle[:m] = True, 0
        self._used = m
        self.faces = FaceCache()  # (every slot it could hold was rewritten)
        self.G[:m, :m] = cuts.gram[np.ix_(kept, kept)]

    def _occupy(self, row: np.ndarray, offset: float, rounding: tuple[float, float]) -> int:
        """A free slot holding the cut's ``row`` (``h`` or, in score space, ``g``), intercept
        and rounding, in use; its Gram column is the caller's to fill."""
        slot = self._free_slot()
        self.cuts[slot], self.b[slot] = row, offset
        self.margin[slot], self.h_error[slot] = rounding
        self.faces.rewritten(slot)
        self.active[slot], self.idle[slot] = True, 0
        self._used = max(self._used, slot + 1)
        return slot

    def add(self, h: np.ndarray, g: np.ndarray, offset: float, rounding: tuple[float, float],
            refuse_repeat: bool = True) -> bool:
        """Add the cut ``b_c + h·w`` with ``h = Zᵀg`` and its ``rounding`` (the bounds on
        the errors of ``b_c`` and of ``h``, :func:`cut_rounding`), unless
        ``refuse_repeat`` and the store holds it already; whether it was added. Whether
        the store held it is kept in :attr:`repeated` either way."""
        row = g if self.scores else h
        slot = self._occupy(row, offset, rounding)
        used = self._used
        column = np.zeros(len(self.b))
        # h_cᵀh for every stored cut: O(row·slots), the one product with the rows
        column[:used] = self.threads.rows_times(
            self.cuts[:used], np.asarray(self.Z @ h).ravel() if self.scores else h)
        self.repeated = self._repeats(slot, row, offset, column)
        if refuse_repeat and self.repeated:
            self.active[slot] = False
            self._recount()
            return False
        self.G[:, slot] = self.G[slot, :] = column
        return True

    def _repeats(self, slot: int, row: np.ndarray, offset: float, column: np.ndarray
                 ) -> bool:
        """Whether an active cut other than ``slot`` has the same row and intercept (to
        rounding): a query on a piece of ``L`` the model holds already gives that piece's
        cut again. Found through the Gram column (``h_c·h = ‖h‖² = ‖h_c‖²``) and confirmed
        on the rows themselves."""
        norm = column[slot]
        close = 1e-12 * max(norm, 1e-300)
        near = (np.abs(column[:self._used] - norm) <= close).nonzero()[0]
        return any(c != slot and self.active[c] and abs(self.G[c, c] - norm) <= close
                   and abs(self.b[c] - offset) <= 1e-12 * max(1.0, abs(offset))
                   and np.array_equal(self.cuts[c], row) for c in near)

    def aggregate_line(self, w: np.ndarray, d: np.ndarray, w_c: np.ndarray, C: float
                       ) -> tuple[float, float]:
        """The last master's aggregate cut ``Σ λ_c (b_c + h_c·x)`` (a convex combination of
        cuts, so below ``L``, and equal to the cut model at ``w_c``) along ``x = w + τd``:
        its intercept and slope in ``τ``. Its ``Σ λ_c h_c`` is ``−w_c/C``: no product with
        the cuts (to the master's accuracy where ``w_c`` is the rows' program's own point,
        :func:`.master.solve_master`; the line search it steers only moves the best point,
        whose objective is evaluated, never the lower bound)."""
        return float(self.b @ self.lam) - float(w @ w_c) / C, -float(d @ w_c) / C


def cut_rounding(intercept: float, g: np.ndarray, scores: np.ndarray | None,
                  row_norms: np.ndarray, every_item: bool = False) -> tuple[float, float]:
    """What rounding can have put into a cut ``L(Zw) >= b + hᵀw``: the intercept ``b = L(s)
    − g·s`` is a difference of sums of ``n`` terms (error at most ``2(n+1)·ε·(|L(s)| +
    |g|·|s|)``; ``scores`` None for an intercept that reads no score, a dual solve's or one
    read off ``g``, :meth:`cvxtop.surrogates.base.Surrogate.intercept_of`), and entry ``j`` of
    the computed ``h = Zᵀg`` lies within ``γ·Σ_i |g_i||Z_ij|`` of the exact one, so ``h``
    within ``γ·Σ_i |g_i|·‖Z_i‖`` (``row_norms``: the ``‖Z_i‖``), where ``γ`` is ``ε`` times
    the terms one entry sums: the items where ``g`` is not zero (adding an exact zero rounds
    nothing), and one more for a difference of two such products (a dual solve's ``X₋ᵀu −
    X₊ᵀv``), or every item (``every_item``: a store in score space, whose combination ``Zᵀ(Σ
    α_c g_c)`` sums over the union of the cuts' items). The lower bound counts the intercept
    lowered by the first and the norm of the cuts' combination raised by the second
    (:func:`cvxtop.solvers.master.solve_master`), so that it holds whatever the scale: at
    scores near 1e20 an intercept loses its digits to the products it is the difference of,
    and without these margins a bound came out above a feasible objective. Weighing each
    item by its own row's norm and counting only the items of ``g`` took the second 23 to 70
    times lower on spambase's features as shipped (``‖g‖·‖Z‖_F`` and ``n`` before), where it
    had held pAp@k-TS's bound 6.6e-7 below the optimum at the default C (docs/solvers.md,
    "The cuts' rounding")."""
    n, eps = len(g), np.finfo(np.float64).eps
    spread = abs(intercept) if scores is None else \
        abs(intercept) + float(np.abs(g) @ np.abs(scores))
    terms = n if every_item else np.count_nonzero(g) + 1
    return 2.0 * (n + 1) * eps * spread, (terms + 1) * eps * float(np.abs(g) @ row_norms)

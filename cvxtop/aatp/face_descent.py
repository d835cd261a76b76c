"""The candidate duals (Boyd et al. 2012, eq. 4) on a Gram matrix: coordinate descent with
exact face steps, robust to degenerate kernels.

For candidate ``k`` the dual is ``min φ(α) = ½ αᵀQα − 1ᵀα`` over ``0 ≤ α ≤ u`` with
``Q_st = y_s y_t K_k(z_s, z_t)`` and ``K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z') +
K(z_k, z_k)``: a support-vector dual without the bias's equality constraint. Clustered
data, heavy tails and near-duplicate rows make ``K`` nearly singular (half the eigenvalues
of a real RBF Gram matrix below ``1e-8·λ_max``), so every method here only ever *decreases*
``φ`` and never needs a face matrix to be well conditioned:

* **Face steps.** On the free slots ``F`` (strictly inside the box), the Newton step of the
  face, ``Q_FF d = −∇_F φ``, solved through a Cholesky factor with a ridge of ``1e-13·max
  Q_ss`` (a least-squares solve if that fails). From :data:`SHARED_FACTOR_FROM` slots the
  face equations go through one factor shared across candidates and neighbouring free sets
  (:mod:`.face_system`: the anchor changes ``Q`` by a term of rank two), which local kernels
  need, where nearly every slot is free for every candidate. ``φ`` is a convex quadratic
  along ``d``, decreasing up to the step 1, so the largest step inside the box decreases
  it; the slot that blocks it goes to its bound, leaves ``F``, and the step is taken again
  on the smaller face (the primal active-set method). Directions of zero curvature
  (repeated points) are followed to the box, where the objective is lowest along them.
* **Coordinate steps.** Slots at a bound whose gradient points into the box enter through
  greedy single-coordinate steps, each the exact minimizer along its coordinate (clipped
  to the box) of the coordinate with the largest decrease of ``φ`` (a second-order working
  set selection, Fan, Chen & Lin 2005, as in libsvm's SMO).
* **Rounds and warm starts.** A round is face steps, then a burst of coordinate steps, then
  the point's certificate from exact products ``K β`` of the support. Candidates follow a
  nearest-neighbour tour (:mod:`.candidates`) and each starts from its predecessor's
  optimum, which differs from its own only through the anchor ``z_k``: a few rounds
  suffice.
* **Certificate and fallback.** Every result is certified by the duality gap of
  :mod:`.problem`, computed from the exact products at the end. If the rounds do not get
  there, the last point certifies a ball around the optimal ``w`` (gap-safe screening,
  Ndiaye et al. 2017): slots whose margin is provably above or below 1 are fixed at 0 or
  ``u``, and the remaining QP is solved by the dense interior point of :mod:`cvxtop.qp.box`.
  For the linear kernel, a candidate still uncertified goes to eq. (2) in cvxpy on the
  features, certified through its own ``w`` (:meth:`FaceDescentSolver._by_primal`).
* **Screening of candidates.** Given an upper bound on the smallest candidate gap of the
  selection rule (:mod:`.selection`), every round's certified point bounds this
  candidate's gap ``|q̂_k|``: its own score is 0 by construction, and ``‖w − w*‖ ≤ √G``
  (:func:`.problem.distance_bound`) moves every score ``h(z_j)`` by at most
  ``√G·‖φ(z_j) − φ(z_k)‖``. A candidate whose
  interval lies above the bound plus the rule's tolerance cannot be chosen; its solve stops
  there (status :data:`SCREENED_STATUS`). So does a candidate whose dual value, at its
  start or at any round, exceeds the objective of a solved candidate of gap exactly 0 by
  twice the rule's tolerance (:func:`.selection.objective_excludes`).
* **libsvm's point.** The point libsvm's SMO solver finds for the candidate's dual
  (:mod:`.libsvm_start`) serves twice: first as a screen (when ``C`` is small its gap is
  small enough to screen at once, where a neighbour's optimum, whose margins the new anchor
  shifts, is not), then, when the pivots from the neighbour's point give up, as the start
  of pivots of its own (its partition is nearly right). Each use that misses pauses the
  next ones (:data:`LIBSVM_PAUSE`). Whether libsvm is asked at all is decided by the work
  that candidates took with it and without it (moving averages, in reads of Gram entries:
  :data:`FACE_SOLVE_WORK` and the other weights below), the cheaper way being taken and
  the other probed now and then (:class:`_Race`).
* **Corrections of the start.** Before libsvm is asked for a screen, the neighbour's
  point is corrected: its free slots shifted together along ``±y_s`` (a new anchor moves
  their margins by about the same amount) to the minimum on that line, then a round's face
  and coordinate steps on the slots that contribute most to the duality gap, up to three
  times (:meth:`FaceDescentSolver._corrected`). Where that screens the candidate, libsvm is
  not asked. They are tried while their work is below their rate of screens times the
  work of libsvm's screen (:class:`_Corrections`).

Entries of the Gram matrix are read as float64 (:class:`_Rows`): a float64 matrix in place,
memory-mapped or not, and a float32 one converted row by row as the solver asks, never
whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterator, Sequence

import numpy as np
from scipy.linalg import LinAlgError

from .._threads import single_threaded_blas
from ..cutoff import tau_cutoff
from ..exceptions import SolverError
from ..gram import Gram
from ..qp import solve_box_qp
from .face_system import FaceSystem, ShrinkingFace, cholesky_solve, ridged_cholesky
from .libsvm_start import LibsvmStart
from .primal import PrimalQP
from .problem import (CERTIFICATE_RTOL, SCALE_ADVICE, SCREENED_STATUS, AATPProblem,
                      CandidateSolution, distance_bound, weighted_top_quantile)
from .selection import GAP_ATOL, ScreenBounds, objective_excludes

__all__ = ["FaceDescentSolver", "SCREENED_STATUS", "PRIMAL_STATUS", "REDUCED_PAUSE",
           "TARGET_RTOL", "MAX_ROUNDS", "BURST",
           "WORKING_SET", "LIBSVM_PAUSE", "LIBSVM_PROBE", "LIBSVM_PROBE_MAX",
           "FACE_SOLVE_WORK", "PRODUCT_WORK", "LIBSVM_KERNEL_WORK", "LIBSVM_STEP_WORK",
           "SNAP", "COLD_START_MEMORY", "CORRECTIONS", "CORRECTION_SLOTS", "CORRECTION_PROBE"]

#: Status of a candidate certified by eq. (2) in cvxpy through its own ``w``
#: (:meth:`FaceDescentSolver._by_primal`).
PRIMAL_STATUS = "optimal (cvxpy primal)"
#: Target of the relative duality gap of a candidate's solution (the certificate asks
#: for :data:`~.problem.CERTIFICATE_RTOL`; the selection rule's intervals shrink with it).
TARGET_RTOL = 1e-10
#: Rounds (face steps, a burst of coordinate steps, a certificate) before the fallback.
MAX_ROUNDS = 100
#: Greedy coordinate steps in a round, after its face steps; the burst ends early when a
#: step would decrease ``φ`` by less than ``BURST_RTOL`` times the first one.
BURST = 30
BURST_RTOL = 1e-3
#: Bound slots a round may move besides the free ones (:meth:`_working_set`).
WORKING_SET = 200
#: Face steps in a round (each drops the slot that blocked the last one).
MAX_FACE_STEPS = 50

#: Face systems of at least this many slots are solved through the factor shared across
#: candidates (:mod:`.face_system`); smaller ones are factored directly, which is cheaper.
SHARED_FACTOR_FROM = 200
#: The shared factor is no longer tried once its misses (failed solves, and inverses that
#: served a single solve) outnumber its solves by this many.
SHARED_MISSES = 16

#: Corrections of a neighbour's start that may screen a candidate before libsvm is asked
#: (:meth:`FaceDescentSolver._corrected`): rounds of a shift of the free slots and face
#: steps on the :data:`CORRECTION_SLOTS` slots that contribute most to the duality gap.
#: They are tried while they pay (:class:`_Corrections`), and otherwise on every
#: :data:`CORRECTION_PROBE`-th chance.
CORRECTIONS, CORRECTION_SLOTS, CORRECTION_PROBE = 3, 150, 16

#: Block principal pivots a candidate starts with (:meth:`FaceDescentSolver._pivots`).
PIVOTS = 8
#: Switches asked for by the first pivot above which the pivots start again, once, from
#: the start corrected by :meth:`FaceDescentSolver._shifted` and
#: :meth:`FaceDescentSolver._local`: so many switches mean that the start's partition is
#: far from the optimum's, and block pivots from it overshoot (docs/aatp.md, "Solvers and
#: certificates").
RESTART_SWITCHES = 64
#: Candidates that skip the pivots after pivoting failed on one: the pause doubles with
#: every failure in a row, up to this many, and ends at the first success.
PIVOT_PAUSE = 16

#: Where eq. (2) on the features can take a candidate over (:meth:`FaceDescentSolver.
#: _by_primal`), candidates that skip the reduced interior point after it failed on one:
#: the pause doubles with every failure in a row, up to this many, and ends at the first
#: success. On 400 raw spambase rows with 10 more columns (67) at C = 1e4 it failed on
#: all 191 candidates it was given, most of the fit's time (measured: docs/aatp.md,
#: "Features as shipped (badly scaled)").
REDUCED_PAUSE = 64
#: Candidates that skip libsvm's point (:mod:`.libsvm_start`) after it missed: as a
#: screen, and as a start of the pivots, each with its own pause, which doubles with every
#: miss in a row, up to this many, and ends at the first hit.
LIBSVM_PAUSE = 64
#: The way (with or without libsvm's point) whose candidates took more work is probed on
#: the this-many-th candidate after the lead changed; the interval doubles, up to
#: :data:`LIBSVM_PROBE_MAX`, while the probes keep losing (:class:`_Race`).
LIBSVM_PROBE = 16
LIBSVM_PROBE_MAX = 256
#: The work of a candidate, counted in reads of one Gram entry (an entry of a face matrix
#: or of the working set's columns): a face solve counts :data:`FACE_SOLVE_WORK`, a Gram
#: row combined into updated products ``K β`` :data:`PRODUCT_WORK` per entry, and a libsvm
#: fit :data:`LIBSVM_KERNEL_WORK` per entry of its kernel matrix (the checks of the call)
#: plus :data:`LIBSVM_STEP_WORK` per slot and iteration. The weights are a least-squares
#: fit of candidates' times on 12 cells of the kernel benchmark (docs/aatp.md,
#: "Screening of candidates"); they only decide which way is faster, never a result.
FACE_SOLVE_WORK = 10_000.0
PRODUCT_WORK = 0.13
LIBSVM_KERNEL_WORK = 0.3
LIBSVM_STEP_WORK = 0.2
_WORK_WEIGHT = 0.2  # weight of the newest candidate in the moving average

#: A start's slots this close to a bound (relative to ``u``) start at it
#: (:meth:`FaceDescentSolver._start`).
SNAP = 1e-8
#: Bytes the slots' kernel matrix may take for libsvm's point to start the first
#: candidate where it is too large to keep (:data:`.libsvm_start.MEMORY`): up to about
#: 5,800 slots, one fit, its matrix dropped after it (:meth:`FaceDescentSolver._start`).
COLD_START_MEMORY = 2 ** 28

_RIDGE = 1e-13  # relative to max Q_ss: the face matrices' ridge
_PIVOT_GRADIENT = 1e-10  # a bound slot's gradient this far on the wrong side is optimal
_ZERO_CURVATURE = 1e-12  # relative to max K_ss: a slot with Q_ss below this has b_s = 0


def _moving_average(average: float | None, value: float) -> float:
    """``average`` moved towards ``value`` by :data:`_WORK_WEIGHT` (``value`` if none yet)."""
    return value if average is None else average + _WORK_WEIGHT * (value - average)


def _ridge(Q: np.ndarray) -> float:
    """The ridge of a face matrix: :data:`_RIDGE` relative to its largest diagonal entry."""
    return _RIDGE * max(1.0, float(np.max(np.diag(Q))))


def _into_box(x: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``x`` clipped to ``[0, upper]``, in place (two ufunc calls: in the rounds' loops on a
    few dozen slots, ``np.clip``'s dispatch costs more than the clipping)."""
    np.maximum(x, 0.0, out=x)
    return np.minimum(x, upper, out=x)


def _product(Q: np.ndarray, slots: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Q[:, slots] @ x`` as one product with the whole ``Q``: no copy of its
    columns, which costs more than the product once the working set has thousands of
    slots."""
    full = np.zeros(len(Q))
    full[slots] = x
    return Q @ full


def _submatrix(M: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``M[rows][:, columns]`` as two gathers, the smaller index set first: cheaper than
    one gather of both (``np.ix_``) once the block has many rows and columns."""
    if len(columns) < len(rows):
        return M.take(columns, axis=1).take(rows, axis=0)
    return M.take(rows, axis=0).take(columns, axis=1)


class _Rows:
    """The Gram matrix's entries as float64: the matrix itself when it is a float64 array,
    in memory or memory-mapped (read in place: joblib hands a worker a large Gram matrix as
    a memory map), otherwise rows converted on demand and kept in one buffer while they are
    asked for (about twice the rows of the last request plus 64), so that a float32 matrix
    is never converted whole."""

    def __init__(self, gram: Gram, capacity: int = 64) -> None:
        self.gram = gram
        values = gram.values
        self.direct = np.asarray(values) if isinstance(values, np.ndarray) \
            and values.dtype == np.float64 else None  # (asarray: a memory map's plain view)
        self.buffer = np.empty((0 if self.direct is not None else capacity, gram.n))
        self.item_at = np.full(len(self.buffer), -1, dtype=np.int64)
        self.position = np.full(gram.n, -1, dtype=np.int64)
        self.used = 0

    def block(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``K[rows][:, columns]`` (a new array)."""
        if self.direct is not None:
            return _submatrix(self.direct, rows, columns)
        positions = self._positions(rows)  # may replace the buffer: look it up after
        return _submatrix(self.buffer, positions, columns)

    def combine(self, items: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``Σ_j coef_j K[items_j]``: one product with the whole matrix when the items are
        many, else with their rows."""
        if len(items) == 0:
            return np.zeros(self.gram.n)
        if self.direct is not None:
            if 4 * len(items) > self.gram.n:
                full = np.zeros(self.gram.n)
                full[items] = coef
                return self.direct @ full  # K is symmetric
            return coef @ self.direct[items]
        positions = self._positions(items)
        return coef @ self.buffer[positions]

    def _positions(self, items: np.ndarray) -> np.ndarray:
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


@dataclass(frozen=True)
class _Anchor:
    """Candidate ``k``'s anchor: ``row = K(z, z_k)`` over the items and ``kk = K(z_k,
    z_k)``; ``curvature`` is ``Q_ss = K_k(z_s, z_s)`` per slot."""

    k: int
    row: np.ndarray
    kk: float
    curvature: np.ndarray


@dataclass(frozen=True)
class _Iterate:
    """A point ``alpha`` in the box, its scores and its certificate."""

    alpha: np.ndarray
    v: np.ndarray  # K β over the items
    scores: np.ndarray  # h over the items (0 at the anchor)
    margins: np.ndarray  # per slot
    gap: float
    primal: float
    dual: float
    exact: bool  # from exact products of the support (else from updated ones)


class _Pause:
    """When to try a method that may miss: after a miss it is skipped for a pause that
    doubles with every miss in a row (up to a limit) and ends at the first hit."""

    def __init__(self) -> None:
        self.skip = 0  # candidates left before the next try
        self.length = 0  # the current pause

    def ready(self) -> bool:
        """Whether to try now (a skipped candidate counts down the pause)."""
        if self.skip > 0:
            self.skip -= 1
            return False
        return True

    def record(self, hit: bool, limit: int) -> None:
        self.length = 0 if hit else min(limit, max(1, 2 * self.length))
        self.skip = self.length


class _Race:
    """Which of two ways to take, from the work of the candidates given each: the way of
    less typical work (a moving average of its logarithm, :data:`_WORK_WEIGHT` for the
    newest, so that one candidate of outlying work does not turn the choice), and on
    probes the other, every :data:`LIBSVM_PROBE`-th candidate after the lead changed,
    then less often while the probes keep losing (up to :data:`LIBSVM_PROBE_MAX`). The
    first candidate takes ``False``, the first probe ``True``."""

    def __init__(self) -> None:
        self.log_work: dict[bool, float] = {}  # way → moving average of log(1 + work)
        self.interval = LIBSVM_PROBE
        self.until_probe = LIBSVM_PROBE
        self.probing = False  # whether the current candidate is a probe

    def leader(self) -> bool:
        """The way taken but on probes."""
        if len(self.log_work) < 2:
            return next(iter(self.log_work), False)
        return bool(self.log_work[True] < self.log_work[False])

    def choose(self) -> bool:
        """The way of the next candidate."""
        if not self.log_work:
            return False
        self.until_probe -= 1
        self.probing = self.until_probe <= 0
        return self.leader() != self.probing

    def record(self, way: bool, work: float) -> None:
        """Add a candidate that was given ``way`` (a way's pauses are part of it) and took
        ``work``. When the lead changes the probe interval starts again; after a probe
        that leaves it, the interval doubles."""
        leader = self.leader()
        old = self.log_work.get(way)
        new = float(np.log1p(work))
        self.log_work[way] = _moving_average(old, new)
        changed = self.leader() != leader
        if changed:
            self.interval = LIBSVM_PROBE
        elif self.probing:
            self.interval = min(LIBSVM_PROBE_MAX, 2 * self.interval)
        if self.probing or changed:
            self.until_probe = self.interval
        self.probing = False


class _Corrections:
    """Whether to correct the start before asking libsvm for a screen: when the
    corrections' work (moving averages, :data:`_WORK_WEIGHT` for the newest, in the units
    of :data:`FACE_SOLVE_WORK`) is below their rate of screens times the work of libsvm's
    screen, which they save when they screen. libsvm's screen is measured first; the
    corrections are then tried, and while they do not pay, probed on every
    :data:`CORRECTION_PROBE`-th chance. (Where libsvm is cheap, on a few hundred slots,
    the corrections screened as often but cost more than the calls they saved.)"""

    def __init__(self) -> None:
        self.work: float | None = None  # of a try of the corrections
        self.rate: float | None = None  # of their screens
        self.libsvm: float | None = None  # of libsvm's screen
        self.chances = 0

    def worth(self) -> bool:
        """Whether to try the corrections on this chance."""
        if self.libsvm is None:
            return False
        if self.work is None or self.rate is None:
            return True
        self.chances += 1
        return self.work < self.rate * self.libsvm or self.chances % CORRECTION_PROBE == 0

    def record(self, work: float, hit: bool) -> None:
        """A try of the corrections: its work, and whether it screened."""
        self.rate = _moving_average(self.rate, float(hit))
        self.work = _moving_average(self.work, work)

    def record_libsvm(self, work: float) -> None:
        """The work of a screen by libsvm's point."""
        self.libsvm = _moving_average(self.libsvm, work)


class FaceDescentSolver:
    """Certified kernel-form solver of eq. (4) for many candidates (module docstring).

    ``iter_solutions(candidates, progress, bound)`` yields one
    :class:`CandidateSolution` per candidate, in order; with ``bound`` (a callable
    returning the :class:`~.selection.ScreenBounds` of the candidates solved so far)
    candidates that provably cannot be chosen stop early with status
    :data:`SCREENED_STATUS` and carry bounds instead of an optimum. ``tau`` is needed for
    that screening only.
    """

    name = "fast"

    def __init__(self, problem: AATPProblem, gram: Gram, tau: float | None = None, *,
                 rtol: float = TARGET_RTOL, max_rounds: int = MAX_ROUNDS,
                 burst: int = BURST, libsvm: bool = True) -> None:
        self.problem = problem
        self.gram = gram
        self.tau = tau
        self.rtol = rtol
        self.max_rounds = max_rounds
        self.burst = burst
        self.item = problem.slot_item
        self.sign = problem.slot_sign
        self.u = problem.upper
        self.diag = gram.diagonal
        self.rows = _Rows(gram)
        # Q_ss = K_ss − 2 K_sk + K_kk ≤ 4 max K_ss: one ridge for every face and anchor
        self.faces = FaceSystem(self.rows.block, self.item, self.sign,
                                _RIDGE * max(1.0, 4.0 * float(np.max(self.diag))))
        self.alpha = np.zeros(len(self.u))  # the last point: the next warm start
        self.v = np.zeros(gram.n)  # its products K β
        self.last_anchor: int | None = None  # the anchor of that point
        # the slots of an item (:meth:`_slots_of`): the slots by item, where each item's start
        self._slot_order = np.argsort(self.item, kind="stable")
        self._slot_starts = np.searchsorted(self.item[self._slot_order], np.arange(gram.n + 1))
        self._shared_misses = 0  # misses of the shared factor less its solves (at least 0)
        # libsvm's solutions screen candidates and start the pivots when a neighbour's do
        # not: only with a kernel matrix of the slots that fits in memory
        self.libsvm = self._new_libsvm() if libsvm and LibsvmStart.fits(len(self.u)) \
            else None
        # beyond that, the first candidate starts from libsvm's point where its kernel fits
        # a larger budget, for that one fit (:meth:`_start`)
        self._cold_libsvm = libsvm and self.libsvm is None \
            and LibsvmStart.fits(len(self.u), COLD_START_MEMORY)
        self._pivot_pause, self._screen_pause, self._start_pause = _Pause(), _Pause(), _Pause()
        self._corrections = _Corrections()
        self._work = 0.0  # work so far, in Gram entries read (FACE_SOLVE_WORK)
        self._libsvm_race = _Race()  # whether a candidate may ask libsvm
        self._warm = False  # whether a candidate was solved (the next starts from it)
        self._primal: PrimalQP | None = None  # eq. (2) in cvxpy (:meth:`_by_primal`)
        self._reduced_pause = _Pause()  # of the reduced interior point, before eq. (2)

    # ---- the candidate's data -------------------------------------------------------------
    def _anchor(self, k: int) -> _Anchor:
        row = self.gram.rows(int(k))
        kk = float(self.diag[k])
        items = self.item
        return _Anchor(int(k), row, kk, self.diag[items] - 2.0 * row[items] + kk)

    def _columns(self, anchor: _Anchor, slots: np.ndarray, within: np.ndarray) -> np.ndarray:
        """``Q[within, slots]``."""
        items, rows_of = self.item[slots], self.item[within]
        self._work += len(slots) * len(within)
        anchored = self.rows.block(rows_of, items) - anchor.row[rows_of][:, None] \
            - (anchor.row[items] - anchor.kk)[None, :]
        return anchored * self.sign[within][:, None] * self.sign[slots][None, :]

    # ---- points ---------------------------------------------------------------------------
    def _products(self, alpha: np.ndarray) -> np.ndarray:
        """``K β`` over the items, ``β`` the signed dual weights summed per item, computed
        from the support."""
        beta = np.bincount(self.item, weights=self.sign * alpha, minlength=self.gram.n)
        items = np.flatnonzero(beta)
        return self.rows.combine(items, beta[items])

    def _moved(self, v: np.ndarray, slots: np.ndarray, delta: np.ndarray) -> np.ndarray:
        """``K β`` after the slots ``slots`` moved by ``delta`` (rows of the moved items)."""
        change = np.bincount(self.item[slots], weights=self.sign[slots] * delta,
                             minlength=self.gram.n)
        items = np.flatnonzero(change)
        self._work += PRODUCT_WORK * len(items) * self.gram.n
        return v + self.rows.combine(items, change[items]) if len(items) else v

    def _iterate(self, anchor: _Anchor, alpha: np.ndarray, v: np.ndarray | None = None
                 ) -> _Iterate:
        """``alpha``'s scores, margins and certificate from ``v = K β``: exact products of
        the support when ``v`` is not given (updated ones only steer the rounds; every
        bound and certificate that leaves the solver is computed from exact ones)."""
        exact = v is None
        v = self._products(alpha) if exact else v
        sigma = float(self.sign @ alpha)
        scores = v - sigma * anchor.row - (v[anchor.k] - sigma * anchor.kk)
        margins = self.sign * scores[self.item]
        slack = 1.0 - margins
        hinge = float(self.u @ np.maximum(slack, 0.0))
        half_sq = 0.5 * float(alpha @ margins)  # ‖w‖² = Σ_s α_s m_s
        gap = hinge - float(alpha @ slack)  # Σ_s [u_s (1 − m_s)₊ − α_s (1 − m_s)] ≥ 0
        return _Iterate(alpha.copy(), v, scores, margins, gap, half_sq + hinge,
                        float(alpha.sum()) - half_sq, exact)

    def _certified(self, point: _Iterate, rtol: float) -> bool:
        return point.gap <= rtol * max(1.0, abs(point.primal))

    # ---- the two kinds of step ----------------------------------------------------------------
    def _newton(self, Q: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``Q⁻¹ g`` through a Cholesky factor with a ridge (least squares if it fails)."""
        ridge = _ridge(Q)
        try:
            return cholesky_solve(ridged_cholesky(Q, ridge), g)
        except LinAlgError:
            return np.linalg.lstsq(Q + ridge * np.eye(len(Q)), g, rcond=None)[0]

    def _face_newton(self, anchor: _Anchor, slots: np.ndarray, g: np.ndarray,
                     Q: np.ndarray | None = None, new_factor: bool = True) -> np.ndarray:
        """``Q⁻¹ g`` on the sorted ``slots`` (``Q = Q[slots, slots]``, formed when not
        given): through the shared factor of :mod:`.face_system` from
        :data:`SHARED_FACTOR_FROM` slots (without ``new_factor``, only if its current base
        serves them), else (or if that has no factor) directly."""
        self._work += FACE_SOLVE_WORK
        d = None
        if len(slots) >= SHARED_FACTOR_FROM and self._shared_misses <= SHARED_MISSES \
                and (new_factor or self.faces.fits(slots)):
            factors = self.faces.factorizations
            d = self.faces.solve(anchor.k, anchor.row, anchor.kk, slots, g)
            # a miss costs a direct solve on top, and an inverse that served one solve
            # costs more than a direct factor: data whose faces it keeps missing
            # (near-duplicate rows) or whose free sets keep moving stop asking
            wasted = self.faces.factorizations > factors and self.faces.short_lived
            self._shared_misses = max(0, self._shared_misses
                                      + (1 if d is None or wasted else -1))
        if d is None:
            d = self._newton(self._columns(anchor, slots, slots) if Q is None else Q, g)
        return d

    def _face_steps(self, anchor: _Anchor, alpha: np.ndarray, G: np.ndarray,
                    work: np.ndarray, Q: np.ndarray) -> None:
        """Newton steps on the working set ``work`` (``Q = Q[work, work]``; ``G = −∇φ`` on
        ``work``, updated in place). First the step of the whole set as if every slot in it
        were free, clipped to the box: taken when it decreases ``φ``, it moves the many
        slots that enter or leave a bound after a change of anchor at once. Otherwise the
        face steps of the primal active-set method (module docstring)."""
        u = self.u[work]
        a = alpha[work]
        step = _into_box(a + self._face_newton(anchor, work, G, Q, False), u) - a
        change = Q @ step
        if float(step @ (0.5 * change - G)) < 0.0:
            alpha[work] = a + step
            G -= change
            return
        local = np.flatnonzero((a > 0.0) & (a < u))
        shrinking = None  # one factor for the faces of this loop, each a slot smaller
        for _ in range(MAX_FACE_STEPS):
            if len(local) == 0:
                break
            d = None
            if shrinking is None and not self.faces.fits(work[local]):
                try:
                    face = _submatrix(Q, local, local)
                    shrinking = ShrinkingFace(face, _ridge(face))
                except LinAlgError:
                    shrinking = False
            if shrinking:
                d = shrinking.solve(G[local])
                if not float(d @ G[local]) > 0.0:  # not a descent direction: round-off
                    d = None
            if d is None:
                d = self._face_newton(anchor, work[local], G[local],
                                      _submatrix(Q, local, local), False)
            start, top = a[local], u[local]
            clipped = _into_box(start + d, top) - start
            change = _product(Q, local, clipped)
            if float(clipped @ (0.5 * change[local] - G[local])) < 0.0:
                # the face's whole step, clipped, still decreases φ: several slots reach
                # their bounds at once (the common case); the next round goes on
                a[local] = start + clipped
                G -= change
                break
            room = np.divide(np.where(d > 0, top - start, -start), d,
                             out=np.full(len(d), np.inf), where=(d > 0) | (d < 0))
            block = int(np.argmin(room))
            t = min(1.0, float(room[block]))
            new = _into_box(start + t * d, top)
            if t < 1.0:
                new[block] = top[block] if d[block] > 0 else 0.0
            a[local] = new
            G -= _product(Q, local, new - start)
            if t >= 1.0:
                break
            local = np.concatenate((local[:block], local[block + 1:]))
            if shrinking:
                shrinking.remove(block)
        alpha[work] = a

    def _coordinate_steps(self, anchor: _Anchor, alpha: np.ndarray, G: np.ndarray,
                          work: np.ndarray, Q: np.ndarray, inverse: np.ndarray) -> None:
        """Up to :attr:`burst` greedy exact coordinate steps on the working set ``work``
        (``Q = Q[work, work]``); ``G`` on ``work`` is updated in place."""
        u, half = self.u[work], 0.5 * anchor.curvature[work]
        a, inv = alpha[work], inverse[work]
        low, high = -a, u - a  # the steps that reach the bounds
        step, gain, row = np.empty(len(work)), np.empty(len(work)), np.empty(len(work))
        first = None
        for _ in range(self.burst):
            # step = clip(G·inv, −a, u − a) and gain = step·(G − ½Q_ss·step), in place:
            # the burst's cost is these calls' overhead on a few hundred slots
            np.multiply(G, inv, out=step)
            np.maximum(step, low, out=step)
            np.minimum(step, high, out=step)
            np.multiply(half, step, out=gain)
            np.subtract(G, gain, out=gain)
            gain *= step
            i = int(gain.argmax())
            first = gain[i] if first is None else first
            if gain[i] <= BURST_RTOL * first:  # the rest are worth less than a round
                break
            moved = step[i]
            a[i] += moved
            low[i], high[i] = -a[i], u[i] - a[i]
            np.multiply(Q[i], moved, out=row)  # Q is symmetric: its row, read contiguously
            G -= row
        alpha[work] = a

    def _working_set(self, anchor: _Anchor, alpha: np.ndarray, G: np.ndarray,
                     live: np.ndarray, inverse: np.ndarray) -> np.ndarray:
        """The slots a round may move: the free ones and the bound ones whose coordinate
        steps decrease ``φ`` most (at most :data:`WORKING_SET` of those); the others keep
        their values until the round's exact products give every gradient again."""
        step = _into_box(alpha + G * inverse, self.u) - alpha
        gain = step * (G - 0.5 * anchor.curvature * step)
        gain[~live] = 0.0
        free = live & (alpha > 0.0) & (alpha < self.u)
        entering = np.flatnonzero(~free & (gain > 0.0))
        if len(entering) > WORKING_SET:
            entering = entering[np.argpartition(-gain[entering], WORKING_SET)[:WORKING_SET]]
        free[entering] = True
        return np.flatnonzero(free)

    # ---- corrections of a neighbour's start ---------------------------------------------
    def _corrected(self, anchor: _Anchor, point: _Iterate, live: np.ndarray,
                   inverse: np.ndarray, bound: ScreenBounds) -> tuple[_Iterate, bool]:
        """Up to :data:`CORRECTIONS` rounds of :meth:`_shifted` and :meth:`_local` from
        ``point`` (a neighbour's optimum, handed over), each followed by the screen of
        :meth:`_excluded`: the last point, and whether it screens the candidate.

        Why these two moves: a new anchor changes the margins ``m_s`` of the slots by
        ``y_s [σ (K(z_s, z_k) − K(z_s, z_l)) + c]`` for the old anchor ``l``, with ``c`` the same
        for every slot. On a local kernel the first term vanishes but near the two anchors,
        so the neighbour's free slots far from the anchors all sit off their margin of 1 by
        about ``±c``: one shift undoes that, where the face steps of the rounds, on every
        free slot, pay for a factor of the whole face. The slots near the anchors, which hold
        the rest of the start's duality gap (on magic 5% at γ·d = 10, C = 0.01, about half),
        are among those of :meth:`_local`."""
        for _ in range(CORRECTIONS):
            point = self._local(anchor, self._shifted(anchor, point, live), live, inverse)
            point, hit = self._excluded(anchor, point, bound)
            if hit:
                return point, True
        return point, False

    def _shifted(self, anchor: _Anchor, point: _Iterate, live: np.ndarray) -> _Iterate:
        """``point`` moved along ``d_s = ±y_s`` on its free slots (the sign of descent), to the
        minimum of ``φ`` on that line within the box: one product of the moved items' rows,
        the curvature ``dᵀQd = ‖Σ_s d_s b_s‖²`` from it."""
        alpha, u = point.alpha, self.u
        free = np.flatnonzero(live & (alpha > 0.0) & (alpha < u))
        if len(free) == 0:
            return point
        G = 1.0 - point.margins
        d = self.sign[free] * (1.0 if float(G[free] @ self.sign[free]) >= 0.0 else -1.0)
        slope = float(G[free] @ d)  # −∇φ·d ≥ 0
        change = self._moved(np.zeros(self.gram.n), free, d)  # K Δβ
        delta = np.bincount(self.item[free], weights=self.sign[free] * d,
                            minlength=self.gram.n)
        shift = float(delta.sum())
        curvature = float(delta @ change) - 2.0 * shift * float(anchor.row @ delta) \
            + shift * shift * anchor.kk
        if not (slope > 0.0 and curvature > 0.0):
            return point
        room = np.where(d > 0.0, u[free] - alpha[free], alpha[free])  # |d_s| = 1
        step = min(slope / curvature, float(room.min()))
        moved = alpha.copy()
        moved[free] = np.clip(alpha[free] + step * d, 0.0, u[free])
        return self._iterate(anchor, moved, point.v + step * change)

    def _local(self, anchor: _Anchor, point: _Iterate, live: np.ndarray,
               inverse: np.ndarray) -> _Iterate:
        """The face and coordinate steps of a round (:meth:`_face_steps`,
        :meth:`_coordinate_steps`) on the :data:`CORRECTION_SLOTS` live slots that contribute
        most to the duality gap, ``u_s (1 − m_s)₊ − α_s (1 − m_s)``."""
        alpha = point.alpha.copy()
        G = 1.0 - point.margins
        share = self.u * np.maximum(G, 0.0) - alpha * G
        share[~live] = 0.0
        if len(share) > CORRECTION_SLOTS:
            work = np.argpartition(-share, CORRECTION_SLOTS)[:CORRECTION_SLOTS]
        else:
            work = np.arange(len(share))
        work = np.sort(work[share[work] > 0.0])
        if len(work) == 0:
            return point
        G, Q, before = G[work], self._columns(anchor, work, work), alpha[work]
        self._face_steps(anchor, alpha, G, work, Q)
        self._coordinate_steps(anchor, alpha, G, work, Q, inverse)
        alpha[work] = np.clip(alpha[work], 0.0, self.u[work])  # (a step's last ulp)
        return self._iterate(anchor, alpha, self._moved(point.v, work, alpha[work] - before))

    # ---- fallback: gap-safe screening of slots, then a small dense QP ----------------------
    def _reduced(self, anchor: _Anchor, point: _Iterate) -> _Iterate:
        """Solve the candidate from a certified point: slots whose margin is provably above
        (below) 1 at the optimum are fixed at 0 (``u``); the rest is a dense QP."""
        u = self.u
        radius = distance_bound(point.gap)
        spread = radius * np.sqrt(np.maximum(anchor.curvature, 0.0))
        at_zero = point.margins - spread > 1.0
        at_upper = point.margins + spread < 1.0
        zero_curvature = self._zero_curvature(anchor)
        at_upper[zero_curvature], at_zero[zero_curvature] = True, False
        rest = np.flatnonzero(~(at_zero | at_upper))
        alpha = np.where(at_upper, u, 0.0)
        fixed = self._iterate(anchor, alpha)
        Q = self._columns(anchor, rest, rest)
        result = solve_box_qp(Q, -(1.0 - fixed.margins[rest]), u[rest], rtol=1e-2 * self.rtol)
        alpha[rest] = result.x
        return self._iterate(anchor, alpha)

    def _zero_curvature(self, anchor: _Anchor) -> np.ndarray:
        """Slots with ``b_s = 0`` (the candidate's own item and its exact repeats): their
        gradient is −1 whatever ``w``, so they sit at ``u``."""
        return anchor.curvature <= _ZERO_CURVATURE * max(1.0, float(np.max(self.diag)))

    # ---- screening of candidates -----------------------------------------------------------
    def _spread(self, anchor: _Anchor, point: _Iterate) -> np.ndarray:
        """How far each sample point's score may move at the optimum: ``‖w − w*‖ ≤ √G``
        times ``‖φ(z_j) − φ(z_k)‖``, over the sample points."""
        radius = distance_bound(point.gap)
        points = self._points
        row = anchor.row if points is None else anchor.row[points]
        return radius * np.sqrt(np.maximum(self._point_diag + anchor.kk - 2.0 * row, 0.0))

    def _point_scores(self, point: _Iterate) -> np.ndarray:
        """The point's scores ``h(z_j)`` over the sample points."""
        return point.scores if self._points is None else point.scores[self._points]

    def _gap_bounds(self, anchor: _Anchor, point: _Iterate) -> tuple[float, float]:
        """An interval holding the candidate's gap ``|q̂_k − h(z_k)| = |q̂_k|`` at the
        optimum: the top τ-quantile is an order statistic of the scores, so it moves by
        at most as much as they do."""
        scores, spread = self._point_scores(point), self._spread(anchor, point)
        lo, hi = self._quantile(scores - spread), self._quantile(scores + spread)
        low_gap = 0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))
        return low_gap, max(abs(lo), abs(hi))

    def _gap_exceeds(self, anchor: _Anchor, point: _Iterate, threshold: float) -> bool:
        """Whether the lower end of :meth:`_gap_bounds` exceeds ``threshold > 0``, decided
        without its quantiles: the quantile ``lo`` of the lowered scores exceeds
        ``threshold`` exactly when the points whose lowered score exceeds it weigh at least
        the quantile's rank, and the quantile ``hi`` of the raised scores lies below
        ``−threshold`` exactly when the points whose raised score reaches ``−threshold``
        weigh less than it (the same floating-point comparisons as the interval's)."""
        scores, spread = self._point_scores(point), self._spread(anchor, point)
        need = self._need
        return self._weight(scores - spread > threshold) >= need \
            or self._weight(scores + spread >= -threshold) < need

    def _weight(self, chosen: np.ndarray) -> int:
        """The sample points' total weight where ``chosen`` holds."""
        weights = self._point_weights
        if weights is None:
            return int(np.count_nonzero(chosen))
        return int(weights[chosen].sum())

    def _quantile(self, scores: np.ndarray) -> float:
        """The top τ-quantile of the sample points' scores
        (:func:`.problem.weighted_top_quantile`, its rank computed once)."""
        return weighted_top_quantile(scores, self.tau, self._point_weights, rank=self._need)

    @cached_property
    def _points(self) -> np.ndarray | None:
        """The items that are sample points, or ``None`` when every item is one."""
        points = self.problem.candidates
        return None if len(points) == self.gram.n else points

    @cached_property
    def _point_weights(self) -> np.ndarray | None:
        """The sample points' multiplicities in the quantile (``None``: one each)."""
        weights = self.problem.item_weight
        return None if weights is None else weights[self.problem.candidates]

    @cached_property
    def _point_diag(self) -> np.ndarray:
        """``K(z_j, z_j)`` over the sample points."""
        return self.diag if self._points is None else self.diag[self._points]

    @cached_property
    def _need(self) -> int:
        """The quantile's rank: ``ceil(τ·W)`` of the sample points' total weight ``W``."""
        weights = self._point_weights
        total = len(self.problem.candidates) if weights is None else int(weights.sum())
        return tau_cutoff(self.tau, total)

    # ---- one candidate ---------------------------------------------------------------------
    def _pivots(self, anchor: _Anchor, point: _Iterate, live: np.ndarray,
                restart: Callable[[_Iterate], _Iterate] | None = None
                ) -> tuple[_Iterate, bool]:
        """Block principal pivoting (Júdice & Pires 1994) from the point's partition: the
        face equations of the free slots with the others at their bounds, then every slot
        whose value leaves the box or whose gradient points into it switches. On a
        well-conditioned problem whose neighbouring candidate left a nearly right partition
        it ends in a pivot or two at the exact optimum. It is not monotone: after
        :data:`PIVOTS` pivots, or two in a row that do not reduce the number of slots to
        switch, it gives up. Returns the optimum and ``True``, or on giving up the point
        of smallest duality gap among ``point`` and the pivots' points clipped to the box
        (the rounds start there) and ``False``. Where the first pivot asks for more than
        :data:`RESTART_SWITCHES` switches, the pivots start again from ``restart(point)``
        (if given) instead."""
        u = self.u
        a, v = point.alpha.copy(), point.v
        free = live & (a > 0.0) & (a < u)
        upper = ~live | (~free & (a >= u))
        G = 1.0 - point.margins
        fewest, stalls = len(u) + 1, 0
        trials: list[_Iterate] = []  # clipped to the box only if the pivots give up
        for _ in range(PIVOTS):
            base = np.where(free, a, np.where(upper, u, 0.0))
            moved = np.flatnonzero(base != a)
            v = self._moved(v, moved, base[moved] - a[moved])
            if len(moved):
                G = 1.0 - self._iterate(anchor, base, v).margins
            F = np.flatnonzero(free)
            a = base
            if len(F):
                d = self._face_newton(anchor, F, G[F])
                a[F] += d
                v = self._moved(v, F, d)
            trial = self._iterate(anchor, a, v)
            G = 1.0 - trial.margins
            low, high = free & (a < 0.0), free & (a > u)
            rises = ~free & ~upper & live & (G > _PIVOT_GRADIENT)
            falls = upper & live & (G < -_PIVOT_GRADIENT)
            count = int(low.sum() + high.sum() + rises.sum() + falls.sum())
            if count == 0:
                return trial, True
            if count > RESTART_SWITCHES and not trials and restart is not None:
                found, solved = self._pivots(anchor, restart(point), live)
                return (found, True) if solved \
                    else (min(point, found, key=lambda p: p.gap), False)
            trials.append(trial)
            stalls = 0 if count < fewest else stalls + 1
            fewest = min(fewest, count)
            if stalls >= 2:
                break
            free = (free & ~low & ~high) | rises | falls
            upper = (upper & ~falls) | high
        clipped = [self._clipped(anchor, trial) for trial in trials]
        return min([point, *clipped], key=lambda p: p.gap), False

    def _excluded(self, anchor: _Anchor, point: _Iterate, bound: ScreenBounds,
                  by_gap: bool = True) -> tuple[_Iterate, bool]:
        """Whether ``point`` proves that the candidate cannot be chosen: its dual value
        exceeds the objective of a solved candidate of gap 0 by twice the rule's tolerance
        (:func:`.selection.objective_excludes`), or (with ``by_gap``) its certified gap
        interval lies above the smallest gap so far plus the rule's tolerance. Checked on
        ``point``, then, if it holds there, on exact products; returns the point checked
        last (with exact products if they were computed) and the answer. The start is
        checked by its objective only: at small ``C`` its exact products (every slot in
        the support) cost more than the pivot or two that solve the candidate."""
        def excludes(p: _Iterate) -> bool:
            return objective_excludes(p.dual, bound.zero_gap_objective) or (
                by_gap and self._gap_exceeds(anchor, p, bound.gap + GAP_ATOL))

        if not np.isfinite(bound.gap) or not excludes(point):
            return point, False
        if point.exact:
            return point, True
        point = self._iterate(anchor, point.alpha)
        return point, excludes(point)

    def _clipped(self, anchor: _Anchor, point: _Iterate) -> _Iterate:
        """``point`` with its slots outside the box moved to the nearest bound."""
        inside = np.clip(point.alpha, 0.0, self.u)
        moved = np.flatnonzero(inside != point.alpha)
        if len(moved) == 0:
            return point
        return self._iterate(anchor, inside, self._moved(point.v, moved,
                                                         inside[moved] - point.alpha[moved]))

    def _exact(self, anchor: _Anchor, point: _Iterate) -> _Iterate:
        return point if point.exact else self._iterate(anchor, point.alpha)

    def _screened(self, anchor: _Anchor, point: _Iterate, rounds: int) -> CandidateSolution:
        """The result of a candidate screened at ``point`` (the next one starts there),
        with the certified interval of its gap there."""
        self.alpha, self.v, self.last_anchor = point.alpha, point.v, anchor.k
        return CandidateSolution(anchor.k, point.alpha, None, point.primal, point.dual,
                                 rounds, SCREENED_STATUS, scores=point.scores,
                                 gap_bounds=self._gap_bounds(anchor, point))

    def _start(self, k: int) -> np.ndarray:
        """Candidate ``k``'s start. The first candidate's is zero, or libsvm's point where
        the slots' kernel matrix is too large to keep (:data:`.libsvm_start.MEMORY`) but
        fits :data:`COLD_START_MEMORY`: from zero, 100 rounds move a few dozen slots each
        and the fallback's dense interior point finishes (on magic at n = 5,000, about 20
        times one libsvm fit; at n = 1,000 such a start measured no better, and slower on
        letter). The others start from the last candidate's point, its slots within
        :data:`SNAP` of a bound (relative to ``u``) at the bound: the fallback's interior
        point leaves nearly every slot a hair inside the box (4,804 of 4,962 within
        1e-12·u there), and a start that counted them free made the next candidate's face
        steps factor matrices of thousands of slots for 92 rounds (docs/aatp.md, "Solvers
        and certificates"). The last anchor's slots, which that point held at ``u``, are
        handed over (:meth:`_hand_over`)."""
        if not self._warm:
            if not self._cold_libsvm:
                return np.zeros(len(self.u))
            return self._new_libsvm().alpha(k)  # (its kernel matrix dropped after)
        alpha, u = self.alpha.copy(), self.u
        alpha[alpha <= SNAP * u] = 0.0
        near_top = alpha >= (1.0 - SNAP) * u
        alpha[near_top] = u[near_top]
        self._hand_over(alpha, k)
        return alpha

    def _hand_over(self, alpha: np.ndarray, k: int) -> None:
        """Give each of the last anchor's slots (in place) the share of ``u`` that candidate
        ``k``'s slot of the same sign has in ``alpha``; a slot without one keeps its value.
        Where the kernel is local two anchors' duals nearly agree on the other slots
        (``K_k(z_s, z_t) = K(z_s, z_t) − K(z_s, z_k) − K(z_k, z_t) + K(z_k, z_k)`` does not
        depend on ``k`` for points far from ``z_k``), so two anchors of one class nearly
        trade places: a start that left the last anchor's slots at ``u``, where its own
        dual held them, began at a duality gap 15 times larger on magic 5% at γ·d = 10,
        C = 10. Between classes the trade measured slower than none (docs/aatp.md,
        "Solvers and certificates")."""
        last = self.last_anchor
        if last is None or last == k:
            return
        new = self._slots_of(k)
        for slot in self._slots_of(last):
            same = new[self.sign[new] == self.sign[slot]]
            if len(same):
                alpha[slot] = self.u[slot] * (alpha[same[0]] / self.u[same[0]])

    def _slots_of(self, item: int) -> np.ndarray:
        """The slots of ``item``."""
        return self._slot_order[self._slot_starts[item]:self._slot_starts[item + 1]]

    def _new_libsvm(self) -> LibsvmStart:
        """libsvm's solver of this problem's candidate duals (:mod:`.libsvm_start`)."""
        return LibsvmStart(self.gram.rows, self.item, self.sign, self.u,
                           float(np.max(self.diag)))

    def _libsvm_point(self, anchor: _Anchor, zero_curvature: np.ndarray) -> _Iterate:
        """libsvm's point for the candidate (:mod:`.libsvm_start`), with exact products;
        the slots of ``zero_curvature`` sit at ``u``."""
        alpha = self.libsvm.alpha(anchor.k)
        size = len(self.u) + 2
        self._work += LIBSVM_KERNEL_WORK * size ** 2 \
            + LIBSVM_STEP_WORK * self.libsvm.iterations * size
        alpha[zero_curvature] = self.u[zero_curvature]
        return self._iterate(anchor, alpha)

    def _solve_and_record(self, k: int, bound: ScreenBounds) -> CandidateSolution:
        """:meth:`_solve`, its work recorded for the choice of asking libsvm (but for the
        first candidate, which starts from zero rather than from a neighbour)."""
        work, warm = self._work, self._warm
        libsvm = self.libsvm is not None and warm and self._libsvm_race.choose()
        solution = self._solve(k, bound, libsvm)
        if self.libsvm is not None and warm:
            self._libsvm_race.record(libsvm, self._work - work)
        self._warm = True
        return solution

    def _solve(self, k: int, bound: ScreenBounds, libsvm: bool) -> CandidateSolution:
        anchor = self._anchor(k)
        zero_curvature = self._zero_curvature(anchor)
        alpha = self._start(anchor.k)
        alpha[zero_curvature] = self.u[zero_curvature]
        live = ~zero_curvature
        inverse = np.where(live, 1.0 / np.where(live, anchor.curvature, 1.0), 0.0)
        raised = np.flatnonzero(alpha != self.alpha)
        point = self._iterate(anchor, alpha, self._moved(self.v, raised, alpha[raised]
                                                         - self.alpha[raised]))
        if self.tau is None:
            bound = ScreenBounds()  # no screening without τ
        start, hit = self._excluded(anchor, point, bound, by_gap=False)
        if hit:
            return self._screened(anchor, start, 0)
        from_libsvm = None
        if np.isfinite(bound.gap) and libsvm and self._screen_pause.ready():
            # the corrections of the start first: where they screen, libsvm is not asked
            if self._corrections.worth():
                spent = self._work
                corrected, hit = self._corrected(anchor, point, live, inverse, bound)
                self._corrections.record(self._work - spent, hit)
                if hit:
                    return self._screened(anchor, corrected, 0)
                point = min(point, corrected, key=lambda p: p.gap)
            spent = self._work
            from_libsvm = self._libsvm_point(anchor, zero_curvature)
            # by its gap only: checking the objective here as well measured slower
            # (docs/aatp.md, "Screening of candidates, and why it is exact")
            from_libsvm, hit = self._excluded(anchor, from_libsvm, ScreenBounds(bound.gap))
            self._corrections.record_libsvm(self._work - spent)
            self._screen_pause.record(hit, LIBSVM_PAUSE)
            if hit:
                return self._screened(anchor, from_libsvm, 0)
        solved = False
        if self._pivot_pause.ready():
            point, solved = self._pivots(anchor, point, live, lambda start: self._local(
                anchor, self._shifted(anchor, start, live), live, inverse))
            self._pivot_pause.record(solved, PIVOT_PAUSE)
        if not solved and libsvm and self._start_pause.ready():
            if from_libsvm is None:
                from_libsvm = self._libsvm_point(anchor, zero_curvature)
            trial, solved = self._pivots(anchor, from_libsvm, live)
            self._start_pause.record(solved, LIBSVM_PAUSE)
            point = min(point, trial, key=lambda p: p.gap)
        alpha = point.alpha.copy()
        rounds = 0
        while rounds < self.max_rounds:
            if self._certified(point, self.rtol):
                point = self._exact(anchor, point)
                if self._certified(point, self.rtol):
                    break
            point, hit = self._excluded(anchor, point, bound)
            if hit:
                return self._screened(anchor, point, rounds)
            rounds += 1
            G = 1.0 - point.margins
            work = self._working_set(anchor, alpha, G, live, inverse)
            G, Q = G[work], self._columns(anchor, work, work)
            before = alpha[work]
            self._face_steps(anchor, alpha, G, work, Q)
            self._coordinate_steps(anchor, alpha, G, work, Q, inverse)
            point = self._iterate(anchor, alpha, self._moved(point.v, work, alpha[work] - before))
        point = self._exact(anchor, point)
        status = "optimal"
        primal = self._primal_at_hand()
        reduced = not self._certified(point, self.rtol)
        if reduced:
            if primal and not self._reduced_pause.ready():
                return self._by_primal(anchor)
            point = self._reduced(anchor, point)
            status = "optimal (reduced interior point)"
        allowed = CERTIFICATE_RTOL * max(1.0, abs(point.primal))
        if reduced and primal:
            self._reduced_pause.record(point.gap <= allowed, REDUCED_PAUSE)
        if not point.gap <= allowed:
            if primal:
                return self._by_primal(anchor)
            raise SolverError(f"{self.name}: candidate {k} not certified, duality gap "
                              f"{point.gap:.3g} > {allowed:.3g} ({SCALE_ADVICE})",
                              status="not_certified")
        self.alpha, self.v, self.last_anchor = point.alpha, point.v, anchor.k
        return CandidateSolution(anchor.k, point.alpha, None, point.primal, point.dual,
                                 rounds, status, scores=point.scores)

    def _primal_at_hand(self) -> bool:
        """Whether :meth:`_by_primal` applies: the model is ``w`` and the features are at
        hand (the linear kernel on more features than the factor engine takes)."""
        return self.problem.factor is not None and self.problem.primal_model

    def _by_primal(self, anchor: _Anchor) -> CandidateSolution:
        """Eq. (2) with Clarabel on the features (:class:`.primal.PrimalQP`), certified
        through its own ``w``, for a candidate the steps (and the reduced interior point,
        unless it is paused: :data:`REDUCED_PAUSE`) could not certify: badly scaled
        features at a large C lose the digits of ``w(α)``. Its ``SolverError`` is raised."""
        problem = self.problem
        if self._primal is None:
            self._primal = PrimalQP(problem)
        solution = self._primal.solve(anchor.k)
        scores = problem.factor @ solution.w
        solution.scores = scores - scores[anchor.k]
        solution.status = PRIMAL_STATUS
        point = self._iterate(anchor, solution.alpha)  # the next candidate's start
        self.alpha, self.v, self.last_anchor = point.alpha, point.v, anchor.k
        return solution

    # ---- public --------------------------------------------------------------------------
    def iter_solutions(self, candidates: Sequence[int],
                       progress: Callable[[int], None] | None = None,
                       bound: Callable[[], ScreenBounds] | None = None
                       ) -> Iterator[CandidateSolution]:
        # the matrices are small: one BLAS thread each is fastest, and parallelism comes
        # from running chunks of candidates in separate workers (n_jobs)
        with single_threaded_blas():
            for k in candidates:
                yield self._solve_and_record(int(k), ScreenBounds() if bound is None
                                             else bound())
                if progress is not None:
                    progress(1)

    def solve_many(self, candidates: Sequence[int],
                   progress: Callable[[int], None] | None = None) -> list[CandidateSolution]:
        return list(self.iter_solutions(candidates, progress))

    def solve(self, k: int) -> CandidateSolution:
        return self.solve_many([k])[0]

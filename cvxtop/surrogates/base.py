"""The surrogate protocol: one function of the scores with three faces that agree exactly.

A surrogate is a function ``f(s)`` of the score vector ``s`` with the labels ``y`` and the
cut-off ``k`` fixed. Every surrogate offers

* :meth:`Surrogate.value`: fast numpy evaluation (sorting and cumulative sums);
* :meth:`Surrogate.subgradient`: a subgradient with respect to ``s``; for a convex
  surrogate ``f(s') >= f(s) + g·(s' − s)`` for every ``s'``;
* :meth:`Surrogate.expression`: a DCP-convex cvxpy expression of an affine score
  expression, with any auxiliary constraints (convex surrogates only).

The fourth face is the surrogate's :attr:`~Surrogate.definition`: the brute-force
enumeration in :mod:`cvxtop.reference` that the others are tested against
(:mod:`cvxtop.surrogates.checks`).

A surrogate also owns its family's rules, so that solvers and estimators never ask which
family they hold: how ``k`` is resolved on a list (:meth:`~Surrogate.resolve_k`), which
classes a list needs (:meth:`~Surrogate.require_classes`), the cut-off on a mini-batch
(:meth:`~Surrogate.batch_cutoff`), whether batch losses add up to the list's loss
(:attr:`~Surrogate.additive`), the convex surrogate that starts the convex-concave
procedure of a non-convex one (:attr:`~Surrogate.dca_start`) and the size of its cvxpy form
(:meth:`~Surrogate.dcp_size`).

:meth:`Surrogate.bind` fixes the labels once: the :class:`Bound` it returns has ``k``
resolved and the index sets of the two classes cached, and its faces skip validation. It
is what solvers call in their loops. Subclasses implement the private faces on a bound
list: ``_value``, ``_subgradient`` or ``_value_and_subgradient`` (one sort for both), and
``_expression`` for convex surrogates.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from contextlib import contextmanager
from typing import Any, Callable, ClassVar, Iterator

import numpy as np

from .._validation import check_labels, check_same_length, check_scores, require_classes
from ..cutoff import batch_prec_cutoff, pap_cutoff, prec_cutoff
from .segment import Segment, whole_list

__all__ = ["Surrogate", "Bound", "ScoreOverflowError", "PrecSurrogate", "PapSurrogate", "DifferenceOfConvex"]


class Surrogate(ABC):
    """Base class of every surrogate; see the module docstring for the protocol."""

    #: Registry name, e.g. ``"prec@k-avg"``.
    name: ClassVar[str]
    #: Whether the surrogate is convex in the scores (then ``expression`` is available).
    convex: ClassVar[bool]
    #: The brute-force definition ``f(y_true, y_score, k)`` in :mod:`cvxtop.reference`.
    definition: ClassVar[Callable[[Any, Any, int], float]]
    #: Whether the losses of a partition of a list into batches add up to the list's loss
    #: (prec@k's counts do); otherwise batch losses are averaged (normalized risks).
    additive: ClassVar[bool]
    #: Whether a mini-batch's surrogate, with the cut-off of :meth:`batch_cutoff`, stands for
    #: the batch's share of the list's: prec@k's cut-off scales with the batch's relevant
    #: items, while pAp@k's ``k`` irrelevant items are the list's top ``k``, which a batch
    #: does not hold (SGD's line-search rule then takes the whole list as one block).
    splits: ClassVar[bool]
    #: Registry name of the convex surrogate whose optimum starts the convex-concave
    #: procedure of a difference of convex functions (``None`` for other surrogates).
    dca_start: ClassVar[str | None] = None
    #: Perceptron@k variant ("avg" or "max", Kar et al. 2015, Algorithms 1 and 2) that
    #: minimizes this surrogate online, if any.
    perceptron: ClassVar[str | None] = None
    #: The dual over the items the exact cutting plane may solve for this surrogate (a
    #: capability it declares; solvers never ask for a type or a name): ``"selection"``
    #: (prec@k-avg and -max's form, :class:`~cvxtop.surrogates.prec.SelectionSurrogate`:
    #: :mod:`cvxtop.solvers.selection_dual`), ``"box-hinge"`` (prec@k-svmperf's),
    #: ``"box-struct"`` (prec@k-struct's) and ``"box-pap"`` (pAp@k-avg's,
    #: :mod:`cvxtop.solvers.box_dual`), ``"pap-ts"`` (pAp@k-TS's cut read off a score
    #: vector, :mod:`cvxtop.solvers.pap_ts_cut`), or ``None``.
    #: A subclass that changes the function must set it anew.
    dual_form: ClassVar[str | None] = None
    #: Whether every piece of the loss, ``L(s) = b + g·s`` where ``g`` is a subgradient at
    #: ``s``, has the intercept ``b = Σ_{y_i = 0} g_i`` with ``g_i ≥ 0`` there: its constant
    #: counts the margin of 1 its labeling gives the irrelevant items it ranks, with their
    #: weights (prec@k-struct, -max, -avg: Kar et al. 2015, eqs. (3), (6), (7); pAp@k-avg,
    #: -max and pAUC-struct: Hiranandani et al. 2020, eq. (10) and its max form). The
    #: cutting plane then reads a cut's intercept off ``g`` instead of ``L(s) − g·s``, whose
    #: rounding grows with the scores (:func:`cvxtop.solvers.cut_store.cut_rounding`). A
    #: subclass that changes the function must set it anew.
    intercept_from_irrelevant: ClassVar[bool] = False

    def __init__(self, k: Any) -> None:
        self.k = k

    @property
    def exact_intercepts(self) -> bool:
        """Whether :meth:`intercept_of` reads the intercept of the piece of a subgradient
        given by :meth:`Bound.value_and_subgradient` off that subgradient, exactly whatever
        the scores' size (:attr:`intercept_from_irrelevant`, or a rule of the surrogate's
        own): a cut stored twice is then the same cut to the bit."""
        return self.intercept_from_irrelevant

    def intercept_of(self, g: np.ndarray, irrelevant: np.ndarray, k: int) -> float | None:
        """The intercept ``b`` of the piece ``b + g·s'`` below the loss of one list (cut-off
        ``k``) whose subgradient is ``g``, read off ``g`` (its sum over the ``irrelevant``
        items: a mask or their positions), exact whatever the scores' size, where the
        surrogate declares :attr:`intercept_from_irrelevant`; ``None`` elsewhere (then
        ``L(s) − g·s``)."""
        return float(g[irrelevant].sum()) if self.intercept_from_irrelevant else None

    def __repr__(self) -> str:
        return f"cvxtop.surrogates.get({self.name!r}, k={self.k!r})"

    # ---- family rules ----------------------------------------------------------------
    @abstractmethod
    def resolve_k(self, y: np.ndarray) -> int:
        """Check the labels' classes and ``self.k`` for this family; return the cut-off."""

    @abstractmethod
    def require_classes(self, y: np.ndarray, name: str = "y") -> None:
        """Raise ``ValueError`` naming ``name`` if ``y`` lacks a class the family needs."""

    @abstractmethod
    def batch_cutoff(self, n_pos_total: int | None, n_pos: int, n: int) -> int | None:
        """The cut-off on a mini-batch with ``n_pos`` relevant items of ``n``, or ``None`` if
        the surrogate is undefined there; ``n_pos_total`` is the whole list's ``n₊``
        (``None`` on a stream, where it is unknown)."""

    @abstractmethod
    def batch_requirement(self) -> str:
        """What a mini-batch must hold for the surrogate to be defined (for messages)."""

    def dcp_size(self, n_pos: int, n_neg: int) -> int:
        """Number of auxiliary variables of the cvxpy form on one list (about; the solvers'
        size policy compares it with a threshold)."""
        return n_pos + n_neg

    # ---- binding ---------------------------------------------------------------------
    def bind(self, y_true: Any, name: str = "y_true") -> Bound:
        """The surrogate on the labels ``y_true``: ``k`` resolved, index sets cached."""
        y = check_labels(y_true, name)
        return self.bind_labels(y)

    def bind_labels(self, y: np.ndarray) -> Bound:
        """:meth:`bind` for labels already validated (an ``int64`` 0/1 array)."""
        return self.bind_cutoff(y, self.resolve_k(y))

    def bind_cutoff(self, y: np.ndarray, k: int) -> Bound:
        """The surrogate on validated labels with a given cut-off (a mini-batch's, from
        :meth:`batch_cutoff`), without checking it against the labels."""
        return Bound(self, y, int(k), np.flatnonzero(y == 1), np.flatnonzero(y == 0))

    def _checked(self, y_true: Any, y_score: Any) -> tuple[Bound, np.ndarray]:
        y = check_labels(y_true, "y_true")
        s = check_scores(y_score, "y_score")
        check_same_length(y_true=y, y_score=s)
        return self.bind_labels(y), s

    # ---- public faces ----------------------------------------------------------------
    def value(self, y_true: Any, y_score: Any) -> float:
        """The surrogate at the scores ``y_score``, exactly as the paper defines it."""
        bound, s = self._checked(y_true, y_score)
        return bound.value(s)

    def subgradient(self, y_true: Any, y_score: Any) -> np.ndarray:
        """A subgradient with respect to the scores, shape ``(n,)``."""
        bound, s = self._checked(y_true, y_score)
        return bound.subgradient(s)

    def value_and_subgradient(self, y_true: Any, y_score: Any) -> tuple[float, np.ndarray]:
        """Both faces at once (one sort where the implementation allows)."""
        bound, s = self._checked(y_true, y_score)
        return bound.value_and_subgradient(s)

    def expression(self, y_true: Any, score_expr: Any) -> tuple[Any, list]:
        """A DCP-convex cvxpy expression of the affine ``score_expr`` and its constraints.

        Minimizing the expression subject to the constraints (over the auxiliary variables
        they introduce) gives the surrogate's value. Raises ``ValueError`` for a
        non-convex surrogate.
        """
        import cvxpy as cp

        if not self.convex:
            raise ValueError(
                f"{self.name} is not convex, so it has no DCP expression; minimize it with a "
                "local method (TopRanker's convex-concave procedure) instead")
        y = check_labels(y_true, "y_true")
        if not isinstance(score_expr, cp.Expression):
            raise TypeError(
                f"score_expr must be a cvxpy Expression, got {type(score_expr).__name__}")
        if score_expr.shape != (len(y),):
            raise ValueError(
                f"score_expr must have shape ({len(y)},) to match y_true, got {score_expr.shape}")
        if not score_expr.is_affine():
            raise ValueError("score_expr must be affine in the optimization variables")
        return self.bind_labels(y).expression(score_expr)

    # ---- private faces (a bound list, validated scores) ------------------------------
    def _value(self, b: Bound, s: np.ndarray) -> float:
        return self._value_and_subgradient(b, s)[0]

    def _subgradient(self, b: Bound, s: np.ndarray) -> np.ndarray:
        return self._value_and_subgradient(b, s)[1]

    @abstractmethod
    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        ...

    def _expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        raise NotImplementedError  # only reached for convex surrogates, which override it

    @property
    def restricted_segment(self) -> bool:
        """Whether the surrogate evaluates a segment of scores on the items that can matter
        there (:meth:`_segment`), so that a line search's evaluations cost a small share of
        an oracle call over the whole list."""
        return type(self)._segment is not Surrogate._segment

    def _segment(self, b: Bound, s: np.ndarray, ds: np.ndarray, T: float) -> Segment | None:
        """The surrogate along ``s + τ·ds``, ``τ`` in ``[0, T]``, evaluated on the items that
        can matter there (:mod:`.segment`); ``None`` when the surrogate has no such
        evaluation (the whole list is evaluated then)."""
        return None


class ScoreOverflowError(ValueError, OverflowError):
    """A surrogate's value or subgradient at these scores overflows ``float64`` (scores
    near ±1e308): no exact number can be returned."""


def _overflow_message(surrogate: Surrogate, s: np.ndarray) -> str:
    largest = float(np.max(np.abs(s))) if len(s) else 0.0
    return (f"y_score: {surrogate.name} overflows float64 at these scores (largest |score| "
            f"{largest:.3g}): its value is past float64's range or loses terms to "
            "infinities; rescale the scores (or the features and C) to a smaller range")


@contextmanager
def _overflow_raises(surrogate: Surrogate, s: np.ndarray) -> Iterator[None]:
    """Floating-point overflow and invalid operations (∞ − ∞) inside a face raise
    :class:`ScoreOverflowError` instead of giving ``inf``, ``nan`` or a term lost to them."""
    try:
        with np.errstate(over="raise", invalid="raise"):
            yield
    except FloatingPointError:
        raise ScoreOverflowError(_overflow_message(surrogate, s)) from None


def _finite(value: Any, surrogate: Surrogate, s: np.ndarray) -> Any:
    if not np.all(np.isfinite(value)):
        raise ScoreOverflowError(_overflow_message(surrogate, s))
    return value


@dataclass(frozen=True, eq=False)
class Bound:
    """A surrogate on one list's labels: ``k`` resolved, the relevant (``pos``) and
    irrelevant (``neg``) positions cached. Its faces take validated float64 scores."""

    surrogate: Surrogate
    y: np.ndarray
    k: int
    pos: np.ndarray
    neg: np.ndarray

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def n_pos(self) -> int:
        return len(self.pos)

    @property
    def n_neg(self) -> int:
        return len(self.neg)

    def value(self, s: np.ndarray) -> float:
        with _overflow_raises(self.surrogate, s):
            value = float(self.surrogate._value(self, s))
        return _finite(value, self.surrogate, s)

    def subgradient(self, s: np.ndarray) -> np.ndarray:
        with _overflow_raises(self.surrogate, s):
            grad = self.surrogate._subgradient(self, s)
        return _finite(grad, self.surrogate, s)

    def value_and_subgradient(self, s: np.ndarray) -> tuple[float, np.ndarray]:
        with _overflow_raises(self.surrogate, s):
            value, grad = self.surrogate._value_and_subgradient(self, s)
        return _finite(float(value), self.surrogate, s), _finite(grad, self.surrogate, s)

    def expression(self, s: Any) -> tuple[Any, list]:
        """DCP expression of the affine scores ``s`` (convex surrogates)."""
        if not self.surrogate.convex:
            raise ValueError(f"{self.surrogate.name} is not convex: it has no DCP expression")
        expr, constraints = self.surrogate._expression(self, s)
        return expr, list(constraints)

    def convex_part_expression(self, s: Any) -> tuple[Any, list]:
        """DCP expression of ``G`` for a difference of convex functions ``G − H``."""
        expr, constraints = self.surrogate._convex_part_expression(self, s)
        return expr, list(constraints)

    def subtracted_subgradient(self, s: np.ndarray) -> np.ndarray:
        """A subgradient of ``H`` for a difference of convex functions ``G − H``."""
        return self.surrogate._subtracted_subgradient(self, s)

    def segment(self, s: np.ndarray, ds: np.ndarray, T: float) -> Segment:
        """``τ ↦`` the surrogate at ``s + τ·ds`` with the slope of a subgradient, valid for
        ``τ`` in ``[0, T]`` (:mod:`.segment`)."""
        restricted = self.surrogate._segment(self, s, ds, T)
        return restricted if restricted is not None else whole_list(
            self.value_and_subgradient, s, ds)


class PrecSurrogate(Surrogate):
    """prec@k surrogates (Kar et al. 2015): loss scale, the number of irrelevant items in
    the top ``k``. ``k`` is an int with ``1 <= k <= n₊`` or a float κ in (0, 1] meaning
    ``ceil(κ·n₊)`` (:func:`cvxtop.cutoff.prec_cutoff`); a list needs a relevant item."""

    additive: ClassVar[bool] = True
    splits: ClassVar[bool] = True
    #: the metric of :data:`cvxtop.metrics.METRICS` the family bounds (``TopRanker.score``)
    metric: ClassVar[str] = "precision_at_k"

    def resolve_k(self, y: np.ndarray) -> int:
        n_pos, _ = require_classes(y, negative=False, context=f"{self.name} needs n₊ >= 1")
        return prec_cutoff(self.k, n_pos, "k")

    def require_classes(self, y: np.ndarray, name: str = "y") -> None:
        require_classes(y, name, negative=False)

    def batch_cutoff(self, n_pos_total: int | None, n_pos: int, n: int) -> int | None:
        """:func:`cvxtop.cutoff.batch_prec_cutoff`: ``ceil(κ·n₊(batch))`` for a fraction κ,
        ``k/n₊`` of the whole list for an int ``k``; ``None`` without a relevant item."""
        return batch_prec_cutoff(self.k, n_pos_total, n_pos)

    def batch_requirement(self) -> str:
        return "a relevant item"


class PapSurrogate(Surrogate):
    """pAp@k surrogates (Hiranandani et al. 2020): risk normalized by ``1/(βk)``,
    β = min(n₊, k). ``k`` is an int with ``1 <= k <= n₋`` (:func:`cvxtop.cutoff.pap_cutoff`);
    a list needs a relevant item and ``k`` irrelevant ones."""

    additive: ClassVar[bool] = False
    splits: ClassVar[bool] = False
    metric: ClassVar[str] = "pap_at_k"

    def resolve_k(self, y: np.ndarray) -> int:
        _, n_neg = require_classes(y, context=f"{self.name} needs n₊ >= 1 and n₋ >= k")
        return pap_cutoff(self.k, n_neg, "k")

    def require_classes(self, y: np.ndarray, name: str = "y") -> None:
        require_classes(y, name)

    def batch_cutoff(self, n_pos_total: int | None, n_pos: int, n: int) -> int | None:
        """The given ``k``, or ``None`` without a relevant item or ``k`` irrelevant ones."""
        if n_pos == 0 or n - n_pos < int(self.k):
            return None
        return int(self.k)

    def batch_requirement(self) -> str:
        return f"a relevant item and k = {self.k} irrelevant ones"


class DifferenceOfConvex:
    """Mixin for a non-convex surrogate written as ``f = G − H`` with ``G``, ``H`` convex.

    The convex-concave procedure (DCA) minimizes ``f`` locally by repeatedly replacing
    ``H`` with its linearization at the current scores: each step minimizes
    ``½‖w‖² + C·(G(Xw) − h·Xw)`` with ``h`` a subgradient of ``H``.
    """

    def _convex_part_expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        """DCP expression of ``G`` (and its auxiliary constraints)."""
        raise NotImplementedError

    def _subtracted_subgradient(self, b: Bound, s: np.ndarray) -> np.ndarray:
        """A subgradient of ``H`` at the scores ``s``."""
        raise NotImplementedError

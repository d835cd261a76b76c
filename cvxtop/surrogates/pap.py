"""Surrogates of the pAp@k risk of Hiranandani et al. 2020, each with three faces that agree
exactly (value, subgradient, cvxpy expression).

Notation: ``s`` the scores, ``s⁺``/``s⁻`` those of the n₊ positives and n₋ negatives,
β = min(n₊, k), ``z`` the k highest negative scores, ``h_ij = (1 + s_j − s_i)₊`` the
margin-1 hinge of positive i against negative j. The risk of eq. (1) is the fraction of the
βk pairs (top-β positive, top-k negative) with ``s_i <= s_j``; every surrogate below is on
that scale (normalized by 1/(βk); 1/(n₊k) for ``pauc-struct``). Closed forms, checked
against the enumerations of :mod:`cvxtop.reference`:

* ``pap@k-avg``, eq. (10): ``(1/k) Σ_{j ∈ top-k} (1 + s_j − mean(s⁺))₊``;
* ``pap@k-max``, eq. (9) with min over Z₊ (appendix eq. (24)):
  ``(1/(βk)) Σ_{i ∈ bottom-β pos} Σ_{j ∈ top-k} h_ij``;
* ``pap@k-ts``, eq. (14): ``(1/(βk)) Σ_{j ∈ top-k} max(a_j − (n₊ − β), b_j)``,
  ``a_j = Σ_i (1 + s_j − s_i)₊``, ``b_j = Σ_i (s_j − s_i)₊`` (all positives);
* ``pap@k-ramp``, eq. (8): ``(1/(βk)) Σ_{i ∈ top-β pos} Σ_{j ∈ top-k} h_ij`` (not convex);
* ``pap@k-ts-paper``, Algorithm 2, lines 10-12: ``(1/(βk)) Σ_{j ∈ top-k} [Σ_{i ∈ top-β pos}
  h_ij + Σ_{other i} (s_j − s_i)₊]`` (not convex; not eq. (14));
* ``pauc-struct``, SVM-pAUC baseline: ``(1/(n₊k)) Σ_{all i} Σ_{j ∈ top-k} h_ij``.

The numpy faces sort the positives once and the k top negatives once; every sum of hinges
over a set of positives against a set of negatives then comes from prefix sums and
``searchsorted`` (see :func:`_row_hinges`), in O(n + n₊ log n₊ + k log k + (n₊ + k) log n)
time and O(n) memory, with no pair matrix.

The cvxpy forms live in :mod:`._pap_dcp`. Those of max, TS and pauc-struct need one epigraph
variable per (positive, negative) pair, or per positive and level at a small k (n₊·k).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import reference
from . import _pap_dcp_size
from .registry import register
from .base import Bound, DifferenceOfConvex, PapSurrogate
from .top_indices import top_indices

__all__ = ["PapAvg", "PapMax", "PapTightStruct", "PapRamp", "PapTightStructPaper",
           "PaucStruct"]


# ----------------------------------------------------------------------------------------
# numpy: the sorted view of one list and sums of pair hinges without pairs
# ----------------------------------------------------------------------------------------

def _top_negatives(b: Bound, s: np.ndarray) -> np.ndarray:
    """Indices of the k highest-scored negatives, in no particular order (O(n₋)).

    Negatives tied at the cut are interchangeable: every face depends on their scores only;
    the subgradient depends on which are taken, so they are taken by index
    (:mod:`.top_indices`).
    """
    return b.neg[top_indices(s[b.neg], b.k)]


@dataclass(frozen=True)
class _Ranked:
    """Every positive and the k top negatives of one list, each sorted by ascending score."""

    pos_idx: np.ndarray
    pos: np.ndarray
    neg_idx: np.ndarray
    neg: np.ndarray

    @classmethod
    def of(cls, b: Bound, s: np.ndarray) -> _Ranked:
        pos_idx = b.pos[np.argsort(s[b.pos], kind="stable")]
        neg_idx = _top_negatives(b, s)
        neg_idx = neg_idx[np.argsort(s[neg_idx], kind="stable")]
        return cls(pos_idx, s[pos_idx], neg_idx, s[neg_idx])

    @property
    def n_pos(self) -> int:
        return len(self.pos)

    @property
    def beta(self) -> int:
        return min(self.n_pos, len(self.neg))

    @property
    def scale(self) -> float:
        """1/(βk), the normalization of the pAp@k risk."""
        return 1.0 / (self.beta * len(self.neg))

    def bottom(self, m: int) -> slice:
        """The m lowest-scored positives (a slice of the sorted positives)."""
        return slice(0, m)

    def top(self, m: int) -> slice:
        """The m highest-scored positives (a slice of the sorted positives)."""
        return slice(self.n_pos - m, self.n_pos)


def _row_hinges(pos: np.ndarray, thr: np.ndarray, inclusive: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """For each threshold t_j: ``Σ_i (t_j − p_i)₊`` over the ascending scores ``pos``, and the
    number of positives active with it (``p_i < t_j``; ``p_i <= t_j`` when ``inclusive``).

    With a threshold ``t_j = margin + s_j`` the sum is one negative's row of pair hinges:
    the active positives are a prefix of ``pos``, so the row is ``c·t_j − P[c]`` with ``c``
    from ``searchsorted`` and ``P`` the prefix sums, O(log n₊) per row.
    """
    active = np.searchsorted(pos, thr, side="right" if inclusive else "left")
    prefix = np.concatenate(([0.0], np.cumsum(pos)))
    return active * thr - prefix[active], active


def _add_pair_gradient(grad: np.ndarray, weight: float, pos_idx: np.ndarray, pos: np.ndarray,
                       neg_idx: np.ndarray, thr: np.ndarray, row_active: np.ndarray,
                       inclusive: bool = False) -> None:
    """Add ``weight ·`` the gradient of ``Σ_ij (thr_j − p_i)₊`` (thr_j = margin + s_j) to grad.

    Negative j gains its number of active positives; positive i loses its number of active
    thresholds (``thr`` ascending, counted by ``searchsorted`` with the same comparison as
    :func:`_row_hinges`, so both sides count the same pairs). An inactive hinge at its kink
    contributes 0, a valid element of its subdifferential [0, 1].
    """
    grad[neg_idx] += weight * row_active
    col_active = len(thr) - np.searchsorted(thr, pos, side="left" if inclusive else "right")
    grad[pos_idx] -= weight * col_active


def _pair_block(grad: np.ndarray | None, weight: float, r: _Ranked, part: slice,
                margin: float, inclusive: bool = False) -> float:
    """``weight · Σ_{i ∈ part} Σ_{j ∈ top-k} (margin + s_j − s_i)₊``, adding its gradient."""
    pos_idx, pos = r.pos_idx[part], r.pos[part]
    thr = margin + r.neg
    sums, active = _row_hinges(pos, thr, inclusive)
    if grad is not None:
        _add_pair_gradient(grad, weight, pos_idx, pos, r.neg_idx, thr, active, inclusive)
    return weight * float(sums.sum())


# ----------------------------------------------------------------------------------------
# the surrogates
# ----------------------------------------------------------------------------------------

class _PapFace(PapSurrogate):
    """Value and subgradient from one pass of ``_evaluate`` (one sort for both)."""

    #: Epigraph matrices of the cvxpy form's rows, each of one variable per (positive,
    #: negative) pair or per (positive, level) (:mod:`._pap_dcp`); 0 for a form without.
    pair_matrices: ClassVar[int] = 0

    @abstractmethod
    def _evaluate(self, b: Bound, s: np.ndarray, grad: np.ndarray | None) -> float:
        """The value; when ``grad`` is an array of zeros, also add the subgradient to it."""

    def _value(self, b: Bound, s: np.ndarray) -> float:
        return self._evaluate(b, s, None)

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        grad = np.zeros(len(s))
        return self._evaluate(b, s, grad), grad

    def dcp_size(self, n_pos: int, n_neg: int) -> int:
        if not self.pair_matrices:
            return n_pos + n_neg
        k = min(int(self.k), n_neg)
        return _pap_dcp_size.size(n_pos, n_neg, k, self.pair_matrices if k < n_pos else 1)


@register
class PapAvg(_PapFace):
    """Average surrogate, Hiranandani et al. 2020 eq. (10): ``(1/k) Σ_{j ∈ top-k} (1 + s_j −
    mean(s⁺))₊``.

    The max over valid π in eq. (10) puts every positive below the negatives with a positive
    coefficient (1 + s_j − mean(s⁺)), β rows each, which cancels β in 1/(βk). Convex, but
    *not* an upper bound on the pAp@k risk (Prop. 3 fails; ``docs/findings.md``).
    Subgradient: 1/k on each active top-k negative, and −(#active)/(k·n₊) on every positive
    (Algorithm 2, lines 3-4). Expression: ``sum_largest(pos(1 + s⁻ − mean(s⁺)), k)/k``, O(n)
    variables.
    """

    name: ClassVar[str] = "pap@k-avg"
    convex: ClassVar[bool] = True
    dual_form: ClassVar[str | None] = "box-pap"
    intercept_from_irrelevant: ClassVar[bool] = True
    definition = staticmethod(reference.pap_avg)

    def _evaluate(self, b, s, grad):
        k = b.k
        top = _top_negatives(b, s)
        margins = 1.0 + s[top] - s[b.pos].mean()
        active = margins > 0
        if grad is not None:
            grad[top] = active / k
            grad[b.pos] = -np.count_nonzero(active) / (k * b.n_pos)
        return float(margins[active].sum()) / k

    def _expression(self, b, s):
        from . import _pap_dcp

        return _pap_dcp.avg(b.pos, b.neg, s, b.k)


@register
class PapMax(_PapFace):
    """Max surrogate: Hiranandani et al. 2020 eq. (9) with the max over Z₊ replaced by a min (the
    appendix's eq. (24)): ``(1/(βk)) Σ_{i ∈ bottom-β pos} Σ_{j ∈ top-k neg} h_ij``.

    Convex: for each negative the row ``Σ_{i ∈ bottom-β} h_ij`` is the sum of the β largest
    hinges of that row (a convex function of s), nondecreasing in s_j, so the sum over the
    top-k negatives is the largest sum of k convex rows. Subgradient: the active pairs of the
    bottom-β positives and the top-k negatives (Algorithm 2, lines 6-8).
    Expression: ``sum_largest(r, k)/(βk)`` with the per-row epigraphs of
    :func:`_largest_pair_rows` (m = β): n₊·n₋ + n₋ variables (n₊·n₋ when n₊ <= k), plus
    n₋ + 1 for ``sum_largest``; at a small k the rows are written on k levels instead
    (n₊·k + k, plus (k − 1)(n₋ + 1) for the levels).
    """

    name: ClassVar[str] = "pap@k-max"
    convex: ClassVar[bool] = True
    pair_matrices: ClassVar[int] = 1
    intercept_from_irrelevant: ClassVar[bool] = True
    definition = staticmethod(reference.pap_max)

    def _evaluate(self, b, s, grad):
        r = _Ranked.of(b, s)
        return _pair_block(grad, r.scale, r, r.bottom(r.beta), 1.0)

    def _expression(self, b, s):
        from . import _pap_dcp

        return _pap_dcp.pap_max(b.pos, b.neg, s, b.k)


@register
class PapTightStruct(_PapFace):
    """Tight-struct (TS) surrogate, Hiranandani et al. 2020 eq. (14), exactly, in the closed
    form ``TS = (1/(βk)) Σ_{j ∈ top-k} max(a_j − (n₊ − β), b_j)`` with the per-negative rows
    ``a_j = Σ_i (1 + s_j − s_i)₊`` and ``b_j = Σ_i (s_j − s_i)₊`` over all positives (the
    derivation from eq. (14) is in the pAp@k page of the documentation, "The closed form of
    TS").

    Subgradient: from the maximizing t* and ordering, the gradient of the active piece
    ``Σ_{j ∈ A} a_j + Σ_{j ∈ B} b_j`` (A = {j : a_j − c > b_j} among the top-k, B the rest),
    not Algorithm 2's (see ``pap@k-ts-paper``).
    Expression: ``sum_largest(maximum(a − c, b), k)/(βk)`` with pair epigraphs for a and b:
    2·n₊·n₋ variables (n₊·n₋ when n₊ <= k, where c = 0 and a >= b), plus O(n₋) for
    ``maximum``/``sum_largest``; no k·n₋ term. At a small k the rows are written on k
    levels instead (2·n₊·k, plus (k − 1)(n₋ + 1) for the levels).
    """

    name: ClassVar[str] = "pap@k-ts"
    convex: ClassVar[bool] = True
    pair_matrices: ClassVar[int] = 2
    dual_form: ClassVar[str | None] = "pap-ts"
    definition = staticmethod(reference.pap_ts)

    def _evaluate(self, b, s, grad):
        r = _Ranked.of(b, s)
        penalty = r.n_pos - r.beta
        thr_a = 1.0 + r.neg
        a, a_active = _row_hinges(r.pos, thr_a)
        b, b_active = _row_hinges(r.pos, r.neg)
        margin1 = a - penalty > b
        if grad is not None:
            for m, thr, active in ((margin1, thr_a, a_active), (~margin1, r.neg, b_active)):
                _add_pair_gradient(grad, r.scale, r.pos_idx, r.pos, r.neg_idx[m], thr[m],
                                   active[m])
        return r.scale * float(np.where(margin1, a - penalty, b).sum())

    def _expression(self, b, s):
        from . import _pap_dcp

        return _pap_dcp.tight_struct(b.pos, b.neg, s, b.k)


@register
class PaucStruct(_PapFace):
    """Structural pAUC(0, k/n₋] bound, the SVM-pAUC baseline of Hiranandani et al. 2020 Section 7
    (eq. (4) restricted to the top-k negatives): ``(1/(n₊k)) Σ_{all i} Σ_{j ∈ top-k} h_ij``.

    A valid convex upper bound on the pAp@k risk: it is the average over all β-subsets Z₊ of
    ``(1/(βk)) Σ_{i ∈ Z₊} Σ_j h_ij`` (each positive lies in a fraction β/n₊ of them), which is
    ≥ the minimum over Z₊, ≥ the minimum over Z₊ of the pairs' error count = the risk
    (eq. (5)). Expression: ``sum_largest(Σ_i H_ij, k)/(n₊k)`` with n₊·n₋ pair variables,
    or n₊·k on k levels at a small k.
    """

    name: ClassVar[str] = "pauc-struct"
    convex: ClassVar[bool] = True
    metric: ClassVar[str] = "partial_auc"
    pair_matrices: ClassVar[int] = 1
    intercept_from_irrelevant: ClassVar[bool] = True
    definition = staticmethod(reference.pauc_struct)

    def _evaluate(self, b, s, grad):
        r = _Ranked.of(b, s)
        return _pair_block(grad, 1.0 / (r.n_pos * b.k), r, slice(None), 1.0)

    def _expression(self, b, s):
        from . import _pap_dcp

        return _pap_dcp.pauc_struct(b.pos, b.neg, s, b.k)


@register
class PapRamp(_PapFace, DifferenceOfConvex):
    """Ramp surrogate, Hiranandani et al. 2020 eq. (8) (= eq. (6)):
    ``(1/(βk)) Σ_{i ∈ top-β pos} Σ_{j ∈ top-k neg} h_ij``. Not convex when n₊ > k (Prop. 2).

    Difference of convex functions ``G − H``, both taken at the top-k negatives:
    ``G = (1/(βk)) Σ_{all i} Σ_{j ∈ top-k} h_ij`` (= (n₊/β)·``pauc-struct``) and
    ``H = (1/(βk)) Σ_{i ∈ bottom (n₊ − β)} Σ_{j ∈ top-k} h_ij`` (the max surrogate's form with
    n₊ − β rows in place of β). Each is a largest sum of k convex rows nondecreasing in s_j,
    so both maxima over Z₋ sit at the top-k negatives and the difference is the top-β rows.
    The subgradient face returns the gradient of the active piece (∇G − ∇H there).
    """

    name: ClassVar[str] = "pap@k-ramp"
    convex: ClassVar[bool] = False
    pair_matrices: ClassVar[int] = 1
    definition = staticmethod(reference.pap_ramp)
    dca_start: ClassVar[str | None] = "pap@k-avg"

    def _evaluate(self, b, s, grad):
        r = _Ranked.of(b, s)
        return _pair_block(grad, r.scale, r, r.top(r.beta), 1.0)

    def _convex_part_expression(self, b, s):
        """``G`` as a DCP expression: n₊·n₋ pair variables, or n₊·k on k levels at a small k."""
        from . import _pap_dcp

        total, constraints = _pap_dcp.top_k_pair_hinges(b.pos, b.neg, s, b.k)
        return total / (min(b.n_pos, b.k) * b.k), constraints

    def _subtracted_subgradient(self, b, s):
        """A subgradient of ``H`` (the active pairs of the bottom n₊ − β positives)."""
        r = _Ranked.of(b, s)
        grad = np.zeros(len(s))
        _pair_block(grad, r.scale, r, r.bottom(r.n_pos - r.beta), 1.0)
        return grad


@register
class PapTightStructPaper(_PapFace):
    """What Algorithm 2 of Hiranandani et al. 2020 (lines 10-12) computes for the TS surrogate, kept
    under its own name to reproduce the paper; it is *not* eq. (14).

    Line 11 sets ``π̄_(i)j = 1{s_(i) − z_j <= 1(i <= β)}`` with the positives ranked *by
    score*, line 12 ``g = (1/(βk)) Σ_ij π̄_ij (e_{z_j} − e_i)``; that is the gradient of
    ``(1/(βk)) Σ_{j ∈ top-k} [Σ_{i ∈ top-β pos} (1 + z_j − s_i)₊ + Σ_{other i} (z_j − s_i)₊]``,
    the value returned here. It is ≥ TS (each row is at least ``max(a_j − (n₊ − β), b_j)``), and
    not convex, so its gradient is no subgradient of eq. (14) (``docs/findings.md``).
    Pairs at a kink count as active, as the paper's ``<=`` says.
    """

    name: ClassVar[str] = "pap@k-ts-paper"
    convex: ClassVar[bool] = False
    definition = staticmethod(reference.pap_ts_paper)

    def _evaluate(self, b, s, grad):
        r = _Ranked.of(b, s)
        return (_pair_block(grad, r.scale, r, r.top(r.beta), 1.0, inclusive=True)
                + _pair_block(grad, r.scale, r, r.bottom(r.n_pos - r.beta), 0.0, inclusive=True))

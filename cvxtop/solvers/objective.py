"""The regularized training objective shared by every solver.

    P(w) = ½‖w‖² + C · L(y, Z w),

where ``Z`` is the feature matrix (``X`` for linear scores, a factor ``F`` with ``K = F Fᵀ``
for kernel scores, see :mod:`cvxtop.gram`) and ``L`` is a surrogate of the scores or, with
groups, the mean over groups of the per-group surrogate (Hiranandani et al. 2020, eq. (17),
applied to the surrogate). The objective binds the surrogate to each list once (``k``
resolved, index sets cached), so that solvers call the bound faces in their inner loops.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from ..groups import Groups
from ..surrogates.base import Bound, Surrogate
from ..surrogates.segment import Segment, whole_list

__all__ = ["RankingObjective", "Part"]


@dataclass(frozen=True)
class Part:
    """One list of the loss: the positions of its items and the surrogate bound to them."""

    index: np.ndarray
    bound: Bound

    @property
    def y(self) -> np.ndarray:
        return self.bound.y

    @property
    def k(self) -> int:
        return self.bound.k


@dataclass
class RankingObjective:
    """``½‖w‖² + C·L(y, Zw)`` for one surrogate, optionally averaged over groups.

    Parameters
    ----------
    Z : array of shape (n, d)
        Features (validated by the caller).
    y : array of shape (n,)
        0/1 labels (validated by the caller).
    surrogate : Surrogate
    C : float
        Weight of the loss, > 0.
    groups : Groups or array of shape (n,), optional
        The list of each item (a :class:`cvxtop.groups.Groups`, or one id per item);
        ``None`` means one list.
    skip_degenerate : bool
        Leave out groups on which the surrogate is undefined (no relevant item, ``k`` out of
        range) instead of raising; :attr:`n_skipped` counts them.
    """

    Z: Any
    y: np.ndarray
    surrogate: Surrogate
    C: float
    groups: Groups | None = None
    skip_degenerate: bool = False
    parts: list[Part] = field(init=False, repr=False)
    n_skipped: int = field(init=False, default=0)
    # L at the zero model's scores, once computed: it depends on the labels, the surrogate
    # and the lists, not on Z or C (a path's cuts carry it from one C to the next)
    zero_loss: float | None = field(init=False, default=None, repr=False, compare=False)
    # a lower bound on ‖Zᵀg‖² over the zero model's face of the loss's dual, once one is
    # found, and the least ‖Zᵀg‖² a solve over it gave up on (cvxtop.solvers.zero_model):
    # they depend on Z and the loss, not on C
    zero_face_floor: float = field(init=False, default=0.0, repr=False, compare=False)
    zero_face_missed: float = field(init=False, default=0.0, repr=False, compare=False)
    # quantities of Z and the labels alone, by name, once computed (derived): the loss's
    # digest (cvxtop.solvers.cut_store.loss_key), ‖Z‖_F, what the dual solves read
    derived_values: dict[str, Any] = field(init=False, default_factory=dict, repr=False,
                                           compare=False)

    def __post_init__(self) -> None:
        if self.groups is None:
            self.parts = [Part(np.arange(len(self.y)), self.surrogate.bind_labels(self.y))]
            return
        if not isinstance(self.groups, Groups):
            self.groups = Groups.of(self.groups, len(self.y))
        parts = []
        for code, index in enumerate(self.groups):
            try:
                parts.append(Part(index, self.surrogate.bind_labels(self.y[index])))
            except ValueError as exc:
                if not self.skip_degenerate:
                    raise ValueError(
                        f"group {self.groups.id(code)!r} is degenerate for "
                        f"{self.surrogate.name}: {exc}; pass skip_degenerate_groups=True to "
                        "leave such groups out") from None
                self.n_skipped += 1
        if not parts:
            raise ValueError(f"every group is degenerate for {self.surrogate.name}")
        if self.n_skipped:
            warnings.warn(f"skipped {self.n_skipped} degenerate group(s) of "
                          f"{self.n_skipped + len(parts)}", UserWarning, stacklevel=3)
        self.parts = parts

    @property
    def n_groups(self) -> int:
        """Number of groups that enter the loss."""
        return len(self.parts)

    @property
    def one_list(self) -> bool:
        """Whether the loss is one list over every row of ``Z`` in order: no groups, or one
        group that holds every item. The dual solves that index ``Z`` by a bound's items
        need it; a single group left by skipped ones holds a subset of the rows."""
        return len(self.parts) == 1 and len(self.parts[0].index) == len(self.y)

    @property
    def ks(self) -> list[int]:
        """The resolved cut-off of each group."""
        return [p.k for p in self.parts]

    def with_surrogate(self, surrogate: Surrogate) -> "RankingObjective":
        """The same data and C with another surrogate (the start of the convex-concave
        procedure)."""
        return RankingObjective(self.Z, self.y, surrogate, self.C, self.groups,
                                self.skip_degenerate)

    # ---- numpy faces -----------------------------------------------------------------
    def loss_and_score_gradient(self, s: np.ndarray) -> tuple[float, np.ndarray]:
        """``L`` at the scores ``s`` and a subgradient with respect to ``s``."""
        if self.groups is None:
            return self.parts[0].bound.value_and_subgradient(s)
        g = np.zeros_like(s)
        total = 0.0
        for p in self.parts:
            v, gp = p.bound.value_and_subgradient(s[p.index])
            total += v
            g[p.index] = gp
        m = len(self.parts)
        return total / m, g / m

    def segment(self, s: np.ndarray, ds: np.ndarray, T: float) -> Segment:
        """``τ ↦ L(s + τ·ds)`` with the slope of a subgradient, for ``τ`` in ``[0, T]``: on
        one list, evaluated on the items that can matter there when the surrogate knows
        them (:mod:`cvxtop.surrogates.segment`); with groups, on every item."""
        if self.groups is None:
            return self.parts[0].bound.segment(s, ds, T)
        return whole_list(self.loss_and_score_gradient, s, ds)

    @property
    def restricted_segment(self) -> bool:
        """Whether :meth:`segment` evaluates the items that can matter along it only (one
        list, and a surrogate that knows them), not the whole list at every point."""
        return self.groups is None and self.surrogate.restricted_segment

    def loss(self, s: np.ndarray) -> float:
        """``L`` at the scores ``s``."""
        if self.groups is None:
            return self.parts[0].bound.value(s)
        return float(np.mean([p.bound.value(s[p.index]) for p in self.parts]))

    def value(self, w: np.ndarray) -> float:
        """The objective ``P(w)``."""
        return self.value_at_scores(w, self.Z @ w)

    def derived(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept under ``name`` for later calls: for quantities of ``Z`` and
        the labels alone, not of ``C``, which the solves of a path over ``C`` share
        (:mod:`.path`). A rescaled copy starts without them (:func:`.scaling.rescaled`)."""
        if name not in self.derived_values:
            self.derived_values[name] = compute()
        return self.derived_values[name]

    def irrelevant(self) -> np.ndarray:
        """The mask of the irrelevant items (``y = 0``) of every list, for the intercepts
        read off a subgradient (:meth:`~cvxtop.surrogates.base.Surrogate.intercept_of`: the
        mean over groups of the lists' sums is the sum of the mean's ``g``)."""
        return self.derived("irrelevant", lambda: self.y == 0)

    def intercept_of(self, g: np.ndarray) -> float | None:
        """The intercept of the loss's piece whose subgradient is ``g`` (as
        :meth:`loss_and_score_gradient` gives it), read off ``g`` where the surrogate can
        (:meth:`~cvxtop.surrogates.base.Surrogate.intercept_of`), else ``None``. With
        groups, the mean of each list's, from its share of ``g`` times their number (exact
        up to that product's rounding, which the surrogate's rule allows for); a sum
        over the irrelevant items (:attr:`~cvxtop.surrogates.base.Surrogate.
        intercept_from_irrelevant`) is read off the mean's ``g`` at once."""
        surrogate = self.surrogate
        if self.groups is None or surrogate.intercept_from_irrelevant:
            return surrogate.intercept_of(g, self.irrelevant(), self.parts[0].k)
        if not surrogate.exact_intercepts:
            return None
        m = len(self.parts)
        total = 0.0
        for p in self.parts:
            b = surrogate.intercept_of(g[p.index] * m, p.bound.neg, p.k)
            if b is None:
                return None
            total += b
        return total / m

    def row_norms(self) -> np.ndarray:
        """The Euclidean norms of ``Z``'s rows (of the stored values, for a sparse ``Z``):
        they bound the rounding of the cuts' products with ``Z``
        (:func:`.cut_store.cut_rounding`)."""
        def norms() -> np.ndarray:
            Z = self.Z
            if sp.issparse(Z):
                Z = sp.csr_matrix(Z, dtype=np.float64)  # (squares of float32 values exact)
                squares = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
            else:
                data = np.asarray(Z)
                squares = np.einsum("ij,ij->i", data, data, dtype=np.float64)
            return np.sqrt(squares)
        return self.derived("row_norms", norms)

    def dcp_size(self) -> int:
        """The auxiliary variables of the surrogate's cvxpy form over every list
        (``Surrogate.dcp_size``): the size of the direct program."""
        return sum(self.surrogate.dcp_size(p.bound.n_pos, p.bound.n_neg) for p in self.parts)

    def column_spread(self) -> float:
        """The ratio of the largest to the smallest standard deviation of ``Z``'s columns
        that vary (1 when fewer than two do): columns of very different scales make a
        large ``C`` badly conditioned, and a failed solve says so."""
        def spread() -> float:
            Z = self.Z
            if sp.issparse(Z):
                mean = np.asarray(Z.mean(axis=0)).ravel()
                variance = np.asarray(Z.multiply(Z).mean(axis=0)).ravel() - mean * mean
            else:
                variance = np.asarray(Z).var(axis=0)
            deviations = np.sqrt(np.maximum(variance, 0.0))
            varying = deviations[deviations > 1e-12 * deviations.max(initial=0.0)]
            return float(varying.max() / varying.min()) if len(varying) >= 2 else 1.0
        return self.derived("column spread", spread)

    def common_offset(self) -> float:
        """The norm of ``Z``'s mean row over the rows' root-mean-square distance from it (0
        when every row is the same): rows that share an offset far larger than their spread
        about it (raw years or timestamps as features) score every item nearly alike along
        that offset, a direction the regularizer barely holds, and a failed solve says so."""
        def offset() -> float:
            mean = np.asarray(self.Z.mean(axis=0), dtype=np.float64).ravel()
            square = float(np.mean(self.row_norms() ** 2))
            centre = float(mean @ mean)
            spread = square - centre
            if not spread > 1e-24 * square:  # equal rows, up to the sums' rounding
                return 0.0
            return float(np.sqrt(centre / spread))
        return self.derived("common offset", offset)

    def zero_value(self) -> float:
        """``P(0) = C·L(0)``: the zero model's objective, its loss computed once."""
        if self.zero_loss is None:
            self.zero_loss = self.loss(np.zeros(len(self.y)))
        return self.C * self.zero_loss

    def value_at_scores(self, w: np.ndarray, s: np.ndarray) -> float:
        """``P(w)`` when the scores ``s = Z w`` are already known."""
        return 0.5 * float(w @ w) + self.C * self.loss(s)

    def value_and_gradient(self, w: np.ndarray) -> tuple[float, np.ndarray, float, np.ndarray]:
        """``P(w)``, a subgradient of ``P`` in ``w``, and ``L`` with its score subgradient."""
        loss, g = self.loss_and_score_gradient(self.Z @ w)
        return 0.5 * float(w @ w) + self.C * loss, w + self.C * (self.Z.T @ g), loss, g

    # ---- cvxpy face ------------------------------------------------------------------
    def loss_expression(self, s: Any) -> tuple[Any, list]:
        """DCP expression of ``L`` in the affine scores ``s`` (convex surrogates only)."""
        return self.mean_over_groups(s, Bound.expression)

    def mean_over_groups(self, s: Any, build: Callable[[Bound, Any], tuple[Any, list]]
                         ) -> tuple[Any, list]:
        """Mean over groups of ``build(bound_g, s_g) -> (expr, constraints)``."""
        import cvxpy as cp

        terms, constraints = [], []
        for p in self.parts:
            expr, cons = build(p.bound, s if self.groups is None else s[p.index])
            terms.append(expr)
            constraints.extend(cons)
        mean = terms[0] if len(terms) == 1 else cp.sum(cp.hstack(terms)) / len(terms)
        return mean, constraints

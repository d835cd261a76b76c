"""The regularized training objective shared by every solver.

    P(w) = ½‖w‖² + C · L(y, Z w),

where ``Z`` is the feature matrix (``X`` for linear scores, a factor ``F`` with ``K = F Fᵀ``
for kernel scores, see :mod:`cvxtop.gram`) and ``L`` is a surrogate of the scores or, with
groups, the mean over groups of the per-group surrogate (``papers/001`` eq. (17) applied to
the surrogate). The objective validates labels, groups and ``k`` once, so that solvers can
call the surrogate's private faces in their inner loops.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from ..surrogates.base import Surrogate

__all__ = ["RankingObjective"]


@dataclass
class _Group:
    index: np.ndarray
    y: np.ndarray
    k: int


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
    groups : array of shape (n,) of int codes 0..G-1, optional
        Group of each item; ``None`` means one list.
    group_ids : array of shape (G,), optional
        The user's id of each group code, used in error messages.
    skip_degenerate : bool
        Leave out groups on which the surrogate is undefined (no relevant item, ``k`` out of
        range) instead of raising; :attr:`n_skipped` counts them.
    """

    Z: np.ndarray
    y: np.ndarray
    surrogate: Surrogate
    C: float
    groups: np.ndarray | None = None
    group_ids: np.ndarray | None = None
    skip_degenerate: bool = False
    parts: list[_Group] = field(init=False, repr=False)
    n_skipped: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if self.groups is None:
            self.parts = [_Group(np.arange(len(self.y)), self.y, self.surrogate.resolve_k(self.y))]
            return
        order = np.argsort(self.groups, kind="stable")
        bounds = np.flatnonzero(np.diff(self.groups[order])) + 1
        parts = []
        for index in np.split(order, bounds):
            yg = self.y[index]
            try:
                k = self.surrogate.resolve_k(yg)
            except ValueError as exc:
                if not self.skip_degenerate:
                    code = int(self.groups[index[0]])
                    gid = code if self.group_ids is None else self.group_ids[code]
                    gid = gid.item() if isinstance(gid, np.generic) else gid
                    raise ValueError(
                        f"group {gid!r} is degenerate for {self.surrogate.name}: {exc}; pass "
                        "skip_degenerate_groups=True to leave such groups out"
                    ) from None
                self.n_skipped += 1
                continue
            parts.append(_Group(index, yg, k))
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
    def ks(self) -> list[int]:
        """The resolved cut-off of each group."""
        return [p.k for p in self.parts]

    # ---- numpy faces -----------------------------------------------------------------
    def loss_and_score_gradient(self, s: np.ndarray) -> tuple[float, np.ndarray]:
        """``L`` at the scores ``s`` and a subgradient with respect to ``s``."""
        if self.groups is None:
            p = self.parts[0]
            return self.surrogate._value_and_subgradient(p.y, s, p.k)
        g = np.zeros_like(s)
        total = 0.0
        for p in self.parts:
            v, gp = self.surrogate._value_and_subgradient(p.y, s[p.index], p.k)
            total += v
            g[p.index] = gp
        m = len(self.parts)
        return total / m, g / m

    def loss(self, s: np.ndarray) -> float:
        """``L`` at the scores ``s``."""
        if self.groups is None:
            p = self.parts[0]
            return float(self.surrogate._value(p.y, s, p.k))
        return float(np.mean([self.surrogate._value(p.y, s[p.index], p.k) for p in self.parts]))

    def value(self, w: np.ndarray) -> float:
        """The objective ``P(w)``."""
        return self.value_at_scores(w, self.Z @ w)

    def value_at_scores(self, w: np.ndarray, s: np.ndarray) -> float:
        """``P(w)`` when the scores ``s = Z w`` are already known."""
        return 0.5 * float(w @ w) + self.C * self.loss(s)

    def value_and_gradient(self, w: np.ndarray) -> tuple[float, np.ndarray, float, np.ndarray]:
        """``P(w)``, a subgradient of ``P`` in ``w``, and ``L`` with its score subgradient."""
        loss, g = self.loss_and_score_gradient(self.Z @ w)
        return 0.5 * float(w @ w) + self.C * loss, w + self.C * (self.Z.T @ g), loss, g

    # ---- cvxpy face ------------------------------------------------------------------
    def loss_expression(self, s: cp.Expression) -> tuple[cp.Expression, list[cp.Constraint]]:
        """DCP expression of ``L`` in the affine scores ``s`` (convex surrogates only)."""
        if not self.surrogate.convex:
            raise ValueError(f"{self.surrogate.name} is not convex: it has no DCP expression")
        return self.mean_over_groups(s, self.surrogate._expression)

    def part_scores(self, s, part: _Group):
        """The scores of one group (all of ``s`` without groups)."""
        return s if self.groups is None else s[part.index]

    def mean_over_groups(self, s: cp.Expression, build) -> tuple[cp.Expression, list]:
        """Mean over groups of ``build(y_g, s_g, k_g) -> (expr, constraints)``."""
        terms, constraints = [], []
        for p in self.parts:
            expr, cons = build(p.y, self.part_scores(s, p), p.k)
            terms.append(expr)
            constraints.extend(cons)
        mean = terms[0] if len(terms) == 1 else cp.sum(cp.hstack(terms)) / len(terms)
        return mean, constraints

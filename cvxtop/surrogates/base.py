"""The surrogate protocol: one function of the scores with three faces that agree exactly.

A surrogate is a function ``f(s)`` of the score vector ``s`` with the labels ``y`` and the
cut-off ``k`` fixed. Every surrogate offers

* :meth:`Surrogate.value`: fast numpy evaluation (sorting and cumulative sums);
* :meth:`Surrogate.subgradient`: a subgradient with respect to ``s``; for a convex
  surrogate ``f(s') >= f(s) + g·(s' − s)`` for every ``s'``;
* :meth:`Surrogate.expression`: a DCP-convex cvxpy expression of an affine score
  expression, with any auxiliary constraints (convex surrogates only).

:mod:`cvxtop.reference` holds the brute-force fourth face that the others are tested against.

Subclasses implement the private faces ``_value``, ``_subgradient`` and ``_expression`` on
validated inputs (``y`` an ``int64`` 0/1 array, ``s`` a finite ``float64`` array, ``k``
an int already checked against the family's range); solvers call these directly after
validating once. ``_value_and_subgradient`` may be overridden to share a sort.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from .._validation import (
    check_int_in_range,
    check_labels,
    check_same_length,
    check_scores,
    require_classes,
    resolve_prec_k,
)

__all__ = ["Surrogate", "PrecSurrogate", "PapSurrogate", "DifferenceOfConvex"]


class Surrogate(ABC):
    """Base class of every surrogate; see the module docstring for the protocol."""

    #: Registry name, e.g. ``"prec@k-avg"``.
    name: ClassVar[str]
    #: Whether the surrogate is convex in the scores (then ``expression`` is available).
    convex: ClassVar[bool]
    #: ``"prec"`` (papers/000, loss scale) or ``"pap"`` (papers/001, normalized risk).
    family: ClassVar[str]
    #: Whether the DCP form needs one term per (positive, negative) pair (O(n₊·n₋) size).
    pairwise_dcp: ClassVar[bool] = False

    def __init__(self, k: Any) -> None:
        self.k = k

    def __repr__(self) -> str:
        return f"cvxtop.surrogates.get({self.name!r}, k={self.k!r})"

    # ---- validation ------------------------------------------------------------------
    @abstractmethod
    def resolve_k(self, y: np.ndarray) -> int:
        """Check the labels and ``self.k`` for this family; return the integer cut-off."""

    def _checked(self, y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray, int]:
        y = check_labels(y_true, "y_true")
        s = check_scores(y_score, "y_score")
        check_same_length(y_true=y, y_score=s)
        return y, s, self.resolve_k(y)

    # ---- public faces ----------------------------------------------------------------
    def value(self, y_true: Any, y_score: Any) -> float:
        """The surrogate at the scores ``y_score``, exactly as the paper defines it."""
        y, s, k = self._checked(y_true, y_score)
        return float(self._value(y, s, k))

    def subgradient(self, y_true: Any, y_score: Any) -> np.ndarray:
        """A subgradient with respect to the scores, shape ``(n,)``."""
        y, s, k = self._checked(y_true, y_score)
        return self._subgradient(y, s, k)

    def value_and_subgradient(self, y_true: Any, y_score: Any) -> tuple[float, np.ndarray]:
        """Both faces at once (one sort where the implementation allows)."""
        y, s, k = self._checked(y_true, y_score)
        v, g = self._value_and_subgradient(y, s, k)
        return float(v), g

    def expression(self, y_true: Any, score_expr: cp.Expression
                   ) -> tuple[cp.Expression, list[cp.Constraint]]:
        """A DCP-convex cvxpy expression of the affine ``score_expr`` and its constraints.

        Minimizing the expression subject to the constraints (over the auxiliary variables
        they introduce) gives the surrogate's value. Raises ``ValueError`` for a
        non-convex surrogate.
        """
        if not self.convex:
            raise ValueError(
                f"{self.name} is not convex, so it has no DCP expression; minimize it with a "
                "local method (TopRanker's convex-concave procedure) instead"
            )
        y = check_labels(y_true, "y_true")
        if not isinstance(score_expr, cp.Expression):
            raise TypeError(
                f"score_expr must be a cvxpy Expression, got {type(score_expr).__name__}")
        if score_expr.shape != (len(y),):
            raise ValueError(
                f"score_expr must have shape ({len(y)},) to match y_true, got {score_expr.shape}")
        if not score_expr.is_affine():
            raise ValueError("score_expr must be affine in the optimization variables")
        k = self.resolve_k(y)
        expr, constraints = self._expression(y, score_expr, k)
        return expr, list(constraints)

    # ---- private faces (validated inputs) --------------------------------------------
    @abstractmethod
    def _value(self, y: np.ndarray, s: np.ndarray, k: int) -> float:
        ...

    @abstractmethod
    def _subgradient(self, y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
        ...

    def _value_and_subgradient(self, y: np.ndarray, s: np.ndarray, k: int
                               ) -> tuple[float, np.ndarray]:
        return self._value(y, s, k), self._subgradient(y, s, k)

    def _expression(self, y: np.ndarray, s: cp.Expression, k: int
                    ) -> tuple[cp.Expression, list[cp.Constraint]]:
        raise NotImplementedError  # only reached for convex surrogates, which override it


class PrecSurrogate(Surrogate):
    """prec@k surrogates of ``papers/000``: loss scale (irrelevant items in the top k).

    ``k`` is an int with ``1 <= k <= n₊`` or a float κ in (0, 1] meaning ``ceil(κ·n₊)``.
    """

    family: ClassVar[str] = "prec"

    def resolve_k(self, y: np.ndarray) -> int:
        n_pos, _ = require_classes(y, negative=False, context=f"{self.name} needs n₊ >= 1")
        return resolve_prec_k(self.k, n_pos, "k")


class PapSurrogate(Surrogate):
    """pAp@k surrogates of ``papers/001``: risk normalized by ``1/(βk)``, β = min(n₊, k).

    ``k`` is an int with ``1 <= k <= n₋``; at least one relevant item is required.
    """

    family: ClassVar[str] = "pap"

    def resolve_k(self, y: np.ndarray) -> int:
        _, n_neg = require_classes(y, context=f"{self.name} needs n₊ >= 1 and n₋ >= k")
        return check_int_in_range(self.k, "k", 1, n_neg, "the number of irrelevant items n₋")


class DifferenceOfConvex:
    """Mixin for a non-convex surrogate written as ``f = G − H`` with ``G``, ``H`` convex.

    The convex-concave procedure (DCA) minimizes ``f`` locally by repeatedly replacing
    ``H`` with its linearization at the current scores: each step minimizes
    ``½‖w‖² + C·(G(Xw) − h·Xw)`` with ``h`` a subgradient of ``H``.
    """

    def _convex_part_expression(self, y: np.ndarray, s: cp.Expression, k: int
                                ) -> tuple[cp.Expression, list[cp.Constraint]]:
        """DCP expression of ``G`` (and its auxiliary constraints)."""
        raise NotImplementedError

    def _subtracted_subgradient(self, y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
        """A subgradient of ``H`` at the scores ``s``."""
        raise NotImplementedError

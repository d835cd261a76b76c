"""Subset ranking and multilabel ranking with the NDCG loss, Jain et al. 2015 Sections 4 and 5.

A prediction is a permutation ``σ`` of ``m`` documents (or labels), held as the vector of
1-based positions: ``σ[i]`` is the position of document ``i``. With a strictly decreasing
``f`` and ``Z = (Σ_{i=1..m} f(i)²)^{1/2}``:

* ``rep(σ)_i = f(σ(i))/Z``, so eq. (1) sorts the scores in decreasing order;
* ``L_NDCG(σ, y) = 1 − Σ_i (2^{y_i} − 1)/log2(1 + σ(i)) / Z(y)``, ``Z(y)`` the largest DCG
  (a label without a positive gain has loss 0 everywhere);
* eq. (2) is a linear assignment problem (Lemma 3): documents to positions with weight
  ``C[i, p] = −(2^{y_i} − 1)/(log2(1 + p) Z(y)) + f(p) t_i / Z``, solved exactly by
  :func:`scipy.optimize.linear_sum_assignment` in ``O(m³)``;
* as an LP over the (integral) Birkhoff polytope, its dual
  ``min Σ_i u_i + Σ_p v_p  s.t.  u_i + v_p >= C[i, p]`` makes ψ a DCP expression;
* Lemma 4: with ``y`` sorted in decreasing order, ``t`` has margin γ on ``y`` iff it is
  compatible with ``y`` (its weak order is the one of ``y``) and, at each position ``P`` where
  the grade drops, ``t_P − t_{P+1} >= γ Z/(f(P) − f(P+1))``.

``σ_y`` sorts ``y`` in decreasing order with ties in document order.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import cvxpy as cp
import numpy as np
from scipy.optimize import linear_sum_assignment

from .._validation import check_grades, check_int_in_range, check_vector
from ..metrics import dcg_discounts
from .base import Problem

__all__ = ["SubsetRanking", "MultilabelRanking", "ndcg_loss", "default_f", "MAX_DOCUMENTS"]

#: Largest list length ``m`` (eq. (2) is an ``m × m`` assignment problem).
MAX_DOCUMENTS = 10_000


def default_f(i: float) -> float:
    """The default representation function ``f(i) = −i**1.1`` (Jain et al. 2015 Section 6)."""
    return -float(i) ** 1.1


def positions_of(order: np.ndarray) -> np.ndarray:
    """1-based positions of a ranking given as the documents from top to bottom."""
    positions = np.empty(len(order), dtype=np.int64)
    positions[order] = np.arange(1, len(order) + 1)
    return positions


def _gains(y: np.ndarray) -> np.ndarray:
    return np.exp2(y) - 1.0


def _dcg(ranked_gains: np.ndarray) -> float:
    """DCG of gains listed from the top position down. Always the same contiguous dot
    product, so that equal rankings give bit-identical values (a strided view can take a
    different summation path)."""
    return float(np.ascontiguousarray(ranked_gains) @ dcg_discounts(len(ranked_gains)))


def _ideal_dcg(gains: np.ndarray) -> float:
    return _dcg(np.sort(gains)[::-1])


def ndcg_loss(positions: np.ndarray, y: np.ndarray) -> float:
    """``1 − NDCG(σ, y)``, Jain et al. 2015 Section 4 (0 when ``y`` has no positive gain).

    ``positions`` are 1-based positions (a permutation of ``1..m``), ``y`` relevance grades;
    inputs are not validated (see :meth:`SubsetRanking.loss`).
    """
    gains = _gains(y)
    ideal = _ideal_dcg(gains)
    if ideal == 0:
        return 0.0
    # Sum in position order, as the ideal DCG is: a ranking that sorts y then has loss 0
    # exactly, not a rounding residue that would count as a mistake.
    ranked = np.empty_like(gains)
    ranked[positions - 1] = gains
    return 1.0 - _dcg(ranked) / ideal


def _representation_values(f: Callable[[float], Any] | Sequence[float], m: int) -> np.ndarray:
    """``f(1), ..., f(m)``, checked to be finite and strictly decreasing."""
    if callable(f):
        try:
            values = [float(f(i)) for i in range(1, m + 1)]
        except Exception as exc:
            raise ValueError(f"f could not be evaluated on 1..{m}: {exc}") from None
        values = check_vector(values, m, "f(1..m)")
    else:
        values = check_vector(f, m, "f")
    if np.any(np.diff(values) >= 0):
        raise ValueError(f"f must be strictly decreasing on 1..{m}, got {values.tolist()}")
    return values


def _column(expr: cp.Expression) -> cp.Expression:
    """A length-m cvxpy vector as an (m, 1) column."""
    return cp.reshape(expr, (expr.shape[0], 1), order="C")


class SubsetRanking(Problem):
    """Subset ranking with the NDCG loss, Jain et al. 2015 Section 4.

    ``m`` documents per query (``m >= 2``); ``f`` a strictly decreasing function of the
    position (a callable evaluated at ``1, ..., m``, or the ``m`` values ``f(1..m)``),
    default ``f(i) = −i**1.1``. Scores are ``t = X w`` for an input matrix ``X ∈ R^{m×p0}``
    (one row per document) and a learned vector ``w``; a label is a vector of ``m``
    non-negative relevance grades (gains ``2**y − 1``); a prediction is the vector of 1-based
    positions of the documents.
    """

    input_kind = "matrix"

    def __init__(self, m: int, f: Callable[[float], Any] | Sequence[float] = default_f) -> None:
        self.m = check_int_in_range(m, "m", 2, MAX_DOCUMENTS)
        self.f = f
        self.f_values = _representation_values(f, self.m)
        self.norm = float(np.linalg.norm(self.f_values))
        self.dim = self.m
        self.label_shape = (self.m,)
        self._discounts = dcg_discounts(self.m)

    def __repr__(self) -> str:
        name = getattr(self.f, "__name__", type(self.f).__name__)
        return f"{type(self).__name__}(m={self.m!r}, f={name})"

    def _validate_labels(self, y: Any, name: str) -> np.ndarray:
        return check_grades(y, name)

    def _validate_prediction(self, prediction: Any, name: str) -> np.ndarray:
        sigma = np.asarray(prediction)
        if sigma.shape != (self.m,) or not np.issubdtype(sigma.dtype, np.integer) \
                or not np.array_equal(np.sort(sigma), np.arange(1, self.m + 1)):
            raise ValueError(f"{name} must hold the 1-based positions of the {self.m} "
                             "documents: a permutation of 1..m")
        return sigma.astype(np.int64)

    def _rep(self, prediction: np.ndarray) -> np.ndarray:
        return self.f_values[prediction - 1] / self.norm

    def _pred(self, t: np.ndarray) -> np.ndarray:
        return positions_of(np.argsort(-t, kind="stable"))

    def _loss(self, prediction: np.ndarray, y: np.ndarray) -> float:
        return ndcg_loss(prediction, y)

    def _worst_loss(self, t: np.ndarray, y: np.ndarray) -> float:
        # Tied scores may be ordered either way: put the least relevant first.
        return ndcg_loss(positions_of(np.lexsort((y, -t))), y)

    def _correct(self, y: np.ndarray) -> np.ndarray:
        return positions_of(np.argsort(-y, kind="stable"))

    def _assignment_weights(self, y: np.ndarray) -> tuple[np.ndarray, float]:
        """The ``t``-free part of ``C[i, p]``, ``−gain_i discount_p / Z(y)``, and the constant
        ``1`` of ``L_NDCG`` (both 0 when ``Z(y) = 0``: every ranking is then correct)."""
        gains = _gains(y)
        ideal = _ideal_dcg(gains)
        if ideal == 0:
            return np.zeros((self.m, self.m)), 0.0
        return -np.outer(gains, self._discounts) / ideal, 1.0

    def _psi(self, t: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        base, constant = self._assignment_weights(y)
        weights = base + np.outer(t, self.f_values) / self.norm
        rows, column = linear_sum_assignment(weights, maximize=True)
        sigma = column.astype(np.int64) + 1
        value = constant + float(weights[rows, column].sum()) \
            - float(self._rep(self._correct(y)) @ t)
        return value, sigma

    def _margin(self, t: np.ndarray, y: np.ndarray) -> float:
        order = np.argsort(-y, kind="stable")
        ys, ts = y[order], t[order]
        same = ys[1:] == ys[:-1]
        gaps = ts[:-1] - ts[1:]
        if np.any(gaps[same] != 0) or np.any(gaps[~same] <= 0):
            return 0.0
        if same.all():
            return float("inf")
        drops = np.flatnonzero(~same)  # 0-based index P−1 of the last position P of a grade
        steps = self.f_values[drops] - self.f_values[drops + 1]
        return float(np.min(gaps[drops] * steps) / self.norm)

    def _psi_expression(self, t_expr: cp.Expression, y: np.ndarray
                        ) -> tuple[cp.Expression, list[cp.Constraint]]:
        m = self.m
        base, constant = self._assignment_weights(y)
        weights = base + _column(t_expr) @ (self.f_values[None, :] / self.norm)
        u, v = cp.Variable(m), cp.Variable(m)
        expr = constant + cp.sum(u) + cp.sum(v) - self._rep(self._correct(y)) @ t_expr
        return expr, [_column(u) + _column(v).T >= weights]


class MultilabelRanking(SubsetRanking):
    """Multilabel ranking with the NDCG loss, Jain et al. 2015 Section 5.

    The same score space as :class:`SubsetRanking` (``m`` labels to rank, ``rep(σ) =
    f(σ)/Z``, relevance vectors as labels), but the input is a vector ``x ∈ R^p`` and a matrix
    ``W ∈ R^{m×p}`` is learned: ``t = W x``.
    """

    input_kind = "vector"

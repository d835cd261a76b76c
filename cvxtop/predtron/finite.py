"""Problems with a small prediction space, given by a representation and a loss matrix.

Jain et al. 2015 Section 3: binary classification (with weighted losses and the REJECT option),
multiclass classification (0-1 loss, REJECT option) and ordinal regression (``|σ − y|``, by the
reduction to multiclass). With ``k`` predictions in ``R^d``, eq. (1) and eq. (2) cost one
``k × d`` matrix-vector product: nothing here is exponential.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from .._validation import (
    check_class_labels,
    check_int_in_range,
    check_labels,
    check_matrix,
    check_positive,
    check_vector,
)
from .base import Problem

__all__ = ["FiniteProblem", "Binary", "Multiclass", "Ordinal", "MAX_CLASSES"]

#: Largest number of classes (levels): the representation and loss matrices are dense.
MAX_CLASSES = 4096


def _positive_costs(value: Any, n: int, name: str) -> np.ndarray:
    """A positive cost per class: a scalar (the same for every class) or ``n`` values."""
    if np.ndim(value) == 0:
        return np.full(n, check_positive(value, name))
    costs = check_vector(value, n, name)
    if np.any(costs <= 0):
        raise ValueError(f"{name} must hold costs > 0, got {costs.tolist()}")
    return costs


class FiniteProblem(Problem):
    """A problem given by its ``k × d`` representation matrix and ``k × ℓ`` loss matrix.

    Row ``σ`` of ``representation`` is ``rep(σ)`` (unit norm, rows distinct); entry
    ``loss_matrix[σ, y]`` is ``L(σ, y) >= 0`` and every column holds a zero (Jain et al. 2015
    Section 2.1). Predictions are ``0 .. k−1``, labels ``0 .. ℓ−1``; ``σ_y`` is the first
    prediction with zero loss on ``y``.
    """

    label_shape = ()

    def __init__(self, representation: Any, loss_matrix: Any) -> None:
        rep = check_matrix(representation, "representation")
        loss = check_matrix(loss_matrix, "loss_matrix")
        if loss.shape[0] != rep.shape[0]:
            raise ValueError(
                f"loss_matrix has {loss.shape[0]} rows but representation has {rep.shape[0]}; "
                "both need one row per prediction")
        norms = np.linalg.norm(rep, axis=1)
        if not np.allclose(norms, 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"rows of representation must have unit norm, got {norms.tolist()}")
        if len(np.unique(rep, axis=0)) != len(rep):
            raise ValueError("rows of representation must be distinct (one per prediction)")
        if np.any(loss < 0):
            raise ValueError("loss_matrix must be non-negative")
        if not np.all((loss == 0).any(axis=0)):
            raise ValueError("every column of loss_matrix needs a zero (a correct prediction)")
        self.representation = rep
        self.loss_matrix = loss
        self.dim = rep.shape[1]
        self._correct_index = np.argmax(loss == 0, axis=0)

    @property
    def n_predictions(self) -> int:
        return self.loss_matrix.shape[0]

    @property
    def n_labels(self) -> int:
        return self.loss_matrix.shape[1]

    def __repr__(self) -> str:
        return (f"FiniteProblem(<{self.n_predictions} predictions in R^{self.dim}>, "
                f"<{self.n_labels} labels>)")

    def _validate_labels(self, y: Any, name: str) -> np.ndarray:
        return check_class_labels(y, self.n_labels, name)

    def _validate_prediction(self, prediction: Any, name: str) -> int:
        return check_int_in_range(prediction, name, 0, self.n_predictions - 1,
                                  "the number of predictions minus one")

    def _rep(self, prediction: int) -> np.ndarray:
        return self.representation[prediction]

    def _pred(self, t: np.ndarray) -> int:
        return int(np.argmax(self.representation @ t))

    def _loss(self, prediction: int, y: int) -> float:
        return float(self.loss_matrix[prediction, y])

    def _worst_loss(self, t: np.ndarray, y: int) -> float:
        sims = self.representation @ t
        return float(self.loss_matrix[sims == sims.max(), y].max())

    def _correct(self, y: int) -> int:
        return int(self._correct_index[y])

    def _psi(self, t: np.ndarray, y: int) -> tuple[float, int]:
        sims = self.representation @ t
        values = self.loss_matrix[:, y] + sims - sims[self._correct_index[y]]
        best = int(np.argmax(values))
        return float(values[best]), best

    def _margin(self, t: np.ndarray, y: int) -> float:
        sims = self.representation @ t
        correct = self.loss_matrix[:, y] == 0
        if not np.array_equal(sims == sims.max(), correct):
            return 0.0
        if correct.all():
            return float("inf")
        return float(sims.max() - sims[~correct].max())

    def _psi_expression(self, t_expr: cp.Expression, y: int
                        ) -> tuple[cp.Expression, list[cp.Constraint]]:
        sims = self.representation @ t_expr
        expr = cp.max(self.loss_matrix[:, y] + sims) - sims[int(self._correct_index[y])]
        return expr, []


def _with_reject(rep: np.ndarray, loss: np.ndarray, reject_costs: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Append REJECT: ``rep(REJECT) = Σ_c rep(c)/√m`` and ``L(REJECT, y) = reject_costs[y]``
    (Jain et al. 2015 Section 3, binary REJECT, extended to ``m`` classes as the text suggests)."""
    if reject_costs is None:
        return rep, loss
    reject_rep = rep.sum(axis=0) / np.sqrt(len(rep))
    return np.vstack([rep, reject_rep]), np.vstack([loss, reject_costs])


class Binary(FiniteProblem):
    """Binary classification, Jain et al. 2015 Section 3.

    Labels and predictions are ``0``/``1`` (labels ``-1``/``+1`` and booleans are accepted and
    mapped, ``1`` = positive). ``costs = (α_0, α_1)`` gives the weighted loss
    ``L_α(σ, y) = α_y`` for ``σ ≠ y`` (Corollary 2; ``(1, 1)`` is the 0-1 loss). Without
    REJECT, ``rep(0) = −1``, ``rep(1) = +1`` (``d = 1``): Algorithm 1 is then the classic
    perceptron. With ``reject_costs = (β_0, β_1)``, the prediction :attr:`reject` (``2``) is
    added with ``L(REJECT, y) = β_y``, the classes are represented by the standard basis of
    ``R^2`` and ``rep(REJECT) = (e_1 + e_2)/√2``.
    """

    def __init__(self, costs: Any = (1.0, 1.0), reject_costs: Any = None) -> None:
        self.costs = costs
        self.reject_costs = reject_costs
        alpha = _positive_costs(costs, 2, "costs")
        beta = None if reject_costs is None else _positive_costs(reject_costs, 2, "reject_costs")
        loss = np.array([[0.0, alpha[1]], [alpha[0], 0.0]])
        rep = np.array([[-1.0], [1.0]]) if beta is None else np.eye(2)
        super().__init__(*_with_reject(rep, loss, beta))
        #: Code of the REJECT prediction (``2``), or ``None`` without the option.
        self.reject = None if beta is None else 2

    def __repr__(self) -> str:
        return f"Binary(costs={self.costs!r}, reject_costs={self.reject_costs!r})"

    def _validate_labels(self, y: Any, name: str) -> np.ndarray:
        return check_labels(y, name)


class Multiclass(FiniteProblem):
    """Multiclass classification with the 0-1 loss, Jain et al. 2015 Section 3.

    Classes ``0 .. m−1`` are represented by the standard basis of ``R^m``, so ψ is the
    multiclass hinge ``max(0, 1 + max_{σ≠y} t_σ − t_y)``. With ``reject_cost`` (a positive
    scalar or one value per class), the prediction :attr:`reject` (``m``) is added, with
    ``rep(REJECT) = Σ_c e_c/√m`` and ``L(REJECT, y) = reject_cost[y]``.
    """

    def __init__(self, m: int, reject_cost: Any = None) -> None:
        self.m = check_int_in_range(m, "m", 2, MAX_CLASSES, "dense representation")
        self.reject_cost = reject_cost
        beta = None if reject_cost is None else _positive_costs(reject_cost, self.m,
                                                                  "reject_cost")
        loss = 1.0 - np.eye(self.m)
        super().__init__(*_with_reject(np.eye(self.m), loss, beta))
        #: Code of the REJECT prediction (``m``), or ``None`` without the option.
        self.reject = None if beta is None else self.m

    def __repr__(self) -> str:
        return f"Multiclass(m={self.m!r}, reject_cost={self.reject_cost!r})"


class Ordinal(FiniteProblem):
    """Ordinal regression with ``L(σ, y) = |σ − y|``, Jain et al. 2015 Section 3.

    ``levels`` ordered classes ``0 .. levels−1``, represented by the standard basis of
    ``R^levels`` (the paper's reduction to multiclass classification).
    """

    def __init__(self, levels: int) -> None:
        self.levels = check_int_in_range(levels, "levels", 2, MAX_CLASSES, "dense representation")
        grid = np.arange(self.levels, dtype=np.float64)
        super().__init__(np.eye(self.levels), np.abs(grid[:, None] - grid[None, :]))

    def __repr__(self) -> str:
        return f"Ordinal(levels={self.levels!r})"

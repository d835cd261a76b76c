"""The prediction-problem protocol of Predtron (Jain et al. 2015, Section 2).

A problem fixes a finite prediction space, a label space, a loss ``L(σ, y) >= 0`` and a
unit-norm representation ``rep(σ) ∈ R^d`` of each prediction. From these, Jain et al. 2015 defines

* maximum-similarity decoding, eq. (1): ``pred(t) ∈ argmax_σ <rep(σ), t>``;
* the set of correct predictions ``Σ_y = {σ : L(σ, y) = 0}`` and one fixed member ``σ_y``
  (:meth:`Problem.correct_prediction`);
* the surrogate, eq. (2): ``ψ(t, y) = max_σ [L(σ, y) − <rep(σ_y) − rep(σ), t>]``, convex in
  ``t``, non-negative, and an upper bound on the loss of every maximizer of eq. (1);
* the margin of Section 2.2: ``t`` has margin γ on ``y`` when the maximizers of eq. (1) are
  exactly ``Σ_y`` and ``<rep(σ_y') − rep(σ), t> >= γ`` for every ``σ_y' ∈ Σ_y``,
  ``σ ∉ Σ_y``.

Every problem offers these as public methods that validate their arguments, backed by private
faces (``_pred``, ``_psi``, ...) working on validated arrays, which the online and batch
solvers call directly. :meth:`Problem.psi` never enumerates an exponential prediction space;
brute force over all predictions lives in the tests only.

``input_kind`` says how scores come from an input: ``"vector"`` problems learn a matrix
``W ∈ R^{d×p}`` and score ``t = W x``; ``"matrix"`` problems (subset ranking, Section 4) take
an input matrix ``X ∈ R^{d×p0}`` and learn one weight vector ``w``, ``t = X w``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from .._validation import check_vector

__all__ = ["Problem"]

#: A prediction: an int (finite problems) or an int array (multilabel sets, rankings).
Prediction = Any


class Problem(ABC):
    """Base class of the Predtron problems; see the module docstring for the protocol."""

    #: ``"vector"`` (``t = W x``) or ``"matrix"`` (``t = X w``), see the module docstring.
    input_kind: ClassVar[str] = "vector"
    #: Dimension ``d`` of the score space.
    dim: int
    #: Shape of one label: ``()`` for a class index, ``(m,)`` for a label vector.
    label_shape: tuple[int, ...]

    # ---- validation ------------------------------------------------------------------
    def check_labels(self, y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
        """Validate a batch of labels, shape ``(n,) + label_shape``; return them encoded."""
        arr = self._validate_labels(y, name)
        expected = (len(arr) if n is None else n,) + self.label_shape
        if arr.shape != expected:
            raise ValueError(f"{name} must have shape {expected}, got {arr.shape}")
        return arr

    def _label(self, y: Any, name: str = "y") -> Any:
        return self.check_labels(np.asarray(y)[None], 1, name)[0]

    def _score(self, t: Any, name: str = "t") -> np.ndarray:
        return check_vector(t, self.dim, name)

    # ---- public faces ----------------------------------------------------------------
    def rep(self, prediction: Prediction) -> np.ndarray:
        """The unit vector ``rep(σ) ∈ R^d`` representing a prediction."""
        return self._rep(self._validate_prediction(prediction, "prediction"))

    def pred(self, t: Any) -> Prediction:
        """Maximum-similarity decoding, Jain et al. 2015 eq. (1); ties are broken
        deterministically."""
        return self._pred(self._score(t))

    def loss(self, prediction: Prediction, y: Any) -> float:
        """The loss ``L(σ, y)``."""
        return float(self._loss(self._validate_prediction(prediction, "prediction"),
                                self._label(y)))

    def worst_loss(self, t: Any, y: Any) -> float:
        """``L(t, y)`` with ties in eq. (1) broken against the label: the largest loss of any
        maximizer of ``<rep(σ), t>``. Predtron counts a round as a mistake when it is > 0."""
        return float(self._worst_loss(self._score(t), self._label(y)))

    def correct_prediction(self, y: Any) -> Prediction:
        """The fixed member ``σ_y`` of ``Σ_y`` used in eq. (2)."""
        return self._correct(self._label(y))

    def psi(self, t: Any, y: Any) -> tuple[float, Prediction]:
        """The surrogate of Jain et al. 2015 eq. (2) and a prediction attaining its maximum."""
        value, prediction = self._psi(self._score(t), self._label(y))
        return float(value), prediction

    def margin(self, t: Any, y: Any) -> float:
        """The largest γ such that ``t`` has margin γ on ``y`` (Jain et al. 2015 Section 2.2).

        ``0.0`` when ``t`` is not compatible with ``y`` (no positive margin) and ``inf``
        when ``t`` is compatible and every prediction is correct for ``y``.
        """
        return float(self._margin(self._score(t), self._label(y)))

    def psi_expression(self, t_expr: cp.Expression, y: Any
                       ) -> tuple[cp.Expression, list[cp.Constraint]]:
        """``ψ(·, y)`` as a DCP-convex cvxpy expression of the affine ``t_expr``.

        Returns the expression and the constraints on any auxiliary variables it introduces;
        minimizing the expression subject to them gives ``ψ(t, y)``.
        """
        label = self._label(y)
        if not isinstance(t_expr, cp.Expression):
            raise TypeError(f"t_expr must be a cvxpy Expression, got {type(t_expr).__name__}")
        if t_expr.shape != (self.dim,):
            raise ValueError(f"t_expr must have shape ({self.dim},), got {t_expr.shape}")
        if not t_expr.is_affine():
            raise ValueError("t_expr must be affine in the optimization variables")
        expr, constraints = self._psi_expression(t_expr, label)
        return expr, list(constraints)

    # ---- private faces (validated inputs) --------------------------------------------
    @abstractmethod
    def _validate_labels(self, y: Any, name: str) -> np.ndarray:
        """Check label values (any leading shape) and return them in the internal encoding."""

    @abstractmethod
    def _validate_prediction(self, prediction: Any, name: str) -> Prediction:
        ...

    @abstractmethod
    def _rep(self, prediction: Prediction) -> np.ndarray:
        ...

    @abstractmethod
    def _pred(self, t: np.ndarray) -> Prediction:
        ...

    @abstractmethod
    def _loss(self, prediction: Prediction, y: Any) -> float:
        ...

    @abstractmethod
    def _worst_loss(self, t: np.ndarray, y: Any) -> float:
        ...

    @abstractmethod
    def _correct(self, y: Any) -> Prediction:
        ...

    @abstractmethod
    def _psi(self, t: np.ndarray, y: Any) -> tuple[float, Prediction]:
        ...

    @abstractmethod
    def _margin(self, t: np.ndarray, y: Any) -> float:
        ...

    @abstractmethod
    def _psi_expression(self, t_expr: cp.Expression, y: Any
                        ) -> tuple[cp.Expression, list[cp.Constraint]]:
        ...

    def _gradient_direction(self, t: np.ndarray, y: Any) -> np.ndarray:
        """``rep(σ̃) − rep(σ_y)``: the gradient of ``ψ(·, y)`` at ``t`` (Algorithm 1, line 9)."""
        _, worst = self._psi(t, y)
        return self._rep(worst) - self._rep(self._correct(y))

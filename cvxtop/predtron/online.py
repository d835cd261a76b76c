"""Predtron (Jain et al. 2015 Algorithm 1) and Predtron.Link (Corollaries 6 and 8).

Both are mistake driven: on a round whose loss is positive they take the gradient
``(rep(σ̃) − rep(σ_y)) · Xᵀ`` of the surrogate ψ of eq. (2), ``σ̃`` its maximizer, and step
against it; otherwise they leave the weights alone. The loss of a round is ``L(t, y)`` with
ties in eq. (1) broken against the label (:meth:`~cvxtop.predtron.base.Problem.worst_loss`):
the paper lets ties be broken arbitrarily, and this choice makes ``Binary()`` update on the
rounds where the classic perceptron does (``y w·x <= 0``).

The loss-driven variant Predtron.LD is not implemented: the paper only names it (its
definition is in an appendix that is not part of the text), and the text does not determine
its update.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Iterable

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._validation import check_int_in_range, check_positive
from ..parameters import Param, ParameterTable, keyword_only, optional
from ._model import as_rows, check_batch, check_problem, coef_view, mean_loss, n_outputs
from .base import Problem
from .links import dual_exponent, paper_r, pnorm_link

__all__ = ["Predtron", "PredtronLink", "OnlineLearner"]


def _stream(batches: Any) -> Iterable[tuple[Any, Any]]:
    """Iterate over ``(X, y)`` batches, checking that each item is a pair."""
    if isinstance(batches, np.ndarray) or not isinstance(batches, Iterable):
        raise TypeError("y is required unless X is an iterable of (X, y) batches")
    for i, item in enumerate(batches):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(f"batch {i} of the stream must be an (X, y) pair, "
                            f"got {type(item).__name__}")
        yield item[0], item[1]


class OnlineLearner(BaseEstimator, ABC):
    """Shared loop of the mistake-driven learners; subclasses hold the score model.

    Fitted attributes: ``n_features_in_``; ``mistakes_`` (rounds with positive loss);
    ``cumulative_loss_`` (the sum of the losses of all rounds, the left side of Theorem 1);
    ``n_rounds_``; ``n_iter_`` (passes made by the last :meth:`fit`).
    """

    @keyword_only
    def __init__(self, problem: Problem, *, eta: float = 1.0, epochs: int = 1) -> None:
        self.problem = problem
        self.eta = eta
        self.epochs = epochs

    # ---- model hooks -------------------------------------------------------------------
    @abstractmethod
    def _init_model(self, n_features: int) -> None:
        """Start from the zero predictor, Jain et al. 2015 Algorithm 1 line 1."""

    def load_weights(self, n_features: int, arrays: dict[str, np.ndarray]) -> None:
        """Copy saved weights (``coef``, and ``dual_coef`` where the model has one) into a
        fresh model of ``n_features`` features, so that learning can go on (model files,
        :mod:`cvxtop.model_io`)."""
        self._init_model(n_features)
        self.coef_[...] = arrays["coef"]  # coef_ and dual_coef_ view the internal weights
        if "dual_coef" in arrays:
            self.dual_coef_[...] = arrays["dual_coef"]

    @abstractmethod
    def _scores(self, rows: np.ndarray) -> np.ndarray:
        """The score vector ``t`` of one input given as rows."""

    @abstractmethod
    def _step(self, rows: np.ndarray, direction: np.ndarray) -> None:
        """Step against the gradient ``rowsᵀ direction`` of ψ (Algorithm 1, line 10)."""

    # ---- fitting -----------------------------------------------------------------------
    #: The learner's parameters (:mod:`cvxtop.parameters`); subclasses extend it.
    PARAMETERS = ParameterTable(None, (
        Param("problem", "a `cvxtop.predtron` problem", lambda value, _: check_problem(value)),
        Param("eta", "float > 0", check_positive),
        Param("epochs", "int ≥ 1", lambda value, name: check_int_in_range(value, name, 1, 10**9)),
    ))

    def check_params(self) -> dict[str, Any]:
        """Validate the parameters as ``fit`` does (:attr:`PARAMETERS`): ``ValueError`` or
        ``TypeError`` naming the parameter. Returns the checked values."""
        return self.PARAMETERS.check(self)

    def _start(self, n_features: int) -> None:
        self.n_features_in_ = n_features
        self.mistakes_ = 0
        self.cumulative_loss_ = 0.0
        self.n_rounds_ = 0
        self.n_iter_ = 0
        self._init_model(n_features)

    def _run(self, X: np.ndarray, Y: np.ndarray) -> None:
        problem = self.problem
        for x, y in zip(X, Y):
            rows = as_rows(problem, x)
            t = self._scores(rows)
            loss = problem._worst_loss(t, y)
            self.n_rounds_ += 1
            self.cumulative_loss_ += loss
            if loss > 0:
                self.mistakes_ += 1
                direction = problem._gradient_direction(t, y)
                self._step(rows, direction.reshape(len(rows), -1))

    def partial_fit(self, X: Any, y: Any = None) -> "OnlineLearner":
        """One online pass over a batch ``(X, y)``, or over a stream of batches.

        With ``y`` omitted, ``X`` is an iterable of ``(X_batch, y_batch)`` pairs (a generator
        works: batches are read one at a time). Learning continues from the current state.
        """
        self.check_params()
        batches = [(X, y)] if y is not None else _stream(X)
        for X_batch, y_batch in batches:
            n_features = getattr(self, "n_features_in_", None)
            X_batch, Y_batch = check_batch(self.problem, X_batch, y_batch, n_features)
            if n_features is None:
                self._start(X_batch.shape[-1])
            self._run(X_batch, Y_batch)
        return self

    def fit(self, X: Any, y: Any) -> "OnlineLearner":
        """Start from zero and make up to ``epochs`` passes over ``(X, y)`` in order,
        stopping after the first pass without a mistake."""
        self.check_params()
        X, Y = check_batch(self.problem, X, y)
        self._start(X.shape[-1])
        for _ in range(self.epochs):
            before = self.mistakes_
            self._run(X, Y)
            self.n_iter_ += 1
            if self.mistakes_ == before:
                break
        return self

    # ---- prediction --------------------------------------------------------------------
    def _checked_inputs(self, X: Any, y: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
        if not hasattr(self, "n_features_in_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit or "
                                 "partial_fit first")
        return check_batch(self.problem, X, y, self.n_features_in_)

    def decision_function(self, X: Any) -> np.ndarray:
        """The score vectors ``t`` of the inputs, shape ``(n, d)``."""
        X, _ = self._checked_inputs(X)
        return np.array([self._scores(as_rows(self.problem, x)) for x in X])

    def predict(self, X: Any) -> np.ndarray:
        """``pred(t)`` of each input (eq. (1)): shape ``(n,)`` for class predictions,
        ``(n, m)`` for label sets and rankings (1-based positions)."""
        return np.array([self.problem._pred(t) for t in self.decision_function(X)])

    def average_loss(self, X: Any, y: Any) -> float:
        """Mean loss ``L(t, y)`` over a batch, ties broken against the label."""
        X, Y = self._checked_inputs(X, y)
        return mean_loss(self.problem, (self._scores(as_rows(self.problem, x)) for x in X), Y)


class Predtron(OnlineLearner):
    """Predtron, Jain et al. 2015 Algorithm 1: a perceptron for a general prediction problem.

    ``problem`` is one of :class:`Binary`, :class:`Multiclass`, :class:`Ordinal`,
    :class:`Multilabel`, :class:`SubsetRanking`, :class:`MultilabelRanking` or a
    :class:`FiniteProblem`; ``eta`` the step size (Theorem 1 uses ``c_L/(4R²)``); ``epochs``
    the largest number of passes :meth:`fit` makes. ``coef_`` is ``W`` of shape ``(d, p)``
    for vector inputs and ``w`` of shape ``(p0,)`` for subset ranking. ``Predtron.Link`` is
    :class:`PredtronLink`.
    """

    def _init_model(self, n_features: int) -> None:
        self._V = np.zeros((n_features, n_outputs(self.problem)))
        self.coef_ = coef_view(self.problem, self._V)

    def _scores(self, rows: np.ndarray) -> np.ndarray:
        return (rows @ self._V).ravel()

    def _step(self, rows: np.ndarray, direction: np.ndarray) -> None:
        self._V -= self.eta * (rows.T @ direction)


def _check_link_exponent(value: Any, name: str) -> float:
    r = check_positive(value, name)
    if not 1.0 < r <= 2.0:
        raise ValueError(f"{name} must lie in (1, 2], got {r}")
    return r


class PredtronLink(Predtron):
    """Predtron.Link with the p-norm link, Jain et al. 2015 Corollaries 6 (ℓ1) and 8 (group).

    Mirror descent on ``φ = ½‖W‖²_{2,r}`` with one group per input feature (a column of
    ``W``; for subset ranking, one entry of ``w``, so the norm is ``‖w‖_r``): margins with
    respect to the ℓ1 / group (2,1) norm. ``r`` defaults to the paper's
    ``log p/(log p − 1)`` (see :func:`cvxtop.predtron.links.paper_r`); any ``r`` in
    ``(1, 2]`` may be given, and ``r = 2`` is :class:`Predtron` itself. Fitted attributes as
    :class:`Predtron`, plus ``r_`` and ``dual_coef_`` (the mirror variable ``θ = ∇φ(W)``,
    shaped like ``coef_``).
    """

    @keyword_only
    def __init__(self, problem: Problem, *, eta: float = 1.0, epochs: int = 1,
                 r: float | None = None) -> None:
        super().__init__(problem, eta=eta, epochs=epochs)
        self.r = r

    PARAMETERS = OnlineLearner.PARAMETERS.extended(
        Param("r", "None or float in (1, 2]", optional(_check_link_exponent)))

    def _init_model(self, n_features: int) -> None:
        super()._init_model(n_features)
        self.r_ = paper_r(n_features) if self.r is None else float(self.r)
        self._q = dual_exponent(self.r_)
        self._theta = np.zeros_like(self._V)
        self.dual_coef_ = coef_view(self.problem, self._theta)

    def _step(self, rows: np.ndarray, direction: np.ndarray) -> None:
        self._theta -= self.eta * (rows.T @ direction)
        self._V[...] = pnorm_link(self._theta, self._q)


Predtron.Link = PredtronLink

"""Kernel Predtron, following the representation ``W = Σ_i g_i X_iᵀ`` of Jain et al. 2015 Section
2.3.

Every update of Algorithm 1 is rank one, so the weights stay a combination of the inputs
seen on mistake rounds. Held as rows (see :mod:`cvxtop.predtron._model`): a vector input ``x``
contributes one support row with a coefficient vector ``g ∈ R^d`` (``t = Σ_i g_i k(x_i, x)``);
a subset-ranking input ``X`` contributes its ``m`` document rows with one coefficient each
(``t_b = Σ_{i,a} g_{i,a} k(X_{i,a}, X_b)``). With the linear kernel this is Predtron exactly.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

from .._validation import check_int_in_range, check_positive
from ..parameters import Param, keyword_only, optional
from ._model import n_outputs
from .base import Problem
from .online import OnlineLearner

__all__ = ["KernelPredtron"]


class _GrowingRows:
    """An array to which rows are appended, with amortized O(1) growth."""

    def __init__(self, width: int) -> None:
        self._data = np.empty((16, width))
        self.size = 0

    def extend(self, rows: np.ndarray) -> None:
        needed = self.size + len(rows)
        if needed > len(self._data):
            grown = np.empty((max(needed, 2 * len(self._data)), self._data.shape[1]))
            grown[:self.size] = self._data[:self.size]
            self._data = grown
        self._data[self.size:needed] = rows
        self.size = needed

    @property
    def rows(self) -> np.ndarray:
        return self._data[:self.size]


#: The named kernels of :func:`sklearn.metrics.pairwise.pairwise_kernels` that read gamma.
_GAMMA_KERNELS = ("rbf", "laplacian", "poly", "polynomial", "sigmoid", "chi2")


def _check_kernel(value: Any, name: str) -> Any:
    if not callable(value) and value not in PAIRWISE_KERNEL_FUNCTIONS:
        raise ValueError(f"{name} must be a callable or one of "
                         f"{sorted(PAIRWISE_KERNEL_FUNCTIONS)}, got {value!r}")
    return value


def _check_coef0(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


class KernelPredtron(OnlineLearner):
    """Predtron (Jain et al. 2015 Algorithm 1) with a kernel in place of the inner product.

    ``kernel`` is a name understood by :func:`sklearn.metrics.pairwise.pairwise_kernels`
    (``"linear"``, ``"rbf"``, ``"poly"``, ...) with its ``gamma``/``degree``/``coef0``, or a
    callable ``k(a, b)`` of two rows. Fitted attributes as :class:`Predtron` (without
    ``coef_``), plus ``support_rows_`` (the rows of the inputs of the mistake rounds) and
    ``dual_coef_`` (one coefficient row per support row, shape ``(n_support, c)``, ``c = d``
    for vector inputs and 1 for subset ranking).
    """

    @keyword_only
    def __init__(self, problem: Problem, *, eta: float = 1.0, epochs: int = 1,
                 kernel: str | Callable[[np.ndarray, np.ndarray], float] = "linear",
                 gamma: float | None = None, degree: int = 3, coef0: float = 1.0) -> None:
        super().__init__(problem, eta=eta, epochs=epochs)
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    PARAMETERS = OnlineLearner.PARAMETERS.extended(
        Param("kernel", "a callable k(a, b) or a name of scikit-learn's pairwise kernels",
              _check_kernel),
        Param("gamma", "None or float > 0", optional(check_positive), _GAMMA_KERNELS,
              chosen_by="kernel"),
        Param("degree", "int in [1, 100]",
              lambda value, name: check_int_in_range(value, name, 1, 100), ("poly", "polynomial"),
              chosen_by="kernel"),
        Param("coef0", "a finite real number", _check_coef0, ("poly", "polynomial", "sigmoid"),
              chosen_by="kernel"),
    )

    def _kernel_params(self) -> dict[str, Any]:
        if callable(self.kernel):
            return {}
        return {"gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}

    def _init_model(self, n_features: int) -> None:
        self._support = _GrowingRows(n_features)
        self._coef = _GrowingRows(n_outputs(self.problem))

    def load_weights(self, n_features: int, arrays: dict[str, np.ndarray]) -> None:
        """Copy saved support rows and their coefficients (``support_rows``,
        ``dual_coef``) into a fresh model, so that learning can go on."""
        self._init_model(n_features)
        self._support.extend(arrays["support_rows"])
        self._coef.extend(arrays["dual_coef"])

    @property
    def support_rows_(self) -> np.ndarray:
        return self._support.rows

    @property
    def dual_coef_(self) -> np.ndarray:
        return self._coef.rows

    def _scores(self, rows: np.ndarray) -> np.ndarray:
        if self._support.size == 0:
            return np.zeros(len(rows) * n_outputs(self.problem))
        gram = pairwise_kernels(rows, self._support.rows, metric=self.kernel,
                                filter_params=True, **self._kernel_params())
        return (gram @ self._coef.rows).ravel()

    def _step(self, rows: np.ndarray, direction: np.ndarray) -> None:
        self._support.extend(rows)
        self._coef.extend(-self.eta * direction)

"""Kernels of the AATP estimator and the factorization ``K = F Fᵀ`` of a training Gram matrix.

Boyd et al. 2012 Section 3.3 kernelizes the per-candidate QP with any positive semi-definite
symmetric (PDS) kernel ``K``. Four kinds are supported:

* ``"linear"``: ``K(x, x') = x·x'``; the factor is ``X`` itself (no decomposition);
* ``"rbf"``: ``K(x, x') = exp(−gamma·‖x − x'‖²)``, ``gamma = 1/n_features`` when ``None``
  (the default of :func:`sklearn.metrics.pairwise.rbf_kernel`);
* ``"precomputed"``: the user passes the Gram matrix itself (``fit(K_train, y)``,
  ``decision_function(K_test_train)``);
* a callable ``kernel(A, B)`` returning the ``(len(A), len(B))`` Gram matrix.

Every Gram matrix, computed or given, goes through the package's one Gram policy
(:mod:`cvxtop.gram`: symmetry, the eigenvalue tolerance, PSD): a matrix that is not PSD
would make the dual (eq. 4) non-concave, the dual of no primal problem.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Union

import numpy as np

from .._validation import check_matrix, check_positive
from ..gram import Gram, check_gram_matrix

__all__ = [
    "Kernel",
    "make_kernel",
    "linear_gram",
    "rbf_gram",
]

KernelSpec = Union[str, Callable[[np.ndarray, np.ndarray], Any]]

_NAMED = ("linear", "rbf", "precomputed")


def linear_gram(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A Bᵀ``: the linear kernel between the rows of ``A`` and ``B``."""
    return A @ B.T


def rbf_gram(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(−gamma·‖a − b‖²)`` between the rows of ``A`` and ``B``.

    Squared distances use ``‖a‖² + ‖b‖² − 2a·b``, clipped at 0 against round-off.
    """
    sq = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.exp(-gamma * np.maximum(sq, 0.0))


@dataclass(frozen=True)
class Kernel:
    """A validated kernel choice. ``name`` is ``"linear"``, ``"rbf"``, ``"precomputed"``
    or ``"callable"``; ``gamma`` is resolved for ``"rbf"`` (``None`` otherwise)."""

    name: str
    gamma: float | None = None
    function: Callable[[np.ndarray, np.ndarray], Any] | None = None

    @property
    def precomputed(self) -> bool:
        return self.name == "precomputed"

    def cross(self, X_new: np.ndarray, X_train: np.ndarray, name: str = "X") -> np.ndarray:
        """The Gram matrix ``K(X_new, X_train)`` of shape ``(len(X_new), len(X_train))``.

        Not used for ``"precomputed"`` (the caller passes that matrix).
        """
        if self.name == "linear":
            return linear_gram(X_new, X_train)
        if self.name == "rbf":
            return rbf_gram(X_new, X_train, self.gamma)
        if self.name == "callable":
            G = check_matrix(self.function(X_new, X_train), f"kernel({name}, X_train)")
            expected = (len(X_new), len(X_train))
            if G.shape != expected:
                raise ValueError(f"the kernel callable returned shape {G.shape} for "
                                 f"kernel({name}, X_train); expected {expected}")
            return G
        raise ValueError("a precomputed kernel has no kernel function to evaluate")

    def train_gram(self, X: np.ndarray, name: str = "X", rtol: float | None = None) -> Gram:
        """The training Gram matrix under the Gram policy of :mod:`cvxtop.gram`."""
        if self.precomputed:
            return check_gram_matrix(X, name, rtol)
        return check_gram_matrix(self.cross(X, X, name), f"kernel({name}, {name})", rtol)


def make_kernel(kernel: KernelSpec, gamma: Any, n_features: int) -> Kernel:
    """Validate ``kernel`` and ``gamma`` (the AATP constructor arguments)."""
    if callable(kernel):
        return Kernel("callable", None, kernel)
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be one of {_NAMED} or a callable, "
                        f"got {type(kernel).__name__}")
    if kernel not in _NAMED:
        raise ValueError(f"kernel must be one of {_NAMED} or a callable, got {kernel!r}")
    if kernel != "rbf":
        return Kernel(kernel)
    if gamma is None:
        return Kernel("rbf", 1.0 / n_features)
    if isinstance(gamma, str) or not isinstance(gamma, numbers.Real):
        raise TypeError(f"gamma must be None or a real number > 0, got {gamma!r}")
    return Kernel("rbf", check_positive(gamma, "gamma"))

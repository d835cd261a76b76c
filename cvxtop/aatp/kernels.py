"""Kernels of the AATP estimator and the factorization ``K = F Fᵀ`` of a training Gram matrix.

``papers/003`` Section 3.3 kernelizes the per-candidate QP with any positive semi-definite
symmetric (PDS) kernel ``K``. Four kinds are supported:

* ``"linear"``: ``K(x, x') = x·x'``; the factor is ``X`` itself (no decomposition);
* ``"rbf"``: ``K(x, x') = exp(−gamma·‖x − x'‖²)``, ``gamma = 1/n_features`` when ``None``
  (the default of :func:`sklearn.metrics.pairwise.rbf_kernel`);
* ``"precomputed"``: the user passes the Gram matrix itself (``fit(K_train, y)``,
  ``decision_function(K_test_train)``);
* a callable ``kernel(A, B)`` returning the ``(len(A), len(B))`` Gram matrix.

PSD policy (:func:`factor_gram`). A Gram matrix whose smallest eigenvalue is below
``−PSD_RTOL · λ_max`` is **rejected with a ValueError**: the dual (eq. 4) is then not
concave and is the dual of no primal problem, so any answer would be silently wrong. Use
:func:`nearest_psd` to project such a matrix explicitly if that is what you want.
Eigenvalues between ``−PSD_RTOL · λ_max`` and the numerical-rank threshold
``n · ε · λ_max`` are round-off and are dropped from the factor, as are tiny positive
ones below that threshold; so ``F Fᵀ`` equals the symmetrized ``K`` up to round-off.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Union

import numpy as np

from .._validation import check_gram, check_matrix, check_positive

__all__ = [
    "PSD_RTOL",
    "Kernel",
    "make_kernel",
    "factor_gram",
    "nearest_psd",
    "linear_gram",
    "rbf_gram",
]

KernelSpec = Union[str, Callable[[np.ndarray, np.ndarray], Any]]

#: Relative tolerance on negative eigenvalues before a Gram matrix counts as not PSD.
PSD_RTOL = 1e-8

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

    def train_gram(self, X: np.ndarray, name: str = "X") -> np.ndarray:
        """The training Gram matrix, checked square, finite and symmetric."""
        if self.precomputed:
            return check_gram(X, name)
        return check_gram(self.cross(X, X, name), f"kernel({name}, {name})")


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


def factor_gram(K: np.ndarray, name: str = "K") -> np.ndarray:
    """A factor ``F`` (n × r) with ``F Fᵀ = K`` up to round-off, from the eigenvalues of ``K``.

    The per-candidate kernel of eq. (4), ``K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z')
    + K(z_k, z_k)``, then is ``(f_z − f_k)·(f_z' − f_k)``: only the row ``f_k`` changes
    between candidates. Raises ``ValueError`` if ``K`` is not PSD (see the module
    docstring for the policy and tolerances).
    """
    sym = 0.5 * (K + K.T)
    lam, V = np.linalg.eigh(sym)
    lam_max = float(max(lam[-1], 0.0))
    lam_min = float(lam[0])
    if lam_min < -PSD_RTOL * max(lam_max, np.finfo(float).tiny):
        raise ValueError(
            f"{name} is not positive semi-definite: its smallest eigenvalue is "
            f"{lam_min:.3g} (largest {lam_max:.3g}); AATP's dual (papers/003 eq. (4)) needs "
            "a PDS kernel. Fix the kernel, or project the matrix explicitly with "
            "cvxtop.aatp.nearest_psd")
    keep = lam > len(lam) * np.finfo(float).eps * lam_max
    if not np.any(keep):
        return np.zeros((len(K), 1))
    return V[:, keep] * np.sqrt(lam[keep])


def nearest_psd(K: Any, name: str = "K") -> np.ndarray:
    """The nearest PSD matrix to the symmetric part of ``K`` in Frobenius norm.

    Negative eigenvalues are set to 0 (Higham 1988). An explicit, opt-in repair for Gram
    matrices that :func:`factor_gram` rejects; test-time rows are *not* repaired with it.
    """
    K = check_gram(K, name)
    lam, V = np.linalg.eigh(0.5 * (K + K.T))
    return (V * np.maximum(lam, 0.0)) @ V.T

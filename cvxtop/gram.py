"""Gram matrices as features: a factor ``F`` with ``K = F Fᵀ``.

A kernel model has scores ``s = K a`` and squared RKHS norm ``aᵀ K a``. With the
eigendecomposition ``K = U Λ Uᵀ`` and ``F = U_r Λ_r^{1/2}`` (the ``r`` positive eigenvalues),
``β = Fᵀ a`` turns both into linear-model quantities: ``s = F β`` and ``aᵀ K a = ‖β‖²``.
Every linear solver therefore trains kernel models on ``F``; the dual coefficients are
recovered as ``a = U_r Λ_r^{-1/2} β``, which satisfies ``K a = F β``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_gram

__all__ = ["GramFactor", "factorize_gram"]


@dataclass(frozen=True)
class GramFactor:
    """``K ≈ F Fᵀ`` with ``F = U_r Λ_r^{1/2}``; ``dual_map`` sends β to ``a = U_r Λ_r^{-1/2} β``."""

    F: np.ndarray
    dual_map: np.ndarray
    min_eigenvalue: float


def factorize_gram(K: np.ndarray, name: str = "K", psd_rtol: float | None = None
                   ) -> GramFactor:
    """Factor a symmetric positive semidefinite Gram matrix.

    Eigenvalues below ``psd_rtol · λ_max`` in absolute value are treated as zero (rounding);
    by default ``psd_rtol`` is the square root of the machine epsilon of ``K``'s dtype
    (1.5e-8 for float64, 3.5e-4 for float32 input). A more negative eigenvalue means ``K``
    is not a valid kernel matrix: ``ValueError``.
    """
    dtype = getattr(K, "dtype", np.dtype(np.float64))
    if psd_rtol is None:
        precision = dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)
        psd_rtol = float(np.sqrt(np.finfo(precision).eps))
    K = check_gram(K, name)
    lam, U = np.linalg.eigh((K + K.T) / 2.0)
    scale = max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
    if lam[0] < -psd_rtol * scale:
        raise ValueError(
            f"{name} is not positive semidefinite: its smallest eigenvalue is {lam[0]:.3g} "
            f"(largest {lam[-1]:.3g}); a Gram matrix of a kernel must be PSD"
        )
    keep = lam > psd_rtol * scale
    root = np.sqrt(lam[keep])
    return GramFactor(U[:, keep] * root, U[:, keep] / root, float(lam[0]))

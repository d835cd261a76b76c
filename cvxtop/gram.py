"""The one Gram-matrix policy of cvxtop, shared by :class:`cvxtop.TopRanker` (precomputed
kernels) and :class:`cvxtop.AATP` (every kernel).

A user's Gram matrix arrives as float64 or float32, in memory or memory-mapped, symmetric
only up to the rounding of whatever computed it, and sometimes slightly indefinite (string
and graph kernels). :func:`check_gram_matrix` turns it into a :class:`Gram` with these rules:

* **Type and shape.** Square, 2-D, finite numbers. float32 and float64 keep their dtype (a
  memory-mapped file is read in row blocks, never copied whole for the checks); any other
  numeric dtype is converted to float64.
* **Symmetry.** The asymmetry ``max |K − Kᵀ|`` is measured. Within
  ``SYMMETRY_RTOL[dtype] · max |K|`` (``√ε`` of the dtype: 1.5e-8 for float64, 3.5e-4 for
  float32) the matrix is replaced by ``(K + Kᵀ)/2`` (one in-memory copy); beyond it,
  ``ValueError`` with the measured asymmetry and the threshold.
* **Eigenvalue tolerance.** Eigenvalues within ``±tol`` of zero are rounding: they are left
  out of the factor and of the numerical rank, and tolerated below zero. By default ``tol``
  is the largest of three noise levels: what the eigensolver can resolve in float64
  (``n·ε₆₄·λ_max``); what rounding the entries to the input's own dtype can do to the
  eigenvalues (``8·ε_dtype·‖K‖_F``: by Weyl's inequality a perturbation moves the
  eigenvalues by at most its spectral norm, here at most ``(ε/2)·‖K‖_F``); and the noise
  that the asymmetry reveals (``‖K − Kᵀ‖_F``: a symmetric perturbation of that size moves
  the eigenvalues by at most as much). So a float32 Gram matrix of rank 64 is recognized as
  rank 64, not as full rank through its rounding noise, and a matrix accepted as symmetric
  is not refused for the eigenvalues its own asymmetry creates. ``gram_rtol`` (the ``rtol``
  argument here) replaces the default by ``tol = gram_rtol · λ_max``.
* **Positive semi-definiteness.** An eigenvalue below ``−tol`` means the matrix is not a
  kernel's Gram matrix: ``ValueError`` giving the smallest eigenvalue, the threshold and the
  ways out (project with :func:`nearest_psd`, which clips the negative eigenvalues, or
  declare them rounding with a larger ``gram_rtol``). Nothing is clipped silently.
* **Cost and memory.** The checks scan the matrix in tiles (a memory map is not loaded
  whole); the eigenvalues need one float64 working copy, ``O(n³)`` once per fit. Solvers
  then read rows as float64 on demand (:meth:`Gram.rows`).

A kernel model has scores ``s = K a`` and squared RKHS norm ``aᵀ K a``. With the
eigendecomposition ``K = U Λ Uᵀ`` and ``F = U_r Λ_r^{1/2}`` (the ``r`` eigenvalues above
``tol``), ``β = Fᵀ a`` turns both into linear-model quantities: ``s = F β`` and
``aᵀ K a = ‖β‖²``; :meth:`Gram.factor` returns ``F`` and the map ``β ↦ a = U_r Λ_r^{-1/2} β``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ._validation import check_matrix_dtype_preserving

__all__ = ["SYMMETRY_RTOL", "ROUNDING_FACTOR", "Gram", "GramFactor", "check_gram_matrix",
           "nearest_psd"]

#: Relative asymmetry (to ``max |K|``) below which a Gram matrix is symmetrized, per dtype.
SYMMETRY_RTOL = {np.dtype(np.float64): float(np.sqrt(np.finfo(np.float64).eps)),
                 np.dtype(np.float32): float(np.sqrt(np.finfo(np.float32).eps))}
#: Multiple of ``ε_dtype · ‖K‖_F`` below which an eigenvalue is rounding of the input.
ROUNDING_FACTOR = 8.0

_BLOCK = 1024  # tile size of the blockwise scans of (possibly memory-mapped) matrices


@dataclass(frozen=True)
class GramFactor:
    """``K ≈ F Fᵀ`` with ``F = U_r Λ_r^{1/2}``; ``dual_map`` sends β to ``a = U_r Λ_r^{-1/2} β``."""

    F: np.ndarray
    dual_map: np.ndarray
    rank: int
    tolerance: float
    min_eigenvalue: float


@dataclass(frozen=True, eq=False)
class Gram:
    """A validated, symmetric Gram matrix (see the module docstring for the policy).

    ``values`` is float32 or float64 (possibly a read-only memory map); ``rows`` and
    ``diagonal`` return float64 copies of the parts a solver needs.
    """

    values: np.ndarray
    name: str
    asymmetry: float
    asymmetry_frobenius: float
    frobenius: float
    rtol: float | None = None

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def rows(self, index: Any) -> np.ndarray:
        """Rows (equivalently columns) ``K[index]`` as float64."""
        return np.asarray(self.values[index], dtype=np.float64)

    @cached_property
    def diagonal(self) -> np.ndarray:
        return np.diagonal(self.values).astype(np.float64)

    @cached_property
    def _spectrum(self) -> tuple[np.ndarray, np.ndarray]:
        """The one eigendecomposition ``K = U Λ Uᵀ`` of a fit (float64 arithmetic): the
        rank, the PSD check, the solver's choice and the factor all read it."""
        return np.linalg.eigh(np.asarray(self.values, dtype=np.float64))

    @property
    def eigenvalues(self) -> np.ndarray:
        """All eigenvalues, ascending."""
        return self._spectrum[0]

    @property
    def tolerance(self) -> float:
        """Eigenvalues in ``[−tolerance, tolerance]`` are rounding (module docstring)."""
        lam_max = max(float(self.eigenvalues[-1]), 0.0)
        if self.rtol is not None:
            return self.rtol * lam_max
        solver = self.n * np.finfo(np.float64).eps * lam_max
        rounding = ROUNDING_FACTOR * np.finfo(self.dtype).eps * self.frobenius
        return float(max(solver, rounding, self.asymmetry_frobenius))

    @property
    def min_eigenvalue(self) -> float:
        return float(self.eigenvalues[0])

    @property
    def rank(self) -> int:
        """Numerical rank: the number of eigenvalues above :attr:`tolerance`."""
        return int(np.sum(self.eigenvalues > self.tolerance))

    def check_psd(self) -> None:
        """Raise ``ValueError`` if an eigenvalue is below ``−tolerance``."""
        lam_min, lam_max, tol = self.min_eigenvalue, float(self.eigenvalues[-1]), self.tolerance
        if lam_min < -tol:
            ratio = -lam_min / lam_max if lam_max > 0 else np.inf
            relative = f" ({-ratio:.2g} × the largest, {lam_max:.3g})" if ratio < 1 else ""
            rounding = (f", or, if those eigenvalues are rounding, pass gram_rtol >= "
                        f"{ratio:.2g}" if ratio < 1 else "")
            raise ValueError(
                f"{self.name} is not positive semidefinite: its smallest eigenvalue is "
                f"{lam_min:.3g}{relative}, below the rounding threshold −{tol:.3g}. A kernel's "
                "Gram matrix is PSD. Project it with cvxtop.gram.nearest_psd (clips the "
                f"negative eigenvalues){rounding}")

    def factor(self) -> GramFactor:
        """``F`` with ``F Fᵀ = K`` up to :attr:`tolerance` (after :meth:`check_psd`), from
        the eigendecomposition the other properties read."""
        lam, U = self._spectrum
        self.check_psd()
        keep = lam > self.tolerance
        if not np.any(keep):
            return GramFactor(np.zeros((self.n, 1)), np.zeros((self.n, 1)), 0, self.tolerance,
                              float(lam[0]))
        root = np.sqrt(lam[keep])
        return GramFactor(U[:, keep] * root, U[:, keep] / root, int(keep.sum()),
                          self.tolerance, float(lam[0]))


def _blockwise_stats(K: np.ndarray) -> tuple[float, float, float, float]:
    """``max |K|``, ``‖K‖_F``, ``max |K − Kᵀ|`` and ``‖K − Kᵀ‖_F``, tile by tile (no
    full-size temporary)."""
    n = len(K)
    max_abs = frob_sq = asym = asym_sq = 0.0
    for i in range(0, n, _BLOCK):
        for j in range(i, n, _BLOCK):
            tile = np.asarray(K[i:i + _BLOCK, j:j + _BLOCK], dtype=np.float64)
            diff = tile - np.asarray(K[j:j + _BLOCK, i:i + _BLOCK], dtype=np.float64).T
            weight = 1.0 if i == j else 2.0
            max_abs = max(max_abs, float(np.abs(tile).max()))
            frob_sq += weight * float(np.square(tile).sum())
            asym = max(asym, float(np.abs(diff).max()))
            asym_sq += weight * float(np.square(diff).sum())
    return max_abs, float(np.sqrt(frob_sq)), asym, float(np.sqrt(asym_sq))


def check_gram_matrix(K: Any, name: str = "K", rtol: float | None = None) -> Gram:
    """Validate a Gram matrix under the policy of the module docstring.

    ``rtol`` is the ``gram_rtol`` of the estimators: ``None`` for the dtype-based default,
    or a float in [0, 1) that sets the eigenvalue tolerance to ``rtol · λ_max``. A
    :class:`Gram` is returned as it is (with ``rtol`` set): a caller that validated the
    matrix under its own name (a file's) keeps that name in later messages.
    """
    if rtol is not None:
        if isinstance(rtol, (bool, np.bool_)) or not isinstance(rtol, (int, float, np.number)):
            raise TypeError(f"gram_rtol must be None or a real number, got {rtol!r}")
        if not 0.0 <= float(rtol) < 1.0:
            raise ValueError(f"gram_rtol must lie in [0, 1), got {rtol}")
        rtol = float(rtol)
    if isinstance(K, Gram):  # validated already (under the name its caller gave it)
        return K if K.rtol == rtol else replace(K, rtol=rtol)
    values = check_matrix_dtype_preserving(K, name)
    if values.shape[0] != values.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {values.shape}")
    max_abs, frobenius, asym, asym_frobenius = _blockwise_stats(values)
    threshold = SYMMETRY_RTOL[values.dtype] * max(max_abs, np.finfo(np.float64).tiny)
    if asym > threshold:
        raise ValueError(
            f"{name} must be symmetric: max |K − Kᵀ| = {asym:.3g}, above the rounding "
            f"threshold {threshold:.3g} (√ε of {values.dtype} × max |K| = {max_abs:.3g}); "
            "within it a matrix is symmetrized as (K + Kᵀ)/2. If the asymmetry is noise of "
            "the kernel's computation, pass (K + K.T) / 2")
    if asym > 0:
        values = 0.5 * (np.asarray(values) + np.asarray(values).T)
    return Gram(values, name, asym, asym_frobenius, frobenius, rtol)


def nearest_psd(K: Any, name: str = "K") -> np.ndarray:
    """The nearest PSD matrix to the symmetric part of ``K`` in Frobenius norm.

    Negative eigenvalues are set to 0 (Higham 1988). An explicit, opt-in repair for Gram
    matrices that the policy rejects; test-time rows are *not* repaired with it.
    """
    gram = check_gram_matrix(K, name)
    lam, V = np.linalg.eigh(np.asarray(gram.values, dtype=np.float64))
    return (V * np.maximum(lam, 0.0)) @ V.T

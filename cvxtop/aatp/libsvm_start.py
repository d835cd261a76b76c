"""A start for a candidate's dual (Boyd et al. 2012, eq. 4) from libsvm's SMO solver
(Chang & Lin 2011), through scikit-learn's ε-SVR on a precomputed kernel.

Candidate ``k``'s dual in kernel form is

    ``min ½‖Σ_s β_s φ(z_s) − σ φ(z_k)‖² − Σ_s α_s``  over  ``0 ≤ α_s ≤ u_s``,

with ``β_s = y_s α_s`` and ``σ = Σ_s β_s``. libsvm's ε-SVR dual over points ``x_i`` with
targets ``t_i`` and bounds ``C_i`` is

    ``min ½ βᵀKβ + Σ_i (ε − t_i) a_i + Σ_i (ε + t_i) a*_i``,  ``β = a − a*``,
    subject to ``Σ_i β_i = 0`` and ``0 ≤ a_i, a*_i ≤ C_i``.

On these points it is eq. (4): one point per slot (``x = z_s``, ``C = u_s``,
``t_s = y_s (ε + 1)``) and two copies of the anchor ``z_k`` (``t = ±ε``, ``C = 2Σ_s u_s``).
A slot's own side (``a_s`` for ``y_s = +1``, ``a*_s`` for ``y_s = −1``) costs −1 per unit as
in eq. (4), its other side ``2ε + 1``; each anchor copy has a side that costs nothing, and
the two together carry the ``−σ`` that the equality ``Σ β = 0`` asks for.

**Same optimum.** Map eq. (4)'s optimum to the ε-SVR point whose other sides are zero.
With the equality's multiplier ``λ = −(Kβ)_k``, every own side has the reduced cost of
eq. (4) (``m_s − 1``, ``m_s`` the slot's margin), the anchors' free sides have 0, and a
slot's other side has ``2ε + 1 − m_s``, which is non-negative when
``ε ≥ (max_s m_s − 1)/2``: then the point satisfies the ε-SVR's optimality conditions. The
margins are bounded, ``m_s ≤ ‖w‖·‖φ(z_s) − φ(z_k)‖ ≤ √(2Σ_s u_s)·2√(max_i K_ii)``, because
``½‖w‖² ≤ P(w*) ≤ P(0) = Σ_s u_s``; :func:`epsilon` takes half of that bound. The anchors'
bound ``2Σ_s u_s`` exceeds ``|σ| ≤ Σ_s u_s`` and never binds.

libsvm stops at its own tolerance (optimality conditions violated by at most
:data:`TOLERANCE`, in margin units) and cannot be warm-started, so its solution is a start
only: :mod:`.face_descent` screens the candidate from it or finishes it with exact face
steps, and certifies every result itself.

**The call.** A fit calls libsvm once per candidate, on a kernel matrix this module built
in float64, C order, finite by construction, so scikit-learn's estimator checks (of the
input, the parameters and the data-frame types) repeat work done here: on 400 items they
took longer than libsvm's own solve. :func:`svr_dual` therefore calls the libsvm entry point
``SVR.fit`` itself calls (``sklearn.svm._libsvm.fit``, with the same arguments: the same
result), and falls back to ``SVR`` for good where that private entry point is missing or
its signature changed.
"""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVR

try:
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover - a scikit-learn without that private module
    _libsvm = None

__all__ = ["TOLERANCE", "MEMORY", "LibsvmStart", "epsilon", "svr_dual"]

#: libsvm's stopping tolerance (its ``tol``): the largest violation of the optimality
#: conditions it leaves, in margin units.
TOLERANCE = 1e-3
#: Bytes the kernel matrix of the slots may take (about 2,000 slots): larger problems get
#: no libsvm start. libsvm's time grows faster than the face-descent engine's per
#: candidate, and at 5,000 slots one fit takes longer than the engine's average candidate
#: (docs/aatp.md, "Screening of candidates").
MEMORY = 2 ** 25
#: libsvm's iterations per slot before it stops (its solution is then still a start).
ITERATIONS_PER_SLOT = 100

_BLOCK = 256  # rows of the Gram matrix read at a time while the kernel matrix is formed


#: Whether :func:`svr_dual` may call libsvm's entry point directly (turned off for good by
#: the first call that finds its signature changed).
_DIRECT = {"on": _libsvm is not None}
_EPSILON_SVR = 3  # libsvm's svm_type of the ε-SVR
_CACHE_MB = 200.0  # SVR's default kernel cache


def svr_dual(kernel: np.ndarray, targets: np.ndarray, weights: np.ndarray, eps: float,
             tol: float, max_iter: int) -> tuple[np.ndarray, np.ndarray, int]:
    """libsvm's ε-SVR (``C = 1``, per-point bounds ``weights``) on a precomputed ``kernel``
    (float64, C order) with float64 ``targets`` and ``weights``: the support's indices, its
    ``β = a − a*`` and libsvm's iterations; the result of
    ``SVR(kernel="precomputed", C=1, epsilon=eps, tol=tol, max_iter=max_iter)`` fitted
    with ``sample_weight=weights``, without the estimator's checks (module docstring)."""
    if _DIRECT["on"]:
        try:
            _libsvm.set_verbosity_wrap(0)
            fitted = _libsvm.fit(kernel, targets, svm_type=_EPSILON_SVR, kernel="precomputed",
                                 C=1.0, epsilon=eps, tol=tol, sample_weight=weights,
                                 max_iter=max_iter, cache_size=_CACHE_MB, shrinking=1)
            support, _, _, coefficients, _, _, _, _, iterations = fitted
            return support, coefficients[0], int(np.sum(iterations))
        except (TypeError, ValueError, AttributeError):
            _DIRECT["on"] = False  # another signature: the estimator from now on
    model = SVR(kernel="precomputed", C=1.0, epsilon=eps, tol=tol, max_iter=max_iter,
                cache_size=_CACHE_MB)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(kernel, targets, sample_weight=weights)
    return model.support_, model.dual_coef_[0], int(np.sum(model.n_iter_))


def epsilon(upper: np.ndarray, max_diagonal: float) -> float:
    """An ``ε`` for which the ε-SVR and eq. (4) have the same optimum (module docstring):
    ``√(2 Σ u · max K_ii)`` bounds half the largest margin at the optimum; 1 more keeps it
    clear of round-off."""
    return float(np.sqrt(2.0 * float(np.sum(upper)) * max(max_diagonal, 0.0))) + 1.0


class LibsvmStart:
    """libsvm's solution of candidate ``k``'s dual (module docstring), as ``α`` in the box.

    ``rows(items)`` returns the Gram matrix's rows of ``items`` (in any float dtype);
    ``item``, ``sign`` and ``upper`` are the slots' items, signs and bounds. The kernel
    matrix of the slots and the two anchor copies is formed, in float64, at the first
    candidate, a block of rows at a time; each candidate rewrites the anchors' two rows and
    columns.
    """

    def __init__(self, rows: Callable[[np.ndarray], np.ndarray], item: np.ndarray,
                 sign: np.ndarray, upper: np.ndarray, max_diagonal: float, *,
                 tol: float = TOLERANCE) -> None:
        self.rows = rows
        self.item = item
        self.sign = sign
        self.upper = upper
        self.tol = tol
        self.epsilon = epsilon(upper, max_diagonal)
        self.targets = np.r_[sign * (self.epsilon + 1.0), self.epsilon, -self.epsilon]
        self.weights = np.r_[upper, 2.0 * upper.sum(), 2.0 * upper.sum()]
        self.kernel: np.ndarray | None = None
        self.iterations = 0  # libsvm's iterations in the last call

    @staticmethod
    def fits(n_slots: int, memory: int | None = None) -> bool:
        """Whether the kernel matrix of ``n_slots`` slots and two anchors fits ``memory``
        bytes (default :data:`MEMORY`)."""
        return 8 * (n_slots + 2) ** 2 <= (MEMORY if memory is None else memory)

    def alpha(self, k: int) -> np.ndarray:
        """libsvm's ``α`` for the candidate anchored at item ``k``, clipped to the box."""
        S = len(self.item)
        if self.kernel is None:
            self.kernel = np.empty((S + 2, S + 2))
            for start in range(0, S, _BLOCK):
                items = self.item[start:start + _BLOCK]
                self.kernel[start:start + len(items), :S] = self.rows(items)[:, self.item]
        anchor = np.asarray(self.rows(np.array([k]))[0], dtype=float)[np.r_[self.item, k, k]]
        self.kernel[S:, :] = anchor
        self.kernel[:, S:] = anchor[:, None]
        support, coefficients, self.iterations = svr_dual(
            self.kernel, self.targets, self.weights, self.epsilon, self.tol,
            ITERATIONS_PER_SLOT * (S + 2))
        beta = np.zeros(S + 2)
        beta[support] = coefficients
        return np.clip(beta[:S] * self.sign, 0.0, self.upper)

"""Newton steps for the simplex QP ``max cᵀλ − ½‖λH‖²`` (the cutting plane's master
dual) whose gradient comes from the rows ``H`` themselves rather than from their Gram
matrix ``Q = HHᵀ``.

In the cutting plane's master (:mod:`cvxtop.solvers.master`) the rows are the cuts'
subgradients. Near the optimum of a loss with a floor they are long and their optimal
combination ``v = λH`` short: on spambase's features as shipped, prec@k-svmperf at
C = 1e4 has squared cut norms up to 1e3 and a master value near 5e-11 (in the units of
``λ``). Every entry of ``Q`` carries a rounding of about ``ε·√(Q_ii Q_jj)``, so ``λᵀQλ``,
and with it every gradient ``(Qλ)_j − c_j`` and every value the active-set method
compares, is uncertain by about ``ε·(Σ_i λ_i √Q_ii)²``: there a few millionths of the
master's value, the gap the fit asks for. The gradient ``H v − c`` from the rows is exact
to about ``ε·√Q_jj·‖v‖`` instead.

:func:`refine_on_rows` takes a feasible ``λ`` (an active-set answer) and makes steps that
only raise the value computed from the rows: on the face of ``λ`` (with the most violated
index off it joined), the Newton direction of the face's system in ``Q`` with a ridge of
each row's own size, ``1e-12·Q_ii``, for the exact gradient; the step is the exact
maximizer of the value along it (its slope and curvature from the rows), shortened to keep
``λ >= 0``. The direction only needs to be one of ascent, which ``Q``'s rounding leaves it;
the accuracy of the point the steps reach is set by the gradient's.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from .simplex import RIDGE

__all__ = ["REFINE_STEPS", "refine_on_rows", "rows_value"]

#: Newton steps at most (each a dense solve on the face, of at most a few hundred cuts).
REFINE_STEPS = 20

#: LAPACK's solve of a symmetric indefinite system (Bunch-Kaufman), called directly.
_SYSV = sl.get_lapack_funcs("sysv", (np.empty(1),))


def rows_value(H: np.ndarray, c: np.ndarray, lam: np.ndarray) -> float:
    """The QP's value ``cᵀλ − ½‖λH‖²`` from the rows (no Gram matrix)."""
    return _value(c, lam, lam @ H)


def _value(c: np.ndarray, lam: np.ndarray, v: np.ndarray) -> float:
    """The value at ``lam`` given its combination of the rows ``v = λH``."""
    return float(c @ lam) - 0.5 * float(v @ v)


def refine_on_rows(H: np.ndarray, Q: np.ndarray, c: np.ndarray, lam: np.ndarray,
                   allowed: np.ndarray) -> np.ndarray:
    """``lam`` (feasible: ``>= 0``, summing to 1, zero off ``allowed``) moved by at most
    :data:`REFINE_STEPS` Newton steps whose gradient is computed from the rows ``H``
    (module docstring); each step raises :func:`rows_value`, and the steps stop at the
    first that would not. ``Q`` is ``HHᵀ`` as stored (rounded)."""
    lam = np.array(lam, dtype=np.float64)
    ridge = RIDGE * Q.diagonal()
    v = lam @ H
    value = _value(c, lam, v)
    for _ in range(REFINE_STEPS):
        gradient = H @ v - c
        face = lam > 0
        level = float(gradient[face].mean())
        entering = np.where(allowed & ~face, gradient - level, np.inf)
        j = int(entering.argmin())
        if entering[j] < 0.0:
            face[j] = True
        F = np.flatnonzero(face)
        m = len(F)
        kkt = np.ones((m + 1, m + 1))
        kkt[:m, :m] = Q[np.ix_(F, F)]
        kkt[np.arange(m), np.arange(m)] += ridge[F]
        kkt[m, m] = 0.0
        solution, info = _SYSV(kkt, np.append(-gradient[F], 0.0))[2:]
        if info != 0:
            break
        direction = solution[:m]
        slope = -float(gradient[F] @ direction)  # the value's rate of rise along it
        if not slope > 0.0:
            break
        moved = direction @ H[F]
        curvature = float(moved @ moved)
        step = slope / curvature if curvature > 0.0 else np.inf
        blocking = -1
        shrinking = np.flatnonzero(direction < 0.0)
        if len(shrinking):
            ratios = lam[F[shrinking]] / -direction[shrinking]
            first = int(ratios.argmin())
            if ratios[first] <= step:
                step, blocking = float(ratios[first]), int(F[shrinking[first]])
        if not np.isfinite(step):
            break
        trial = lam.copy()
        trial[F] = np.maximum(lam[F] + step * direction, 0.0)
        if blocking >= 0:
            trial[blocking] = 0.0
        trial /= trial.sum()
        trial_v = trial @ H
        trial_value = _value(c, trial, trial_v)
        if not trial_value > value:
            break
        lam, v, value = trial, trial_v, trial_value
    return lam

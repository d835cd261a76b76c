"""The per-candidate dual QP of Boyd et al. 2012 eqs. (3)-(4), in cvxpy.

With ``K = F Fᵀ`` the candidate kernel ``K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z')
+ K(z_k, z_k)`` is ``(f_z − f_k)·(f_z' − f_k)``, so the quadratic term of eq. (4) is::

    Σ_{s,t} α_s α_t y_s y_t K_k(z_s, z_t) = ‖Fᵀβ − (1ᵀβ) f_k‖²,   β = α ∘ y

(summing over slots with ``F`` restricted to the slots' items). Only the row ``f_k``
changes between candidates: it is a DPP parameter, and the problem is compiled once::

    maximize  Σ_s α_s − ½‖Aᵀβ − (1ᵀβ) f_k‖²   subject to  0 ≤ α_s ≤ C c_s.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .cvxpy_qp import CvxpyCandidateQP

__all__ = ["DualQP"]


class DualQP(CvxpyCandidateQP):
    """Eq. (4) compiled once; ``solve(k)`` returns a certified :class:`CandidateSolution`."""

    name = "cvxpy"

    def _build(self) -> cp.Problem:
        p = self.problem
        A = p.slot_factor
        self.alpha = cp.Variable(len(A), name="alpha")
        beta = cp.multiply(p.slot_sign, self.alpha)
        w = A.T @ beta - self.candidate_row * cp.sum(beta)
        objective = cp.sum(self.alpha) - 0.5 * cp.sum_squares(w)
        return cp.Problem(cp.Maximize(objective), [self.alpha >= 0, self.alpha <= p.upper])

    def _alpha(self) -> np.ndarray:
        return np.asarray(self.alpha.value, dtype=np.float64)

"""The per-candidate primal QP of Boyd et al. 2012 eq. (2), in cvxpy.

For candidate ``k`` (the quantile fixed at the candidate's score, ``q̂ = w·z_k``)::

    minimize  ½‖w‖² + Σ_s C c_s ξ_s
    subject to ξ_s ≥ 0,  ξ_s ≥ 1 − y_s (w·f_s − w·f_k)

with ``f_s`` the factor rows of :mod:`.kernels` (the points themselves for the linear
kernel, so this is eq. (2) verbatim; the kernel's feature space otherwise). ``f_k`` is a
DPP parameter. The multipliers of the hinge constraints are the dual variables ``α`` of
eq. (4); they are certified against the primal by the duality gap.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .cvxpy_qp import CvxpyCandidateQP

__all__ = ["PrimalQP"]


class PrimalQP(CvxpyCandidateQP):
    """Eq. (2) compiled once; ``solve(k)`` returns a certified :class:`CandidateSolution`."""

    name = "cvxpy-primal"

    def _build(self) -> cp.Problem:
        p = self.problem
        A = p.slot_factor
        self.w = cp.Variable(A.shape[1], name="w")
        slack = cp.Variable(len(A), nonneg=True, name="xi")
        margins = cp.multiply(p.slot_sign, A @ self.w - self.candidate_row @ self.w)
        self.hinge = slack >= 1 - margins
        objective = 0.5 * cp.sum_squares(self.w) + p.upper @ slack
        return cp.Problem(cp.Minimize(objective), [self.hinge])

    def _alpha(self) -> np.ndarray:
        return np.asarray(self.hinge.dual_value, dtype=np.float64)

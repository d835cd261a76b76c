"""The per-candidate primal QP of Boyd et al. 2012 eq. (2), in cvxpy.

For candidate ``k`` (the quantile fixed at the candidate's score, ``q̂ = w·z_k``)::

    minimize  ½‖w‖² + Σ_s C c_s ξ_s
    subject to ξ_s ≥ 0,  ξ_s ≥ 1 − y_s (w·f_s − w·f_k)

with ``f_s`` the factor rows of :mod:`.kernels` (the points themselves for the linear
kernel, so this is eq. (2) verbatim; the kernel's feature space otherwise). ``f_k`` is a
DPP parameter. The multipliers of the hinge constraints are the dual variables ``α`` of
eq. (4); the solution is certified by the duality gap between the solver's own ``w`` and
``α`` (:func:`.problem.solution_from_primal`), which holds its digits where ``w(α)`` does
not (features of very different scales at a large ``C``). Clarabel runs without its
verdicts of infeasibility (:data:`.cvxpy_qp.NO_INFEASIBILITY_VERDICTS`).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .cvxpy_qp import CLARABEL_OPTIONS, NO_INFEASIBILITY_VERDICTS, Attempt, CvxpyCandidateQP
from .problem import CandidateSolution, solution_from_primal

__all__ = ["TIGHT_OPTIONS", "PrimalQP"]

#: Clarabel tolerances of the primal's first solve.
TIGHT_OPTIONS = {"tol_gap_abs": 1e-13, "tol_gap_rel": 1e-13, "tol_feas": 1e-13}


class PrimalQP(CvxpyCandidateQP):
    """Eq. (2) compiled once; ``solve(k)`` returns a certified :class:`CandidateSolution`."""

    name = "cvxpy-primal"
    #: Without infeasibility verdicts, at tolerances of 1e-13, then 1e-10, then Clarabel's
    #: defaults, each with the objective as it is and over its largest hinge weight (the
    #: same minimizer, weights at most 1). On 400 rows of spambase's raw features at
    #: C = 1e4, 18 of 40 candidates missed the certificate as it is (relative gaps up to
    #: 1.2e-3) and none over its largest weight (at most 5e-12); on 100 × 80 features of
    #: five orders of magnitude at C = 100, 3 of 10 missed it over the largest weight and
    #: none as it is. Over C = 1, 100 and 1e4 on spambase the largest relative gap over the
    #: largest weight was 8e-10 at tolerances of 1e-10 and 3e-11 at 1e-13 (docs/aatp.md,
    #: "Features as shipped (badly scaled)").
    attempts = tuple(Attempt({**options, **NO_INFEASIBILITY_VERDICTS}, scaled)
                     for options in (TIGHT_OPTIONS, CLARABEL_OPTIONS, {})
                     for scaled in (False, True))

    def _build(self) -> cp.Problem:
        p = self.problem
        A = p.slot_factor
        self.w = cp.Variable(A.shape[1], name="w")
        slack = cp.Variable(len(A), nonneg=True, name="xi")
        margins = cp.multiply(p.slot_sign, A @ self.w - self.candidate_row @ self.w)
        self.hinge = slack >= 1 - margins
        # the objective times this factor: 1, or 1 over the largest hinge weight (attempts)
        self.weight = cp.Parameter(nonneg=True, value=1.0, name="weight")
        objective = self.weight * (0.5 * cp.sum_squares(self.w) + p.upper @ slack)
        return cp.Problem(cp.Minimize(objective), [self.hinge])

    def _configure(self, attempt: Attempt) -> None:
        self.weight.value = 1.0 / float(np.max(self.problem.upper)) if attempt.scaled else 1.0

    def _alpha(self) -> np.ndarray:
        return np.asarray(self.hinge.dual_value, dtype=np.float64) / self.weight.value

    def _solution(self, k: int, n_iter: int, status: str) -> CandidateSolution:
        return solution_from_primal(self.problem, k, self.w.value, self._alpha(), n_iter,
                                    status)

"""A dense interior-point solver for small box-constrained QPs.

``minimize ½ xᵀQx + cᵀx subject to 0 ≤ x ≤ u`` with ``Q`` symmetric positive
semi-definite. It is the robust last step of :mod:`cvxtop.aatp.face_descent`: once gap-safe screening
has fixed most coordinates of a candidate's dual (Boyd et al. 2012, eq. 4) at a bound,
the few that remain form a small dense QP of this kind.

Mehrotra's predictor-corrector with one step length for primal and dual variables; the
slack ``s = u − x`` is an iterate of its own. Each Newton system ``(Q + D) Δx = r`` is
solved through a Cholesky factor of the matrix with its diagonal floored (relative to
``max diag Q``), followed by iterative refinement on the exact residual.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

__all__ = ["BoxQPResult", "solve_box_qp", "step_to_boundary"]

_STEP_FRACTION = 0.99
_D_FLOOR = 1e-12
_REFINEMENTS = 4


@dataclass(frozen=True)
class BoxQPResult:
    x: np.ndarray
    n_iter: int
    converged: bool


def step_to_boundary(x: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """Per row (lane), the largest ``t ≤ 1`` with ``x + t·dx ≥ 0``, for ``x > 0``:
    ``1 / max(1, max_s(−dx_s / x_s))`` (the interior points' step rule, here and in
    :mod:`.fast`)."""
    return 1.0 / np.maximum(1.0, (-dx / x).max(axis=-1, initial=0.0))


def _newton_solver(Q: np.ndarray, D: np.ndarray):
    floor = _D_FLOOR * max(1.0, float(np.abs(np.diag(Q)).max(initial=0.0)))
    M = Q + np.diag(np.maximum(D, floor))
    try:
        factor = cho_factor(M, check_finite=False)
        solve = lambda r: cho_solve(factor, r, check_finite=False)  # noqa: E731
    except LinAlgError:
        solve = lambda r: np.linalg.lstsq(M, r, rcond=None)[0]  # noqa: E731

    def refined(r: np.ndarray) -> np.ndarray:
        x = solve(r)
        for _ in range(_REFINEMENTS):
            residual = r - Q @ x - D * x
            if np.abs(residual).max(initial=0.0) <= 1e-15 * max(1.0, np.abs(r).max()):
                break
            x = x + solve(residual)
        return x
    return refined


def solve_box_qp(Q: np.ndarray, c: np.ndarray, u: np.ndarray, *, rtol: float = 1e-12,
                 max_iter: int = 200) -> BoxQPResult:
    """Minimize ``½ xᵀQx + cᵀx`` over ``0 ≤ x ≤ u`` (``u > 0``) to a relative
    complementarity gap ``rtol``; ``converged`` says whether it got there. A step that
    overflows (badly scaled data: ``Q`` and ``u`` many orders of magnitude apart) ends the
    iterations at the last finite point, without numpy's warnings."""
    m = len(c)
    if m == 0:
        return BoxQPResult(np.zeros(0), 0, True)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _interior_point(Q, c, u, rtol, max_iter)


def _interior_point(Q: np.ndarray, c: np.ndarray, u: np.ndarray, rtol: float,
                    max_iter: int) -> BoxQPResult:
    m = len(c)
    x = 0.5 * u
    s = u - x
    z1 = np.ones(m)
    z2 = np.ones(m)
    for it in range(1, max_iter + 1):
        grad = Q @ x + c
        dual_res = grad - z1 + z2
        mu = (x @ z1 + s @ z2) / (2 * m)
        value = 0.5 * x @ (grad + c)
        scale = max(1.0, abs(value), float(np.abs(c) @ u))
        if 2 * m * mu <= rtol * scale and np.abs(dual_res).max() <= 1e-9 * max(
                1.0, np.abs(c).max()):
            return BoxQPResult(np.clip(x, 0.0, u), it, True)
        za, zs = z1 / x, z2 / s
        solve = _newton_solver(Q, za + zs)
        r_u = u - x - s

        def directions(sigma_mu, dx_aff=None, dz1_aff=None, ds_aff=None, dz2_aff=None):
            corr1 = 0.0 if dx_aff is None else dx_aff * dz1_aff
            corr2 = 0.0 if ds_aff is None else ds_aff * dz2_aff
            r1 = (sigma_mu - x * z1 - corr1) / x
            r2 = (sigma_mu - s * z2 - corr2) / s
            dx = solve(-dual_res + r1 - r2 + zs * r_u)
            ds = r_u - dx
            return dx, ds, r1 - za * dx, r2 - zs * ds

        def length(dx, ds, dz1, dz2):
            return float(min(step_to_boundary(x, dx), step_to_boundary(s, ds),
                             step_to_boundary(z1, dz1), step_to_boundary(z2, dz2)))

        dx, ds, dz1, dz2 = directions(0.0)
        a = length(dx, ds, dz1, dz2)
        mu_aff = ((x + a * dx) @ (z1 + a * dz1) + (s + a * ds) @ (z2 + a * dz2)) / (2 * m)
        sigma_mu = (mu_aff / mu) ** 3 * mu
        dx, ds, dz1, dz2 = directions(sigma_mu, dx, dz1, ds, dz2)
        a = _STEP_FRACTION * length(dx, ds, dz1, dz2)
        step = x + a * dx, s + a * ds, z1 + a * dz1, z2 + a * dz2
        if not all(np.all(np.isfinite(v)) for v in step):
            return BoxQPResult(np.clip(x, 0.0, u), it, False)
        x, s, z1, z2 = step
    return BoxQPResult(np.clip(x, 0.0, u), max_iter, False)

"""A dedicated numpy solver for the box-constrained duals of many candidates (Boyd et al. 2012 eq.
4).

For candidate ``k`` the dual is ``min φ(α) = ½‖Bᵀα‖² − 1ᵀα`` subject to ``0 ≤ α ≤ u``,
with rows ``b_s = y_s (a_s − f_k)`` of ``B`` (``a_s`` the factor row of slot ``s``,
``K = F Fᵀ``) and ``u_s = C c_s``. There is no equality constraint (no bias), so the
feasible set is a box. With ``w = Bᵀα`` and margins ``m = Bw``, the duality gap of the
hinge-loss primal is ``Σ_s [u_s (1 − m_s)₊ − α_s (1 − m_s)]``, a sum of non-negative
complementarity terms, which certifies optimality.

Design (:class:`FastDualSolver`):

* **Lanes.** Per-candidate work in numpy is dominated by interpreter overhead at these
  sizes, so candidates are solved in *lanes* that advance in lockstep: every operation
  below acts on all lanes at once, and a lane retires as soon as its candidate is
  certified. The candidates of a chunk are split into contiguous strands of the
  nearest-neighbour tour (:mod:`.candidates`), one strand per lane; wave ``i`` solves the
  ``i``-th candidate of every strand.
* **Warm start from the neighbouring candidate.** Before any iteration a lane tries the
  exact face solution (below) with the partition (``α = 0`` / free / ``α = u``) of the
  previous candidate of its strand. When the neighbour's partition is still optimal
  (close points, repeated points) the candidate is certified at once. A strand whose
  last attempt missed tries again only every :data:`WARM_RETRY` candidates, so data
  whose neighbours are far apart pay little for the attempts.
* **Interior point.** Otherwise a primal-dual interior-point method (Mehrotra
  predictor-corrector, one step length for primal and dual) runs from the centre of the
  box. Its Newton systems ``(B Bᵀ + D) x = v`` use the Woodbury identity with an
  ``r × r`` matrix per lane when ``2r ≤ S`` and a Cholesky factor of the ``S × S`` matrix
  otherwise, both of a regularized matrix (``D`` floored), followed by iterative
  refinement on the exact residual. The slack ``s = u − α`` is an iterate of its own,
  and the factor rows are centred (:attr:`.problem.AATPProblem.center`), so that
  nothing is lost to cancellation.
* **Crossover.** From late iterates the slots are split into lower (``z₁ > α``), upper
  (``z₂ > s``) and free; the free ``α`` solve the face equations
  ``B_F (B_Fᵀ α_F + w_U) = 1`` through an SVD of ``B_F`` (on a degenerate face, the
  solution closest to the iterate). A point in the box whose complementarity gap is
  within tolerance is the optimum to round-off; failing that, the interior-point iterate
  itself is accepted once its own gap is within tolerance.
* **Fallback.** A lane that breaks down, reaches the barrier floor uncertified or runs
  out of iterations (badly scaled data) is solved by the reference cvxpy dual instead,
  and where that fails too, by the cvxpy primal, certified through its own ``w``
  (:func:`.problem.solution_from_primal`: on features of very different scales at a
  large ``C``, ``w(α)`` loses the digits its certificate needs); the status says so
  (:data:`FALLBACK_STATUS`).

The matrices involved are small, so BLAS runs on one thread; parallelism comes from
running chunks of candidates in separate workers (``n_jobs``). Why lanes of interior-point
methods rather than coordinate descent or projected Newton steps is told in the AATP page
of the documentation ("Why lanes of interior points").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy.linalg import cho_solve

from .._threads import single_threaded_blas
from ..exceptions import SolverError
from ..qp import step_to_boundary
from .cvxpy_qp import first_that_serves
from .dual import DualQP
from .primal import PrimalQP
from .problem import (
    CERTIFICATE_RTOL,
    AATPProblem,
    CandidateSolution,
    require_certified,
    solution_from_alpha,
)

__all__ = ["FAST_RTOL", "FAST_MAX_ITER", "LANE_MEMORY", "MAX_LANES", "WARM_RETRY",
           "DIRECT_REFERENCE", "DIRECT_SHARE", "FALLBACK_STATUS", "FastDualSolver"]

#: Target of the complementarity (duality) gap, relative to ``max(1, |P|)``.
FAST_RTOL = 1e-10
#: Interior-point iterations per candidate before giving up.
FAST_MAX_ITER = 100
#: Floats of working memory per wave (caps how many lanes run together).
LANE_MEMORY = 4_000_000
#: At most this many lanes, so that strands hold several neighbouring candidates.
MAX_LANES = 64
#: After a missed warm start, a strand tries again at every this-many-th candidate.
WARM_RETRY = 4
#: Once at least this many candidates, and this share of all solved so far, went to the
#: reference solvers, the rest go to them directly: on 400 rows of spambase's raw features
#: at C = 1,000 the lanes certified 10 of 400 candidates, in a third of the fit's time
#: (measured: docs/aatp.md, "Features as shipped (badly scaled)").
DIRECT_REFERENCE, DIRECT_SHARE = 16, 0.9
#: Status of a candidate handed to the reference solver (badly conditioned data).
FALLBACK_STATUS = "optimal (cvxpy fallback)"

_CROSSOVER_FROM = 1e-5  # try the crossover once the barrier gap is this small (relative)
_BARRIER_FLOOR = 1e-14  # below this the barrier gap is round-off
_STEP_FRACTION = 0.99
_D_FLOOR = 1e-10
_REFINEMENTS = 3
_REFINE_BELOW = 1e-14


@dataclass
class _Partition:
    """Which slots sit at ``α = 0`` and at ``α = u`` (the rest are free), and the dual
    point it came from."""

    lower: np.ndarray
    upper: np.ndarray
    alpha: np.ndarray


class _Lanes:
    """The interior-point state of the candidates in the current wave (one row per lane)."""

    def __init__(self, A: np.ndarray, At: np.ndarray, sign: np.ndarray, upper: np.ndarray,
                 candidates: np.ndarray, rows: np.ndarray) -> None:
        L, S = len(candidates), len(A)
        self.A, self.At, self.sign, self.u = A, At, sign, upper
        self.k = candidates
        self.f = rows
        self.alpha = np.broadcast_to(0.5 * upper, (L, S)).copy()
        self.s_up = self.u - self.alpha          # slack of α ≤ u, an iterate of its own
        self.z_low = np.ones((L, S))
        self.z_up = np.ones((L, S))
        self.n_iter = np.zeros(L, dtype=np.int64)

    def keep(self, mask: np.ndarray) -> None:
        for name in ("k", "f", "alpha", "s_up", "z_low", "z_up", "n_iter"):
            setattr(self, name, getattr(self, name)[mask])

    # B_ℓᵀ x and B_ℓ v for every lane ℓ, with b_s = y_s (a_s − f_ℓ)
    def bt(self, x: np.ndarray) -> np.ndarray:
        xs = x * self.sign
        return xs @ self.A - xs.sum(axis=1)[:, None] * self.f

    def bv(self, v: np.ndarray) -> np.ndarray:
        return self.sign * (v @ self.At - np.einsum("lr,lr->l", v, self.f)[:, None])


class _NewtonSystem:
    """Solves ``(B Bᵀ + diag(D)) x = v`` for every lane. The factorizations below are of a
    regularized matrix (``D`` floored at :data:`_D_FLOOR` times the largest diagonal of
    ``B Bᵀ``, which keeps them well conditioned when ``D`` spans many orders of
    magnitude late in the interior-point method); steps of iterative refinement on the
    exact residual then solve the true system, until its relative residual is
    round-off."""

    def __init__(self, lanes: _Lanes, D: np.ndarray) -> None:
        self.lanes = lanes
        self.D = D

    def _solve(self, v: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def solve(self, v: np.ndarray) -> np.ndarray:
        x = self._solve(v)
        size = np.abs(v).max(axis=1)
        for _ in range(_REFINEMENTS):
            residual = v - self.lanes.bv(self.lanes.bt(x)) - self.D * x
            if np.all(np.abs(residual).max(axis=1) <= _REFINE_BELOW * size):
                break
            x = x + self._solve(residual)
        return x


class _Woodbury(_NewtonSystem):
    """Through ``M = I + Bᵀ E B``, ``E = 1/max(D, floor)`` (r × r per lane), for ``2r ≤ S``.

    ``Bᵀ E B = Aᵀ E A − g f_kᵀ − f_k gᵀ + (1ᵀE1) f_k f_kᵀ`` with ``g = AᵀE1``; ``Aᵀ E A``
    of every lane is one matrix product with the products ``a_si a_sj`` (upper triangle)
    when those fit in memory, and is formed from the rows ``a_s − f_k`` otherwise. The
    expansion loses about ``ε S`` relative to the largest entry of ``E B Bᵀ``, which the
    floor bounds by ``1/_D_FLOOR``; refinement absorbs it. ``M`` is solved after a
    symmetric diagonal (Jacobi) scaling.
    """

    def __init__(self, lanes: _Lanes, D: np.ndarray, pair_products: np.ndarray | None
                 ) -> None:
        super().__init__(lanes, D)
        A, f = lanes.A, lanes.f
        r = A.shape[1]
        sq = (A * A).sum(axis=1)[None, :] - 2.0 * (f @ lanes.At) + (f * f).sum(axis=1)[:, None]
        self.E = E = 1.0 / np.maximum(D, _D_FLOOR * sq.max(axis=1, keepdims=True))
        if pair_products is None:
            rows = A[None, :, :] - f[:, None, :]
            M = np.matmul(rows.transpose(0, 2, 1) * E[:, None, :], rows)
        else:
            upper_rows, upper_cols = np.triu_indices(r)
            AtEA = np.empty((len(E), r, r))
            tri = E @ pair_products
            AtEA[:, upper_rows, upper_cols] = tri
            AtEA[:, upper_cols, upper_rows] = tri
            g = E @ A
            M = (AtEA - g[:, :, None] * f[:, None, :] - f[:, :, None] * g[:, None, :]
                 + E.sum(axis=1)[:, None, None] * f[:, :, None] * f[:, None, :])
        M[:, np.arange(r), np.arange(r)] += 1.0
        self.scale = 1.0 / np.sqrt(np.einsum("lii->li", M))
        self.M = M * self.scale[:, :, None] * self.scale[:, None, :]

    def _solve(self, v: np.ndarray) -> np.ndarray:
        t = self.E * v
        rhs = (self.lanes.bt(t) * self.scale)[:, :, None]
        inner = np.linalg.solve(self.M, rhs)[:, :, 0] * self.scale
        return t - self.E * self.lanes.bv(inner)


class _Direct(_NewtonSystem):
    """Through a Cholesky factor of the S × S matrix ``B Bᵀ + D`` per lane (``2r > S``).
    If round-off makes it indefinite, a tiny multiple of the identity is added; the
    refinement step removes its effect."""

    def __init__(self, lanes: _Lanes, D: np.ndarray, gram: np.ndarray) -> None:
        super().__init__(lanes, D)
        a = lanes.f @ lanes.At                       # (L, S): a_s · f_ℓ
        kk = np.einsum("lr,lr->l", lanes.f, lanes.f)
        ys = lanes.sign
        Q = gram[None] - a[:, :, None] - a[:, None, :] + kk[:, None, None]
        Q *= ys[None, :, None] * ys[None, None, :]
        diag = np.arange(Q.shape[1])
        Q[:, diag, diag] += D
        try:
            self.chol = np.linalg.cholesky(Q)
        except np.linalg.LinAlgError:
            Q[:, diag, diag] += 1e-12 * np.abs(Q[:, diag, diag]).max(axis=1, keepdims=True)
            self.chol = np.linalg.cholesky(Q)

    def _solve(self, v: np.ndarray) -> np.ndarray:
        return np.stack([cho_solve((c, True), x, check_finite=False)
                         for c, x in zip(self.chol, v)])


def _face_equations(Bf: np.ndarray, rhs: np.ndarray, near: np.ndarray) -> np.ndarray | None:
    """The solution of ``B_F B_Fᵀ x = rhs`` closest to ``near``, or ``None`` if none exists.

    With the thin SVD ``B_F = U Σ Vᵀ`` (numerical rank): ``U Σ⁻² Uᵀ rhs + (I − U Uᵀ) near``
    when ``rhs`` lies in ``range(U)``. The solution is unique unless the face is degenerate
    (repeated or collinear points on the margin), and then the optimal ``α`` form an affine
    set; an interior-point iterate as ``near`` converges to its relative interior, so the
    closest solution stays inside the box. The SVD, not a Cholesky factor, decides the
    rank: a Cholesky factor of a singular ``B_F B_Fᵀ`` can succeed on round-off pivots.
    """
    U, sv, _ = np.linalg.svd(Bf, full_matrices=False)
    keep = sv > sv[0] * max(Bf.shape) * np.finfo(float).eps if sv.size else sv > 0
    U, sv = U[:, keep], sv[keep]
    coef = U.T @ rhs
    if np.linalg.norm(rhs - U @ coef) > 1e-9 * max(1.0, np.linalg.norm(rhs)):
        return None
    return U @ (coef / sv**2) + (near - U @ (U.T @ near))


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


class FastDualSolver:
    """Certified numpy solver of eq. (4) for many candidates (module docstring).

    ``solve_many(candidates, progress)`` returns one certified
    :class:`CandidateSolution` per candidate, in the given order; ``candidates`` should
    follow a nearest-neighbour tour so that strands hold neighbouring points. A candidate
    whose lane cannot be certified (badly scaled data: the barrier reaches round-off
    first) is solved by the reference :class:`.dual.DualQP` instead, or where that fails,
    by :class:`.primal.PrimalQP`, with status :data:`FALLBACK_STATUS`; if both fail,
    :class:`cvxtop.SolverError` is raised.
    """

    name = "fast"

    def __init__(self, problem: AATPProblem, *, rtol: float = FAST_RTOL,
                 max_iter: int = FAST_MAX_ITER, lane_memory: int = LANE_MEMORY) -> None:
        self.problem = problem
        self.rtol = rtol
        self.max_iter = max_iter
        self._references: dict[str, DualQP | PrimalQP] = {}
        self._reference_order: list[type] = [DualQP, PrimalQP]
        # centred rows (AATPProblem.center): B is unchanged and its sums lose less
        self.A = problem.slot_factor - problem.center
        self.rows = problem.factor - problem.center
        self.At = np.ascontiguousarray(self.A.T)
        self.sign = problem.slot_sign
        self.u = problem.upper
        S, r = self.A.shape
        self.woodbury = 2 * r <= S
        self.gram = None if self.woodbury else self.A @ self.A.T
        self.pair_products = None
        if self.woodbury and S * r * (r + 1) // 2 <= lane_memory:
            upper_rows, upper_cols = np.triu_indices(r)
            self.pair_products = self.A[:, upper_rows] * self.A[:, upper_cols]
        per_lane = 16 * S + (r * r if self.pair_products is not None
                             else 2 * S * r if self.woodbury else 2 * S * S)
        self.n_lanes = max(1, min(MAX_LANES, lane_memory // per_lane))

    # ---- exact face solution and certificate -------------------------------------------
    def _face_solution(self, k: int, part: _Partition, near: np.ndarray
                       ) -> np.ndarray | None:
        """The exact minimizer on the face ``part`` (the one closest to ``near`` if the face
        is degenerate), or ``None`` if that face holds no optimum."""
        B = self.sign[:, None] * (self.A - self.rows[k])
        alpha = np.where(part.upper, self.u, 0.0)
        free = ~(part.lower | part.upper)
        if np.any(free):
            Bf = B[free]
            w_bound = B[part.upper].T @ self.u[part.upper]
            alpha_f = _face_equations(Bf, 1.0 - Bf @ w_bound, near[free])
            if alpha_f is None or np.any(alpha_f < 0) or np.any(alpha_f > self.u[free]):
                return None
            alpha[free] = alpha_f
        return alpha if self._certified(B, alpha) else None

    def _certified(self, B: np.ndarray, alpha: np.ndarray, rtol: float | None = None) -> bool:
        w = B.T @ alpha
        slack = 1.0 - B @ w
        gap = float(self.u @ np.maximum(slack, 0.0) - alpha @ slack)
        primal = 0.5 * float(w @ w) + float(self.u @ np.maximum(slack, 0.0))
        return gap <= (self.rtol if rtol is None else rtol) * max(1.0, abs(primal))

    def _finish(self, k: int, alpha: np.ndarray, n_iter: int) -> CandidateSolution:
        """The certified solution of a lane's answer; where the certificate recomputed from
        ``α`` misses what the lane's own computation passed (``w(α)`` rounded otherwise on
        badly scaled data: 400 rows of spambase's raw features at C = 10), the fallback's."""
        solution = solution_from_alpha(self.problem, k, alpha, int(n_iter), "optimal")
        try:
            return require_certified(solution, self.name)
        except SolverError:
            return self._fallback(k)

    # ---- one wave of lanes -----------------------------------------------------------
    def _wave(self, candidates: np.ndarray, guesses: list[_Partition | None]
              ) -> dict[int, tuple[np.ndarray, int] | None]:
        """Solve one wave; a candidate maps to ``(alpha, n_iter)``, or to ``None`` if its
        lane could not be certified (handed to the fallback by :meth:`solve_many`)."""
        done: dict[int, tuple[np.ndarray, int] | None] = {}
        pending = []
        for k, guess in zip(candidates, guesses):
            alpha = None if guess is None else self._face_solution(int(k), guess,
                                                                    guess.alpha)
            if alpha is None:
                pending.append(int(k))
            else:
                done[int(k)] = (alpha, 0)
        if not pending:
            return done
        ks = np.array(pending)
        lanes = _Lanes(self.A, self.At, self.sign, self.u, ks, self.rows[ks])
        while len(lanes.k):
            lanes.n_iter += 1
            w = lanes.bt(lanes.alpha)
            grad = lanes.bv(w) - 1.0
            mu = (_rowdot(lanes.alpha, lanes.z_low) + _rowdot(lanes.s_up, lanes.z_up)) / (
                2 * len(self.A))
            scale = np.maximum(1.0, 0.5 * _rowdot(w, w) + np.maximum(-grad, 0.0) @ self.u)
            barrier = 2 * len(self.A) * mu / scale
            finished = self._try_crossover(lanes, barrier <= _CROSSOVER_FROM,
                                           barrier <= _BARRIER_FLOOR, done)
            failed = self._failed_lanes(lanes, barrier) & ~finished
            for k in lanes.k[failed]:
                done[int(k)] = None
            finished |= failed
            if np.any(finished):
                lanes.keep(~finished)
                grad, mu = grad[~finished], mu[~finished]
            if len(lanes.k):
                self._newton_step(lanes, grad, mu)
        return done

    def _try_crossover(self, lanes: _Lanes, ready: np.ndarray, at_floor: np.ndarray,
                       done: dict[int, tuple[np.ndarray, int]]) -> np.ndarray:
        """Certify the lanes that are ``ready``: the exact face solution of the partition the
        iterate indicates, else the iterate itself, to ``rtol``; a lane whose barrier
        parameter has reached round-off (``at_floor``) cannot improve further, and its
        iterate is accepted at the certificate's own tolerance
        (:data:`.problem.CERTIFICATE_RTOL`)."""
        finished = np.zeros(len(lanes.k), dtype=bool)
        for j in np.flatnonzero(ready):
            k = int(lanes.k[j])
            part = _Partition(lanes.z_low[j] > lanes.alpha[j], lanes.z_up[j] > lanes.s_up[j],
                              lanes.alpha[j])
            exact = self._face_solution(k, part, lanes.alpha[j])
            if exact is None:
                iterate = np.clip(lanes.alpha[j], 0.0, self.u)
                B = self.sign[:, None] * (self.A - lanes.f[j])
                # half the certificate's tolerance: room for the round-off of recomputing it
                rtol = 0.5 * CERTIFICATE_RTOL if at_floor[j] else self.rtol
                exact = iterate if self._certified(B, iterate, rtol) else None
            if exact is not None:
                done[k] = (exact, int(lanes.n_iter[j]))
                finished[j] = True
        return finished

    def _failed_lanes(self, lanes: _Lanes, barrier: np.ndarray) -> np.ndarray:
        """Lanes that broke down numerically, reached the barrier floor without a
        certificate, or ran out of iterations."""
        broken = ~(np.all(np.isfinite(lanes.alpha), axis=1)
                   & np.all(np.isfinite(lanes.z_low), axis=1)
                   & np.all(np.isfinite(lanes.z_up), axis=1))
        return broken | (barrier <= _BARRIER_FLOOR) | (lanes.n_iter >= self.max_iter)

    def _newton_step(self, lanes: _Lanes, grad: np.ndarray, mu: np.ndarray) -> None:
        """One Mehrotra predictor-corrector step for every lane.

        Unknowns ``α, s`` (slack of ``α ≤ u``), ``z₁, z₂ ≥ 0``; equations
        ``∇φ − z₁ + z₂ = 0``, ``α + s = u``, ``α z₁ = σμ``, ``s z₂ = σμ``. With
        ``r₁ = (σμ − α z₁ − …)/α`` and ``r₂ = (σμ − s z₂ − …)/s`` (the dots: Mehrotra's
        second-order terms), ``Δz₁ = r₁ − (z₁/α) Δα``, ``Δs = r_u − Δα`` and
        ``Δz₂ = r₂ − (z₂/s) Δs``, which leaves
        ``(B Bᵀ + D) Δα = −∇φ + z₁ − z₂ + r₁ − r₂ + (z₂/s) r_u`` with ``D = z₁/α + z₂/s``.
        """
        alpha, s, z1, z2 = lanes.alpha, lanes.s_up, lanes.z_low, lanes.z_up
        inv_a, inv_s = 1.0 / alpha, 1.0 / s
        za, zs = z1 * inv_a, z2 * inv_s
        system = (_Woodbury(lanes, za + zs, self.pair_products) if self.woodbury
                  else _Direct(lanes, za + zs, self.gram))
        r_u = self.u - alpha - s  # round-off only: every step keeps α + s = u

        def step(dx, ds, dz1, dz2):
            # one length for primal and dual: the dual residual ∇φ(α) − z₁ + z₂ involves
            # α (through Q), so unequal lengths would break the dual feasibility
            return np.minimum(np.minimum(step_to_boundary(alpha, dx), step_to_boundary(s, ds)),
                              np.minimum(step_to_boundary(z1, dz1), step_to_boundary(z2, dz2)))

        # predictor (affine scaling): complementarity targets 0, so r₁/α = −z₁, r₂/s = −z₂
        dx = system.solve(zs * r_u - grad)
        ds = r_u - dx
        dz1 = -z1 - za * dx
        dz2 = -z2 - zs * ds
        a = step(dx, ds, dz1, dz2)[:, None]
        mu_aff = (_rowdot(alpha + a * dx, z1 + a * dz1)
                  + _rowdot(s + a * ds, z2 + a * dz2)) / (2 * alpha.shape[1])
        sigma_mu = ((mu_aff / mu) ** 3 * mu)[:, None]
        # corrector: targets σμ with the second-order terms of the predictor
        r1 = (sigma_mu - dx * dz1) * inv_a - z1
        r2 = (sigma_mu - ds * dz2) * inv_s - z2
        dx = system.solve(zs * r_u - grad + z1 - z2 + r1 - r2)
        ds = r_u - dx
        dz1 = r1 - za * dx
        dz2 = r2 - zs * ds
        a = _STEP_FRACTION * step(dx, ds, dz1, dz2)[:, None]
        lanes.alpha = alpha + a * dx
        lanes.s_up = s + a * ds
        lanes.z_low = z1 + a * dz1
        lanes.z_up = z2 + a * dz2

    # ---- public ----------------------------------------------------------------------
    def solve_many(self, candidates: Sequence[int],
                   progress: Callable[[int], None] | None = None) -> list[CandidateSolution]:
        # The matrices are small: one BLAS thread each is fastest, and parallelism comes
        # from running chunks of candidates in separate workers (n_jobs).
        with single_threaded_blas():
            return self._solve_many(np.asarray(candidates, dtype=np.int64), progress)

    def _solve_many(self, candidates: np.ndarray, progress: Callable[[int], None] | None
                    ) -> list[CandidateSolution]:
        n_lanes = min(self.n_lanes, len(candidates))
        strands = np.array_split(candidates, n_lanes)
        previous: list[_Partition | None] = [None] * n_lanes
        hit = [True] * n_lanes
        results: dict[int, CandidateSolution] = {}
        for step in range(len(strands[0])):
            live = [j for j, strand in enumerate(strands) if step < len(strand)]
            wave = np.array([strands[j][step] for j in live])
            guesses = [previous[j] if hit[j] or step % WARM_RETRY == 0 else None for j in live]
            handed = sum(r.status == FALLBACK_STATUS for r in results.values())
            if handed >= DIRECT_REFERENCE and handed >= DIRECT_SHARE * len(results):
                # the lanes fail nearly every candidate here: the rest go to the references
                solved = dict.fromkeys(int(k) for k in wave)
            else:
                solved = self._wave(wave, guesses)
            for j, k, guess in zip(live, wave, guesses):
                if solved[int(k)] is None:
                    results[int(k)] = self._fallback(int(k))
                    alpha, n_iter = results[int(k)].alpha, results[int(k)].n_iter
                else:
                    alpha, n_iter = solved[int(k)]
                    results[int(k)] = self._finish(int(k), alpha, n_iter)
                previous[j] = _Partition(alpha <= 0, alpha >= self.u, alpha)
                if guess is not None:
                    hit[j] = n_iter == 0
            if progress is not None:
                progress(len(wave))
        return [results[int(k)] for k in candidates]

    def solve(self, k: int) -> CandidateSolution:
        """One candidate (a single lane, cold start)."""
        return self.solve_many([k])[0]

    def _fallback(self, k: int) -> CandidateSolution:
        """The reference solvers (eq. 4, then eq. 2, with Clarabel; the one that last
        served where the other failed first) for a candidate the interior-point lanes
        could not certify; its status records the hand-over. Where both fail, the
        ``SolverError`` names both failures and their statuses."""
        def reference(kind: type) -> CandidateSolution:
            if kind.name not in self._references:
                self._references[kind.name] = kind(self.problem)
            return self._references[kind.name].solve(k)

        solution, failures = first_that_serves(self._reference_order, reference)
        if solution is None:
            raise SolverError(
                f"fast: candidate {k} could not be certified by the interior point, nor by "
                f"the references that took it over ({'; '.join(str(e) for e in failures)})",
                status=failures[-1].status)
        solution.status = FALLBACK_STATUS
        return solution

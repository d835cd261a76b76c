"""A warm-started active-set solver of the cutting plane's master problem.

The master dual is a small convex QP over the probability simplex,

    min_λ  ½ λᵀQλ − cᵀλ   subject to  λ >= 0,  Σλ = 1,

with ``Q`` the Gram matrix of the cuts (positive semidefinite, often singular) and ``m``, the
number of cuts, a few dozen to a few hundred. A primal active-set method (Nocedal & Wright
2006, Algorithm 16.3) solves it exactly: on the current support it finds the minimizer of the
equality-constrained QP from its KKT system, steps to the nearest bound that blocks, and frees
the bound with the most negative multiplier until none is negative. Successive masters differ
by one cut, so starting from the previous solution takes a few iterations. ``Q`` gets a ridge
of ``1e-12`` of its largest diagonal entry, which makes every KKT system regular and moves the
optimal value by at most that much; the caller evaluates its bound exactly at the returned
point, which is feasible, so the bound stays rigorous either way. Where that is too much
(a value far below the largest entry), proximal steps take the ridge's pull out
(:data:`PROX_STEPS`).

A row of exact zeros (``Q_ii = 0``: a cut ``L >= b`` of zero norm, which a cutting plane
gets at points of zero loss) gets no ridge, and of such rows only the one of the largest
``c_i`` is allowed (the others are dominated by it): one zero row beside the sum's row keeps
the KKT systems regular. With a ridge, that row's gradient entry moves by ``1e-12`` of the
*largest* entry times its ``λ_i``, which is near 1 where that cut bears the master: where the
early cuts are ``1e7`` times longer than those at the optimum and the master's values about
``1e-9``, this weighed the cut ``1e-5`` too much, its copies (each spreading the ridge
thinner) filled the store, and a pAp@k-TS fit's bound stalled 1e-5 below the optimum (55
items of heavy-tailed sparse features at ``C = 325``).

The supports of successive iterations differ by one index, so the KKT systems are not
solved from scratch: the Schur-complement method (Gill et al. 1990; Nocedal & Wright 2006,
section 16.5) factors the KKT matrix of one base support once and treats an index added to
it as a border row and column, and an index removed from it as a border constraint pinning
it to zero. An iteration then costs products with the stored solves of the borders and a
small dense system in them, not a factorization; the base is refactored when the borders
reach :data:`MAX_BORDER`, when a bordered solve loses accuracy, and at the end when the
gradient is not constant on the final face to :data:`FACE_RTOL`. A :class:`FaceCache`
hands the final face, factors and borders, to the next solve of a grown problem. On a face
of a few dozen indices (the cutting plane's masters at d <= 30 or so) Python's cost per
array operation outweighs the arithmetic, and one LU solve of the face's KKT system afresh
costs less than a border's updates: faces of up to :data:`DIRECT_FACE` indices are solved
that way, with the warm start checked by its gradient before any solve (measured: docs/solvers.md, "Measurements behind the constants").
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

__all__ = ["solve_simplex_qp", "FaceCache", "dual_value", "ridge_outweighs"]

RIDGE = 1e-12
#: LAPACK's LU factorization and solve, called directly (scipy's wrappers cost more than the
#: solve itself for the small systems here).
_GETRF, _GETRS, _GESV = sl.get_lapack_funcs(("getrf", "getrs", "gesv"), (np.empty(1),))
#: Borders (supports' differences from the factored base) before the base is refactored.
MAX_BORDER = 40
#: The optimality conditions' tolerance, relative to the size of the terms each gradient
#: entry sums (:func:`_rounding`): a multiplier off the face above minus this is taken as
#: zero, and a bordered solve's point is taken as the face's minimizer without a fresh
#: factorization where its gradient is this constant (the returned point is feasible
#: either way, so the caller's bound stays rigorous; this only decides its accuracy).
FACE_RTOL = 1e-13
#: Faces of at most this many indices are solved afresh at every iteration
#: (:class:`_DirectFaces`); larger ones by the bordered factorization of
#: :class:`_FaceMinimizers`.
DIRECT_FACE = 40
#: Proximal steps at most after a solve, and the ridge's pull on the master's own gap
#: (:func:`_pull`), relative to its value, below which they stop. The ridge ``r`` follows the
#: longest cut, and its pull ``r·λ`` on the face's gradient leaves the master a gap of up to
#: ``r·Σλ²``: where the master's value is far below that cut's squared norm, as near the
#: optimum of near-duplicate rows (cuts of squared norm 1.3e4, a combination's of 1e-6),
#: that gap was 3e-5 of the value, and the cutting plane's bounds stalled there. A proximal
#: step solves the same ridged systems with ``c + r·λ̄`` for the last answer ``λ̄``: the
#: ridge pulls towards ``λ̄`` rather than towards 0, and at a fixed point not at all
#: (iterative refinement of the face's unridged system by its ridged factors). A step that
#: needs more than ``PROX_ITER`` active-set iterations is left, its start kept: uncapped
#: steps made each master fifty times dearer (spambase's raw features, prec@k-svmperf at
#: C = 1e4). The steps go on while each lowers the pull: where the ridge outweighs the
#: face's curvature a step takes out only a fraction of it, and steps that stopped once
#: one no longer halved it held that fit at a relative gap of 1.02e-6 for 2,000 rounds
#: (docs/solvers.md, "The master's ridge").
PROX_STEPS, PROX_RTOL, PROX_ITER = 50, 1e-9, 10


def _one_zero_row(Q: np.ndarray, c: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``allowed`` with, of its rows of exact zeros (``Q_ii = 0``; ``Q`` is positive
    semidefinite), only the one of the largest ``c_i`` (module docstring): moving any weight
    from another to it changes no ``Qλ`` and raises ``cᵀλ``."""
    zero = allowed & (Q.diagonal() == 0.0)
    if np.count_nonzero(zero) <= 1:
        return allowed
    best = int(np.argmax(np.where(zero, c, -np.inf)))
    allowed = allowed & ~zero
    allowed[best] = True
    return allowed


def _start(Q: np.ndarray, c: np.ndarray, lam0: np.ndarray | None,
           allowed: np.ndarray) -> np.ndarray:
    """A feasible start: ``lam0`` clipped and renormalized, else the best vertex."""
    if lam0 is not None:
        lam = np.where(allowed, np.maximum(np.asarray(lam0, dtype=np.float64), 0.0), 0.0)
        if lam.sum() > 0:
            return lam / lam.sum()
    lam = np.zeros(len(c))
    lam[int(np.argmax(np.where(allowed, c - 0.5 * np.diag(Q), -np.inf)))] = 1.0
    return lam


def _rounding(roots: np.ndarray, lam: np.ndarray, F: np.ndarray, c: np.ndarray,
              nu: float) -> np.ndarray:
    """Each multiplier's tolerance: :data:`FACE_RTOL` times the size of the terms its
    gradient entry ``(Qλ)_j − c_j − ν`` sums, with
    ``Σ_i |Q_ji| λ_i <= √Q_jj Σ_i √Q_ii λ_i`` (``Q`` is positive semidefinite; ``roots``
    holds the ``√Q_ii``). Per entry, not
    relative to the largest ``Q_ii``: a cutting plane's early cuts can be far longer
    than those at its optimum, where ``Qλ`` is small, and there a tolerance of the largest
    entry's size left the master's own relative gap at 4e-6 (spambase's raw features,
    prec@k-avg at C = 100: docs/solvers.md, "The master's tolerance")."""
    return FACE_RTOL * (roots * float(roots.take(F) @ lam.take(F)) + np.abs(c) + abs(nu))


def _at_most_two(Q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The minimizer for one or two variables in closed form: with ``λ = (1 − γ, γ)`` the
    objective is a quadratic in ``γ``, minimized at its clipped stationary point."""
    if len(c) == 1:
        return np.ones(1)
    curvature = Q[0, 0] - 2.0 * Q[0, 1] + Q[1, 1]
    slope = c[1] - c[0] + Q[0, 0] - Q[0, 1]  # −(the derivative at γ = 0)
    if curvature > 0:
        gamma = min(1.0, max(0.0, slope / curvature))
    else:  # Q constant along the edge: the better vertex
        gamma = 1.0 if slope > 0 else 0.0
    return np.array([1.0 - gamma, gamma])


class _FaceMinimizers:
    """Minimizers of ``½λᵀ(Q + rI)λ − cᵀλ`` on faces ``{λ_i = 0 off F, Σλ = 1}`` by the
    Schur-complement method.

    The KKT system of a face, in ``(λ_F, μ)`` with ``μ = −ν`` the multiplier of ``Σλ = 1``, is
    ``[Q_FF + rI, 1; 1ᵀ, 0][λ_F; μ] = [c_F; 1]``. For a base face ``B`` it is LU-factored
    once. A face ``F = B − D + A`` is the base system bordered by one column per index: for
    ``j`` in ``A``, ``[Q_Bj; 1]`` (with ``Q_AA + rI`` and ``c_A`` in the border block); for
    ``i`` in ``D``, the unit vector of ``i``'s row (with a zero block and right-hand side: it
    pins ``λ_i = 0``). With ``W`` the border columns, ``V`` their block and ``K`` the base
    matrix, the border unknowns solve the Schur system ``(V − WᵀK⁻¹W) y = r_A − Wᵀ K⁻¹r_B``.
    """

    def __init__(self, Q: np.ndarray, c: np.ndarray, ridge: np.ndarray, free: np.ndarray
                 ) -> None:
        self.Q, self.c, self.ridge = Q, c, ridge
        self._factor(np.flatnonzero(free))

    def _factor(self, base: np.ndarray) -> None:
        m0 = len(base)
        K = np.empty((m0 + 1, m0 + 1))
        K[:m0, :m0] = self.Q[np.ix_(base, base)]
        K[np.arange(m0), np.arange(m0)] += self.ridge[base]
        K[:m0, m0] = K[m0, :m0] = 1.0
        K[m0, m0] = 0.0
        self.lu, self.pivots, _ = _GETRF(K, overwrite_a=True)
        self.base = base
        self.row = {int(i): p for p, i in enumerate(base)}
        self.z0 = self._solve(np.r_[self.c[base], 1.0])
        self.n_borders = 0
        self.index = np.empty(MAX_BORDER, dtype=np.intp)  # the borders' indices, in order
        self.added = np.empty(MAX_BORDER, dtype=bool)  # and whether each was added
        self.W = np.empty((m0 + 1, MAX_BORDER))
        self.KW = np.empty((m0 + 1, MAX_BORDER))
        self.S = np.empty((MAX_BORDER, MAX_BORDER))
        self.r = np.empty(MAX_BORDER)

    def _solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K⁻¹ rhs`` with the base factors."""
        return _GETRS(self.lu, self.pivots, rhs)[0]

    def recenter(self, c: np.ndarray) -> None:
        """A new linear term ``c`` on the same factored face and borders."""
        self.c = c
        self.z0 = self._solve(np.r_[c[self.base], 1.0])
        t = self.n_borders
        self.r[:t] = np.where(self.added[:t], c[self.index[:t]], 0.0)

    def _add_border(self, added: bool, index: int) -> None:
        t = self.n_borders
        w = self.W[:, t]
        if added:
            w[:-1] = self.Q[self.base, index]
            w[-1] = 1.0
            v = np.where(self.added[:t], self.Q[index, self.index[:t]], 0.0)
            corner, self.r[t] = self.Q[index, index] + self.ridge[index], self.c[index]
        else:
            w[:] = 0.0
            w[self.row[index]] = 1.0
            v, corner, self.r[t] = np.zeros(t), 0.0, 0.0
        kw = self.KW[:, t] = self._solve(w)
        self.S[t, :t] = self.S[:t, t] = v - self.W[:, :t].T @ kw
        self.S[t, t] = corner - w @ kw
        self.index[t], self.added[t] = index, added
        self.n_borders += 1

    def _remove_border(self, t: int) -> None:
        last = self.n_borders - 1
        for array in (self.W, self.KW):
            array[:, t:last] = array[:, t + 1:last + 1]
        self.S[t:last, :] = self.S[t + 1:last + 1, :]
        self.S[:, t:last] = self.S[:, t + 1:last + 1]
        self.r[t:last] = self.r[t + 1:last + 1]
        self.index[t:last] = self.index[t + 1:last + 1]
        self.added[t:last] = self.added[t + 1:last + 1]
        self.n_borders -= 1

    def _change(self, index: int, free: np.ndarray, added: bool) -> None:
        """Index ``index`` joins (``added``) or leaves the face whose indices are ``free``."""
        t = self.n_borders
        undo = np.flatnonzero((self.index[:t] == index) & (self.added[:t] != added))
        if len(undo):  # undo an earlier change
            self._remove_border(int(undo[0]))
        elif t == MAX_BORDER:
            self._factor(np.flatnonzero(free))
        else:
            self._add_border(added, index)

    def refactor(self, free: np.ndarray) -> None:
        """Factor the face whose indices are ``free`` afresh (no borders)."""
        self._factor(np.flatnonzero(free))

    def join(self, index: int, free: np.ndarray) -> None:
        self._change(index, free, True)

    def leave(self, index: int, free: np.ndarray) -> None:
        self._change(index, free, False)

    def is_face(self, free: np.ndarray) -> bool:
        """Whether the current face (the base, less the indices pinned, with those added)
        is the mask ``free``."""
        if len(self.base) and self.base[-1] >= len(free):
            return False
        t = self.n_borders
        face = np.zeros(len(free), dtype=bool)
        face[self.base] = True
        face[self.index[:t]] = self.added[:t]
        return bool(np.array_equal(face, free))

    def minimizer(self, F: np.ndarray) -> np.ndarray:
        """The face's minimizer at its indices ``F`` (in increasing order)."""
        lam = np.zeros(len(self.c))
        t = self.n_borders
        z = self.z0
        if t:
            y = _GESV(self.S[:t, :t], self.r[:t] - self.W[:, :t].T @ self.z0)[2]
            z = z - self.KW[:, :t] @ y
        lam[self.base] = z[:-1]
        if t:
            lam[self.index[:t]] = np.where(self.added[:t], y, 0.0)
        return lam[F]


class _DirectFaces:
    """Minimizers of ``½λᵀ(Q + rI)λ − cᵀλ`` on faces by an LU solve of each face's KKT
    system afresh: on a face of a few dozen indices one solve (a few microseconds) costs
    less than the bordered updates of :class:`_FaceMinimizers` that each join or leave
    would make."""

    n_borders = 0

    def __init__(self, Q: np.ndarray, c: np.ndarray, ridge: np.ndarray) -> None:
        self.Q, self.c, self.ridge = Q, c, ridge

    def refactor(self, free: np.ndarray) -> None:
        """Nothing is factored in advance: each :meth:`minimizer` is given its face."""

    def recenter(self, c: np.ndarray) -> None:
        """A new linear term ``c``."""
        self.c = c

    def join(self, index: int, free: np.ndarray) -> None:
        """As :meth:`refactor`."""

    leave = join

    def minimizer(self, F: np.ndarray) -> np.ndarray:
        """The face's minimizer at its indices ``F`` (in increasing order)."""
        m = len(F)
        K = np.ones((m + 1, m + 1))
        K[:m, :m] = self.Q.take(F, 0).take(F, 1)
        K.reshape(-1)[:m * (m + 2):m + 2] += self.ridge.take(F)
        K[m, m] = 0.0
        return _GESV(K, np.append(self.c.take(F), 1.0), overwrite_a=True,
                     overwrite_b=True)[2][:m]


class FaceCache:
    """The factored face a solve ended on, kept for the next solve of a problem that grew by
    new indices (a cut store's next master): that solve starts on the same face when its
    start ``lam0`` is the last answer, and reuses the factorization unless a row of the
    face was rewritten in between (:meth:`rewritten`) or the ridge changed. On a master of
    hundreds of cuts the factorization is the largest cost of a solve."""

    def __init__(self) -> None:
        self.faces: _FaceMinimizers | None = None

    def rewritten(self, index: int) -> None:
        """Row and column ``index`` of ``Q`` (and ``c[index]``) changed."""
        faces = self.faces
        if faces is not None and (index in faces.row
                                  or index in faces.index[:faces.n_borders]):
            self.faces = None

    def reusable(self, ridge: np.ndarray, free: np.ndarray) -> _FaceMinimizers | None:
        """The cached faces, if factored with the same ridge on their rows (the longest
        cut's, which a longer new cut changes, or each row's own, which only a rewritten row
        changes) on the face ``free``."""
        faces = self.faces
        if faces is None or not faces.is_face(free):
            return None
        rows = np.concatenate((faces.base, faces.index[:faces.n_borders]))
        return faces if np.array_equal(faces.ridge.take(rows), ridge.take(rows)) else None


def _faces(Q: np.ndarray, c: np.ndarray, ridge: np.ndarray, free: np.ndarray
           ) -> _DirectFaces | _FaceMinimizers:
    """Fresh solves for a small face, the bordered factorization for a large one."""
    if np.count_nonzero(free) <= DIRECT_FACE:
        return _DirectFaces(Q, c, ridge)
    return _FaceMinimizers(Q, c, ridge, free)


def solve_simplex_qp(Q: np.ndarray, c: np.ndarray, lam0: np.ndarray | None = None,
                     max_iter: int = 1000, allowed: np.ndarray | None = None,
                     cache: FaceCache | None = None, accuracy: float = 0.0,
                     row_ridge: bool = False) -> np.ndarray | None:
    """The minimizer of ``½λᵀQλ − cᵀλ`` over the simplex, from the start ``lam0``; ``None``
    if ``max_iter`` iterations do not reach it (the caller then uses another solver).

    ``allowed`` (a boolean mask) restricts ``λ`` to those entries, zero elsewhere, without a
    copy of ``Q`` (a cut store passes its whole Gram matrix and its slots in use). One or two
    variables are solved in closed form. ``cache`` keeps the factored final face for the
    next call (:class:`FaceCache`). The ridge's own pull (:func:`_pull`) is taken out by
    proximal steps (:data:`PROX_STEPS`) down to ``accuracy`` (the master's gap that its
    caller can tell from none) or to :data:`PROX_RTOL` of the value, whichever is larger.
    ``row_ridge``: each row's ridge is :data:`RIDGE` times its own ``Q_ii`` instead of the
    largest one's, so that short rows beside long ones are not outweighed by it (the
    systems are then as regular only up to the rows' scaling)."""
    allowed = np.ones(len(c), dtype=bool) if allowed is None else np.asarray(allowed, bool)
    if np.count_nonzero(allowed) <= 2:
        index = np.flatnonzero(allowed)
        lam = np.zeros(len(c))
        lam[index] = _at_most_two(Q[np.ix_(index, index)], c[index])
        return lam
    allowed = _one_zero_row(Q, c, allowed)
    ridge = RIDGE * Q.diagonal() if row_ridge else _longest_ridge(Q, allowed)
    lam = _start(Q, c, lam0, allowed)
    faces = cache.reusable(ridge, lam > 0) if cache is not None else None
    if faces is None:
        faces = _faces(Q, c, ridge, lam > 0)
    else:
        # the same entries on the face, in the grown problem
        faces.Q, faces.c, faces.ridge = Q, c, ridge
    search = _ActiveSet(Q, ridge, allowed, faces)
    lam = search.run(c, lam, lam0 is not None, max_iter)
    center, last_pull = np.zeros(len(c)), np.inf
    for _ in range(PROX_STEPS if lam is not None else 0):
        pull = _pull(ridge, lam, center)
        if pull <= accuracy or pull >= last_pull \
                or pull <= PROX_RTOL * abs(dual_value(lam, Q, c)):
            break  # (or the steps no longer lower the pull: rounding is all they move)
        last_pull = pull
        # a proximal step: the ridge pulls towards the last answer, not towards 0; one
        # that needs more than PROX_ITER iterations is left, its start kept
        center = lam
        lam = search.run(c + ridge * center, center.copy(), False, PROX_ITER)
        if lam is None:
            lam = center
            break
    if cache is not None:
        faces = search.faces
        if lam is None or not isinstance(faces, _FaceMinimizers):
            cache.faces = None
        else:
            faces.recenter(c)
            cache.faces = faces
    return lam


def _longest_ridge(Q: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Each row's ridge: :data:`RIDGE` times the largest allowed ``Q_ii``, none on the rows
    of exact zeros (module docstring)."""
    largest = float(Q.diagonal()[allowed].max())
    return np.where(Q.diagonal() != 0.0, RIDGE * largest if largest > 0 else RIDGE, 0.0)


def ridge_outweighs(Q: np.ndarray, c: np.ndarray, lam: np.ndarray, allowed: np.ndarray,
                    share: float) -> bool:
    """Whether the pull of the longest cut's ridge at the answer ``lam`` (:func:`_pull`,
    without proximal steps) exceeds ``share`` of the value ``cᵀλ − ½λᵀQλ``: an answer
    that the ridge, not ``Q`` and ``c``, decides."""
    pull = _pull(_longest_ridge(Q, allowed), lam, np.zeros(len(lam)))
    return pull > share * abs(dual_value(lam, Q, c))


def _pull(ridge: np.ndarray, lam: np.ndarray, center: np.ndarray) -> float:
    """What the ridge ``r·(λ − center)``, added to the gradient, can leave of the master's
    own gap at ``λ``: on the face the ridged gradient is constant, so the unridged one
    spreads by that term's spread."""
    F = lam > 0
    pull = ridge[F] * (lam[F] - center[F])
    return float(pull.max() - pull.min())


def dual_value(lam: np.ndarray, Q: np.ndarray, c: np.ndarray) -> float:
    """The value ``cᵀλ − ½λᵀQλ`` (without the ridge)."""
    return float(c @ lam) - 0.5 * float(lam @ (Q @ lam))


class _ActiveSet:
    """The primal active-set iterations on one ``Q``, ridge and mask, for a linear term that
    the proximal steps change."""

    def __init__(self, Q: np.ndarray, ridge: np.ndarray, allowed: np.ndarray,
                 faces: _DirectFaces | _FaceMinimizers) -> None:
        self.Q, self.ridge, self.faces = Q, ridge, faces
        self.roots = np.sqrt(np.maximum(Q.diagonal(), 0.0))
        self.barred = ~allowed
        self.barred_any = bool(self.barred.any())

    def run(self, c: np.ndarray, lam: np.ndarray, stationary: bool, max_iter: int
            ) -> np.ndarray | None:
        """The minimizer of ``½λᵀ(Q + rI)λ − cᵀλ`` from the feasible ``lam`` (updated in
        place); ``stationary`` says that ``lam`` minimizes on its face (a warm start: its
        gradient is checked before any solve)."""
        Q, ridge, faces = self.Q, self.ridge, self.faces
        if faces.c is not c:
            faces.recenter(c)
        free = lam > 0
        trusted = False  # whether λ is an unbordered solve's minimizer of its face
        entering = -1  # the index freed last, until the next step
        for _ in range(max_iter):
            F = free.nonzero()[0]
            if not stationary:
                face = faces.minimizer(F)
                if faces.n_borders and (not abs(face.sum() - 1.0) <= 1e-9 or entering >= 0
                                      and face[np.searchsorted(F, entering)] <= 0):
                    # Near a singular face (more cuts than the rank of Q, or nearly equal
                    # cuts) the bordered solve can lose accuracy: its minimizer leaves the
                    # plane Σλ = 1, or an index freed for its negative multiplier does not
                    # grow (and would leave again at once). Then the face is solved afresh.
                    faces.refactor(free)
                    face = faces.minimizer(F)
                entering, trusted = -1, not faces.n_borders
                # the longest step towards the face's minimizer that keeps λ >= 0
                lam_F = lam.take(F)
                p = face - lam_F
                shrinking = (p < 0).nonzero()[0]
                if len(shrinking):
                    ratios = lam_F[shrinking] / -p[shrinking]
                    first = int(ratios.argmin())
                    if ratios[first] < 1.0:
                        step = float(ratios[first])
                        blocking = int(F[shrinking[first]])
                        lam_F += step * p
                        np.maximum(lam_F, 0.0, out=lam_F)
                        lam[F] = lam_F
                        lam[blocking] = 0.0
                        lam /= lam.sum()
                        free[blocking], trusted = False, False
                        faces.leave(blocking, free)
                        continue
                np.maximum(face, 0.0, out=face)
                lam[F] = face / face.sum()  # a full step reaches the face's minimizer
                stationary = True
                continue
            grad = Q @ lam
            grad += ridge * lam
            grad -= c
            grad_F = grad.take(F)
            nu = float(grad_F.sum()) / len(F)  # on the face's minimizer grad_F = ν·1
            rounding = _rounding(self.roots, lam, F, c, nu)
            grad[F] = np.inf
            if self.barred_any:
                grad[self.barred] = np.inf  # the bounds' multipliers are grad − ν
            slack = grad - nu + rounding
            worst = int(grad.argmin())  # the most negative multiplier enters,
            if slack[worst] >= 0.0:  # or, where that is within its rounding, one that is not
                worst = int(slack.argmin())
            if slack[worst] >= 0.0:
                # a KKT point: the multipliers off the face are not negative, and on it the
                # gradient is constant (to rounding); a bordered solve or a warm start is
                # confirmed by a solve afresh when it is not
                if trusted or bool(np.all(np.abs(grad_F - nu) <= rounding.take(F))):
                    return lam
                faces.refactor(free)
                stationary = False
                continue
            free[worst], trusted = True, False
            if isinstance(faces, _DirectFaces) and len(F) >= 2 * DIRECT_FACE:
                faces = self.faces = _FaceMinimizers(Q, c, ridge, free)
            else:
                faces.join(worst, free)
            entering, stationary = worst, False
        return None

"""The face equations of the candidate duals (Boyd et al. 2012, eq. 4) from one inverse
shared by every candidate and by neighbouring free sets.

For candidate ``k`` the dual's matrix is ``Q_st = y_s y_t K_k(z_s, z_t)`` with the anchored
kernel ``K_k(z, z') = K(z, z') − K(z, z_k) − K(z_k, z') + K(z_k, z_k)``. On a free set ``F``
it is the unanchored ``H_FF = Y_F K_FF Y_F`` plus a term of rank two,

    ``Q_FF = H_FF + V C Vᵀ``,  ``V = [y_F, y_F ∘ r_F]``,  ``C = [[κ, −1], [−1, 0]]``,

``r = K(·, z_k)`` and ``κ = K(z_k, z_k)``. The anchor enters through ``V`` and ``C`` only, so
the inverse of ``H`` on a *base* set ``F₀`` serves every candidate. A free set that differs
from the base (slots ``A`` added, slots ``R`` removed) is solved through the bordered
system on ``F₀ ∪ A``

    ``[H₀₀  B; Bᵀ  D] [x₀; z] = [g₀; g_z]``,  ``B = [H₀A, E_R, V₀]``,
    ``D = [[H_AA, 0, V_A], [0, 0, 0], [V_Aᵀ, 0, −C⁻¹]]``,

where the multipliers of ``E_R`` hold ``x_R = 0`` and ``t = C Vᵀ x`` carries the anchor's
term; its Schur complement ``D − Bᵀ H₀₀⁻¹ B`` has the size of the border. ``H₀₀⁻¹ E_R`` are
columns of the inverse, and the columns ``H₀₀⁻¹ H₀ₛ`` of added slots and their products
``H₀ₛᵀ H₀₀⁻¹ H₀ₜ`` are kept while the base is; as ``H₀₀⁻¹`` is symmetric, the other blocks
of ``Bᵀ H₀₀⁻¹ B`` are entries of those columns, of the inverse and of ``H₀₀⁻¹ V₀``. So a
candidate whose free set is near the base pays one product with the inverse for its anchor
and, per solve, one to apply the inverse and one with ``H₀₀`` to check the residual
(skipped on a base whose checks keep passing: :data:`TRUST_AFTER`).
A free set whose border exceeds :data:`BORDER_SHARE` of the base extends the base by its
slots (while that keeps the border within the share), else becomes the new base.

A border within the share can still be dear: its system's factor costs about ``⅔b³`` for
``b`` slots. Where the free sets hold about half the slots for every candidate (magic 5%
at γ·d = 10, C = 10), a base grown to all of them left borders of 430 slots, each solve
dearer than a factor of the face, while neighbouring free sets differed by a few slots.
So the borders' factors are counted from the moment a base is formed, and the free set at
hand becomes the base once they have cost more than its inverse would (about ``|F|³``: a
rent-or-buy rule) *and* their recent cost (a moving average, :data:`BORDER_AVERAGE`)
exceeds :data:`BORDER_DEARER` times the solve's two products with the inverse
(``4·|base|²``). Where borders cost little against those products (letter at γ·d = 10,
C = 0.01: borders of about 150 slots on a base of all 992), the wide base stays: a base
on one free set there pays for the slots that each next free set adds, and measured
slower (docs/aatp.md, "Solvers and certificates").

:class:`ShrinkingFace` serves the face steps of one round, each face a slot smaller than
the last, from the first face's Cholesky factor in the same way (removed slots only).

Every matrix carries the face equations' ridge ``ρ`` on its diagonal, as the direct solve
did; the results are steps of an active-set method whose end point is certified by its
duality gap (:mod:`.face_descent`), so round-off here costs iterations, never correctness.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, lu_factor, lu_solve
from scipy.linalg.lapack import dgesv, dpotrf, dpotri, dpotrs

__all__ = ["FaceSystem", "ShrinkingFace", "ridged_cholesky", "cholesky_solve",
           "BORDER_AVERAGE", "BORDER_DEARER", "BORDER_SHARE", "MIN_BORDER", "RECHECK_EVERY",
           "TRUST_AFTER", "TRUSTED_PIVOT"]

#: A new base is formed when the border (added plus removed slots) exceeds this share of
#: the base, or :data:`MIN_BORDER` slots, whichever is larger.
BORDER_SHARE = 0.5
MIN_BORDER = 16
#: The weight of the newest border in the moving average of the borders' factor cost, and
#: how many times a solve's products with the inverse that average must exceed for the
#: free set to become the base (module docstring).
BORDER_AVERAGE = 0.1
BORDER_DEARER = 4.0
#: Steps of iterative refinement on the exact residual, until it is this small relative
#: to the right-hand side.
REFINEMENTS = 3
REFINED = 1e-11
#: The residual check costs a product with the base's matrix, as much as applying its
#: inverse. A base whose first solve passed it this many times in a row is trusted: its
#: solves skip the check, but for one in :data:`RECHECK_EVERY`, and for any whose border's
#: LU factor has a pivot below :data:`TRUSTED_PIVOT` times its largest. A check that fails
#: or needs refinement ends the trust until the base passes again. The solves are steps
#: of an active-set method whose end point is certified (:mod:`.face_descent`), so an
#: unchecked solve that is off costs iterations, never correctness.
TRUST_AFTER, RECHECK_EVERY = 4, 16
TRUSTED_PIVOT = 1e-8


class FaceSystem:
    """Solves ``(Q_FF + ρI) x = g`` for the candidate anchored at item ``k`` (module
    docstring).

    ``block(items, items2)`` returns the Gram matrix's entries ``K[items][:, items2]``;
    ``item`` and ``sign`` are the slots' items and signs. ``factorizations`` counts the
    inverses formed; ``short_lived`` says whether the base replaced by the last one served
    at most one solve (an inverse that costs more than the direct factor it replaced).
    """

    def __init__(self, block: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 item: np.ndarray, sign: np.ndarray, ridge: float) -> None:
        self.block = block
        self.item = item
        self.sign = sign
        self.ridge = ridge
        self.base = np.zeros(0, dtype=np.int64)
        self.position = np.full(len(item), -1, dtype=np.int64)
        self.matrix = np.zeros((0, 0))  # H₀₀ + ρI, for the residuals of the refinement
        self.inverse: np.ndarray | None = None  # its inverse
        self.signs_solved = np.zeros(0)  # H₀₀⁻¹ y₀
        self.added: _AddedColumns | None = None  # the columns of slots added to the base
        self.anchor: tuple[int, np.ndarray] | None = None  # (k, H₀₀⁻¹ (y₀ ∘ r₀))
        self.factorizations = 0
        self.served = 0  # solves on the current base
        self.passed = 0  # its solves in a row whose residual passed at once (TRUST_AFTER)
        self.unchecked = 0  # its trusted solves since the last check (RECHECK_EVERY)
        self.short_lived = False  # whether the last base served at most one solve
        self.extend = True  # bases grow by the free sets they are asked for
        self.border_work = 0.0  # the borders' factors' cost since the base was formed
        self.border_average = 0.0  # and its moving average (flops)

    def _rebase(self, slots: np.ndarray) -> bool:
        H = self._h(slots, slots)
        H[np.diag_indices_from(H)] += self.ridge
        try:
            factor = cho_factor(H, lower=True, check_finite=False, overwrite_a=False)
        except LinAlgError:
            self.inverse = None
            return False
        self.factorizations += 1
        self.border_work = self.border_average = 0.0
        self.short_lived = self.inverse is not None and self.served <= 1
        self.served = self.passed = self.unchecked = 0
        self.position[self.base] = -1
        self.base = slots
        self.position[slots] = np.arange(len(slots))
        self.matrix = H
        self.inverse = _inverse_from_cholesky(factor[0])
        self.signs_solved = self.inverse @ self.sign[slots]
        self.added = _AddedColumns(self.inverse, lambda added: self._h(slots, added),
                                   len(self.item))
        self.anchor = None
        return True

    def fits(self, free: np.ndarray) -> bool:
        """Whether ``free`` is solved on the current base, with no new factor."""
        if self.inverse is None:
            return False
        added = int(np.count_nonzero(self.position[free] < 0))
        return added + len(self.base) - (len(free) - added) <= _border_limit(len(self.base))

    def _base_for(self, free: np.ndarray) -> bool:
        """Keep the base if its border with ``free`` (slots added plus slots removed) is at
        most :func:`_border_limit`; else extend it by ``free`` if that keeps the border as
        small, else form it on ``free``. ``False`` if no factor exists."""
        if self.fits(free):
            return True
        union = free
        if self.inverse is not None and self.extend:
            # the base's other slots, but none of an item already in ``free``: two slots of
            # one item (a pairs problem) would make the base singular
            extra = np.setdiff1d(self.base, free, assume_unique=True)
            extra = extra[~np.isin(self.item[extra], self.item[free])]
            union = np.union1d(extra, free)
        return self._rebase(union if len(union) - len(free) <= _border_limit(len(union))
                            else free)

    def solve(self, k: int, row: np.ndarray, kk: float, free: np.ndarray,
              g: np.ndarray) -> np.ndarray | None:
        """``x`` on the sorted free slots ``free`` for the anchor ``k`` (``row = K(·, z_k)``
        over the items, ``kk = K(z_k, z_k)``), or ``None`` when no factor exists (the
        ridged matrix is not numerically positive definite) or the refinement does not
        reach round-off. A base wider than ``free`` can be singular where ``free`` is not
        (an item in two slots, near-duplicate rows): then the base is formed again on
        ``free`` and tried once more, and bases are no longer extended by free sets."""
        if self._time_to_rebase(free) and not self._rebase(free):
            return None
        if not self._base_for(free):
            return None
        x = self._solve_on_base(k, row, kk, free, g)
        if x is None and len(self.base) > len(free):
            self.extend = False  # this data's wide bases are singular: bases of free sets
            if not self._rebase(free):
                return None
            x = self._solve_on_base(k, row, kk, free, g)
        return x

    def _time_to_rebase(self, free: np.ndarray) -> bool:
        """Whether it is time to form the base on ``free``, after counting the factor of
        ``free``'s bordered system on the current base (``⅔b³`` flops for ``b`` slots
        added or removed, and the anchor's two) into the borders' cost: the borders since
        the base was formed have cost more than that inverse would (``|F|³``: Cholesky
        factor and inverse), and their moving average exceeds :data:`BORDER_DEARER` times
        a solve's two products with the inverse (module docstring)."""
        if self.inverse is None:
            return False
        added = int(np.count_nonzero(self.position[free] < 0))
        border = 2 * added + len(self.base) - len(free) + 2  # added, removed, the anchor
        factor = 2.0 / 3.0 * border ** 3
        self.border_work += factor
        self.border_average += BORDER_AVERAGE * (factor - self.border_average)
        return self.border_work > float(len(free)) ** 3 \
            and self.border_average > BORDER_DEARER * 4.0 * len(self.base) ** 2

    def _solve_on_base(self, k: int, row: np.ndarray, kk: float, free: np.ndarray,
                       g: np.ndarray) -> np.ndarray | None:
        base, P = self.base, self.inverse
        inside = self.position[free] >= 0
        rows, added = self.position[free[inside]], free[~inside]
        kept = np.zeros(len(base), dtype=bool)
        kept[rows] = True
        removed = np.flatnonzero(~kept)  # base positions outside the free set
        y0, r0 = self.sign[base], row[self.item[base]]
        if self.anchor is None or self.anchor[0] != k:
            self.anchor = (k, P @ (y0 * r0))
        # transposed (a row per column): V₀, H₀₀⁻¹ V₀, H₀A and H₀₀⁻¹ H₀A
        V0t = np.vstack([y0, y0 * r0])
        solved_Vt = np.vstack([self.signs_solved, self.anchor[1]])
        H_0At, solved_At, H_0A_solved_A = self.added.rows(added)
        # H₀₀⁻¹ B for B = [H₀A, E_R, V₀], a row per column: H₀₀⁻¹ E_R are rows of the
        # inverse. As H₀₀⁻¹ is symmetric, the blocks of Bᵀ H₀₀⁻¹ B are entries of these
        # rows, but for H₀Aᵀ H₀₀⁻¹ H₀A (kept while the base is) and H₀Aᵀ H₀₀⁻¹ V₀.
        solved_Rt = P[removed]
        a, m = len(added), len(added) + len(removed)
        A_V = H_0At @ solved_Vt.T
        BtZ = np.empty((m + 2, m + 2))
        BtZ[:a, :a] = H_0A_solved_A
        BtZ[:a, a:m] = solved_At[:, removed]
        BtZ[:a, m:] = A_V
        BtZ[a:m, :a] = BtZ[:a, a:m].T
        BtZ[a:m, a:m] = solved_Rt[:, removed]
        BtZ[a:m, m:] = solved_Vt[:, removed].T
        BtZ[m:, :a] = A_V.T
        BtZ[m:, a:m] = solved_Vt[:, removed]
        BtZ[m:, m:] = V0t @ solved_Vt.T
        D = np.zeros((m + 2, m + 2))
        H_AA = self._h(added, added) + self.ridge * np.eye(a)
        V_A = np.column_stack([self.sign[added], self.sign[added] * row[self.item[added]]])
        D[:a, :a] = H_AA
        D[:a, m:] = V_A
        D[m:, :a] = V_A.T
        D[m:, m:] = np.array([[0.0, 1.0], [1.0, kk]])  # −C⁻¹
        try:
            lu = lu_factor(D - BtZ, check_finite=False)
        except (LinAlgError, ValueError):
            return None
        V = np.column_stack([self.sign[free], self.sign[free] * row[self.item[free]]])
        core = np.array([[kk, -1.0], [-1.0, 0.0]])

        def apply_inverse(rhs: np.ndarray) -> np.ndarray:
            g0 = np.zeros(len(base))
            g0[rows] = rhs[inside]
            y = P @ g0
            z = lu_solve(lu, np.r_[rhs[~inside] - H_0At @ y, -y[removed], -(V0t @ y)],
                         check_finite=False)
            x0 = y - z[:a] @ solved_At - z[a:m] @ solved_Rt - z[m:] @ solved_Vt
            x = np.empty(len(free))
            x[inside] = x0[rows]
            x[~inside] = z[:a]
            return x

        def apply(x: np.ndarray) -> np.ndarray:
            x0 = np.zeros(len(base))
            x0[rows] = x[inside]
            out = np.empty(len(free))
            out[inside] = (self.matrix @ x0 + x[~inside] @ H_0At)[rows]
            out[~inside] = H_0At @ x0 + H_AA @ x[~inside]
            return out + V @ (core @ (V.T @ x))

        x = apply_inverse(g)
        if self._trusted(lu[0]) and np.all(np.isfinite(x)):
            self.unchecked += 1
            self.served += 1
            return x
        self.unchecked = 0
        size = np.linalg.norm(g)
        for refinements in range(REFINEMENTS + 1):
            residual = g - apply(x)
            if not np.all(np.isfinite(residual)):
                self.passed = 0
                return None
            if np.linalg.norm(residual) <= REFINED * size:
                self.passed = self.passed + 1 if refinements == 0 else 0
                self.served += 1
                return x
            x = x + apply_inverse(residual)
        self.passed = 0
        return None

    def _trusted(self, border_lu: np.ndarray) -> bool:
        """Whether a solve on the current base may skip its residual check (its border's
        LU factor given): :data:`TRUST_AFTER`."""
        if self.passed < TRUST_AFTER or self.unchecked + 1 >= RECHECK_EVERY:
            return False
        pivots = np.abs(np.diag(border_lu))
        return pivots.min() > TRUSTED_PIVOT * pivots.max()  # (the anchor's 2 rows at least)

    def _h(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``H[rows, columns] = y y K`` of slots."""
        return (self.block(self.item[rows], self.item[columns])
                * self.sign[rows][:, None] * self.sign[columns][None, :])


class _AddedColumns:
    """For the slots added to one base: their columns ``H₀ₛ``, the solved columns
    ``H₀₀⁻¹ H₀ₛ`` and the products ``H₀ₛᵀ H₀₀⁻¹ H₀ₜ`` of every pair, each computed once while
    the base is kept (neighbouring free sets add mostly the same slots). ``column(added)``
    returns ``H₀A`` for the slots ``added``. Each column is stored as a row, so that it is
    gathered and multiplied along contiguous memory. Only slots outside the base are
    added, so for ``b`` of ``S`` slots in the base this holds at most ``S² − b²`` numbers,
    no more than the Gram matrix of the slots."""

    def __init__(self, inverse: np.ndarray, column: Callable[[np.ndarray], np.ndarray],
                 slots: int) -> None:
        self.inverse, self.column = inverse, column
        self.index = np.full(slots, -1, dtype=np.int64)  # slot -> its row below
        self.h = np.zeros((0, len(inverse)))  # H₀ₛᵀ, a row per slot
        self.solved = np.zeros((0, len(inverse)))  # (H₀₀⁻¹ H₀ₛ)ᵀ
        self.products = np.zeros((0, 0))  # H₀ₛᵀ H₀₀⁻¹ H₀ₜ
        self.used = 0

    def rows(self, added: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``H₀Aᵀ``, ``(H₀₀⁻¹ H₀A)ᵀ`` and ``H₀Aᵀ H₀₀⁻¹ H₀A`` for the slots ``added``."""
        new = added[self.index[added] < 0]
        if len(new):
            self._append(new)
        rows = self.index[added]
        return self.h[rows], self.solved[rows], self.products[np.ix_(rows, rows)]

    def _append(self, new: np.ndarray) -> None:
        first, last = self.used, self.used + len(new)
        if last > len(self.h):
            # no more than the slots outside the base
            capacity = max(min(2 * len(self.h), len(self.index) - len(self.inverse)), last)
            self.h = _grown(self.h, capacity)
            self.solved = _grown(self.solved, capacity)
            products = np.zeros((capacity, capacity))
            products[:first, :first] = self.products[:first, :first]
            self.products = products
        H_new = self.column(new)
        self.h[first:last] = H_new.T
        self.solved[first:last] = (self.inverse @ H_new).T
        cross = H_new.T @ self.solved[:last].T
        self.products[first:last, :last] = cross
        self.products[:first, first:last] = cross[:, :first].T
        self.index[new] = np.arange(first, last)
        self.used = last


def _grown(rows: np.ndarray, capacity: int) -> np.ndarray:
    """``rows`` in a buffer of ``capacity`` rows."""
    out = np.zeros((capacity, rows.shape[1]))
    out[:len(rows)] = rows
    return out


def _inverse_from_cholesky(lower: np.ndarray) -> np.ndarray:
    """The symmetric inverse from a lower Cholesky factor (LAPACK's potri, a third of the
    work of solving for the identity)."""
    inverse, info = dpotri(lower, lower=1, overwrite_c=0)
    if info != 0:
        raise LinAlgError(f"potri failed with info {info}")
    upper = np.triu_indices(len(inverse), 1)
    inverse[upper] = inverse.T[upper]
    return inverse


def _border_limit(base_size: int) -> int:
    """The most slots of a base outside the free set before the base is formed again."""
    return max(MIN_BORDER, int(BORDER_SHARE * base_size))


class ShrinkingFace:
    """``(Q_LL + ρI)⁻¹ g`` on a set ``L`` that loses one slot at a time, as in the face
    steps of the primal active-set method: one Cholesky factor of the first set, and for
    the removed slots ``R`` the correction ``x = y − Z (Z_R)⁻¹ y_R`` with ``y`` the
    solution on the first set and ``Z = (Q + ρI)⁻¹ E_R`` (one solve per removed slot),
    which is the solution with ``x_R = 0``. Raises ``LinAlgError`` when the first set's
    matrix has no Cholesky factor."""

    def __init__(self, Q: np.ndarray, ridge: float) -> None:
        self.factor = ridged_cholesky(Q, ridge)
        self.kept = np.ones(len(Q), dtype=bool)
        self.removed: list[int] = []
        self.columns = np.empty((8, len(Q)))  # Zᵀ: a row per removed slot (the first ones)

    def remove(self, position: int) -> None:
        """Drop the kept slot at ``position`` (in the order of the kept slots)."""
        index = int(np.flatnonzero(self.kept)[position])
        self.kept[index] = False
        if len(self.removed) == len(self.columns):
            self.columns = np.concatenate([self.columns, np.empty_like(self.columns)])
        unit = np.zeros(len(self.kept))
        unit[index] = 1.0
        self.columns[len(self.removed)] = cholesky_solve(self.factor, unit)
        self.removed.append(index)

    def solve(self, g: np.ndarray) -> np.ndarray:
        """The solution on the kept slots for the right-hand side ``g`` on them."""
        g0 = np.zeros(len(self.kept))
        g0[self.kept] = g
        y = cholesky_solve(self.factor, g0)
        if self.removed:
            Zt = self.columns[:len(self.removed)]
            _, _, z, info = dgesv(Zt[:, self.removed].T, y[self.removed])
            if info != 0:
                raise LinAlgError(f"gesv failed with info {info}")
            y = y - Zt.T @ z
        return y[self.kept]


def ridged_cholesky(Q: np.ndarray, ridge: float) -> np.ndarray:
    """The lower Cholesky factor of ``Q + ρI`` by LAPACK's potrf itself (these factors are
    small and many, and the wrappers' checks cost more than small ones); ``LinAlgError``
    when there is none."""
    M = Q.copy()
    M.flat[::len(M) + 1] += ridge
    # M.T: the same matrix in Fortran order, which potrf overwrites without a copy
    factor, info = dpotrf(M.T, lower=1, clean=0, overwrite_a=1)
    if info != 0:
        raise LinAlgError(f"potrf failed with info {info}")
    return factor


def cholesky_solve(factor: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(Q + ρI)⁻¹ b`` from the lower factor of :func:`ridged_cholesky`, by potrs."""
    x, info = dpotrs(factor, b, lower=1)
    if info != 0:
        raise LinAlgError(f"potrs failed with info {info}")
    return x

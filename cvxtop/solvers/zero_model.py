"""A certificate that the zero model is optimal, for the selection surrogates (prec@k-avg
and -max, Kar et al. 2015 eqs. 6 and 7), at any ``C``.

Their loss is the value of the selection LP over the polytope ``P`` of
:mod:`.selection_dual`, ``L(s) = max (s⁻ + 1)·u − s⁺·v``. At ``s = 0`` the maximizers of
``Σu = t`` form the face

    F = {0 <= u <= 1, Σu = t*;  0 <= v <= z(t*), Σv = t*},   t* = L(0),

(``z`` the cap of the LP), and ``w = 0`` minimizes ``½‖w‖² + C·L(Xw)`` exactly when some
point of ``F`` has ``h = X₋ᵀu − X₊ᵀv = 0``, whatever ``C`` (the reduced convex hulls meet:
docs/prec-at-k.md, "When the optimum is the zero model"). Every point of ``F`` gives the
valid cut ``L(s) >= t* + g·s`` (``g = (u, −v)`` on the items), whose bound at the zero model
is ``C·t* − ½C²‖h‖²``: it certifies that model within a relative gap ``C‖h‖²/(2t*)``.

The rounds of the cutting plane and the dual over the items both struggle there at a large
``C``: the rounds need hundreds of cuts for the gap ``C‖h‖²`` asks (prec@k-avg on sparse
50,000 × 5,000 lists: 1,108 rounds at C = 10, more than 2,000 at C = 100), and at the zero
model every item is tied, which the dual over the items gives up on. This module minimizes
``½‖h‖²`` over ``F`` instead: a product of two capped simplices, onto which projections are
cheap, so accelerated projected gradient steps (Beck & Teboulle 2009) with a restart
whenever ``‖h‖²`` rises (O'Donoghue & Candès 2015) run until the cut certifies the zero
model within the aim, or stop when ``‖h‖²`` no longer falls (the zero model is not optimal).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .objective import RankingObjective
from .selection_dual import DualCut, SelectionDual, dual_cut

__all__ = ["MAX_STEPS", "STALL_STEPS", "zero_model_cut"]

#: Projected gradient steps at most.
MAX_STEPS = 2000
#: The solve stops once ``‖h‖²`` has not halved over this many steps: where the zero model
#: is optimal it falls geometrically (45 to 91 steps to the aim on sparse 50,000 × 5,000 at
#: C = 100 to 1e8: docs/solvers.md, "The zero model at a large C").
STALL_STEPS = 50
#: Power iterations for the largest singular value of ``X`` (the step is its inverse
#: square), and the safety factor on the estimate, which converges from below.
POWER_STEPS, POWER_SAFETY = 30, 1.1


def zero_model_cut(objective: RankingObjective, aim: float) -> DualCut | None:
    """The cut of a point of the zero model's face ``F`` (module docstring) that certifies
    the zero model within the relative gap ``aim``, or ``None``: another surrogate than
    prec@k-avg and -max, groups, or no such point found (the zero model is not optimal, or
    not within the steps)."""
    Z, surrogate = objective.Z, objective.surrogate
    if objective.groups is not None or surrogate.dual_form != "selection":
        return None
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z, dtype=np.float64)
    dual = SelectionDual(Z, objective.y, objective.ks[0], objective.C, surrogate)
    if dual.J == 0:
        return None
    objective.zero_value()  # (computes the zero model's loss once)
    total = float(objective.zero_loss)
    cap = dual.cap(total)
    # (the face is empty but for rounding when the relevant items all sit at the cap)
    if total <= 0.0 or total > len(dual.neg) or total > cap * len(dual.pos) * (1.0 + 1e-12):
        return None
    face = _Face(Z, dual.neg, dual.pos, total, cap)
    point = face.nearest(aim * total / objective.C)
    if point is None:
        return None
    on_p = dual.feasible(*point)
    if on_p is None:
        return None
    u, v = on_p
    g = np.zeros(Z.shape[0])
    g[dual.neg], g[dual.pos] = u, -v
    cut = dual_cut(objective, g, float(u.sum()))
    # its bound against the zero model's objective C·t* (the cut's own weights −C·h are a
    # worse point than the zero model)
    zero_value = objective.C * total
    return cut if zero_value - cut.dual_value(objective.C) <= aim * zero_value else None


class _Face:
    """``min ½‖X₋ᵀu − X₊ᵀv‖²`` over ``0 <= u <= 1, Σu = t``, ``0 <= v <= cap, Σv = t``."""

    def __init__(self, X, neg: np.ndarray, pos: np.ndarray, total: float, cap: float
                 ) -> None:
        self.X, self.neg, self.pos = X, neg, pos
        self.total, self.cap = total, cap
        self.thresholds = [0.0, 0.0]  # the last projections' shifts: the next ones' starts

    def residual(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``h = X₋ᵀu − X₊ᵀv``."""
        g = np.zeros(self.X.shape[0])
        g[self.neg], g[self.pos] = u, -v
        return np.asarray(self.X.T @ g).ravel()

    def _lipschitz(self) -> float:
        """An estimate from above of ``‖X‖₂²``, the gradient's Lipschitz constant."""
        x = np.random.default_rng(0).standard_normal(self.X.shape[0])
        largest = 1.0
        for _ in range(POWER_STEPS):
            x = np.asarray(self.X @ np.asarray(self.X.T @ x).ravel()).ravel()
            largest = float(np.linalg.norm(x))
            if largest == 0.0:
                return 1.0
            x /= largest
        return POWER_SAFETY * largest

    def _project(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u, self.thresholds[0] = onto_capped_simplex(u, 1.0, self.total, self.thresholds[0])
        v, self.thresholds[1] = onto_capped_simplex(v, self.cap, self.total,
                                                    self.thresholds[1])
        return u, v

    def nearest(self, target: float) -> tuple[np.ndarray, np.ndarray] | None:
        """A point of the face with ``‖h‖² <= target``, or ``None``."""
        step = 1.0 / self._lipschitz()
        u = np.full(len(self.neg), self.total / len(self.neg))
        v = np.full(len(self.pos), self.total / len(self.pos))
        h = self.residual(u, v)
        value = float(h @ h)
        history = [value]
        ahead_u, ahead_v, momentum = u, v, 1.0
        for _ in range(MAX_STEPS):
            if value <= target:
                return u, v
            h_ahead = self.residual(ahead_u, ahead_v)
            pull = np.asarray(self.X @ h_ahead).ravel()
            new_u, new_v = self._project(ahead_u - step * pull[self.neg],
                                         ahead_v + step * pull[self.pos])
            h = self.residual(new_u, new_v)
            new_value = float(h @ h)
            if new_value > value:
                # a restart: the next step is a plain projected gradient step from here
                ahead_u, ahead_v, momentum = u, v, 1.0
                history.append(value)
            else:
                following = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum * momentum))
                share = (momentum - 1.0) / following
                ahead_u = new_u + share * (new_u - u)
                ahead_v = new_v + share * (new_v - v)
                u, v, value, momentum = new_u, new_v, new_value, following
                history.append(value)
            if len(history) > STALL_STEPS and value > 0.5 * history[-STALL_STEPS - 1]:
                return None
        return (u, v) if value <= target else None


def onto_capped_simplex(x: np.ndarray, cap: float, total: float, start: float = 0.0
                        ) -> tuple[np.ndarray, float]:
    """The Euclidean projection of ``x`` onto ``{0 <= p <= cap, Σp = total}`` (which must
    be non-empty: ``0 <= total <= cap·len(x)``), and its shift ``θ``: ``p = clip(x − θ, 0,
    cap)``, where ``Σ clip(x − θ, 0, cap)`` falls from ``cap·len(x)`` to 0 as ``θ`` rises.
    ``θ`` is found by Newton steps on that piecewise-linear sum from ``start`` (the last
    projection's shift, near this one's), kept inside a bracket that halves when a step
    leaves it, then set exactly from the items strictly between the bounds."""
    low, high = float(np.min(x)) - cap, float(np.max(x))
    theta = min(max(start, low), high)
    for _ in range(200):
        p = np.clip(x - theta, 0.0, cap)
        excess = float(p.sum()) - total
        if abs(excess) <= 1e-14 * max(1.0, total):
            break
        if excess > 0:
            low = theta
        else:
            high = theta
        between = int(np.count_nonzero((p > 0.0) & (p < cap)))
        proposed = theta + excess / between if between else 0.5 * (low + high)
        theta = proposed if low < proposed < high else 0.5 * (low + high)
        if high - low <= 1e-15 * max(1.0, abs(theta)):
            break
    p = np.clip(x - theta, 0.0, cap)
    between = (p > 0.0) & (p < cap)
    if between.any():
        theta = (float(x[between].sum()) - (total - float(p[~between].sum()))) \
            / int(np.count_nonzero(between))
        p[between] = np.clip(x[between] - theta, 0.0, cap)
    return p, theta

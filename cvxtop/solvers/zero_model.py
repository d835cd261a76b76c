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
model within the aim, or stop once the zero model provably cannot be certified there: at
any point of ``F`` the Frank–Wolfe gap of ``‖h‖²`` (a linear minimization over each capped
simplex: its lowest entries filled first) bounds the face's least ``‖h‖²`` from below, and
where that bound exceeds what the aim allows the solve ends. The bound does not depend on
``C``, so the objective keeps it (``zero_face_floor``), and a later try at a ``C`` it rules
out (the rounds' next dual round, a hand-over to a smaller ``C``) costs nothing; so does
one whose aim is no looser than that of a solve that gave up (``zero_face_missed``).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .objective import RankingObjective
from .selection_dual import DualCut, SelectionDual, dual_cut

__all__ = ["FLOOR_EVERY", "MAX_STEPS", "RATE_SPAN", "REACH_STEPS", "zero_model_cut"]

#: Projected gradient steps at most.
MAX_STEPS = 2000
#: The solve stops once ``‖h‖²``, falling at its pace over the last ``RATE_SPAN`` steps,
#: would need more than ``REACH_STEPS`` more to reach what the aim allows. Where the zero
#: model is optimal it falls geometrically, by a tenth to a quarter of an order of
#: magnitude a step (45 to 91 steps to the aim on sparse 50,000 × 5,000 at C = 100 to 1e8);
#: where it is not, it levels off: on ``make_ranking_data(10⁴, 1,000)``, prec@k-max at
#: C = 1e4, by 0.036 orders a step over steps 5 to 30, with 11 orders to go
#: (docs/solvers.md, "The zero model at a large C").
RATE_SPAN, REACH_STEPS = 25, 500
#: Steps between two lower bounds on the face's least ``‖h‖²`` (each costs a product
#: with ``X``, a third of a step).
FLOOR_EVERY = 5
#: Power iterations for the largest singular value of ``X`` (the step is its inverse
#: square), and the safety factor on the estimate, which converges from below; a step that
#: raises ``‖h‖²`` twice in a row (restarted the first time) halves the step.
POWER_STEPS, POWER_SAFETY = 10, 1.1


def zero_model_cut(objective: RankingObjective, aim: float) -> DualCut | None:
    """The cut of a point of the zero model's face ``F`` (module docstring) that certifies
    the zero model within the relative gap ``aim``, or ``None``: another surrogate than
    prec@k-avg and -max, groups, or no such point found (the zero model is not optimal, or
    not within the steps)."""
    Z, surrogate = objective.Z, objective.surrogate
    if objective.groups is not None or surrogate.dual_form != "selection":
        return None
    objective.zero_value()  # (computes L(0) once per objective)
    total = float(objective.zero_loss)
    target = aim * total / objective.C  # ‖h‖² that certifies the zero model within aim
    if objective.zero_face_floor > target or objective.zero_face_missed >= target:
        return None  # ruled out, or given up on at a target no harder
    Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z, dtype=np.float64)
    dual = SelectionDual(Z, objective.y, objective.ks[0], objective.C, surrogate)
    if dual.J == 0:
        return None
    cap = dual.cap(total)
    # (the face is empty but for rounding when the relevant items all sit at the cap)
    if total <= 0.0 or total > len(dual.neg) or total > cap * len(dual.pos) * (1.0 + 1e-12):
        return None
    face = _Face(Z, dual.neg, dual.pos, total, cap)
    point, floor = face.nearest(target, objective.zero_face_floor)
    objective.zero_face_floor = floor
    if point is None:
        objective.zero_face_missed = max(objective.zero_face_missed, target)
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

    def _floor(self, u: np.ndarray, v: np.ndarray, value: float, h: np.ndarray) -> float:
        """A lower bound on the face's least ``‖h‖²`` from the point ``(u, v)`` (``value =
        ‖h‖²``): ``value`` less its Frank–Wolfe gap, less a margin for rounding."""
        pull = 2.0 * np.asarray(self.X @ h).ravel()  # the gradient of ‖h‖² in the scores
        grad_u, grad_v = pull[self.neg], -pull[self.pos]
        lowest = _lowest_fill(grad_u, 1.0, self.total) \
            + _lowest_fill(grad_v, self.cap, self.total)
        gap = float(grad_u @ u) + float(grad_v @ v) - lowest
        size = float(np.abs(grad_u) @ u) + float(np.abs(grad_v) @ v) + abs(lowest) + value
        return value - gap - 1e-12 * size

    def nearest(self, target: float, floor: float
                ) -> tuple[tuple[np.ndarray, np.ndarray] | None, float]:
        """A point of the face with ``‖h‖² <= target`` (or ``None``), and the largest lower
        bound on the face's least ``‖h‖²`` known (``floor`` at the start)."""
        step = 1.0 / self._lipschitz()
        u = np.full(len(self.neg), self.total / len(self.neg))
        v = np.full(len(self.pos), self.total / len(self.pos))
        h = self.residual(u, v)
        value = float(h @ h)
        history = [value]
        ahead_u, ahead_v, momentum, restarted = u, v, 1.0, False
        for it in range(MAX_STEPS):
            if value <= target:
                return (u, v), floor
            if it % FLOOR_EVERY == 0:
                floor = max(floor, self._floor(u, v, value, h))
                if floor > target or (it >= RATE_SPAN and _out_of_reach(
                        history[-RATE_SPAN - 1], value, target)):
                    return None, floor
            h_ahead = self.residual(ahead_u, ahead_v)
            pull = np.asarray(self.X @ h_ahead).ravel()
            new_u, new_v = self._project(ahead_u - step * pull[self.neg],
                                         ahead_v + step * pull[self.pos])
            h_new = self.residual(new_u, new_v)
            new_value = float(h_new @ h_new)
            if new_value > value:
                # a restart: the next step is a plain projected gradient step from here;
                # if that one rises too, the step is too long for the estimate of ‖X‖₂²
                step = 0.5 * step if restarted else step
                ahead_u, ahead_v, momentum, restarted = u, v, 1.0, True
            else:
                following = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum * momentum))
                share = (momentum - 1.0) / following
                ahead_u = new_u + share * (new_u - u)
                ahead_v = new_v + share * (new_v - v)
                u, v, h, value, momentum = new_u, new_v, h_new, new_value, following
                restarted = False
            history.append(value)
        return ((u, v) if value <= target else None), floor


def _out_of_reach(earlier: float, value: float, target: float) -> bool:
    """Whether ``‖h‖²``, having fallen from ``earlier`` to ``value`` over
    :data:`RATE_SPAN` steps, would at that pace need more than :data:`REACH_STEPS` more
    to reach ``target`` (below ``value``)."""
    fallen = math.log(earlier / value)
    return fallen <= 0.0 or math.log(value / target) * RATE_SPAN > REACH_STEPS * fallen


def _lowest_fill(q: np.ndarray, cap: float, total: float) -> float:
    """``min q·x`` over ``{0 <= x <= cap, Σx = total}``: ``cap`` on the lowest entries of
    ``q`` until the sum is reached."""
    full = min(int(total // cap), len(q))
    rest = total - full * cap
    taken = min(full + 1, len(q))
    lowest = np.sort(q[np.argpartition(q, taken - 1)[:taken]])
    return cap * float(lowest[:full].sum()) + (rest * float(lowest[full]) if full < taken
                                               else 0.0)


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

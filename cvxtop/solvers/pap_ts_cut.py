"""A cut of pAp@k-TS read off a score vector near one of its subgradients, such as an
interior point's multipliers of the scores (:mod:`.direct_program`), valid whatever that
vector.

Hiranandani et al. 2020 eq. (14) is ``L(s) = (1/(βk)) Σ_{l ≤ k} φ(z_(l))`` over the k highest
irrelevant scores ``z``, with ``φ(x) = max(−c + Σ_i (1 + x − s_i)₊, Σ_i (x − s_i)₊)`` over
the relevant items ``i`` and ``c = n₊ − β``
(:class:`~cvxtop.surrogates.pap.PapTightStruct`). The cut is built in three steps.

**Each level.** For ``θ_l ∈ [0, 1]`` and ``A_il ∈ [0, θ_l]``, ``B_il ∈ [0, 1 − θ_l]``, a
hinge being at least any fraction of its argument,
``φ(x) >= θ_l·(first) + (1 − θ_l)·(second) >= Σ_i A_il (1 + x − s_i) + B_il (x − s_i) −
θ_l c``. With ``e_il = A_il + B_il`` and ``E_l = Σ_i e_il`` this is
``φ(x) >= Σ_i A_il − θ_l c + E_l x − e_l·s⁺``.

**The levels together.** Where ``E`` is nonincreasing in ``l``, Abel summation over the
sorted scores gives ``Σ_l E_l z_(l) >= p·s⁻`` for every ``p >= 0`` whose largest ``j``
entries sum to at most ``F(j) = E_1 + … + E_min(j, k)``, with ``Σ p = F(k)`` (sort ``s⁻``
descending; the partial sums of ``p`` in that order are at most ``F``, and the gaps
between consecutive scores are nonnegative). So
``L(s) >= (1/(βk)) [Σ_l (Σ_i A_il − θ_l c) + p·s⁻ − Σ_l e_l·s⁺]``.

**From a vector** ``g``. The relevant items' weights ``q = clip(−βk·g⁺, 0, k)`` are split
over the levels as a prefix, ``e_il = clip(q_i − (l − 1), 0, 1)``, which keeps ``E``
nonincreasing (a relevant item whose hinge is active at a level is active at every higher
one, so at a subgradient this is its own split). For those ``e``, the intercept takes each
level's best ``θ_l`` (``A_il = min(e_il, θ_l)``: the most that ``e`` and ``θ_l`` allow; the
value is concave and piecewise linear in ``θ_l``, so its maximum is at 0, 1 or some
``e_il``). The irrelevant items' weights start from ``max(βk·g⁻, 0)`` scaled to the sum
``F(k)``; in descending order their partial sums ``P`` become ``min(P, F)``, whose steps
are nonnegative and nonincreasing (a minimum of two concave sequences), so the largest
``j`` entries of the result sum to at most ``F(j)``. At a subgradient at the optimum
nothing moves: the cut is that subgradient's, and its master value is the optimum.
"""

from __future__ import annotations

import math

import numpy as np

from .objective import RankingObjective
from .selection_dual import DualCut, dual_cut

__all__ = ["suits", "cut_near"]


def suits(objective: RankingObjective) -> bool:
    """Whether :func:`cut_near` applies: a surrogate that declares this cut (``dual_form``
    ``"pap-ts"``: pAp@k-TS) on one list."""
    return objective.one_list and objective.surrogate.dual_form == "pap-ts"


def cut_near(objective: RankingObjective, g: np.ndarray) -> DualCut:
    """The cut of the module docstring nearest the score vector ``g``, with its weights."""
    bound = objective.parts[0].bound
    k, g = bound.k, np.asarray(g, dtype=np.float64)
    scale = min(bound.n_pos, k) * k  # βk
    q = np.clip(-scale * g[bound.pos], 0.0, float(k))
    shares = np.clip(q[:, None] - np.arange(k)[None, :], 0.0, 1.0)  # e_il
    level_sums = shares.sum(axis=0)  # E_l, nonincreasing
    c = bound.n_pos - min(bound.n_pos, k)
    intercept = math.fsum(_level_intercept(shares[:, l], c) for l in range(k))
    cut_g = np.zeros(bound.n)
    cut_g[bound.pos] = -q / scale
    cut_g[bound.neg] = _under_levels(np.maximum(scale * g[bound.neg], 0.0), level_sums) / scale
    return dual_cut(objective, cut_g, intercept / scale)


def _level_intercept(e: np.ndarray, c: float) -> float:
    """``max_{θ ∈ [0, 1]} Σ_i min(e_i, θ) − θc`` (``e`` in ``[0, 1]``), at the best of
    ``θ = 0, 1`` and the ``e_i``; every ``θ`` gives a valid cut, and the chosen one's value
    is summed exactly (``math.fsum``)."""
    ordered = np.sort(e)
    below = np.r_[0.0, np.cumsum(ordered)[:-1]]  # Σ of the e's before each, ascending
    values = below + ordered * (len(ordered) - np.arange(len(ordered))) - ordered * c
    candidates = np.r_[0.0, 1.0, ordered]
    scores = np.r_[0.0, float(np.sum(ordered)) - c, values]
    theta = float(candidates[int(np.argmax(scores))])
    return math.fsum(np.minimum(e, theta)) - theta * c


def _under_levels(p: np.ndarray, level_sums: np.ndarray) -> np.ndarray:
    """``p >= 0`` moved to the sum ``F(k) = ΣE`` with its largest ``j`` entries summing to
    at most ``F(j)`` (module docstring); spread evenly where ``p`` is zero. The total is
    made exact up to rounding (``math.fsum``)."""
    total = math.fsum(level_sums)
    weight = math.fsum(p)
    p = p * (total / weight) if weight > 0.0 else np.full(len(p), total / len(p))
    order = np.argsort(-p, kind="stable")
    reach = np.cumsum(level_sums)
    caps = np.r_[reach, np.full(max(len(p) - len(reach), 0), reach[-1])][:len(p)]
    partial = np.minimum(np.cumsum(p[order]), caps)
    moved = np.empty_like(p)
    moved[order] = np.diff(np.r_[0.0, partial])
    top = int(np.argmax(moved))
    moved[top] += total - math.fsum(moved)
    return moved

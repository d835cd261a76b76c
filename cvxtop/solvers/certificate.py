"""A certified distance to the optimum for a model an approximate solver returned.

The approximate solvers (SGD, the perceptrons, GD) end at a model ``w`` with an exact
objective ``P(w)`` but, on their own, no bound on ``P*``: cuts taken at their iterates
are too alike to lift a lower bound (SGD's block Frank-Wolfe dual certifies the problem
split into batches, which is not the full one). :func:`certify` runs the 1-slack cutting
plane (:mod:`.cutting_plane`) warm-started at ``w`` and stops as soon as the bounds settle
the question at the tolerance ``tol``, whichever way:

* ``P(w) − lower <= tol·|P(w)|``: the model is within ``tol`` of the optimum;
* ``P(w) − upper > tol·|upper|`` for a point the cutting plane found: the model is more
  than ``tol`` above the optimum (``P* <= upper``), which usually takes a few rounds;

or after ``max_rounds`` rounds (each about one pass over the data for the cut, a product
for the line search and a small master QP). The model is not changed: the certificate
says how far it is, and the caller warns when that is more than ``tol``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cutting_plane import solve_cutting_plane
from .gaps import gap_scale, half_square, relative_gap, within
from .objective import RankingObjective

__all__ = ["Certificate", "certify", "CERTIFICATE_ROUNDS"]

#: Default budget of cutting-plane rounds for a certificate.
CERTIFICATE_ROUNDS = 100


@dataclass(frozen=True)
class Certificate:
    """Bounds on how far a model's objective ``value`` is from the optimum ``P*``.

    ``lower_bound <= P* <= best <= value``; ``gap`` is the certified relative distance
    ``(value − lower_bound)/|value|``, and ``excess_at_least`` the relative distance the
    cutting plane's better point proves, ``(value − best)/|best|`` (each over at least its
    point's ``½‖w‖²``, ``regularizer`` and ``best_regularizer``, and the floor of
    :func:`.gaps.gap_floor` at the problem's ``C``: :func:`.gaps.gap_scale`).
    """

    value: float
    lower_bound: float
    best: float
    rounds: int
    C: float = 1.0
    regularizer: float = 0.0
    best_regularizer: float = 0.0

    @property
    def gap(self) -> float:
        return relative_gap(self.value, self.lower_bound, self.C, self.regularizer)

    @property
    def excess_at_least(self) -> float:
        return max(0.0, (self.value - self.best) / gap_scale(self.best, self.C,
                                                              self.best_regularizer))


def certify(objective: RankingObjective, w: np.ndarray, tol: float,
            max_rounds: int = CERTIFICATE_ROUNDS, value: float | None = None) -> Certificate:
    """Bound the distance of ``w`` from the optimum until it is known to be within ``tol``
    (relative) or not, or for ``max_rounds`` cutting-plane rounds (module docstring).
    ``value`` is ``P(w)`` when the caller has it already."""
    if value is None:
        value = objective.value(w)
    regularizer = half_square(w)
    rounds = 0

    def settled(upper: float, lower: float) -> bool:
        nonlocal rounds
        rounds += 1
        return (within(value, lower, tol, objective.C, regularizer)
                or value - upper > tol * gap_scale(upper, objective.C) or rounds >= max_rounds)

    # the cutting plane's own tolerance is far below tol, so that `settled` decides
    result = solve_cutting_plane(objective, w0=w, tol=min(1e-9, 1e-3 * tol),
                                 max_iter=max_rounds + 1, stop=settled)
    lower = min(float(result.lower_bound), value)
    better = float(result.objective) < value
    return Certificate(value, lower, float(result.objective) if better else value, rounds,
                       objective.C, regularizer,
                       half_square(result.coef) if better else regularizer)

"""Checkpoints of the mini-batch methods: the exact objective, the best model and a
certified gap along the run, so that SGD and the perceptrons stop once their model is
certified within ``tol``.

At epochs 1, 2, 4, 8, ... and the last, :class:`Checkpoints` evaluates the full objective
``P(w)`` of the run's model (one pass over the data; about log₂(epochs) passes in a run)
and, for SGD, keeps the best model seen: SGD's iterate is not monotone in ``P`` (a block
Frank-Wolfe iterate optimizes the problem split into batches, and can land several times
above the optimum an epoch after being close to it). With a tolerance it then certifies
that model with :func:`~cvxtop.solvers.certificate.certify` on a small round budget: a model
far from the optimum is told apart in a round or two, and the lower bounds of all the
checkpoints combine (each bounds ``P*`` itself, whatever model it was computed at). The run
stops at the first checkpoint where ``P(best) − lower <= tol·|P(best)|``. The last
epoch's model is only evaluated: the certificate after the run, with its full budget, and
the bounds found so far settle it.
"""

from __future__ import annotations

import numpy as np

from .certificate import certify
from .gaps import half_square, relative_gap
from .objective import RankingObjective

__all__ = ["Checkpoints", "is_checkpoint", "CHECKPOINT_ROUNDS"]

#: Cutting-plane rounds of the certificate at a checkpoint before the last (the final
#: certificate of :func:`cvxtop.solvers.minimize` has its own, larger budget).
CHECKPOINT_ROUNDS = 10


def is_checkpoint(epoch: int, epochs: int) -> bool:
    """Whether ``epoch`` (from 1) is a power of two or the last of ``epochs``."""
    return epoch & (epoch - 1) == 0 or epoch == epochs


class Checkpoints:
    """The checkpoint rule of a run (module docstring).

    Parameters
    ----------
    objective : RankingObjective
    tol : float or None
        Relative gap at which the run stops; ``None``: no certificate along the run.
    keep_best : bool
        Return the best model seen (SGD) rather than the last one (the perceptrons, which do
        not minimize ``P``).
    rounds : int
        Cutting-plane rounds of each checkpoint's certificate.
    """

    def __init__(self, objective: RankingObjective, tol: float | None, keep_best: bool,
                 rounds: int = CHECKPOINT_ROUNDS) -> None:
        self.objective = objective
        self.tol = tol
        self.keep_best = keep_best
        self.rounds = rounds
        self.model: np.ndarray | None = None
        self.value = np.inf
        self.lower = -np.inf
        self.certified_value = np.nan  # the value the last certificate was computed for

    def __call__(self, w: np.ndarray, certify_it: bool = True) -> bool:
        """Record the model ``w`` at a checkpoint and, with ``certify_it``, certify the
        recorded model (the run's last checkpoint leaves that to the caller's final
        certificate); ``True`` when the run may stop."""
        value = self.objective.value(w)
        if not self.keep_best or value < self.value:
            self.model, self.value = w.copy(), value
        if self.tol is None:
            return False
        if certify_it and self.value != self.certified_value and not self.within_tol:
            cert = certify(self.objective, self.model, self.tol, self.rounds, value=self.value)
            self.lower = max(self.lower, cert.lower_bound)
            self.certified_value = self.value
        return self.within_tol

    @property
    def within_tol(self) -> bool:
        gap = self.gap
        return self.tol is not None and gap is not None and gap <= self.tol

    @property
    def gap(self) -> float | None:
        """The certified relative gap of the recorded model, ``None`` before a bound."""
        if not np.isfinite(self.lower):
            return None
        return relative_gap(self.value, self.lower, self.objective.C, half_square(self.model))

"""Online steps over batches that arrive one at a time (``TopRanker.partial_fit``).

Each batch (with groups, each group of it) is one mini-batch. Its cut-off is the
surrogate's batch cut-off with the whole stream's ``n₊`` unknown: ``ceil(κ·n₊(batch))`` for
a float κ and ``min(k, n₊(batch))`` for an int prec@k cut-off; batches on which the
surrogate is undefined are skipped and counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..groups import Groups
from ..surrogates.base import Surrogate
from .perceptron import PerceptronState, perceptron_step
from .sgd import SGDState, sgd_step

__all__ = ["Stream"]


class Stream:
    """The state of an online run of ``method`` (``"sgd"`` or ``"perceptron"``).

    SGD takes ``"inverse"`` (``1/t``) or ``"sqrt"`` (``eta0/√t``) steps on
    ``½‖w‖² + C·L_batch`` (or on ``L_batch`` alone over the ball ``‖w‖ <= radius``); each
    batch's surrogate stands for the whole loss.
    """

    def __init__(self, surrogate: Surrogate, method: str, n_features: int, *, C: float = 1.0,
                 learning_rate: str = "inverse", eta0: float = 1.0, average: bool = True,
                 radius: float | None = None) -> None:
        if method == "perceptron" and surrogate.perceptron is None:
            raise ValueError(f"no perceptron minimizes {surrogate.name}")
        if method not in ("sgd", "perceptron"):
            raise ValueError(f"a stream runs 'sgd' or 'perceptron', not {method!r}")
        self.surrogate = surrogate
        self.method = method
        self.n_features = n_features
        self.C, self.learning_rate, self.eta0 = C, learning_rate, eta0
        self.average, self.radius = average, radius
        self.state = (PerceptronState(np.zeros(n_features)) if method == "perceptron"
                      else SGDState(np.zeros(n_features)))
        self.n_batches_skipped = 0

    def partial_fit(self, Z: np.ndarray, y: np.ndarray, groups: Any = None) -> None:
        """One step per batch: ``(Z, y)`` as one batch, or one per group of ``groups``."""
        if Z.shape[1] != self.n_features:
            raise ValueError(f"X has {Z.shape[1]} columns but earlier batches had "
                             f"{self.n_features}")
        batches = ([np.arange(len(y))] if groups is None
                   else list(Groups.of(groups, len(y))))
        for idx in batches:
            yb = y[idx]
            kb = self.surrogate.batch_cutoff(None, int(np.count_nonzero(yb)), len(yb))
            if kb is None:
                self.n_batches_skipped += 1
            elif self.method == "perceptron":
                perceptron_step(self.state, Z[idx], yb, kb, self.surrogate.perceptron)
            else:
                sgd_step(self.state, Z[idx], self.surrogate.bind_cutoff(yb, kb), self.C, 1.0,
                         self.learning_rate, self.eta0, self.radius)

    @property
    def coef(self) -> np.ndarray:
        """The current model (SGD's average of iterates when ``average``)."""
        if self.method == "sgd" and self.average:
            return self.state.average.copy()
        return self.state.w.copy()

    @property
    def mistakes(self) -> int | None:
        """Perceptrons: the cumulative prec@k loss over the batches seen."""
        return self.state.mistakes if self.method == "perceptron" else None

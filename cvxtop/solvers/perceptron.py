"""Perceptron@k-avg and Perceptron@k-max (Kar et al. 2015 Algorithms 1 and 2).

Each mini-batch is ranked by the current model; ``ŷ`` marks its top ``k`` items (ties at the
cut ordered irrelevant-first, as in :func:`cvxtop.metrics.precision_at_k`) and
``Δ_t = Δ(y_t, ŷ_t)`` counts the irrelevant items among them (eq. (1)). When ``Δ_t > 0`` the
model moves away from the false positives and towards false negatives:

* Algorithm 1 (avg): ``w ← w − Σ_FP x + D_t Σ_FN x`` with ``D_t = Δ_t / #FN``, all false
  negatives;
* Algorithm 2 (max): ``w ← w − Σ_FP x + Σ_{FN(s, Δ_t)} x``, only the ``Δ_t`` top-ranked
  false negatives.

``Δ_T^C = Σ_t Δ_t`` (the cumulative mistake value of Theorems 7 and 9) is accumulated over
every batch seen. The caller chooses each batch's cut-off
(:meth:`cvxtop.surrogates.Surrogate.batch_cutoff`: ``k_t = ceil(κ·n₊(batch))``) and skips
batches without a relevant item, which have no prec@k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PerceptronState", "perceptron_step"]


@dataclass
class PerceptronState:
    """The running model and the mistake count of a perceptron@k run."""

    w: np.ndarray
    mistakes: int = 0
    updates: int = 0
    batches: int = 0


def _ranked_top(y: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the top ``k`` items, ties at the cut ordered irrelevant-first."""
    order = np.lexsort((y, -s))
    top = np.zeros(len(y), dtype=bool)
    top[order[:k]] = True
    return top


def perceptron_step(state: PerceptronState, X: np.ndarray, y: np.ndarray, k: int,
                    variant: str) -> None:
    """Process one mini-batch ``(X, y)`` with cut-off ``k`` (1 <= k <= n₊ of the batch)
    by Algorithm 1 (``variant="avg"``) or Algorithm 2 (``"max"``)."""
    state.batches += 1
    s = X @ state.w
    top = _ranked_top(y, s, k)
    false_pos = top & (y == 0)
    delta = int(false_pos.sum())
    if delta == 0:
        return
    state.mistakes += delta
    state.updates += 1
    false_neg = ~top & (y == 1)
    coeff = np.zeros(len(y))
    coeff[false_pos] = -1.0
    if variant == "avg":
        coeff[false_neg] = delta / int(false_neg.sum())
    else:  # the Δ_t top-ranked false negatives, FN(s, Δ_t)
        fn_idx = np.flatnonzero(false_neg)
        coeff[fn_idx[np.argsort(-s[fn_idx], kind="stable")[:delta]]] = 1.0
    state.w += X.T @ coeff

"""Multilabel classification, Jain et al. 2015 Section 3 (losses) and Appendix C.2 (not included).

Labels and predictions are subsets of ``m`` labels, held as 0/1 vectors, and
``rep(σ) = (Σ_{j∈σ} e_j − Σ_{j∉σ} e_j)/√m``, so ``pred(t) = sign(t)`` coordinatewise.

With ``σ_y = y``, changing ``y`` into ``σ`` flips a set ``F`` of coordinates and
``−<rep(y) − rep(σ), t> = Σ_{j∈F} c_j`` with ``c_j = −2 (2y_j − 1) t_j/√m``. Each loss
depends only on how many flipped coordinates are misses (in ``y``) and false labels (not in
``y``), so eq. (2) becomes a maximum over flip sets that never enumerates the ``2^m``
predictions (the appendix that derives this is not in the text; the forms below are derived
from the definitions and checked by brute force in the tests):

* Hamming, ``|σ ∪ y| − |σ ∩ y|``: ``ψ = Σ_j (1 + c_j)₊``;
* subset 0-1, ``1[σ ≠ y]``: ``ψ = max(0, 1 + M)`` with ``M`` the largest sum of ``c`` over a
  non-empty set: ``Σ_j (c_j)₊`` when some ``c_j > 0``, else ``max_j c_j``;
* error set size, ``|{(r, s) ∈ y × ȳ : r ∉ σ, s ∈ σ}| = (misses)·(false labels)``:
  ``ψ = max_{a=0..|y|} [sum of the a largest c_j, j ∈ y] + Σ_{j∉y} (c_j + a)₊`` (for ``a``
  misses the best false labels are those with ``c_j + a > 0``): ``O(m²)``.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from .._validation import check_int_in_range, check_labels
from .base import Problem

__all__ = ["Multilabel", "MULTILABEL_LOSSES"]

#: The subset losses of Jain et al. 2015 Section 3.
MULTILABEL_LOSSES = ("subset_01", "hamming", "error_set_size")

#: Largest number of labels ``m`` (the error-set-size surrogate builds ``m × m`` arrays).
MAX_LABELS = 100_000


def _binary_vectors(value: Any, name: str) -> np.ndarray:
    """0/1 vectors of any shape (``-1``/``+1`` and booleans accepted and mapped)."""
    arr = np.asarray(value)
    return check_labels(arr.reshape(-1), name).reshape(arr.shape)


class Multilabel(Problem):
    """Multilabel classification over ``m`` labels with a subset loss, Jain et al. 2015 Section 3.

    ``loss`` is ``"hamming"`` (default), ``"subset_01"`` or ``"error_set_size"``. A label ``y``
    and a prediction are 0/1 vectors of length ``m``; scores ``t = W x`` with ``W ∈ R^{m×p}``.
    """

    def __init__(self, m: int, loss: str = "hamming") -> None:
        self.m = check_int_in_range(m, "m", 1, MAX_LABELS)
        if loss not in MULTILABEL_LOSSES:
            raise ValueError(f"loss must be one of {MULTILABEL_LOSSES}, got {loss!r}")
        self.loss_name = loss
        self.dim = self.m
        self.label_shape = (self.m,)

    def __repr__(self) -> str:
        return f"Multilabel(m={self.m!r}, loss={self.loss_name!r})"

    def _validate_labels(self, y: Any, name: str) -> np.ndarray:
        return _binary_vectors(y, name)

    def _validate_prediction(self, prediction: Any, name: str) -> np.ndarray:
        sigma = _binary_vectors(prediction, name)
        if sigma.shape != (self.m,):
            raise ValueError(f"{name} must be a 0/1 vector of length {self.m}, "
                             f"got shape {sigma.shape}")
        return sigma

    def _rep(self, prediction: np.ndarray) -> np.ndarray:
        return (2.0 * prediction - 1.0) / np.sqrt(self.m)

    def _pred(self, t: np.ndarray) -> np.ndarray:
        return (t > 0).astype(np.int64)

    def _loss(self, prediction: np.ndarray, y: np.ndarray) -> float:
        misses = int(np.count_nonzero((y == 1) & (prediction == 0)))
        false = int(np.count_nonzero((y == 0) & (prediction == 1)))
        if self.loss_name == "hamming":
            return float(misses + false)
        if self.loss_name == "subset_01":
            return float(misses + false > 0)
        return float(misses * false)

    def _worst_loss(self, t: np.ndarray, y: np.ndarray) -> float:
        # A zero score leaves the coordinate free; every loss grows when it is flipped.
        worst = np.where(t == 0, 1 - y, self._pred(t))
        return self._loss(worst, y)

    def _correct(self, y: np.ndarray) -> np.ndarray:
        return y.copy()

    def _flip_gains(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``c_j``: the change of ``−<rep(y) − rep(σ), t>`` when coordinate ``j`` is flipped."""
        return -2.0 * (2.0 * y - 1.0) * t / np.sqrt(self.m)

    def _best_flips(self, c: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The flip set attaining the maximum of eq. (2), as a boolean mask."""
        if self.loss_name == "hamming":
            return 1.0 + c > 0
        if self.loss_name == "subset_01":
            if np.any(c > 0):
                return c > 0
            flips = np.zeros(self.m, dtype=bool)
            best = int(np.argmax(c))
            flips[best] = 1.0 + c[best] > 0
            return flips
        inside = np.flatnonzero(y == 1)
        outside = np.flatnonzero(y == 0)
        order = inside[np.argsort(-c[inside], kind="stable")]
        misses = np.arange(len(inside) + 1)
        totals = np.r_[0.0, np.cumsum(c[order])]
        totals += np.maximum(c[outside][None, :] + misses[:, None], 0.0).sum(axis=1)
        a = int(np.argmax(totals))
        flips = np.zeros(self.m, dtype=bool)
        flips[order[:a]] = True
        flips[outside] = c[outside] + a > 0
        return flips

    def _psi(self, t: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
        c = self._flip_gains(t, y)
        flips = self._best_flips(c, y)
        sigma = np.where(flips, 1 - y, y)
        return self._loss(sigma, y) + float(c[flips].sum()), sigma

    def _margin(self, t: np.ndarray, y: np.ndarray) -> float:
        if self.loss_name == "error_set_size":
            # Σ_y = {σ ⊆ y} ∪ {σ ⊇ y} has 2^|y| + 2^(m−|y|) − 1 members, while the maximizers
            # of eq. (1) form a product set of 2^(number of zero scores) members: they can
            # coincide only when y is empty or full (Σ_y = everything, t = 0).
            trivial = not y.any() or y.all()
            return float("inf") if trivial and not t.any() else 0.0
        signed = (2.0 * y - 1.0) * t
        if np.any(signed <= 0):
            return 0.0
        return float(2.0 * signed.min() / np.sqrt(self.m))

    def _psi_expression(self, t_expr: cp.Expression, y: np.ndarray
                        ) -> tuple[cp.Expression, list[cp.Constraint]]:
        c = cp.multiply(-2.0 * (2.0 * y - 1.0) / np.sqrt(self.m), t_expr)
        if self.loss_name == "hamming":
            return cp.sum(cp.pos(1.0 + c)), []
        if self.loss_name == "subset_01":
            # M = max{c·u : 0 <= u <= 1, Σu >= 1} (a totally unimodular LP, so its optimum is
            # a non-empty set); by LP duality M = min_{μ >= 0} Σ_j (c_j + μ)₊ − μ.
            mu = cp.Variable(nonneg=True)
            return cp.pos(1.0 + cp.sum(cp.pos(c + mu)) - mu), []
        inside = np.flatnonzero(y == 1)
        outside = np.flatnonzero(y == 0)
        terms = []
        for a in range(len(inside) + 1):
            term = cp.sum(cp.pos(c[outside] + a)) if len(outside) else cp.Constant(0.0)
            if a:
                term = term + cp.sum_largest(c[inside], a)
            terms.append(term)
        return cp.max(cp.hstack(terms)), []

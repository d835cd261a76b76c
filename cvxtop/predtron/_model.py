"""The linear score model of Predtron and the checks of its input batches.

Jain et al. 2015 Section 2.3: a vector-input problem scores ``t = W x`` with ``W ∈ R^{d×p}``; a
matrix-input problem (subset ranking) scores ``t = X w``. Both are held here as one matrix
``V`` of shape ``(p, c)`` acting on the *rows* of an input: a vector ``x`` is one row
(``c = d``, ``t = x V``, ``V = Wᵀ``) and a matrix ``X`` has one row per document
(``c = 1``, ``t = X V``, ``V = w``). The gradient of ``<δ, t>`` with respect to ``V`` is then
``rowsᵀ δ`` with ``δ`` shaped like ``rows V``, the rank-one update of Algorithm 1.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._validation import check_array3, check_matrix
from .base import Problem

__all__ = ["as_rows", "n_outputs", "check_batch", "coef_view", "check_problem", "mean_loss"]


def check_problem(problem: Any) -> Problem:
    """Check that ``problem`` is a Predtron :class:`~cvxtop.predtron.base.Problem`."""
    if not isinstance(problem, Problem):
        raise TypeError("problem must be a cvxtop.predtron problem (Binary(), Multiclass(m), "
                        f"...), got {type(problem).__name__}")
    return problem


def n_outputs(problem: Problem) -> int:
    """Columns ``c`` of ``V``: ``d`` for vector inputs, 1 for matrix inputs."""
    return problem.dim if problem.input_kind == "vector" else 1


def as_rows(problem: Problem, x: np.ndarray) -> np.ndarray:
    """One input as a matrix of rows: ``(1, p)`` for a vector, ``(m, p0)`` for a matrix."""
    return x[None, :] if problem.input_kind == "vector" else x


def check_batch(problem: Problem, X: Any, y: Any, n_features: int | None = None,
                name: str = "X") -> tuple[np.ndarray, np.ndarray | None]:
    """Validate a batch of inputs (and labels, unless ``y`` is None).

    Vector inputs: ``X`` of shape ``(n, p)``; matrix inputs: ``(n, m, p0)`` with ``m`` the
    problem's list length. ``n_features`` (``p`` or ``p0``), when given, must match.
    """
    if problem.input_kind == "vector":
        X = check_matrix(X, name)
    else:
        X = check_array3(X, name)
        if X.shape[1] != problem.dim:
            raise ValueError(f"{name} must have shape (n, {problem.dim}, p0): {problem.dim} "
                             f"documents per input, got shape {X.shape}")
    if n_features is not None and X.shape[-1] != n_features:
        raise ValueError(f"{name} has {X.shape[-1]} features per row, but the model was "
                         f"started with {n_features}")
    Y = None if y is None else problem.check_labels(y, len(X), "y")
    return X, Y


def coef_view(problem: Problem, V: np.ndarray) -> np.ndarray:
    """The public weights as a view of ``V``: ``W`` of shape ``(d, p)``, or ``w`` of ``(p0,)``."""
    return V.T if problem.input_kind == "vector" else V[:, 0]


def mean_loss(problem: Problem, scores: Iterable[np.ndarray], Y: np.ndarray) -> float:
    """Mean of ``L(t, y)`` over score vectors and labels, ties broken against the label."""
    return float(np.mean([problem._worst_loss(t, y) for t, y in zip(scores, Y)]))

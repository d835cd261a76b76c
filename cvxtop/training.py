"""Training from a data file, as ``cvxtop fit`` does: read, split, scale, fit, evaluate, save."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.model_selection import GroupShuffleSplit, train_test_split

from ._validation import check_fraction, check_labels, check_matrix
from .estimators import TopRanker
from .io import read_labeled_features
from .model_io import SavedRanker, save_ranker
from .report import evaluate_scores

__all__ = ["fit_from_file", "split_train_test", "metric_cutoff"]


def metric_cutoff(k: int | float, y: np.ndarray) -> int:
    """The int cut-off used to report metrics: ``k``, or ``ceil(κ·n₊)`` for a float κ."""
    if isinstance(k, float):
        return max(1, math.ceil(k * int(np.sum(y))))
    return int(k)


def split_train_test(X: np.ndarray, y: np.ndarray, groups: np.ndarray | None,
                     test_size: float, seed: int):
    """Stratified split, or a split by whole groups when there are groups."""
    test_size = check_fraction(test_size, "test_size")
    if groups is None:
        parts = train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)
        return parts[0], parts[1], parts[2], parts[3], None, None
    splitter = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    tr, te = next(splitter.split(X, y, groups))
    return X[tr], X[te], y[tr], y[te], groups[tr], groups[te]


def fit_from_file(path: str, *, surrogate: str = "prec@k-avg", k: int | float = 0.25,
                  C: float = 1.0, solver: str = "exact", engine: str = "auto",
                  epochs: int = 25, batch_size: int = 500, label_column: str | None = None,
                  drop: tuple[str, ...] = (),
                  positive: str | None = None, standardize: bool = False,
                  test_size: float = 0.0, seed: int = 0, tau: float = 0.05,
                  model_path: str | None = None, progress: bool = False) -> dict[str, Any]:
    """Train :class:`~cvxtop.TopRanker` on a file and return a report (a dict of dicts).

    The report has ``"training"`` (what was fitted, the objective, the certified gap and
    the time), ``"train"`` (metrics on the training items) and, with ``test_size > 0``,
    ``"test"`` (metrics on the held-out items).
    """
    data = read_labeled_features(path, positive=positive, label_column=label_column,
                                 drop=drop)
    X = check_matrix(data.X, "X")
    y = check_labels(data.y, "y (the labels of the file)")
    groups = data.groups
    if test_size:
        X_tr, X_te, y_tr, y_te, g_tr, g_te = split_train_test(X, y, groups, test_size, seed)
    else:
        X_tr, y_tr, g_tr, X_te = X, y, groups, None
    mean = X_tr.mean(axis=0) if standardize else np.zeros(X.shape[1])
    scale = X_tr.std(axis=0) if standardize else np.ones(X.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    model = TopRanker(surrogate, k=k, C=C, solver=solver, engine=engine, epochs=epochs,
                      batch_size=batch_size, random_state=seed, verbose=progress)
    model.fit((X_tr - mean) / scale, y_tr, groups=g_tr)
    training = {
        "data": str(path), "items": len(y_tr), "relevant": int(y_tr.sum()),
        "features": X.shape[1], "surrogate": surrogate, "k": k, "C": C, "solver": solver,
        "engine": model.engine_, "objective": model.objective_,
        "certified gap": "none" if model.gap_ is None else f"{model.gap_:.1e}",
        "status": model.status_, "iterations": model.n_iter_,
    }
    report: dict[str, Any] = {"training": training}
    saved = SavedRanker(model.coef_, mean, scale, {key: str(v) for key, v in training.items()})
    for part, Xp, yp, gp in [("train", X_tr, y_tr, g_tr)] + (
            [("test", X_te, y_te, g_te)] if X_te is not None else []):
        report[part] = evaluate_scores(yp, saved.decision_function(Xp),
                                       k=metric_cutoff(k, yp), tau=tau, groups=gp)
    if model_path:
        save_ranker(model_path, saved)
    return report

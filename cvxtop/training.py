"""Training from a data file, as ``cvxtop fit`` does: read, split, scale, fit, evaluate, save."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.model_selection import GroupShuffleSplit, train_test_split

from ._validation import check_features, check_fraction, check_labels, check_matrix, is_sparse
from .cutoff import is_fraction, prec_cutoff, tau_cutoff
from .estimators import PARAMETERS, TopRanker
from .io import read_labeled_features, read_labels
from .model_io import SavedModel, save_model
from .report import evaluate_scores

__all__ = ["fit_from_file", "aatp_from_file", "split_train_test", "metric_cutoff",
           "require_rankable"]


def metric_cutoff(k: int | float, y: np.ndarray) -> int:
    """The int cut-off used to report metrics: ``k``, or ``ceil(κ·n₊)`` for a float κ
    (the rule training uses, :func:`cvxtop.cutoff.prec_cutoff`)."""
    if is_fraction(k):
        return prec_cutoff(k, int(np.sum(y)))
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


def require_rankable(y: np.ndarray, path: str) -> None:
    """Refuse a fit that cannot mean anything: fewer than two items, or one class only."""
    n, n_pos = len(y), int(np.sum(y))
    if n < 2:
        raise ValueError(f"{path}: {n} item; a ranking needs at least two")
    if n_pos in (0, n):
        kind = "relevant" if n_pos else "irrelevant"
        raise ValueError(f"{path}: the {n} items are all {kind}; a ranking model "
                         "needs relevant and irrelevant items (check --label-column and "
                         "--positive)")


def fit_from_file(path: str, *, surrogate: str = "prec@k-avg", k: int | float = 0.25,
                  C: float = 1.0, solver: str = "exact", engine: str = "auto",
                  epochs: int | str = "auto", batch_size: int | str = "auto",
                  label_column: str | None = None,
                  drop: tuple[str, ...] = (),
                  positive: str | None = None, standardize: bool = False,
                  test_size: float = 0.0, seed: int = 0, tau: float = 0.05,
                  model_path: str | None = None, progress: bool = False,
                  group_column: str | None = None, pooled: bool = False,
                  skip_degenerate_groups: bool = False) -> dict[str, Any]:
    """Train :class:`~cvxtop.TopRanker` on a file and return a report (a dict of dicts).

    The columns are chosen as :func:`cvxtop.io.read_labeled_features` says (one label
    column and at most one list-id column, by name or given); with list ids the loss and
    the metrics are means over the lists, unless ``pooled`` (all items one list; the id
    column is still no feature); ``skip_degenerate_groups`` leaves the lists on which the
    surrogate is undefined (a query without a relevant item) out of the loss, as
    ``TopRanker``'s parameter does. The report has ``"training"`` (what was fitted, from
    which columns, the objective, the certified gap and the time), ``"train"`` (metrics on
    the training items) and, with ``test_size > 0``, ``"test"`` (metrics on the held-out
    items).
    """
    check_fraction(tau, "tau")
    data = read_labeled_features(path, positive=positive, label_column=label_column,
                                 drop=drop, group_column=group_column)
    X = check_features(data.X, "X")
    if standardize and is_sparse(X):
        raise ValueError(f"{path}: standardize needs dense features (centering a sparse matrix "
                         "fills it in); scale the features of a sparse file beforehand")
    y = check_labels(data.y, "y (the labels of the file)")
    require_rankable(y, path)
    groups = None if pooled else data.groups
    if test_size:
        X_tr, X_te, y_tr, y_te, g_tr, g_te = split_train_test(X, y, groups, test_size, seed)
    else:
        X_tr, y_tr, g_tr, X_te = X, y, groups, None
    mean, scale = _standardizer(X_tr, standardize)
    shuffled = {"random_state": seed} if PARAMETERS.reads("random_state", solver) else {}
    model = TopRanker(surrogate, k=k, C=C, solver=solver, engine=engine, epochs=epochs,
                      batch_size=batch_size, verbose=progress,
                      skip_degenerate_groups=skip_degenerate_groups, **shuffled)
    caught = _fit_and_record(model, _standardized(X_tr, mean, scale), y_tr, groups=g_tr)
    training = {
        **_training_fields(path, data, y_tr, X.shape[1],
                           None if groups is None else int(model.n_groups_), C, model,
                           model.status_),
        "surrogate": surrogate, "k": k, "cutoff": metric_cutoff(k, y_tr), "solver": solver,
        "certified_gap": None if model.gap_ is None else float(model.gap_),
        "zero_model": bool(model.zero_model_),
    }
    report: dict[str, Any] = {"training": training, "warnings": caught}
    names = list(data.feature_names) if data.feature_names else None
    saved = SavedModel(model, mean, scale, None if names is None else tuple(names), training)
    for part, Xp, yp, gp in [("train", X_tr, y_tr, g_tr)] + (
            [("test", X_te, y_te, g_te)] if X_te is not None else []):
        report[part] = evaluate_scores(yp, saved.decision_function(Xp),
                                       k=metric_cutoff(k, yp), tau=tau, groups=gp)
    if model_path:
        save_model(saved, model_path)
    return report


def _fit_and_record(model: Any, *args: Any, **kwargs: Any) -> list[str]:
    """Fit ``model`` and return the warnings the fit raised (the reports list them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(*args, **kwargs)
    return [str(w.message) for w in caught]


def _training_fields(path: str, data: Any, y_train: np.ndarray, n_features: int | None,
                     lists: int | None, C: float, model: Any, status: str) -> dict[str, Any]:
    """The fields of the ``"training"`` part that ``cvxtop fit`` and ``cvxtop aatp`` share:
    the data and its columns, the items fitted, C, the engine and its answer."""
    return {
        "data": str(path), "items": len(y_train), "relevant": int(y_train.sum()),
        "features": n_features, "index_column": data.index_column,
        "label_column": data.label_column, "group_column": data.group_column,
        "lists": lists, "C": C, "engine": model.engine_, "objective": float(model.objective_),
        "status": status, "iterations": int(model.n_iter_),
    }


def _standardizer(X_tr: np.ndarray, standardize: bool
                  ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The training part's mean and scale (constant columns keep scale 1), or
    ``(None, None)`` without standardization."""
    if not standardize:
        return None, None
    scale = X_tr.std(axis=0)
    return X_tr.mean(axis=0), np.where(scale > 0, scale, 1.0)


def _standardized(X: Any, mean: np.ndarray | None, scale: np.ndarray | None) -> Any:
    return X if mean is None else (X - mean) / scale


def aatp_from_file(path: str, *, gram: str | None = None, tau: float = 0.05, C: float = 1.0,
                   kernel: str = "linear", gamma: float | None = None,
                   label_column: str | None = None, drop: tuple[str, ...] = (),
                   positive: str | None = None, standardize: bool = False,
                   test_size: float = 0.0, seed: int = 0, model_path: str | None = None,
                   progress: bool = False, n_jobs: int | None = None,
                   gram_rtol: float | None = None, group_column: str | None = None
                   ) -> dict[str, Any]:
    """Train :class:`~cvxtop.AATP` on a file, as ``cvxtop aatp`` does; return a report.

    With ``gram`` (a ``.npy``/``.npz``/CSV file holding the n × n Gram matrix of the items
    of ``path``, in the same order) the kernel is precomputed and ``path`` only supplies
    the labels (:func:`cvxtop.io.read_labels`: a labels-only file will do); a test part is
    then scored with the test-by-train block of the matrix, and the saved model records
    its training rows (``train_rows``: indices into ``path``'s items) so that new items can
    be scored from their Gram matrix with those rows (``cvxtop predict --gram``).
    """
    from .aatp import AATP
    from .gram import check_gram_matrix
    from .io import read_matrix

    check_fraction(tau, "tau")
    if gram is not None:  # the Gram matrix holds the features' place: labels suffice
        data = read_labels(path, positive=positive, label_column=label_column,
                           group_column=group_column)
    else:
        data = read_labeled_features(path, positive=positive, label_column=label_column,
                                     drop=drop, group_column=group_column)
    y = check_labels(data.y, "y (the labels of the file)")
    require_rankable(y, path)
    index = np.arange(len(y))
    if test_size:
        tr, te = train_test_split(index, test_size=check_fraction(test_size, "test_size"),
                                  stratify=y, random_state=seed)
    else:
        tr, te = index, None
    mean = scale = train_rows = None
    if gram is not None:
        K = read_matrix(gram)
        if K.shape != (len(y), len(y)):
            raise ValueError(f"{gram}: the Gram matrix must be {len(y)} x {len(y)} to match "
                             f"the {len(y)} items of {path}, got {K.shape}")
        model = AATP(tau=tau, C=C, kernel="precomputed", verbose=progress, n_jobs=n_jobs,
                     gram_rtol=gram_rtol)
        K_train = K if te is None else K[np.ix_(tr, tr)]  # a memory map stays one
        what = f"{gram} (--gram)" if te is None else f"the training rows of {gram} (--gram)"
        caught = _fit_and_record(model, check_gram_matrix(K_train, what, gram_rtol), y[tr])
        n_features = None
        parts = [("train", K_train, tr)] + (
            [("test", K[np.ix_(te, tr)], te)] if te is not None else [])
        kernel_name = f"precomputed ({gram})"
        train_rows = tr
    else:
        X = check_matrix(data.X.toarray() if is_sparse(data.X) else data.X, "X")
        mean, scale = _standardizer(X[tr], standardize)
        Xs = _standardized(X, mean, scale)
        model = AATP(tau=tau, C=C, kernel=kernel, gamma=gamma, verbose=progress,
                     n_jobs=n_jobs, gram_rtol=gram_rtol)
        caught = _fit_and_record(model, Xs[tr], y[tr])
        n_features = X.shape[1]
        parts = [("train", Xs[tr], tr)] + ([("test", Xs[te], te)] if te is not None else [])
        kernel_name = kernel
    training = {
        **_training_fields(path, data, y[tr], n_features, None, C, model,
                           model.result_.status),
        "tau": tau, "kernel": kernel_name, "gamma": model.kernel_.gamma,
        "candidates": len(model.candidates_), "candidate": int(model.candidate_),
        "quantile": float(model.quantile_), "candidate_gap": float(model.quantile_distance_),
        "objective": float(model.objective_), "duality_gap": float(model.duality_gap_),
        "gram_rank": getattr(model, "gram_rank_", None),
    }
    ignored = [] if data.group_column is None else [
        f"column {data.group_column!r} holds list ids: AATP ranks one list, so it is left "
        "out of the features and not used"]
    report: dict[str, Any] = {"training": training, "warnings": ignored + caught}
    for part, Zp, idx in parts:
        yp = y[idx]
        report[part] = evaluate_scores(yp, model.decision_function(Zp),
                                       k=tau_cutoff(tau, len(yp)), tau=tau)
    if model_path:
        names = data.feature_names if data.feature_names and gram is None else None
        save_model(SavedModel(model, mean, scale, names, {**training, "gram": gram},
                              train_rows=train_rows), model_path)
    return report

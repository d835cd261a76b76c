"""Choosing C by cross-validation along certified paths: :class:`TopRankerCV`.

In the manner of scikit-learn's ``LogisticRegressionCV``: each fold fits the whole grid of
``Cs`` as one regularization path (``TopRanker(warm_start=True)``: the cutting plane's cuts
of the loss do not depend on C, so each fit starts from the previous one's,
:mod:`cvxtop.solvers.cut_store`), every point certified; the folds run in parallel through
:class:`joblib.Parallel` (any joblib backend, Dask's included); each fold's test part is
scored by the surrogate's own metric (``TopRanker.score``: precision@k for prec@k
surrogates, pAp@k for pAp@k ones, per list with ``groups``), and the C of the best mean
score is refitted on all the data.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GroupKFold, StratifiedKFold, check_cv
from sklearn.utils.validation import check_is_fitted

from ._validation import (check_bool, check_features, check_labels, check_n_jobs,
                          check_positive, check_positive_values, check_same_length)
from .estimators import TopRanker
from .exceptions import SolverError
from .groups import Groups
from .parameters import Param, ParameterTable, keyword_only, optional, positive_int

__all__ = ["TopRankerCV"]


def _check_Cs(value: Any, name: str) -> Any:
    """An int (that many values of C, log-spaced from 1e-4 to 1e4) or positive numbers."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return positive_int(value, name)
    return list(check_positive_values(value, name,
                                      "an int or a sequence of numbers > 0"))


def _check_cv(value: Any, name: str) -> Any:
    if value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                         and value >= 2):
        return value
    if hasattr(value, "split") or hasattr(value, "__iter__"):
        return value
    raise ValueError(f"{name} must be None, an int >= 2, a splitter or an iterable of "
                     f"(train, test) splits, got {value!r}")


def _check_scoring(value: Any, name: str) -> Any:
    if value is None or callable(value):
        return value
    raise TypeError(f"{name} must be None (the surrogate's own metric) or a callable "
                    f"scorer(estimator, X, y), got {value!r}")


#: TopRankerCV's parameters (:mod:`cvxtop.parameters`).
PARAMETERS = ParameterTable(None, (
    Param("surrogate", "a convex surrogate of `cvxtop.surrogates.SURROGATES`"),
    Param("k", "as `TopRanker`'s k"),
    Param("Cs", "int ≥ 1 (that many log-spaced C from 1e-4 to 1e4) or a sequence of C > 0",
          _check_Cs),
    Param("cv", "None (5 folds: stratified, or by list with groups), int ≥ 2, a splitter "
          "or an iterable of splits", _check_cv),
    Param("scoring", "None (the surrogate's metric, `TopRanker.score`) or a callable "
          "scorer(estimator, X, y)", _check_scoring),
    Param("tol", "None or float > 0", optional(check_positive)),
    Param("max_iter", "int ≥ 1", positive_int),
    Param("n_jobs", "None or a nonzero int (workers for the folds)", check_n_jobs),
    Param("refit", "bool", check_bool),
    Param("error_score", "a number (np.nan by default): the score of a fit that fails",
          lambda value, name: float(value)),
    Param("skip_degenerate_groups", "bool (as `TopRanker`'s)", check_bool),
))


def _fold_path(template: TopRanker, Cs: np.ndarray, X: Any, y: np.ndarray,
               groups: np.ndarray | None, train: np.ndarray, test: np.ndarray,
               scoring: Callable[..., float] | None, error_score: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """One fold: the path of a clone of ``template`` (a ``TopRanker``) over ``Cs``
    (ascending) on ``train`` (:meth:`TopRanker.fit_path`), each point scored on ``test``.
    Returns the scores, the fit seconds, the rounds, and the failures."""
    model = clone(template)
    X_test = X[test]
    g_train = None if groups is None else groups[train]
    g_test = None if groups is None else groups[test]
    scores, seconds, rounds, failures = (np.full(len(Cs), float(error_score)),
                                         np.zeros(len(Cs)), np.zeros(len(Cs), int), [])
    for j, fitted, fit_seconds in model._path_fits(X[train], y[train], Cs, g_train):
        seconds[j] = fit_seconds
        if isinstance(fitted, SolverError):
            failures.append(f"C={Cs[j]:g}: {fitted}")
            continue
        rounds[j] = fitted.n_iter_
        scores[j] = fitted.score(X_test, y[test], groups=g_test) if scoring is None \
            else scoring(fitted, X_test, y[test])
    return scores, seconds, rounds, failures


class TopRankerCV(BaseEstimator):
    """:class:`~cvxtop.TopRanker` with C chosen by cross-validation over certified paths.

    Parameters
    ----------
    surrogate, k : as :class:`~cvxtop.TopRanker` (a convex surrogate: the exact engines)
    Cs : int or sequence of float
        The values of C: an int for that many log-spaced values from 1e-4 to 1e4.
    cv : None, int, splitter or iterable of splits
        ``None`` or an int: that many folds (5 by default), stratified by label, or by
        list (:class:`~sklearn.model_selection.GroupKFold`) when ``fit`` gets ``groups``;
        a scikit-learn splitter gets ``groups`` too.
    scoring : None or callable
        ``None``: the surrogate's own metric (``TopRanker.score``, per list with groups);
        or ``scorer(estimator, X, y)``, higher is better.
    tol, max_iter : as :class:`~cvxtop.TopRanker`
    n_jobs : int or None
        Workers for the folds (:class:`joblib.Parallel`; a ``joblib.parallel_config``
        context, Dask's included, chooses where they run).
    refit : bool
        Refit :attr:`best_estimator_` on all the data at the chosen C.
    error_score : float
        The score of a fit that fails (a ``SolverError``; a ``FitFailedWarning`` says so).
    skip_degenerate_groups : bool
        As :class:`~cvxtop.TopRanker`'s: with ``groups``, every fit leaves out the lists on
        which the surrogate is undefined (a query without a relevant item) instead of
        raising; the scores leave them out either way.

    Attributes
    ----------
    Cs_ : ndarray
        The values of C, ascending.
    scores_ : ndarray of shape (n_folds, n_Cs)
        The test score of every fold at every C.
    C_ : float
        The C of the best mean score (the smallest C among ties).
    best_score_ : float
    best_estimator_ : TopRanker
        Fitted on all the data at ``C_`` (with ``refit``).
    cv_results_ : dict of arrays
        ``params``, ``param_C``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, ``split<i>_test_score``, ``mean_fit_time``, ``mean_n_iter``,
        in the layout of ``GridSearchCV.cv_results_``.
    n_splits_ : int
    """

    #: The declared parameters (:mod:`cvxtop.parameters`).
    PARAMETERS = PARAMETERS

    @keyword_only
    def __init__(self, surrogate: str = "prec@k-avg", *, k: int | float = 0.25,
                 Cs: int | Any = 13, cv: Any = None, scoring: Any = None,
                 tol: float | None = None, max_iter: int = 2000, n_jobs: int | None = None,
                 refit: bool = True, error_score: float = np.nan,
                 skip_degenerate_groups: bool = False) -> None:
        self.surrogate = surrogate
        self.k = k
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.refit = refit
        self.error_score = error_score
        self.skip_degenerate_groups = skip_degenerate_groups

    def check_params(self) -> dict[str, Any]:
        """Validate the parameters as ``fit`` does (:data:`PARAMETERS`)."""
        return PARAMETERS.check(self)

    def fit(self, X: Any, y: Any, groups: Any = None) -> "TopRankerCV":
        """Cross-validate the path over ``Cs``, then refit at the best C."""
        params = self.check_params()
        Cs = params["Cs"]
        self.Cs_ = np.sort(np.logspace(-4, 4, Cs) if isinstance(Cs, int) else np.array(Cs))
        X = check_features(X, "X")
        y = check_labels(y, "y")
        check_same_length(X=X, y=y)
        ids = None if groups is None else Groups.of(groups, len(y))
        codes = None if ids is None else ids.codes
        cv = params["cv"]
        if cv is None or isinstance(cv, (int, np.integer)):
            folds = 5 if cv is None else int(cv)
            cv = GroupKFold(folds) if codes is not None else StratifiedKFold(folds)
        splitter = check_cv(cv, y, classifier=True)
        splits = list(splitter.split(X, y, codes))
        self.n_splits_ = len(splits)
        results = Parallel(n_jobs=params["n_jobs"])(
            delayed(_fold_path)(self._ranker(params, 1.0), self.Cs_, X, y, codes, train,
                                test, params["scoring"], params["error_score"])
            for train, test in splits)
        self.scores_ = np.array([r[0] for r in results])
        fit_times = np.array([r[1] for r in results])
        n_iter = np.array([r[2] for r in results])
        failures = [f for r in results for f in r[3]]
        if failures:
            warnings.warn(f"{len(failures)} of {self.scores_.size} fits failed and score "
                          f"{params['error_score']}: {failures[0]}", FitFailedWarning,
                          stacklevel=2)
        self.cv_results_ = self._results(fit_times, n_iter)
        best = int(np.argmax(np.where(np.isnan(self.cv_results_["mean_test_score"]), -np.inf,
                                      self.cv_results_["mean_test_score"])))
        self.C_ = float(self.Cs_[best])
        self.best_score_ = float(self.cv_results_["mean_test_score"][best])
        if params["refit"]:
            self.best_estimator_ = self._ranker(params, self.C_).fit(X, y, groups)
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _ranker(self, params: dict[str, Any], C: float) -> TopRanker:
        """The ``TopRanker`` of every fit, at ``C``."""
        return TopRanker(self.surrogate, k=self.k, C=C, tol=params["tol"],
                         max_iter=params["max_iter"],
                         skip_degenerate_groups=params["skip_degenerate_groups"])

    def _results(self, fit_times: np.ndarray, n_iter: np.ndarray) -> dict[str, Any]:
        mean = self.scores_.mean(axis=0)
        order = np.argsort(-np.where(np.isnan(mean), -np.inf, mean), kind="stable")
        rank = np.empty(len(mean), dtype=np.int64)
        rank[order] = np.arange(1, len(mean) + 1)
        results: dict[str, Any] = {
            "params": [{"C": float(C)} for C in self.Cs_],
            "param_C": self.Cs_.copy(),
            "mean_test_score": mean, "std_test_score": self.scores_.std(axis=0),
            "rank_test_score": rank,
            "mean_fit_time": fit_times.mean(axis=0), "mean_n_iter": n_iter.mean(axis=0),
        }
        for i, row in enumerate(self.scores_):
            results[f"split{i}_test_score"] = row
        return results

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores of :attr:`best_estimator_`."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def score(self, X: Any, y: Any, groups: Any = None) -> float:
        """:meth:`TopRanker.score` of :attr:`best_estimator_`."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score(X, y, groups)

    @property
    def coef_(self) -> np.ndarray:
        """``best_estimator_.coef_``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.coef_

"""scikit-learn estimators: :class:`TopRanker`.

``TopRanker`` minimizes ``½‖w‖² + C·L(y, Xw)`` over linear scores (no intercept: rankings
ignore it) for any surrogate of :mod:`cvxtop.surrogates`, or, with
``kernel="precomputed"``, ``½ aᵀKa + C·L(y, Ka)`` over kernel scores. With ``groups`` the
loss is the mean over groups of the per-group surrogate (Hiranandani et al. 2020 eq. (17)).
Exact engines certify their answer; the approximate ones (perceptrons, SGD, GD) are
scored on the same full-data objective, so their distance to the optimum can be measured.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import _cvxpy, surrogates
from ._threads import single_threaded_blas
from ._validation import (check_batch_size, check_features, check_labels, check_matrix,
                          check_positive, check_same_length)
from .gram import check_gram_matrix
from .groups import Groups
from .solvers import RankingObjective, SolveResult, Stream, check_method, minimize
from .solvers.gd import STEP_RULES
from .solvers.minimize import APPROXIMATE_TOL

__all__ = ["TopRanker", "EXPECTED_FAILED_CHECKS"]

_MULTICLASS_TARGET = (
    "the check fits on targets with more than two values (0, 1, 2, ... or 1, 2); a ranker "
    "needs binary relevance labels (0/1, -1/+1 or booleans) and rejects any other value "
    "with a ValueError, as cvxtop's API requires. tests/test_estimator.py checks the same "
    "property with binary labels"
)

#: scikit-learn ``check_estimator`` checks that cannot apply to a ranker, with the reason.
#: Every other check passes, for ``kernel="linear"`` and ``kernel="precomputed"``.
EXPECTED_FAILED_CHECKS: dict[str, str] = {
    name: _MULTICLASS_TARGET
    for name in (
        "check_fit_score_takes_y",
        "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters",
        "check_estimators_fit_returns_self",
        "check_readonly_memmap_input",
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_estimators_dtypes",
        "check_dtype_object",
        "check_f_contiguous_array_estimator",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit2d_1feature",
        "check_dict_unchanged",
        "check_fit2d_predict1d",
        "check_estimator_sparse_tag",
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
    )
}
EXPECTED_FAILED_CHECKS["check_fit2d_1sample"] = (
    "with kernel='precomputed' the check's one-sample input reaches the label check first, "
    "and its target has a value other than 0/1; the linear ranker passes it"
)


class TopRanker(BaseEstimator):
    """Linear or kernel ranker trained on a top-of-the-list surrogate.

    Parameters
    ----------
    surrogate : str
        A name of :func:`cvxtop.surrogates.available`, e.g. ``"prec@k-avg"``.
    k : int or float
        Cut-off. For the prec@k family a float κ in (0, 1] means ``k = ceil(κ·n₊)``
        (prec@κ, per group with ``groups``, per batch for the mini-batch methods);
        pAp@k surrogates need an int.
    C : float
        Weight of the loss (> 0).
    solver : {"exact", "gd", "sgd", "perceptron"}
        ``"exact"``: a certified optimum (convex surrogates), or for the ramp surrogates the
        convex-concave procedure started from the avg solution (a local method).
        ``"gd"``: full-batch subgradient descent (:func:`cvxtop.solvers.solve_gd`).
        ``"sgd"``: mini-batch stochastic subgradient descent (SGD@k-avg of Kar et al. 2015
        Algorithm 3 for ``prec@k-avg``; 1PMB for ``prec@k-struct``).
        ``"perceptron"``: Perceptron@k-avg or Perceptron@k-max (Kar et al. 2015 Algorithms
        1-2) for ``prec@k-avg`` or ``prec@k-max``.
    kernel : {"linear", "precomputed"}
        With ``"precomputed"``, ``fit(K, y)`` takes the training Gram matrix and
        ``decision_function(K_test_train)`` the test-by-train Gram matrix.
    engine : {"auto", "direct", "cutting-plane"}
        Exact engine. ``"direct"`` solves one cvxpy program and certifies its answer with
        the cutting plane warm-started there; ``"cutting-plane"`` runs the 1-slack
        cutting-plane method (OCAS steps) from zero. Both report a rigorous dual bound.
        ``"auto"`` uses the direct engine for small problems and the cutting plane above
        (:func:`cvxtop.solvers.exact_method`).
    cvx_solver : {"CLARABEL", "OSQP", "ECOS"}
        The cvxpy solver of the direct program or of the cutting-plane master.
    solver_options : dict, optional
        Passed to cvxpy's ``solve`` (e.g. ``{"max_iter": 500}``).
    tol : float or None
        Relative optimality gap of the answer, certified by a lower bound. The exact engines
        stop there (default ``1e-6``). GD and SGD (default ``0.01``) are certified after
        their run by cutting-plane rounds warm-started at their model
        (:mod:`cvxtop.solvers.certificate`), and SGD stops at the first checkpoint epoch
        (1, 2, 4, ...) certified within ``tol`` (:mod:`cvxtop.solvers.checkpoints`); when
        the model is not within ``tol`` a ``sklearn.exceptions.ConvergenceWarning`` says how
        far it is, and ``status_`` is ``"completed"`` instead of ``"converged"``. The
        perceptrons, which do not minimize this objective, report ``gap_`` without a target
        unless ``tol`` is given. With SGD's ``early_stopping`` it is also the per-epoch
        threshold of that rule.
    max_iter : int
        Cutting-plane rounds, convex-concave steps or GD steps allowed.
    accept_inaccurate : bool
        Return an uncertified or inaccurate exact solution with a warning instead of
        raising :class:`cvxtop.SolverError`.
    skip_degenerate_groups : bool
        With ``groups``: leave out groups where the surrogate is undefined (no relevant
        item, too few items for ``k``) and count them in ``n_groups_skipped_``, instead of
        raising ``ValueError``.
    batch_size : int or "auto"
        Mini-batch size of the perceptrons and SGD (with groups, one group per batch).
        ``"auto"`` (the default) is 500, except for SGD's line-search rule:
        ``max(500, ceil(n/64))``, so that large data sets are split into 64 batches
        (:func:`cvxtop.solvers.minimize.resolve_batch_size`).
    epochs : int
        Passes over the data of the perceptrons and SGD.
    shuffle : bool
        Whether the perceptrons and SGD randomize their mini-batches.
    random_state : int, numpy.random.Generator or None
        Seed of that randomization.
    learning_rate : {"auto", "line-search", "inverse", "sqrt"}
        Step rule of GD and SGD: ``"line-search"`` (the default, ``"auto"``) takes the step
        that maximizes the dual (Frank-Wolfe; block-coordinate for SGD), ``"inverse"`` is
        ``1/t`` and ``"sqrt"`` is ``eta0/√t``.
    eta0 : float
        Scale of the ``"sqrt"`` steps.
    average : bool
        SGD with the ``"inverse"`` or ``"sqrt"`` rule returns an average of its iterates
        instead of the last one: the uniform average of Algorithm 3 for ``"sqrt"``, the
        average weighted by t for ``"inverse"``.
    radius : float, optional
        SGD only: minimize the surrogate alone over the ball ``‖w‖ <= radius`` (the paper's
        projected form) instead of the regularized objective.
    early_stopping : bool
        SGD checks a stopping rule after every epoch: with ``"line-search"``, the certified
        duality gap of the problem split into batches is at most ``tol``; with the other
        rules, the full objective improved by less than ``tol`` (relative).
    certify : bool
        GD, SGD and the perceptrons: certify the model's gap after the run (the default;
        see ``tol``). ``False`` skips the certificate's cutting-plane rounds (to time a
        method alone); ``gap_`` is then set only where the method certifies itself.
    warm_start : bool
        Start the cutting-plane engine from the previous fit's solution (linear kernel, same
        number of features), e.g. along a path of C values.
    verbose : bool
        Show a tqdm progress bar.
    gram_rtol : float or None
        With ``kernel="precomputed"``: eigenvalues of the Gram matrix within
        ``gram_rtol · λ_max`` of zero are rounding (left out of the factor; one below
        ``−gram_rtol · λ_max`` makes the matrix not PSD). ``None``: a tolerance that follows
        the matrix's dtype (:mod:`cvxtop.gram`).

    Attributes
    ----------
    coef_ : array of shape (n_features,)
        Linear weights (linear kernel).
    dual_coef_ : array of shape (n_train,)
        Kernel weights ``a`` with scores ``K a`` (precomputed kernel).
    objective_ : float
        ``½‖w‖² + C·L`` at the solution, evaluated exactly on the full training data,
        whatever the solver optimized internally.
    gap_ : float or None
        Certified relative optimality gap ``(objective_ − lower_bound_)/|objective_|``: of
        the exact engines, and of every approximate fit of a convex surrogate (settled to
        ``tol`` by the certificate, or its bound after the certificate's rounds); ``None``
        for non-convex surrogates and SGD's projected form (``radius``).
    lower_bound_ : float or None
        A rigorous lower bound on the optimal value, when available.
    status_ : str
    engine_ : str
    n_iter_ : int
        Cutting-plane rounds, solver iterations, GD steps or epochs.
    mistakes_ : int
        Perceptrons: the cumulative prec@k loss Δ_T^C over the batches seen.
    epoch_times_ : array of shape (n_iter_,)
        Perceptrons and SGD: wall-clock seconds of each epoch of ``fit`` (not set by
        ``partial_fit``), leaving out set-up (validation, the one-time gather of a shuffled
        partition) and the final objective; with ``early_stopping`` it includes the
        per-epoch stopping test.
    n_groups_ : int
        Number of lists (groups) in the loss.
    n_groups_skipped_ : int
    gram_rank_ : int
        With ``kernel="precomputed"``: the numerical rank of the Gram matrix, the number of
        factor columns the solvers work with.
    """

    def __init__(self, surrogate: str = "prec@k-avg", k: int | float = 0.25, C: float = 1.0,
                 solver: str = "exact", kernel: str = "linear", engine: str = "auto",
                 cvx_solver: str = "CLARABEL", solver_options: dict[str, Any] | None = None,
                 tol: float | None = None, max_iter: int = 2000,
                 accept_inaccurate: bool = False,
                 skip_degenerate_groups: bool = False, batch_size: int | str = "auto",
                 epochs: int = 25, shuffle: bool = True, random_state: Any = None,
                 learning_rate: str = "auto", eta0: float = 1.0, average: bool = True,
                 radius: float | None = None, early_stopping: bool = False,
                 certify: bool = True, warm_start: bool = False, verbose: bool = False,
                 gram_rtol: float | None = None) -> None:
        self.surrogate = surrogate
        self.k = k
        self.C = C
        self.solver = solver
        self.kernel = kernel
        self.engine = engine
        self.cvx_solver = cvx_solver
        self.solver_options = solver_options
        self.tol = tol
        self.max_iter = max_iter
        self.accept_inaccurate = accept_inaccurate
        self.skip_degenerate_groups = skip_degenerate_groups
        self.batch_size = batch_size
        self.epochs = epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.average = average
        self.radius = radius
        self.early_stopping = early_stopping
        self.certify = certify
        self.warm_start = warm_start
        self.verbose = verbose
        self.gram_rtol = gram_rtol

    # ---- scikit-learn plumbing ------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel == "linear"
        return tags

    def _check_params(self) -> None:
        choices = [("solver", ("exact", "gd", "sgd", "perceptron")),
                   ("kernel", ("linear", "precomputed")),
                   ("engine", ("auto", "direct", "cutting-plane")),
                   ("cvx_solver", _cvxpy.SOLVERS),
                   ("learning_rate", ("auto",) + STEP_RULES)]
        for name, allowed in choices:
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        for name in ("C", "eta0"):
            check_positive(getattr(self, name), name)
        if self.tol is not None:
            check_positive(self.tol, "tol")
        if self.radius is not None:
            check_positive(self.radius, "radius")
            if self.solver != "sgd":
                raise ValueError("radius (the projected form) applies to solver='sgd' only, "
                                 f"not {self.solver!r}")
        for name in ("max_iter", "epochs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        check_batch_size(self.batch_size)

    def _tol(self) -> float | None:
        """``tol``, or its default for the solver: ``1e-6`` for the exact engines,
        :data:`~cvxtop.solvers.APPROXIMATE_TOL` for GD and SGD, and none for the perceptrons
        (their gap is reported without a target)."""
        if self.tol is not None:
            return float(self.tol)
        return {"exact": 1e-6, "perceptron": None}.get(self.solver, APPROXIMATE_TOL)

    def _learning_rate(self) -> str:
        return "line-search" if self.learning_rate == "auto" else self.learning_rate

    def _method_and_options(self, surrogate, n_features: int) -> tuple[str, dict[str, Any]]:
        """The :func:`cvxtop.solvers.minimize` method and options of these parameters."""
        progress = bool(self.verbose)
        if self.solver in ("sgd", "perceptron"):
            options = {"batch_size": self.batch_size, "epochs": self.epochs,
                       "shuffle": self.shuffle, "random_state": self.random_state,
                       "tol": self._tol(), "certify": self.certify, "progress": progress}
            if self.solver == "sgd":
                options.update(learning_rate=self._learning_rate(), eta0=self.eta0,
                               average=self.average, radius=self.radius,
                               early_stopping=self.early_stopping)
            return self.solver, options
        if self.solver == "gd":
            return "gd", {"learning_rate": self._learning_rate(), "eta0": self.eta0,
                          "max_iter": self.max_iter, "tol": self._tol(), "certify": self.certify,
                          "progress": progress}
        options = {"tol": self._tol(), "max_iter": self.max_iter, "cvx_solver": self.cvx_solver,
                   "solver_options": self.solver_options,
                   "accept_inaccurate": self.accept_inaccurate, "progress": progress}
        if not surrogate.convex:
            return "dca", {**options, "start_method": self.engine}
        previous = getattr(self, "coef_", None)
        if self.engine == "cutting-plane" and self.warm_start and self.kernel == "linear" \
                and previous is not None and previous.shape == (n_features,):
            options["w0"] = previous
        return self.engine, options

    def _features(self, X: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """The training features ``Z`` and, for a precomputed kernel, the map β ↦ a."""
        if self.kernel == "precomputed":
            factor = check_gram_matrix(X, "X (the precomputed Gram matrix)",
                                       self.gram_rtol).factor()
            self.gram_rank_ = factor.rank
            return factor.F, factor.dual_map
        return check_features(X, "X"), None

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X: Any, y: Any, groups: Any = None) -> "TopRanker":
        """Train on ``(X, y)``; see the class docstring.

        Parameters
        ----------
        X : array of shape (n, d) (a memory map works), or the (n, n) training Gram matrix
            with ``kernel="precomputed"``
        y : array of shape (n,), binary labels (1 = relevant)
        groups : array of shape (n,), optional
            A list id per item (user, query): the loss becomes the mean over lists.
        """
        self._check_params()
        # a later partial_fit starts a new stream; attributes of another solver's fit go
        for stale in ("_stream", "mistakes_", "n_batches_skipped_", "epoch_times_", "gram_rank_"):
            self.__dict__.pop(stale, None)
        surrogate = surrogates.get(self.surrogate, self.k)
        Z, dual_map = self._features(X)
        if y is None:
            raise ValueError("TopRanker requires y to be passed, but the target y is None")
        y = check_labels(y, "y")
        check_same_length(X=Z, y=y)
        if groups is None:
            surrogate.require_classes(y, "y")
        else:
            groups = Groups.of(groups, len(y))
        method, options = self._method_and_options(surrogate, Z.shape[1])
        check_method(surrogate, method, options)
        objective = RankingObjective(Z, y, surrogate, float(self.C), groups,
                                     self.skip_degenerate_groups)
        with single_threaded_blas():
            result = minimize(objective, method, options=options)
            self._store(result, objective, dual_map)
            self._warn_if_zero_model(result, objective)
        return self

    def _warn_if_zero_model(self, result: SolveResult, objective: RankingObjective) -> None:
        """Warn when the certified optimum is the zero model (every score tied)."""
        if result.lower_bound is None or result.status not in ("optimal", "converged"):
            return  # no bound, or one too loose to tell
        zero = objective.value(np.zeros_like(result.coef))
        tol = max(self._tol() or 0.0, result.gap or 0.0)
        if zero - result.lower_bound <= tol * max(abs(zero), 1e-12):
            warnings.warn(
                f"the optimum of {objective.surrogate.name} is the zero model (within the "
                "certified gap): every score ties, so the ranking carries no information. "
                "This happens when the relevant and irrelevant items' reduced convex hulls "
                "meet (see the docs, 'When the optimum is the zero model'); try a larger k, "
                "other features or another surrogate", UserWarning, stacklevel=3)

    def partial_fit(self, X: Any, y: Any, groups: Any = None) -> "TopRanker":
        """One online step of ``solver="sgd"`` or ``"perceptron"`` on the batch ``(X, y)``.

        For data streams (an iterable of ``(X_batch, y_batch)``): call it once per batch.
        The batch is one mini-batch (with ``groups``, each group is one). Its cut-off is
        ``ceil(κ·n₊(batch))`` for a float ``k`` and ``min(k, n₊(batch))`` for an int (the
        whole stream's ``n₊`` is unknown); batches without a cut-off are skipped and
        counted in ``n_batches_skipped_``. SGD takes ``1/t`` steps (``"inverse"``) unless
        ``learning_rate="sqrt"``, and each batch's surrogate stands for the whole loss, so
        for a prec@k surrogate on a stream of ``n`` items in batches of ``b`` pass
        ``C·n/b`` to match :meth:`fit` on the same items. ``objective_`` is not set: the
        full data are not seen at once (memory-mapped arrays, in contrast, can go to
        :meth:`fit`, which reads them batch by batch).
        """
        self._check_params()
        if self.solver not in ("sgd", "perceptron"):
            raise ValueError("partial_fit needs solver='sgd' or 'perceptron', got "
                             f"{self.solver!r}")
        if self.kernel != "linear":
            raise ValueError("partial_fit needs kernel='linear'")
        surrogate = surrogates.get(self.surrogate, self.k)
        check_method(surrogate, self.solver)
        Z = check_features(X, "X")
        y = check_labels(y, "y")
        check_same_length(X=Z, y=y)
        if not hasattr(self, "_stream"):
            rate = "inverse" if self._learning_rate() == "line-search" else self._learning_rate()
            self._stream = Stream(surrogate, self.solver, Z.shape[1], C=float(self.C),
                                  learning_rate=rate, eta0=self.eta0, average=self.average,
                                  radius=self.radius)
            self.n_features_in_ = Z.shape[1]
        with single_threaded_blas():
            self._stream.partial_fit(Z, y, groups)
        self.coef_ = self._stream.coef
        self.n_batches_skipped_ = self._stream.n_batches_skipped
        if self.solver == "perceptron":
            self.mistakes_ = self._stream.mistakes
        return self

    def _store(self, result: SolveResult, objective: RankingObjective,
               dual_map: np.ndarray | None) -> None:
        if dual_map is not None:
            self.dual_coef_ = dual_map @ result.coef
        else:
            self.coef_ = result.coef
        # columns of X: the features, or one per training item for a precomputed kernel
        self.n_features_in_ = objective.Z.shape[1] if dual_map is None else len(objective.y)
        self.objective_ = result.objective
        self.gap_ = result.gap
        self.lower_bound_ = result.lower_bound
        self.status_ = result.status
        self.engine_ = result.method
        self.n_iter_ = result.n_iter
        if result.epoch_times is not None:
            self.epoch_times_ = result.epoch_times
        if result.mistakes is not None:
            self.mistakes_ = result.mistakes
        if result.n_batches_skipped is not None:
            self.n_batches_skipped_ = result.n_batches_skipped
        self.n_groups_ = objective.n_groups
        self.n_groups_skipped_ = objective.n_skipped

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores ``X @ coef_`` (or ``K_test_train @ dual_coef_`` for a precomputed kernel)."""
        check_is_fitted(self)
        name = "X (the test-by-train Gram matrix)" if self.kernel == "precomputed" else "X"
        Z = check_matrix(X, name) if self.kernel == "precomputed" else check_features(X, name)
        if Z.shape[1] != self.n_features_in_:
            raise ValueError(f"{name} has {Z.shape[1]} columns but the model was fitted with "
                             f"{self.n_features_in_}")
        return Z @ (self.dual_coef_ if self.kernel == "precomputed" else self.coef_)

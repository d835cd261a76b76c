"""scikit-learn estimators: :class:`TopRanker`.

``TopRanker`` minimizes ``½‖w‖² + C·L(y, Xw)`` over linear scores (no intercept: rankings
ignore it) for any surrogate of :mod:`cvxtop.surrogates`, or, with
``kernel="precomputed"``, ``½ aᵀKa + C·L(y, Ka)`` over kernel scores. With ``groups`` the
loss is the mean over groups of the per-group surrogate (Hiranandani et al. 2020 eq. (17)).
Exact engines certify their answer; the approximate ones (perceptrons, SGD, GD) are
scored on the same full-data objective, so their distance to the optimum can be measured.
"""

from __future__ import annotations

import copy
import time
import warnings
from typing import Any, Iterator

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import ClassifierTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _cvxpy, metrics, surrogates
from ._threads import single_threaded_blas
from ._validation import (check_bool, check_count_or_auto, check_options_mapping,
                          check_random_state, check_features, check_labels, check_matrix,
                          check_positive, check_positive_values, check_same_length)
from .parameters import Param, ParameterTable, choice, keyword_only, optional, positive_int
from .gram import check_gram_matrix
from .groups import Groups
from .exceptions import SolverError
from .solvers import RankingObjective, SolveResult, Stream, check_method, minimize
from .solvers.gaps import within
from .solvers.gd import STEP_RULES
from .solvers.minimize import APPROXIMATE_TOL
from .solvers.path import solve_path

__all__ = ["TopRanker", "EXPECTED_FAILED_CHECKS", "expected_failed_checks",
           "documented_failed_checks"]

_MULTICLASS_TARGET = (
    "the check fits on targets whose values are not 0/1, -1/+1 or booleans (1 and 2, 5 and "
    "6); a ranker needs binary relevance labels and rejects other values with a ValueError, "
    "as cvxtop's API requires (pos_label names the relevant value of other labels). "
    "tests/test_estimator.py checks the same properties with binary labels"
)

#: scikit-learn ``check_estimator`` checks that cannot apply to the linear ranker
#: (``TopRanker()``), with the reason; every other check passes. The list is exact: a test
#: asserts that each of these fails and nothing else does.
EXPECTED_FAILED_CHECKS: dict[str, str] = {
    name: _MULTICLASS_TARGET
    for name in ("check_estimators_dtypes", "check_fit2d_1feature")
}

#: The further checks that fail with ``kernel="precomputed"``: they pass targets with other
#: values than 0/1 (5 and 6, or one sample labelled 37), rejected as above.
PRECOMPUTED_EXPECTED_FAILED_CHECKS: dict[str, str] = {
    name: _MULTICLASS_TARGET
    for name in ("check_dict_unchanged", "check_dont_overwrite_parameters",
                 "check_f_contiguous_array_estimator", "check_fit2d_1sample",
                 "check_fit2d_predict1d", "check_methods_sample_order_invariance",
                 "check_methods_subset_invariance", "check_positive_only_tag_during_fit")
}


_EXACT, _APPROXIMATE = ("exact",), ("gd", "sgd", "perceptron")
_STREAMING = ("sgd", "perceptron")

#: TopRanker's parameters: what each accepts and which solver reads it; ``fit`` checks
#: them once (:mod:`cvxtop.parameters`).
PARAMETERS = ParameterTable("solver", (
    Param("surrogate", "a name of `cvxtop.surrogates.SURROGATES` (checked by "
          "`surrogates.get`)"),
    Param("k", "int ≥ 1 or float in (0, 1] (resolved against n₊ by the surrogate's rule)"),
    Param("C", "float > 0", check_positive),
    Param("solver", "`exact`, `gd`, `sgd`, `perceptron`",
          choice(("exact", "gd", "sgd", "perceptron"))),
    Param("kernel", "`linear`, `precomputed`", choice(("linear", "precomputed"))),
    Param("engine", "`auto`, `direct`, `cutting-plane`",
          choice(("auto", "direct", "cutting-plane")), _EXACT),
    Param("cvx_solver", "a cvxpy solver: " + ", ".join(f"`{s}`" for s in _cvxpy.SOLVERS),
          choice(_cvxpy.SOLVERS), _EXACT),
    Param("solver_options", "None or a mapping", optional(check_options_mapping), _EXACT),
    Param("tol", "None or float > 0", optional(check_positive)),
    Param("max_iter", "int ≥ 1", positive_int, ("exact", "gd")),
    Param("accept_inaccurate", "bool", check_bool, _EXACT),
    Param("skip_degenerate_groups", "bool", check_bool),
    Param("batch_size", "int ≥ 1 or `auto`", check_count_or_auto, _STREAMING),
    Param("epochs", "int ≥ 1 or `auto`", check_count_or_auto, _STREAMING),
    Param("shuffle", "bool", check_bool, _STREAMING),
    Param("random_state", "None, int in [0, 2³²), or a numpy generator", check_random_state,
          _STREAMING),
    Param("learning_rate", ", ".join(f"`{r}`" for r in ("auto",) + STEP_RULES),
          choice(("auto",) + STEP_RULES), ("gd", "sgd")),
    Param("eta0", "float > 0", check_positive, ("gd", "sgd")),
    Param("average", "bool", check_bool, ("sgd",)),
    Param("radius", "None or float > 0", optional(check_positive), ("sgd",),
          refuse_ignored=True),
    Param("early_stopping", "bool", check_bool, ("sgd",)),
    Param("certify", "bool", check_bool, _APPROXIMATE),
    Param("warm_start", "bool", check_bool, _EXACT),
    Param("verbose", "bool", check_bool),
    Param("gram_rtol", "None or float in (0, 1) (checked by `cvxtop.gram`)", None,
          ("precomputed",), chosen_by="kernel"),
    Param("pos_label", "None or one of the values of y"),
))


def documented_failed_checks(kernel: Any, common: dict[str, str],
                             precomputed: dict[str, str]) -> dict[str, str]:
    """An estimator's documented ``check_estimator`` exceptions: ``common``, and with
    ``kernel="precomputed"`` the ``precomputed`` ones too (the rule of both estimators)."""
    if isinstance(kernel, str) and kernel == "precomputed":
        return {**common, **precomputed}
    return dict(common)


def expected_failed_checks(estimator: "TopRanker") -> dict[str, str]:
    """The documented ``check_estimator`` exceptions of this configuration (pass it as
    ``expected_failed_checks`` to :func:`sklearn.utils.estimator_checks.check_estimator`
    or ``parametrize_with_checks``)."""
    return documented_failed_checks(estimator.kernel, EXPECTED_FAILED_CHECKS,
                                    PRECOMPUTED_EXPECTED_FAILED_CHECKS)


def _warn_zero_model(which: str) -> None:
    """``which``: "the fit of <surrogate> is", or the fits of a path that are."""
    warnings.warn(
        f"{which} the zero model (every coefficient is zero, or the zero "
        "model is optimal within the certified gap): every score ties, so the ranking "
        "carries no information. A smaller or larger C does not change this; a larger k, "
        "prec@k-struct or a pAp@k surrogate, or other features may (docs: 'When the optimum "
        "is the zero model')", UserWarning, stacklevel=3)


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
        ``"auto"`` (the default) is 500, except for SGD's line-search rule: the whole list
        (one block) up to 100,000 items and for pAp@k, whose ``k`` irrelevant items are the
        list's top ``k`` and do not split into batches; above, ``max(500, ceil(n/64))``, so
        that large data sets are split into 64 batches
        (:func:`cvxtop.solvers.minimize.resolve_batch_size`).
    epochs : int or "auto"
        Passes over the data of the perceptrons and SGD. On one block, SGD's line-search
        epochs are rounds of the cutting plane (:mod:`cvxtop.solvers.one_block`), each
        certifying its gap, and the run stops at the first within ``tol``. ``"auto"`` (the
        default) is 50 passes, and up to 1,000 rounds on one block (they stop at ``tol``:
        on the benchmark's grid of four data sets, six surrogates and C from 0.01 to 10,
        a few to 400 of them).
    shuffle : bool
        Whether the perceptrons and SGD randomize their mini-batches.
    random_state : int, numpy.random.Generator or None
        Seed of that randomization.
    learning_rate : {"auto", "line-search", "inverse", "sqrt"}
        Step rule of GD and SGD: ``"line-search"`` (the default, ``"auto"``) takes the step
        that maximizes the dual (Frank-Wolfe; for SGD multi-plane block-coordinate, or the
        cutting plane's rounds on one block),
        ``"inverse"`` is ``1/t`` and ``"sqrt"`` is ``eta0/√t``.
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
        A regularization path: the exact fit runs the cutting plane (``engine="auto"`` or
        ``"cutting-plane"``), keeps its cuts of the loss, which do not depend on ``C``, and
        the next fit on the same data (only ``C`` changed) starts from them and from the
        previous solution, each point still certified. Cuts of other data (features,
        labels, surrogate, ``k`` or lists changed) are not used; the previous solution is
        still the start when the number of features is the same (linear kernel).
        :meth:`fit_path` runs a whole path in one call, reading the data once.
    verbose : bool
        Show a tqdm progress bar.
    gram_rtol : float or None
        With ``kernel="precomputed"``: eigenvalues of the Gram matrix within
        ``gram_rtol · λ_max`` of zero are rounding (left out of the factor; one below
        ``−gram_rtol · λ_max`` makes the matrix not PSD). ``None``: a tolerance that follows
        the matrix's dtype (:mod:`cvxtop.gram`).
    pos_label : scalar or None
        The label value of a relevant item; every other value is irrelevant. ``None``: the
        labels must be 0/1, -1/+1 or booleans (1 or ``True`` relevant).

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
        Certified relative optimality gap ``(objective_ − lower_bound_)/|objective_|``, over
        at least ``½‖coef_‖²`` (larger only where prec@k-struct's negative loss cancels the
        objective to near 0: :mod:`cvxtop.solvers.gaps`): of
        the exact engines, and of every approximate fit of a convex surrogate (settled to
        ``tol`` by the certificate, or its bound after the certificate's rounds); ``None``
        for non-convex surrogates and SGD's projected form (``radius``).
    lower_bound_ : float or None
        A rigorous lower bound on the optimal value, when available.
    status_ : str
    engine_ : str
        The method that ran, an identifier (``"direct"``, ``"cutting-plane"``, ``"dca"``,
        ``"gd"``, ``"sgd"``, ``"perceptron"``; :data:`cvxtop.solvers.result.ENGINES`).
    engine_detail_ : str
        What else there is to say about it, in words (the cvxpy solver, the step rule, a
        fallback).
    n_iter_ : int
        Cutting-plane rounds, solver iterations, GD steps or epochs.
    solve_stats_ : dict
        Counts and seconds of the parts of the solve (:class:`cvxtop.solvers.SolveResult`'s
        ``stats``): for the cutting plane, its dual solves over the items, their seconds
        and active-set steps; empty for other methods.
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
    zero_model_ : bool
        Whether the fit is the zero model: every coefficient is zero, or the zero model is
        optimal within the certified gap (its objective is within ``tol`` of the lower
        bound). Every score of such a model ties (up to rounding), so its ranking carries no
        information; a ``UserWarning`` says so at fit time. C does not change this (the
        condition holds for every C); the docs ("When the optimum is the zero model") give
        the criterion and what helps: a larger ``k``, ``prec@k-struct`` or a pAp@k
        surrogate, other features.
    feature_names_in_ : array of str
        The column names of a pandas-like ``X`` with string column names.

    Notes
    -----
    :meth:`score` is the metric the surrogate stands for, at the same ``k``:
    :func:`~cvxtop.metrics.precision_at_k` for the prec@k family (a float κ resolved on
    the scored items), :func:`~cvxtop.metrics.pap_at_k` for pAp@k and
    :func:`~cvxtop.metrics.partial_auc` for ``pauc-struct``; with ``groups``, its mean
    over the lists. :func:`cvxtop.metrics.get_scorer` gives any other metric as a
    scikit-learn scorer.
    """

    #: The declared parameters (:mod:`cvxtop.parameters`).
    PARAMETERS = PARAMETERS

    @keyword_only
    def __init__(self, surrogate: str = "prec@k-avg", *, k: int | float = 0.25, C: float = 1.0,
                 solver: str = "exact", kernel: str = "linear", engine: str = "auto",
                 cvx_solver: str = "CLARABEL", solver_options: dict[str, Any] | None = None,
                 tol: float | None = None, max_iter: int = 2000,
                 accept_inaccurate: bool = False,
                 skip_degenerate_groups: bool = False, batch_size: int | str = "auto",
                 epochs: int | str = "auto", shuffle: bool = True, random_state: Any = None,
                 learning_rate: str = "auto", eta0: float = 1.0, average: bool = True,
                 radius: float | None = None, early_stopping: bool = False,
                 certify: bool = True, warm_start: bool = False, verbose: bool = False,
                 gram_rtol: float | None = None, pos_label: Any = None) -> None:
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
        self.pos_label = pos_label

    # ---- scikit-learn plumbing ------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel == "linear"
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    def _labels(self, y: Any) -> np.ndarray:
        """``y`` as 0/1 relevance: through ``pos_label`` when given, else checked binary."""
        if y is None:
            raise ValueError("TopRanker requires y to be passed, but the target y is None")
        arr = np.asarray(y)
        if self.pos_label is None:
            if arr.ndim == 1 and (arr.dtype.kind in "US" or (
                    arr.dtype == object and any(isinstance(v, str) for v in arr))):
                values = sorted(set(arr.astype(str).tolist()))[:3]
                raise TypeError(f"y must hold binary labels (0/1, -1/+1 or booleans), got "
                                f"values such as {values}: name the relevant one with "
                                "pos_label")
            return check_labels(y, "y")
        if arr.ndim != 1:
            raise ValueError(f"y must be 1-dimensional, got shape {arr.shape}")
        relevant = arr == self.pos_label
        if arr.size and not np.any(relevant):
            shown = sorted(set(arr.tolist()), key=repr)[:6]
            raise ValueError(f"pos_label={self.pos_label!r} is not among the labels of y "
                             f"(found {shown})")
        return check_labels(np.asarray(relevant, dtype=np.int64), "y")

    def check_params(self) -> dict[str, Any]:
        """Validate the parameters as ``fit`` does (:data:`PARAMETERS`): ``ValueError`` or
        ``TypeError`` naming the parameter, and an
        :class:`~cvxtop.parameters.IgnoredParameterWarning` for a parameter set that the
        chosen solver does not read. Returns the checked values."""
        return PARAMETERS.check(self)

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
        if not (self.warm_start and self.engine in ("auto", "cutting-plane")):
            return self.engine, options
        # a path: the cutting plane keeps its cuts of the loss, valid at every C, and the
        # next fit starts from them and from this fit's point (cuts of other data are not
        # used: cvxtop.solvers.cut_store.loss_key)
        options["keep_cuts"] = True
        options["cuts"] = getattr(self, "_path_cuts", None)
        previous = getattr(self, "coef_", None)
        if self.kernel == "linear" and previous is not None and previous.shape == (n_features,):
            options["w0"] = previous
        return "cutting-plane", options

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
        self.check_params()
        objective, dual_map = self._objective(X, y, groups)
        method, options = self._method_and_options(objective.surrogate, objective.Z.shape[1])
        check_method(objective.surrogate, method, options)
        with single_threaded_blas():
            result = minimize(objective, method, options=options)
            self._store(result, objective, dual_map)
        if self.zero_model_:
            _warn_zero_model(f"the fit of {objective.surrogate.name} is")
        return self

    def fit_path(self, X: Any, y: Any, Cs: Any, groups: Any = None) -> list["TopRanker"]:
        """Fit at every ``C`` of ``Cs`` along one certified regularization path.

        The solves run from the smallest ``C`` up, each starting from the last one's cuts
        of the loss and its point, as ``warm_start=True`` does between fits; the data are
        checked, factored (``kernel="precomputed"``), scaled and (with ``warm_start``, whose
        fits keep their cuts) digested, and BLAS limited to one thread, once for the whole
        path instead of once per ``C`` (:func:`cvxtop.solvers.path.solve_path`).
        Every point is certified to ``tol``; a point that is not raises
        :class:`~cvxtop.SolverError` naming its ``C`` (with ``accept_inaccurate=True`` it
        is returned with a warning, as by :meth:`fit`).

        Parameters
        ----------
        X, y, groups : as :meth:`fit`
        Cs : sequence of float
            The values of ``C`` (each > 0), in any order.

        Returns
        -------
        list of TopRanker
            Fitted copies of this estimator, one per value of ``Cs`` in the order given,
            each with its ``C`` set; this estimator itself is not changed.
        """
        values = check_positive_values(Cs, "Cs")
        fitted: list[TopRanker | None] = [None] * len(values)
        with single_threaded_blas():  # (a limit costs about a round of a small fit)
            for i, model, _ in self._path_fits(X, y, values, groups):
                if isinstance(model, SolverError):
                    raise SolverError(f"the path's fit at C={values[i]:g} failed: {model}",
                                      model.status)
                fitted[i] = model
        zero = [f"{C:g}" for C in sorted({m.C for m in fitted if m.zero_model_})]
        if zero:
            _warn_zero_model(f"the fit{'s' * (len(zero) > 1)} of {self.surrogate} at "
                             f"C = {', '.join(zero)} {'are' if len(zero) > 1 else 'is'}")
        return fitted

    def _path_fits(self, X: Any, y: Any, values: np.ndarray, groups: Any = None
                   ) -> Iterator[tuple[int, "TopRanker | SolverError", float]]:
        """The fits of :meth:`fit_path` over the checked values of C ``values``, from the
        smallest up: for each, its index in ``values``, the fitted copy or the
        :class:`~cvxtop.SolverError` of its solve, and the solve's seconds."""
        self.check_params()
        if self.solver != "exact" or self.engine == "direct":
            raise ValueError("fit_path needs solver='exact' with engine 'auto' or "
                             f"'cutting-plane', got solver={self.solver!r}, "
                             f"engine={self.engine!r}")
        template = clone(self)
        objective, dual_map = template._objective(X, y, groups)
        if not objective.surrogate.convex:
            raise ValueError(f"fit_path needs a convex surrogate: {objective.surrogate.name} "
                             "is solved by the convex-concave procedure, one C at a time")
        _, options = template._method_and_options(objective.surrogate, 0)
        options = {key: value for key, value in options.items()
                   if key not in ("cuts", "keep_cuts", "w0")}
        order = np.argsort(values, kind="stable")
        solves = solve_path(objective, values[order], options, export_cuts=self.warm_start)
        for i in order:
            started = time.perf_counter()
            result = next(solves)
            seconds = time.perf_counter() - started
            if isinstance(result, SolverError):
                yield int(i), result, seconds
                continue
            model = copy.copy(template)
            model.C = float(values[i])
            model._store(result, objective, dual_map)
            if not self.warm_start:
                model._path_cuts = None  # (kept for a later fit only with warm_start)
            yield int(i), model, seconds

    def _objective(self, X: Any, y: Any, groups: Any) -> tuple[RankingObjective,
                                                               np.ndarray | None]:
        """The training objective of ``(X, y, groups)`` at this ``C`` and the kernel's map
        β ↦ a; records the features' count and names."""
        # a later partial_fit starts a new stream; attributes of another solver's fit go
        for stale in ("_stream", "mistakes_", "n_batches_skipped_", "epoch_times_", "gram_rank_"):
            self.__dict__.pop(stale, None)
        surrogate = surrogates.get(self.surrogate, self.k)
        Z, dual_map = self._features(X)
        validate_data(self, X, skip_check_array=True, reset=True)  # feature names, count
        y = self._labels(y)
        check_same_length(X=Z, y=y)
        if groups is None:
            surrogate.require_classes(y, "y")
        else:
            groups = Groups.of(groups, len(y))
        objective = RankingObjective(Z, y, surrogate, float(self.C), groups,
                                     self.skip_degenerate_groups)
        return objective, dual_map

    def _is_zero_model(self, result: SolveResult, objective: RankingObjective) -> bool:
        """Every coefficient zero, or the zero model certified optimal within tol."""
        if not np.any(result.coef):
            return True
        if result.lower_bound is None or result.status not in ("optimal", "converged"):
            return False  # no bound, or one too loose to tell
        zero = objective.zero_value()
        tol = max(self._tol() or 0.0, result.gap or 0.0)
        return within(zero, result.lower_bound, tol, objective.C)

    def _online(self) -> bool:
        """``partial_fit`` exists for the online solvers only (``hasattr`` tells)."""
        if self.solver not in ("sgd", "perceptron"):
            raise AttributeError("partial_fit needs solver='sgd' or 'perceptron', got "
                                 f"{self.solver!r}")
        return True

    @available_if(_online)
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
        self.check_params()
        if self.kernel != "linear":
            raise ValueError("partial_fit needs kernel='linear'")
        surrogate = surrogates.get(self.surrogate, self.k)
        check_method(surrogate, self.solver)
        Z = check_features(X, "X")
        y = self._labels(y)
        check_same_length(X=Z, y=y)
        first = not hasattr(self, "_stream")
        validate_data(self, X, skip_check_array=True, reset=first)
        if first:
            rate = "inverse" if self._learning_rate() == "line-search" else self._learning_rate()
            self._stream = Stream(surrogate, self.solver, Z.shape[1], C=float(self.C),
                                  learning_rate=rate, eta0=self.eta0, average=self.average,
                                  radius=self.radius)
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
        self.objective_ = result.objective
        self.gap_ = result.gap
        self.lower_bound_ = result.lower_bound
        self.status_ = result.status
        self.engine_ = result.method
        self.engine_detail_ = result.detail
        self.n_iter_ = result.n_iter
        self.solve_stats_ = dict(result.stats)
        if result.epoch_times is not None:
            self.epoch_times_ = result.epoch_times
        if result.mistakes is not None:
            self.mistakes_ = result.mistakes
        if result.n_batches_skipped is not None:
            self.n_batches_skipped_ = result.n_batches_skipped
        self.n_groups_ = objective.n_groups
        self.n_groups_skipped_ = objective.n_skipped
        self._path_cuts = result.cuts  # for the next fit of a path (warm_start)
        self.zero_model_ = self._is_zero_model(result, objective)

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores ``X @ coef_`` (or ``K_test_train @ dual_coef_`` for a precomputed kernel)."""
        check_is_fitted(self)
        name = "X (the test-by-train Gram matrix)" if self.kernel == "precomputed" else "X"
        Z = check_matrix(X, name) if self.kernel == "precomputed" else check_features(X, name)
        validate_data(self, X, skip_check_array=True, reset=False)
        return Z @ (self.dual_coef_ if self.kernel == "precomputed" else self.coef_)

    def score(self, X: Any, y: Any, groups: Any = None) -> float:
        """The metric the surrogate stands for, at ``k``, of ``decision_function(X)``.

        :func:`~cvxtop.metrics.precision_at_k` for prec@k surrogates (a float κ means
        ``ceil(κ·n₊)`` of the scored items), :func:`~cvxtop.metrics.pap_at_k` for pAp@k and
        :func:`~cvxtop.metrics.partial_auc` for ``pauc-struct``. With ``groups`` (one list
        id per item), the mean over the lists where the metric is defined (a
        ``UserWarning`` counts the others). Higher is better, as scikit-learn's model
        selection expects.
        """
        scores = self.decision_function(X)
        y = self._labels(y)
        metric = metrics.METRICS[surrogates.get(self.surrogate, self.k).metric]
        return metric(y, scores, self.k, groups=groups, skip_degenerate=groups is not None)

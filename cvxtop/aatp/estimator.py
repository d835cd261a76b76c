"""The scikit-learn estimator :class:`AATP` (accuracy at the top, Boyd et al. 2012)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_bool,
    check_fraction,
    check_labels,
    check_matrix,
    check_min_features,
    check_min_samples,
    check_n_features,
    check_n_jobs,
    check_pairs,
    check_positive,
    check_same_length,
    reject_sparse,
    require_classes,
    require_target,
)
from ..estimators import documented_failed_checks
from ..gram import Gram, check_gram_matrix
from ..parameters import Param, ParameterTable, choice, keyword_only, optional, renamed_keyword
from .candidates import (
    SOLVERS,
    SolverPlan,
    duplicate_representatives,
    nearest_neighbour_tour,
    solve_candidates,
)
from ..solvers.scaling import feature_scale, magnitude_scale, scaled_C, unscaled
from .kernels import Kernel, make_kernel
from .problem import AATPProblem, aatp_loss, items_problem, pairs_problem
from .selection import certified_gap_bounds, score_candidate, select

__all__ = ["AATP", "EXPECTED_FAILED_CHECKS", "PRECOMPUTED_EXPECTED_FAILED_CHECKS",
           "FACTOR_MAX_RANK", "expected_failed_checks"]

#: scikit-learn ``check_estimator`` checks that cannot pass, with the reason for each.
EXPECTED_FAILED_CHECKS: dict[str, str] = {
    "check_estimators_dtypes": (
        "the check's targets take the values {1, 2}; cvxtop accepts only 0/1, -1/+1 or "
        "booleans (which value is 'relevant' must not be guessed), so it raises ValueError. "
        "float32, int32 and int64 X are tested in tests/test_aatp_estimator.py"),
    "check_fit2d_1feature": (
        "same targets {1, 2} as check_estimators_dtypes; one-feature X is tested in "
        "tests/test_aatp_estimator.py"),
}

_TARGETS_5_6 = ("with kernel='precomputed' the check's targets take the values {5, 6}, "
                "which cvxtop refuses (only 0/1, -1/+1 or booleans)")

#: Further checks that cannot pass with ``kernel="precomputed"``, with the reason for each.
PRECOMPUTED_EXPECTED_FAILED_CHECKS: dict[str, str] = {
    "check_positive_only_tag_during_fit": (
        "the check subtracts the mean from a Gram matrix, which leaves it not positive "
        "semi-definite; AATP refuses such Gram matrices by design (cvxtop.aatp.kernels)"),
    "check_dont_overwrite_parameters": _TARGETS_5_6,
    "check_dict_unchanged": _TARGETS_5_6,
    "check_f_contiguous_array_estimator": _TARGETS_5_6,
    "check_methods_sample_order_invariance": _TARGETS_5_6,
    "check_methods_subset_invariance": _TARGETS_5_6,
    "check_fit2d_predict1d": _TARGETS_5_6,
}


@dataclass(frozen=True)
class _TrainingData:
    """What a fit needs from ``X``: the kernel, rows identifying repeated points (``keys``),
    the features kept for scoring (``X_fit``), and a factor or a Gram matrix."""

    kernel: Kernel
    keys: np.ndarray
    X_fit: np.ndarray
    factor: np.ndarray | None
    gram: Gram | None
    #: the solvers see the factor divided by ``scale`` and the Gram matrix by its square,
    #: with C multiplied by it (badly scaled data; :mod:`cvxtop.solvers.scaling`)
    scale: float = 1.0

    def rescaled(self) -> "_TrainingData":
        """The same data with features of magnitude about 1 for the solvers: a power of two
        ``s`` near ``√max K(z, z)`` outside the band of :func:`magnitude_scale`."""
        if self.kernel.name == "rbf":
            return self  # entries in (0, 1]
        if self.factor is not None:
            scale = feature_scale(self.factor)
            return replace(self, factor=self.factor / scale, scale=scale) \
                if scale != 1.0 else self
        scale = magnitude_scale(float(np.sqrt(np.max(np.abs(self.gram.diagonal)))))
        if scale == 1.0:
            return self
        gram = check_gram_matrix(self.gram.rows(slice(None)) / scale ** 2, self.gram.name,
                                 self.gram.rtol)
        return replace(self, gram=gram, scale=scale)


#: ``solver="fast"`` runs the interior point on a factor ``K = F Fᵀ`` of at most this many
#: columns, and coordinate and face steps on the Gram matrix above: the interior point's
#: Newton systems cost ``O(n r²)`` and its iterations grow on degenerate data (the
#: measurements behind the bound: docs/aatp.md, "Solvers and certificates").
FACTOR_MAX_RANK = 64

#: AATP's parameters: what each accepts and which solver or kernel reads it; ``fit``
#: checks them once (:mod:`cvxtop.parameters`).
PARAMETERS = ParameterTable("solver", (
    Param("tau", "float in (0, 1)", check_fraction),
    Param("C", "float > 0", check_positive),
    Param("kernel", "`linear`, `rbf`, `precomputed`, or a callable returning the Gram "
          "matrix (checked at fit)"),
    Param("gamma", "None or float > 0", optional(check_positive), ("rbf",), chosen_by="kernel"),
    Param("solver", ", ".join(f"`{s}`" for s in SOLVERS), choice(SOLVERS)),
    Param("n_jobs", "None or a nonzero int", check_n_jobs),
    Param("verbose", "bool (a progress bar over the candidates)", check_bool),
    Param("screen", "bool", check_bool, ("fast",)),
    Param("gram_rtol", "None or float in (0, 1) (checked by `cvxtop.gram`)"),
), renamed=(("progress", "verbose"),))


def _feature_radius(problem: AATPProblem, plan: SolverPlan, factor: np.ndarray | None
                    ) -> float:
    """``max_j ‖f_j‖`` over the sample points, in the solvers' (rescaled) coordinates:
    ``√K(z_j, z_j)`` from the factor's rows or the Gram matrix's diagonal."""
    points = problem.candidates
    if factor is not None:
        return float(np.sqrt(np.max(np.einsum("ij,ij->i", factor[points], factor[points]))))
    return float(np.sqrt(max(float(np.max(plan.gram.diagonal[points])), 0.0)))


def _require_representable(problem: AATPProblem, radius: float, C: float) -> None:
    """``ValueError`` naming ``C`` where a candidate's weights ``w(α)`` in the box of Boyd
    et al. 2012 eq. (4) can reach a squared norm past float64: ``‖w(α)‖ <= 2·Σu·max‖f_j‖``
    (the bounds ``u`` in the solvers' rescaled coordinates). No solve can evaluate its
    objective there; without this check such a fit ends in a ``SolverError`` after numpy's
    overflow warnings."""
    reach = 2.0 * float(np.sum(problem.upper)) * radius
    if not np.isfinite(0.5 * reach * reach):
        raise ValueError(f"C = {C:.3g} is too large for float64: a candidate's weights can "
                         f"reach a norm of {reach:.3g}, whose square overflows; use a "
                         "smaller C (or rescale the features)")


def expected_failed_checks(estimator: "AATP") -> dict[str, str]:
    """The documented ``check_estimator`` exceptions for this configuration (pass it as
    ``expected_failed_checks`` to :func:`sklearn.utils.estimator_checks.check_estimator`
    or ``parametrize_with_checks``)."""
    return documented_failed_checks(estimator.kernel, EXPECTED_FAILED_CHECKS,
                                    PRECOMPUTED_EXPECTED_FAILED_CHECKS)


class AATP(BaseEstimator):
    """Accuracy at the top (Boyd et al. 2012).

    Learns a score ``h`` whose top τ-quantile holds as many relevant items, and as few
    others, as possible. For every sample point ``z_k`` it solves the QP of eq. (2) with
    the quantile fixed at ``h(z_k)`` (in its dual form, eq. (4), for kernels), then keeps
    the candidate whose ``h(z_k)`` is closest to the τ-quantile of its own scores, ties
    broken by the smallest objective (Section 3.2; tolerances in
    :mod:`cvxtop.aatp.selection`).

    Parameters
    ----------
    tau : float in (0, 1)
        The top quantile τ (``ceil(τ·n)`` items are at or above it).
    C : float > 0
        Weight of the hinge terms of eq. (2).
    kernel : {"linear", "rbf", "precomputed"} or callable
        ``"precomputed"``: ``fit(K_train, y)`` and ``decision_function(K_test_train)``.
        A callable ``kernel(A, B)`` returns the ``(len(A), len(B))`` Gram matrix. Every Gram
        matrix goes through the policy of :mod:`cvxtop.gram` (float32 and memory maps kept,
        symmetrized within rounding, PSD up to ``gram_rtol``).
    gamma : float > 0 or None
        RBF width, ``exp(−gamma·‖x − x'‖²)``; ``None`` means ``1/n_features``.
    solver : {"fast", "cvxpy", "cvxpy-primal"}
        ``"fast"``: numpy only; an interior-point solver on a factor ``K = F Fᵀ`` when the
        numerical rank ``r`` (the number of features of a linear kernel) is at most
        :data:`FACTOR_MAX_RANK` (:mod:`cvxtop.aatp.fast`), and coordinate and face steps on
        the Gram matrix itself otherwise, robust to nearly singular Gram matrices
        (:mod:`cvxtop.aatp.face_descent`);
        ``"cvxpy"``: eq. (4) compiled once with cvxpy (DPP) and solved by Clarabel, the
        reference; ``"cvxpy-primal"``: eq. (2) likewise. Every candidate solved is
        certified by its duality gap or :class:`cvxtop.SolverError` is raised.
    n_jobs : int or None
        Workers for the candidates, through :class:`joblib.Parallel` (``None``: one,
        unless a joblib context says otherwise; ``-1``: all). Under
        ``joblib.parallel_config(backend="dask")`` they run on a Dask cluster.
    verbose : bool
        Show a tqdm progress bar over the candidates (candidates done / total), as
        ``TopRanker(verbose=True)`` shows its solver's progress. (Formerly ``progress``,
        still accepted with a ``FutureWarning``.)
    screen : bool
        With the active-set solver, stop a candidate's solve once a certified bound shows
        it cannot be chosen (:mod:`cvxtop.aatp.candidates`); the choice is the same as
        with ``screen=False``, which solves every candidate to optimality.
    gram_rtol : float or None
        Eigenvalues within ``gram_rtol · λ_max`` of zero are rounding (not counted in the
        rank, tolerated below zero); ``None``: a tolerance that follows the Gram matrix's
        dtype (:mod:`cvxtop.gram`).

    Attributes
    ----------
    candidate_ : int
        Index (row of ``X``) of the chosen quantile point ``z_k``.
    quantile_ : float
        The top τ-quantile ``q̂`` of the chosen solution's scores on the sample.
    objective_ : float
        Objective of eq. (2) of the chosen candidate.
    dual_coef_ : ndarray of shape (n_train,)
        ``α_j y_j`` summed per training item; ``h(x) = Σ_j dual_coef_[j] ·
        [K(z_j, x) − K(z_k, x)]`` with ``k = candidate_``.
    coef_ : ndarray of shape (n_features,)
        ``w`` (linear kernel only); ``decision_function(X) = X @ coef_``.
    quantile_distance_ : float
        ``|h(z_k) − q̂|`` of the chosen candidate: how far its quantile point's score lies
        from the quantile of its solution (the selection rule's "gap"; formerly
        ``candidate_gap_``, still readable with a ``FutureWarning``).
    duality_gap_ : float
        Certified duality gap ``P − D`` of the chosen candidate's QP (absolute).
    gap_ : float
        The same gap relative to the objective, ``(P − D)/|P|`` (``result_.gap``), as
        ``TopRanker.gap_``.
    candidates_, candidate_quantile_distances_, candidate_objectives_ : ndarray
        Every candidate and its quantile distance and objective, as used by the selection
        rule (for a screened candidate: those of the certified point where its solve
        stopped; ``candidate_gaps_`` is the former name).
    candidate_duality_gaps_ : ndarray
        The certified duality gap ``P − D`` of each candidate's QP (for a screened
        candidate: at the point where its solve stopped).
    candidate_screened_ : ndarray of bool
        Candidates whose solve stopped once they provably could not be chosen.
    candidate_quantile_distance_bounds_ : ndarray of shape (n_candidates, 2)
        A certified interval for each candidate's quantile distance at its optimum
        (formerly ``candidate_gap_bounds_``): for a screened
        candidate, the one certified at the point where its solve stopped; for the
        others, the computed gap
        ``± 2√δ·max_j ‖f_j‖`` of its certified duality gap ``δ``
        (:func:`cvxtop.aatp.selection.certified_gap_bounds`). The selection rule compares
        computed gaps; these intervals say how far the true ones may be (what the rule
        promises: :mod:`cvxtop.aatp.selection`).
    engine_ : str
        The solver that ran the candidates, an identifier: ``"interior-point"`` (a factor),
        ``"face-descent"`` (the Gram matrix), ``"cvxpy-dual"`` or ``"cvxpy-primal"``
        (:data:`cvxtop.solvers.result.ENGINES`).
    gram_rank_ : int
        Numerical rank of the training Gram matrix (kernels other than linear, or a
        linear kernel with more features than half the sample).
    n_iter_ : int
        Solver iterations of the chosen candidate.
    result_ : cvxtop.solvers.SolveResult
        The chosen candidate's solve: ``coef`` its dual point ``α``, ``lower_bound`` its dual
        objective, ``gap`` its certified relative duality gap.
    n_fallbacks_ : int
        Candidates that ``solver="fast"`` could not certify on its main path: handed to the
        cvxpy references (interior point on a factor, badly scaled data: eq. (4), then
        eq. (2)), or to a dense interior point after gap-safe screening and, for the linear
        kernel, to eq. (2) in cvxpy (face descent); 0 otherwise.
    n_features_in_ : int
    """

    #: The declared parameters (:mod:`cvxtop.parameters`).
    PARAMETERS = PARAMETERS

    @keyword_only
    @renamed_keyword("progress", "verbose")
    def __init__(self, *, tau: float = 0.05, C: float = 1.0,
                 kernel: str | Callable[[np.ndarray, np.ndarray], Any] = "linear",
                 gamma: float | None = None, solver: str = "fast",
                 n_jobs: int | None = None, verbose: bool = False, screen: bool = True,
                 gram_rtol: float | None = None) -> None:
        self.tau = tau
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.solver = solver
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.screen = screen
        self.gram_rtol = gram_rtol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.target_tags.required = True
        # Binary targets only: scikit-learn's checks then draw two-valued y.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    # ---- validation ------------------------------------------------------------------
    def check_params(self) -> dict[str, Any]:
        """Validate the parameters as ``fit`` does (:data:`PARAMETERS`): ``ValueError`` or
        ``TypeError`` naming the parameter, and an
        :class:`~cvxtop.parameters.IgnoredParameterWarning` for a parameter set that the
        chosen solver or kernel does not read. Returns the checked values."""
        values = PARAMETERS.check(self)
        self._tau, self._C, self._n_jobs = values["tau"], values["C"], values["n_jobs"]
        return values

    def _training_data(self, X: Any) -> _TrainingData:
        reject_sparse(X, "X")
        if isinstance(X, np.ndarray):
            check_min_features(X, 1, "X")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            kernel = make_kernel(self.kernel, self.gamma, 1)
            gram = kernel.train_gram(X, "X (the precomputed Gram matrix)", self.gram_rtol)
            check_min_samples(gram.n, 2, "X")
            return _TrainingData(kernel, gram.values, np.empty((gram.n, 0)), None, gram)
        X = check_matrix(X, "X")
        check_min_samples(len(X), 2, "X")
        kernel = make_kernel(self.kernel, self.gamma, X.shape[1])
        if kernel.name == "linear":
            return _TrainingData(kernel, X, X, X, None)
        gram = kernel.train_gram(X, "X", self.gram_rtol)
        return _TrainingData(kernel, X, X, None, gram)

    def _plan(self, data: _TrainingData, n_slots: int) -> tuple[SolverPlan, np.ndarray | None]:
        """The solver and the factor it needs (``None`` for the Gram-matrix solver): for
        ``solver="fast"``, the interior point on a factor up to rank :data:`FACTOR_MAX_RANK`
        and coordinate and face steps on the Gram matrix above (the rank is the Gram
        policy's numerical rank, read from its one eigendecomposition; for the linear
        kernel, the number of features)."""
        gram = data.gram
        if gram is None and self.solver == "fast" and data.factor.shape[1] > FACTOR_MAX_RANK:
            gram = check_gram_matrix(data.factor @ data.factor.T, "X Xᵀ", self.gram_rtol)
        if gram is None:
            return SolverPlan(self.solver), data.factor
        gram.check_psd()
        self.gram_rank_ = gram.rank
        if self.solver == "fast" and gram.rank > FACTOR_MAX_RANK:
            return SolverPlan("fast", gram), None
        if data.factor is not None:
            return SolverPlan(self.solver), data.factor
        return SolverPlan(self.solver), gram.factor().F

    # ---- fitting ---------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> "AATP":
        """Fit on labeled items (bipartite ranking): ``y = 1`` marks preferred items.

        Each item is one point ``z_j`` of the sample, with sign ``+1`` (preferred) or
        ``−1``; with ``kernel="precomputed"``, ``X`` is the training Gram matrix.
        """
        self.check_params()
        require_target(y, type(self).__name__, "y")
        data = self._training_data(X).rescaled()
        y = check_labels(y, "y")
        check_same_length(X=data.keys, y=y)
        require_classes(y, "y", context="AATP ranks preferred items (1) above others (0)")
        items = np.arange(len(y))
        duplicate_of = duplicate_representatives(data.keys, items)
        problem = items_problem(None, y, scaled_C(self._C, data.scale), duplicate_of)
        return self._fit_problem(problem, data, items, duplicate_of)

    def fit_pairs(self, X: Any, pairs: Any) -> "AATP":
        """Fit on explicit preference pairs, the paper's sample ``((x_i, x'_i))_{i≤m}``.

        ``X`` holds the items (features, or the Gram matrix with ``"precomputed"``);
        row ``(a, b)`` of ``pairs`` says that item ``b`` (``x'_i``) is preferred over item
        ``a`` (``x_i``). An item may occur in many pairs, on either side: eq. (2) and the
        quantile count it once per occurrence among the 2m points.
        """
        self.check_params()
        data = self._training_data(X).rescaled()
        n_items = len(data.keys)
        pairs = check_pairs(pairs, n_items, "pairs")
        problem = pairs_problem(None, pairs, scaled_C(self._C, data.scale), n_items)
        reported = problem.candidates
        return self._fit_problem(problem, data, reported,
                                 duplicate_representatives(data.keys, reported))

    def _fit_problem(self, problem: AATPProblem, data: _TrainingData, reported: np.ndarray,
                     representatives: np.ndarray) -> "AATP":
        """Solve the candidates ``np.unique(representatives)`` and report every candidate
        of ``reported`` through its representative (repeated points, module
        :mod:`cvxtop.aatp.candidates`)."""
        for stale in ("coef_", "X_fit_", "gram_rank_"):  # attributes of a previous fit
            self.__dict__.pop(stale, None)
        plan, factor = self._plan(data, len(problem.slot_item))
        radius = _feature_radius(problem, plan, factor)
        _require_representable(problem, radius, self._C)
        linear = data.kernel.name == "linear"
        # the linear kernel's features go with the Gram-matrix engine too: the reference of
        # its last resort (face_descent.FaceDescentSolver._by_primal)
        problem = replace(problem, factor=data.factor if linear else factor,
                          primal_model=linear)
        solved = np.unique(representatives)
        tour = nearest_neighbour_tour(plan.gram if factor is None else factor, solved)
        scored, kept = solve_candidates(problem, tour, plan, self._tau, n_jobs=self._n_jobs,
                                        progress=bool(self.verbose), screen=bool(self.screen))
        by_candidate = {s.candidate: s for s in scored}
        table = [by_candidate[int(r)] for r in representatives]
        self.candidates_ = reported
        self.candidate_quantile_distances_ = np.array([s.gap for s in table])
        self.candidate_objectives_ = np.array([s.objective for s in table])
        self.candidate_duality_gaps_ = np.array([s.duality_gap for s in table])
        self.candidate_screened_ = np.array([s.gap_bounds is not None for s in table])
        solved_bounds = certified_gap_bounds(self.candidate_quantile_distances_,
                                             self.candidate_duality_gaps_, radius)
        self.candidate_quantile_distance_bounds_ = np.array([s.gap_bounds or tuple(bounds)
                                               for s, bounds in zip(table, solved_bounds)])
        self.n_fallbacks_ = sum(s.gap_bounds is None and s.status != "optimal" for s in scored)
        chosen = int(reported[select(reported, self.candidate_quantile_distances_,
                                     self.candidate_objectives_)])
        representative = int(representatives[int(np.flatnonzero(reported == chosen)[0])])
        solution = kept.get(representative) or \
            plan.build(problem, self._tau).solve_many([representative])[0]
        final = score_candidate(problem, solution, self._tau)
        self.candidate_ = chosen
        self.quantile_ = final.quantile
        self.quantile_distance_ = final.gap
        self.objective_ = final.objective
        self.duality_gap_ = final.duality_gap
        self.n_iter_ = final.n_iter
        self.engine_ = plan.engine
        self.result_ = solution.result(plan.engine, problem.C)
        self.dual_coef_ = np.bincount(problem.slot_item,
                                      weights=problem.slot_sign * solution.alpha,
                                      minlength=problem.n_items)
        if data.scale != 1.0:
            self._unscale(data.scale)
        self.gap_ = self.result_.gap
        if linear and solution.w is not None:
            # the certified point itself, in the features' units: w(α), or the primal's own
            # w where eq. (2) was solved (:func:`.problem.solution_from_primal`)
            self.coef_ = solution.w / data.scale
        elif linear:
            X = data.X_fit
            self.coef_ = X.T @ self.dual_coef_ - self.dual_coef_.sum() * X[chosen]
        elif not data.kernel.precomputed:
            self.X_fit_ = data.X_fit
        self.kernel_ = data.kernel
        self.n_features_in_ = (problem.n_items if data.kernel.precomputed
                               else data.X_fit.shape[1])
        return self

    def _unscale(self, scale: float) -> None:
        """Values of the rescaled problem (Gram matrix divided by ``scale²``, C multiplied
        by it) in the original problem's terms, by the one rule of
        :mod:`cvxtop.solvers.scaling`: objectives, duality gaps and dual coefficients
        divided by ``scale²``; scores, quantiles and their gaps unchanged."""
        factor = scale * scale
        for name in ("objective_", "duality_gap_", "candidate_objectives_",
                     "candidate_duality_gaps_", "dual_coef_"):
            setattr(self, name, getattr(self, name) / factor)
        self.result_ = unscaled(self.result_, scale, dual=True)

    # ---- former names ----------------------------------------------------------------
    def _former(self, old: str, new: str) -> Any:
        warnings.warn(f"AATP.{old} is now {new}; {old} is deprecated and will be removed",
                      FutureWarning, stacklevel=3)
        return getattr(self, new)

    @property
    def candidate_gap_(self) -> float:
        """Former name of :attr:`quantile_distance_`."""
        return self._former("candidate_gap_", "quantile_distance_")

    @property
    def candidate_gaps_(self) -> np.ndarray:
        """Former name of :attr:`candidate_quantile_distances_`."""
        return self._former("candidate_gaps_", "candidate_quantile_distances_")

    @property
    def candidate_gap_bounds_(self) -> np.ndarray:
        """Former name of :attr:`candidate_quantile_distance_bounds_`."""
        return self._former("candidate_gap_bounds_", "candidate_quantile_distance_bounds_")

    # ---- prediction ------------------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """Scores ``h(x) = Σ_j dual_coef_[j] [K(z_j, x) − K(z_k, x)]`` (``k = candidate_``).

        With ``kernel="precomputed"``, ``X`` is ``K(X_test, X_train)``, of shape
        ``(n_test, n_train)``.
        """
        check_is_fitted(self, "dual_coef_")
        reject_sparse(X, "X")
        X = check_matrix(X, "X")
        # with a precomputed kernel the "features" are the training items
        check_n_features(X.shape[1], self.n_features_in_, type(self).__name__, "X")
        if self.kernel_.name == "linear":
            return X @ self.coef_
        Kx = X if self.kernel_.precomputed else self.kernel_.cross(X, self.X_fit_, "X")
        return Kx @ self.dual_coef_ - self.dual_coef_.sum() * Kx[:, self.candidate_]

    def score(self, X: Any, y: Any) -> float:
        """``1 − R̂(h)``: the AATP accuracy of Boyd et al. 2012 Section 3.1 on ``(X, y)``,
        with the τ-quantile of the scores of ``X``."""
        return 1.0 - aatp_loss(y, self.decision_function(X), self.tau)

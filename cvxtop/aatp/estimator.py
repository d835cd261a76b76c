"""The scikit-learn estimator :class:`AATP` (accuracy at the top, ``papers/003``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_choice,
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
from .candidates import (
    SOLVERS,
    duplicate_representatives,
    make_solver,
    nearest_neighbour_tour,
    solve_candidates,
)
from .fast import FALLBACK_STATUS
from .kernels import Kernel, factor_gram, make_kernel
from .problem import AATPProblem, aatp_loss, items_problem, pairs_problem
from .selection import score_candidate, select

__all__ = ["AATP", "EXPECTED_FAILED_CHECKS", "PRECOMPUTED_EXPECTED_FAILED_CHECKS",
           "expected_failed_checks"]

#: scikit-learn ``check_estimator`` checks that cannot pass, with the reason for each.
EXPECTED_FAILED_CHECKS: dict[str, str] = {
    "check_estimators_dtypes": (
        "the check's targets take the values {1, 2}; cvxtop accepts only 0/1, -1/+1 or "
        "booleans (which value is 'relevant' must not be guessed), so it raises ValueError. "
        "float32, int32 and int64 X are tested in tests/test_aatp_estimator.py"),
    "check_fit2d_1feature": (
        "same targets {1, 2} as check_estimators_dtypes; one-feature X is tested in "
        "tests/test_aatp_estimator.py"),
    "check_fit2d_predict1d": (
        "1-D X is refused with cvxtop's message 'X must be 2-dimensional, got shape "
        "(n,)', not scikit-learn's 'Reshape your data'"),
    "check_dtype_object": (
        "an object array of strings is a wrong type, so cvxtop raises TypeError('X must "
        "contain numbers only'), whose wording differs from NumPy's float() message that "
        "the check matches"),
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
}


def expected_failed_checks(estimator: "AATP") -> dict[str, str]:
    """The documented ``check_estimator`` exceptions for this configuration (pass it as
    ``expected_failed_checks`` to :func:`sklearn.utils.estimator_checks.check_estimator`
    or ``parametrize_with_checks``)."""
    if isinstance(estimator.kernel, str) and estimator.kernel == "precomputed":
        return {**EXPECTED_FAILED_CHECKS, **PRECOMPUTED_EXPECTED_FAILED_CHECKS}
    return dict(EXPECTED_FAILED_CHECKS)


class AATP(BaseEstimator):
    """Accuracy at the top: Boyd, Cortes, Mohri & Radovanovic (NIPS 2012), ``papers/003``.

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
        A callable ``kernel(A, B)`` returns the ``(len(A), len(B))`` Gram matrix. The
        Gram matrix must be PSD (see :mod:`cvxtop.aatp.kernels` for the policy).
    gamma : float > 0 or None
        RBF width, ``exp(−gamma·‖x − x'‖²)``; ``None`` means ``1/n_features``.
    solver : {"fast", "cvxpy", "cvxpy-primal"}
        ``"fast"``: the numpy interior-point solver with exact crossover
        (:mod:`cvxtop.aatp.fast`); ``"cvxpy"``: eq. (4) compiled once with cvxpy (DPP) and
        solved by Clarabel, the reference; ``"cvxpy-primal"``: eq. (2) likewise. Every
        candidate's solution is certified by its duality gap or
        :class:`cvxtop.SolverError` is raised.
    n_jobs : int or None
        Workers for the candidates, through :class:`joblib.Parallel` (``None``: one,
        unless a joblib context says otherwise; ``-1``: all). Under
        ``joblib.parallel_config(backend="dask")`` they run on a Dask cluster.
    progress : bool
        Show a tqdm progress bar over the candidates.

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
    candidate_gap_ : float
        ``|h(z_k) − q̂|`` of the chosen candidate.
    duality_gap_ : float
        Certified duality gap of the chosen candidate's QP.
    candidates_, candidate_gaps_, candidate_objectives_ : ndarray
        Every candidate and its gap and objective, as used by the selection rule.
    n_iter_ : int
        Solver iterations of the chosen candidate.
    n_fallbacks_ : int
        Candidates that ``solver="fast"`` handed to the cvxpy reference because it could
        not certify them itself (badly scaled data); 0 otherwise.
    n_features_in_ : int
    """

    def __init__(self, tau: float = 0.05, C: float = 1.0,
                 kernel: str | Callable[[np.ndarray, np.ndarray], Any] = "linear",
                 gamma: float | None = None, solver: str = "fast",
                 n_jobs: int | None = None, progress: bool = False) -> None:
        self.tau = tau
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.solver = solver
        self.n_jobs = n_jobs
        self.progress = progress

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.target_tags.required = True
        # Binary targets only: scikit-learn's checks then draw two-valued y.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    # ---- validation ------------------------------------------------------------------
    def _check_params(self) -> None:
        self._tau = check_fraction(self.tau, "tau")
        self._C = check_positive(self.C, "C")
        check_choice(self.solver, "solver", tuple(SOLVERS))
        self._n_jobs = check_n_jobs(self.n_jobs)
        if not isinstance(self.progress, (bool, np.bool_)):
            raise TypeError(f"progress must be a bool, got {type(self.progress).__name__}")

    def _training_data(self, X: Any) -> tuple[Kernel, np.ndarray, np.ndarray, np.ndarray]:
        """Kernel, factor ``F`` (``K = F Fᵀ``), rows identifying repeated points, and the
        training features (for ``decision_function`` with rbf or callable kernels)."""
        reject_sparse(X, "X")
        if isinstance(X, np.ndarray):
            check_min_features(X, 1, "X")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            kernel = make_kernel(self.kernel, self.gamma, 1)
            K = kernel.train_gram(X, "X")
            check_min_samples(len(K), 2, "X")
            return kernel, factor_gram(K, "X"), K, np.empty((len(K), 0))
        X = check_matrix(X, "X")
        check_min_samples(len(X), 2, "X")
        kernel = make_kernel(self.kernel, self.gamma, X.shape[1])
        if kernel.name == "linear":
            return kernel, X, X, X
        K = kernel.train_gram(X, "X")
        return kernel, factor_gram(K, f"kernel(X, X) for kernel={kernel.name!r}"), X, X

    # ---- fitting ---------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> "AATP":
        """Fit on labeled items (bipartite ranking): ``y = 1`` marks preferred items.

        Each item is one point ``z_j`` of the sample, with sign ``+1`` (preferred) or
        ``−1``; with ``kernel="precomputed"``, ``X`` is the training Gram matrix.
        """
        self._check_params()
        require_target(y, type(self).__name__, "y")
        kernel, factor, keys, X_fit = self._training_data(X)
        y = check_labels(y, "y")
        check_same_length(X=factor, y=y)
        require_classes(y, "y", context="AATP ranks preferred items (1) above others (0)")
        return self._fit_problem(items_problem(factor, y, self._C), kernel, keys, X_fit)

    def fit_pairs(self, X: Any, pairs: Any) -> "AATP":
        """Fit on explicit preference pairs, the paper's sample ``((x_i, x'_i))_{i≤m}``.

        ``X`` holds the items (features, or the Gram matrix with ``"precomputed"``);
        row ``(a, b)`` of ``pairs`` says that item ``b`` (``x'_i``) is preferred over item
        ``a`` (``x_i``). An item may occur in many pairs, on either side: eq. (2) and the
        quantile count it once per occurrence among the 2m points.
        """
        self._check_params()
        kernel, factor, keys, X_fit = self._training_data(X)
        pairs = check_pairs(pairs, len(factor), "pairs")
        return self._fit_problem(pairs_problem(factor, pairs, self._C), kernel, keys, X_fit)

    def _fit_problem(self, problem: AATPProblem, kernel: Kernel, keys: np.ndarray,
                     X_fit: np.ndarray) -> "AATP":
        for stale in ("coef_", "X_fit_"):  # attributes of a previous fit with another kernel
            self.__dict__.pop(stale, None)
        candidates = problem.candidates
        representatives = duplicate_representatives(keys, candidates)
        tour = nearest_neighbour_tour(problem.factor, np.unique(representatives))
        scored = solve_candidates(problem, tour, self.solver, self._tau,
                                  n_jobs=self._n_jobs, progress=bool(self.progress))
        by_candidate = {s.candidate: s for s in scored}
        table = [by_candidate[int(r)] for r in representatives]
        self.candidates_ = candidates
        self.candidate_gaps_ = np.array([s.gap for s in table])
        self.candidate_objectives_ = np.array([s.objective for s in table])
        self.n_fallbacks_ = sum(s.status == FALLBACK_STATUS for s in scored)
        chosen = int(candidates[select(candidates, self.candidate_gaps_,
                                       self.candidate_objectives_)])
        solution = make_solver(self.solver, problem).solve_many([chosen])[0]
        final = score_candidate(problem, solution, self._tau)
        self.candidate_ = chosen
        self.quantile_ = final.quantile
        self.candidate_gap_ = final.gap
        self.objective_ = final.objective
        self.duality_gap_ = final.duality_gap
        self.n_iter_ = final.n_iter
        self.dual_coef_ = np.bincount(problem.slot_item,
                                      weights=problem.slot_sign * solution.alpha,
                                      minlength=len(problem.factor))
        if kernel.name == "linear":
            self.coef_ = solution.w
        elif not kernel.precomputed:
            self.X_fit_ = X_fit
        self.kernel_ = kernel
        self.n_features_in_ = len(problem.factor) if kernel.precomputed else X_fit.shape[1]
        return self

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
        """``1 − R̂(h)``: the AATP accuracy of ``papers/003`` Section 3.1 on ``(X, y)``,
        with the τ-quantile of the scores of ``X``."""
        return 1.0 - aatp_loss(y, self.decision_function(X), self.tau)

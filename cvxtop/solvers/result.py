"""One result object for every solver (TopRanker's engines, AATP's and Predtron's batch
solves), so that their answers are comparable."""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import Any

import numpy as np

__all__ = ["SolveResult", "STATUSES", "ENGINES", "APPROXIMATE_TOL", "EXACT_TOL", "EXACT_MAX_ITER"]

#: The statuses a :class:`SolveResult` can carry, and what each means.
STATUSES: dict[str, str] = {
    "optimal": "an optimum: certified by a duality gap at most the requested tolerance (exact "
               "engines, AATP), or reported optimal by the cvxpy solver where no certificate "
               "exists (an uncertified direct solve, Predtron's batch problem)",
    "optimal_inaccurate": "the cvxpy solver reported an inaccurate optimum, returned because "
                          "the caller accepted inaccurate solutions",
    "user_limit": "the cvxpy solver stopped at its iteration or time limit; its point is "
                  "returned uncertified because the caller accepted inaccurate solutions",
    "max_iter": "stopped at its iteration limit before reaching its target (returned, with "
                "its gap, only when inaccurate solutions are accepted)",
    "local": "a local method (the convex-concave procedure) stopped where the objective no "
             "longer decreases; no global guarantee",
    "converged": "an approximate method met its own stopping rule",
    "completed": "an approximate method ran its whole budget (epochs or steps)",
}

_SUCCESS = ("optimal", "local", "converged", "completed")

#: Default relative gap of the approximate methods (GD, SGD): their model is certified
#: within it or a ``ConvergenceWarning`` says how far it is (:mod:`.certificate`). Every
#: default of a solver function is the default of its method in
#: :data:`cvxtop.solvers.minimize.OPTIONS` (a test checks it).
APPROXIMATE_TOL = 1e-2
#: Default relative gap of the exact engines, and the convex-concave procedure's stall
#: threshold.
EXACT_TOL = 1e-6
#: Default rounds of the exact engines and steps of the convex-concave procedure.
EXACT_MAX_ITER = 2000

#: The engines a :class:`SolveResult` can name (its ``method``, the fitted ``engine_``;
#: ``detail`` says more in words).
ENGINES: dict[str, str] = {
    "cutting-plane": "the 1-slack cutting plane with OCAS steps (cvxtop.solvers.cutting_plane)",
    "direct": "one cvxpy program, certified by the cutting plane warm-started at its answer",
    "dca": "the convex-concave procedure of a difference of convex functions",
    "gd": "full-batch subgradient descent",
    "sgd": "mini-batch stochastic subgradient descent",
    "perceptron": "Perceptron@k-avg or -max (Kar et al. 2015, Algorithms 1-2)",
    "cvxpy": "one cvxpy program, uncertified (Predtron's batch problem)",
    "interior-point": "AATP: the interior point on a factor K = F Fᵀ (cvxtop.aatp.fast)",
    "face-descent": "AATP: face and coordinate steps on the Gram matrix "
                    "(cvxtop.aatp.face_descent)",
    "cvxpy-dual": "AATP: eq. (4) compiled once with cvxpy, Clarabel (the reference)",
    "cvxpy-primal": "AATP: eq. (2) compiled once with cvxpy, Clarabel",
}


@dataclass(frozen=True, kw_only=True)
class SolveResult:
    """What a solver returns.

    Attributes
    ----------
    coef : array
        The solution (``w``; for a kernel model the coefficients in the factor's basis).
    objective : float
        The objective evaluated exactly in numpy at ``coef``.
    status : str
        One of :data:`STATUSES`.
    method : str
        The method that produced the result: a key of :data:`ENGINES` (e.g.
        ``"cutting-plane"``), for code to compare.
    detail : str
        What else a reader needs about the method, in words (the cvxpy solver, the step
        rule, a fallback).
    n_iter : int
        Iterations (cutting-plane rounds, solver iterations, steps, epochs, ...).
    lower_bound : float or None
        A rigorous lower bound on the optimal value, when the method has one.
    gap : float or None
        ``(objective − lower_bound)/|objective|``: the certified relative gap, or ``None``.
    message : str
        A human-readable summary.
    solver_value : float or None
        The cvxpy solver's own optimal value, for raw cvxpy solves.
    epoch_times : array or None
        Mini-batch methods: the seconds of each epoch.
    mistakes : int or None
        Perceptrons: the cumulative prec@k loss Δ_T^C over the batches seen.
    n_batches_skipped : int or None
        Mini-batch methods: batches on which the surrogate was undefined.
    stats : dict
        Counts and seconds of the parts of the solve, by name (machine-readable). The
        cutting plane reports ``"dual_solves"`` (its tries of a dual solve over the items),
        ``"dual_solve_seconds"`` (their wall-clock time; they are not rounds) and
        ``"dual_steps"`` (the active-set steps of prec@k-avg's and -max's, each one linear
        system in the tied items and one product ``X @ w``); empty for other methods.
    cuts : cvxtop.solvers.cut_store.Cuts or None
        The cutting plane's cuts of the loss, when asked for (``keep_cuts``): valid for
        every ``C`` on the same data, so a solve at the next ``C`` of a path starts from
        them (``solve_cutting_plane(cuts=...)``, ``TopRanker(warm_start=True)``).
    """

    coef: np.ndarray
    objective: float
    status: str
    method: str
    n_iter: int
    detail: str = ""
    lower_bound: float | None = None
    gap: float | None = None
    message: str = ""
    solver_value: float | None = None
    epoch_times: np.ndarray | None = None
    mistakes: int | None = None
    n_batches_skipped: int | None = None
    stats: dict[str, float] = field(default_factory=dict)
    cuts: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {sorted(STATUSES)}, got {self.status!r}")
        if self.method not in ENGINES:
            raise ValueError(f"method must be one of {sorted(ENGINES)}, got {self.method!r}")

    @property
    def success(self) -> bool:
        """Whether the method ended as it should (an optimum, a local solution, or its own
        stopping rule or budget), as opposed to an inaccurate answer or an iteration limit."""
        return self.status in _SUCCESS

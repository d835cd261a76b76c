"""``minimize``: one entry point that owns every algorithmic choice, like
:func:`scipy.optimize.minimize`.

``minimize(objective, method, options=..., callback=...)`` minimizes a
:class:`~cvxtop.solvers.RankingObjective` and returns a :class:`~cvxtop.solvers.SolveResult`.
Methods:

* ``"auto"`` (default): a certified optimum for a convex surrogate (``"direct"`` for small
  problems, ``"cutting-plane"`` above, by :func:`exact_method`), the convex-concave
  procedure for a difference of convex functions;
* ``"direct"``: one cvxpy program, certified by the cutting plane warm-started there;
* ``"cutting-plane"``: the 1-slack cutting plane with a rigorous dual bound;
* ``"dca"``: the convex-concave procedure from the exact optimum of the surrogate's convex
  start (``Surrogate.dca_start``), a local method;
* ``"gd"``: full-batch subgradient descent;
* ``"sgd"``: mini-batch stochastic methods (block Frank-Wolfe or subgradient steps);
* ``"perceptron"``: Perceptron@k-avg or -max (Kar et al. 2015, Algorithms 1 and 2).

``options`` is a dict of the method's options (:data:`OPTIONS` lists them with their
defaults); an unknown key is a ``ValueError``. ``options["progress"]`` shows a tqdm bar.
``callback(iteration, upper, lower)`` is called after every round of the iterative exact
methods and every GD step (``lower`` is ``None`` without a bound).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .. import _cvxpy, surrogates
from .._threads import single_threaded_blas
from .._validation import (check_bool, check_count_or_auto, check_options_mapping,
                           check_random_state, make_rng)
from ..surrogates.base import DifferenceOfConvex, Surrogate
from .certificate import CERTIFICATE_ROUNDS, Certificate, certify
from .checkpoints import Checkpoints
from .cut_store import loss_key
from .cutting_plane import solve_cutting_plane
from .dca import solve_dca
from .direct import solve_direct
from .gd import STEP_RULES, solve_gd
from .gaps import half_square, relative_gap
from .minibatch import DEFAULT_EPOCHS, MinibatchConfig, run_perceptron, run_sgd
from .objective import RankingObjective
from .one_block import ONE_BLOCK_ROUNDS, is_one_block, run_one_block
from .perceptron import PerceptronState
from .result import APPROXIMATE_TOL, EXACT_MAX_ITER, EXACT_TOL, SolveResult
from .scaling import feature_scale, rescaled, unscaled, unscaled_callback

__all__ = ["minimize", "exact_method", "check_method", "METHODS", "OPTIONS", "DIRECT_MAX_ITEMS",
           "DIRECT_MAX_SIZE", "APPROXIMATE_TOL", "resolve_batch_size", "ONE_BLOCK_ITEMS"]

#: Under ``method="auto"`` the direct engine solves problems with at most this many items
#: whose cvxpy forms have at most :data:`DIRECT_MAX_SIZE` auxiliary variables in all
#: (``Surrogate.dcp_size``); larger problems go to the cutting plane.
DIRECT_MAX_ITEMS = 500
DIRECT_MAX_SIZE = 2500

_EXACT = {"tol": EXACT_TOL, "max_iter": EXACT_MAX_ITER, "cvx_solver": "CLARABEL",
          "solver_options": None, "accept_inaccurate": False}
#: The approximate methods' certificate (:mod:`.certificate`): whether to run it, and its
#: budget of cutting-plane rounds.
_CERTIFICATE = {"certify": True, "certificate_rounds": CERTIFICATE_ROUNDS}
_BATCHES = {"batch_size": "auto", "epochs": "auto", "shuffle": True,
            "random_state": None}

#: ``batch_size="auto"``: batches of :data:`MIN_AUTO_BATCH` items, except for SGD's
#: line-search rule: one block (the whole list) up to :data:`ONE_BLOCK_ITEMS` items, and
#: above that batches that grow with the data so that an epoch has at most
#: :data:`AUTO_BLOCKS` of them (:func:`resolve_batch_size`).
MIN_AUTO_BATCH = 500
AUTO_BLOCKS = 64
ONE_BLOCK_ITEMS = 100_000

#: Each method's options and their defaults (``progress=False`` is accepted by all).
OPTIONS: dict[str, dict[str, Any]] = {
    "direct": {**_EXACT, "certify": True},
    "cutting-plane": {**_EXACT, "w0": None, "capacity": 64, "patience": 100,
                      "step_fraction": None, "line_search": None, "master": "active-set",
                      "cuts": None, "keep_cuts": False},
    "dca": {**_EXACT, "start_method": "auto"},
    "gd": {"learning_rate": "line-search", "eta0": 1.0, "max_iter": 1000,
           "tol": APPROXIMATE_TOL, "w0": None, **_CERTIFICATE},
    "sgd": {**_BATCHES, "learning_rate": "line-search", "eta0": 1.0, "average": True,
            "radius": None, "early_stopping": False, "tol": APPROXIMATE_TOL,
            **_CERTIFICATE},
    "perceptron": {**_BATCHES, "tol": None, **_CERTIFICATE},
}
OPTIONS["auto"] = {**OPTIONS["cutting-plane"], **OPTIONS["dca"], "certify": True}
METHODS = tuple(["auto", *[m for m in OPTIONS if m != "auto"]])


def resolve_batch_size(batch_size: int | str, n_items: int, method: str,
                       learning_rate: str | None = None, surrogate: Surrogate | None = None
                       ) -> int:
    """The batch size of a mini-batch run: ``batch_size`` itself, or for ``"auto"`` 500
    for the perceptrons and SGD's 1/t and 1/√t rules, which need many steps, and for SGD's
    line-search rule:

    * the whole list (one block, whose epochs are cutting-plane rounds: :mod:`.one_block`)
      up to :data:`ONE_BLOCK_ITEMS` items, or for a ``surrogate`` that does not split into
      batches (pAp@k, :attr:`~cvxtop.surrogates.base.Surrogate.splits`);
    * above, ``max(500, ceil(n/64))``: 64 blocks, whose many cheap steps per epoch get
      block Frank-Wolfe near the optimum in the first epochs, at the price of a mini-batch
      bias that larger blocks shrink.

    benchmarks/approx_vs_exact.py measures both regimes, and where one block wins."""
    size = check_count_or_auto(batch_size, "batch_size")
    if size != "auto":
        return int(size)
    if method == "sgd" and learning_rate == "line-search":
        if n_items <= ONE_BLOCK_ITEMS or (surrogate is not None and not surrogate.splits):
            return max(n_items, 1)
        return max(MIN_AUTO_BATCH, -(-n_items // AUTO_BLOCKS))
    return MIN_AUTO_BATCH


def exact_method(objective: RankingObjective) -> str:
    """The exact method ``"auto"`` picks: the convex-concave procedure for a non-convex
    surrogate, else ``"direct"`` up to :data:`DIRECT_MAX_ITEMS` items and
    :data:`DIRECT_MAX_SIZE` auxiliary variables, else ``"cutting-plane"``."""
    surrogate = objective.surrogate
    if not surrogate.convex:
        return "dca"
    small = len(objective.y) <= DIRECT_MAX_ITEMS and objective.dcp_size() <= DIRECT_MAX_SIZE
    return "direct" if small else "cutting-plane"


def _options(method: str, options: dict[str, Any] | None) -> dict[str, Any]:
    given = dict(options or {})
    unknown = set(given) - set(OPTIONS[method]) - {"progress"}
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for method {method!r}; "
                         f"its options are {sorted(OPTIONS[method])} and 'progress'")
    return {"progress": False, **OPTIONS[method], **given}


def check_method(surrogate: Surrogate, method: str, options: dict[str, Any] | None = None
                 ) -> None:
    """Refuse a method that does not apply to the surrogate (saying which one does), an
    unknown option or an option value the method cannot take."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    opts = _options(method, options)
    _check_option_values(method, opts)
    name = surrogate.name
    if method == "perceptron" and surrogate.perceptron is None:
        raise ValueError("solver='perceptron' runs Perceptron@k-avg or Perceptron@k-max: "
                         f"use surrogate 'prec@k-avg' or 'prec@k-max', not {name!r}")
    if surrogate.convex:
        return
    if method in ("direct", "cutting-plane", "dca", "auto") \
            and not isinstance(surrogate, DifferenceOfConvex):
        raise ValueError(
            f"{name} is neither convex nor a difference of convex functions, so "
            "solver='exact' does not apply; solver='gd' with learning_rate='sqrt' runs "
            "subgradient descent on it as the paper does")
    if method in ("direct", "cutting-plane"):
        raise ValueError(f"{name} is not convex: the {method} engine needs a convex "
                         "surrogate (method 'dca' is the local method for it)")
    if method == "sgd" or (method == "gd" and opts["learning_rate"] != "sqrt"):
        raise ValueError(
            f"{name} is not convex: solver={method!r} with these settings needs a convex "
            "surrogate (solver='gd' with learning_rate='sqrt' accepts it, without a "
            "certificate)")


def _check_option_values(method: str, opts: dict[str, Any]) -> None:
    if "cvx_solver" in opts and opts["cvx_solver"] not in _cvxpy.SOLVERS:
        raise ValueError(f"cvx_solver must be one of {_cvxpy.SOLVERS}, got "
                         f"{opts['cvx_solver']!r}")
    if method in ("gd", "sgd") and opts["learning_rate"] not in STEP_RULES:
        raise ValueError(f"learning_rate must be one of {STEP_RULES}, got "
                         f"{opts['learning_rate']!r}")
    if opts.get("solver_options") is not None:
        check_options_mapping(opts["solver_options"], "solver_options")
    for flag in ("accept_inaccurate", "shuffle", "average", "early_stopping", "progress"):
        if flag in opts:
            check_bool(opts[flag], flag)
    if method in ("sgd", "perceptron"):
        check_count_or_auto(opts["batch_size"], "batch_size")
        check_count_or_auto(opts["epochs"], "epochs")
        check_random_state(opts["random_state"])
    if method in ("gd", "sgd", "perceptron"):
        check_bool(opts["certify"], "certify")
        rounds = opts["certificate_rounds"]
        if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
            raise ValueError(f"certificate_rounds must be a positive integer, got {rounds!r}")
        tol = opts["tol"]
        if tol is not None and not (isinstance(tol, (int, float)) and 0 < tol < np.inf):
            raise ValueError(f"tol must be a positive number or None, got {tol!r}")
    if method == "sgd" and opts["radius"] is not None and opts["learning_rate"] == "line-search":
        raise ValueError("radius (the projected form) needs learning_rate='inverse' or "
                         "'sqrt'; the line-search steps minimize the regularized objective")


class _Progress:
    """A tqdm bar driven by the ``(iteration, upper, lower)`` callback of a method."""

    def __init__(self, total: int, label: str, enabled: bool,
                 user: Callable[[int, float, float | None], None] | None,
                 C: float = 1.0) -> None:
        self.user = user
        self.C = C  # (the floor of the relative gap shown: :mod:`.gaps`)
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=label, unit="it")

    def __call__(self, it: int, upper: float, lower: float | None) -> None:
        if self.bar is not None:
            self.bar.update(1)
            if lower is not None:
                self.bar.set_postfix(gap=f"{relative_gap(upper, lower, self.C):.1e}")
        if self.user is not None:
            self.user(it, upper, lower)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    @property
    def active(self) -> bool:
        return self.bar is not None or self.user is not None


def minimize(objective: RankingObjective, method: str = "auto", *,
             options: dict[str, Any] | None = None,
             callback: Callable[[int, float, float | None], None] | None = None
             ) -> SolveResult:
    """Minimize ``objective`` with ``method`` (module docstring); return a
    :class:`SolveResult`. Raises ``ValueError`` for a method that does not apply to the
    surrogate or an unknown option, :class:`cvxtop.SolverError` when an exact method
    cannot certify its answer."""
    check_method(objective.surrogate, method, options)
    opts = _options(method, options)
    if method == "auto":
        method = exact_method(objective)
        opts = {key: value for key, value in opts.items()
                if key in OPTIONS[method] or key == "progress"}
    with single_threaded_blas():
        return _dispatch(objective, method, opts, callback)


def _dispatch(objective: RankingObjective, method: str, opts: dict[str, Any],
              callback: Callable[[int, float, float | None], None] | None) -> SolveResult:
    if method in ("direct", "cutting-plane", "dca"):
        scale = feature_scale(objective.Z)
        if scale != 1.0:  # badly scaled features: solve the equivalent well-scaled problem
            if opts.get("w0") is not None:
                opts = {**opts, "w0": np.asarray(opts["w0"], dtype=np.float64) * scale}
            result = _solve(rescaled(objective, scale), method, opts,
                            unscaled_callback(callback, scale))
            return unscaled(result, scale)
    return _solve(objective, method, opts, callback)


def _solve(objective: RankingObjective, method: str, opts: dict[str, Any],
           callback: Callable[[int, float, float | None], None] | None) -> SolveResult:
    exact = {"solver_options": opts.get("solver_options"),
             "accept_inaccurate": opts.get("accept_inaccurate", False)}
    if method == "direct":
        return solve_direct(objective, cvx_solver=opts["cvx_solver"], tol=opts["tol"],
                            max_iter=opts["max_iter"], certify=opts["certify"], **exact)
    if method == "cutting-plane":
        progress = _Progress(opts["max_iter"], "cutting plane", opts["progress"], callback,
                             objective.C)
        cuts = opts["cuts"]
        if cuts is not None and cuts.key != loss_key(objective):
            cuts = None  # cuts of another loss (the data changed): a cold start
        try:
            return solve_cutting_plane(
                objective, tol=opts["tol"], max_iter=opts["max_iter"], w0=opts["w0"],
                cvx_solver=opts["cvx_solver"], capacity=opts["capacity"],
                patience=opts["patience"], step_fraction=opts["step_fraction"],
                line_search=opts["line_search"], master=opts["master"], cuts=cuts,
                keep_cuts=opts["keep_cuts"],
                callback=progress if progress.active else None, **exact)
        finally:
            progress.close()
    if method == "dca":
        return _dca(objective, opts, callback)
    if method == "gd":
        progress = _Progress(opts["max_iter"], "gd", opts["progress"], callback, objective.C)
        try:
            result = solve_gd(objective, step=opts["learning_rate"], eta0=opts["eta0"],
                              max_iter=opts["max_iter"], tol=opts["tol"], w0=opts["w0"],
                              callback=progress if progress.active else None)
        finally:
            progress.close()
        return _certified(result, objective, opts)
    size = resolve_batch_size(opts["batch_size"], len(objective.y), method,
                              opts.get("learning_rate"), objective.surrogate)
    one_block = method == "sgd" and opts["learning_rate"] == "line-search" \
        and is_one_block(objective, size)
    if opts["epochs"] == "auto":
        opts = {**opts, "epochs": ONE_BLOCK_ROUNDS if one_block else DEFAULT_EPOCHS}
    if one_block:  # it certifies itself: no restart
        return _certified(_one_block(objective, opts), objective, opts, more_rounds=False)
    result = _minibatch(objective, method, opts, size)
    if opts.get("radius") is not None:  # SGD's projected form minimizes another problem
        return result
    return _certified(result, objective, opts)


def _certified(result: SolveResult, objective: RankingObjective, opts: dict[str, Any],
               more_rounds: bool = True) -> SolveResult:
    """An approximate result with its certified gap (:mod:`.certificate`): status
    ``"converged"`` within ``tol``, else ``"completed"`` with a ``ConvergenceWarning`` that
    says how far the model is. ``tol=None`` (the perceptrons' default: they do not minimize
    this objective) reports the gap, settled at 1%, without a warning. Skipped with
    ``certify=False``. ``more_rounds=False``: the result's own bound is the certificate (a
    run of cutting-plane rounds, which the certificate would only restart)."""
    tol = opts["tol"]
    if not opts["certify"] or not objective.surrogate.convex:
        return result  # not asked for, or no lower bound exists (a non-convex surrogate)
    if result.gap is not None and tol is not None and result.gap <= tol:
        # certified by the method itself (GD's Frank-Wolfe dual, SGD's checkpoints or rounds)
        return result if result.status != "completed" else replace(result, status="converged")
    target = APPROXIMATE_TOL if tol is None else tol
    regularizer = half_square(result.coef)
    if more_rounds:
        cert = certify(objective, result.coef, target, opts["certificate_rounds"],
                       value=result.objective)
    else:
        cert = Certificate(result.objective, result.lower_bound, result.objective,
                           result.n_iter, objective.C, regularizer, regularizer)
    lower = max(cert.lower_bound, -np.inf if result.lower_bound is None else result.lower_bound)
    gap = relative_gap(result.objective, lower, objective.C, regularizer)
    status = result.status if tol is None else "converged" if gap <= tol else "completed"
    message = f"{result.message}; certified relative gap {gap:.2e}"
    if tol is not None and gap > tol:
        proven = cert.excess_at_least
        how_far = (f"at least {proven:.1%} above the optimum (certified gap {gap:.3g})"
                   if proven > tol else f"within a certified relative gap {gap:.3g} of the "
                   f"optimum (the bound after {cert.rounds} rounds; it may be closer)")
        warnings.warn(
            f"{result.method} did not reach tol={tol:g}: its objective {result.objective:.6g} "
            f"is {how_far}. More epochs or steps, a smaller C, or solver='exact' (a "
            "certified optimum) help.", ConvergenceWarning, stacklevel=4)
    return replace(result, status=status, lower_bound=lower, gap=gap, message=message)


def _dca(objective: RankingObjective, opts: dict[str, Any],
         callback: Callable[[int, float, float | None], None] | None) -> SolveResult:
    """The convex-concave procedure from the exact optimum of the surrogate's convex start."""
    surrogate = objective.surrogate
    start = objective.with_surrogate(surrogates.get(surrogate.dca_start, surrogate.k))
    exact = {key: opts[key] for key in _EXACT}
    w0 = minimize(start, opts["start_method"], options={**exact, "progress": opts["progress"]},
                  callback=callback).coef
    return solve_dca(objective, w0, tol=opts["tol"], max_iter=opts["max_iter"],
                     cvx_solver=opts["cvx_solver"], solver_options=opts["solver_options"],
                     accept_inaccurate=opts["accept_inaccurate"])


def _one_block(objective: RankingObjective, opts: dict[str, Any]) -> SolveResult:
    """SGD's line-search rule on one block: up to ``epochs`` cutting-plane rounds, stopped
    at the certified ``tol`` unless neither ``certify`` nor ``early_stopping`` asks for a
    stopping rule."""
    stop = opts["certify"] or opts["early_stopping"]
    progress = _Progress(opts["epochs"], f"sgd {objective.surrogate.name}", opts["progress"],
                         None, objective.C)
    try:
        return run_one_block(objective, opts["epochs"], opts["tol"] if stop else None,
                             progress if progress.active else None)
    finally:
        progress.close()


def _minibatch(objective: RankingObjective, method: str, opts: dict[str, Any], size: int
               ) -> SolveResult:
    rng = make_rng(opts["random_state"])
    config = MinibatchConfig(size, opts["epochs"], opts["shuffle"],
                             opts["tol"] if opts.get("early_stopping") else None,
                             opts["progress"])
    checkpoints = _checkpoints(objective, method, opts)
    mistakes = skipped = None
    if method == "perceptron":
        variant = objective.surrogate.perceptron
        state = PerceptronState(np.zeros(objective.Z.shape[1]))
        seconds = run_perceptron(state, objective, variant, config, rng, checkpoints)
        coef, mistakes, name = state.w, state.mistakes, f"perceptron@k-{variant}"
        detail = name
    else:
        rate = opts["learning_rate"]
        coef, seconds, skipped = run_sgd(objective, config, rng, rate, opts["eta0"],
                                         opts["average"], opts["radius"], checkpoints)
        name, detail = f"sgd ({rate})", rate
    lower = gap = None
    if checkpoints is None:
        value = objective.value(coef)
    else:  # the checkpoints saw the last epoch's model, and kept SGD's best
        coef, value, gap = checkpoints.model, checkpoints.value, checkpoints.gap
        lower = None if gap is None else checkpoints.lower
    stopped_early = len(seconds) < config.epochs  # a stopping rule ended the run
    return SolveResult(coef=coef, objective=value,
                       status="converged" if stopped_early else "completed", method=method,
                       detail=detail,
                       n_iter=len(seconds), epoch_times=np.array(seconds), mistakes=mistakes,
                       n_batches_skipped=skipped, lower_bound=lower, gap=gap,
                       message=f"{name}: {len(seconds)} epoch(s) of batches of {size}, "
                       f"objective {value:.6g}")


def _checkpoints(objective: RankingObjective, method: str, opts: dict[str, Any]
                 ) -> Checkpoints | None:
    """The checkpoints of a mini-batch run (:mod:`.checkpoints`): SGD keeps its best model
    at them, and with a certificate and ``tol`` both methods stop once certified. None
    for the perceptrons without ``tol`` and for SGD's projected form (which minimizes
    another problem)."""
    tol = opts["tol"] if opts["certify"] else None
    if opts.get("radius") is not None or (method == "perceptron" and tol is None):
        return None
    return Checkpoints(objective, tol, keep_best=method == "sgd")

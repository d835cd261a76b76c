"""Conformance checks that every registered surrogate passes.

Each check takes a registered surrogate name (and a seed) and raises ``AssertionError``
with a message naming the surrogate, the instance and the disagreement. The checks draw
tiny random lists, with tied scores in every other instance, and every cut-off the family
accepts on each list (found by asking the surrogate, :meth:`Surrogate.resolve_k`), so a
new surrogate needs no list of its own here. They compare

* the fast faces with the brute-force :attr:`Surrogate.definition` and with each other
  (``value``, ``subgradient``, ``value_and_subgradient``, the :class:`Bound` faces);
* the evaluation along a segment of scores that line searches use (:meth:`Bound.segment`);
* for convex surrogates: the subgradient inequality, convexity along random lines, the
  intercepts read off the subgradient where the surrogate declares them, and
  the cvxpy ``expression`` (solved with Clarabel) with the value; a non-convex surrogate's
  ``expression`` must raise, and a difference of convex functions must split correctly;
* the family rules: cut-off resolution, required classes, mini-batch cut-offs (a batch's
  loss is the definition on the batch), the convex-concave start;
* the mean over groups of :class:`cvxtop.solvers.objective.RankingObjective`.

In a test suite, :func:`parametrize_with_checks` makes one pytest case per surrogate and
check (like scikit-learn's ``parametrize_with_checks``)::

    from cvxtop.surrogates.checks import parametrize_with_checks

    @parametrize_with_checks()
    def test_surrogate(name, check):
        check(name)

and :func:`check_surrogate` runs every check on one name. The kit imports cvxpy only in
the checks of the cvxpy forms, and pytest only in :func:`parametrize_with_checks`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from .base import Bound, DifferenceOfConvex
from .registry import available, get

__all__ = ["checks_for", "check_surrogate", "parametrize_with_checks",
           "check_rules", "check_value_matches_definition", "check_faces_agree",
           "check_subgradient_where_smooth", "check_subgradient_inequality",
           "check_exact_intercepts",
           "check_convex_along_lines", "check_segment", "check_expression",
           "check_difference_of_convex",
           "check_minibatch_cutoffs", "check_group_means"]

Check = Callable[..., None]
VALUE_TOL = 1e-9      # fast faces against the enumeration (both exact up to rounding)
SOLVER_TOL = 1e-6     # cvxpy forms solved by Clarabel


# ---- instances --------------------------------------------------------------------------

def _draw_list(rng: np.random.Generator, ties: bool, max_pos: int, max_neg: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """A shuffled 0/1 list with scores on a half-integer grid (``ties``) or continuous."""
    n_pos, n_neg = int(rng.integers(0, max_pos + 1)), int(rng.integers(0, max_neg + 1))
    y = rng.permutation(np.r_[np.ones(n_pos, np.int64), np.zeros(n_neg, np.int64)])
    if ties:
        s = rng.integers(-2, 3, size=len(y)) / 2.0
    else:
        s = rng.standard_normal(len(y))
    return y, s


def _bindings(name: str, y: np.ndarray) -> list[Bound]:
    """The surrogate bound to ``y`` at every cut-off its family accepts there: each
    integer ``k`` and, if the family takes fractions, κ ∈ {0.3, 1.0}."""
    out = []
    for k in [*range(1, len(y) + 1), 0.3, 1.0]:
        try:
            out.append(get(name, k).bind_labels(y))
        except (ValueError, TypeError):
            continue
    return out


def _instances(name: str, seed: int, count: int, *, ties: bool | None = None
               ) -> Iterator[tuple[Bound, np.ndarray]]:
    """``count`` lists on which the surrogate is defined, each with every accepted cut-off;
    tied scores on every other list unless ``ties`` is given. Lists hold up to four items
    of each class, or up to six relevant and three irrelevant ones (small enough for the
    enumerations of :mod:`cvxtop.reference`)."""
    rng = np.random.default_rng(seed)
    drawn = 0
    while drawn < count:
        shape = (4, 4) if drawn % 4 < 2 else (6, 3)
        y, s = _draw_list(rng, drawn % 2 == 1 if ties is None else ties, *shape)
        bounds = _bindings(name, y)
        if not bounds:
            continue
        drawn += 1
        for bound in bounds:
            yield bound, s


def _where(bound: Bound, s: np.ndarray | None = None) -> str:
    scores = "" if s is None else f", s={np.round(s, 6).tolist()}"
    return (f"{bound.surrogate.name} with k={bound.surrogate.k!r} (resolved {bound.k}) on "
            f"y={bound.y.tolist()}{scores}")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _close(actual: float, expected: float, tol: float, what: str) -> None:
    _require(abs(actual - expected) <= tol * max(1.0, abs(expected)),
             f"{what}: got {actual!r}, expected {expected!r} (tolerance {tol:g})")


def _solve(objective: Any, constraints: list, what: str) -> float:
    import cvxpy as cp

    problem = cp.Problem(cp.Minimize(objective), constraints)
    problem.solve(solver=cp.CLARABEL)
    _require(problem.status == cp.OPTIMAL, f"{what}: Clarabel status {problem.status}")
    return float(problem.value)


# ---- checks -----------------------------------------------------------------------------

def check_rules(name: str, seed: int = 0) -> None:
    """The class declares its protocol attributes, and its family rules are consistent:
    the cut-off is a positive int, a list without relevant items is refused with a
    ``ValueError`` naming the labels, the whole list as one mini-batch has the list's
    cut-off, and a difference of convex functions starts its convex-concave procedure from
    a registered convex surrogate with the same cut-off."""
    sur = get(name, 1)
    cls = type(sur)
    _require(cls.name == name, f"{cls.__name__}.name is {cls.name!r}, registered as {name!r}")
    _require(isinstance(cls.convex, bool), f"{name}: convex must be a bool")
    _require(isinstance(cls.additive, bool), f"{name}: additive must be a bool")
    _require(callable(cls.definition), f"{name}: definition must be a function")
    _require(cls.perceptron in (None, "avg", "max"), f"{name}: perceptron must be None, "
             f"'avg' or 'max', got {cls.perceptron!r}")
    _require(cls.perceptron is None or cls.convex, f"{name}: a perceptron needs convexity")
    _require(isinstance(cls.intercept_from_irrelevant, bool) and
             (cls.convex or not cls.intercept_from_irrelevant),
             f"{name}: intercept_from_irrelevant must be a bool, True only for a convex loss")
    _require(isinstance(sur.batch_requirement(), str) and sur.batch_requirement(),
             f"{name}: batch_requirement() must describe what a batch needs")
    local = isinstance(sur, DifferenceOfConvex)  # minimized by the convex-concave procedure
    if not local:
        _require(cls.dca_start is None, f"{name}: dca_start is only for a difference of "
                 "convex functions")
    else:
        _require(cls.dca_start in available(), f"{name}: dca_start {cls.dca_start!r} is not "
                 "a registered surrogate")
        _require(type(get(cls.dca_start, 1)).convex, f"{name}: dca_start must be convex")
    no_relevant = np.zeros(4, np.int64)
    for method in (lambda: sur.require_classes(no_relevant, "labels"),
                   lambda: sur.bind(no_relevant, "labels")):
        try:
            method()
        except ValueError as exc:
            _require("labels" in str(exc) or "n₊" in str(exc),
                     f"{name}: the error for a list without relevant items does not name "
                     f"the labels: {exc}")
        else:
            raise AssertionError(f"{name} accepted a list without relevant items")
    for bound, _ in _instances(name, seed, 30):
        where = _where(bound)
        _require(isinstance(bound.k, int) and bound.k >= 1, f"{where}: bad cut-off")
        size = bound.surrogate.dcp_size(bound.n_pos, bound.n_neg)
        _require(isinstance(size, (int, np.integer)) and size >= 1, f"{where}: bad dcp_size")
        whole = bound.surrogate.batch_cutoff(bound.n_pos, bound.n_pos, bound.n)
        _require(whole == bound.k, f"{where}: the whole list as one batch has cut-off "
                 f"{whole}, the list {bound.k}")
        if local:
            start = get(cls.dca_start, bound.surrogate.k).bind_labels(bound.y)
            _require(start.k == bound.k, f"{where}: dca_start resolves k to {start.k}")


def check_value_matches_definition(name: str, seed: int = 0) -> None:
    """``value`` equals the brute-force definition on tiny lists, ties included, at every
    accepted cut-off."""
    checked = 0
    for bound, s in _instances(name, seed, 60):
        expected = float(type(bound.surrogate).definition(bound.y, s, bound.k))
        _close(bound.surrogate.value(bound.y, s), expected, VALUE_TOL,
               f"value against the definition, {_where(bound, s)}")
        checked += 1
    _require(checked >= 60, f"{name}: only {checked} instances were checked")


def check_faces_agree(name: str, seed: int = 0) -> None:
    """``value_and_subgradient`` is ``(value, subgradient)``; the bound faces equal the
    public ones; the subgradient is a finite float vector of the list's length; inputs are
    left unchanged; relabeling the items permutes the subgradient and keeps the value."""
    rng = np.random.default_rng(seed + 1)
    for bound, s in _instances(name, seed, 40):
        sur, y, where = bound.surrogate, bound.y, _where(bound, s)
        y_in, s_in = y.copy(), s.copy()
        value, grad = sur.value_and_subgradient(y, s)
        _require(isinstance(value, float) and np.isfinite(value), f"{where}: bad value")
        _require(isinstance(grad, np.ndarray) and grad.shape == s.shape
                 and grad.dtype == np.float64 and np.all(np.isfinite(grad)),
                 f"{where}: the subgradient must be a finite float64 array of shape {s.shape}")
        _require(value == sur.value(y, s), f"{where}: value_and_subgradient's value differs")
        _require(np.array_equal(grad, sur.subgradient(y, s)),
                 f"{where}: value_and_subgradient's subgradient differs")
        b_value, b_grad = bound.value_and_subgradient(s)
        _require(b_value == value and bound.value(s) == value, f"{where}: bound value differs")
        _require(np.array_equal(b_grad, grad) and np.array_equal(bound.subgradient(s), grad),
                 f"{where}: bound subgradient differs")
        _require(np.array_equal(y, y_in) and np.array_equal(s, s_in),
                 f"{where}: a face modified its input")
        if len(set(s.tolist())) == len(s):  # distinct scores: the subgradient is unique
            perm = rng.permutation(len(s))
            p_value, p_grad = sur.value_and_subgradient(y[perm], s[perm])
            _close(p_value, value, 1e-12, f"{where}: value after permuting the items")
            _require(np.allclose(p_grad, grad[perm], atol=1e-12),
                     f"{where}: the subgradient does not follow a permutation of the items")


def check_subgradient_where_smooth(name: str, seed: int = 0) -> None:
    """On continuous scores a piecewise-linear surrogate is differentiable with probability
    one and ``subgradient`` is its gradient (for a difference of convex functions, the
    difference of the parts' gradients): central differences agree."""
    rng = np.random.default_rng(seed + 2)
    h = 1e-6
    for bound, s in _instances(name, seed, 30, ties=False):
        grad = bound.subgradient(s)
        for d in rng.standard_normal((3, len(s))):
            slope = (bound.value(s + h * d) - bound.value(s - h * d)) / (2 * h)
            _close(slope, float(grad @ d), 1e-5,
                   f"directional derivative against the subgradient, {_where(bound, s)}")


def check_subgradient_inequality(name: str, seed: int = 0) -> None:
    """A convex surrogate's subgradient ``g`` at ``s`` satisfies
    ``f(s') >= f(s) + g·(s' − s)`` at nearby, far and tied points ``s'``."""
    if not type(get(name, 1)).convex:
        return
    rng = np.random.default_rng(seed + 3)
    for bound, s in _instances(name, seed, 50):
        value, grad = bound.value_and_subgradient(s)
        radii = np.repeat([1e-4, 1.0, 10.0], 6)[:, None]
        others = np.vstack([s + radii * rng.standard_normal((len(radii), len(s))),
                            rng.integers(-2, 3, (6, len(s))) / 2.0,  # ties everywhere
                            np.round(s), s + np.sign(rng.standard_normal(len(s))),
                            np.zeros_like(s)])  # ties broken, hinges at their kinks
        for s2 in others:
            _require(bound.value(s2) >= value + grad @ (s2 - s) - VALUE_TOL,
                     f"subgradient inequality fails toward s'={np.round(s2, 6).tolist()}, "
                     f"{_where(bound, s)}")


def check_exact_intercepts(name: str, seed: int = 0) -> None:
    """A surrogate with :attr:`Surrogate.exact_intercepts` reads, at every ``s``, the
    intercept ``b`` of its subgradient's piece off the subgradient ``g``
    (:meth:`Surrogate.intercept_of`): ``f(s) = b + g·s``, and ``b + g·s' ≤ f(s')`` (the
    definition, enumerated) at nearby, far and tied points ``s'``. Where it declares
    :attr:`Surrogate.intercept_from_irrelevant`, ``b`` is the sum of ``g`` over the
    irrelevant items, each ``g_i ≥ 0``."""
    surrogate = get(name, 1)
    if not surrogate.exact_intercepts:
        return
    rng = np.random.default_rng(seed + 9)
    for bound, s in _instances(name, seed, 50):
        value, grad = bound.value_and_subgradient(s)
        intercept = bound.surrogate.intercept_of(grad, bound.neg, bound.k)
        _require(intercept is not None,
                 f"no intercept read off the subgradient {grad.tolist()}, {_where(bound, s)}")
        if type(surrogate).intercept_from_irrelevant:
            _require(bool((grad[bound.neg] >= 0).all()),
                     f"a negative weight on an irrelevant item, {_where(bound, s)}")
            _close(intercept, float(grad[bound.neg].sum()), VALUE_TOL,
                   f"the intercept against Σ_(y=0) g, {_where(bound, s)}")
        _close(intercept + float(grad @ s), value, VALUE_TOL,
               f"the piece's intercept read off g plus g·s, {_where(bound, s)}")
        others = np.vstack([s + rng.standard_normal((4, len(s))),
                            10.0 * rng.standard_normal((4, len(s))),
                            rng.integers(-2, 3, (4, len(s))) / 2.0])
        for s2 in others:
            exact = bound.surrogate.definition(bound.y, s2, bound.k)
            _require(intercept + float(grad @ s2) <= exact + VALUE_TOL,
                     f"the piece b + g·s' lies above the definition at "
                     f"s'={np.round(s2, 6).tolist()}, {_where(bound, s)}")


def check_convex_along_lines(name: str, seed: int = 0) -> None:
    """A convex surrogate restricted to random lines has non-negative second differences,
    and lies below its chords between random pairs of points."""
    if not type(get(name, 1)).convex:
        return
    rng = np.random.default_rng(seed + 4)
    t = np.linspace(-3.0, 3.0, 25)
    for bound, s in _instances(name, seed, 40):
        for d in rng.standard_normal((2, len(s))):
            f = np.array([bound.value(s + ti * d) for ti in t])
            second = f[:-2] - 2 * f[1:-1] + f[2:]
            _require(second.min() >= -VALUE_TOL * max(1.0, np.abs(f).max()),
                     f"not convex along direction {np.round(d, 6).tolist()}, "
                     f"{_where(bound, s)}")
        a, b, lam = s + rng.standard_normal(len(s)), rng.standard_normal(len(s)), rng.random()
        chord = lam * bound.value(a) + (1 - lam) * bound.value(b)
        _require(bound.value(lam * a + (1 - lam) * b) <= chord + VALUE_TOL,
                 f"above its chord, {_where(bound, s)}")


def check_segment(name: str, seed: int = 0) -> None:
    """Along a segment ``s + τ·ds``, ``τ`` in ``[0, T]`` (:meth:`Bound.segment`, which may
    look only at the items that can reach a top ``k`` there), every point carries the
    value on the whole list, the slope ``g·ds`` of the subgradient ``g`` it builds, and for
    a convex surrogate that ``g`` satisfies the subgradient inequality. Directions and
    scores are tied in half the instances, and the points include both ends."""
    convex = type(get(name, 1)).convex
    rng = np.random.default_rng(seed + 9)
    for trial, (bound, s) in enumerate(_instances(name, seed, 40)):
        tied = trial % 2 == 1
        for _ in range(3):
            ds = (rng.integers(-2, 3, len(s)) / 2.0 if tied
                  else rng.standard_normal(len(s)))
            T = float(rng.choice([0.0, 0.25, 1.0, 4.0]))
            along = bound.segment(s, ds, T)
            for tau in (0.0, T, T * rng.random(), T / 2):
                x = s + tau * ds
                point = along(tau)
                where = f"segment ds={ds.tolist()}, T={T}, τ={tau}, {_where(bound, s)}"
                _close(point.loss, bound.value(x), VALUE_TOL, f"value on the {where}")
                g = point.subgradient()
                _require(g.shape == s.shape, f"{where}: subgradient of shape {g.shape}")
                _close(point.slope, float(g @ ds), VALUE_TOL, f"slope g·ds on the {where}")
                if convex:
                    for s2 in (s + rng.standard_normal(len(s)),
                               rng.integers(-2, 3, len(s)) / 2.0):
                        _require(bound.value(s2) >= point.loss + g @ (s2 - x) - VALUE_TOL,
                                 f"{where}: subgradient inequality fails toward "
                                 f"s'={np.round(s2, 6).tolist()}")


def check_expression(name: str, seed: int = 0) -> None:
    """A convex surrogate's cvxpy form is DCP and, minimized over its auxiliary variables
    (on constant scores, on a variable fixed to them and on an affine expression of such a
    variable), equals ``value``; a non-convex surrogate's ``expression`` raises
    ``ValueError``."""
    import cvxpy as cp

    sur_cls = type(get(name, 1))
    for i, (bound, s) in enumerate(_instances(name, seed, 10)):
        sur, where = bound.surrogate, _where(bound, s)
        if not sur_cls.convex:
            try:
                sur.expression(bound.y, cp.Variable(len(s)))
            except ValueError:
                continue
            raise AssertionError(f"{where}: a non-convex surrogate returned an expression")
        if i % 3 == 0:
            expr, constraints = sur.expression(bound.y, cp.Constant(s))
        else:
            x = cp.Variable(len(s))
            expr, constraints = sur.expression(bound.y, x if i % 3 == 1 else 2 * x - s)
            constraints = constraints + [x == s]
        _require(cp.Problem(cp.Minimize(expr), constraints).is_dcp(),
                 f"{where}: the expression is not DCP")
        _close(_solve(expr, constraints, where), bound.value(s), SOLVER_TOL,
               f"expression against value, {where}")


def check_difference_of_convex(name: str, seed: int = 0) -> None:
    """For ``f = G − H`` (:class:`DifferenceOfConvex`): ``G``'s cvxpy form is DCP, the
    ``H`` it implies (``G − f``) is convex with the given subgradient, and
    ``subgradient(f) + ∂H`` is a subgradient of ``G``."""
    import cvxpy as cp

    if not isinstance(get(name, 1), DifferenceOfConvex):
        return
    rng = np.random.default_rng(seed + 5)

    def big_g(bound: Bound, s: np.ndarray) -> float:
        expr, constraints = bound.convex_part_expression(cp.Constant(s))
        _require(cp.Problem(cp.Minimize(expr), constraints).is_dcp(),
                 f"{_where(bound, s)}: G's expression is not DCP")
        return _solve(expr, constraints, _where(bound, s))

    for bound, s in _instances(name, seed, 6):
        where = _where(bound, s)
        g_s, f_s = big_g(bound, s), bound.value(s)
        h_grad = bound.subtracted_subgradient(s)
        g_grad = bound.subgradient(s) + h_grad
        for s2 in s + rng.standard_normal((3, len(s))) * np.array([[0.1], [1.0], [5.0]]):
            g_s2, f_s2 = big_g(bound, s2), bound.value(s2)
            _require(g_s2 >= g_s + g_grad @ (s2 - s) - SOLVER_TOL * max(1.0, abs(g_s2)),
                     f"{where}: subgradient + ∂H is not a subgradient of G")
            _require((g_s2 - f_s2) >= (g_s - f_s) + h_grad @ (s2 - s)
                     - SOLVER_TOL * max(1.0, abs(g_s2)),
                     f"{where}: ∂H is not a subgradient of H = G − f")


def check_minibatch_cutoffs(name: str, seed: int = 0) -> None:
    """On a random partition of a list into batches, each batch's cut-off
    (:meth:`Surrogate.batch_cutoff`, with the list's ``n₊`` known or, on a stream, not) is
    a valid cut-off there and the batch's loss is the definition on the batch."""
    rng = np.random.default_rng(seed + 6)
    for bound, s in _instances(name, seed, 30):
        sur = bound.surrogate
        cuts = np.sort(rng.choice(np.arange(1, bound.n), size=min(2, bound.n - 1),
                                  replace=False)) if bound.n > 1 else []
        for idx in np.split(rng.permutation(bound.n), cuts):
            yb, sb = bound.y[idx], s[idx]
            n_pos_b = int(yb.sum())
            for total in (bound.n_pos, None):
                kb = sur.batch_cutoff(total, n_pos_b, len(yb))
                if kb is None:
                    continue
                where = f"batch {yb.tolist()} with cut-off {kb} of {_where(bound, s)}"
                _require(isinstance(kb, (int, np.integer)) and kb >= 1, f"{where}: bad cut-off")
                batch = sur.bind_cutoff(yb, kb)
                expected = float(type(sur).definition(yb, sb, kb))
                _close(batch.value(sb), expected, VALUE_TOL, f"batch loss, {where}")


def check_group_means(name: str, seed: int = 0) -> None:
    """The loss of :class:`~cvxtop.solvers.objective.RankingObjective` over groups is the
    mean of the groups' definitions, its score subgradient stacks the groups'
    subgradients divided by the number of groups, and (convex surrogates) its cvxpy form
    has the same value."""
    from ..solvers.objective import RankingObjective

    rng = np.random.default_rng(seed + 7)
    convex = type(get(name, 1)).convex
    for trial in range(12):
        lists, ks = [], []
        while len(lists) < int(rng.integers(2, 4)):
            y, s = _draw_list(rng, ties=bool(trial % 2), max_pos=4, max_neg=4)
            bounds = [b for b in _bindings(name, y) if isinstance(b.surrogate.k, int)]
            if bounds:
                lists.append((y, s))
                ks.append(bounds[-1].k)
        k = min(ks)  # one k valid on every group
        y = np.concatenate([yg for yg, _ in lists])
        s = np.concatenate([sg for _, sg in lists])
        ids = np.repeat(np.arange(len(lists)) * 7 + 3, [len(yg) for yg, _ in lists])
        order = rng.permutation(len(y))
        y, s, ids = y[order], s[order], ids[order]
        sur = get(name, k)
        try:
            objective = RankingObjective(np.eye(len(y)), y, sur, 1.0, ids)
        except ValueError:  # k invalid on some group (e.g. pAp@k's k <= n₋)
            continue
        where = f"{name} with k={k} on groups {ids.tolist()}, y={y.tolist()}"
        per_group = [(ids == g) for g in np.unique(ids)]
        expected = np.mean([sur.definition(y[m], s[m], k) for m in per_group])
        loss, grad = objective.loss_and_score_gradient(s)
        _close(loss, float(expected), VALUE_TOL, f"mean over groups, {where}")
        _close(objective.loss(s), loss, 1e-12, f"loss against loss_and_score_gradient, {where}")
        for m in per_group:
            _require(np.allclose(grad[m], sur.subgradient(y[m], s[m]) / len(per_group),
                                 atol=1e-12), f"{where}: group subgradient block differs")
        if convex and trial < 4:
            import cvxpy as cp

            expr, constraints = objective.loss_expression(cp.Constant(s))
            _close(_solve(expr, constraints, where), loss, SOLVER_TOL,
                   f"cvxpy mean over groups, {where}")


# ---- running the kit --------------------------------------------------------------------

CHECKS: tuple[Check, ...] = (
    check_rules, check_value_matches_definition, check_faces_agree,
    check_subgradient_where_smooth, check_subgradient_inequality,
    check_exact_intercepts, check_convex_along_lines, check_segment,
    check_expression, check_difference_of_convex, check_minibatch_cutoffs, check_group_means)


def checks_for(name: str) -> list[Check]:
    """The checks that apply to the surrogate ``name`` (convexity and difference-of-convex
    checks only where they mean something)."""
    sur = get(name, 1)
    skip = set()
    if not type(sur).convex:
        skip |= {check_subgradient_inequality, check_convex_along_lines}
    if not sur.exact_intercepts:
        skip.add(check_exact_intercepts)
    if not isinstance(sur, DifferenceOfConvex):
        skip.add(check_difference_of_convex)
    return [c for c in CHECKS if c not in skip]


def check_surrogate(name: str, seed: int = 0) -> None:
    """Run every applicable check on the registered surrogate ``name``."""
    for check in checks_for(name):
        check(name, seed)


def parametrize_with_checks(names: list[str] | None = None) -> Any:
    """A ``pytest.mark.parametrize("name, check", ...)`` decorator with one case per
    surrogate (default: every registered one, read when the decorator is built) and
    applicable check, with ids such as ``prec@k-avg-check_expression``."""
    import pytest

    cases = [(name, check) for name in (available() if names is None else names)
             for check in checks_for(name)]
    return pytest.mark.parametrize("name, check", cases,
                                   ids=[f"{n}-{c.__name__}" for n, c in cases])

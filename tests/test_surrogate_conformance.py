"""Every registered surrogate passes the conformance kit (cvxtop.surrogates.checks), and a
surrogate registered from outside the package is picked up by it with no list to edit."""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import numpy as np
import pytest

from cvxtop import surrogates
from cvxtop.surrogates import checks
from cvxtop.surrogates.base import Bound, PrecSurrogate


@checks.parametrize_with_checks()
def test_registered_surrogate(name, check):
    check(name)


def test_the_kit_covers_every_registered_surrogate_and_the_api_names():
    cases = checks.parametrize_with_checks().args[1]
    covered = {name for name, _ in cases}
    assert covered == set(surrogates.available())
    assert {"prec@k-struct", "prec@k-ramp", "prec@k-max", "prec@k-avg", "pap@k-avg",
            "pap@k-max", "pap@k-ts", "pap@k-ramp", "pap@k-ts-paper", "pauc-struct"} <= covered
    # convexity checks run exactly on the convex surrogates
    inequality = {name for name, check in cases if check is checks.check_subgradient_inequality}
    assert inequality == {n for n in covered if type(surrogates.get(n, 1)).convex}


# ---- a surrogate written outside the package ---------------------------------------------

def top_negative_hinge_definition(y_true: Any, y_score: Any, k: int) -> float:
    """By enumeration: the largest total hinge ``Σ_{i∈T} (1 + s_i − mean(s⁺))`` over sets
    ``T`` of at most ``k`` irrelevant items."""
    y, s = np.asarray(y_true), np.asarray(y_score, dtype=float)
    neg, mean_pos = np.flatnonzero(y == 0), s[y == 1].mean()
    best = 0.0
    for size in range(1, min(k, len(neg)) + 1):
        for subset in itertools.combinations(neg, size):
            best = max(best, float(sum(1 + s[i] - mean_pos for i in subset)))
    return best


class TopNegativeHinge(PrecSurrogate):
    """A toy convex prec@k-style surrogate: the ``k`` largest positive parts of
    ``1 + s⁻ − mean(s⁺)``."""

    name: ClassVar[str] = "test@k-top-negative-hinge"
    convex: ClassVar[bool] = True
    definition = staticmethod(top_negative_hinge_definition)

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        margins = 1 + s[b.neg] - s[b.pos].mean()
        order = np.argsort(-margins, kind="stable")[:b.k]
        chosen = order[margins[order] > 0]
        grad = np.zeros(len(s))
        grad[b.neg[chosen]] = 1.0
        grad[b.pos] = -len(chosen) / b.n_pos
        return float(margins[chosen].sum()), grad

    def _expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        import cvxpy as cp

        if b.n_neg == 0:
            return cp.Constant(0.0), []
        margins = cp.pos(1 + s[b.neg] - cp.sum(s[b.pos]) / b.n_pos)
        return cp.sum_largest(margins, min(b.k, b.n_neg)), []


@pytest.fixture
def registered_toy():
    surrogates.register(TopNegativeHinge)
    yield TopNegativeHinge.name
    surrogates.unregister(TopNegativeHinge.name)


def test_a_new_surrogate_is_one_class_and_the_kit_picks_it_up(registered_toy):
    name = registered_toy
    assert name in surrogates.available()
    cases = checks.parametrize_with_checks().args[1]
    assert {check for n, check in cases if n == name} == set(checks.checks_for(name))
    assert checks.check_expression in checks.checks_for(name)
    checks.check_surrogate(name)


def test_the_kit_catches_a_wrong_subgradient(registered_toy, monkeypatch):
    """A surrogate whose subgradient drops the relevant items' part fails the kit."""
    right = TopNegativeHinge._value_and_subgradient

    def wrong(self, b, s):
        value, grad = right(self, b, s)
        grad[b.pos] = 0.0
        return value, grad

    monkeypatch.setattr(TopNegativeHinge, "_value_and_subgradient", wrong)
    with pytest.raises(AssertionError, match="directional derivative"):
        checks.check_subgradient_where_smooth(registered_toy)
    with pytest.raises(AssertionError, match="subgradient inequality"):
        checks.check_subgradient_inequality(registered_toy)


def test_the_kit_catches_a_value_off_the_definition(registered_toy, monkeypatch):
    """Forgetting the hinge's positive part (summing the top k margins even when negative)
    disagrees with the definition on some list."""
    def no_floor(self, b, s):
        margins = 1 + s[b.neg] - s[b.pos].mean()
        top = np.sort(margins)[::-1][:b.k]
        return float(top.sum()), np.zeros(len(s))

    monkeypatch.setattr(TopNegativeHinge, "_value_and_subgradient", no_floor)
    with pytest.raises(AssertionError, match="value against the definition"):
        checks.check_value_matches_definition(registered_toy)


def test_the_kit_checks_a_declared_intercept_and_catches_a_wrong_one(registered_toy,
                                                                     monkeypatch):
    """The toy's pieces count the margin of 1 of the irrelevant items they rank, so it may
    declare its intercepts read off the subgradient; pAp@k-TS's margin-0 hinges may not
    (their weights add no constant), nor may a toy whose margin is 2."""
    assert checks.check_exact_intercepts not in checks.checks_for(registered_toy)
    monkeypatch.setattr(TopNegativeHinge, "intercept_from_irrelevant", True)
    assert checks.check_exact_intercepts in checks.checks_for(registered_toy)
    checks.check_exact_intercepts(registered_toy)
    monkeypatch.setattr(type(surrogates.get("pap@k-ts", 1)), "intercept_from_irrelevant", True)
    with pytest.raises(AssertionError, match="intercept"):
        checks.check_exact_intercepts("pap@k-ts")
    right = TopNegativeHinge._value_and_subgradient

    def margin_two(self, b, s):  # each chosen item's hinge 1 higher, the same weights
        value, grad = right(self, b, s)
        return value + float(grad[b.neg].sum()), grad

    monkeypatch.setattr(TopNegativeHinge, "_value_and_subgradient", margin_two)
    with pytest.raises(AssertionError, match="intercept"):
        checks.check_exact_intercepts(registered_toy)


def test_the_kit_catches_a_broken_expression(registered_toy, monkeypatch):
    import cvxpy as cp

    monkeypatch.setattr(TopNegativeHinge, "_expression",
                        lambda self, b, s: (cp.sum(cp.pos(1 + s[b.neg])), []))
    with pytest.raises(AssertionError, match="expression against value"):
        checks.check_expression(registered_toy)


def test_registering_twice_or_unregistering_an_unknown_name_is_refused(registered_toy):
    with pytest.raises(ValueError, match="already registered"):
        surrogates.register(TopNegativeHinge)
    with pytest.raises(ValueError, match="no surrogate named 'nope'"):
        surrogates.unregister("nope")


def test_batch_cutoff_of_an_int_k_is_exact_on_the_whole_list():
    """Regression found by the kit: k = 5 of n₊ = 6 went through the float 5/6, whose
    product with 6 rounds above 5, so a batch holding every relevant item got cut-off 6."""
    for name in ("prec@k-avg", "prec@k-struct"):
        sur = surrogates.get(name, 5)
        assert sur.batch_cutoff(6, 6, 8) == 5
        assert sur.batch_cutoff(6, 3, 4) == 3
        assert sur.batch_cutoff(6, 1, 4) == 1


def test_the_kit_checks_prec_svmperfs_intercepts_and_catches_a_wrong_count(monkeypatch):
    """prec@k-svmperf reads ``k·b/(a + b)`` off its labeling's counts: the kit runs the
    check on it, and an intercept that miscounts the predicted items fails it."""
    assert checks.check_exact_intercepts in checks.checks_for("prec@k-svmperf")
    checks.check_exact_intercepts("prec@k-svmperf")
    sur_type = type(surrogates.get("prec@k-svmperf", 1))

    def one_more(self, g, irrelevant, k):  # the labeling's size a + b counted one too many
        relevant = np.ones(len(g), dtype=bool)
        relevant[irrelevant] = False
        b = int(g[~relevant].sum())
        a = int(relevant.sum() + g[relevant].sum())
        return k * b / (a + b + 1)

    monkeypatch.setattr(sur_type, "intercept_of", one_more)
    with pytest.raises(AssertionError, match="intercept"):
        checks.check_exact_intercepts("prec@k-svmperf")

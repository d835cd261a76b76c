"""The cutting plane's master solved in the features' space from the cuts' rows
(:mod:`cvxtop.solvers.primal_master`), and how :func:`cvxtop.solvers.master.solve_master`
uses it where the Gram form's answer is poor."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop.solvers import master, primal_master
from cvxtop.solvers.cut_store import CutStore
from cvxtop.solvers.parallel_products import ProductThreads
from cvxtop.solvers.primal_master import primal_master_answer


def _store(n: int, d: int, cuts: int, seed: int, scale: float = 1.0) -> CutStore:
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d)) * scale
    store = CutStore(Z, capacity=2 * cuts, patience=1000, master="active-set",
                     solver="CLARABEL", options=None, threads=ProductThreads(None, 1))
    for g in rng.standard_normal((cuts, n)):
        store.add(Z.T @ g, g, float(rng.standard_normal()), (0.0, 0.0))
    return store


def _dual(store: CutStore, lam: np.ndarray, C: float) -> float:
    """``C(b·λ − ½C‖Hᵀλ‖²)``, the master's dual value, from the rows."""
    combined = lam @ store.cuts[:len(lam)]
    return C * (float(store.b[:len(lam)] @ lam) - 0.5 * C * float(combined @ combined))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [1e-3, 1.0, 1e3])
def test_its_weights_are_the_masters_optimum(seed, C):
    """On random well-conditioned stores the weights lie on the simplex, reach the optimum
    of the cvxpy master in the Gram form (to 1e-9 of its scale), and leave the master a gap
    of its own (the rows' objective at their point less their bound) of at most 1e-8 of
    that scale: Clarabel's tolerance."""
    store = _store(40, 6, 12, seed)
    lam, w = primal_master_answer(store, C)
    assert np.all(lam >= 0.0) and lam.sum() == pytest.approx(1.0)
    slots = np.flatnonzero(store.active)
    reference = np.zeros(len(store.b))
    reference[slots] = master.cvxpy_master(store.G[np.ix_(slots, slots)], store.b[slots] / C,
                                           "CLARABEL", None)
    scale = max(1.0, abs(_dual(store, reference, C)))
    assert _dual(store, lam, C) >= _dual(store, reference, C) - 1e-9 * scale
    Ha = store.combination(C * lam)
    bound = master._rigorous_bound(store, C * lam, Ha)
    assert 0.0 <= master.own_gap(store, C, -Ha, bound) <= 1e-8 * scale
    assert 0.0 <= master.own_gap(store, C, w, bound) <= 1e-8 * scale


def test_a_store_of_score_subgradients_gets_no_answer():
    """Wide data keep each cut as its score subgradient: there are no rows to solve from."""
    store = _store(5, 40, 4, 0)
    assert store.scores
    assert not primal_master.suits(store)
    assert primal_master_answer(store, 1.0) is None
    assert master.own_gap(store, 1.0, np.zeros(40), 0.0) == 0.0


def test_a_poor_gram_answer_of_an_exact_master_is_replaced(monkeypatch):
    """Where an exact master is asked for (a finite gap) and the Gram form's answer leaves
    a gap of its own above ``PRIMAL_RATIO`` times it, the answer from the rows takes its
    place: its own gap is rounding, and the bound returned is at least the Gram answer's."""
    store = _store(40, 6, 12, 1)
    C = 10.0
    used = store.used

    def uniform(G, c, start, **_):  # a feasible, far from optimal, Gram-form answer
        return np.full(used, 1.0 / used)

    monkeypatch.setattr(master, "solve_simplex_qp", uniform)
    monkeypatch.setattr(master, "_without_long_cuts", lambda G, c, lam, allowed, acc: lam)
    poor = np.full(used, C / used)
    poor_bound = master._rigorous_bound(store, np.r_[poor, np.zeros(len(store.b) - used)],
                                        store.combination(np.r_[poor, np.zeros(
                                            len(store.b) - used)]))
    w_c, bound = master.solve_master(store, C, gap=1e-9)
    assert bound >= poor_bound
    assert master.own_gap(store, C, w_c, bound) <= 1e-9 * abs(bound)
    assert store.primal_misses == 0
    # with no exact master asked for (gap inf), the Gram form's answer stands
    w_inf, bound_inf = master.solve_master(store, C, gap=np.inf)
    assert bound_inf == pytest.approx(poor_bound, rel=1e-12)


def test_tries_that_do_not_help_pause_doubling(monkeypatch):
    """A try that does not halve the master's own gap (here, no answer at all) pauses the
    next tries: 2, 4, 8, … exact masters, up to ``PRIMAL_PAUSE``."""
    store = _store(40, 6, 12, 2)
    used = store.used
    monkeypatch.setattr(master, "solve_simplex_qp",
                        lambda G, c, start, **_: np.full(used, 1.0 / used))
    monkeypatch.setattr(master, "_without_long_cuts", lambda G, c, lam, allowed, acc: lam)
    calls = []
    monkeypatch.setattr(primal_master, "primal_master_answer",
                        lambda store, C: calls.append(1))  # returns None
    tried_at = []
    for round_ in range(40):
        before = len(calls)
        master.solve_master(store, 10.0, gap=1e-12)
        if len(calls) > before:
            tried_at.append(round_)
    assert tried_at == [0, 3, 8, 17, 34]
    assert store.primal_wait <= master.PRIMAL_PAUSE


def test_a_repeat_at_the_masters_point_asks_the_rows_at_any_ratio(monkeypatch):
    """Where the cut of the master's own point is one the store holds (the cut model is
    exact there, so the cutting plane's gap is the master's), the rows are asked as soon
    as the master's own gap exceeds the cutting plane's, not ``PRIMAL_RATIO`` times it."""
    store = _store(40, 6, 12, 3)
    C = 10.0
    used = store.used
    monkeypatch.setattr(master, "solve_simplex_qp",
                        lambda G, c, start, **_: np.full(used, 1.0 / used))
    monkeypatch.setattr(master, "_without_long_cuts", lambda G, c, lam, allowed, acc: lam)
    w_c, bound = master.solve_master(store, C, gap=np.inf)
    poor_gap = master.own_gap(store, C, w_c, bound)
    assert poor_gap > 0.0
    gap = poor_gap / 10.0  # the master's own gap: 10 times the cutting plane's
    w_c, bound = master.solve_master(store, C, gap=gap)
    assert master.own_gap(store, C, w_c, bound) == pytest.approx(poor_gap, rel=1e-9)
    w_c, bound = master.solve_master(store, C, gap=gap, exact_at_point=True)
    assert master.own_gap(store, C, w_c, bound) <= 1e-9 * abs(bound)


def test_the_programs_own_point_where_its_weights_combine_long_rows_into_a_short_one():
    """Two rows of length 1e6 that the optimum weighs alike, at C = 1e6: ``−C·Σ λ_c h_c``
    is the difference of two numbers near 1e12 (it missed the optimum's first coordinate,
    0, by about 1e-5, an own gap of 17 times the objective, in the code before). The
    program's own ``w`` keeps it: the master's answer is that point, whose own gap is
    Clarabel's tolerance."""
    C, big = 1e6, 1e6
    store = CutStore(np.eye(3), capacity=8, patience=1000, master="active-set",
                     solver="CLARABEL", options=None, threads=ProductThreads(None, 1))
    for h, b in [((big, 1.0, 0.0), 0.0), ((-big, 1.0, 0.0), 0.0), ((0.0, -1.0, 0.0), 1.0),
                 ((0.3, 0.0, 1.0), -5.0)]:
        store.add(np.array(h), np.array(h), b, (0.0, 0.0))
    lam, w = primal_master_answer(store, C)
    Ha = store.combination(C * lam)
    bound = master._rigorous_bound(store, C * lam, Ha)
    assert bound == pytest.approx(0.5 * C, rel=1e-6)  # the loss ½ at w = (0, ½, 0)
    assert master.own_gap(store, C, w, bound) <= 1e-8 * bound
    w_c, master_bound = master.solve_master(store, C, gap=1e-3)
    assert master.own_gap(store, C, w_c, master_bound) <= 1e-8 * master_bound
    np.testing.assert_allclose(w_c, [0.0, 0.5, 0.0], atol=1e-6)

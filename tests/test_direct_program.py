"""The whole problem as one cvxpy program, as the direct engine's and as the cutting plane's
candidate where its gap stops falling (cvxtop.solvers.direct_program)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data
from cvxtop.solvers import direct_program, solve_cutting_plane
from cvxtop.solvers.objective import RankingObjective

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("name, k", [("prec@k-avg", 0.25), ("pap@k-avg", 5)])
def test_every_loss_weight_gives_the_same_problem(name, k):
    """``min ½‖v‖² + c·L(ρZv)`` with ``ρ² = C/c`` is the problem at every ``c``: the
    answers at both weights are the certified optimum to the interior point's accuracy (a
    candidate's objective is evaluated, never assumed), and their multipliers of the
    scores give cuts whose bounds are valid and as close."""
    X, y = make_ranking_data(300, 6, noise=0.5, random_state=1)
    objective = RankingObjective(X, y, surrogates.get(name, k), 3.0)
    optimum = solve_cutting_plane(objective, tol=1e-9)
    for weight in direct_program.LOSS_WEIGHTS:
        problem, v, rho = direct_program.program(objective, weight)
        assert rho == pytest.approx(np.sqrt(3.0 / weight))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # ECOS's "may be inaccurate"
            problem.solve(solver="ECOS", **direct_program.TIGHT)
        assert objective.value(rho * v.value) == pytest.approx(optimum.objective, rel=1e-5)
    found = direct_program.answers(objective)
    assert len(found) == len(direct_program.LOSS_WEIGHTS)
    for w, g in found:
        assert objective.value(w) == pytest.approx(optimum.objective, rel=1e-5)
        assert optimum.lower_bound <= objective.value(w) + 1e-12 * abs(objective.value(w))
        # the multipliers' cut: a valid bound, near the optimum
        cut = direct_program.cut_near(objective, g)
        assert cut.dual_value(3.0) <= optimum.objective + 1e-12 * abs(optimum.objective)
        assert cut.dual_value(3.0) == pytest.approx(optimum.objective, rel=1e-5)


def test_only_programs_of_a_bounded_size_are_tried(monkeypatch):
    """The program is tried up to MAX_SIZE auxiliary variables (the surrogates' own
    ``dcp_size``) and MAX_ENTRIES items times features: on a list of spambase's length the
    ``sum_largest`` forms are; the pAp@k forms with epigraph matrices are at k = 1, where
    they are written on one level (about n variables), and not at k = 50 (on the
    irrelevant items' pairs or on 50 levels); prec@k-svmperf's form, with a variable per
    labeling size and item, never is."""
    X, y = make_ranking_data(4600, 3, noise=0.5, random_state=1)
    matrices = {"pap@k-max", "pap@k-ts", "pauc-struct"}
    for name in surrogates.available():
        for k in (1, 50):
            surrogate = surrogates.get(name, k)
            objective = RankingObjective(X, y, surrogate, 1.0)
            if not surrogate.convex:
                assert not direct_program.suits(objective)
                continue
            tried = name != "prec@k-svmperf" and (k == 1 or name not in matrices)
            assert direct_program.suits(objective) is tried
            assert (objective.dcp_size() <= direct_program.MAX_SIZE) is tried
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 5), 1.0)
    monkeypatch.setattr(direct_program, "MAX_ENTRIES", 4600 * 3 - 1)
    assert not direct_program.suits(objective)


def test_a_stalled_gap_on_raw_features_is_certified_by_the_program(monkeypatch):
    """spambase's features as shipped (column scales 8,000-fold apart), prec@k-avg at
    C = 1e4: with the master's ridge pulling its answer towards 0, the rounds' gap stalls
    at 2.3e-6 while the bound is within 3e-7 of the optimum. The program's answer
    certifies it; without the candidate (or when the solver stops without a point) the
    solve ends at max_iter, and nothing else changes. (With the ridge's pull taken out
    once the bounds freeze, the default, the rounds certify it alone; so do they where a
    repeat at the master's point sends the master to the cuts' rows, which needs the
    intercepts read off the subgradients, here switched off as well.)"""
    import cvxtop.solvers.cutting_plane as rounds
    from cvxtop.surrogates.prec import SelectionSurrogate

    X, y = load_paper_dataset("spambase", DATA)
    fit = TopRanker("prec@k-avg", k=0.25, C=1e4, engine="cutting-plane").fit(X, y)
    assert fit.status_ == "optimal" and fit.gap_ <= 1e-6
    monkeypatch.setattr(rounds, "EXACT_MASTER_GAP", 0.0)
    monkeypatch.setattr(SelectionSurrogate, "intercept_from_irrelevant", False)
    certified = TopRanker("prec@k-avg", k=0.25, C=1e4, engine="cutting-plane").fit(X, y)
    assert certified.status_ == "optimal" and certified.gap_ <= 1e-6
    assert certified.solve_stats_["direct_solve_seconds"] > 0
    # an independent answer (Clarabel on the unscaled program, at tight tolerances) is
    # no lower than either certified bound
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 1e4)
    problem, v, _ = direct_program.program(objective)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    for model in (fit, certified):
        value = objective.value(v.value)
        assert model.lower_bound_ <= value + 1e-12 * abs(value)
    monkeypatch.setattr(direct_program, "answers", lambda objective, solver="ECOS", weights=(): [])
    with pytest.raises(SolverError, match="max_iter") as info:
        TopRanker("prec@k-avg", k=0.25, C=1e4, engine="cutting-plane").fit(X, y)
    assert info.value.status == "max_iter"


def test_ts_at_k_one_on_raw_features_is_certified_by_the_program():
    """pAp@k-TS at k = 1 on spambase as shipped, at the default C: the rounds' bounds stall
    near the optimum, where many irrelevant items tie at the top (it ended at max_iter
    before). The program on one level, solved by Clarabel first, gives the optimum, and its
    multipliers give TS's cut, whose dual value is the optimum: that certifies it."""
    X, y = load_paper_dataset("spambase", DATA)
    fit = TopRanker("pap@k-ts", k=1).fit(X, y)
    assert fit.status_ == "optimal" and fit.gap_ <= 1e-6
    assert fit.solve_stats_["direct_solve_seconds"] > 0
    # an independent answer (Clarabel on the unscaled program) is no lower than the bound
    objective = RankingObjective(X, y, surrogates.get("pap@k-ts", 1), 1.0)
    problem, v, _ = direct_program.program(objective)
    problem.solve(solver="CLARABEL")
    value = objective.value(v.value)
    assert fit.lower_bound_ <= value + 1e-12 * abs(value)
    assert fit.objective_ == pytest.approx(value, rel=1e-6)
    (w, g), = direct_program.answers(objective, "CLARABEL", (1e2,))
    cut = direct_program.cut_near(objective, g)
    assert fit.objective_ - 1e-7 * fit.objective_ <= cut.dual_value(1.0) <= fit.objective_


@pytest.mark.parametrize("name, k", [("prec@k-avg", 0.25), ("prec@k-max", 0.25),
                                     ("prec@k-struct", 0.25), ("pap@k-avg", 5),
                                     ("pap@k-ts", 1)])
def test_a_cut_near_any_vector_is_valid(name, k):
    """Whatever the score vector (noise, or far from the polytope), a cut built from it is
    a point of the dual form's polytope: its bound is below the loss at random scores (the
    closed form, checked against the brute-force definition elsewhere) and below the
    certified optimum. (The selection
    polytope's move may give up on noise; it must not on the optimum's own point.)"""
    X, y = make_ranking_data(60, 4, noise=0.5, random_state=2)
    objective = RankingObjective(X, y, surrogates.get(name, k), 2.0)
    optimum = solve_cutting_plane(objective, tol=1e-9)
    rng = np.random.default_rng(0)
    vectors = [scale * rng.standard_normal(60) for scale in (1e-3, 1.0, 30.0)]
    exact = direct_program.answers(objective)[0][1]
    assert direct_program.cut_near(objective, exact) is not None
    for g in vectors + [exact]:
        cut = direct_program.cut_near(objective, g)
        if cut is None:
            assert objective.surrogate.dual_form == "selection"
            continue
        assert cut.dual_value(2.0) <= optimum.objective + 1e-12 * abs(optimum.objective)
        for _ in range(5):
            s = 3.0 * rng.standard_normal(60)
            loss = objective.loss_and_score_gradient(s)[0]
            assert cut.intercept + cut.g @ s <= loss + 1e-9 * max(1.0, abs(loss))


def test_a_grouped_objective_gets_answers_but_no_dual_cut():
    """On several lists the program is the mean of their losses: its answers are the
    certified optimum, and no dual form's cut is built (the duals over the items are those
    of one list)."""
    X, y = make_ranking_data(240, 5, noise=0.5, random_state=3)
    groups = np.repeat(np.arange(4), 60)
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.5), 2.0, groups=groups)
    optimum = solve_cutting_plane(objective, tol=1e-9)
    found = direct_program.answers(objective)
    assert found and direct_program.suits(objective)
    for w, g in found:
        assert objective.value(w) == pytest.approx(optimum.objective, rel=1e-5)
        assert direct_program.cut_near(objective, g) is None

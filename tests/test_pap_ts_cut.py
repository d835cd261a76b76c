"""pAp@k-TS's cut read off a score vector (cvxtop.solvers.pap_ts_cut): valid whatever the
vector, and tight at a subgradient's own scores, for every valid k."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop import surrogates
from cvxtop.solvers import pap_ts_cut
from cvxtop.solvers.objective import RankingObjective
from conftest import tiny_instance


def on_scores(y: np.ndarray, k: int = 1) -> RankingObjective:
    """The objective whose features are the identity: its weights are the scores."""
    return RankingObjective(np.eye(len(y)), y, surrogates.get("pap@k-ts", k), 1.0)


def test_only_ts_on_one_list_is_served():
    y = np.array([1, 0, 1, 0, 0])
    assert pap_ts_cut.suits(on_scores(y)) and pap_ts_cut.suits(on_scores(y, k=3))
    other = RankingObjective(np.eye(5), y, surrogates.get("pap@k-max", 1), 1.0)
    assert not pap_ts_cut.suits(other)


@pytest.mark.parametrize("ties", [False, True])
def test_the_cut_of_a_subgradient_is_tight_at_its_scores(ties):
    """At a subgradient of the loss at ``s``, the cut is that subgradient's: its value at
    ``s`` is the loss there (the intercept's best θ is found)."""
    rng = np.random.default_rng(61)
    for _ in range(300):
        y, s = tiny_instance(rng, max_pos=6, max_neg=6, ties=ties)
        for k in range(1, int((y == 0).sum()) + 1):
            objective = on_scores(y, k)
            loss, g = objective.loss_and_score_gradient(s)
            cut = pap_ts_cut.cut_near(objective, g)
            assert cut.intercept + cut.g @ s == pytest.approx(loss, abs=1e-12)


@pytest.mark.parametrize("scale", [1e-3, 0.3, 1.0, 30.0])
def test_the_cut_of_any_vector_is_below_the_loss_everywhere(scale):
    """Noise in place of a subgradient (out of the box, of either sign, summing to
    anything) still gives a valid cut: never above the loss, at scores with ties and
    without, and its scores' coefficients sum to zero as the loss's shift asks."""
    rng = np.random.default_rng(62)
    for _ in range(200):
        y, _ = tiny_instance(rng, max_pos=6, max_neg=6)
        objective = on_scores(y, int(rng.integers(1, (y == 0).sum() + 1)))
        cut = pap_ts_cut.cut_near(objective, scale * rng.standard_normal(len(y)))
        assert abs(cut.g.sum()) <= 1e-12 * max(1.0, np.abs(cut.g).sum())
        for ties in (False, True):
            for _ in range(4):
                s = rng.integers(-2, 3, len(y)) / 2.0 if ties \
                    else 2.0 * rng.standard_normal(len(y))
                loss = objective.loss_and_score_gradient(s)[0]
                assert cut.intercept + cut.g @ s <= loss + 1e-12 * max(1.0, abs(loss))

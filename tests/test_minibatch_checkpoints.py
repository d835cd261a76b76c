"""Checkpoints of the mini-batch methods (cvxtop.solvers.checkpoints): SGD keeps its best
model, stops once certified within ``tol``, and the batch size ``"auto"`` grows with the
data for the line-search rule only."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_info, threadpool_limits

from cvxtop import TopRanker, surrogates
from cvxtop._threads import callers_thread_count, single_threaded_blas
from cvxtop.cli import main as cli_main
from cvxtop.datasets import make_ranking_data
from cvxtop.solvers import RankingObjective
from cvxtop.solvers.checkpoints import Checkpoints, is_checkpoint
from conftest import gap_scale_of
from cvxtop.solvers.minimize import resolve_batch_size


@pytest.fixture(scope="module")
def data():
    return make_ranking_data(1500, 8, noise=0.3, random_state=4)


def test_checkpoints_are_powers_of_two_and_the_last_epoch():
    assert [e for e in range(1, 26) if is_checkpoint(e, 25)] == [1, 2, 4, 8, 16, 25]
    assert [e for e in range(1, 5) if is_checkpoint(e, 4)] == [1, 2, 4]


def test_checkpoints_keep_the_best_model_and_combine_lower_bounds(data):
    X, y = data
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", 0.25), 0.1)
    good = TopRanker("prec@k-avg", C=0.1).fit(X, y).coef_
    bad = good + np.random.default_rng(0).standard_normal(X.shape[1])
    best = Checkpoints(objective, tol=None, keep_best=True)
    last = Checkpoints(objective, tol=None, keep_best=False)
    for w in (bad, good, bad):
        assert not best(w) and not last(w)
    np.testing.assert_array_equal(best.model, good)
    np.testing.assert_array_equal(last.model, bad)
    assert best.value == objective.value(good) and best.gap is None
    # with a tolerance: the bound found at the bad model still counts for the good one
    certified = Checkpoints(objective, tol=1e-3, keep_best=True, rounds=100)
    assert not certified(bad)
    lower = certified.lower
    assert certified(good)
    assert certified.lower >= lower and certified.gap <= 1e-3
    assert certified.lower <= objective.value(good) * (1 + 1e-9)


def test_sgd_objective_never_rises_with_more_epochs(data):
    """A run of e epochs is the start of a longer one, and the best checkpoint is kept (at
    this C the iterate itself rises from epoch 2 to 4: 3.92 to 4.25)."""
    X, y = data
    values = [TopRanker("prec@k-avg", C=0.1, solver="sgd", epochs=e, random_state=0,
                        certify=False).fit(X, y).objective_ for e in (1, 2, 4, 8, 16, 32)]
    assert all(b <= a for a, b in zip(values, values[1:]))


def test_sgd_stops_at_the_first_certified_checkpoint(data):
    X, y = data
    exact = TopRanker("prec@k-struct", C=0.01).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        # batches of 250 (the whole list would be one block, whose epochs are cutting-plane
        # rounds that stop at any round: cvxtop.solvers.one_block)
        model = TopRanker("prec@k-struct", C=0.01, solver="sgd", epochs=200, tol=0.02,
                          batch_size=250, random_state=0).fit(X, y)
    assert model.n_iter_ < 200 and is_checkpoint(model.n_iter_, 200)
    assert model.status_ == "converged" and model.gap_ <= 0.02
    assert model.objective_ - exact.objective_ <= model.gap_ * gap_scale_of(model) + 1e-9
    assert len(model.epoch_times_) == model.n_iter_


@pytest.mark.parametrize("C", [0.003, 0.01, 0.1, 1.0])
@pytest.mark.parametrize("epochs", [3, 5])
def test_status_is_converged_exactly_when_the_gap_meets_tol(data, C, epochs):
    """Also when the last epoch, not a power of two, is the one certified."""
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = TopRanker("prec@k-avg", C=C, solver="sgd", epochs=epochs, tol=0.02,
                          random_state=0).fit(X, y)
    assert (model.status_ == "converged") == (model.gap_ <= 0.02)


def test_perceptron_with_tol_stops_once_certified_and_without_runs_every_epoch(data):
    """The perceptrons do not minimize the objective (they end about 90% above it here), so
    the test takes a loose tol that a checkpoint meets."""
    X, y = data
    kw = dict(k=0.25, C=100.0, solver="perceptron", epochs=40, random_state=0)
    stopped = TopRanker("prec@k-avg", tol=0.9, **kw).fit(X, y)
    assert stopped.n_iter_ < 40 and is_checkpoint(stopped.n_iter_, 40)
    assert stopped.status_ == "converged" and stopped.gap_ <= 0.9
    full = TopRanker("prec@k-avg", **kw).fit(X, y)
    assert full.n_iter_ == 40


@pytest.mark.parametrize("n, method, rule, expected", [
    (1_000, "sgd", "line-search", 1_000), (100_000, "sgd", "line-search", 100_000),
    (200_000, "sgd", "line-search", 3125),
    (100_000, "sgd", "inverse", 500), (100_000, "perceptron", None, 500)])
def test_auto_batch_size(n, method, rule, expected):
    assert resolve_batch_size("auto", n, method, rule) == expected
    assert resolve_batch_size(40, n, method, rule) == 40


def test_auto_batch_of_a_surrogate_that_does_not_split_is_the_whole_list():
    pap, prec = surrogates.get("pap@k-avg", 10), surrogates.get("prec@k-avg", 0.25)
    assert resolve_batch_size("auto", 10**6, "sgd", "line-search", pap) == 10**6
    assert resolve_batch_size("auto", 10**6, "sgd", "line-search", prec) == 15625
    assert resolve_batch_size("auto", 10**6, "sgd", "inverse", pap) == 500
    assert resolve_batch_size(40, 10**6, "sgd", "line-search", pap) == 40


@pytest.mark.parametrize("size", [0, -3, 2.5, "big", True])
def test_bad_batch_size_is_refused_by_name(data, size):
    X, y = data
    with pytest.raises(ValueError, match="batch_size must be a positive integer or 'auto'"):
        TopRanker(solver="sgd", batch_size=size).fit(X, y)


def test_cli_batch_size_takes_auto_or_a_positive_integer(tmp_path, capsys):
    X, y = make_ranking_data(300, 3, random_state=0)
    path = tmp_path / "d.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,label",
               comments="")
    assert cli_main(["fit", str(path), "--solver", "sgd", "--batch-size", "auto"]) == 0
    for bad in ("0", "many"):
        assert cli_main(["fit", str(path), "--solver", "sgd", "--batch-size", bad]) == 2
        assert "--batch-size" in capsys.readouterr().err


def blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def test_blas_limit_nests_and_restores():
    before = blas_threads()
    with single_threaded_blas():
        assert set(blas_threads()) <= {1}
        with single_threaded_blas():
            assert set(blas_threads()) <= {1}
        assert set(blas_threads()) <= {1}
    assert blas_threads() == before


def test_callers_thread_count_is_the_callers_blas_setting_inside_the_limit():
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with threadpool_limits(2, user_api="blas"):
        assert callers_thread_count() == 1  # outside the limit: no threads to hand out
        with single_threaded_blas():
            assert callers_thread_count() == min(2, cpus)
            assert set(blas_threads()) <= {1}  # BLAS itself stays at one thread
    with threadpool_limits(1, user_api="blas"), single_threaded_blas():
        assert callers_thread_count() == 1  # a caller with one thread keeps one
"""The declared parameter tables (cvxtop.parameters): complete, rendered in the docs,
checked once, and a parameter the chosen method ignores is never silent."""

import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest

from cvxtop import AATP, TopRanker, TopRankerCV
from cvxtop.aatp.estimator import PARAMETERS as AATP_PARAMETERS
from cvxtop.estimators import PARAMETERS as TOPRANKER_PARAMETERS
from cvxtop.parameters import IgnoredParameterWarning, Param, ParameterTable
from cvxtop.predtron import Binary, KernelPredtron, Predtron, PredtronLink

DOCS = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
TABLES = [(TOPRANKER_PARAMETERS, TopRanker), (AATP_PARAMETERS, AATP),
          (Predtron.PARAMETERS, Predtron), (PredtronLink.PARAMETERS, PredtronLink),
          (KernelPredtron.PARAMETERS, KernelPredtron), (TopRankerCV.PARAMETERS, TopRankerCV)]
X = np.random.default_rng(0).standard_normal((30, 3))
Y = (X[:, 0] > 0.4).astype(int)
Y[:2] = [1, 0]


@pytest.mark.parametrize("table, cls", TABLES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_constructor_parameter_has_one_row(table, cls):
    signature = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    assert list(table.names()) == signature


@pytest.mark.parametrize("table, cls", [TABLES[0], TABLES[1], TABLES[3], TABLES[4], TABLES[5]],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_the_docs_show_the_tables_of_the_code(table, cls):
    assert table.markdown(cls) in DOCS.read_text()


@pytest.mark.parametrize("model, name", [
    (TopRanker(eta0=0.5), "eta0"),
    (TopRanker(solver="sgd", engine="direct"), "engine"),
    (TopRanker(solver="gd", batch_size=10), "batch_size"),
    (TopRanker(solver="perceptron", average=False), "average"),
    (TopRanker(gram_rtol=1e-6), "gram_rtol"),
    (AATP(gamma=0.5), "gamma"),
    (AATP(solver="cvxpy", screen=False), "screen"),
    (KernelPredtron(Binary(), degree=2), "degree"),
])
def test_a_parameter_the_method_ignores_is_reported(model, name):
    with pytest.warns(IgnoredParameterWarning, match=f"^{name} is read with"):
        model.check_params()


@pytest.mark.parametrize("model", [
    TopRanker(), TopRanker(solver="sgd", eta0=0.5, random_state=3), TopRanker(solver="gd"),
    TopRanker(kernel="precomputed", gram_rtol=1e-6), AATP(kernel="rbf", gamma=0.5), AATP(),
    KernelPredtron(Binary(), kernel="poly", degree=2), Predtron(Binary()),
])
def test_defaults_and_parameters_that_are_read_say_nothing(model):
    with warnings.catch_warnings():
        warnings.simplefilter("error", IgnoredParameterWarning)
        model.check_params()


def test_radius_for_another_solver_is_refused():
    with pytest.raises(ValueError, match="radius is read with solver='sgd' only"):
        TopRanker(radius=1.0).fit(X, Y)


def test_fit_warns_once_and_still_fits():
    with pytest.warns(IgnoredParameterWarning) as record:
        TopRanker(k=2, eta0=0.5).fit(X, Y)
    assert sum(issubclass(r.category, IgnoredParameterWarning) for r in record) == 1


def test_check_params_returns_the_checked_values():
    values = AATP(tau=np.float32(0.1), C=2).check_params()
    assert values["tau"] == 0.1 and type(values["C"]) is float


def test_a_model_file_of_ignored_parameters_loads_without_a_warning(tmp_path):
    from cvxtop.model_io import load_model, save_model

    with pytest.warns(IgnoredParameterWarning):
        model = TopRanker(k=2, eta0=0.5).fit(X, Y)
    save_model(model, tmp_path / "m.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error", IgnoredParameterWarning)
        assert load_model(tmp_path / "m.json").estimator.eta0 == 0.5


def test_a_table_checks_in_its_order_and_reads_defaults_from_the_signature():
    class Toy:
        def __init__(self, how="a", size=3):
            self.how, self.size = how, size

    table = ParameterTable("how", (
        Param("how", "`a` or `b`", lambda v, n: v),
        Param("size", "int", lambda v, n: int(v), ("b",)),
    ))
    assert table.defaults(Toy) == {"how": "a", "size": 3}
    assert table.check(Toy(size=3.0)) == {"how": "a", "size": 3}  # equal to the default
    with pytest.warns(IgnoredParameterWarning, match="size is read with how='b' only"):
        table.check(Toy(size=4))
    assert "| `size` | `3` | int | `how='b'` |" in table.markdown(Toy)


def test_parameters_are_keyword_only_and_positional_use_is_deprecated():
    with pytest.warns(FutureWarning, match=r"pass k, C to TopRanker by keyword"):
        model = TopRanker("prec@k-max", 2, 0.5)
    assert (model.surrogate, model.k, model.C) == ("prec@k-max", 2, 0.5)
    with pytest.warns(FutureWarning, match="pass tau to AATP by keyword"):
        assert AATP(0.1).tau == 0.1
    with pytest.warns(FutureWarning, match="pass eta to Predtron by keyword"):
        assert Predtron(Binary(), 0.5).eta == 0.5
    with pytest.raises(TypeError, match="multiple values for k"):
        TopRanker("prec@k-max", 2, k=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TopRanker("prec@k-max", k=2).get_params()["k"] == 2
    assert "k" in inspect.signature(TopRanker).parameters


def test_reads_answers_from_the_rows():
    assert TOPRANKER_PARAMETERS.reads("random_state", "sgd")
    assert not TOPRANKER_PARAMETERS.reads("random_state", "exact")
    assert TOPRANKER_PARAMETERS.reads("C", "perceptron")


def test_renamed_names_still_work_with_a_future_warning(tmp_path):
    import json

    from cvxtop.model_io import load_model, save_model
    from cvxtop.predtron import batch_reference
    from cvxtop.solvers import RankingObjective, solve_cutting_plane, solve_direct
    from cvxtop import surrogates

    with pytest.warns(FutureWarning, match=r"AATP\(progress=...\) is now verbose=..."):
        model = AATP(tau=0.2, progress=False)
    assert model.get_params()["verbose"] is False and "progress" not in model.get_params()
    with pytest.raises(TypeError, match="got both progress and verbose"):
        AATP(progress=True, verbose=True)
    objective = RankingObjective(X, Y, surrogates.get("prec@k-avg", 2), 1.0)
    with pytest.warns(FutureWarning, match=r"solve_direct\(solver=...\) is now cvx_solver"):
        old = solve_direct(objective, solver="CLARABEL")
    assert old.objective == pytest.approx(solve_direct(objective, cvx_solver="CLARABEL").objective)
    with pytest.warns(FutureWarning,
                      match=r"solve_cutting_plane\(solver=...\) is now cvx_solver"):
        plane = solve_cutting_plane(objective, solver="CLARABEL")
    assert plane.objective == pytest.approx(old.objective, rel=1e-6)
    with pytest.warns(FutureWarning, match="is now cvx_solver"):
        batch_reference(Binary(), X, Y, solver="CLARABEL")
    # a model file written before the rename still loads
    path = tmp_path / "aatp.json"
    save_model(AATP(tau=0.2).fit(X, Y), path)
    document = json.loads(path.read_text())
    document["params"]["progress"] = document["params"].pop("verbose")
    path.write_text(json.dumps(document))
    assert load_model(path).estimator.verbose is False
    document["params"]["verbose"] = True
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="former and its current name"):
        load_model(path)


def test_former_attribute_names_read_the_new_ones_with_a_future_warning(tmp_path):
    from cvxtop.model_io import load_model, save_model

    model = AATP(tau=0.2).fit(X, Y)
    for old, new in [("candidate_gap_", "quantile_distance_"),
                     ("candidate_gaps_", "candidate_quantile_distances_"),
                     ("candidate_gap_bounds_", "candidate_quantile_distance_bounds_")]:
        with pytest.warns(FutureWarning, match=f"AATP.{old} is now {new}"):
            np.testing.assert_array_equal(getattr(model, old), getattr(model, new))
    assert model.gap_ == model.result_.gap
    save_model(model, tmp_path / "m.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = load_model(tmp_path / "m.npz").estimator
    np.testing.assert_array_equal(loaded.candidate_quantile_distance_bounds_,
                                  model.candidate_quantile_distance_bounds_)
    assert loaded.quantile_distance_ == model.quantile_distance_
    assert loaded.gap_ == pytest.approx(model.gap_, rel=1e-12)

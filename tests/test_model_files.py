"""Model files: every fitted estimator round-trips bit for bit through .json and .npz, saved
files match the published JSON Schema, and a file with a broken field is refused by a
ModelFileError naming the file and the field (never a traceback from numpy). Random
perturbations of every field are probed in tests/test_reliability.py."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from cvxtop import AATP, TopRanker
from cvxtop.model_io import (FORMAT_VERSION, ModelFileError, load_model, model_document,
                             save_model)
from cvxtop.predtron import (Binary, FiniteProblem, KernelPredtron, Multiclass, Multilabel,
                             MultilabelRanking, Ordinal, Predtron, PredtronLink, SubsetRanking)

SCHEMA = json.loads((Path(__file__).parents[1] / "docs" / "schemas" / "model.schema.json")
                    .read_text())
RNG = np.random.default_rng(7)
X = RNG.standard_normal((40, 3))
Y = (X[:, 0] + 0.5 * RNG.standard_normal(40) > 0.6).astype(int)
X_NEW = RNG.standard_normal((9, 3))


def _rbf(A, B):
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-0.3 * np.maximum(sq, 0))


def _vector_data(m):
    return RNG.standard_normal((30, 3)), RNG.integers(0, m, 30)


def _fitted():
    """(name, estimator, new inputs to score) for every kind of model a file can hold."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Xm, ym = _vector_data(3)
        Xr, yr = RNG.standard_normal((15, 4, 2)), RNG.integers(0, 3, (15, 4))
        Xl, yl = RNG.standard_normal((25, 3)), RNG.integers(0, 2, (25, 4))
        rep = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
        loss = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
        return [
            ("ranker-linear", TopRanker(k=0.5).fit(X, Y), X_NEW),
            ("ranker-pap", TopRanker("pap@k-avg", k=3, C=2.0).fit(X, Y), X_NEW),
            ("ranker-perceptron", TopRanker(solver="perceptron", random_state=0).fit(X, Y),
             X_NEW),
            ("ranker-precomputed", TopRanker(kernel="precomputed").fit(X @ X.T, Y),
             X_NEW @ X.T),
            ("aatp-linear", AATP(tau=0.2).fit(X, Y), X_NEW),
            ("aatp-rbf", AATP(tau=0.2, kernel="rbf", gamma=0.5).fit(X, Y), X_NEW),
            ("aatp-precomputed", AATP(tau=0.2, kernel="precomputed").fit(X @ X.T, Y),
             X_NEW @ X.T),
            ("predtron-binary", Predtron(Binary(costs=(1.0, 2.0))).fit(X, Y), X_NEW),
            ("predtron-multiclass", Predtron(Multiclass(3, reject_cost=0.4)).fit(Xm, ym), X_NEW),
            ("predtron-ordinal", Predtron(Ordinal(3)).fit(Xm, ym), X_NEW),
            ("predtron-multilabel", Predtron(Multilabel(4, loss="subset_01")).fit(Xl, yl), X_NEW),
            ("predtron-ranking", Predtron(SubsetRanking(4)).fit(Xr, yr),
             RNG.standard_normal((3, 4, 2))),
            ("predtron-ml-ranking", Predtron(MultilabelRanking(4)).fit(Xl, yl), X_NEW),
            ("predtron-finite", Predtron(FiniteProblem(rep, loss)).fit(Xm, ym % 2), X_NEW),
            ("predtron-link", PredtronLink(Multiclass(3), r=1.5).fit(Xm, ym), X_NEW),
            ("kernel-predtron", KernelPredtron(Multiclass(3), kernel="rbf", gamma=0.7)
             .fit(Xm, ym), X_NEW),
        ]


FITTED = _fitted()
IDS = [name for name, _, _ in FITTED]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("name, estimator, Z", FITTED, ids=IDS)
def test_every_estimator_round_trips_bit_for_bit(tmp_path, suffix, name, estimator, Z):
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    save_model(estimator, first)
    loaded = load_model(first)
    assert type(loaded.estimator) is type(estimator)
    assert loaded.format_version == FORMAT_VERSION
    np.testing.assert_array_equal(loaded.decision_function(Z), estimator.decision_function(Z))
    for attr, value in vars(estimator).items():
        if attr.endswith("_") and not attr.startswith("_") and hasattr(loaded.estimator, attr):
            if isinstance(value, (np.ndarray, int, float, str, bool)) or value is None:
                np.testing.assert_array_equal(getattr(loaded.estimator, attr), value,
                                              err_msg=attr)
    save_model(loaded, second)
    assert first.read_bytes() == second.read_bytes()


def test_fitted_attributes_that_matter_are_all_stored(tmp_path):
    """Scoring and reporting attributes survive; only run-time records (epoch times, the
    solve record, the progress stream) are left out."""
    left_out = {"epoch_times_", "result_", "solve_stats_"}
    for name, estimator, _ in FITTED:
        if isinstance(estimator, KernelPredtron):
            continue  # its state is support_rows_/dual_coef_ (properties), checked above
        path = tmp_path / f"{name}.json"
        save_model(estimator, path)
        loaded = load_model(path).estimator
        public = {a for a in vars(estimator) if a.endswith("_") and not a.startswith("_")}
        assert public - left_out <= set(vars(loaded)), name


def test_a_loaded_predtron_learns_on_exactly_as_the_original(tmp_path):
    Xm, ym = _vector_data(3)
    first = PredtronLink(Multiclass(3)).partial_fit(Xm[:15], ym[:15])
    path = tmp_path / "p.npz"
    save_model(first, path)
    resumed = load_model(path).estimator.partial_fit(Xm[15:], ym[15:])
    first.partial_fit(Xm[15:], ym[15:])
    np.testing.assert_array_equal(resumed.coef_, first.coef_)
    assert resumed.mistakes_ == first.mistakes_


@pytest.mark.parametrize("name, estimator, Z", FITTED, ids=IDS)
def test_saved_files_follow_the_published_schema(tmp_path, name, estimator, Z):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    path = tmp_path / "m.json"
    save_model(estimator, path, info={"note": name, "n": 3, "nested": {"ok": [1, None]}})
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)
    npz = np.load(_saved(tmp_path, estimator, ".npz"), allow_pickle=False)
    jsonschema.validate(json.loads(str(npz["document"])), SCHEMA)


def _saved(tmp_path, estimator, suffix=".json", **kwargs):
    path = tmp_path / f"model{suffix}"
    save_model(estimator, path, **kwargs)
    return path


def test_standardization_names_and_info_are_stored(tmp_path):
    mean, scale = X.mean(axis=0), X.std(axis=0)
    model = TopRanker(k=0.5).fit((X - mean) / scale, Y)
    path = _saved(tmp_path, model, mean=mean, scale=scale, feature_names=["a", "b", "c"],
                  info={"data": "x.csv", "items": 40})
    loaded = load_model(path)
    assert loaded.feature_names == ("a", "b", "c")
    assert loaded.info == {"data": "x.csv", "items": 40}
    np.testing.assert_allclose(loaded.decision_function(X_NEW),
                               model.decision_function((X_NEW - mean) / scale), rtol=1e-12)
    import scipy.sparse as sp

    np.testing.assert_allclose(loaded.decision_function(sp.csr_matrix(X_NEW)),
                               loaded.decision_function(X_NEW), rtol=1e-12)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X_NEW[:, ::-1], columns=["c", "b", "a"])  # any column order
    np.testing.assert_allclose(loaded.decision_function(frame),
                               loaded.decision_function(X_NEW), rtol=1e-12)


def test_a_callable_kernel_is_passed_again_when_loading(tmp_path):
    model = AATP(tau=0.2, kernel=_rbf).fit(X, Y)
    path = _saved(tmp_path, model)
    assert json.loads(path.read_text())["params_not_saved"] == ["kernel"]
    with pytest.raises(ModelFileError, match="field 'kernel'.*pass the same callable"):
        load_model(path)
    np.testing.assert_array_equal(load_model(path, kernel=_rbf).decision_function(X_NEW),
                                  model.decision_function(X_NEW))
    linear = _saved(tmp_path, AATP(tau=0.2).fit(X, Y), ".npz")
    with pytest.raises(ValueError, match="not a callable one"):
        load_model(linear, kernel=_rbf)


@pytest.mark.parametrize("call, exception, message", [
    (lambda p: save_model(TopRanker(), p), ValueError, "not fitted"),
    (lambda p: save_model(object(), p), TypeError, "save_model stores"),
    (lambda p: save_model(TopRanker().fit(X, Y), p.with_suffix(".txt")), ValueError,
     "must end in .json or .npz"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, mean=np.zeros(3)), ValueError,
     "both mean and scale"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, mean=np.zeros(3), scale=np.zeros(3)),
     ValueError, "scale must hold values > 0"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, mean=np.zeros(2), scale=np.ones(2)),
     ValueError, r"mean must have shape \(3,\)"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, feature_names=["a"]), ValueError,
     "1 names for 3 features"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, info={"x": float("nan")}), ValueError,
     "info must hold JSON values"),
    (lambda p: save_model(TopRanker().fit(X, Y), p, info=[1]), TypeError, "info must be"),
    (lambda p: save_model(Predtron(Binary()).fit(X, Y), p, mean=np.zeros(3), scale=np.ones(3)),
     ValueError, "applies to feature inputs of TopRanker and AATP"),
])
def test_save_model_refuses_what_it_cannot_store(tmp_path, call, exception, message):
    with pytest.raises(exception, match=message):
        call(tmp_path / "m.json")


def test_a_problem_subclass_is_not_stored_as_its_parent(tmp_path):
    class MyBinary(Binary):
        pass

    with pytest.raises(TypeError, match="MyBinary is not one of them"):
        save_model(Predtron(MyBinary()).fit(X, Y), tmp_path / "m.json")


# ---- crafted files ---------------------------------------------------------------------------
def _document(estimator=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator = estimator or TopRanker(k=0.5).fit(X, Y)
    mean, scale = (X.mean(0), X.std(0)) if isinstance(estimator, TopRanker) else (None, None)
    return model_document(estimator, mean=mean, scale=scale, feature_names=["a", "b", "c"],
                          info={"items": 40})


def _write(tmp_path, document, name="m.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def _set(doc, path, value):
    *parents, last = path
    for key in parents:
        doc = doc[key]
    doc[last] = value


BROKEN = [
    # (what, path in the document, new value, field named in the error)
    ("NaN coefficient", ("arrays", "coef", "data", 1), float("nan"), "arrays.coef.data"),
    ("infinite coefficient", ("arrays", "coef", "data", 0), float("inf"), "arrays.coef.data"),
    ("zero scale", ("arrays", "scale", "data", 2), 0.0, "arrays.scale"),
    ("negative scale", ("arrays", "scale", "data", 0), -1.0, "arrays.scale"),
    ("info not a dict", ("info",), "items: 40", "info"),
    ("a newer format", ("format_version",), FORMAT_VERSION + 1, "format_version"),
    ("format version zero", ("format_version",), 0, "format_version"),
    ("format version as a string", ("format_version",), "1", "format_version"),
    ("not a cvxtop model", ("format",), "something-else", "format"),
    ("coef too short", ("arrays", "coef", "shape"), [2], "arrays.coef.shape"),
    ("data shorter than shape", ("arrays", "coef", "data"), [1.0, 2.0], "arrays.coef.data"),
    ("nested list as coef data", ("arrays", "coef", "data"), [[1.0], [2.0], [3.0]],
     "arrays.coef.data"),
    ("strings as coef data", ("arrays", "coef", "data"), ["a", "b", "c"], "arrays.coef.data"),
    ("booleans as coef data", ("arrays", "coef", "data"), [True, False, True],
     "arrays.coef.data"),
    ("wrong dtype", ("arrays", "coef", "dtype"), "float32", "arrays.coef.dtype"),
    ("coef not an object", ("arrays", "coef"), [1.0, 2.0, 3.0], "arrays.coef"),
    ("unknown array", ("arrays", "weights"), {"dtype": "float64", "shape": [1], "data": [1]},
     "arrays.weights"),
    ("unknown estimator", ("estimator",), "LogisticRegression", "estimator"),
    ("bad C", ("params", "C"), -1.0, "params"),
    ("unknown surrogate", ("params", "surrogate"), "prec@k-nope", "params"),
    ("unknown parameter", ("params", "alpha"), 1.0, "params.alpha"),
    ("params not an object", ("params",), [1], "params"),
    ("kernel changed", ("kernel",), "rbf", "kernel"),
    ("n_features_in zero", ("n_features_in",), 0, "n_features_in"),
    ("n_features_in not an int", ("n_features_in",), 3.0, "n_features_in"),
    ("feature names too few", ("feature_names",), ["a"], "feature_names"),
    ("feature names not strings", ("feature_names",), [1, 2, 3], "feature_names"),
    ("objective a string", ("fitted", "objective"), "1.2", "fitted.objective"),
    ("objective missing", ("fitted",), {}, "fitted.objective"),
    ("unknown fitted value", ("fitted", "score"), 1.0, "fitted.score"),
    ("unknown top-level field", ("extra",), 1, "extra"),
    ("problem for a TopRanker", ("problem",), {"name": "Binary"}, "problem"),
    ("zero_model as 0", ("fitted", "zero_model"), 0, "fitted.zero_model"),
    ("NaN in info", ("info", "items"), float("nan"), "info"),
    ("NaN parameter", ("params", "random_state"), float("nan"), "params"),
]


@pytest.mark.parametrize("what, path, value, field", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_field_is_refused_by_name(tmp_path, what, path, value, field):
    document = _document()
    _set(document, path, value)
    file = _write(tmp_path, document)
    with pytest.raises(ModelFileError, match=f"{file}: field '{field}'") as info:
        load_model(file)
    assert info.value.field == field and info.value.path == str(file)
    assert len(str(info.value).splitlines()) == 1


def test_a_newer_format_names_both_versions(tmp_path):
    document = _document()
    document["format_version"] = 7
    document["cvxtop_version"] = "9.0"
    with pytest.raises(ModelFileError, match="format 7 .written by cvxtop 9.0.*reads format "
                       f"{FORMAT_VERSION} and older: upgrade"):
        load_model(_write(tmp_path, document))


@pytest.mark.parametrize("content, message", [
    ("[1, 2, 3]", "the JSON is a list, not an object"),
    ("{not json", "not a JSON model file"),
    ('{"coef": [1, 2], "info": {}}', "field 'format'"),  # an unversioned file of old
    ("[" * 100000, "not a JSON model file"),
])
def test_files_that_are_not_models_are_refused(tmp_path, content, message):
    path = tmp_path / "m.json"
    path.write_text(content)
    with pytest.raises(ModelFileError, match=message):
        load_model(path)


def test_binary_and_missing_files_are_refused_by_name(tmp_path):
    binary = tmp_path / "m.json"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(ModelFileError, match=f"{binary}: not a JSON model file"):
        load_model(binary)
    with pytest.raises(ModelFileError, match="no such file"):
        load_model(tmp_path / "none.json")
    with pytest.raises(ModelFileError, match="ends in .json or .npz"):
        load_model(_write(tmp_path, {}, "m.txt"))
    fake = tmp_path / "m.npz"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ModelFileError, match=f"{fake}: not a readable .npz"):
        load_model(fake)


def test_npz_members_are_checked_and_never_unpickled(tmp_path):
    model = TopRanker(k=0.5).fit(X, Y)
    good = _saved(tmp_path, model, ".npz")
    members = dict(np.load(good, allow_pickle=False))

    def write(**changes):
        path = tmp_path / "bad.npz"
        np.savez(path, **{**members, **changes})
        return path

    with pytest.raises(ModelFileError, match="not a readable .npz model file.*allow_pickle"):
        load_model(write(**{"array.coef": np.array([{"a": 1}], dtype=object)}))
    with pytest.raises(ModelFileError, match=r"field 'arrays.coef': the member 'array.coef' "
                       r"holds float64 of shape \(2,\)"):
        load_model(write(**{"array.coef": np.zeros(2)}))
    with pytest.raises(ModelFileError, match="field 'arrays.coef': entry 0 is nan"):
        load_model(write(**{"array.coef": np.array([np.nan, 1.0, 2.0])}))
    without = {k: v for k, v in members.items() if k != "array.coef"}
    path = tmp_path / "missing.npz"
    np.savez(path, **without)
    with pytest.raises(ModelFileError, match="member 'array.coef' is missing"):
        load_model(path)
    with pytest.raises(ModelFileError, match="no 'document' member"):
        load_model(_npz_without_document(tmp_path, members))


def _npz_without_document(tmp_path, members):
    path = tmp_path / "nodoc.npz"
    np.savez(path, **{k: v for k, v in members.items() if k != "document"})
    return path


def test_model_document_is_the_json_file(tmp_path):
    model = TopRanker(k=0.5).fit(X, Y)
    assert model_document(model, info={"a": 1}) == \
        json.loads(_saved(tmp_path, model, info={"a": 1}).read_text())


def test_a_standardization_is_refused_where_it_cannot_apply(tmp_path):
    """A Predtron model scores its inputs as given: mean/scale arrays in its file would be
    ignored, so the file is refused."""
    document = _document(Predtron(Multiclass(3)).fit(*_vector_data(3)))
    for name in ("mean", "scale"):
        document["arrays"][name] = {"dtype": "float64", "shape": [3], "data": [1.0] * 3}
    with pytest.raises(ModelFileError, match="field 'arrays.mean': not a field of this model"):
        load_model(_write(tmp_path, document))


def test_aatp_candidate_must_index_the_training_items(tmp_path):
    document = _document(AATP(tau=0.2).fit(X, Y))
    document["fitted"]["candidate"] = 40
    with pytest.raises(ModelFileError, match="field 'fitted.candidate': must index one of the "
                       "40 training items"):
        load_model(_write(tmp_path, document))
    document = _document(AATP(tau=0.2, kernel="rbf").fit(X, Y))
    document["arrays"]["X_fit"]["shape"] = [39, 3]
    document["arrays"]["X_fit"]["data"] = document["arrays"]["X_fit"]["data"][:117]
    with pytest.raises(ModelFileError, match="field 'arrays.X_fit': has 39 rows where the "
                       "other arrays have 40"):
        load_model(_write(tmp_path, document))


def test_predtron_problem_fields_are_checked(tmp_path):
    document = _document(Predtron(Multiclass(3)).fit(*_vector_data(3)))
    for problem, field in [({"name": "Multiclass", "m": 1, "reject_cost": None}, "problem"),
                           ({"name": "Multiclass"}, "problem.m"),
                           ({"name": "Unknown"}, "problem.name"),
                           ({"name": "Multiclass", "m": 3, "reject_cost": None, "x": 1},
                            "problem.x"),
                           ("Multiclass", "problem")]:
        document["problem"] = problem
        with pytest.raises(ModelFileError, match=f"field '{field}'"):
            load_model(_write(tmp_path, document))


def test_train_rows_round_trip_and_are_checked(tmp_path):
    K = X @ X.T
    model = AATP(tau=0.2, kernel="precomputed").fit(K, Y)
    rows = np.arange(100, 140)
    path = _saved(tmp_path, model, train_rows=rows)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.train_rows, rows)
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)
    wide = np.zeros((len(X_NEW), 140))
    wide[:, 100:] = X_NEW @ X.T
    np.testing.assert_allclose(loaded.decision_function(loaded.gram_columns(wide)),
                               model.decision_function(X_NEW @ X.T), rtol=1e-13)
    document = json.loads(path.read_text())
    document["arrays"]["train_rows"]["data"][1] = 100  # a repeated row
    with pytest.raises(ModelFileError, match="field 'arrays.train_rows'"):
        load_model(_write(tmp_path, document, "dup.json"))
    with pytest.raises(ValueError, match="train_rows applies to precomputed-kernel models"):
        save_model(TopRanker().fit(X, Y), tmp_path / "x.json", train_rows=np.arange(3))
    with pytest.raises(ValueError, match="40 distinct non-negative integers"):
        save_model(model, tmp_path / "x.json", train_rows=np.arange(39))

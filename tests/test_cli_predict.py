"""cvxtop predict on saved models, CSV files as pandas and R write them, the zero-model
report of cvxtop fit, and cvxtop bench's output directory."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cvxtop import AATP, TopRanker
from cvxtop.cli import main
from cvxtop.io import read_labeled_features

RNG = np.random.default_rng(5)
X = RNG.standard_normal((80, 3))
Y = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * RNG.standard_normal(80) > 0.7).astype(int)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def pandas_csv(tmp_path, name="items.csv", frame=None):
    """A CSV as ``DataFrame.to_csv`` writes it by default: an unnamed index column first."""
    path = tmp_path / name
    if frame is None:
        frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=Y)
    frame.to_csv(path)
    return path


def test_pandas_and_r_index_columns_are_not_features(tmp_path):
    data = read_labeled_features(pandas_csv(tmp_path))
    assert data.index_column == "" and data.feature_names == ("a", "b", "c")
    np.testing.assert_allclose(data.X, X, rtol=1e-15)
    r_style = tmp_path / "r.csv"
    r_style.write_text("rownames,a,b,c,label\n" + "\n".join(
        f"{i + 1},{a},{b},{c},{lab}" for i, ((a, b, c), lab) in enumerate(zip(X.tolist(), Y))))
    data = read_labeled_features(r_style)
    assert data.index_column == "rownames" and data.X.shape == (80, 3)
    # a first column named "index" that does not count the rows is a feature
    other = tmp_path / "other.csv"
    other.write_text("index,a,label\n" + "\n".join(
        f"{2 * i},{a},{lab}" for i, (a, lab) in enumerate(zip(X[:, 0].tolist(), Y))))
    assert read_labeled_features(other).X.shape == (80, 2)


def test_csv_errors_name_the_file_and_column(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,label\n1,2,0\n3,x,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: column 'b' is not numeric"):
        read_labeled_features(bad)
    bad.write_text("a,b,label\n1,2,0\n3,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: the rows do not all have the same number"):
        read_labeled_features(bad)
    bad.write_text("a,label\n1,2,0\n3,4,1\n")  # a header shorter than the rows
    with pytest.raises(ValueError, match="the first line has 2 columns and the next 3"):
        read_labeled_features(bad)
    bad.write_text("a,b,label\n")
    with pytest.raises(ValueError, match="has a header but no rows"):
        read_labeled_features(bad)
    bad.write_text("\n\n")
    with pytest.raises(ValueError, match="the file is empty"):
        read_labeled_features(bad)


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_predict_reproduces_the_fitted_scores(tmp_path, capsys, suffix):
    data = pandas_csv(tmp_path)
    model = tmp_path / f"model{suffix}"
    code, _, _ = run(capsys, "fit", data, "--surrogate", "prec@k-struct", "--C", "0.1",
                     "--standardize", "--model", model, "--json")
    assert code == 0
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    direct = TopRanker("prec@k-struct", C=0.1).fit(Xs, Y).decision_function(Xs)
    code, out, _ = run(capsys, "predict", model, data)
    assert code == 0
    np.testing.assert_allclose([float(v) for v in out.split()], direct, rtol=1e-6, atol=1e-9)
    # columns picked by name: reordered, without the label, with an extra column
    frame = pd.DataFrame(X, columns=["a", "b", "c"])[["c", "a", "b"]].assign(extra=1.0)
    code, out, _ = run(capsys, "predict", model, pandas_csv(tmp_path, "new.csv", frame),
                       "--json")
    got = json.loads(out)
    assert got["items"] == 80
    np.testing.assert_allclose(got["scores"], direct, rtol=1e-6, atol=1e-9)
    out_file = tmp_path / "scores.npy"
    assert run(capsys, "predict", model, data, "--output", out_file)[0] == 0
    np.testing.assert_allclose(np.load(out_file), direct, rtol=1e-6, atol=1e-9)


def test_predict_reads_headerless_npz_and_aatp_rbf_models(tmp_path, capsys):
    headerless = tmp_path / "train.dat"
    headerless.write_text("\n".join(",".join(repr(v) for v in row) + f",{lab}"
                                    for row, lab in zip(X.tolist(), Y)))
    model = tmp_path / "rbf.npz"
    code, _, _ = run(capsys, "aatp", headerless, "--kernel", "rbf", "--gamma", "0.5",
                     "--tau", "0.1", "--model", model, "--json", "--no-progress")
    assert code == 0
    direct = AATP(tau=0.1, kernel="rbf", gamma=0.5).fit(X, Y).decision_function(X)
    for data in (headerless, tmp_path / "items.npz"):
        np.savez(tmp_path / "items.npz", X=X)
        code, out, _ = run(capsys, "predict", model, data)
        assert code == 0
        np.testing.assert_allclose([float(v) for v in out.split()], direct, rtol=1e-7,
                                   atol=1e-9)


@pytest.mark.parametrize("content, message", [
    ("a,b\n1,2\n", "the model's feature columns ['c'] are not in the header"),
    ("1,2\n", "needs 3 columns (or 4 with the label last), found 2"),
])
def test_predict_errors_are_one_line(tmp_path, capsys, content, message):
    data = pandas_csv(tmp_path)
    model = tmp_path / "model.json"
    assert run(capsys, "fit", data, "--surrogate", "prec@k-struct", "--model", model,
               "--json")[0] == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    code, _, err = run(capsys, "predict", model, bad)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "predict", tmp_path / "none.json", data)
    assert code == 2 and "no such file" in err


def test_fit_reports_a_zero_model_in_every_output(tmp_path, capsys):
    """Relevant items at the mean of the irrelevant ones: prec@k-avg's optimum is zero."""
    rng = np.random.default_rng(0)
    Xz = rng.standard_normal((60, 2))
    Xz[:20] += Xz[20:].mean(axis=0) - Xz[:20].mean(axis=0)
    yz = np.r_[np.ones(20, int), np.zeros(40, int)]
    f = tmp_path / "zero.csv"
    pd.DataFrame(Xz, columns=["a", "b"]).assign(label=yz).to_csv(f, index=False)
    code, out, err = run(capsys, "fit", f, "--json")
    report = json.loads(out)
    assert code == 0 and report["training"]["zero_model"] is True
    assert any("zero model" in w for w in report["warnings"])
    assert "cvxtop fit: warning: the fit of prec@k-avg is the zero model" in err
    code, out, err = run(capsys, "fit", f)
    assert "The fitted model is the zero model" in out and "zero_model     True" in out


def test_bench_passes_out_and_json_to_the_runner(tmp_path, capsys, monkeypatch):
    import subprocess

    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd: calls.append(cmd) or
                        subprocess.CompletedProcess(cmd, 0))
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "run.py").write_text("")
    assert run(capsys, "bench", "--dir", tmp_path, "--quick", "--json", "--only", "x")[0] == 0
    assert calls[0][2:] == ["--out", "cvxtop-bench", "--quick", "--json", "--only", "x"]


# ---- precomputed kernels: labels-only files, training rows, scoring from a cross-Gram ----------
def _gram_files(tmp_path):
    F = RNG.standard_normal((60, 4))
    y = (F[:, 0] + 0.3 * RNG.standard_normal(60) > 0.5).astype(int)
    np.save(tmp_path / "K.npy", (F @ F.T).astype(np.float32))
    new = RNG.standard_normal((5, 4))
    np.save(tmp_path / "K_new_all.npy", new @ F.T)
    return F, y, new


@pytest.mark.parametrize("layout", ["csv with other columns", "headerless csv", "npy", "npz"])
def test_aatp_gram_takes_a_labels_only_file(tmp_path, capsys, layout):
    F, y, _ = _gram_files(tmp_path)
    if layout == "csv with other columns":
        labels = tmp_path / "labels.csv"
        labels.write_text("id,sequence,label\n" + "".join(f"s{i},ACGT,{v}\n"
                                                          for i, v in enumerate(y)))
    elif layout == "headerless csv":
        labels = tmp_path / "labels.csv"
        labels.write_text("".join(f"{v}\n" for v in y))
    elif layout == "npy":
        labels = tmp_path / "y.npy"
        np.save(labels, y)
    else:
        labels = tmp_path / "y.npz"
        np.savez(labels, y=y)
    code, out, err = run(capsys, "aatp", labels, "--gram", tmp_path / "K.npy", "--tau", "0.1",
                         "--json")
    assert code == 0, err
    direct = AATP(tau=0.1, kernel="precomputed").fit((F @ F.T).astype(np.float32), y)
    assert json.loads(out)["training"]["candidate"] == direct.candidate_


def test_a_precomputed_model_records_its_training_rows_and_scores_a_cross_gram(tmp_path,
                                                                               capsys):
    from cvxtop.model_io import load_model

    F, y, new = _gram_files(tmp_path)
    labels = tmp_path / "y.npy"
    np.save(labels, y)
    model_file = tmp_path / "m.json"
    code, _, err = run(capsys, "aatp", labels, "--gram", tmp_path / "K.npy", "--tau", "0.1",
                       "--test-size", "0.25", "--model", model_file)
    assert code == 0, err
    saved = load_model(model_file)
    rows = saved.train_rows
    assert rows.shape == (45,) and len(set(rows.tolist())) == 45 and saved.kernel == "precomputed"
    K = (F @ F.T).astype(np.float32)
    direct = AATP(tau=0.1, kernel="precomputed").fit(K[np.ix_(rows, rows)], y[rows])
    expected = direct.decision_function(new @ F[rows].T)
    # every item of the data file as columns: the model picks its training rows
    code, out, _ = run(capsys, "predict", model_file, "--gram", tmp_path / "K_new_all.npy",
                       "--json")
    assert code == 0
    np.testing.assert_allclose(json.loads(out)["scores"], expected, rtol=1e-6, atol=1e-9)
    # the training columns only, in the recorded order
    np.save(tmp_path / "K_new_train.npy", new @ F[rows].T)
    code, out, _ = run(capsys, "predict", model_file, "--gram", tmp_path / "K_new_train.npy",
                       "--json")
    np.testing.assert_allclose(json.loads(out)["scores"], expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("argv, message", [
    (["{model}", "{labels}"], "give the Gram matrix of the new items"),
    (["{model}"], "give the Gram matrix of the new items"),
    (["{model}", "--gram", "{bad}"], "must have one column per training item (45)"),
])
def test_predict_with_a_precomputed_model_names_what_is_missing(tmp_path, capsys, argv,
                                                                message):
    F, y, _ = _gram_files(tmp_path)
    labels = tmp_path / "y.npy"
    np.save(labels, y)
    np.save(tmp_path / "bad.npy", np.ones((3, 7)))
    model_file = tmp_path / "m.npz"
    assert run(capsys, "aatp", labels, "--gram", tmp_path / "K.npy", "--test-size", "0.25",
               "--model", model_file)[0] == 0
    files = {"model": model_file, "labels": labels, "bad": tmp_path / "bad.npy"}
    code, _, err = run(capsys, "predict", *[a.format(**files) for a in argv])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1

"""The cvxtop command: help, version, evaluate (all file layouts), demo, clean errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import cvxtop
from cvxtop import metrics
from cvxtop.cli import main

Y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
S = np.array([0.9, 0.8, 0.7, 0.1, 0.4, 0.2, 0.3, 0.0])


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"cvxtop {cvxtop.__version__}"
    code, out, _ = run(capsys)
    assert code == 0 and "evaluate" in out and "demo" in out


def test_python_dash_m_entry_point():
    done = subprocess.run([sys.executable, "-m", "cvxtop", "--version"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"cvxtop {cvxtop.__version__}"


def expected(k=2, tau=0.25):
    return {
        "precision_at_k": metrics.precision_at_k(Y, S, k),
        "pap_at_k": metrics.pap_at_k(Y, S, k),
        "roc_auc": metrics.roc_auc(Y, S),
        "partial_auc": metrics.partial_auc(Y, S, k),
        "average_precision": metrics.average_precision(Y, S),
        "precision_at_tau": metrics.precision_at_tau(Y, S, tau),
        "ndcg_at_tau": metrics.ndcg_at_tau(Y, S, tau),
        "positives_at_top": metrics.positives_at_top(Y, S),
    }


def check_json(out):
    got = json.loads(out)
    assert got["metrics"] == pytest.approx(expected())  # same keys, numbers as numbers
    assert (got["k"], got["tau"], got["items"], got["relevant"]) == (2, 0.25, 8, 3)
    assert got["groups"] is None and got["groups_used"] is None and got["errors"] == []


def test_evaluate_csv_with_header(tmp_path, capsys):
    f = tmp_path / "items.csv"
    f.write_text("label,score\n" + "\n".join(f"{a},{b}" for a, b in zip(Y, S)))
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "2", "--tau", "0.25", "--json")
    assert code == 0
    check_json(out)


def test_evaluate_csv_without_header_and_table_output(tmp_path, capsys):
    f = tmp_path / "items.csv"
    f.write_text("\n".join(f"{a},{b}" for a, b in zip(Y, S)))
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "2", "--tau", "0.25")
    assert code == 0
    assert "metric" in out and "precision_at_k" in out and f"{metrics.roc_auc(Y, S):.4f}" in out
    assert "8 items, 3 relevant; k = 2, tau = 0.25" in out


def test_evaluate_npz_and_svmlight(tmp_path, capsys):
    npz = tmp_path / "items.npz"
    np.savez(npz, y_true=Y, y_score=S)
    assert run(capsys, "evaluate", str(npz), "--k", "2", "--tau", "0.25", "--json")[0] == 0
    svm = tmp_path / "items.svm"
    svm.write_text("\n".join(f"{a} 1:{b}" for a, b in zip(Y, S)))
    code, out, _ = run(capsys, "evaluate", str(svm), "--k", "2", "--tau", "0.25", "--json")
    assert code == 0
    check_json(out)


def test_evaluate_separate_scores_and_labels(tmp_path, capsys):
    fs, fy = tmp_path / "s.txt", tmp_path / "y.npy"
    fs.write_text("\n".join(str(v) for v in S))
    np.save(fy, Y)
    code, out, _ = run(capsys, "evaluate", "--scores", str(fs), "--labels", str(fy), "--k", "2",
                       "--tau", "0.25", "--json")
    assert code == 0
    check_json(out)


def test_evaluate_groups_from_csv(tmp_path, capsys):
    f = tmp_path / "items.csv"
    g = ["a", "a", "a", "a", "b", "b", "b", "b"]
    f.write_text("user,y_true,y_score\n" + "\n".join(
        f"{u},{a},{b}" for u, a, b in zip(g, Y, S)))
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "1", "--tau", "0.25", "--json")
    got = json.loads(out)
    assert got["groups"] == 2
    for name, fn in metrics.METRICS.items():  # every metric: the mean over the groups
        params = {"k": 1} if name in ("precision_at_k", "pap_at_k", "partial_auc") else (
            {"tau": 0.25} if name in ("precision_at_tau", "ndcg_at_tau") else {})
        if name in got["metrics"]:
            assert got["metrics"][name] == pytest.approx(fn(Y, S, groups=g, **params)), name
            assert got["groups_used"][name] == 2
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "1", "--tau", "0.25")
    assert "mean over the 2 groups" in out and "groups used" in out
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "1", "--tau", "0.25", "--pooled",
                       "--json")
    assert json.loads(out)["metrics"]["roc_auc"] == metrics.roc_auc(Y, S)


def test_evaluate_groups_where_a_metric_is_undefined(tmp_path, capsys):
    f = tmp_path / "items.csv"
    y = [1, 0, 0, 0, 0, 1, 0, 1]  # group b: 4 items, 2 relevant; group a: one relevant
    f.write_text("qid,label,score\n" + "\n".join(
        f"{q},{a},{b}" for q, a, b in zip("aaaabbbb", y, S)))
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "3", "--json")
    got = json.loads(out)
    assert code == 0 and got["groups_used"]["pap_at_k"] == 1  # b has 2 < k irrelevant items
    b = slice(4, 8)
    assert got["metrics"]["pap_at_k"] == metrics.pap_at_k(np.array(y[:4]), S[:4], 3)
    assert got["metrics"]["roc_auc"] == pytest.approx(np.mean(
        [metrics.roc_auc(y[:4], S[:4]), metrics.roc_auc(y[b], S[b])]))


def test_undefined_metric_is_reported_not_fatal(tmp_path, capsys):
    f = tmp_path / "items.csv"
    f.write_text("label,score\n1,0.5\n0,0.2\n1,0.1\n")
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "2", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["metrics"]["pap_at_k"] is None and got["metrics"]["roc_auc"] == 0.5
    assert any(e.startswith("pap_at_k: k must satisfy") for e in got["errors"])
    code, out, _ = run(capsys, "evaluate", str(f), "--k", "2")
    assert "undefined: pap_at_k: k must satisfy" in out


@pytest.mark.parametrize("argv, message", [
    (["--k", "0"], "--k: must be a positive integer, got '0'"),
    (["--k", "x"], "--k: must be a positive integer"),
    (["--tau", "1"], "--tau: must be a number in (0, 1)"),
])
def test_evaluate_refuses_bad_options_with_exit_2(tmp_path, capsys, argv, message):
    f = tmp_path / "items.csv"
    f.write_text("label,score\n1,0.5\n0,0.2\n")
    code, _, err = run(capsys, "evaluate", str(f), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content, message", [
    ("label,score\n1,0.5\n0,abc\n", "column 'score' is not numeric"),
    ("a,b,c\n1,2,3\n", "the header needs a label column"),
    ("label,score\n2,0.5\n0,0.1\n", "bad.csv must hold binary labels"),
    ("label,score\n1,nan\n0,0.1\n", "bad.csv contains NaN"),
])
def test_bad_files_give_one_error_line(tmp_path, capsys, content, message):
    f = tmp_path / "bad.csv"
    f.write_text(content)
    code, out, err = run(capsys, "evaluate", str(f))
    assert code == 2
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_file_and_missing_arguments(capsys):
    code, _, err = run(capsys, "evaluate", "/nonexistent/file.csv")
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "evaluate")
    assert code == 2 and "nothing to evaluate" in err


def test_demo_runs_and_reports_metrics(capsys):
    code, out, _ = run(capsys, "demo", "--seed", "1", "--json")
    assert code == 0
    result = json.loads(out)
    assert "letter" in result["description"][1]
    scorers = [r["scorer"] for r in result["rows"]]
    assert any("random" in name for name in scorers)
    for row in result["rows"]:
        assert 0.0 <= row["roc_auc"] <= 1.0
        assert row["fit_seconds"] is None or isinstance(row["fit_seconds"], float)


def test_fit_trains_reports_and_saves(tmp_path, capsys):
    from cvxtop.model_io import load_model

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(120) > 0.8).astype(int)
    f = tmp_path / "train.csv"
    f.write_text("id,a,b,c,label\n" + "\n".join(
        f"{i},{a},{b},{c},{lab}" for i, ((a, b, c), lab) in enumerate(zip(X, y))))
    model_file = tmp_path / "model.npz"
    code, out, _ = run(capsys, "fit", str(f), "--drop", "id", "--k", "0.5", "--standardize",
                       "--test-size", "0.25", "--model", str(model_file), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["training"]["features"] == 3 and report["training"]["status"] == "optimal"
    assert isinstance(report["training"]["certified_gap"], float)
    assert report["training"]["certified_gap"] <= 1e-6
    assert report["training"]["zero_model"] is False and report["warnings"] == []
    assert set(report) >= {"training", "train", "test"}
    saved = load_model(model_file)
    assert saved.info["certified_gap"] == report["training"]["certified_gap"]
    assert saved.mean.shape == saved.scale.shape == (3,)  # --standardize is recorded
    assert saved.feature_names == ("a", "b", "c")
    scores = saved.decision_function(X)
    assert scores.shape == (120,)
    json_file = tmp_path / "model.json"
    assert run(capsys, "fit", str(f), "--drop", "id", "--solver", "sgd", "--model",
               str(json_file))[0] == 0
    assert load_model(json_file).estimator.coef_.shape == (3,)
    assert run(capsys, "fit", str(f), "--drop", "id", "--solver", "sgd", "--epochs", "2",
               "--model", str(json_file))[0] == 0
    assert load_model(json_file).estimator.epochs == 2


def test_fit_reports_the_cutoff_it_trained_on(tmp_path, capsys):
    """--k 0.55 with n₊ = 100 items in the training part: 0.55·100 is 55.000000000000007 in
    floating point; training and the report both use prec@55."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 2))
    y = np.zeros(400, dtype=int)
    y[:200] = 1
    X[y == 1] += 1.0
    f = tmp_path / "train.csv"
    f.write_text("a,b,label\n" + "\n".join(f"{a},{b},{lab}" for (a, b), lab in zip(X, y)))
    code, out, _ = run(capsys, "fit", str(f), "--k", "0.55", "--test-size", "0.5", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["training"]["relevant"] == 100
    assert report["training"]["cutoff"] == 55
    assert report["train"]["k"] == 55 and report["test"]["k"] == 55  # 100 relevant in each


def test_fit_leaves_out_queries_without_a_relevant_item_when_asked(tmp_path, capsys):
    """svmlight ranking data with a query of no relevant item (common in such data): the
    error's advice is the command line's flag, and the flag leaves that query out."""
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 3))
    y = (X[:, 0] + rng.standard_normal(120) > 0.5).astype(int)
    qid = np.repeat(np.arange(6), 20)
    y[qid == 4] = 0
    f = tmp_path / "ranking.svm"
    dump_svmlight_file(X, y, str(f), query_id=qid)
    code, _, err = run(capsys, "fit", str(f), "--k", "1")
    assert code == 2 and "group 4 is degenerate" in err
    assert "pass --skip-degenerate-groups" in err and "=True" not in err
    code, out, err = run(capsys, "fit", str(f), "--k", "1", "--skip-degenerate-groups",
                         "--json")
    assert code == 0 and "skipped 1 degenerate group(s) of 6" in err
    assert json.loads(out)["training"]["status"] == "optimal"


@pytest.mark.parametrize("argv, message", [
    (["--label-column", "nope"], "no column named 'nope' for the labels"),
    (["--drop", "zzz"], "no column named 'zzz'"),
    (["--k", "0"], "k must satisfy 1 <= k"),
    (["--surrogate", "prec@k-nope"], "unknown surrogate"),
    (["--test-size", "1.5"], "test_size must lie in (0, 1)"),
    (["--model", "out.txt"], "argument --model: must end in .json or .npz"),
])
def test_fit_errors_are_one_line(tmp_path, capsys, argv, message):
    f = tmp_path / "train.csv"
    f.write_text("a,label\n" + "\n".join(f"{i},{i % 3 == 0:d}" for i in range(30)))
    code, _, err = run(capsys, "fit", str(f), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_bench_outside_a_checkout_is_a_clear_error(tmp_path, capsys):
    code, _, err = run(capsys, "bench", "--quick", "--dir", str(tmp_path))
    assert code == 2 and "benchmarks/run.py not found" in err


def test_bench_passes_its_other_options_to_the_suite_runner(tmp_path, capfd):
    """``cvxtop bench`` declares only --dir and --out; the rest is benchmarks/run.py's own
    (here its refusal of an unknown benchmark), so the two cannot drift apart."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = main(["bench", "--dir", str(root), "--out", str(tmp_path), "--only", "nope"])
    assert code == 2 and "unknown benchmark(s): nope" in capfd.readouterr().err
    code = main(["evaluate", str(root / "README.md"), "--no-such-option"])
    assert code == 2 and "unrecognized arguments: --no-such-option" in capfd.readouterr().err


def _aatp_data(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(60) > 0.7).astype(int)
    f = tmp_path / "items.csv"
    f.write_text("a,b,c,label\n" + "\n".join(f"{a},{b},{c},{lab}" for (a, b, c), lab in zip(X, y)))
    return X, y, f


def test_aatp_command_linear_and_precomputed_agree(tmp_path, capsys):
    from cvxtop import AATP
    from cvxtop.model_io import load_model

    X, y, f = _aatp_data(tmp_path)
    model_file = tmp_path / "aatp.npz"
    code, out, _ = run(capsys, "aatp", str(f), "--tau", "0.1", "--C", "0.1", "--json",
                       "--model", str(model_file))
    assert code == 0
    linear = json.loads(out)["training"]
    direct = AATP(tau=0.1, C=0.1).fit(X, y)
    assert linear["candidate"] == direct.candidate_
    assert linear["objective"] == pytest.approx(direct.objective_, rel=1e-9)
    np.testing.assert_allclose(load_model(model_file).estimator.coef_, direct.coef_)
    gram = tmp_path / "K.npy"
    np.save(gram, X @ X.T)
    code, out, _ = run(capsys, "aatp", str(f), "--gram", str(gram), "--tau", "0.1",
                       "--C", "0.1", "--json")
    assert code == 0
    pre = json.loads(out)["training"]
    assert pre["candidate"] == linear["candidate"]
    assert pre["objective"] == pytest.approx(linear["objective"], rel=1e-6)


@pytest.mark.parametrize("argv, message", [
    (["--tau", "1.5"], "tau"),
    (["--C", "0"], "C"),
    (["--gram", "missing.npy"], "no such file"),
])
def test_aatp_command_errors_are_one_line(tmp_path, capsys, argv, message):
    _, _, f = _aatp_data(tmp_path)
    code, _, err = run(capsys, "aatp", str(f), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_aatp_command_rejects_a_gram_of_the_wrong_size(tmp_path, capsys):
    _, _, f = _aatp_data(tmp_path)
    gram = tmp_path / "K.npy"
    np.save(gram, np.eye(10))
    code, _, err = run(capsys, "aatp", str(f), "--gram", str(gram))
    assert code == 2 and "must be 60 x 60" in err


def test_aatp_command_on_a_full_rank_float32_gram_shows_candidates_done(tmp_path, capsys):
    """A float32 .npy Gram matrix (read memory-mapped) of full rank: the active-set engine,
    a progress bar of candidates done / total on stderr unless --no-progress, and the same
    fit with two workers."""
    from cvxtop import AATP
    from cvxtop.aatp.kernels import rbf_gram

    X, y, f = _aatp_data(tmp_path)
    K = rbf_gram(X, X, 1.0).astype(np.float32)
    gram = tmp_path / "K32.npy"
    np.save(gram, K)
    code, out, err = run(capsys, "aatp", str(f), "--gram", str(gram), "--tau", "0.1")
    assert code == 0 and "AATP candidates" in err and "60/60" in err
    code, out, err = run(capsys, "aatp", str(f), "--gram", str(gram), "--tau", "0.1",
                         "--json", "--n-jobs", "2")
    assert code == 0 and err == ""
    fitted = json.loads(out)["training"]
    direct = AATP(tau=0.1, kernel="precomputed").fit(K, y)
    assert direct.engine_ == "interior-point" and direct.gram_rank_ == 60
    assert fitted["candidate"] == direct.candidate_
    assert fitted["objective"] == pytest.approx(direct.objective_, rel=1e-9)
    code, _, err = run(capsys, "aatp", str(f), "--gram", str(gram), "--no-progress")
    assert code == 0 and err == ""

"""Every --json output of the command line follows docs/schemas/cli.schema.json: numbers as
numbers, null (never a string) where a value does not exist, an errors list saying why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from cvxtop.cli import main

ROOT = Path(__file__).parents[1]
CLI_SCHEMA = json.loads((ROOT / "docs" / "schemas" / "cli.schema.json").read_text())


def validate(command: str, output: str) -> dict:
    jsonschema.Draft202012Validator.check_schema(CLI_SCHEMA)
    document = json.loads(output)
    schema = {"$defs": CLI_SCHEMA["$defs"], "$ref": f"#/$defs/{command}"}
    jsonschema.Draft202012Validator(schema).validate(document)
    return document


def run_json(capsys, *argv: str) -> str:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture
def data_file(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((90, 3))
    y = (X[:, 0] + 0.4 * rng.standard_normal(90) > 0.7).astype(int)
    groups = np.repeat(np.arange(3), 30)
    path = tmp_path / "items.csv"
    path.write_text("a,b,c,label,group\n" + "\n".join(
        f"{a},{b},{c},{lab},{g}" for (a, b, c), lab, g in zip(X, y, groups)))
    return path


def test_evaluate_json_follows_the_schema_with_nulls_and_errors(tmp_path, capsys):
    path = tmp_path / "scored.csv"
    path.write_text("label,score,group\n" + "\n".join(
        f"{int(i % 4 == 0)},{np.sin(i)},{i % 2}" for i in range(40)))
    for argv in ([], ["--pooled"], ["--k", "15"], ["--k", "20", "--pooled"]):
        result = validate("evaluate", run_json(capsys, "evaluate", str(path), *argv))
        assert all(isinstance(v, (int, float)) or v is None for v in result["metrics"].values())
    # k = 15 exceeds the 10 irrelevant items of each group: pAp@k is null, and errors say why
    result = validate("evaluate", run_json(capsys, "evaluate", str(path), "--k", "15"))
    assert result["metrics"]["pap_at_k"] is None and result["errors"]


def test_fit_and_aatp_json_follow_the_schema(data_file, tmp_path, capsys):
    report = validate("fit", run_json(capsys, "fit", str(data_file), "--test-size", "0.34",
                                      "--model", str(tmp_path / "m.json")))
    assert set(report) == {"training", "warnings", "train", "test"}
    report = validate("fit", run_json(capsys, "fit", str(data_file), "--surrogate",
                                      "prec@k-ramp"))
    assert report["training"]["certified_gap"] is None  # non-convex: nothing certified
    report = validate("aatp", run_json(capsys, "aatp", str(data_file), "--tau", "0.2",
                                       "--kernel", "rbf"))
    assert isinstance(report["training"]["gamma"], float)


def test_predict_json_follows_the_schema(data_file, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["fit", str(data_file), "--model", str(model)]) == 0
    capsys.readouterr()
    result = validate("predict", run_json(capsys, "predict", str(model), str(data_file)))
    assert result["items"] == 90 == len(result["scores"])


def test_demo_json_follows_the_schema(capsys):
    result = validate("demo", run_json(capsys, "demo"))
    assert any(row["fit_seconds"] is None for row in result["rows"])  # the random scorer


def test_bench_json_follows_the_schema(tmp_path, capsys, monkeypatch):
    """The quickest benchmark through ``cvxtop bench`` (a subprocess: its JSON is read from
    the captured output of that process)."""
    import subprocess

    completed = subprocess.run(
        [sys.executable, "-m", "cvxtop", "bench", "--quick", "--only", "dcp_forms",
         "--out", str(tmp_path), "--dir", str(ROOT), "--json"],
        capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = validate("bench", completed.stdout)
    assert [b["name"] for b in result["benchmarks"]] == ["dcp_forms"]

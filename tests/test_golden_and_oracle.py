"""The golden cases shipped with cvxtop (rebuilt by `cvxtop golden` and compared), and
`cvxtop oracle`, which answers JSON Lines cases for projects in other languages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from cvxtop import metrics, reference, surrogates
from cvxtop.cli import main
from cvxtop.solvers import RankingObjective
from cvxtop.testing.golden import golden_path, golden_text, load_golden
from cvxtop.testing.oracle import answer, run_lines

ROOT = Path(__file__).parents[1]
GOLDEN = load_golden()
ORACLE_SCHEMA = {"$defs": json.loads((ROOT / "docs" / "schemas" / "cli.schema.json")
                                     .read_text())["$defs"], "$ref": "#/$defs/oracle"}


def test_the_shipped_file_is_what_the_command_writes(tmp_path):
    """Lists and cut-offs bit for bit; optima to the solver's certified accuracy."""
    out = tmp_path / "golden.json"
    assert main(["golden", "--out", str(out)]) == 0
    rebuilt = json.loads(out.read_text())
    assert {k: v for k, v in rebuilt.items() if k != "optima"} == \
        {k: v for k, v in GOLDEN.items() if k != "optima"}
    for new, old in zip(rebuilt["optima"], GOLDEN["optima"]):
        assert new["objective"] == pytest.approx(old["objective"], rel=1e-8)
        np.testing.assert_allclose(new["coef"], old["coef"], rtol=1e-5, atol=1e-8)
    assert golden_path().read_text() == golden_text(GOLDEN)  # the file's own formatting
    assert GOLDEN["format"] == "cvxtop-golden" and GOLDEN["version"] == 2


@pytest.mark.parametrize("case", GOLDEN["lists"], ids=lambda c: c["id"])
def test_golden_lists_agree_with_the_definitions(case):
    y, s, k = np.array(case["y"]), np.array(case["s"]), case["k"]
    for name, value in case["metrics"].items():
        parameter = metrics.PARAMETERS[name]
        args = [] if parameter is None else [case[parameter]]
        assert metrics.METRICS[name](y, s, *args) == value, name
    for name, entry in case["surrogates"].items():
        truth, convex = reference.SURROGATES[name]
        assert entry["value"] == truth(y, s, k)
        assert surrogates.get(name, k).value(y, s) == pytest.approx(entry["value"], abs=1e-9)
        if convex:  # the subgradient inequality at a few points
            g = np.array(entry["subgradient"])
            for other in (np.zeros_like(s), s + 1.0, -s, s + np.linspace(-1, 1, len(s))):
                bound = entry["value"] + g @ (other - s)
                assert truth(y, other, k) >= bound - 1e-9 * (1 + abs(bound)), name


def test_golden_cutoffs_and_optima_hold():
    from cvxtop.cutoff import prec_cutoff

    for case in GOLDEN["cutoffs"]:
        assert ("k" in case) != ("kappa" in case)  # one field: a count or a fraction
        assert isinstance(case["k"], int) if "k" in case else isinstance(case["kappa"], float)
        assert prec_cutoff(case.get("k", case.get("kappa")), case["n_pos"]) == case["value"]
    assert {"kappa": 0.55, "n_pos": 100, "value": 55} in GOLDEN["cutoffs"]
    assert {"kappa": 1.0, "n_pos": 4, "value": 4} in GOLDEN["cutoffs"]
    for case in GOLDEN["optima"]:
        X, y, w = np.array(case["X"]), np.array(case["y"]), np.array(case["coef"])
        k = case.get("k", case.get("kappa"))
        objective = RankingObjective(X, y, surrogates.get(case["surrogate"], k), case["C"])
        assert objective.value(w) == pytest.approx(case["objective"], rel=1e-12)
        gap = case["objective"] - case["lower_bound"]
        assert 0.0 <= gap <= 1e-9 * abs(case["objective"])


CASES = [
    ({"op": "metric", "name": "precision_at_k", "y": [1, 0], "s": [0, 0], "k": 1},
     {"value": 0.0}),
    ({"op": "metric", "name": "roc_auc", "y": [1, 0, 1], "s": [3, 1, 2]}, {"value": 1.0}),
    ({"op": "cutoff", "kappa": 0.55, "n_pos": 100}, {"value": 55}),
    ({"op": "cutoff", "kappa": 1.0, "n_pos": 4}, {"value": 4}),
    ({"op": "cutoff", "k": 1, "n_pos": 4}, {"value": 1}),
    ({"op": "metric", "name": "precision_at_k", "y": [1, 0],
      "s": [4611686018427387905, 4611686018427387904], "k": 1}, {"value": 1.0}),
    ({"op": "reference", "name": "pap@k-avg", "y": [1, 1, 1, 0, 0],
      "s": [10, -1, -1, 0, 0], "k": 2}, {"value": 0.0}),
    ({"op": "reference", "name": "pap_risk", "y": [1, 1, 1, 0, 0],
      "s": [10, -1, -1, 0, 0], "k": 2}, {"value": 0.5}),
    ({"op": "reference", "name": "prec@k-avg", "y": [1, 0, 1], "s": [0.5, 0.5, -1],
      "kappa": 0.5}, {"value": 1.75}),
    ({"op": "surrogate", "name": "prec@k-avg", "y": [1, 0, 1], "s": [0.5, 0.5, -1], "k": 1},
     {"value": 1.75, "subgradient": [-0.5, 1.0, -0.5]}),
]


@pytest.mark.parametrize("case, expected", CASES)
def test_oracle_answers_each_operation(case, expected):
    result = answer({**case, "id": "x"})
    jsonschema.validate(result, ORACLE_SCHEMA)
    assert result == {"id": "x", "ok": True, **expected}


def test_oracle_certified_optimum_matches_the_golden_case():
    golden = GOLDEN["optima"][0]
    result = answer({"op": "optimum", **{k: golden[k] for k in
                                         ("surrogate", "kappa", "C", "X", "y")}})
    jsonschema.validate(result, ORACLE_SCHEMA)
    assert result["status"] == "optimal" and result["gap"] <= 1e-6
    slack = 1e-9 * abs(golden["objective"])
    assert result["lower_bound"] <= golden["objective"] + slack
    assert result["objective"] >= golden["lower_bound"] - slack


@pytest.mark.parametrize("case, message", [
    ({"op": "metric", "name": "pap_at_k", "y": [1, 0], "s": [1, 0], "k": 5}, "k must satisfy"),
    ({"op": "metric", "name": "nope", "y": [1], "s": [1]}, "name must be one of"),
    ({"op": "metric", "name": "precision_at_k", "y": [1, 0], "s": [0, 0]}, "field 'k'"),
    ({"op": "divide"}, "op must be one of"),
    ({"name": "x"}, "field 'op'"),
    ([1, 2], "a case is a JSON object"),
    ({"op": "surrogate", "name": "prec@k-avg", "y": [1, 2], "s": [0, 0], "k": 1},
     "y must hold binary labels"),
    ({"op": "cutoff", "kappa": 1.5, "n_pos": 4}, "kappa must lie in (0, 1]"),
    ({"op": "cutoff", "k": 1.0, "n_pos": 4}, "k must be a JSON integer, got 1.0"),
    ({"op": "cutoff", "k": 1, "kappa": 0.5, "n_pos": 4}, "not both"),
    ({"op": "cutoff", "kappa": 0.5, "n_pos": 0}, "there is none (n₊ = 0)"),
    ({"op": "cutoff", "kappa": 0.5, "n_pos": -4}, "n_pos must be a non-negative integer"),
    ({"op": "cutoff", "kappa": 0.5, "n_pos": 2.5}, "n_pos must be a non-negative integer"),
    ({"op": "cutoff", "kappa": 0.5, "n_pos": "100"}, "n_pos must be a non-negative integer"),
    ({"op": []}, "op must be one of"),
    ({"op": "metric", "name": ["x"], "y": [1], "s": [1]}, "name must be one of"),
    ({"op": "optimum", "surrogate": "prec@k-avg", "k": 1, "C": 1, "X": [[1.0], [1.0, 2.0]],
      "y": [1, 0]}, "X could not be converted"),
    ({"op": "surrogate", "name": "prec@k-avg", "y": [1, 0], "s": [1e308, -1e308], "k": 1},
     "overflows float64"),
    ({"op": "metric", "name": "precision_at_k", "y": [1, 0, 1], "s": [0, 0]}, "same length"),
    ({"op": "optimum", "surrogate": "prec@k-avg", "k": 1, "C": -1, "X": [[1.0], [2.0]],
      "y": [1, 0]}, "C must"),
])
def test_oracle_bad_cases_get_an_error_and_the_stream_goes_on(case, message):
    result = answer(case)
    jsonschema.validate(result, ORACLE_SCHEMA)
    assert result["ok"] is False and message in result["error"]


def test_the_documented_shell_script_prints_the_documented_answers(tmp_path):
    """docs/ground-truth.md: its ```sh block, run by sh, prints its ```text block."""
    page = (ROOT / "docs" / "ground-truth.md").read_text()
    script = page.split("```sh\n", 1)[1].split("```", 1)[0]
    shown = page.split("```sh\n", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "ask.sh"
    path.write_text(script.replace("cvxtop oracle", f"{sys.executable} -m cvxtop oracle", 1))
    done = subprocess.run(["sh", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown


def test_oracle_command_keeps_going_after_a_bad_line_and_exits_1(tmp_path):
    done = subprocess.run([sys.executable, "-m", "cvxtop", "oracle"], text=True,
                          capture_output=True, timeout=120,
                          input='not json\n{"id": 2, "op": "cutoff", "kappa": 0.25, "n_pos": 5}\n')
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1
    assert lines[0]["ok"] is False and "line 1: not JSON" in lines[0]["error"]
    assert lines[1] == {"id": 2, "ok": True, "value": 2}


def test_run_lines_skips_blank_lines_and_counts_errors():
    written = []
    errors = run_lines(['{"op": "cutoff", "k": 2, "n_pos": 3}', "", '{"op": "x"}'],
                       written.append)
    assert errors == 1 and len(written) == 2

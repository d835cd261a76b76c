"""The benchmark and example scripts use cvxtop's public names only, and the benchmark
runner knows every benchmark script: a private function whose signature changes cannot
break them unnoticed (their quick mode runs in CI, ``.ci/run``)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))


def _private_uses(path: Path) -> list[str]:
    """Private modules, private or unexported names imported from cvxtop, and private
    attributes (``x._name``) anywhere in the script."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "cvxtop":
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"line {node.lineno}: private module {node.module}")
                continue
            module = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(module, alias.name, None)
                exported = alias.name in getattr(module, "__all__", [alias.name])
                if alias.name.startswith("_") or not (exported or
                                                      isinstance(value, types.ModuleType)):
                    found.append(f"line {node.lineno}: {node.module}.{alias.name}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scripts_use_public_names_only(path):
    assert _private_uses(path) == []


def test_the_check_sees_a_private_call(tmp_path):
    script = tmp_path / "bench.py"
    script.write_text("from cvxtop import surrogates\n"
                      "from cvxtop._validation import check_features\n"
                      "surrogates.get('prec@k-avg', 1)._value_and_subgradient(1, 2, 3)\n")
    assert _private_uses(script) == ["line 2: private module cvxtop._validation",
                                     "line 3: ._value_and_subgradient"]


def test_the_runner_lists_every_benchmark_script():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    runner = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = runner  # where its dataclass looks its module up
    spec.loader.exec_module(runner)
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")
               if not p.stem.startswith("_")} - {"run"}
    assert {b.name for b in runner.SUITE} == scripts

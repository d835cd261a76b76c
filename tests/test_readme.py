"""The README's set-up commands and tour run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), flags=re.S)


def test_first_screen_has_exactly_the_two_setup_commands():
    first = blocks("bash")[0].strip().splitlines()
    commands = [line.split("#")[0].strip() for line in first]
    assert commands == ["pip install . && cvxtop demo",
                        "pip install '.[test]' && python -m pytest -n auto"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install '.[test]' && python -m pytest -n auto" in ci
    assert "pip install '.[docs]' && mkdocs build --strict" in README.read_text()
    assert "mkdocs build --strict" in ci


def test_tour_code_runs(capsys):
    namespace: dict = {}
    for code in blocks("python"):
        exec(compile(code, str(README), "exec"), namespace)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:7] == ["0.5", "0.75", "0.5", "0.8", "0.5", "0.5", "2.0"]
    assert "cutting-plane True" in lines and "True" in lines
    assert lines[-3:] == ["0.5", "0.0", "2.0"]


@pytest.mark.parametrize("module", ["cvxtop.metrics", "cvxtop.reference", "cvxtop.io",
                                    "cvxtop.surrogates", "cvxtop.solvers", "cvxtop.predtron",
                                    "cvxtop.datasets"])
def test_modules_listed_in_readme_exist(module):
    __import__(module)
    assert f"`{module}`" in README.read_text()

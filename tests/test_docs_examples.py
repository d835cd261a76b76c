"""Every code example of the documentation site (``docs/*.md``) runs as written.

Each page runs in a fresh namespace inside its own temporary directory, its blocks in page
order (a later block may use names and files an earlier one made):

* a ```` ```python ```` block is executed; a top-level line ``print(...)  # <value>`` whose
  comment is a Python literal (a number, a bool, a list, ...) must print that value: the
  same text, or for a number the same value to the digits the comment shows. Comments that
  are not literals are prose and are not checked;
* in a ```` ```bash ```` block, each ``cvxtop ...`` command runs through
  :func:`cvxtop.cli.main` and must exit with status 0 (``pip`` lines are set-up, not run);
* a ```` ```python ```` block whose first line is ``# <name>.py`` is a file, as the page
  tells the reader to save it: it is written to the page's directory (which later blocks
  can import from), not executed; when the page is done, its ``test_*.py`` files run under
  pytest in a fresh process, with its ``conftest.py``, and must pass.

A page's numbers therefore cannot drift from what the code computes.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from cvxtop.cli import main as cli_main

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", flags=re.S | re.M)
CHECKED_PRINT = re.compile(r"^print\((?P<args>.*)\)[ \t]+#[ \t]*(?P<expected>.+?)[ \t]*$")


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def code_blocks(page: Path) -> list[tuple[str, str, int]]:
    """(language, code, line number) of each fenced block of ``page``."""
    text = page.read_text()
    return [(m["lang"], m["code"], text.count("\n", 0, m.start()) + 2)
            for m in BLOCK.finditer(text)]


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _agrees(printed: str, expected: str) -> bool:
    """Same text, or the same number to the digits written in ``expected``."""
    if printed == expected:
        return True
    value = _literal(expected)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        got = float(printed)
    except ValueError:
        return False
    exponent = Decimal(expected).as_tuple().exponent
    return abs(got - value) <= 0.5 * 10.0 ** exponent


def _check_print(where: str, expected: str, *args, **kwargs) -> None:
    printed = kwargs.get("sep", " ").join(str(a) for a in args)
    print(printed)
    assert _agrees(printed, expected), f"{where}: printed {printed!r}, the page says {expected!r}"


def instrument(code: str, where: str) -> str:
    """Turn each checked ``print(...)  # value`` line into a call of ``_check_print``."""
    lines = []
    for number, line in enumerate(code.splitlines()):
        m = CHECKED_PRINT.match(line)
        if m and _literal(m["expected"]) is not None:
            line = (f"_check_print({f'{where}+{number}'!r}, {m['expected']!r}, {m['args']})")
        lines.append(line)
    return "\n".join(lines)


def run_bash(code: str, where: str) -> None:
    for line in code.splitlines():
        command = line.split("#", 1)[0].strip()
        if command.startswith("cvxtop "):
            assert cli_main(shlex.split(command)[1:]) == 0, f"{where}: {command!r} failed"


FILE_BLOCK = re.compile(r"#[ \t]*(?P<name>[\w.-]+\.py)[ \t]*$")


def file_name(code: str) -> str | None:
    """The file a block is, when its first line is ``# <name>.py``."""
    first = code.split("\n", 1)[0]
    m = FILE_BLOCK.fullmatch(first)
    return m["name"] if m else None


def run_test_files(directory: Path, names: list[str], where: str) -> None:
    """The page's test files under pytest, in a fresh process started in ``directory``."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *names], cwd=directory, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"{where}: pytest {' '.join(names)} failed:\n{done.stdout}"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # later blocks import the page's files
    namespace: dict = {"__name__": f"docs_{page.stem}", "_check_print": _check_print}
    tests = []
    for lang, code, line in code_blocks(page):
        where = f"{page.name}:{line}"
        name = file_name(code) if lang == "python" else None
        if name is not None:
            (tmp_path / name).write_text(code)
            tests += [name] if name.startswith("test_") else []
        elif lang == "python":
            exec(compile(instrument(code, where), where, "exec"), namespace)
        elif lang == "bash":
            run_bash(code, where)
    if tests:
        run_test_files(tmp_path, tests, page.name)


def test_file_blocks_are_recognized():
    assert file_name("# test_x.py\nimport numpy") == "test_x.py"
    assert file_name("# conftest.py") == "conftest.py"
    assert file_name("# the test below\nx = 1") is None


def test_checked_prints_compare_values():
    assert _agrees("0.30000000000000004", "0.3")
    assert _agrees("2.225", "2.225") and _agrees("True", "True")
    assert _agrees("0.26", "0.3") and not _agrees("0.36", "0.3")
    assert not _agrees("1", "True") and not _agrees("0.5", "[0.5]")
    assert "_check_print" in instrument("print(x)  # 0.5", "p")
    assert "_check_print" not in instrument("print(x)  # the risk", "p")
    assert "_check_print" not in instrument("    print(x)  # 0.5", "p")


def test_every_page_has_an_example_or_is_prose():
    """The pages that promise runnable code have some."""
    runnable = {p.name for p in pages()
                if any(lang in ("python", "bash") for lang, _, _ in code_blocks(p))}
    for name in ("index.md", "getting-started.md", "metrics.md", "ground-truth.md",
                 "solvers.md", "prec-at-k.md", "pap-at-k.md", "predtron.md", "aatp.md",
                 "approximate.md"):
        assert name in runnable, name


#: Pages the nav may list before they exist (none now that every branch has landed).
WRITTEN_ELSEWHERE: set[str] = set()


def nav_pages() -> list[str]:
    """The ``.md`` paths named in the ``nav`` section of ``mkdocs.yml``."""
    text = (DOCS.parent / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:"):]
    return re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?(\S+\.md)\s*$", nav, flags=re.M)


def test_nav_and_pages_match():
    listed = nav_pages()
    assert len(listed) == len(set(listed))
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert on_disk <= set(listed), "pages missing from the nav"
    assert set(listed) - on_disk <= WRITTEN_ELSEWHERE, "nav entries without a page"


PRODUCT = re.compile(r"``?(?P<a>\d+\.\d+) \* (?P<b>\d+)``?(?: is | = |: )``?(?P<c>[\d.]+)``?")


def test_floating_point_products_the_docs_quote_are_what_python_prints():
    """Claims such as "`0.55 * 100` is `55.00000000000001`" (why the cut-off rule takes the
    decimal) must be what Python prints, in the docs, the README and the docstrings."""
    sources = pages() + [DOCS.parent / "README.md"] + sorted((DOCS.parent / "cvxtop").rglob("*.py"))
    quoted = 0
    for path in sources:
        for m in PRODUCT.finditer(path.read_text(encoding="utf-8")):
            assert repr(float(m["a"]) * int(m["b"])) == m["c"], f"{path.name}: {m.group(0)}"
            quoted += 1
    assert quoted >= 3


def test_the_pages_that_resolve_a_fraction_link_the_one_rule():
    """One statement of the cut-off rule (metrics.md), linked wherever a page writes
    ceil(κ·n₊)."""
    rule = (DOCS / "metrics.md").read_text()
    assert "## Cut-offs: the one rule" in rule
    for page in pages():
        text = page.read_text()
        if page.name != "metrics.md" and re.search(r"(ceil\(|⌈)κ·n₊\)?⌉?\)?`", text):
            assert "metrics.md#cut-offs-the-one-rule" in text, page.name

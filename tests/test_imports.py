"""The package's import structure: every module imports on its own, the module-level import
graph has no cycle, and the light modules load neither cvxpy nor scikit-learn."""

from __future__ import annotations

import ast
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cvxtop

PACKAGE = Path(cvxtop.__file__).parent
# every module but ``cvxtop.__main__``, the script behind ``python -m cvxtop``
MODULES = sorted(m.name for m in pkgutil.walk_packages([str(PACKAGE)], "cvxtop.")
                 if m.name != "cvxtop.__main__")


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_module_imports_in_isolation():
    """In one fresh interpreter, each module is imported after every cvxtop module has been
    forgotten, so none relies on another having been imported first."""
    code = f"""
import importlib, json, sys, traceback
failures = {{}}
for name in {MODULES!r}:
    for loaded in [m for m in sys.modules if m == "cvxtop" or m.startswith("cvxtop.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
print(json.dumps(failures))
"""
    assert json.loads(run_python(code)) == {}
    assert len(MODULES) > 40 and "cvxtop.surrogates.checks" in MODULES


def _module_path(name: str) -> Path:
    parts = name.split(".")[1:]
    package = PACKAGE.joinpath(*parts)
    return package / "__init__.py" if package.is_dir() else package.with_suffix(".py")


def _resolve(module: str, level: int, current: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = current.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _top_level_imports(name: str) -> set[str]:
    """cvxtop modules that ``name`` imports when it is executed: imports at module level,
    outside functions and ``if TYPE_CHECKING:`` blocks."""
    path = _module_path(name)
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("cvxtop"))
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(node.module or "", node.level, name,
                                  path.name == "__init__.py")
                if not target.startswith("cvxtop"):
                    continue
                for alias in node.names:  # `from pkg import module` imports the module
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in MODULES else target)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(node, block, []))
            elif isinstance(node, ast.ExceptHandler):
                visit(node.body)

    visit(tree.body)
    found.discard(name)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph, as a path that returns to its start, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := walk(nxt, [*path, nxt])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := walk(start, [start])):
            return cycle
    return None


def test_module_level_import_graph_is_acyclic():
    graph = {name: _top_level_imports(name) for name in ["cvxtop", *MODULES]}
    assert find_cycle(graph) is None
    # the scan sees real edges: the families import the registry, which imports the base
    assert "cvxtop.surrogates.registry" in graph["cvxtop.surrogates.prec"]
    assert "cvxtop.surrogates.base" in graph["cvxtop.surrogates.registry"]
    assert "cvxtop._cvxpy" in graph["cvxtop.solvers.direct"]


ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def architecture_layers(text: str) -> dict[str, int]:
    """Module -> layer (0 at the bottom) from the layer table of docs/architecture.md: a
    row's backticked ``cvxtop.x`` names, each followed by its submodules in parentheses."""
    table = text[text.index("| layer | modules | job |"):].split("\n\n", 1)[0]
    layers: dict[str, int] = {}
    for number, row in enumerate(table.splitlines()[2:]):
        cells = row.split(" | ")
        for match in re.finditer(r"`(cvxtop[\w.]*)`(?: \(([^)]*)\))?", cells[1]):
            layers[match[1]] = number
            for part in re.findall(r"`(\w+)`", match[2] or ""):
                layers[f"{match[1]}.{part}"] = number
    return layers


LAYERS = architecture_layers(ARCHITECTURE.read_text(encoding="utf-8"))


def layer(module: str) -> int:
    """The module's layer in docs/architecture.md."""
    return LAYERS[module]


def test_the_architecture_table_lists_every_module():
    every = set(MODULES) | {"cvxtop", "cvxtop.__main__"}
    packages = {m.rsplit(".", 1)[0] for m in every if m.count(".") > 1}
    assert set(LAYERS) - packages == every - packages
    assert packages <= set(LAYERS)


def test_the_table_reader_reads_submodules_and_rows():
    text = ("| layer | modules | job |\n|---|---|---|\n| a | `cvxtop.x`, `cvxtop.p` (`q`, the "
            "`r`) | j |\n| b | `cvxtop.y` | j |\n\nprose")
    assert architecture_layers(text) == {"cvxtop.x": 0, "cvxtop.p": 0, "cvxtop.p.q": 0,
                                         "cvxtop.p.r": 0, "cvxtop.y": 1}


def test_modules_import_only_their_own_layer_or_below():
    upward = [(name, target) for name in MODULES for target in _top_level_imports(name)
              if layer(target) > layer(name)]
    assert upward == []
    assert layer("cvxtop.surrogates.checks") == 3 and layer("cvxtop.cli") == 6


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"x": {"y"}, "y": {"y"}}) == ["y", "y"]


LIGHT = ["cvxtop", "cvxtop.metrics", "cvxtop.reference", "cvxtop.surrogates",
         "cvxtop.cutoff", "cvxtop.groups", "cvxtop.surrogates.checks", "cvxtop.testing",
         "cvxtop.testing.asserts", "cvxtop.testing.oracle", "cvxtop.testing.golden"]


@pytest.mark.parametrize("module", LIGHT)
def test_light_modules_load_no_solver_or_estimator_library(module):
    heavy = ["cvxpy", "sklearn", "scipy", "clarabel", "osqp", "ecos"]
    loaded = json.loads(run_python(
        f"import sys, json, {module}; print(json.dumps([m for m in {heavy!r} "
        "if m in sys.modules]))"))
    assert loaded == []


def test_lazy_package_attributes():
    out = run_python(
        "import sys, cvxtop\n"
        "assert 'cvxtop.estimators' not in sys.modules\n"
        "from cvxtop import TopRanker, AATP, SolverError, metrics, predtron\n"
        "assert cvxtop.TopRanker is TopRanker and 'cvxpy' in sys.modules\n"
        "assert set(cvxtop.__all__) <= set(dir(cvxtop))\n"
        "assert {'TopRanker', 'AATP', 'SolverError'} <= set(cvxtop.__all__)\n"
        "assert isinstance(cvxtop.estimators.EXPECTED_FAILED_CHECKS, dict)\n"
        "assert cvxtop.solvers.minimize and cvxtop.cutoff.prec_cutoff(0.55, 100) == 55\n"
        "print(sorted(cvxtop.__all__))")
    assert "TopRanker" in out
    with pytest.raises(AttributeError, match="module 'cvxtop' has no attribute 'nope'"):
        cvxtop.nope  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute '_threads_not_here'"):
        cvxtop._threads_not_here  # noqa: B018


def test_no_timings_in_the_code():
    """Measured times live in benchmarks/results and the docs: a constant's comment or a
    docstring says what it does and where it was measured, never the seconds."""
    import re

    timing = re.compile(r"\d(\.\d+)? ?(ms|µs|s)\b(?=[ ,;:.)])|\b\d-core machine")
    found = [f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if timing.search(line)]
    assert found == []


def _package_of(path: Path) -> str:
    """The subpackage a module belongs to (``solvers``, ``aatp``, ...), or the top level."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0] if len(parts) > 1 else "(top level)"


def _private_crossings() -> list[str]:
    """Private names used across subpackages: ``from X import _name`` where ``X`` lies in
    another subpackage, and ``obj._name`` (``obj`` not ``self``/``cls``) where no module of
    the user's own subpackage defines ``_name``. Private modules of the shared core
    (``cvxtop._validation``, ``_cvxpy``, ``_threads``) are imported everywhere by design;
    their names are public."""
    defined: dict[str, set[str]] = {}
    uses, found = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        package = _package_of(path)
        names = defined.setdefault(package, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                if isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
                elif ast.unparse(node.value) not in ("self", "cls", "super()"):
                    uses.append((package, path, node.lineno, node.attr))
            elif isinstance(node, ast.ImportFrom):
                base = module.split(".")[:-1] if path.name != "__init__.py" \
                    else module.split(".")
                source = (".".join(base[:len(base) - node.level + 1] + [node.module or ""])
                          if node.level else node.module or "")
                parts = source.strip(".").split(".")
                if parts[0] != "cvxtop":
                    continue
                other = parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() \
                    else "(top level)"
                for alias in node.names:
                    shared_core = (PACKAGE / f"{alias.name}.py").exists()  # a core module
                    if alias.name.startswith("_") and not alias.name.startswith("__") \
                            and other != package and not shared_core:
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: "
                                     f"from {source} import {alias.name}")
    for package, path, line, attr in uses:
        if attr not in defined[package]:
            found.append(f"{path.relative_to(PACKAGE)}:{line}: ._{attr.lstrip('_')}")
    return found


def test_no_private_name_crosses_a_subpackage():
    """A solver asks a surrogate what it can do (``dual_form``, ``term_weights``), a model
    file restores weights through ``load_weights``: no subpackage reaches into another's
    private names."""
    assert _private_crossings() == []


def test_the_package_lists_its_public_names_only():
    names = run_python("import cvxtop; print(' '.join(dir(cvxtop)))").split()
    assert not {"Any", "TYPE_CHECKING", "importlib"} & set(names)
    assert {"solvers", "datasets", "cutoff", "testing"} <= set(cvxtop.__all__)
    for name in cvxtop.__all__:
        assert getattr(cvxtop, name) is not None

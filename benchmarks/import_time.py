"""Import cost of cvxtop's entry points, from ``python -X importtime``.

    python benchmarks/import_time.py              # 7 fresh interpreters per entry point
    python benchmarks/import_time.py --repeats 3
    python benchmarks/import_time.py --against 9aa27e9   # also a git revision, for a ratio

For each statement, a fresh interpreter runs it under ``-X importtime`` and the cumulative
microseconds of the imported cvxtop module are read from the report; the table gives the
median and which heavy libraries (cvxpy, scikit-learn, scipy) were loaded. With
``--against REV`` the same statements run on a ``git worktree`` of that revision, in the
same run, and the last column is the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINTS = [
    ("import cvxtop", "cvxtop"),
    ("import cvxtop.metrics", "cvxtop.metrics"),
    ("import cvxtop.reference", "cvxtop.reference"),
    # names imported on first use (PEP 562) do not show in -X importtime's tree: timed whole
    ("from cvxtop.testing import assert_metric_matches", None),
    ("from cvxtop.testing import ranked_lists", None),
    ("import cvxtop.surrogates", "cvxtop.surrogates"),
    ("import cvxtop.estimators", "cvxtop.estimators"),  # TopRanker
    ("import cvxtop.aatp", "cvxtop.aatp"),  # AATP
]
HEAVY = ("cvxpy", "sklearn", "scipy", "hypothesis")


def measure(statement: str, module: str | None, root: Path) -> tuple[float, list[str]]:
    """Cumulative import time of ``module`` in seconds (``None``: the wall time of the
    whole statement), and the heavy libraries loaded."""
    probe = (f"import time\nstart = time.perf_counter()\n{statement}\n"
             "elapsed = time.perf_counter() - start\nimport sys, json\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\nprint(elapsed)")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe], cwd=root,
                          capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    lines = done.stdout.splitlines()
    if module is None:
        return float(lines[-1]), json.loads(lines[-2])
    cumulative = None
    for line in done.stderr.splitlines():
        fields = [f.strip() for f in line.removeprefix("import time:").split("|")]
        if len(fields) == 3 and fields[2] == module:
            cumulative = int(fields[1])
    if cumulative is None:
        raise RuntimeError(f"{module} does not appear in the importtime report of {statement}")
    return cumulative / 1e6, json.loads(lines[-2])


def table(root: Path, repeats: int) -> dict[str, tuple[float, list[str]]]:
    out = {}
    for statement, module in ENTRY_POINTS:
        runs = [measure(statement, module, root) for _ in range(repeats)]
        out[statement] = (statistics.median(t for t, _ in runs), runs[-1][1])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--against", help="a git revision to measure in the same run")
    parser.add_argument("--quick", action="store_true", help="3 repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    now = table(ROOT, repeats)
    before = None
    if args.against:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                            args.against], check=True, capture_output=True)
            try:
                before = table(tree, repeats)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(tree)], check=True, capture_output=True)
    print(f"Import cost, median of {repeats} fresh interpreters (`python -X importtime`, "
          "cumulative time of the imported cvxtop module; for `from cvxtop.testing import "
          "...`, whose names load on first use, the wall time of the statement)\n")
    head = "| statement | seconds | heavy libraries loaded |"
    rule = "|---|---:|---|"
    if before is not None:
        head += f" seconds at {args.against} | ratio |"
        rule += "---:|---:|"
    print(head)
    print(rule)
    for statement, (seconds, heavy) in now.items():
        row = f"| `{statement}` | {seconds:.3f} | {', '.join(heavy) or 'none'} |"
        if before is not None:
            b = before[statement][0] if statement in before else float("nan")
            row += f" {b:.3f} | {b / seconds:.1f}x |"
        print(row)
    metrics = now["import cvxtop.metrics"]
    print(f"\nSUMMARY: import cvxtop.metrics {metrics[0]:.3f} s, loads "
          f"{', '.join(metrics[1]) or 'no heavy library'}")


if __name__ == "__main__":
    main()

"""Run the whole benchmark suite and write its tables and a summary.

    python benchmarks/run.py            # the full suite (tens of minutes on 2 cores)
    python benchmarks/run.py --quick    # a smoke version, under 5 minutes
    python benchmarks/run.py --only exact_scaling approx_vs_exact

Each benchmark is a script of this folder that prints markdown tables; its tables go to
``OUT/<name>.md`` (``<name>_quick.md`` with ``--quick``), written by the script itself or,
if it does not, from its output. ``OUT`` is ``--out`` (default ``benchmarks/results``, the
published tables; ``cvxtop bench`` writes to ``./cvxtop-bench`` unless told otherwise).
Lines a script prints with the prefix ``SUMMARY:`` (its headline ratios and targets) are
collected, with each script's command and run time, into ``OUT/SUMMARY.md``
(``SUMMARY_quick.md``); ``--json`` prints them as JSON too. Every benchmark compares
quantities measured in the same run, and every one measures cost at growing sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


@dataclass(frozen=True)
class Benchmark:
    """A script and the arguments of its full and quick runs."""

    name: str
    what: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ("--quick",)


SUITE = (
    Benchmark("exact_scaling", "exact engines: time against n, d and k; the UCI sets and 100k x 50"),
    Benchmark("svmperf_head_to_head", "prec@k-svmperf against SVMperf built from source "
              "(CVXTOP_SVMPERF=PATH; skipped without it)"),
    Benchmark("dcp_forms", "literal against compact cvxpy forms of prec@k max and avg"),
    Benchmark("pap_faces", "pAp@k surrogates: numpy faces and DCP solves at growing n",
              quick=("--sizes", "1000", "10000", "--solve-sizes", "100", "200")),
    Benchmark("cvx_solvers", "Clarabel, OSQP and ECOS on the same programs"),
    Benchmark("predtron_psi", "Predtron psi: assignment and closed forms against enumeration",
              quick=()),
    Benchmark("approx_vs_exact", "perceptrons, SGD and GD against the certified optimum"),
    Benchmark("certificate_cost", "SGD's certified gap: its cost and its truth against the "
              "exact optimum"),
    Benchmark("grouped_exact", "grouped exact solves against users and items per user"),
    Benchmark("c_path", "a regularization path over C: cold fits against fit_path and "
              "warm-started fits"),
    Benchmark("rescaling", "X times a with C / a^2: the same certified answer, or a clear error"),
    Benchmark("hostile_exact", "both exact engines on small hostile data (heavy tails, "
              "near-duplicates, clusters, a list without a relevant item), failures first"),
    Benchmark("k_grid", "the exact engine's defaults over the cut-off k on the shipped sets, "
              "the uncertified cells first"),
    Benchmark("sparse_defaults", "the exact engine's defaults on sparse lists of many shapes, "
              "the uncertified cells first"),
    Benchmark("dense_defaults", "prec@k-svmperf's defaults on dense lists of a few thousand "
              "items over C and random draws, the uncertified cells first"),
    Benchmark("aatp_speed", "AATP: the fast dual solver against a DPP-compiled cvxpy loop",
              quick=("--sizes", "100", "200", "400")),
    Benchmark("aatp_scaling", "AATP: the fast solver up to 5,000 items, n_jobs speed-up",
              quick=("--sizes", "300", "600")),
    Benchmark("aatp_raw", "AATP on the shipped UCI sets as shipped (features not scaled) "
              "over C, n and the kernel, the uncertified cells first"),
    Benchmark("import_time", "import cost of the entry points (python -X importtime)"),
    Benchmark("aatp_kernel", "kernel AATP on real and hard data over gamma, C and n, the "
              "worst cell first; the cvxpy reference on every cell of 400 items; n = 5,000; "
              "a rank-64 Gram, float32 and memory maps"),
)


def run(benchmark: Benchmark, quick: bool, out: Path) -> tuple[float, list[str], int]:
    """Run one script; write its output; return its time, summary lines and exit code."""
    args = benchmark.quick if quick else benchmark.full
    command = [sys.executable, str(HERE / f"{benchmark.name}.py"), *args]
    start_wall = time.time()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent,
                          env={**os.environ, "CVXTOP_BENCH_OUT": str(out)})
    seconds = time.perf_counter() - start
    suffix = "_quick" if quick else ""
    shown = " ".join(["python", f"benchmarks/{benchmark.name}.py", *args])
    target = out / f"{benchmark.name}{suffix}.md"
    written_by_script = target.exists() and target.stat().st_mtime >= start_wall
    if not written_by_script or done.returncode != 0:
        body = [f"# {benchmark.name}: {benchmark.what}", "", f"Command: `{shown}`",
                f"({seconds:.0f} s, exit code {done.returncode})", "", done.stdout]
        if done.returncode != 0:
            body += ["", "## stderr", "", "```", done.stderr[-5000:], "```"]
        target.write_text("\n".join(body))
    summary = [line[len("SUMMARY:"):].strip() for line in done.stdout.splitlines()
               if line.startswith("SUMMARY:")]
    return seconds, summary, done.returncode


def previous_sections(path: Path) -> dict[str, list[str]]:
    """The sections of an existing summary, keyed by benchmark name, so that a run with
    ``--only`` replaces its own sections and keeps the others."""
    if not path.exists():
        return {}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].split(":", 1)[0], [])
        if current is not None:
            current.append(line)
    return sections


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smoke version")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help=f"run only these ({', '.join(b.name for b in SUITE)})")
    parser.add_argument("--out", type=Path, default=RESULTS,
                        help="directory of the tables and the summary (benchmarks/results)")
    parser.add_argument("--json", action="store_true",
                        help="print the summary as JSON on stdout (progress on stderr)")
    args = parser.parse_args()
    chosen = [b for b in SUITE if not args.only or b.name in args.only]
    unknown = set(args.only or ()) - {b.name for b in SUITE}
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    suffix = "_quick" if args.quick else ""
    path = out / f"SUMMARY{suffix}.md"
    sections = previous_sections(path)
    failures = 0
    log = sys.stderr if args.json else sys.stdout
    results = []
    for benchmark in chosen:
        print(f"running {benchmark.name} ...", flush=True, file=log)
        seconds, summary, code = run(benchmark, args.quick, out)
        failures += code != 0
        results.append({"name": benchmark.name, "exit_code": code,
                        "seconds": round(seconds, 1),
                        "table": str(out / f"{benchmark.name}{suffix}.md"),
                        "summary": summary})
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        sections[benchmark.name] = [
            f"## {benchmark.name}: {benchmark.what}", "",
            f"{status}, {seconds:.0f} s, run {time.strftime('%Y-%m-%d %H:%M')}; tables in "
            f"[{benchmark.name}{suffix}.md]({benchmark.name}{suffix}.md)", "",
            *[f"- {line}" for line in summary], ""]
        print(f"  {status} in {seconds:.0f} s", flush=True, file=log)
    lines = ["# Benchmark summary" + (" (quick)" if args.quick else ""), "",
             f"Command: `python benchmarks/run.py{' --quick' if args.quick else ''}` "
             f"(each section gives the time of its own run); Python {sys.version.split()[0]}.",
             ""]
    for benchmark in SUITE:
        lines += sections.get(benchmark.name, [])
    path.write_text("\n".join(lines) + "\n")
    print(f"summary written to {path}", file=log)
    if args.json:
        print(json.dumps({"out": str(out), "quick": args.quick, "summary": str(path),
                          "benchmarks": results}, indent=2))
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())

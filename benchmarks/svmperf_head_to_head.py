"""cvxtop against SVMperf (Joachims 2005) on SVMperf's own prec@k problem.

    python benchmarks/svmperf_head_to_head.py --svmperf PATH          # full table
    python benchmarks/svmperf_head_to_head.py --svmperf PATH --quick  # MAGIC, two C
    python benchmarks/svmperf_head_to_head.py --svmperf PATH --sets sparse --c-grid 0.1 1 10

``PATH`` is an ``svm_perf_learn`` binary, a folder holding one, or SVMperf's source (a
folder or its ``.tar.gz``), which is then built in a temporary folder with
``make SFLAGS=-fcommon``; the environment variable ``CVXTOP_SVMPERF`` may give it instead.
Without it, or without a C compiler to build the source, the benchmark says why and exits
cleanly: SVMperf is not shipped with cvxtop.

Both solve the same problem: SVMperf ``-w 3 -l 4 --b 0 --p 0.5 -c C_perf`` (the 1-slack
dual, prec@k loss, no bias feature, k = floor(0.5·n₊)) is ``prec@k-svmperf`` with
``C = 100·k·C_perf/n²`` and weights scaled by ``k/n``. For every C the table gives cvxtop's
certified optimum (wall time, CPU seconds of all its threads, rounds, certified gap: the
cut store's products that read 8 MB or more and a sparse ``X``'s products with half a
million values or more run on the caller's threads, so on the sparse set the CPU seconds
exceed the wall time; SVMperf is single-threaded) and, for each SVMperf tolerance ``-e``,
SVMperf's optimization time (its own "Runtime in cpu-seconds", file reading excluded), the
relative suboptimality of its weights under the same objective, the time ratio, and the
time cvxtop took to certify a gap as small as that suboptimality (the same accuracy). A
negative suboptimality beyond rounding would mean the problems differ. A cvxtop fit that
needs more than its default 2,000 rounds returns uncertified and shows the gap it reached.
The last column is cvxtop's time on Kar et al. 2015's prec@k-avg surrogate at the same C
(a different problem, for scale).

Data: MAGIC, spambase and letter (standardized, from ``data/``) and a 50,000 × 50,000
sparse set (0.1% density, Gaussian entries, the top 10% of a noisy linear score relevant).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file
from sklearn.preprocessing import StandardScaler

from cvxtop import surrogates
from cvxtop.datasets import load_paper_dataset, make_sparse_ranking_data
from cvxtop.report import format_table
from cvxtop.solvers import RankingObjective, SolveResult, minimize
from cvxtop.surrogates.prec_svmperf import svmperf_c

ROOT = Path(__file__).resolve().parents[1]
P = 0.5  # SVMperf's --p: k = floor(p·n₊)
SETS = {"magic": "MAGIC", "spambase": "spambase", "letter": "letter",
        "sparse": "sparse 50k x 50k"}


def find_binary(path: str | None, workdir: Path) -> tuple[Path | None, str]:
    """The ``svm_perf_learn`` binary for ``path``, building the source if needed; else
    ``None`` and the reason."""
    if not path:
        return None, "no SVMperf given (pass --svmperf PATH or set CVXTOP_SVMPERF)"
    p = Path(path).expanduser()
    if p.is_file() and os.access(p, os.X_OK) and not p.name.endswith(".tar.gz"):
        return p, f"binary {p}"
    if p.is_dir() and (p / "svm_perf_learn").is_file():
        return p / "svm_perf_learn", f"binary {p / 'svm_perf_learn'}"
    source = workdir / "svm_perf"
    if p.is_file() and p.name.endswith(".tar.gz"):
        source.mkdir()
        with tarfile.open(p) as archive:
            archive.extractall(source, filter="data")
    elif p.is_dir():
        shutil.copytree(p, source)
    else:
        return None, f"{p} is neither an svm_perf_learn binary nor SVMperf's source"
    makefiles = list(source.rglob("Makefile"))
    if not makefiles:
        return None, f"{p} holds no Makefile"
    top = min(makefiles, key=lambda m: len(m.parts)).parent
    if shutil.which("make") is None or (shutil.which("cc") or shutil.which("gcc")) is None:
        return None, "no C compiler or make to build SVMperf's source"
    subprocess.run(["make", "clean"], cwd=top, capture_output=True)
    built = subprocess.run(["make", "SFLAGS=-fcommon"], cwd=top, capture_output=True, text=True)
    binary = top / "svm_perf_learn"
    if built.returncode != 0 or not binary.is_file():
        return None, f"building SVMperf failed: {built.stderr.strip()[-300:]}"
    return binary, f"built from {p} with make SFLAGS=-fcommon"


def sparse_set():
    """50,000 × 50,000, 0.1% density, the top 10% of a noisy linear score relevant."""
    return make_sparse_ranking_data(50_000, 50_000, density=0.001, noise=0.5, random_state=0)


def run_svmperf(binary: Path, train: Path, model: Path, c_perf: float, eps: float,
                n_features: int) -> tuple[float, np.ndarray]:
    """SVMperf's optimization time and its weight vector."""
    done = subprocess.run([str(binary), "-w", "3", "-l", "4", "--b", "0", "--p", str(P),
                           "-c", repr(c_perf), "-e", repr(eps), str(train), str(model)],
                          capture_output=True, text=True)
    if done.returncode != 0 or not model.is_file():
        raise RuntimeError(f"svm_perf_learn failed: {done.stdout[-300:]} {done.stderr[-300:]}")
    seconds = float(re.search(r"Runtime in cpu-seconds:\s*([0-9.eE+-]+)", done.stdout)[1])
    weights = np.zeros(n_features)
    support = model.read_text().strip().splitlines()[-1].split("#")[0].split()[1:]
    for token in support:  # the linear model's single "support vector" is w
        index, value = token.split(":")
        weights[int(index) - 1] = float(value)
    return seconds, weights


def timed_fit(surrogate: str, k: int, C: float, X, y
              ) -> tuple[float, SolveResult, list, float]:
    """An exact fit as ``TopRanker`` runs it (``minimize`` with the exact defaults), its time
    and its trajectory ``(seconds, certified relative gap)`` after every round, and the CPU
    seconds of the process's threads during it (above the wall time where large products
    ran on more than one thread); a fit that needs more than the
    default rounds returns with its gap (shown in the table) instead of raising."""
    objective = RankingObjective(X, y, surrogates.get(surrogate, k), C)
    trajectory = []
    start, cpu = time.perf_counter(), time.process_time()

    def record(it: int, upper: float, lower: float | None) -> None:
        if lower is not None:
            trajectory.append((time.perf_counter() - start,
                               (upper - lower) / max(abs(upper), 1e-12)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = minimize(objective, "auto", options={"accept_inaccurate": True},
                          callback=record)
    return time.perf_counter() - start, result, trajectory, time.process_time() - cpu


def seconds_to_gap(trajectory: list, gap: float) -> float | None:
    """The first time the certified relative gap was at most ``gap`` (None if never)."""
    return next((t for t, g in trajectory if g <= gap), None)


def rows_for(name: str, X, y, binary: Path, c_grid, eps_grid, workdir: Path) -> list[dict]:
    n = len(y)
    k = max(1, int(np.floor(P * y.sum())))
    train = workdir / f"{name}.dat"
    dump_svmlight_file(X, 2 * y - 1, str(train), zero_based=False)
    loss = surrogates.get("prec@k-svmperf", k)
    rows = []
    for c_perf in c_grid:
        C = svmperf_c(c_perf, k, n)
        ours, model, trajectory, cpu = timed_fit("prec@k-svmperf", k, C, X, y)
        avg_seconds = timed_fit("prec@k-avg", k, C, X, y)[0]
        for eps in eps_grid:
            theirs, w_perf = run_svmperf(binary, train, workdir / "model", c_perf, eps,
                                         X.shape[1])
            w = (k / n) * w_perf
            value = 0.5 * float(w @ w) + C * loss.value(y, X @ w)
            subopt = (value - model.objective) / model.objective
            matched = seconds_to_gap(trajectory, max(subopt, 0.0))
            rows.append({
                "data": name, "n": n, "d": X.shape[1], "k": k, "C_perf": f"{c_perf:g}",
                "C": f"{C:.3g}", "cvxtop s": f"{ours:.2f}", "cvxtop cpu s": f"{cpu:.2f}",
                "rounds": model.n_iter,
                "certified gap": f"{model.gap:.1e}", "eps": f"{eps:g}",
                "SVMperf s": f"{theirs:.2f}", "SVMperf subopt": f"{subopt:.1e}",
                "SVMperf / cvxtop": f"{theirs / ours:.1f}",
                "cvxtop s to that gap": "-" if matched is None else f"{matched:.2f}",
                "prec@k-avg s": f"{avg_seconds:.2f}"})
            print(format_table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svmperf", default=os.environ.get("CVXTOP_SVMPERF"),
                        help="svm_perf_learn, or SVMperf's source folder or .tar.gz")
    parser.add_argument("--quick", action="store_true", help="MAGIC, two values of C")
    parser.add_argument("--sets", nargs="+", choices=SETS, default=None,
                        help="data sets to run (default: all; MAGIC with --quick)")
    parser.add_argument("--c-grid", nargs="+", type=float, default=None,
                        help="SVMperf's -c values (default 0.1 1 10 100; 0.1 1 with --quick)")
    args = parser.parse_args()
    chosen = args.sets or (["magic"] if args.quick else list(SETS))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        binary, how = find_binary(args.svmperf, workdir)
        if binary is None:
            print(f"skipped: {how}")
            print(f"SUMMARY: skipped ({how})")
            return
        print(f"SVMperf: {how}\n")
        c_grid = args.c_grid or ([0.1, 1.0] if args.quick else [0.1, 1.0, 10.0, 100.0])
        eps_grid = [0.1, 0.01] if args.quick else [0.1, 0.01, 0.001]
        rows = []
        for key in chosen:
            if key == "sparse":
                X, y = sparse_set()
            else:
                X, y = load_paper_dataset(key, ROOT / "data")
                X = StandardScaler().fit_transform(X)
            rows += rows_for(SETS[key], X, y, binary, c_grid, eps_grid, workdir)
    print(f"## prec@k-svmperf against SVMperf -w 3 -l 4 --b 0 --p {P}\n")
    print(f"```\n{format_table(rows)}\n```")
    tight = [r for r in rows if r["eps"] == f"{min(eps_grid):g}"]
    ratios = [float(r["SVMperf / cvxtop"]) for r in tight]
    subopt = [float(r["SVMperf subopt"]) for r in rows]
    matched = [float(r["SVMperf s"]) / max(float(r["cvxtop s to that gap"]), 1e-3)
               for r in rows if r["cvxtop s to that gap"] != "-"]
    print(f"SUMMARY: at eps = {min(eps_grid)} SVMperf takes {min(ratios):.1f}x to "
          f"{max(ratios):.1f}x cvxtop's time to a certified 1e-6 gap ({len(tight)} rows); "
          f"SVMperf's suboptimality {min(subopt):.1e} to {max(subopt):.1e}; to the same "
          f"accuracy (cvxtop's certified gap at SVMperf's suboptimality) {min(matched):.1f}x "
          f"to {max(matched):.1f}x ({len(matched)} of {len(rows)} rows)")


if __name__ == "__main__":
    main()

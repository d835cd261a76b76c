"""AATP on the shipped UCI sets as shipped: features not scaled, defaults otherwise.

    python benchmarks/aatp_raw.py            # 4 sets × n 200, 400 × 2 kernels × 7 values of C
    python benchmarks/aatp_raw.py --quick    # two sets of 60 rows, under a minute

Users fit AATP on the features they have. Spambase's columns' standard deviations span
0.03 to 600 and MAGIC's 0.1 to 80; ionosphere's and letter's lie within a factor of 3.
For each set (a random subsample of ``n`` rows, seed 0), kernel and C,
``AATP(tau=0.05, C=C, kernel=kernel)`` (RBF with ``gamma = 1/(d·Var X)``, scikit-learn's
``"scale"``) is fitted once and either certifies every candidate it solves (the relative
duality gap at most 1e-7) or raises ``SolverError``. Columns: the outcome (the error's
status), the fit's seconds, the engine, the candidates handed to the reference solvers
(``n_fallbacks_``), the largest relative gap among the solved candidates, and at
``n = 200`` the reference ``solver="cvxpy-primal"``: whether it chooses the same candidate
with the same objective (1e-7), or its own error. Failures come first, then the slowest
cells. Public API only.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from cvxtop import AATP, SolverError
from cvxtop.datasets import load_paper_dataset

ROOT = Path(__file__).resolve().parents[1]
TAU = 0.05
CS = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 1e4)
SETS = ("ionosphere", "spambase", "magic", "letter")
REFERENCE_UP_TO = 200  # rows of the cells that also run the cvxpy reference
RTOL = 1e-7


def subsample(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_paper_dataset(name, ROOT / "data")
    take = np.random.default_rng(0).choice(len(y), min(n, len(y)), replace=False)
    return X[take], y[take]


def fit(X: np.ndarray, y: np.ndarray, C: float, kernel: str, solver: str = "fast"
        ) -> tuple[float, AATP | SolverError]:
    gamma = 1.0 / (X.shape[1] * X.var()) if kernel == "rbf" else None
    model = AATP(tau=TAU, C=C, kernel=kernel, gamma=gamma, solver=solver)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.fit(X, y)
    except SolverError as exc:
        return time.perf_counter() - start, exc
    return time.perf_counter() - start, model


def largest_gap(model: AATP) -> float:
    solved = ~model.candidate_screened_
    gaps = model.candidate_duality_gaps_[solved]
    return float(np.max(gaps / np.maximum(1.0, np.abs(model.candidate_objectives_[solved]))))


def reference_column(model: AATP | SolverError, reference: AATP | SolverError) -> str:
    if isinstance(reference, SolverError):
        return f"error ({reference.status})"
    if isinstance(model, SolverError):
        return f"candidate {reference.candidate_}"
    same = model.candidate_ == reference.candidate_ and abs(
        model.objective_ - reference.objective_) <= RTOL * max(1.0, abs(reference.objective_))
    return "same" if same else (f"differs: {model.candidate_} / {reference.candidate_}, "
                                f"{model.objective_:.10g} / {reference.objective_:.10g}")


def cell(name: str, n: int, kernel: str, C: float) -> dict:
    X, y = subsample(name, n)
    seconds, model = fit(X, y, C, kernel)
    row = {"data": name, "n": len(y), "kernel": kernel, "C": C, "seconds": seconds,
           "failed": isinstance(model, SolverError)}
    if row["failed"]:
        row.update(outcome=f"SolverError ({model.status})", engine="", fallbacks="", gap="")
    else:
        row.update(outcome="certified", engine=model.engine_, fallbacks=model.n_fallbacks_,
                   gap=f"{largest_gap(model):.1e}")
    row["reference"] = ""
    if len(y) <= REFERENCE_UP_TO:
        row["reference"] = reference_column(model, fit(X, y, C, kernel, "cvxpy-primal")[1])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="two sets of 60 rows")
    args = parser.parse_args()
    if args.quick:
        grid = [(name, 60, "linear", C) for name in ("ionosphere", "spambase")
                for C in (1.0, 1000.0)]
    else:
        grid = [(name, n, kernel, C) for name in SETS for n in (200, 400)
                for kernel in ("linear", "rbf") for C in CS]
    rows = []
    for spec in grid:
        rows.append(cell(*spec))
        r = rows[-1]
        print(f"# {r['data']} n={r['n']} {r['kernel']} C={r['C']:g}: {r['outcome']} "
              f"{r['seconds']:.2f} s {r['reference']}", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: (not r["failed"], -r["seconds"]))
    lines = ["| data (as shipped) | n | kernel | C | outcome | seconds | engine | fallbacks | "
             "largest gap | reference (cvxpy-primal) |", "|---" * 10 + "|"]
    for r in rows:
        lines.append(f"| {r['data']} | {r['n']} | {r['kernel']} | {r['C']:g} | {r['outcome']} "
                     f"| {r['seconds']:.2f} | {r['engine']} | {r['fallbacks']} | {r['gap']} "
                     f"| {r['reference']} |")
    failed = [r for r in rows if r["failed"]]
    worst = rows[0]
    summary = (f"SUMMARY: {len(rows) - len(failed)} of {len(rows)} cells certified; worst "
               f"cell {worst['data']} n={worst['n']} {worst['kernel']} C={worst['C']:g}: "
               f"{worst['outcome']}, {worst['seconds']:.2f} s")
    differs = [r for r in rows if r["reference"].startswith("differs")]
    if differs:
        summary += f"; {len(differs)} cells choose otherwise than the reference"
    print("\n".join(lines) + "\n\n" + summary)


if __name__ == "__main__":
    main()

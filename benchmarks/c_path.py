"""A regularization path over C: cold fits against one path, every cell certified.

    python benchmarks/c_path.py            # 13 values of C on MAGIC and spambase (standardized
                                           # and as shipped), 10⁴ × 1,000, the sparse
                                           # 50,000 × 50,000 set and a wide sparse set
    python benchmarks/c_path.py --data raw # MAGIC and spambase as shipped only
    python benchmarks/c_path.py --quick    # 5 values on two small sets, under a minute
    python benchmarks/c_path.py --data sparse --surrogates prec@k-avg prec@k-max
    python benchmarks/c_path.py --data magic spambase --surrogates pap@k-ts  # on request

For each data set and surrogate, ``TopRanker(surrogate, C=C, engine="cutting-plane",
tol=1e-6)`` is fitted cold at every C of a log-spaced grid (C = 1 included), then the
same grid is run as one path by ``TopRanker.fit_path`` (from the smallest C up: each
solve starts from the last one's cuts of the loss, which do not depend on C, and its
point; the data are checked, scaled and digested once), and as fits of
``TopRanker(..., warm_start=True)`` with ``set_params(C=C)`` between them, from the
smallest C up and from the largest down (``cvxtop.solvers.cut_store``). Columns: the cold
fits' total and their slowest cell, ``fit_path``'s time and its ratio to that slowest cell
(the target is at most 3), the warm-started fits' totals, the cells not certified to 1e-6
(a cell that raises ``SolverError`` counts as not certified, with its status), and the
largest relative difference between a path's and the cold fit's objective (relative as
``gap_`` is). The worst row comes first. MAGIC and spambase run twice: standardized, and
with their features as shipped, as users who do not scale them fit them (spambase's
columns' standard deviations span 0.08 to 606, MAGIC's 0.11 to 75). Public API only.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cvxtop import SolverError, TopRanker
from cvxtop.datasets import load_paper_dataset, make_ranking_data, make_sparse_ranking_data

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-6
#: Runs under this many seconds are timed as the median of REPEATS runs.
REPEAT_BELOW = 1.0
REPEATS = 3
SURROGATES = {"prec@k-avg": 0.25, "prec@k-max": 0.25, "prec@k-struct": 0.25,
              "prec@k-svmperf": 0.25, "pap@k-avg": 10}
#: Surrogates run only when asked for by ``--surrogates`` (not in the issue's grid).
ON_REQUEST = {"pap@k-ts": 10}


def standardized(X: np.ndarray) -> np.ndarray:
    scale = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)


def datasets(quick: bool) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if quick:
        X, y = load_paper_dataset("spambase", ROOT / "data")
        take = np.random.default_rng(0).choice(len(y), 800, replace=False)
        return {"spambase (800 rows)": (standardized(X[take]), y[take]),
                "synthetic 2,000 × 50": make_ranking_data(2000, 50, noise=0.3)}
    out = {"sparse 50,000 × 50,000 (0.1%)": make_sparse_ranking_data(
        50_000, 50_000, density=0.001, noise=0.5, random_state=0),
        "wide 2,000 × 20,000 (1% nonzero)": make_sparse_ranking_data(
            2000, 20_000, density=0.01, noise=0.5, random_state=0),
        "synthetic 10⁴ × 1,000": make_ranking_data(10_000, 1000, noise=0.3)}
    for name in ("magic", "spambase"):
        X, y = load_paper_dataset(name, ROOT / "data")
        out[name] = (standardized(X), y)
        out[f"{name}, raw features"] = (X, y)
    return out


def fit(model: TopRanker, X: np.ndarray, y: np.ndarray) -> tuple[float, TopRanker | str]:
    """Seconds of one fit and the model, or the status of its SolverError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        try:
            model.fit(X, y)
        except SolverError as exc:
            return time.perf_counter() - start, exc.status or "failed"
    return time.perf_counter() - start, model


def timed(run: Callable[[], tuple[float, Any]]) -> tuple[float, Any]:
    """``run()``'s seconds and answer; a run under :data:`REPEAT_BELOW` seconds is
    repeated, and its median time of :data:`REPEATS` counts (tiny fits are noisy)."""
    seconds, answer = run()
    if seconds < REPEAT_BELOW:
        seconds = float(np.median([seconds] + [run()[0] for _ in range(REPEATS - 1)]))
    return seconds, answer


def fit_path(model: TopRanker, X: np.ndarray, y: np.ndarray,
             Cs: np.ndarray) -> tuple[float, list[TopRanker]]:
    """Seconds of ``model.fit_path`` over ``Cs`` and its fits (``accept_inaccurate``: a
    point that is not certified comes back with its status instead of ending the path)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        fits = model.set_params(accept_inaccurate=True).fit_path(X, y, Cs)
    return time.perf_counter() - start, fits


def certified(model: TopRanker | str) -> bool:
    return not isinstance(model, str) and model.status_ == "optimal" and model.gap_ <= TOL


def relative_difference(fitted: TopRanker, reference: TopRanker | str) -> float | None:
    """How far a path's certified objective is from the cold fit's, if both certified:
    relative as their gaps are, to the objective or to ``½‖w‖²`` where that is larger
    (prec@k-struct's objective crosses 0 at one C; ``cvxtop.solvers.gaps``)."""
    if not (certified(fitted) and certified(reference)):
        return None
    scale = max(abs(reference.objective_), 0.5 * float(reference.coef_ @ reference.coef_),
                1e-12)
    return abs(fitted.objective_ - reference.objective_) / scale


def row(name: str, surrogate: str, k: float, Cs: np.ndarray, X: np.ndarray,
        y: np.ndarray) -> dict:
    def cold_fit(C: float) -> tuple[float, TopRanker | str]:
        return fit(TopRanker(surrogate, k=k, C=C, engine="cutting-plane", tol=TOL), X, y)

    cold = {C: timed(lambda: cold_fit(C)) for C in Cs}
    runs, differences = {}, []
    seconds, fits = timed(lambda: fit_path(
        TopRanker(surrogate, k=k, engine="cutting-plane", tol=TOL), X, y, Cs))
    runs["fit_path"] = (seconds, [f"C={m.C:g}: {m.status_}" for m in fits
                                  if not certified(m)])
    differences += [relative_difference(m, cold[m.C][1]) for m in fits]
    for direction, order in (("up", Cs), ("down", Cs[::-1])):
        model = TopRanker(surrogate, k=k, engine="cutting-plane", tol=TOL, warm_start=True)
        seconds, failures = 0.0, []
        for C in order:
            s, fitted = fit(model.set_params(C=float(C)), X, y)
            seconds += s
            if not certified(fitted):
                failures.append(f"C={C:g}: {fitted if isinstance(fitted, str) else fitted.status_}")
                model = TopRanker(surrogate, k=k, engine="cutting-plane", tol=TOL,
                                  warm_start=True)  # a failed fit keeps no cuts
                continue
            differences.append(relative_difference(fitted, cold[C][1]))
        runs[direction] = (seconds, failures)
    slowest = max(s for s, _ in cold.values())
    return {"data": name, "surrogate": surrogate, "cold": sum(s for s, _ in cold.values()),
            "slowest": slowest, "runs": runs,
            "cold_failures": [f"C={C:g}: {m if isinstance(m, str) else m.status_}"
                              for C, (_, m) in cold.items() if not certified(m)],
            "difference": max((d for d in differences if d is not None), default=0.0),
            "ratio": runs["fit_path"][0] / slowest}


def table_row(r: dict) -> str:
    runs = r["runs"]
    failed = "; ".join(", ".join(f) or "none" for f in (
        r["cold_failures"], runs["fit_path"][1], runs["up"][1], runs["down"][1]))
    return (f"| {r['data']} | {r['surrogate']} | {r['cold']:.2f} | {r['slowest']:.3f} | "
            f"{runs['fit_path'][0]:.3f} | {r['ratio']:.2f} | {runs['up'][0]:.2f} | "
            f"{runs['down'][0]:.2f} | {failed} | {r['difference']:.0e} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 values of C, small sets")
    parser.add_argument("--data", nargs="+", default=None,
                        help="only the data sets whose names contain one of these words")
    parser.add_argument("--surrogates", nargs="+", choices=[*SURROGATES, *ON_REQUEST],
                        default=None, help="only these surrogates (pap@k-ts only so)")
    args = parser.parse_args()
    Cs = np.logspace(-2, 2, 5) if args.quick else np.logspace(-4, 4, 13)
    rows = []
    for name, (X, y) in datasets(args.quick).items():
        if args.data and not any(word in name for word in args.data):
            continue
        for surrogate in args.surrogates or SURROGATES:
            k = {**SURROGATES, **ON_REQUEST}[surrogate]
            rows.append(row(name, surrogate, k, Cs, X, y))
            print(table_row(rows[-1]), file=sys.stderr, flush=True)  # progress, row by row
    rows.sort(key=lambda r: (-len(r["cold_failures"]) - sum(len(f) for _, f in
                                                            r["runs"].values()), -r["ratio"]))
    print("# A regularization path over C\n")
    print(f"{len(Cs)} values of C from {Cs[0]:g} to {Cs[-1]:g}; tol = {TOL:g}. Cold fits and "
          "`TopRanker.fit_path` are timed once, or as the median of "
          f"{REPEATS} runs when one takes under {REPEAT_BELOW:g} s; `path / slowest`: "
          "`fit_path`'s time over the slowest cold cell (target <= 3); `warm up`, `warm "
          "down`: the same grid as fits of `TopRanker(warm_start=True)` with `set_params(C=C)` "
          "between them, upwards and downwards (timed once); `max obj. diff`: the largest "
          "relative difference of a path's objective from the cold fit's over the certified "
          "cells (relative as `gap_` is: to the objective, or to ½‖w‖² where that is "
          "larger).\n")
    print("| data | surrogate | cold total s | slowest cold s | fit_path s | path / slowest | "
          "warm up s | warm down s | not certified (cold; fit_path; up; down) | "
          "max obj. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(table_row(r))
    worst = rows[0]
    uncertified = sum(len(r["cold_failures"]) + sum(len(f) for _, f in r["runs"].values())
                      for r in rows)
    totals = {run: sum(r["runs"][run][0] for r in rows) for run in ("fit_path", "up", "down")}
    print()
    print(f"SUMMARY: worst path {worst['data']} {worst['surrogate']}: {worst['ratio']:.2f}x its "
          f"slowest cold cell (target <= 3); {uncertified} of {4 * len(rows) * len(Cs)} fits "
          f"not certified; fit_path {totals['fit_path']:.1f} s, warm-started fits up "
          f"{totals['up']:.1f} s and down {totals['down']:.1f} s, cold "
          f"{sum(r['cold'] for r in rows):.1f} s in all")


if __name__ == "__main__":
    main()

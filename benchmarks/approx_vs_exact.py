"""The approximate solvers against the exact solver's certified optimum.

    python benchmarks/approx_vs_exact.py            # full tables (about 15 minutes)
    python benchmarks/approx_vs_exact.py --quick    # small sizes, a few minutes

Four sections, printed as markdown and written to ``benchmarks/results/approx_vs_exact.md``
(``approx_vs_exact_quick.md`` with ``--quick``):

1. **Gap to the certified optimum against epochs and time.** On the real data sets of
   ``data/`` (one letter against the rest, MAGIC, Spambase, Ionosphere; features
   standardized), for prec@k-avg, prec@k-max and prec@k-struct at κ = 0.25 and a sweep of C
   (the count-scale C = 1, C = 0.1 and the normalized C = 1/k of Kar et al. 2015 Section 5):
   the exact optimum P* (certified) and, for full-batch GD, SGD under its three step rules
   and the perceptrons, the relative excess ``(P − P*)/|P*|`` of ``objective_`` after a
   number of epochs (one epoch = one pass over the data; a GD step is one pass), with the
   time to get there.
2. **Targets.** GD (2000 steps) within 0.5% of the optimum; SGD with batches of 500, 25
   epochs and default settings within 5%.
3. **SGD epoch cost.** One SGD epoch divided by two dense passes over the same data
   (``X @ w`` and ``X.T @ g``), measured in the same run (best of repeats, BLAS limited to
   one thread for both), on ``make_ranking_data`` for n up to 1,000,000 and two d.
4. **letter** (Kar et al. 2015 Section 6): moved to ``examples/kar_section6.py``.
"""

from __future__ import annotations

import argparse
import functools
import os
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
from threadpoolctl import threadpool_limits

from cvxtop import TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data
from cvxtop.solvers import RankingObjective, solve_gd

ROOT = Path(__file__).resolve().parents[1]
KAPPA = 0.25


# ---- helpers ---------------------------------------------------------------------------------

def markdown_table(rows: list[dict[str, Any]]) -> str:
    """A GitHub-flavoured markdown table of ``rows`` (the keys of the first row)."""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def standardized(X: np.ndarray) -> np.ndarray:
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def excess(value: float, optimum: float) -> str:
    return f"{(value - optimum) / abs(optimum):.1e}"


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_paper_dataset(name, ROOT / "data")
    return standardized(X), y


# ---- 1 and 2: gap to the certified optimum ---------------------------------------------------

GD_STEPS = (1, 5, 25, 100, 2000)
MINIBATCH_EPOCHS = (1, 5, 25, 100)


def gd_curve(objective: RankingObjective, optimum: float) -> dict[str, str]:
    """Best objective of GD (line search) after each checkpoint, from one run's callback
    (a run that certifies the optimum early keeps its value for the later checkpoints)."""
    marks: list[tuple[float, float]] = []
    start = time.perf_counter()

    def record(t: int, best: float, lower: float | None) -> None:
        marks.append((best, time.perf_counter() - start))
    solve_gd(objective, max_iter=max(GD_STEPS), tol=0.0, callback=record)
    at = {t: marks[min(t, len(marks)) - 1] for t in GD_STEPS}
    row = {f"@{t}": excess(at[t][0], optimum) for t in GD_STEPS}
    row["s @25"] = f"{at[25][1]:.2f}"
    row["s @last"] = f"{at[max(GD_STEPS)][1]:.2f}"
    return row


def minibatch_curve(X, y, optimum: float, epochs: tuple[int, ...], **params) -> dict[str, str]:
    """``objective_`` after each number of epochs (separate runs: a run of e epochs is the
    first e epochs of a longer one with the same seed), with each run's time (the method
    alone: ``certify=False``; benchmarks/certificate_cost.py measures the certificate)."""
    row: dict[str, str] = {}
    for e in epochs:
        model, seconds = timed(lambda: TopRanker(epochs=e, random_state=0, certify=False,
                                                 **params).fit(X, y))
        row[f"@{e}"] = excess(model.objective_, optimum)
        if e == 25:
            row["s @25"] = f"{seconds:.2f}"
    row["s @last"] = f"{seconds:.2f}"
    return row


def gap_rows(name: str, X: np.ndarray, y: np.ndarray, surrogate: str, C: float,
             c_label: str, epochs: tuple[int, ...]) -> list[dict[str, str]]:
    """One row per method on one (data set, surrogate, C) cell."""
    exact, t_exact = timed(lambda: TopRanker(surrogate, k=KAPPA, C=C).fit(X, y))
    optimum = exact.objective_
    zero = C * surrogates.get(surrogate, KAPPA).value(y, np.zeros(len(y)))
    head = {"data": name, "surrogate": surrogate, "C": c_label,
            "P*": f"{optimum:.4g}", "P*/P(0)": f"{optimum / zero:.2f}",
            "exact s": f"{t_exact:.1f}"}
    objective = RankingObjective(X, y, surrogates.get(surrogate, KAPPA), C)
    rows = [{**head, "method": "GD line-search", **gd_curve(objective, optimum)}]
    common = dict(surrogate=surrogate, k=KAPPA, C=C, batch_size=500)
    for rule in ("line-search", "inverse", "sqrt"):
        rows.append({**head, "method": f"SGD {rule}",
                     **minibatch_curve(X, y, optimum, epochs, solver="sgd", learning_rate=rule,
                                       **common)})
    if surrogate in ("prec@k-avg", "prec@k-max"):
        rows.append({**head, "method": f"Perceptron@k-{surrogate.rsplit('-', 1)[1]}",
                     **minibatch_curve(X, y, optimum, epochs, solver="perceptron", **common)})
    return rows


def target_rows(gap_table: list[dict[str, str]]) -> list[dict[str, str]]:
    """The issue's targets, read off the gap table."""
    out = []
    for row in gap_table:
        if row["method"] == "GD line-search":
            gd = float(row["@2000"])
            out.append({"data": row["data"], "surrogate": row["surrogate"], "C": row["C"],
                        "P*/P(0)": row["P*/P(0)"], "GD 2000 steps": f"{gd:.1e}",
                        "GD <= 0.5%": "yes" if gd <= 5e-3 else "no"})
        elif row["method"] == "SGD line-search":
            sgd = float(row["@25"])
            out[-1].update({"SGD 25 epochs": f"{sgd:.1e}",
                            "SGD <= 5%": "yes" if sgd <= 0.05 else "no"})
    return out


# ---- 3: SGD epoch cost ------------------------------------------------------------------------

def epoch_rows(shapes: list[tuple[int, int]], repeats: int) -> list[dict[str, str]]:
    """Per shape: two dense passes and one SGD epoch under three settings.

    An epoch's time is the median of the five entries of ``epoch_times_`` of a 5-epoch fit
    (the epoch loop only: validation, the one-time gather of a shuffled partition and the
    final scoring are outside it); the set-up is the rest of the fit. Every figure is the
    best of ``repeats`` rounds, and a round times every measurement once, so that a change
    of load on the shared machine affects all of them alike."""
    settings = (("line-search", True), ("line-search", False), ("inverse", True))
    rows = []
    for n, d in shapes:
        X, y = make_ranking_data(n, d, noise=0.3, random_state=n + d)
        w, g = np.ones(d), np.ones(n)

        def dense() -> None:
            X @ w
            X.T @ g

        def fit(rule: str, shuffle: bool) -> TopRanker:
            return TopRanker("prec@k-avg", k=KAPPA, solver="sgd", learning_rate=rule,
                             shuffle=shuffle, batch_size=500, epochs=5,
                             random_state=0, certify=False).fit(X, y)
        best: dict[Any, float] = {}
        for _ in range(repeats):
            best["dense"] = min(best.get("dense", np.inf), timed(dense)[1])
            for setting in settings:
                model, seconds = timed(functools.partial(fit, *setting))
                epoch = float(np.median(model.epoch_times_))
                best[setting] = min(best.get(setting, np.inf), epoch)
                best[setting, "setup"] = min(best.get((setting, "setup"), np.inf),
                                             seconds - float(model.epoch_times_.sum()))
        batches = -(-n // 500)
        row = {"n": f"{n:,}", "d": d, "two dense passes s": f"{best['dense']:.4f}"}
        for rule, shuffle in settings:
            label = f"{rule}{'' if shuffle else ', no shuffle'}"
            row[f"{label}: epoch s"] = f"{best[rule, shuffle]:.4f}"
            row[f"{label}: ratio"] = f"{best[rule, shuffle] / best['dense']:.2f}"
        row["line-search: set-up s"] = f"{best[('line-search', True), 'setup']:.3f}"
        row["no shuffle: µs per batch"] = f"{1e6 * best['line-search', False] / batches:.0f}"
        print(markdown_table([row]).splitlines()[-1], flush=True)
        rows.append(row)
    return rows


# ---- main -------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    quick = args.quick
    warnings.simplefilter("ignore", UserWarning)
    load_avg = os.getloadavg()
    started = time.perf_counter()

    datasets = ["ionosphere", "spambase", "letter"] if quick else \
        ["ionosphere", "spambase", "letter", "magic"]
    epochs = (1, 5, 25) if quick else MINIBATCH_EPOCHS
    gap_table = []
    for name in datasets:
        X, y = load(name)
        k = int(np.ceil(KAPPA * y.sum()))
        for surrogate in ("prec@k-avg", "prec@k-max", "prec@k-struct"):
            sweep = [(1.0, "1"), (1.0 / k, f"1/k = 1/{k}")]
            if surrogate == "prec@k-avg" and not quick:
                sweep.insert(1, (0.1, "0.1"))
            for C, label in sweep:
                rows = gap_rows(name, X, y, surrogate, C, label, epochs)
                gap_table += rows
                print(markdown_table(rows), flush=True)

    if quick:
        shapes = [(10_000, 20), (100_000, 20), (10_000, 100)]
    else:  # d = 500 stops at n = 200,000 (800 MB, like n = 1,000,000 at d = 100)
        shapes = [(n, d) for d in (20, 100) for n in (10_000, 100_000, 1_000_000)]
        shapes += [(10_000, 500), (100_000, 500), (200_000, 500)]
    repeats = 3 if quick else 5
    print("\nSGD epoch cost", flush=True)
    with threadpool_limits(limits=1):
        epochs_table = epoch_rows(shapes, repeats)

    minutes = (time.perf_counter() - started) / 60
    command = "python benchmarks/approx_vs_exact.py" + (" --quick" if quick else "")
    gap_columns = ["data", "surrogate", "C", "P*", "P*/P(0)", "exact s", "method"]
    lines = [
        "# Approximate solvers against the certified optimum", "",
        f"Command: `{command}` ({minutes:.1f} min; load average at the start "
        f"{load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} on {os.cpu_count()} cores, "
        "shared with other work, so times are indicative).", "",
        "## 1. Relative excess (P − P*)/|P*| after e epochs", "",
        f"κ = {KAPPA}, features standardized, batch 500, random_state 0. `@e`: after e passes "
        "over the data (a GD step is one pass); `s @25`: seconds to run 25 epochs (GD: "
        "25 steps); `s @last`: seconds for the longest run. P*/P(0) compares the optimum "
        "with the zero model's objective (near 1: the loss hardly moves from w = 0). The "
        "perceptrons do not minimize this objective; their row shows where their models "
        "land on it.", "",
        markdown_table([{**{c: r[c] for c in gap_columns},
                         **{c: v for c, v in r.items() if c not in gap_columns}}
                        for r in gap_table]), "",
        "## 2. Targets", "",
        "GD: line search, 2000 steps (the default `max_iter`). SGD: default settings "
        "(line-search steps), batch 500, 25 epochs.", "",
        markdown_table(target_rows(gap_table)), "",
        "## 3. SGD epoch time / two dense passes", "",
        "prec@k-avg, κ = 0.25, batch 500, `make_ranking_data(n, d, noise=0.3)`; an epoch is "
        "the median of `epoch_times_` over a 5-epoch fit (the epoch loop only); *set-up* is "
        "the rest of that fit with shuffling (validation, the one-time gather of the "
        "shuffled partition into a contiguous copy, the final objective); *µs per batch* is "
        "the unshuffled epoch over its batches. The `inverse` rule draws a fresh "
        "permutation every epoch, so each batch's rows are gathered anew (one more pass "
        "over X); line-search SGD gathers its fixed partition once, in the set-up. Every "
        "time is the best of "
        f"{repeats} rounds that interleave all the measurements of a row; BLAS limited to "
        "one thread. Target: ratio <= 3.", "",
        markdown_table(epochs_table), "",
        "## 4. letter (Kar et al. 2015 Section 6): see `examples/kar_section6.py`", "",
    ]
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / ("approx_vs_exact_quick.md" if quick else "approx_vs_exact.md")).write_text(
        "\n".join(lines))
    print("\n".join(lines))
    print("\n".join(summary_lines(target_rows(gap_table), epochs_table)))


def summary_lines(targets: list[dict[str, str]], epochs: list[dict[str, str]]) -> list[str]:
    """The targets as ``SUMMARY:`` lines for ``benchmarks/run.py``."""
    def count(key: str, rows: list[dict[str, str]]) -> str:
        return f"{sum(r.get(key) == 'yes' for r in rows)} of {len(rows)}"
    normalized = [r for r in targets if r["C"].startswith("1/k")]
    ratios = [float(r["line-search, no shuffle: ratio"]) for r in epochs]
    shuffled = [float(r["line-search: ratio"]) for r in epochs]
    return [
        f"SUMMARY: GD (2000 line-search steps) within 0.5% of the optimum: "
        f"{count('GD <= 0.5%', targets)} cells",
        f"SUMMARY: SGD (25 epochs, batch 500, defaults) within 5%: "
        f"{count('SGD <= 5%', normalized)} cells at C = 1/k, "
        f"{count('SGD <= 5%', targets)} over all C (C = 1 is loss-dominated)",
        f"SUMMARY: SGD epoch / two dense passes: {min(ratios):.2f} to {max(ratios):.2f} "
        f"unshuffled, {min(shuffled):.2f} to {max(shuffled):.2f} shuffled (target <= 3); "
        "shapes in the table",
    ]


if __name__ == "__main__":
    main()

"""The approximate solvers against the exact solver's certified optimum.

    python benchmarks/approx_vs_exact.py            # full tables (a few minutes)
    python benchmarks/approx_vs_exact.py --quick    # small sizes, under a minute

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
2. **Targets.** GD (2000 steps) within 0.5% of the optimum; SGD with 25 epochs within 5%,
   on one block and on batches of 500.
3. **SGD with every default on the grid** (four data sets; prec@k-avg, -max, -struct and
   pAp@k-avg, -ts; C = 0.01, 0.1, 1, 10): true excess, SGD's own certified gap, status and
   epochs run.
4. **Cost of a fit.** A whole one-epoch SGD fit (set-up included) and a later epoch alone,
   divided by two dense passes over the same data (``X @ w`` and ``X.T @ g``) measured in
   the same run (best of repeats, BLAS limited to one thread for both), on
   ``make_ranking_data`` for d = 20, 50 (n up to 1,000,000) and 500 (n up to 200,000); and
   the floor, the parts of such a fit that no implementation can skip, measured alone.
5. **One block or 64 at scale**: SGD's line-search rule on the whole list (cutting-plane
   rounds) and on 64 blocks (block Frank-Wolfe) at n = 10⁵ and 10⁶, d = 20.
6. **letter** (Kar et al. 2015 Section 6): moved to ``examples/kar_section6.py``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import load_paper_dataset, make_ranking_data
from cvxtop.solvers import RankingObjective, solve_gd
from cvxtop.solvers.one_block import ONE_BLOCK_ROUNDS
from cvxtop.solvers.batches import batch_slices
from cvxtop.solvers.minimize import ONE_BLOCK_ITEMS, resolve_batch_size

from _results import results_dir  # benchmarks/ is the script's folder

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
    rows.append({**head, "method": "SGD one block",
                 **minibatch_curve(X, y, optimum, epochs, solver="sgd", surrogate=surrogate,
                                   k=KAPPA, C=C, batch_size=len(y))})
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
        elif row["method"] == "SGD one block":
            sgd = float(row["@25"])
            out[-1].update({"SGD one block, 25": f"{sgd:.1e}",
                            "one block <= 5%": "yes" if sgd <= 0.05 else "no"})
        elif row["method"] == "SGD line-search":
            sgd = float(row["@25"])
            out[-1].update({"SGD batches of 500, 25": f"{sgd:.1e}",
                            "batches <= 5%": "yes" if sgd <= 0.05 else "no"})
    return out


# ---- 3: defaults on the grid -----------------------------------------------------------

GRID_SURROGATES = (("prec@k-avg", KAPPA), ("prec@k-max", KAPPA), ("prec@k-struct", KAPPA),
                   ("pap@k-avg", 10), ("pap@k-ts", 10))
GRID_C = (0.01, 0.1, 1.0, 10.0)


def grid_rows(name: str, X: np.ndarray, y: np.ndarray, Cs: tuple[float, ...]
              ) -> list[dict[str, str]]:
    """SGD with every default (certificate included) against the exact optimum, one row per
    (surrogate, C): the true excess, SGD's own certified gap, its status and epochs."""
    rows = []
    for surrogate, k in GRID_SURROGATES:
        for C in Cs:
            head = {"data": name, "surrogate": surrogate, "k": k, "C": f"{C:g}"}
            try:
                exact, t_exact = timed(lambda: TopRanker(surrogate, k=k, C=C).fit(X, y))
            except SolverError as error:  # shown in the table, not hidden
                rows.append({**head, "exact s": f"failed: {error}"})
                print(markdown_table([rows[-1]]).splitlines()[-1], flush=True)
                continue
            with warnings.catch_warnings():  # the table shows what the warning says
                warnings.simplefilter("ignore", ConvergenceWarning)
                sgd, t_sgd = timed(lambda: TopRanker(surrogate, k=k, C=C, solver="sgd",
                                                     random_state=0).fit(X, y))
            excess_ = (sgd.objective_ - exact.objective_) / abs(exact.objective_)
            row = {**head, "exact s": f"{t_exact:.2f}", "SGD s": f"{t_sgd:.2f}",
                   "SGD epochs": sgd.n_iter_, "status_": sgd.status_,
                   "excess": f"{excess_:.1e}", "gap_": f"{sgd.gap_:.1e}",
                   "within 5%": "yes" if excess_ <= 0.05 else "no",
                   "excess <= gap_": "yes" if excess_ <= sgd.gap_ * abs(
                       sgd.objective_ / exact.objective_) + 1e-9 else "NO"}
            print(markdown_table([row]).splitlines()[-1], flush=True)
            rows.append(row)
    return rows


# ---- 4: cost of a fit ------------------------------------------------------------------------

def cost_rows(shapes: list[tuple[int, int]], repeats: int) -> list[dict[str, str]]:
    """Per shape: two dense passes, a whole one-epoch SGD fit (set-up, validation and the
    final objective included) with and without shuffling, a later epoch alone, and the
    parts of a fit that no implementation of it can skip (the floor).

    Defaults (``batch_size="auto"``), ``certify=False`` (the certificate is measured by
    benchmarks/certificate_cost.py). Every figure is the best of ``repeats`` rounds, and a
    round times every measurement once, so that a change of load on the shared machine
    affects all of them alike."""
    rows = []
    for n, d in shapes:
        X, y = make_ranking_data(n, d, noise=0.3, random_state=n + d)
        w, g = np.ones(d), np.ones(n)
        objective = RankingObjective(X, y, surrogates.get("prec@k-avg", KAPPA), 1.0)
        scores = X @ np.random.default_rng(0).standard_normal(d)

        blocks = list(batch_slices(n, resolve_batch_size("auto", n, "sgd", "line-search",
                                                         objective.surrogate),
                                   True, np.random.default_rng(0)))

        def dense() -> None:
            X @ w
            X.T @ g

        def oracle() -> None:  # the surrogate's loss and subgradient on given scores
            objective.loss_and_score_gradient(scores)

        def check() -> None:  # the finite check every fit makes of X
            np.isfinite(X).all()

        def gather() -> None:  # a shuffled fit's one copy of X, block by block (64 blocks)
            if len(blocks) == 1:
                return
            gathered, start = np.empty_like(X), 0
            for rows in blocks:
                np.take(X, rows, axis=0, out=gathered[start:start + len(rows)], mode="clip")
                start += len(rows)

        def final() -> None:  # the objective at the model, on the full data (objective_)
            objective.value(w)

        def fit(shuffle: bool, epochs: int) -> TopRanker:
            return TopRanker("prec@k-avg", k=KAPPA, solver="sgd", shuffle=shuffle,
                             epochs=epochs, random_state=0, certify=False).fit(X, y)
        best: dict[Any, float] = {}
        for _ in range(repeats):
            for key, fn in (("dense", dense), ("oracle", oracle), ("check", check),
                            ("gather", gather), ("final", final),
                            ("shuffled", lambda: fit(True, 1)),
                            ("in order", lambda: fit(False, 1))):
                best[key] = min(best.get(key, np.inf), timed(fn)[1])
            model = fit(True, 3)  # epoch 3 is not a checkpoint: the epoch loop alone
            best["epoch"] = min(best.get("epoch", np.inf), float(model.epoch_times_[2]))
        # the work no one-epoch fit of this design can skip: the check of X and the epoch's
        # two products; on one block the round's cut (an oracle on the scores), on 64 the
        # objective at the model (objective_), and with shuffled blocks the copy of X's rows
        one_block = len(blocks) == 1
        floor = best["check"] + best["dense"] + (best["oracle"] if one_block else best["final"])
        row = {"n": f"{n:,}", "d": d, "blocks": len(blocks),
               "two dense passes s": f"{best['dense']:.4f}"}
        for key, label in (("check", "check of X"), ("oracle", "oracle on the scores"),
                           ("final", "objective at w"), ("gather", "copy of X")):
            row[f"{label}: ratio"] = f"{best[key] / best['dense']:.1f}" \
                if key != "gather" or not one_block else "-"
        row["floor, shuffled: ratio"] = f"{(floor + best['gather']) / best['dense']:.1f}"
        row["floor, in order: ratio"] = f"{floor / best['dense']:.1f}"
        for key in ("shuffled", "in order"):
            row[f"1-epoch fit, {key}: s"] = f"{best[key]:.4f}"
            row[f"1-epoch fit, {key}: ratio"] = f"{best[key] / best['dense']:.1f}"
        row["a later epoch: s"] = f"{best['epoch']:.4f}"
        row["a later epoch: ratio"] = f"{best['epoch'] / best['dense']:.1f}"
        print(markdown_table([row]).splitlines()[-1], flush=True)
        rows.append(row)
    return rows


# ---- 5: one block or 64 at scale ---------------------------------------------------------------

SCALE_EPOCHS = (5, 25)


def scale_rows(sizes: list[int], Cs: tuple[float, ...]) -> list[dict[str, str]]:
    """SGD's line-search rule on one block (cutting-plane rounds) and on 64 blocks (block
    Frank-Wolfe), prec@k-avg on ``make_ranking_data(n, 20)``: the relative excess over the
    certified optimum and the time after a few epochs (``certify=False``)."""
    rows = []
    for n in sizes:
        X, y = make_ranking_data(n, 20, noise=0.3, random_state=0)
        for C in Cs:
            exact, t_exact = timed(lambda: TopRanker("prec@k-avg", k=KAPPA, C=C).fit(X, y))
            row = {"n": f"{n:,}", "C": f"{C:g}", "exact s": f"{t_exact:.1f}"}
            for label, size in (("one block", n), ("64 blocks", -(-n // 64))):
                for e in SCALE_EPOCHS:
                    model, seconds = timed(lambda: TopRanker(
                        "prec@k-avg", k=KAPPA, C=C, solver="sgd", batch_size=size, epochs=e,
                        random_state=0, certify=False).fit(X, y))
                    row[f"{label} @{e}"] = (f"{excess(model.objective_, exact.objective_)} "
                                            f"({seconds:.2f} s)")
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

    print("\nSGD defaults on the grid", flush=True)
    grid_sets = ["ionosphere", "spambase"] if quick else datasets
    grid_table = []
    for name in grid_sets:
        X, y = load(name)
        grid_table += grid_rows(name, X, y, (0.01, 1.0) if quick else GRID_C)

    if quick:
        shapes = [(10_000, 20), (100_000, 20), (10_000, 50), (10_000, 500)]
    else:  # d = 500 stops at n = 200,000 (800 MB, like n = 1,000,000 at d = 100)
        shapes = [(n, d) for d in (20, 50) for n in (10_000, 100_000, 1_000_000)]
        shapes += [(10_000, 500), (100_000, 500), (200_000, 500)]
    repeats = 3 if quick else 5
    print("\nCost of a fit", flush=True)
    with threadpool_limits(limits=1):
        cost_table = cost_rows(shapes, repeats)
    print("\nOne block or 64 at scale", flush=True)
    scale_table = scale_rows([100_000] if quick else [100_000, 1_000_000], (0.01, 1.0))

    minutes = (time.perf_counter() - started) / 60
    command = "python benchmarks/approx_vs_exact.py" + (" --quick" if quick else "")
    gap_columns = ["data", "surrogate", "C", "P*", "P*/P(0)", "exact s", "method"]
    lines = [
        "# Approximate solvers against the certified optimum", "",
        f"Command: `{command}` ({minutes:.1f} min; load average at the start "
        f"{load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} on {os.cpu_count()} cores, "
        "shared with other work, so times are indicative).", "",
        "## 1. Relative excess (P − P*)/|P*| after e epochs", "",
        f"κ = {KAPPA}, features standardized, batch 500 (*SGD one block*: the whole list, "
        "line-search rule), random_state 0, no certificate "
        "(`certify=False`: every epoch runs). `@e`: after e passes over the data (a GD step "
        "is one pass; SGD returns its best model at the checkpoint epochs 1, 2, 4, ... and "
        "the last); `s @25`: seconds to run 25 epochs (GD: 25 steps); `s @last`: seconds "
        "for the longest run. P*/P(0) compares the optimum with the zero model's objective "
        "(near 1: the loss hardly moves from w = 0). The perceptrons do not minimize this "
        "objective; their row shows where their models land on it.", "",
        markdown_table([{**{c: r[c] for c in gap_columns},
                         **{c: v for c, v in r.items() if c not in gap_columns}}
                        for r in gap_table]), "",
        "## 2. Targets", "",
        "GD: line search, 2000 steps (the default `max_iter`). SGD: line-search steps, 25 "
        "epochs, on one block (the whole list, the default at these sizes) and on batches "
        "of 500.", "",
        markdown_table(target_rows(gap_table)), "",
        "## 3. SGD with every default, certificate included, on the grid", "",
        "`TopRanker(surrogate, k, C, solver='sgd', random_state=0)`: `epochs='auto'`, "
        "`batch_size='auto'` (one block at these sizes, so the epochs are cutting-plane "
        f"rounds, at most {ONE_BLOCK_ROUNDS}), `tol=0.01` (a round certified within 1% ends "
        "the run; otherwise a ConvergenceWarning says how far). *excess*: (P − P*)/|P*| "
        "against the exact solver; *gap_*: SGD's own certified gap, relative to its objective; "
        "*excess <= gap_* checks that the certificate is honest.", "",
        markdown_table(grid_table), "",
        "## 4. Cost of a fit / two dense passes", "",
        "prec@k-avg, κ = 0.25, every default but `certify=False`, "
        "`make_ranking_data(n, d, noise=0.3)`. *1-epoch fit*: `TopRanker(..., epochs=1)"
        ".fit(X, y)` as a user runs it (validation, the partition, the epoch, the final "
        "objective). Up to 100,000 items the default is one block, so an epoch is a "
        "cutting-plane round (the oracle's two products and a master QP) and shuffling "
        "changes nothing; above, 64 blocks: *shuffled* gathers each "
        "batch's scattered rows once (a copy of X), *in order* reads slices. *A later "
        "epoch*: epoch 3 of a shuffled 3-epoch fit (`epoch_times_`, no checkpoint), which "
        "reads the gathered copy. Every time is the "
        f"best of {repeats} rounds that interleave all the measurements of a row; BLAS "
        "limited to one thread. *Oracle on the scores*: prec@k-avg's loss and score "
        "subgradient on given scores (a partition of the n scores, no product with X), the "
        "part of every epoch that is not a pass over X. *Check of X*: the finite check every "
        "fit makes (`np.isfinite(X).all()`). *Objective at w*: `objective_` on the full data (a "
        "product and the loss). *Copy of X*: a shuffled 64-block fit's gather of the rows of "
        "its random blocks, into a new array. *Floor*: the work a one-epoch fit cannot skip, "
        "check + two dense passes + (one block: the round's cut, an oracle on the scores; "
        "64 blocks: the objective at the model) + (shuffled 64 blocks: the copy of X). "
        "Target: ratio <= 3; where the floor is above 3 no implementation of this design "
        "meets it.", "",
        markdown_table(cost_table), "",
        "## 5. One block or 64 blocks at scale", "",
        "SGD's line-search rule on one block (the whole list: cutting-plane rounds, the "
        f"default up to {ONE_BLOCK_ITEMS:,} items) and on 64 blocks (block Frank-Wolfe, the "
        "default above), prec@k-avg, κ = 0.25, `make_ranking_data(n, 20, noise=0.3)`, "
        "`certify=False`: relative excess over the certified optimum (and the fit's "
        "seconds) after e epochs.", "",
        markdown_table(scale_table), "",
        "## 6. letter (Kar et al. 2015 Section 6): see `examples/kar_section6.py`", "",
    ]
    out = results_dir()
    (out / ("approx_vs_exact_quick.md" if quick else "approx_vs_exact.md")).write_text(
        "\n".join(lines))
    print("\n".join(lines))
    print("\n".join(summary_lines(target_rows(gap_table), grid_table, cost_table)))


def summary_lines(targets: list[dict[str, str]], grid: list[dict[str, str]],
                  cost: list[dict[str, str]]) -> list[str]:
    """The targets as ``SUMMARY:`` lines for ``benchmarks/run.py``."""
    def count(key: str, rows: list[dict[str, str]], value: str = "yes") -> str:
        return f"{sum(r.get(key) == value for r in rows)} of {len(rows)}"
    grid = [r for r in grid if "SGD s" in r]  # cells whose exact solve succeeded
    small_c = [r for r in grid if float(r["C"]) <= 0.01]

    def span(key: str) -> str:
        ratios = [float(r[key]) for r in cost]
        return f"{min(ratios):.1f} to {max(ratios):.1f}"
    return [
        f"SUMMARY: GD (2000 line-search steps) within 0.5% of the optimum: "
        f"{count('GD <= 0.5%', targets)} cells",
        f"SUMMARY: SGD with every default within 5%: {count('within 5%', grid)} grid cells "
        f"({count('within 5%', small_c)} at C = 0.01); certified within 1%: "
        f"{count('status_', grid, 'converged')}; excess within gap_: "
        f"{count('excess <= gap_', grid)}",
        f"SUMMARY: one-epoch SGD fit / two dense passes: {span('1-epoch fit, shuffled: ratio')} "
        f"shuffled, {span('1-epoch fit, in order: ratio')} in order; a later epoch "
        f"{span('a later epoch: ratio')} (target <= 3); the floor (work no fit can skip) "
        f"{span('floor, shuffled: ratio')} shuffled, {span('floor, in order: ratio')} in order",
    ]


if __name__ == "__main__":
    main()

"""Cost growth of the exact engines in n, d and k, with each cell's certified gap.

    python benchmarks/exact_scaling.py            # full tables (several minutes)
    python benchmarks/exact_scaling.py --quick    # small sizes, under a minute

Both engines solve ``min ½‖w‖² + C·prec@k-avg(y, Xw)`` on the same synthetic problems
(``cvxtop.datasets.make_ranking_data``: Gaussian features, 10% relevant from a linear score
with noise 0.3, κ = 0.25, C = 1). The column "P/P(0)" compares the optimum with the objective
of the zero model, to show the problems are not degenerate.
The direct engine (one cvxpy program, Clarabel) is run up to ``--direct-max-n`` items;
beyond that only the cutting plane runs, for at most ``MAX_ROUNDS`` rounds (300 for the
sparse row; a cell that needs more shows the gap it reached). The column
"s / (rounds x pass)" divides the cutting plane's time by its rounds and by one oracle
pass (``X@w``, the surrogate's value and subgradient, ``Xᵀ@g``, measured on the same data):
the overhead of the engine over its least possible work per round. From d = 32 prec@k-avg's
dual is also solved over the items after 50 rounds (``cvxtop.solvers.selection_dual``), a
step that is not a round: "dual solve s" gives its seconds and "rounds alone / (rounds x
pass)" the ratio without them; "dual steps" counts its active-set steps (each one linear
system in the tied items and one product ``X @ w``), and "s / ((rounds + dual steps) x
pass)" divides the time by both kinds of iteration. The growth in d ends
with a sparse CSR matrix (d = 100,000, 0.1% density). The target rows follow: MAGIC
(19,020 × 10, class h relevant, standardized features), a 100,000 × 50 synthetic problem,
and the other UCI sets of the SVMperf head-to-head, spambase (4,597 × 57) and letter
(20,000 × 16, letter A), standardized.
Results are printed as markdown (``benchmarks/run.py`` stores them in ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from cvxtop import TopRanker, surrogates
from cvxtop.solvers import RankingObjective
from cvxtop.datasets import load_paper_dataset, make_ranking_data, make_sparse_ranking_data
from cvxtop.report import format_table

ROOT = Path(__file__).resolve().parents[1]
NOISE = 0.3


#: Rounds allowed to the cutting plane; a cell that needs more shows the gap it reached.
MAX_ROUNDS = 1000
#: The sparse d = 100,000 row's rounds: its master grows with the hundreds of cuts it keeps.
SPARSE_ROUNDS = 300


def fit_row(X, y, engine, surrogate="prec@k-avg", kappa=0.25, C=1.0, rounds=MAX_ROUNDS):
    """Seconds of a fit as a user runs it, the model, and the seconds and active-set steps
    of its dual solves over the items (the fit's ``solve_stats_``: they are not rounds)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # an uncertified cell shows its gap
        start = time.perf_counter()
        model = TopRanker(surrogate, k=kappa, C=C, engine=engine, max_iter=rounds,
                          accept_inaccurate=True).fit(X, y)
        seconds = time.perf_counter() - start
    stats = model.solve_stats_
    return seconds, model, stats.get("dual_solve_seconds", 0.0), stats.get("dual_steps", 0)


def oracle_pass(X, y, kappa, reps=25):
    """Seconds of one oracle pass: ``X@w``, the surrogate's value and subgradient (one
    partition of the n scores) and ``Xᵀ@g``, the least work of a cutting-plane round; the
    median of ``reps`` passes after one that is not counted (with 5 passes and none left
    out, the first cell of a process read 0.19 ms where later ones read 0.14 to 0.15)."""
    objective = RankingObjective(X, y, surrogates.get("prec@k-avg", kappa), 1.0)
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    times = []
    with threadpool_limits(1, user_api="blas"):  # as the engines run it
        X.T @ objective.loss_and_score_gradient(X @ w)[1]
        for _ in range(reps):
            start = time.perf_counter()
            _, g = objective.loss_and_score_gradient(X @ w)
            X.T @ g
            times.append(time.perf_counter() - start)
    return float(np.median(times))


def _avg_at_zero(y, kappa):
    from cvxtop import surrogates

    return surrogates.get("prec@k-avg", kappa).value(y, np.zeros(len(y)))


def data(n, d, seed):
    return make_ranking_data(n, d, noise=NOISE, random_state=seed)


def compare(label, X, y, direct_max_n, rounds=MAX_ROUNDS, **kw):
    row = {"problem": label, "n": X.shape[0], "d": X.shape[1]}
    t_cp, cp_model, t_dual, dual_steps = fit_row(X, y, "cutting-plane", rounds=rounds, **kw)
    p0 = kw.get("C", 1.0) * _avg_at_zero(y, kw.get("kappa", 0.25))
    least = cp_model.n_iter_ * oracle_pass(X, y, kw.get("kappa", 0.25))
    row.update({"k": int(np.ceil(kw.get("kappa", 0.25) * y.sum())),
                "P/P(0)": f"{cp_model.objective_ / p0:.3f}",
                "cutting plane s": f"{t_cp:.2f}", "rounds": cp_model.n_iter_,
                "certified gap": f"{cp_model.gap_:.1e}",
                "s / (rounds x pass)": f"{t_cp / least:.1f}",
                "dual solve s": f"{t_dual:.2f}",
                "rounds alone / (rounds x pass)": f"{(t_cp - t_dual) / least:.1f}",
                "dual steps": dual_steps,
                "s / ((rounds + dual steps) x pass)":
                    f"{t_cp / (least * (1 + dual_steps / cp_model.n_iter_)):.1f}"})
    if X.shape[0] <= direct_max_n:
        t_d, d_model, _, _ = fit_row(X, y, "direct", **kw)
        rel = abs(d_model.objective_ - cp_model.objective_) / abs(cp_model.objective_)
        row.update({"direct s": f"{t_d:.2f}", "direct/cp time": f"{t_d / t_cp:.2f}",
                    "direct gap": f"{d_model.gap_:.1e}", "objective diff": f"{rel:.1e}"})
    else:
        row.update({"direct s": "not run", "direct/cp time": "-", "direct gap": "-",
                    "objective diff": "-"})
    print(format_table([row]).splitlines()[-1], file=sys.stderr, flush=True)
    return row


def standardized(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--direct-max-n", type=int, default=5000)
    args = parser.parse_args()
    quick = args.quick
    ns = [500, 1000, 2000] if quick else [500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
                                          300000, 1000000]
    ds = [5, 20] if quick else [5, 10, 20, 50, 100, 200, 500, 1000]
    kappas = [0.1, 0.5] if quick else [0.05, 0.1, 0.25, 0.5, 1.0]
    n_mid = 2000 if quick else 10000
    sections = []

    rows = [compare(f"n = {n}", *data(n, 20, n), args.direct_max_n)
            for n in ns]
    sections.append(("Growth in n (d = 20, κ = 0.25)", rows))
    rows = [compare(f"d = {d}", *data(n_mid, d, d), args.direct_max_n)
            for d in ds]
    if not quick:
        rows.append(compare("sparse d = 100000 (300 rounds)", *make_sparse_ranking_data(
            n_mid, 100_000, density=0.001, noise=NOISE, random_state=0),
                            args.direct_max_n, rounds=SPARSE_ROUNDS))
    sections.append((f"Growth in d (n = {n_mid}, κ = 0.25)", rows))
    X, y = data(n_mid, 20, 7)
    rows = [compare(f"κ = {kappa}", X, y, args.direct_max_n, kappa=kappa) for kappa in kappas]
    sections.append((f"Growth in k (n = {n_mid}, d = 20)", rows))

    targets = []
    X, y = load_paper_dataset("magic", ROOT / "data")
    targets.append(compare("MAGIC (target < 0.15 s)", standardized(X), y, 0))
    if not quick:
        for name in ("spambase", "letter"):
            X, y = load_paper_dataset(name, ROOT / "data")
            targets.append(compare(name, standardized(X), y, 0))
    if not quick:
        X, y = data(100_000, 50, 100)
        targets.append(compare("100,000 x 50 (target < 30 s)", X, y, 0))
    sections.append(("Targets (cutting plane, prec@k-avg, κ = 0.25, C = 1)", targets))

    for title, rows in sections:
        print(f"\n## {title}\n\n```\n{format_table(rows)}\n```")
    for title, rows in sections[:2]:
        certified = [r for r in rows if float(r["certified gap"]) <= 1e-6]
        ratios = [float(r["s / (rounds x pass)"]) for r in rows]
        alone = [float(r["rounds alone / (rounds x pass)"]) for r in rows]
        per_step = [float(r["s / ((rounds + dual steps) x pass)"]) for r in rows]
        seconds = [float(r["cutting plane s"]) for r in rows]
        print(f"SUMMARY: {title}: {min(seconds):.2f} s to "
              f"{max(seconds):.2f} s, {len(certified)} of {len(rows)} cells certified "
              f"to 1e-6 within {MAX_ROUNDS} rounds, time / (rounds x oracle pass) "
              f"{min(ratios):.1f} to {max(ratios):.1f} ({min(alone):.1f} to {max(alone):.1f} "
              "for the rounds alone, without the dual solves; per round or dual step "
              f"{min(per_step):.1f} to {max(per_step):.1f})")
    for row in targets:
        print(f"SUMMARY: {row['problem']}: {row['cutting plane s']} s, {row['rounds']} rounds, "
              f"certified gap {row['certified gap']}, time / (rounds x oracle pass) "
              f"{row['s / (rounds x pass)']} ({row['rounds alone / (rounds x pass)']} for the "
              f"rounds alone, {row['dual solve s']} s in dual solves of {row['dual steps']} "
              f"steps; per round or dual step {row['s / ((rounds + dual steps) x pass)']})")


if __name__ == "__main__":
    main()

"""Cost growth of the pAp@k surrogates' faces (Hiranandani et al. 2020), measured in one run.

Part 1 times ``value_and_subgradient`` (the solvers' hot path: validation, one sort of the
positives, a partition of the negatives, prefix sums and searchsorted) for n = 10³ … 10⁶ at
several positive fractions and cut-offs k, next to the metric ``pap_at_k`` (which validates
and partitions the same arrays), and prints the time per call and its growth per tenfold n
(≈ 10 for n log n work, ≈ 100 for pair work).

Part 2 times ``min ½‖w‖² + C·f(y, Xw)`` through each convex surrogate's DCP form with cvxpy
and Clarabel (d = 10), at n = 100 … 2,000: total time (compile + solve), Clarabel's time, the
number of declared scalar variables (w, the score binding, pair epigraphs; cvxpy's own
auxiliaries for sum_largest/pos are not counted), and the growth of the total per step in n.

    python benchmarks/pap_faces.py                  # both parts
    python benchmarks/pap_faces.py --part faces     # part 1 only
    python benchmarks/pap_faces.py --part solve --solve-sizes 100 200 400
"""

from __future__ import annotations

import argparse
import time

import cvxpy as cp
import numpy as np

from cvxtop import SolverError, metrics, surrogates

NAMES = [n for n in surrogates.available()
         if isinstance(surrogates.get(n, 1), surrogates.PapSurrogate)]
CONVEX = [n for n in NAMES if surrogates.get(n, 1).convex]


def gaussian_list(rng: np.random.Generator, n: int, pos_fraction: float, d: int = 10
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels as in Hiranandani et al. 2020 §7.1: positives N(1, I), negatives N(0,
    I)."""
    n_pos = max(1, round(pos_fraction * n))
    y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n - n_pos, dtype=np.int64)]
    X = rng.standard_normal((n, d)) + y[:, None]
    perm = rng.permutation(n)
    return X[perm], y[perm]


def best_time(fn, repeat: int) -> float:
    """The fastest of ``repeat`` calls, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


def bench_faces(sizes: list[int], mixes: list[tuple[float, str]], seed: int) -> list[float]:
    """Print one table per mix; return, at the largest n, each surrogate's time over the
    metric's (every mix)."""
    ratios: list[float] = []
    rng = np.random.default_rng(seed)
    for pos_fraction, k_rule in mixes:
        rows, previous = [], None
        for n in sizes:
            _, y = gaussian_list(rng, n, pos_fraction, d=1)
            s = rng.standard_normal(n) + y
            n_neg = int((y == 0).sum())
            k = 10 if k_rule == "10" else max(1, n_neg // 100)
            repeat = 7 if n <= 10**5 else 3
            times = [best_time(lambda: metrics.pap_at_k(y, s, k), repeat)]
            times += [best_time(lambda name=name: surrogates.get(name, k)
                                .value_and_subgradient(y, s), repeat) for name in NAMES]
            growth = ([f"x{t / p:.1f}" for t, p in zip(times, previous)] if previous
                      else [""] * len(times))
            rows.append([f"{n:,}", f"{k:,}"] + [f"{1e3 * t:.2f} {g}".strip()
                                                for t, g in zip(times, growth)])
            previous = times
        ratios += [t / times[0] for t in times[1:]]
        print_table(f"value_and_subgradient, ms per call (growth per x10 n); "
                    f"n₊/n = {pos_fraction:g}, k = {'10' if k_rule == '10' else 'n₋/100'}",
                    ["n", "k", "metric pap_at_k", *NAMES], rows)
    return ratios


def bench_solve(sizes: list[int], pos_fraction: float, k: int, C: float, seed: int
                ) -> list[float]:
    """Print the table; return the total time of each convex surrogate at the largest n."""
    rng = np.random.default_rng(seed)
    rows, previous = [], None
    for n in sizes:
        X, y = gaussian_list(rng, n, pos_fraction)
        cells, totals = [f"{n:,}", f"{int(y.sum())}"], []
        for name in CONVEX:
            w = cp.Variable(X.shape[1])
            start = time.perf_counter()
            expr, constraints = surrogates.get(name, k).expression(y, X @ w)
            problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * expr), constraints)
            problem.solve(solver=cp.CLARABEL)
            total = time.perf_counter() - start
            if problem.status != cp.OPTIMAL:
                raise SolverError(f"{name} at n = {n} did not solve", problem.status)
            stats = problem.solver_stats
            size = problem.size_metrics.num_scalar_variables
            cells.append(f"{total:.2f}s ({stats.solve_time:.2f}) {size:,}v")
            totals.append(total)
        if previous is not None:
            cells[2:] = [f"{c} x{t / p:.1f}" for c, t, p in zip(cells[2:], totals, previous)]
        rows.append(cells)
        previous = totals
    print_table(f"min ½‖w‖² + C·f(y, Xw) with Clarabel, d = 10, C = {C:g}, k = {k}, "
                f"n₊/n = {pos_fraction:g}: total s (Clarabel s), declared variables, "
                "growth per step",
                ["n", "n₊", *CONVEX], rows)
    return previous


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["faces", "solve", "all"], default="all")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--solve-sizes", type=int, nargs="+",
                        default=[100, 200, 500, 1000, 2000])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.part in ("faces", "all"):
        ratios = bench_faces(args.sizes, [(0.01, "10"), (0.1, "10"), (0.1, "1%"), (0.5, "1%")],
                             args.seed)
        print(f"SUMMARY: value_and_subgradient at n = {max(args.sizes):,}, six surrogates, four "
              f"mixes of n₊ and k: {min(ratios):.2f}x to {max(ratios):.2f}x the time of the "
              "metric pap_at_k on the same arrays")
    if args.part in ("solve", "all"):
        totals = bench_solve(args.solve_sizes, pos_fraction=0.1, k=10, C=1.0, seed=args.seed)
        cells = ", ".join(f"{name} {t:.2f} s" for name, t in zip(CONVEX, totals))
        print(f"SUMMARY: DCP solve at n = {max(args.solve_sizes):,}: {cells} (the last three "
              "declare one variable per (relevant, irrelevant) pair)")


if __name__ == "__main__":
    main()

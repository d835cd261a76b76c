"""Cost of the cvxpy forms of the prec@k max and avg surrogates, and of the numpy faces.

Part 1 solves ``min ½‖w‖² + C·f(y, Xw)`` with Clarabel using (a) the literal form, the
maximum of ``k + 1`` ``sum_largest`` terms (``O(k·n)`` auxiliary variables), and (b) the
compact LP-dual form of :mod:`cvxtop.surrogates.prec` (``O(n + k)`` variables), on the same
random data at growing ``n``; the literal form is skipped once its time, extrapolated from
the previous size, would exceed ``--literal-budget`` seconds.

Part 2 times ``bind(y).value_and_subgradient`` (the call the solvers make on bound labels) of
every prec@k surrogate for ``n`` from 10³ to 10⁶ and prints the time per item
(``O(n + k log k)`` work, so it should stay near constant, at most growing like ``log n``).

    python benchmarks/dcp_forms.py                 # full run (a few minutes)
    python benchmarks/dcp_forms.py --quick         # small sizes only
"""

from __future__ import annotations

import argparse
import time

import cvxpy as cp
import numpy as np

from cvxtop import surrogates
from cvxtop.cutoff import ceil_fraction


def ranking_data(n: int, d: int, rate: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features; the ``rate`` fraction with the highest noisy linear score is
    relevant."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    latent = X @ rng.standard_normal(d) + 2.0 * rng.standard_normal(n)
    y = (latent >= np.quantile(latent, 1.0 - rate)).astype(np.int64)
    return X, y


def solve(loss: cp.Expression, constraints: list, w: cp.Variable, C: float
          ) -> tuple[float, float]:
    """Solve the regularized problem with Clarabel; return (seconds, objective)."""
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * loss), constraints)
    start = time.perf_counter()
    problem.solve(solver=cp.CLARABEL)
    elapsed = time.perf_counter() - start
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"Clarabel returned status {problem.status}")
    return elapsed, float(problem.value)


def compare_forms(sizes: list[int], d: int, kappa: float, C: float, budget: float) -> None:
    print(f"Part 1: min ½‖w‖² + C·f(y, Xw), Clarabel, d = {d}, κ = {kappa}, C = {C}, "
          "10% relevant")
    header = (f"{'surrogate':<11} {'n':>6} {'k':>4} {'literal s':>10} {'compact s':>10} "
              f"{'ratio':>7} {'|obj diff|':>11}")
    print(header)
    print("-" * len(header))
    largest: dict[str, tuple[int, float, float]] = {}
    for name in ("prec@k-avg", "prec@k-max"):
        previous: tuple[int, float] | None = None
        for n in sizes:
            X, y = ranking_data(n, d, rate=0.1, seed=n)
            k = ceil_fraction(kappa, int(y.sum()))
            sur = surrogates.get(name, k)
            w = cp.Variable(d)
            expr, cons = sur.expression(y, X @ w)
            t_compact, obj_compact = solve(expr, cons, w, C)
            # literal cost grows like (k·n)^~1.5; extrapolate from the previous size
            predicted = (previous[1] * ((n * k) / previous[0]) ** 1.5) if previous else 0.0
            if predicted > budget:
                print(f"{name:<11} {n:>6} {k:>4} {'skipped':>10} {t_compact:>10.2f} "
                      f"{'':>7} {'':>11}  (literal predicted ~{predicted:.0f} s > {budget:.0f} s)")
                continue
            v = cp.Variable(d)
            t_literal, obj_literal = solve(sur.literal_expression(y, X @ v), [], v, C)
            previous = (n * k, t_literal)
            print(f"{name:<11} {n:>6} {k:>4} {t_literal:>10.2f} {t_compact:>10.2f} "
                  f"{t_literal / t_compact:>7.1f} {abs(obj_literal - obj_compact):>11.2e}")
            largest[name] = (n, t_literal / t_compact, abs(obj_literal - obj_compact))
    print()
    for name, (n, ratio, diff) in largest.items():
        print(f"SUMMARY: {name} at n = {n}: literal form / compact form = {ratio:.1f}x, "
              f"optimal values agree to {diff:.1e}")


def best_time(call, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def time_numpy_faces(sizes: list[int], kappa: float, repeats: int) -> None:
    print(f"Part 2: ns per item of bind(y).value_and_subgradient (the solvers' call on bound "
          f"arrays), κ = {kappa}, 10% relevant, best of {repeats} runs; last column: the "
          "public value_and_subgradient of avg, input validation included")
    names = ["prec@k-struct", "prec@k-ramp", "prec@k-max", "prec@k-avg"]
    header = (f"{'n':>9} {'k':>7} " + " ".join(f"{n[7:]:>8}" for n in names)
              + f" {'avg public':>11} {'log2 n':>7}")
    print(header)
    print("-" * len(header))
    for n in sizes:
        rng = np.random.default_rng(n)
        y = (rng.random(n) < 0.1).astype(np.int64)
        y[0] = 1
        s = rng.standard_normal(n)
        avg = surrogates.get("prec@k-avg", kappa)
        k = avg.resolve_k(y)
        cells = []
        for name in names:
            sur = surrogates.get(name, kappa)
            bound = sur.bind(y)  # the labels fixed once, as the solvers' loops use it
            seconds = best_time(lambda: bound.value_and_subgradient(s), repeats)
            cells.append(f"{1e9 * seconds / n:>8.1f}")
        public = best_time(lambda: avg.value_and_subgradient(y, s), repeats)
        print(f"{n:>9} {k:>7} " + " ".join(cells) + f" {1e9 * public / n:>11.1f}"
              f" {np.log2(n):>7.1f}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    parser.add_argument("--numpy-sizes", type=int, nargs="+",
                        default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--kappa", type=float, default=0.25)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--literal-budget", type=float, default=60.0,
                        help="skip the literal form when its predicted time exceeds this")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.numpy_sizes = [100, 200], [10**3, 10**4]
    compare_forms(args.sizes, args.d, args.kappa, args.C, args.literal_budget)
    time_numpy_faces(args.numpy_sizes, args.kappa, args.repeats)


if __name__ == "__main__":
    main()

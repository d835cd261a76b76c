"""AATP: all candidates with the fast numpy solver vs DPP-compiled cvxpy loops (same run).

For each size n the same problem (linear kernel by default, C = 1) is solved for every
candidate, in the same nearest-neighbour order, by

* ``fast``: :class:`cvxtop.aatp.fast.FastDualSolver` (lane-batched interior point with
  exact crossover, warm-started from the neighbouring candidate);
* ``cvxpy dual``: eq. (4) compiled once with the candidate row as a DPP parameter;
* ``cvxpy primal``: eq. (2) compiled once likewise;

each followed by the same scoring of the candidate. The ratio is fast / (faster cvxpy
loop), measured in this run. Also reported: the largest relative objective difference,
whether the selection rule picks the same candidate, and how many candidates the warm
start certified without any interior-point iteration.

Run:  python benchmarks/aatp_speed.py [--sizes 100 200 400 800] [--d 20] [--kernel rbf]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cvxtop.aatp.candidates import SolverPlan, nearest_neighbour_tour, solve_candidates
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.gram import check_gram_matrix
from cvxtop.aatp.problem import items_problem
from cvxtop.aatp.selection import select

TAU = 0.1


def make_problem(n: int, d: int, kernel: str = "linear", seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.8 * rng.standard_normal(n) > 1.0).astype(np.int64)
    F = X if kernel == "linear" else check_gram_matrix(rbf_gram(X, X, 1.0 / d)).factor().F
    return items_problem(F, y, C=1.0)


def timed(problem, tour, solver):
    start = time.perf_counter()
    scores, _ = solve_candidates(problem, tour, SolverPlan(solver), TAU)
    return time.perf_counter() - start, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400, 800])
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--kernel", choices=("linear", "rbf"), default="linear",
                        help="rbf: gamma = 1/d, factor of the Gram matrix")
    args = parser.parse_args()
    print(f"AATP, all candidates, {args.kernel} kernel, d = {args.d}, C = 1, tau = {TAU}")
    header = ("| n | fast s | cvxpy dual s | cvxpy primal s | fast / best cvxpy | "
              "max rel. objective diff | same choice | warm-start hits |")
    print(header)
    print("|---|---|---|---|---|---|---|---|")
    warm = make_problem(30, args.d)  # one-time costs (threadpoolctl, Clarabel) untimed
    for solver in ("fast", "cvxpy", "cvxpy-primal"):
        solve_candidates(warm, warm.candidates[:2], SolverPlan(solver), TAU)
    summary = []
    for n in args.sizes:
        problem = make_problem(n, args.d, args.kernel)
        tour = nearest_neighbour_tour(problem.factor, problem.candidates)
        t_fast, fast = timed(problem, tour, "fast")
        t_dual, dual = timed(problem, tour, "cvxpy")
        t_primal, _ = timed(problem, tour, "cvxpy-primal")
        hits = sum(s.n_iter == 0 for s in fast)
        obj_f = np.array([s.objective for s in fast])
        obj_d = np.array([s.objective for s in dual])
        diff = float(np.max(np.abs(obj_f - obj_d) / np.maximum(1.0, np.abs(obj_d))))
        cands = np.array([s.candidate for s in fast])
        pick_f = select(cands, np.array([s.gap for s in fast]), obj_f)
        pick_d = select(cands, np.array([s.gap for s in dual]), obj_d)
        ratio = t_fast / min(t_dual, t_primal)
        print(f"| {n} | {t_fast:.2f} | {t_dual:.2f} | {t_primal:.2f} | {ratio:.3f} | "
              f"{diff:.1e} | {'yes' if pick_f == pick_d else 'NO'} | {hits}/{n} |")
        summary.append(f"SUMMARY: all {n} candidates: fast solver / DPP-compiled cvxpy loop = "
                       f"{ratio:.3f} (target < 0.2 at n = 400), same choice: "
                       f"{'yes' if pick_f == pick_d else 'NO'}")
    print("\n".join(summary))


if __name__ == "__main__":
    main()

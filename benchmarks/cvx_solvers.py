"""Which cvxpy solver for the exact engines: Clarabel, OSQP or ECOS, measured in one run.

Part 1 solves ``min ½‖w‖² + C·L(y, Xw)`` as one cvxpy program (the direct engine without its
cutting-plane certificate, ``solve_direct(certify=False)``) with each solver at its default
settings, at growing n, and reports the time relative to Clarabel's, the status (or the
``SolverError`` raised), and how far the objective at the solver's point is above the
certified optimum (a cutting-plane solve to a relative gap of 1e-8, so differences of a few
1e-9 either way mean agreement).

Part 2 runs the cutting-plane engine with each solver for its master problem.

Part 3 trains a kernel model (``kernel="precomputed"``) with the default exact engine on an
RBF Gram matrix (numerically full rank) and on a quadratic-kernel Gram matrix (rank 21 on five
features) at growing n: the engines work on a factor ``F`` with ``K = F Fᵀ`` whose width is
the rank, so the cost follows the rank.

Data: ``cvxtop.datasets.make_ranking_data`` (Gaussian features, 10% relevant, noise 0.3),
C = 1, prec@k with κ = 0.25 and pAp@k with k = 5.

    python benchmarks/cvx_solvers.py            # all parts (a few minutes)
    python benchmarks/cvx_solvers.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.datasets import make_ranking_data
from cvxtop.report import format_table
from cvxtop.solvers import RankingObjective, solve_cutting_plane, solve_direct

SOLVERS = ("CLARABEL", "OSQP", "ECOS")


def problem(name: str, n: int, d: int = 10, seed: int = 0) -> RankingObjective:
    X, y = make_ranking_data(n, d, noise=0.3, random_state=seed)
    k = 0.25 if name.startswith("prec") else 5
    return RankingObjective(X, y, surrogates.get(name, k), 1.0)


def timed(fn):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), time.perf_counter() - start, None
        except SolverError as exc:
            return None, time.perf_counter() - start, exc


def direct_rows(name: str, sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        obj = problem(name, n)
        best = solve_cutting_plane(obj, tol=1e-8, max_iter=5000).objective
        base = None
        for solver in SOLVERS:
            res, seconds, err = timed(lambda: solve_direct(obj, cvx_solver=solver, certify=False))
            base = seconds if solver == "CLARABEL" else base
            rows.append({
                "surrogate": name, "n": n, "solver": solver,
                "time / Clarabel": f"{seconds / base:.2f}",
                "status": err.status if err else res.status,
                "objective − optimum (rel.)": "-" if err else
                f"{(res.objective - best) / abs(best):.1e}",
            })
    return rows


def cutting_plane_rows(name: str, sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        obj = problem(name, n)
        base = None
        for solver in SOLVERS:
            res, seconds, err = timed(lambda: solve_cutting_plane(obj, cvx_solver=solver))
            base = seconds if solver == "CLARABEL" else base
            rows.append({
                "surrogate": name, "n": n, "master solver": solver,
                "time / Clarabel": f"{seconds / base:.2f}",
                "status": err.status if err else res.status,
                "rounds": "-" if err else res.n_iter,
                "certified gap": "-" if err else f"{res.gap:.1e}",
            })
    return rows


def kernel_rows(sizes: list[int]) -> list[dict]:
    rows = []
    first = {}
    for n in sizes:
        X, y = make_ranking_data(n, 5, noise=0.3, random_state=1)
        for label, K in (("RBF, γ = 0.2", rbf_kernel(X, gamma=0.2)),
                         ("quadratic", polynomial_kernel(X, degree=2, coef0=1))):
            model, seconds, err = timed(
                lambda: TopRanker("prec@k-avg", k=0.25, kernel="precomputed").fit(K, y))
            first.setdefault(label, seconds)
            rank = int(np.linalg.matrix_rank(K, tol=np.sqrt(np.finfo(float).eps) *
                                             np.abs(np.linalg.eigvalsh(K)).max()))
            rows.append({"kernel": label, "n": n, "rank of K": rank,
                         "engine": "-" if err else model.engine_.split(",")[0],
                         "time / first row": f"{seconds / first[label]:.1f}",
                         "status": err.status if err else model.status_})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    prec_sizes = [250, 500] if args.quick else [250, 500, 1000, 2000]
    pap_sizes = [100, 200] if args.quick else [100, 200, 400]
    cp_sizes = [1000] if args.quick else [1000, 4000]
    kernel_sizes = [60, 120] if args.quick else [60, 120, 240]

    print("## Part 1: the direct program, each solver at its default settings\n")
    direct = direct_rows("prec@k-avg", prec_sizes) + direct_rows("prec@k-struct", prec_sizes) \
        + direct_rows("pap@k-ts", pap_sizes)
    print(format_table(direct), "\n")
    print("## Part 2: the cutting plane, each solver for the master problem\n")
    plane = cutting_plane_rows("prec@k-avg", cp_sizes) + cutting_plane_rows("pap@k-ts", cp_sizes)
    print(format_table(plane), "\n")
    print("## Part 3: kernel models, cost against the rank of K (default engine)\n")
    print(format_table(kernel_rows(kernel_sizes)))
    print()
    print("\n".join(summary_lines(direct, plane)))


def summary_lines(direct: list[dict], plane: list[dict]) -> list[str]:
    """Per solver: its time over Clarabel's (range) and how often it reached ``optimal``."""
    lines = []
    for part, rows, key in (("direct program", direct, "solver"),
                            ("cutting-plane master", plane, "master solver")):
        for solver in SOLVERS[1:]:
            mine = [r for r in rows if r[key] == solver]
            ratios = [float(r["time / Clarabel"]) for r in mine]
            optimal = sum(r["status"] == "optimal" for r in mine)
            lines.append(f"SUMMARY: {part}, {solver} / Clarabel time: {min(ratios):.2f} to "
                         f"{max(ratios):.2f}; status optimal in {optimal} of {len(mine)} cells")
    return lines


if __name__ == "__main__":
    main()

"""Cost growth of the exact grouped solve (micro pAp@k, Hiranandani et al. 2020 eq. (17)) in the
number of users and the items per user, with each cell's certified gap.

    python benchmarks/grouped_exact.py            # full grid (about a quarter of an hour)
    python benchmarks/grouped_exact.py --quick    # small grid, under a minute

Each cell fits ``TopRanker(surrogate, k=5, C=10, solver="exact", engine=...)`` with
``groups`` (one group per user) for ``pap@k-avg`` and ``pap@k-ts``, with the cutting plane
always and with the direct engine (one cvxpy program, then certified by the cutting plane
warm-started at its answer) where it is feasible: at most ``--direct-max-users`` users and
at most ``--direct-max-items`` items (avg, an O(n) form) or ``--direct-max-pairs``
epigraph variables (TS, one a (positive, negative) pair, or one a positive and level at a
small k: the surrogate's ``dcp_size`` less one an item). Data: every user has the same number of
items, 20% of them relevant, with features N(3·w*, I_10) (relevant) or N(0, I_10) (one unit
w* shared by all users). A smaller class shift makes the zero model the exact optimum on
long lists (the mean of the relevant items then lies in the polytope of averages of k
irrelevant ones, see examples/pap_section7.py), which would time trivial problems.

Printed for each cell: seconds, rounds (``n_iter_``: the cutting plane's, or for the direct
engine those of its certification), the certified relative gap (``gap_``), the relative
difference between the two engines' objectives, and ``P/P(0)``, the optimum over the
objective of the zero model (below 1: the problem is not degenerate). Then the time matrices
(users × items per user) and their growth: the time ratio of each cell to the cell one step
smaller in users (or in items). Results are written to
``benchmarks/results/grouped_exact.md`` (``grouped_exact_quick.md`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cvxtop import SolverError, TopRanker, surrogates
from cvxtop.report import format_table

from _results import results_dir  # benchmarks/ is the script's folder

ROOT = Path(__file__).resolve().parents[1]
K = 5
C = 10.0
D = 10
POS_RATE = 0.2
SHIFT = 3.0  # with a smaller shift the zero model is optimal for the larger lists
SURROGATES = ("pap@k-avg", "pap@k-ts")
ENGINES = ("cutting-plane", "direct")


def grouped_lists(users: int, items: int, seed: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and user ids of ``users`` lists of ``items`` items each: in every
    list 20% relevant items N(SHIFT·w*, I) and irrelevant ones N(0, I), w* a random unit
    vector shared by all users."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(D)
    w /= np.linalg.norm(w)
    n_pos = max(1, round(POS_RATE * items))
    y = np.tile(np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(items - n_pos, dtype=np.int64)],
                users)
    X = rng.standard_normal((users * items, D)) + SHIFT * np.outer(y, w)
    return X, y, np.repeat(np.arange(users), items)


@dataclass(frozen=True)
class Limits:
    """Largest problems given to the direct engine."""

    users: int
    items: int
    pairs: int

    def direct_feasible(self, surrogate: str, users: int, items: int) -> bool:
        if users > self.users:
            return False
        n_pos = max(1, round(POS_RATE * items))
        epigraph = surrogates.get(surrogate, K).dcp_size(n_pos, items - n_pos) - items
        if epigraph > 0:  # a form with epigraph matrices (TS)
            return users * epigraph <= self.pairs
        return users * items <= self.items


@dataclass
class Fit:
    seconds: float
    model: TopRanker | None
    error: str = ""


def timed_fit(surrogate: str, engine: str, X, y, groups) -> Fit:
    start = time.perf_counter()
    try:
        model = TopRanker(surrogate, k=K, C=C, engine=engine).fit(X, y, groups=groups)
    except SolverError as exc:
        return Fit(time.perf_counter() - start, None, f"failed ({exc.status})")
    return Fit(time.perf_counter() - start, model)


def zero_model_objective(surrogate: str, y: np.ndarray, groups: np.ndarray) -> float:
    """``C·L`` at w = 0 (all scores 0): the objective of the zero model."""
    surr = surrogates.get(surrogate, K)
    zeros = np.zeros(len(y))
    return C * float(np.mean([surr.value(y[groups == g], zeros[groups == g])
                              for g in np.unique(groups)]))


def cell(surrogate: str, users: int, items: int, limits: Limits, seed: int
         ) -> tuple[dict, dict[str, float]]:
    """One row of the long table and the seconds of each engine that ran."""
    X, y, groups = grouped_lists(users, items, seed)
    engines = [e for e in ENGINES
               if e == "cutting-plane" or limits.direct_feasible(surrogate, users, items)]
    fits = {e: timed_fit(surrogate, e, X, y, groups) for e in engines}
    row: dict = {"users": users, "items/user": items, "n": len(y),
                 "n₊/user": int(y.sum()) // users}
    for engine in ENGINES:
        fit = fits.get(engine)
        tag, rounds = (("cp", "cp rounds") if engine == "cutting-plane"
                       else ("direct", "direct cert. rounds"))
        if fit is None:
            row.update({f"{tag} s": "not run", rounds: "-", f"{tag} gap": "-"})
        elif fit.model is None:
            row.update({f"{tag} s": f"{fit.seconds:.2f}", rounds: "-", f"{tag} gap": fit.error})
        else:
            row.update({f"{tag} s": f"{fit.seconds:.2f}", rounds: fit.model.n_iter_,
                        f"{tag} gap": f"{fit.model.gap_:.1e}"})
    done = {e: f.model for e, f in fits.items() if f.model is not None}
    if len(done) == 2:
        a, b = done["cutting-plane"].objective_, done["direct"].objective_
        row["objective diff"] = f"{abs(a - b) / abs(a):.1e}"
        row["direct/cp time"] = f"{fits['direct'].seconds / fits['cutting-plane'].seconds:.2f}"
    else:
        row["objective diff"] = row["direct/cp time"] = "-"
    best = min((m.objective_ for m in done.values()), default=np.nan)
    row["P/P(0)"] = f"{best / zero_model_objective(surrogate, y, groups):.3f}"
    print(format_table([row]).splitlines()[-1], flush=True)
    seconds = {e: f.seconds for e, f in fits.items() if f.model is not None}
    return row, seconds


def matrix_lines(title: str, users: list[int], items: list[int],
                 value) -> list[str]:
    """A users × items table of ``value(u, m)`` (a string)."""
    rows = [{"users \\ items/user": u, **{str(m): value(u, m) for m in items}} for u in users]
    return [f"### {title}", "", "```", format_table(rows), "```", ""]


def growth(seconds: dict[tuple[int, int], float], users: list[int], items: list[int],
           axis: str):
    """Cell time over the time of the cell one step smaller along ``axis``."""
    def ratio(u: int, m: int) -> str:
        prev = (users[users.index(u) - 1], m) if axis == "users" else \
            (u, items[items.index(m) - 1])
        first = u == users[0] if axis == "users" else m == items[0]
        if first or (u, m) not in seconds or prev not in seconds:
            return "-"
        return f"{seconds[u, m] / seconds[prev]:.2f}"
    return ratio


def section(surrogate: str, users: list[int], items: list[int], limits: Limits, seed: int
            ) -> tuple[list[str], dict[str, dict]]:
    rows, times = [], {e: {} for e in ENGINES}
    for u in users:
        for m in items:
            row, seconds = cell(surrogate, u, m, limits, seed + 1000 * u + m)
            rows.append(row)
            for engine, s in seconds.items():
                times[engine][u, m] = s
    lines = [f"## {surrogate}", "", "```", format_table(rows), "```", ""]
    for engine in ENGINES:
        t = times[engine]
        lines += matrix_lines(f"{surrogate}, {engine}: seconds", users, items,
                              lambda u, m: f"{t[u, m]:.2f}" if (u, m) in t else "-")
        lines += matrix_lines(
            f"{surrogate}, {engine}: time ratio to the previous number of users "
            f"({' → '.join(map(str, users))})", users, items, growth(t, users, items, "users"))
        lines += matrix_lines(
            f"{surrogate}, {engine}: time ratio to the previous items per user "
            f"({' → '.join(map(str, items))})", users, items, growth(t, users, items, "items"))
    return lines, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small grid only")
    parser.add_argument("--direct-max-users", type=int, default=300)
    parser.add_argument("--direct-max-items", type=int, default=50_000)
    parser.add_argument("--direct-max-pairs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    users = [10, 30] if args.quick else [10, 30, 100, 300, 1000]
    items = [20, 50] if args.quick else [20, 50, 100, 200, 500]
    limits = Limits(args.direct_max_users, args.direct_max_items, args.direct_max_pairs)
    start = time.perf_counter()
    command = "python benchmarks/grouped_exact.py" + (" --quick" if args.quick else "")
    lines = ["# Exact grouped solves: cost growth in users and items per user", "",
             f"Command: `{command}`", "",
             f"k = {K}, C = {C:g}, d = {D}, {POS_RATE:.0%} relevant items per user; tol = 1e-6 "
             "(relative gap). Direct engine only up to "
             f"{limits.users} users and {limits.items:,} items (avg) or {limits.pairs:,} "
             "epigraph variables (TS).", ""]
    summary = []
    for surrogate in SURROGATES:
        part, times = section(surrogate, users, items, limits, args.seed)
        lines += part
        largest = (users[-1], items[-1])
        seconds = times["cutting-plane"].get(largest)
        if seconds is not None:
            summary.append(f"SUMMARY: {surrogate}, {largest[0]} users x {largest[1]} items "
                           f"({largest[0] * largest[1]:,} items): cutting plane {seconds:.1f} s, "
                           "certified to 1e-6")
    lines += [f"Total run time: {time.perf_counter() - start:.0f} s."]
    out = results_dir()
    (out / ("grouped_exact_quick.md" if args.quick else "grouped_exact.md")).write_text(
        "\n".join(lines) + "\n")
    print("\n".join(lines + summary))


if __name__ == "__main__":
    main()

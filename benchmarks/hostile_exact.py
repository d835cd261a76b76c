"""The exact engine with its defaults on small hostile data, both engines compared.

    python benchmarks/hostile_exact.py            # 6 kinds × 8 surrogates × 3 C × 3 draws
    python benchmarks/hostile_exact.py --quick    # 3 kinds, C = 100, one draw: seconds

What users fit besides Gaussian features: sparse lognormal features (heavy tails, most
entries zero), dense lognormal ones, near-duplicate rows, tight clusters, Gaussian rows of
which one is 1e4 times as long as the others (a unit mixed up, a data-entry error), and
lists (queries) of which one has no relevant item (``skip_degenerate_groups=True``). For each kind of data,
convex surrogate (k = 1) and C in {1, 100, 1e4}, three random draws of 20 to 80 items and 5
to 40 features are fitted by ``TopRanker`` with ``engine="auto"`` (the direct program on
data this small, certified by the cutting plane) and ``engine="cutting-plane"``. A cell is
one fit; it passes when both engines certify (status optimal, gap at most 1e-6) and their
objectives agree to 2e-6 (both are within 1e-6 of the optimum). Columns: the cells that
fail first, then the slowest; the summary gives the counts and the slowest fit. Public API
only.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from cvxtop import SolverError, TopRanker

SURROGATES = ("prec@k-struct", "prec@k-max", "prec@k-avg", "prec@k-svmperf", "pap@k-avg",
              "pap@k-max", "pap@k-ts", "pauc-struct")
CS = (1.0, 100.0, 1e4)
TOL = 1e-6  # the exact engines' default
AGREE = 2e-6  # two objectives each within TOL of the optimum


def draw(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Features, labels and list ids (or None) of one draw of ``kind``."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 81)), int(rng.integers(5, 41))
    if kind == "sparse lognormal":
        X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.3)
        X[X != 0] = np.exp(2.0 * X[X != 0])
    elif kind == "lognormal":
        X = np.exp(2.0 * rng.normal(size=(n, d)))
    elif kind == "near-duplicates":
        base = rng.normal(size=(n // 4 + 1, d))
        X = base[rng.integers(0, len(base), n)] + 1e-9 * rng.normal(size=(n, d))
    elif kind == "tight clusters":
        centres = 5.0 * rng.normal(size=(3, d))
        X = centres[rng.integers(0, 3, n)] + 0.01 * rng.normal(size=(n, d))
    elif kind == "one long row":
        X = rng.normal(size=(n, d))
        X[n // 2] *= 1e4  # one item's row (its label drawn as the others')
    else:  # lists, one without a relevant item
        X = rng.normal(size=(n, d))
    y = (rng.random(n) < 0.4).astype(int)
    y[:2], y[-3:] = 1, 0
    groups = None
    if kind == "lists, one with no relevant item":
        groups = np.repeat(np.arange(4), -(-n // 4))[:n]
        y[groups == 3] = 0
        for g in range(3):  # every other list keeps a relevant and two irrelevant items
            members = np.flatnonzero(groups == g)
            y[members[0]], y[members[-2:]] = 1, 0
    return X, y, groups


def fit(surrogate: str, C: float, engine: str, X, y, groups) -> tuple[float, TopRanker | str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        try:
            model = TopRanker(surrogate, k=1, C=C, engine=engine,
                              skip_degenerate_groups=groups is not None).fit(X, y, groups)
        except SolverError as exc:
            return time.perf_counter() - start, f"{exc.status or 'failed'}"
    return time.perf_counter() - start, model


def certified(model: TopRanker | str) -> bool:
    return not isinstance(model, str) and model.status_ == "optimal" \
        and model.gap_ is not None and model.gap_ <= TOL


def cell(kind: str, surrogate: str, C: float, seed: int) -> dict:
    X, y, groups = draw(kind, seed)
    runs = {engine: fit(surrogate, C, engine, X, y, groups)
            for engine in ("auto", "cutting-plane")}
    models = {engine: model for engine, (_, model) in runs.items()}
    difference = None
    if all(certified(m) for m in models.values()):
        a, b = (m.objective_ for m in models.values())
        difference = abs(a - b) / max(abs(a), abs(b), 1e-300)
    status = "; ".join(f"{engine}: {m if isinstance(m, str) else m.status_}"
                       for engine, m in models.items() if not certified(m))
    passed = difference is not None and difference <= AGREE
    return {"data": kind, "surrogate": surrogate, "C": C, "seed": seed, "n": len(y),
            "d": X.shape[1], "passed": passed, "difference": difference,
            "status": status or ("objectives differ" if not passed else ""),
            "seconds": {engine: seconds for engine, (seconds, _) in runs.items()},
            "rounds": {engine: (m.n_iter_ if not isinstance(m, str) else "-")
                       for engine, m in models.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 kinds, C = 100, one draw")
    args = parser.parse_args()
    kinds = ["sparse lognormal", "lognormal", "near-duplicates", "tight clusters",
             "one long row", "lists, one with no relevant item"]
    Cs, seeds = CS, (0, 1, 2)
    if args.quick:
        kinds, Cs, seeds = ["sparse lognormal", "one long row",
                            "lists, one with no relevant item"], (100.0,), (0,)
    started = time.perf_counter()
    rows = [cell(kind, s, C, seed) for kind in kinds for s in SURROGATES for C in Cs
            for seed in seeds]
    rows.sort(key=lambda r: (r["passed"], -max(r["seconds"].values())))
    print("# The exact engine on small hostile data, both engines\n")
    print(f"k = 1, C in {{{', '.join(f'{C:g}' for C in Cs)}}}, draws {len(seeds)}, defaults "
          "as shipped (tol 1e-6); `auto` is the direct program certified by the cutting plane "
          "on data this small. `obj. diff`: the relative difference of the two certified "
          "objectives (target at most 2e-6). Failed cells first, then the slowest.\n")
    print("| data | surrogate | C | draw | n × d | auto s | cutting-plane s | rounds (auto; "
          "cp) | obj. diff | failed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows[:40]:
        diff = "-" if r["difference"] is None else f"{r['difference']:.0e}"
        print(f"| {r['data']} | {r['surrogate']} | {r['C']:g} | {r['seed']} | "
              f"{r['n']} × {r['d']} | {r['seconds']['auto']:.2f} | "
              f"{r['seconds']['cutting-plane']:.2f} | {r['rounds']['auto']}; "
              f"{r['rounds']['cutting-plane']} | {diff} | {r['status'] or 'no'} |")
    failed = [r for r in rows if not r["passed"]]
    slowest = max(rows, key=lambda r: max(r["seconds"].values()))
    engine = max(slowest["seconds"], key=slowest["seconds"].get)
    print()
    print(f"SUMMARY: {len(failed)} of {len(rows)} cells not certified by both engines or "
          f"with objectives apart (target 0); largest objective difference "
          f"{max((r['difference'] or 0.0 for r in rows), default=0.0):.0e}; slowest fit "
          f"{slowest['seconds'][engine]:.1f} s ({slowest['data']}, {slowest['surrogate']}, "
          f"C = {slowest['C']:g}, {engine}); {time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()

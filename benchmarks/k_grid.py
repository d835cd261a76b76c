"""The exact engine's defaults over the cut-off k on the shipped sets, the uncertified first.

    python benchmarks/k_grid.py            # 4 sets, raw and standardized, 8 surrogates,
                                           # 4 to 6 values of k, C in {0.01, 1, 100, 1e4}
    python benchmarks/k_grid.py --quick    # ionosphere standardized, two k, C = 1: seconds
    python benchmarks/k_grid.py --data spambase --surrogates pap@k-ts

Users pick k for their list: prec@1, prec@5, the top 1% or half of the list, pAp@1 or
pAp@50. For each shipped UCI set (ionosphere, spambase, MAGIC, letter; with their features
as shipped and standardized), each convex surrogate, each k of its grid and each C,
``TopRanker(surrogate, k=k, C=C)`` is fitted with every other setting as shipped (the
``auto`` engine, ``tol`` 1e-6, 2,000 rounds). A cell passes when the fit certifies (status
optimal, gap at most 1e-6); a ``ValueError`` for a k the list cannot have (more than its
irrelevant items for pAp@k) counts as a refusal, not a failure. Columns: the cells that
fail first, with the error's status and gap, then the slowest. Public API only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from _default_fit import TOL, default_fit  # benchmarks/ is the script's folder
from cvxtop.datasets import load_paper_dataset

ROOT = Path(__file__).resolve().parents[1]
PREC = ("prec@k-avg", "prec@k-max", "prec@k-struct", "prec@k-svmperf")
PAP = ("pap@k-avg", "pap@k-max", "pap@k-ts", "pauc-struct")
#: k of each family: counts and fractions of the list for prec@k, counts of irrelevant
#: items for pAp@k.
KS = {"prec": (1, 5, 0.01, 0.1, 0.5, 0.9), "pap": (1, 3, 50, 200)}
CS = (0.01, 1.0, 100.0, 1e4)
SETS = ("ionosphere", "spambase", "magic", "letter")


def standardized(X: np.ndarray) -> np.ndarray:
    scale = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)


def fit(X: np.ndarray, y: np.ndarray, surrogate: str, k: float, C: float) -> dict:
    """One fit with the defaults (:func:`_default_fit.default_fit`), a ``ValueError`` for a
    ``k`` the list cannot have counted as a refusal (``certified`` None)."""
    start = time.perf_counter()
    try:
        fitted = default_fit(surrogate, k, C, X, y)
    except ValueError as exc:
        return {"outcome": f"refused: {str(exc).split(';')[0][:60]}", "certified": None,
                "rounds": "", "seconds": time.perf_counter() - start}
    del fitted["model"]
    return fitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="ionosphere standardized, k in "
                        "{1, 0.5} (pAp@k: {1, 3}), C = 1")
    parser.add_argument("--data", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--surrogates", nargs="+", choices=PREC + PAP, default=PREC + PAP)
    args = parser.parse_args()
    sets, variants, Cs, ks = args.data, ("as shipped", "standardized"), CS, KS
    if args.quick:
        sets, variants, Cs = ["ionosphere"], ("standardized",), (1.0,)
        ks = {"prec": (1, 0.5), "pap": (1, 3)}
    started = time.perf_counter()
    rows = []
    for name in sets:
        X0, y = load_paper_dataset(name, ROOT / "data")
        for variant in variants:
            X = X0 if variant == "as shipped" else standardized(X0)
            for surrogate in args.surrogates:
                for k in ks["prec" if surrogate in PREC else "pap"]:
                    for C in Cs:
                        r = fit(X, y, surrogate, k, C)
                        rows.append({"data": f"{name}, {variant}", "surrogate": surrogate,
                                     "k": k, "C": C, **r})
                        # each cell on the progress stream too: a run stopped before its
                        # table still leaves its cells
                        print(f"  {name}, {variant}, {surrogate}, k={k:g}, C={C:g}: "
                              f"{r['outcome']}, {r['seconds']:.2f} s", file=sys.stderr,
                              flush=True)
    failed = [r for r in rows if r["certified"] is False]
    refused = [r for r in rows if r["certified"] is None]
    rows.sort(key=lambda r: (r["certified"] is not False, -r["seconds"]))
    print("# The exact engine's defaults over k on the shipped sets\n")
    print(f"`TopRanker(surrogate, k=k, C=C)`, every other setting as shipped (tol {TOL:g}); "
          f"C in {{{', '.join(f'{C:g}' for C in Cs)}}}. The cells not certified first, "
          "then the slowest (at most 60 rows).\n")
    print("| data | surrogate | k | C | outcome | rounds | seconds |")
    print("|---|---|---|---|---|---|---|")
    for r in rows[:60]:
        print(f"| {r['data']} | {r['surrogate']} | {r['k']:g} | {r['C']:g} | {r['outcome']} | "
              f"{r['rounds']} | {r['seconds']:.2f} |")
    slowest = max(rows, key=lambda r: r["seconds"])
    fitted = len(rows) - len(refused)
    print()
    print(f"SUMMARY: {fitted - len(failed)} of {fitted} fits certified to {TOL:g} "
          f"({len(refused)} values of k refused by a ValueError); slowest fit "
          f"{slowest['seconds']:.1f} s ({slowest['data']}, {slowest['surrogate']}, "
          f"k = {slowest['k']:g}, C = {slowest['C']:g}); "
          f"{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()

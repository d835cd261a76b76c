"""The exact engine with its defaults as shipped on sparse lists of many shapes: which cells
certify, the worst cell first.

    python benchmarks/sparse_defaults.py            # six shapes, five surrogates, three C
    python benchmarks/sparse_defaults.py --quick    # two small shapes at C = 1, seconds
    python benchmarks/sparse_defaults.py --C 1      # the default C only
    python benchmarks/sparse_defaults.py --shapes 2000x2000x0.01   # one shape

``TopRanker(surrogate, k, C=C)`` with nothing else set (the cutting plane, ``tol`` 1e-6,
2,000 rounds) is fitted on ``make_sparse_ranking_data(n, d, density, noise=0.5,
random_state=1)`` for lists with many more items than features, as many, and many fewer,
at C = 0.01, 1 (the default) and 100. Columns: the outcome (certified, or the
``SolverError``'s status and the gap it reports), the rounds, the seconds of the fit, and
whether the certified optimum is the zero model. Uncertified cells come first, then the
slowest. Public API only.
"""

from __future__ import annotations

import argparse

from _default_fit import default_fit, report  # benchmarks/ is the script's folder
from cvxtop.datasets import make_sparse_ranking_data

SURROGATES = {"prec@k-avg": 0.25, "prec@k-max": 0.25, "prec@k-struct": 0.25,
              "prec@k-svmperf": 0.25, "pap@k-avg": 10}
#: (items, features, density) of the lists
SHAPES = ((2000, 2000, 0.01), (5000, 5000, 0.01), (20_000, 20_000, 0.002),
          (10_000, 50_000, 0.001), (50_000, 5000, 0.002), (3000, 30_000, 0.005))
QUICK_SHAPES = ((5000, 500, 0.01), (400, 1000, 0.02))
CS = (0.01, 1.0, 100.0)


def shape(text: str) -> tuple[int, int, float]:
    """``"2000x2000x0.01"`` as (items, features, density)."""
    n, d, density = text.split("x")
    return int(n), int(d), float(density)


def cell(surrogate: str, k: float, C: float, X, y) -> dict:
    """One fit with the defaults: its outcome, rounds, seconds and zero-model flag."""
    fitted = default_fit(surrogate, k, C, X, y)
    model = fitted.pop("model")
    return {**fitted, "zero": "" if model is None else "yes" if model.zero_model_ else "no"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="two small shapes at C = 1")
    parser.add_argument("--C", type=float, nargs="+", default=list(CS), help="values of C")
    parser.add_argument("--shapes", nargs="+", type=shape, help="items x features x density")
    args = parser.parse_args()
    shapes, Cs = (QUICK_SHAPES, (1.0,)) if args.quick else (SHAPES, tuple(args.C))
    shapes = args.shapes or shapes
    rows = []
    for n, d, density in shapes:
        X, y = make_sparse_ranking_data(n, d, density=density, noise=0.5, random_state=1)
        name = f"{n:,} × {d:,} ({density:.1%})"
        for surrogate, k in SURROGATES.items():
            for C in Cs:
                rows.append({"data": name, "surrogate": surrogate, "C": C,
                             **cell(surrogate, k, C, X, y)})
    report("Sparse lists with the defaults as shipped",
           "`TopRanker(surrogate, k, C=C)` (the cutting plane, tol 1e-6, 2,000 rounds); k = "
           "0.25 for prec@k, 10 for pAp@k; `zero model`: the certified optimum is w = 0.",
           {"data": lambda r: r["data"], "surrogate": lambda r: r["surrogate"],
            "C": lambda r: f"{r['C']:g}", "outcome": lambda r: r["outcome"],
            "rounds": lambda r: r["rounds"], "seconds": lambda r: f"{r['seconds']:.1f}",
            "zero model": lambda r: r["zero"]},
           rows, lambda r: f"{r['data']} {r['surrogate']} C = {r['C']:g}")


if __name__ == "__main__":
    main()

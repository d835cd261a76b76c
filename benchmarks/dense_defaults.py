"""The exact engine with its defaults as shipped on dense lists of a few thousand items and
hundreds of features, over C and random draws: which cells certify, the worst cell first.

    python benchmarks/dense_defaults.py            # three shapes, three draws, five C
    python benchmarks/dense_defaults.py --quick    # one small shape, one draw, C = 10
    python benchmarks/dense_defaults.py --shapes 3000x300 --seeds 0 --C 10 100

``TopRanker("prec@k-svmperf", k=0.25, C=C)`` with nothing else set (the cutting plane,
``tol`` 1e-6, 2,000 rounds) is fitted on ``make_ranking_data(n, d, noise=0.3,
random_state=seed)``. These shapes are where prec@k-svmperf's optimum lies just off the
zero model and mixes labelings that predict a few relevant items with the hinge's, and
where its solve over counts of relevant items runs (at least 200 features): a grid of C
and draws found cells whose solves over counts stopped short and whose fits ended at
``max_iter`` (docs/solvers.md, "Steps beyond 80 while the solve's own gap closes").
``--surrogates`` adds the other convex surrogates. Columns: the outcome (certified, or
the ``SolverError``'s status and the gap it reports), the rounds and the seconds of the
fit. Uncertified cells come first, then the slowest. Public API only.
"""

from __future__ import annotations

import argparse

from _default_fit import default_fit, report  # benchmarks/ is the script's folder
from cvxtop.datasets import make_ranking_data

KS = {"prec@k-svmperf": 0.25, "prec@k-avg": 0.25, "prec@k-max": 0.25, "prec@k-struct": 0.25,
      "pap@k-avg": 10}
#: (items, features) of the lists
SHAPES = ((2000, 200), (3000, 300), (5000, 250))
SEEDS = (0, 1, 2)
CS = (0.1, 1.0, 10.0, 100.0, 1000.0)
QUICK = {"shapes": ((1000, 200),), "seeds": (0,), "Cs": (10.0,)}


def shape(text: str) -> tuple[int, int]:
    """``"3000x300"`` as (items, features)."""
    n, d = text.split("x")
    return int(n), int(d)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small shape, one draw")
    parser.add_argument("--shapes", nargs="+", type=shape, default=list(SHAPES),
                        help="items x features")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--C", type=float, nargs="+", default=list(CS), help="values of C")
    parser.add_argument("--surrogates", nargs="+", choices=sorted(KS),
                        default=["prec@k-svmperf"])
    args = parser.parse_args()
    shapes, seeds, Cs = (QUICK["shapes"], QUICK["seeds"], QUICK["Cs"]) if args.quick \
        else (args.shapes, args.seeds, args.C)
    rows = []
    for n, d in shapes:
        for seed in seeds:
            X, y = make_ranking_data(n, d, noise=0.3, random_state=seed)
            for surrogate in args.surrogates:
                for C in Cs:
                    fitted = default_fit(surrogate, KS[surrogate], C, X, y)
                    fitted.pop("model")
                    rows.append({"data": f"{n:,} × {d:,}", "seed": seed,
                                 "surrogate": surrogate, "C": C, **fitted})
    report("Dense lists of a few thousand items with the defaults as shipped",
           "`TopRanker(surrogate, k, C=C)` (the cutting plane, tol 1e-6, 2,000 rounds) on "
           "`make_ranking_data(n, d, noise=0.3, random_state=seed)`; k = 0.25 for prec@k, "
           "10 for pAp@k.",
           {"data": lambda r: r["data"], "seed": lambda r: str(r["seed"]),
            "surrogate": lambda r: r["surrogate"], "C": lambda r: f"{r['C']:g}",
            "outcome": lambda r: r["outcome"], "rounds": lambda r: r["rounds"],
            "seconds": lambda r: f"{r['seconds']:.1f}"},
           rows, lambda r: f"{r['data']} seed {r['seed']} {r['surrogate']} C = {r['C']:g}")


if __name__ == "__main__":
    main()

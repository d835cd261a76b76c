"""The approximate solvers' certificate: what it costs and whether it tells the truth.

    python benchmarks/certificate_cost.py            # four data sets, C = 0.01, 1 and 10
    python benchmarks/certificate_cost.py --quick    # ionosphere and spambase, C = 0.01, 1

SGD on batches of 500 for 25 epochs (block Frank-Wolfe, whose model needs the separate
certificate; one block, the default at these sizes, certifies itself), ``tol=0.01``, on the
real data sets of
``data/`` (features standardized), prec@k-avg at κ = 0.25 and pAp@k-avg at k = 10: the fit
time without the certificate (``certify=False``) and with it, the certified ``gap_`` and
status, and the model's excess over the exact solver's certified optimum, which must lie
within ``gap_``; and the time of the exact solver asked for the same 1% (``tol=0.01``).
Prints a markdown table; ``benchmarks/run.py`` stores it.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from cvxtop import TopRanker
from cvxtop.datasets import load_paper_dataset

ROOT = Path(__file__).resolve().parents[1]
#: Block Frank-Wolfe's setting: the certificate runs after it (one block needs none).
BATCHES = dict(batch_size=500, epochs=25, random_state=0)


def timed_fit(model: TopRanker, X, y) -> tuple[TopRanker, float]:
    with warnings.catch_warnings():  # the warnings are the subject: the table shows them
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # the zero-model notice
        start = time.perf_counter()
        model.fit(X, y)
        return model, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sets = ("ionosphere", "spambase") if args.quick else ("ionosphere", "spambase", "letter",
                                                          "magic")
    Cs = (0.01, 1.0) if args.quick else (0.01, 1.0, 10.0)
    print("# certificate_cost: SGD's certified gap, its cost and its truth\n")
    print("| data | surrogate | C | SGD s, certify=False | SGD s, certified | certified / plain "
          "| gap_ | status_ | excess over P* | excess <= gap_ | exact s, tol=0.01 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = honest = 0
    ratios = []
    for name in sets:
        X, y = load_paper_dataset(name, ROOT / "data")
        X = StandardScaler().fit_transform(X)
        for surrogate, k in (("prec@k-avg", 0.25), ("pap@k-avg", 10)):
            for C in Cs:
                exact, _ = timed_fit(TopRanker(surrogate, k=k, C=C), X, y)
                _, loose = timed_fit(TopRanker(surrogate, k=k, C=C, tol=0.01), X, y)
                _, plain = timed_fit(TopRanker(surrogate, k=k, C=C, solver="sgd",
                                               certify=False, **BATCHES), X, y)
                model, certified = timed_fit(TopRanker(surrogate, k=k, C=C, solver="sgd",
                                                       **BATCHES), X, y)
                excess = (model.objective_ - exact.objective_) / abs(exact.objective_)
                within = model.objective_ - exact.objective_ <= \
                    model.gap_ * abs(model.objective_) + 1e-9 * abs(exact.objective_)
                rows += 1
                honest += within
                ratios.append(certified / plain)
                print(f"| {name} | {surrogate} | {C:g} | {plain:.3f} | {certified:.3f} | "
                      f"{certified / plain:.1f} | {model.gap_:.2g} | {model.status_} | "
                      f"{excess:.2g} | {'yes' if within else 'NO'} | {loose:.3f} |", flush=True)
    print(f"\nSUMMARY: certificate_cost: excess within gap_ on {honest} of {rows} fits; "
          f"certified / plain fit time {min(ratios):.1f} to {max(ratios):.1f}")


if __name__ == "__main__":
    main()

"""AATP fast solver: all candidates up to n = 5,000 items, time and the n_jobs speed-up.

For each size n (linear kernel, d = 20, C = 1, tau = 0.05) the estimator
``cvxtop.AATP(solver="fast")`` is fitted with ``n_jobs=1`` and ``n_jobs=2`` (joblib's
default process backend, its workers started before timing) in the same run. Reported:
seconds, milliseconds per candidate, the growth of the time from the previous size, and
the speed-up of two workers. The machine this was written on has 2 cores shared with
other jobs, so the speed-up is a measurement of that machine, not of the method.

Run:  python benchmarks/aatp_scaling.py [--sizes 500 1000 2000 5000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cvxtop import AATP


def make_data(n: int, d: int = 20, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.8 * rng.standard_normal(n) > 1.0).astype(np.int64)
    return X, y


def fit_seconds(X: np.ndarray, y: np.ndarray, n_jobs: int) -> tuple[float, AATP]:
    start = time.perf_counter()
    model = AATP(tau=0.05, C=1.0, n_jobs=n_jobs).fit(X, y)
    return time.perf_counter() - start, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000])
    args = parser.parse_args()
    print("AATP fast solver, linear kernel, d = 20, C = 1, tau = 0.05")
    print("| n | n_jobs=1 s | ms / candidate | growth vs previous n | n_jobs=2 s | "
          "speed-up | same fit |")
    print("|---|---|---|---|---|---|---|")
    fit_seconds(*make_data(60), 2)  # start joblib's workers (and their imports) untimed
    previous = None
    for n in args.sizes:
        X, y = make_data(n)
        t1, m1 = fit_seconds(X, y, 1)
        t2, m2 = fit_seconds(X, y, 2)
        same = m1.candidate_ == m2.candidate_ and np.isclose(m1.objective_, m2.objective_,
                                                             rtol=1e-9)
        growth = ("-" if previous is None
                  else f"x{t1 / previous[1]:.1f} for x{n / previous[0]:.1f} n")
        print(f"| {n} | {t1:.1f} | {1e3 * t1 / n:.2f} | {growth} | {t2:.1f} | "
              f"{t1 / t2:.2f} | {'yes' if same else 'NO'} |")
        previous = (n, t1)
    print(f"SUMMARY: n = {n}: {t1:.1f} s with n_jobs=1, {t2:.1f} s with n_jobs=2 "
          f"(speed-up {t1 / t2:.2f}), same fit: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

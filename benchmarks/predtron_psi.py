"""Cost of the Predtron surrogate ψ (Jain et al. 2015 eq. (2)) against enumeration, as m grows.

Prints, in one run, the time of ``problem.psi`` and of enumerating every prediction for
subset ranking (the linear assignment of Lemma 3 against all m! permutations) and for
multilabel classification with the error-set-size loss (O(m²) against all 2^m subsets),
then the growth of ψ alone at sizes beyond enumeration. Ratios, not absolute times, are the
point: they come from the same run on the same machine.

    python benchmarks/predtron_psi.py
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from cvxtop.predtron import Multilabel, SubsetRanking


def seconds(fn, repeat: int) -> float:
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def enumerate_psi(problem, predictions, t, y):
    rep_y = problem.rep(problem.correct_prediction(y))
    return max(problem.loss(p, y) - (rep_y - problem.rep(p)) @ t for p in predictions)


def compare(title, make, sizes, predictions_of):
    print(f"\n{title}\n")
    print("| m | predictions | psi (ms) | enumeration (ms) | enumeration / psi |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    ratio = np.nan
    for m in sizes:
        problem, t, y = make(m, rng)
        predictions = predictions_of(m)
        fast = seconds(lambda: problem.psi(t, y), 50)
        slow = seconds(lambda: enumerate_psi(problem, predictions, t, y), 1)
        assert abs(problem.psi(t, y)[0] - enumerate_psi(problem, predictions, t, y)) < 1e-9
        print(f"| {m} | {len(predictions)} | {1e3 * fast:.3f} | {1e3 * slow:.1f} | "
              f"{slow / fast:.0f} |")
        ratio = slow / fast
    return sizes[-1], ratio


def ranking_instance(m, rng):
    return SubsetRanking(m), rng.standard_normal(m), rng.integers(0, 4, size=m).astype(float)


def multilabel_instance(m, rng):
    return Multilabel(m, "error_set_size"), rng.standard_normal(m), rng.integers(0, 2, size=m)


def growth(title, make, sizes):
    print(f"\n{title}\n")
    print("| m | psi (ms) | time ratio to previous m | m ratio |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(1)
    previous = None
    for m in sizes:
        problem, t, y = make(m, rng)
        cost = seconds(lambda: problem.psi(t, y), 5)
        ratio = "" if previous is None else f"{cost / previous[1]:.1f}"
        m_ratio = "" if previous is None else f"{m / previous[0]:.0f}"
        print(f"| {m} | {1e3 * cost:.3f} | {ratio} | {m_ratio} |")
        previous = (m, cost)


def main() -> None:
    m, ratio = compare("Subset ranking (NDCG): assignment (Lemma 3) vs all m! permutations",
                       ranking_instance, [4, 5, 6, 7, 8],
                       lambda m: [np.array(p) + 1 for p in itertools.permutations(range(m))])
    print(f"SUMMARY: subset ranking psi at m = {m}: enumeration of the m! rankings / "
          f"assignment = {ratio:,.0f}x, same value")
    m, ratio = compare("Multilabel, error-set-size loss: O(m²) form vs all 2^m subsets",
                       multilabel_instance, [4, 8, 12, 16],
                       lambda m: [np.array(s) for s in itertools.product([0, 1], repeat=m)])
    print(f"SUMMARY: multilabel error-set-size psi at m = {m}: enumeration of the 2^m subsets "
          f"/ closed form = {ratio:,.0f}x, same value")
    growth("Subset ranking ψ alone", ranking_instance, [50, 100, 200, 400, 800])
    growth("Multilabel error-set-size ψ alone", multilabel_instance, [250, 500, 1000, 2000, 4000])


if __name__ == "__main__":
    main()

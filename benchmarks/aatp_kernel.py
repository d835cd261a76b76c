"""Kernel AATP on data as users have it, in every regime: the worst cell first.

``AATP(tau=0.05, C, kernel="precomputed")`` on RBF Gram matrices ``exp(−γ‖x − x'‖²)`` of
standardized features, timed as ``fit`` alone (the Gram matrix is computed untimed, the
fit includes everything it does: the Gram policy's eigendecomposition, the choice of
engine, every candidate, the selection), each in the same process after one warm-up fit;
a fit under a second is timed as the median of three (:data:`SHORT_FIT`).

1. **The grid.** Data: the shipped UCI sets (ionosphere, spambase, magic, letter; a random
   sample of ``n`` rows with the set's own share of relevant items, and a stratified one
   with about 5% relevant), lognormal (heavy-tailed) features, tight Gaussian clusters, and
   near-duplicate rows; ``γ ∈ {0.1, 1, 10}/d``; ``C ∈ {0.01, 0.1, 1, 10}``; ``n ∈ {400,
   1,000}``. Columns: the engine and the Gram matrix's numerical rank; cvxtop's time; the
   linear kernel on the same data (``AATP(kernel="linear")``); the candidates times one
   fit of scikit-learn's ``SVC`` on the same Gram matrix (libsvm's SMO, the median over
   fits repeated for half a second, :data:`SVC_SECONDS`: the same class of box-constrained
   QP as one candidate); the candidates times one
   fit of scikit-learn's ``SVR`` on a candidate's own dual, written as an ε-SVR (libsvm on
   the very QP, to its default tolerance, uncertified). Rows are sorted by how far each
   cell is from the targets (``time / min(SVC product, 5 × linear, 20 s)``), the worst
   first. Nothing else runs while the grid is timed.
2. **The cvxpy reference** on every grid cell with ``n ≤ 400``: each cell fitted by the
   default engine and by ``solver="cvxpy"`` (eq. (4) compiled once, Clarabel, every
   candidate), two cells at a time in worker processes of one BLAS thread each; the same
   chosen candidate, the relative difference of the objectives and the engine's largest
   duality gap, the worst cell first.
3. **n = 5,000** on three data sets, ``n_jobs=2``.
4. **Low rank.** The 3-mer spectrum kernel of random DNA sequences (rank 64) as a Gram
   matrix, against the linear kernel on its 64 features, and the same Gram matrix as
   float32 and memory-mapped float32 (time, peak memory, agreement with float64).

Run:  python benchmarks/aatp_kernel.py [--quick] [--sections grid reference large low-rank]
      [--data NAME ...] [--n N ...] [--gamma-d G ...] [--C C ...]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TAU = 0.05
UCI = ("ionosphere", "spambase", "magic", "letter")
SYNTHETIC = ("heavy tails", "clusters", "near duplicates")
#: The full run's sections (``--sections``): the grid, the cvxpy reference on its cells of
#: n ≤ 400, n = 5,000, the rank-64 Gram matrix.
SECTIONS = ("grid", "reference", "large", "low-rank")


# ---- data -------------------------------------------------------------------------------
def standardized(X: np.ndarray) -> np.ndarray:
    scale = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)


def uci_sample(name: str, n: int, rate: float | None, seed: int = 0
               ) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of a shipped UCI set: a random sample, or with ``rate`` a stratified one
    with that share of relevant items (fewer rows when a class runs out)."""
    from cvxtop.datasets import load_paper_dataset

    X, y = load_paper_dataset(name, ROOT / "data")
    rng = np.random.default_rng(seed)
    if rate is None:
        take = rng.choice(len(y), size=min(n, len(y)), replace=False)
    else:
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        n = min(n, int(len(neg) / (1 - rate)))
        n_pos = max(2, int(round(rate * n)))
        take = rng.permutation(np.r_[rng.choice(pos, n_pos, replace=False),
                                     rng.choice(neg, n - n_pos, replace=False)])
    return standardized(X[take]), y[take]


def synthetic(kind: str, n: int, seed: int = 0, d: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Heavy tails (lognormal, relevant rows ×1.5), tight clusters (8 centres, spread
    0.05), near-duplicate rows (n/4 points, each repeated with noise 1e-6); about 6%
    relevant; standardized."""
    rng = np.random.default_rng(seed)
    if kind == "heavy tails":
        X = np.exp(rng.normal(0.0, 2.0, (n, d)))
        y = (rng.random(n) < 0.06).astype(np.int64)
        X[y == 1] *= 1.5
    elif kind == "clusters":
        label = rng.integers(0, 8, n)
        X = 3.0 * rng.standard_normal((8, d))[label] + 0.05 * rng.standard_normal((n, d))
        y = (((label == 0) & (rng.random(n) < 0.5)) | (rng.random(n) < 0.01)).astype(np.int64)
    else:
        base = rng.standard_normal((max(2, n // 4), d))
        X = base[rng.integers(0, len(base), n)] + 1e-6 * rng.standard_normal((n, d))
        y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 1.6).astype(np.int64)
    y[:2] = [1, 0]
    return standardized(X), y


def dataset(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    if name in SYNTHETIC:
        return synthetic(name, n)
    base, _, variant = name.partition(" ")
    return uci_sample(base, n, 0.05 if variant == "5%" else None)


def rbf(X: np.ndarray, gamma: float) -> np.ndarray:
    sq = (X * X).sum(axis=1)
    return np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0))


def spectrum_data(n: int, seed: int = 0, length: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Random DNA sequences; relevant ones (about 15%) carry copies of a motif. Returns the
    cosine-normalized 3-mer counts (64 features) and the labels; their Gram matrix is the
    spectrum kernel, of rank at most 64."""
    rng = np.random.default_rng(seed)
    seqs = rng.integers(0, 4, size=(n, length))
    y = (rng.random(n) < 0.15).astype(np.int64)
    motif = np.array([2, 1, 2, 1, 3, 3])  # GCGCTT
    for i in np.flatnonzero(y):
        for start in rng.choice(length - len(motif), size=3, replace=False):
            seqs[i, start:start + len(motif)] = motif
    codes = 16 * seqs[:, :-2] + 4 * seqs[:, 1:-1] + seqs[:, 2:]
    counts = np.zeros((n, 64))
    np.add.at(counts, (np.repeat(np.arange(n), codes.shape[1]), codes.ravel()), 1.0)
    return counts / np.linalg.norm(counts, axis=1, keepdims=True), y


# ---- timing ------------------------------------------------------------------------------
def timed_fit(model, Z, y) -> tuple[float, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(Z, y)
        return time.perf_counter() - start, model


#: Fits shorter than this are timed as the median of three: the cvxpy reference runs
#: beside the small cells, and single fits of a few tenths of a second varied by 2 to 3 ×
#: between runs of the same code.
SHORT_FIT = 1.0


def median_fit(model, Z, y) -> tuple[float, object]:
    """``timed_fit``, as the median of three fits (of clones) when the first is shorter
    than :data:`SHORT_FIT` seconds."""
    from sklearn.base import clone

    seconds, fitted = timed_fit(model, Z, y)
    if seconds >= SHORT_FIT:
        return seconds, fitted
    times = [seconds] + [timed_fit(clone(model), Z, y)[0] for _ in range(2)]
    return float(np.median(times)), fitted


#: ``SVC`` fits are repeated until they have taken this many seconds (at least
#: :data:`SVC_FITS` [0] fits, at most [1]): one fit's time varies from fit to fit, and the
#: median of three moved single cells' targets between runs of the grid (measured:
#: docs/aatp.md, "Where it stands").
SVC_SECONDS, SVC_FITS = 0.5, (5, 51)


def svc_seconds(K: np.ndarray, y: np.ndarray, C: float) -> float:
    """The median time of one fit of libsvm's SMO (scikit-learn's ``SVC``) on ``K``, over
    fits repeated for :data:`SVC_SECONDS`."""
    from sklearn.svm import SVC

    times: list[float] = []
    while len(times) < SVC_FITS[1] and (len(times) < SVC_FITS[0]
                                        or sum(times) < SVC_SECONDS):
        start = time.perf_counter()
        SVC(kernel="precomputed", C=C).fit(K, y)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def svr_seconds(K: np.ndarray, y: np.ndarray, C: float) -> float:
    """The median of libsvm's SMO (scikit-learn's ``SVR``, default tolerance) on three
    candidates' own duals: eq. (4) as an ε-SVR (docs/aatp.md, "Screening of candidates"),
    the items with targets ``±(ε + 1)`` and bounds ``C``, and two copies of the anchor with
    targets ``±ε``. The kernel matrix of each is formed untimed."""
    from sklearn.svm import SVR

    n = len(y)
    sign = 2.0 * y - 1.0
    eps = float(np.sqrt(2.0 * C * n * K.diagonal().max())) + 1.0
    targets = np.r_[sign * (eps + 1.0), eps, -eps]
    weights = np.r_[np.full(n, C), 2.0 * C * n, 2.0 * C * n]
    times = []
    for k in (0, n // 3, 2 * n // 3):
        items = np.r_[np.arange(n), k, k]
        Kk = np.ascontiguousarray(K[np.ix_(items, items)])
        start = time.perf_counter()
        SVR(kernel="precomputed", C=1.0, epsilon=eps).fit(Kk, targets, sample_weight=weights)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def max_relative_gap(model) -> float:
    """The largest relative duality gap of the candidates a fitted ``AATP`` solved (0 when
    every candidate was screened)."""
    solved = ~model.candidate_screened_
    return float(np.max(model.candidate_duality_gaps_[solved] / np.maximum(
        1.0, np.abs(model.candidate_objectives_[solved])), initial=0.0))


def cell(name: str, X: np.ndarray, y: np.ndarray, gamma_d: float, C: float) -> dict:
    from cvxtop import AATP

    K = rbf(X, gamma_d / X.shape[1])
    seconds, model = median_fit(AATP(tau=TAU, C=C, kernel="precomputed"), K, y)
    linear, _ = median_fit(AATP(tau=TAU, C=C, kernel="linear"), X, y)
    svc = svc_seconds(K, y, C) * len(model.candidates_)
    svr = svr_seconds(K, y, C) * len(model.candidates_)
    row = {"data": name, "n": len(y), "relevant": int(y.sum()), "gamma_d": gamma_d, "C": C,
           "engine": model.engine_, "rank": int(model.gram_rank_), "seconds": seconds,
           "linear": linear, "svc": svc, "svr": svr,
           "screened": int(model.candidate_screened_.sum()),
           "max_gap": max_relative_gap(model),
           "candidate": int(model.candidate_), "objective": float(model.objective_)}
    row["target"] = min(svc, 5.0 * linear, 20.0)
    return row


def one_thread() -> None:
    """A reference worker's initializer: one BLAS thread, so that it takes one core."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def agreement(name: str, size: int, gamma_d: float, C: float) -> dict:
    """One cell fitted twice on its Gram matrix: by the default engine and by the cvxpy
    reference (every candidate solved); the chosen candidates, the objectives, the
    engine's largest relative duality gap and both times."""
    from cvxtop import AATP

    X, y = dataset(name, size)
    K = rbf(X, gamma_d / X.shape[1])
    seconds, model = timed_fit(AATP(tau=TAU, C=C, kernel="precomputed"), K, y)
    ref_seconds, ref = timed_fit(AATP(tau=TAU, C=C, kernel="precomputed", solver="cvxpy"),
                                 K, y)
    return {"data": name, "n": len(y), "gamma_d": gamma_d, "C": C, "seconds": seconds,
            "reference_seconds": ref_seconds,
            "same": int(ref.candidate_) == int(model.candidate_),
            "objective": abs(float(ref.objective_) - float(model.objective_))
            / max(1.0, abs(float(ref.objective_))),
            "max_gap": max_relative_gap(model)}


# ---- the tables ----------------------------------------------------------------------------
def grid(names: list[str], sizes: list[int], gammas: list[float], Cs: list[float],
         summary: list[str]) -> None:
    from cvxtop import AATP

    X0, y0 = synthetic("clusters", 80)
    timed_fit(AATP(tau=TAU, kernel="precomputed"), rbf(X0, 0.1), y0)  # imports, untimed
    rows = []
    for name in names:
        seen = set()
        for n in sizes:
            X, y = dataset(name, n)
            if len(y) in seen:  # a small set (ionosphere) has fewer rows than n
                continue
            seen.add(len(y))
            for gamma_d in gammas:
                for C in Cs:
                    r = cell(name, X, y, gamma_d, C)
                    r["size"] = n
                    rows.append(r)
                    # every column on the progress stream too: a run stopped before its
                    # table still leaves its cells
                    print(f"  {name} n={r['n']} gamma*d={gamma_d:g} C={C:g}: "
                          f"{r['seconds']:.2f} s (target {r['target']:.2f} s; linear "
                          f"{r['linear']:.2f} s, SVC x cand. {r['svc']:.2f} s, "
                          f"eps-SVR x cand. {r['svr']:.2f} s, {r['engine']} rank "
                          f"{r['rank']}, screened {r['screened']}/{r['n']}, max gap "
                          f"{r['max_gap']:.0e})", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: -r["seconds"] / r["target"])
    print("\n## 1. The grid, the worst cell first\n")
    print(f"τ = {TAU}; `cvxtop s`, `linear s`: one fit, the median of three when it takes "
          f"under {SHORT_FIT:g} s; `SVC × cand.`: the candidates times the median `SVC` fit "
          f"on the same Gram matrix (fits repeated for {SVC_SECONDS:g} s, at least "
          f"{SVC_FITS[0]}); `linear`: `AATP(kernel=\"linear\")` on the same "
          "features; `ε-SVR × cand.`: the candidates times the median of three `SVR` fits "
          "of a candidate's own dual (eq. (4) as an ε-SVR, libsvm's default tolerance, not "
          "certified); `worst ratio`: cvxtop's time over the smallest of the SVC product, 5 × "
          "linear and 20 s (the targets; above 1 misses one); `max gap`: the largest "
          "relative duality gap of the candidates solved to optimality (the cvxpy "
          "reference of the cells with n ≤ 400: section 2).\n")
    print("| data | n | rel. | γ·d | C | engine | rank | cvxtop s | linear s | SVC × cand. s | "
          "/ SVC | ε-SVR × cand. s | / ε-SVR | / linear | worst ratio | screened | max gap |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['data']} | {r['n']} | {r['relevant']} | {r['gamma_d']:g} | {r['C']:g} | "
              f"{r['engine']} | {r['rank']} | {r['seconds']:.2f} | {r['linear']:.2f} | "
              f"{r['svc']:.2f} | {r['seconds'] / r['svc']:.1f} | {r['svr']:.2f} | "
              f"{r['seconds'] / r['svr']:.1f} | {r['seconds'] / r['linear']:.1f} | "
              f"{r['seconds'] / r['target']:.2f} | "
              f"{r['screened']}/{r['n']} | {r['max_gap']:.0e} |")
    worst = rows[0]
    met = sum(r["seconds"] <= r["target"] for r in rows)
    for n in sizes:
        at_n = [r for r in rows if r["size"] == n]
        if at_n:
            slow = max(at_n, key=lambda r: r["seconds"])
            summary.append(f"grid n = {n}: the slowest cell {slow['seconds']:.1f} s "
                           f"({slow['data']}, γ·d = {slow['gamma_d']:g}, C = {slow['C']:g}; "
                           f"SVC product {slow['svc']:.1f} s, linear {slow['linear']:.1f} s)")
    summary.append(
        f"grid: worst cell {worst['data']} n = {worst['n']}, γ·d = {worst['gamma_d']:g}, "
        f"C = {worst['C']:g}: {worst['seconds']:.1f} s = {worst['seconds'] / worst['svc']:.1f}"
        f"x the SVC product, {worst['seconds'] / worst['svr']:.1f}x the ε-SVR product, "
        f"{worst['seconds'] / worst['linear']:.1f}x linear; {met} of "
        f"{len(rows)} cells meet every target")


def reference_check(names: list[str], size: int, gammas: list[float], Cs: list[float],
                    summary: list[str]) -> None:
    """Section 2: the default engine against the cvxpy reference on every cell with
    ``n = size``, two cells at a time (one per core, one BLAS thread each)."""
    cells = [(name, size, g, C) for name in names for g in gammas for C in Cs]
    rows = []
    with ProcessPoolExecutor(2, mp_context=get_context("spawn"),
                             initializer=one_thread) as workers:
        for future in as_completed([workers.submit(agreement, *c) for c in cells]):
            r = future.result()
            rows.append(r)
            print(f"  reference {r['data']} n={r['n']} gamma*d={r['gamma_d']:g} C={r['C']:g}: "
                  f"cvxtop {r['seconds']:.1f} s, cvxpy {r['reference_seconds']:.1f} s, same "
                  f"candidate {'yes' if r['same'] else 'NO'}, objective difference "
                  f"{r['objective']:.0e}, max gap {r['max_gap']:.0e}",
                  file=sys.stderr, flush=True)
    rows.sort(key=lambda r: (r["same"], -r["objective"], -r["max_gap"]))
    print(f"\n## 2. The cvxpy reference on every cell with n = {size}, the worst first\n")
    print("Each cell fitted by the default engine and by `solver=\"cvxpy\"` (eq. (4) compiled "
          "once, Clarabel, every candidate), two cells at a time, one BLAS thread each. "
          "`same`: the same chosen candidate; `obj. diff`: the relative difference of the "
          "objectives; `max gap`: the engine's largest relative duality gap over the "
          "candidates it solved.\n")
    print("| data | n | γ·d | C | same | obj. diff | max gap | cvxtop s | cvxpy s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['data']} | {r['n']} | {r['gamma_d']:g} | {r['C']:g} | "
              f"{'yes' if r['same'] else 'NO'} | {r['objective']:.0e} | {r['max_gap']:.0e} | "
              f"{r['seconds']:.2f} | {r['reference_seconds']:.1f} |")
    agree = sum(r["same"] and r["objective"] <= 1e-8 for r in rows)
    worst = rows[0]
    summary.append(
        f"cvxpy reference at n = {size}: the same candidate and objective (1e-8) in {agree} of "
        f"{len(rows)} cells; the worst {worst['data']}, γ·d = {worst['gamma_d']:g}, C = "
        f"{worst['C']:g} (same candidate {'yes' if worst['same'] else 'NO'}, objective "
        f"difference {worst['objective']:.0e})")


def large(names: list[str], n: int, summary: list[str]) -> None:
    from cvxtop import AATP

    print(f"\n## 3. n = {n}, `n_jobs=2` (γ = 1/d, C = 0.1)\n")
    print("| data | n | engine | rank | cvxtop s | linear s | SVC × cand. s | screened |")
    print("|---|---|---|---|---|---|---|---|")
    slowest = 0.0
    for name in names:
        X, y = dataset(name, n)
        K = rbf(X, 1.0 / X.shape[1])
        timed_fit(AATP(tau=TAU, kernel="precomputed", n_jobs=2), K[:100, :100], y[:100])
        seconds, model = timed_fit(AATP(tau=TAU, C=0.1, kernel="precomputed", n_jobs=2), K, y)
        linear, _ = timed_fit(AATP(tau=TAU, C=0.1, n_jobs=2), X, y)
        svc = svc_seconds(K, y, 0.1) * len(model.candidates_)
        slowest = max(slowest, seconds)
        print(f"| {name} | {len(y)} | {model.engine_} | {model.gram_rank_} | {seconds:.1f} | "
              f"{linear:.1f} | {svc:.1f} | {int(model.candidate_screened_.sum())}/{len(y)} |",
              flush=True)
    summary.append(f"n = {n} with n_jobs=2: the slowest of {len(names)} data sets "
                   f"{slowest:.0f} s (target 300 s)")


def run_storage_case(case: dict) -> dict:
    """One fit of the spectrum kernel in a child process (its peak memory its own)."""
    from cvxtop import AATP

    features, y = spectrum_data(case["n"])
    if case["storage"] == "features":
        Z, model = features, AATP(tau=TAU, C=0.1)
    else:
        model = AATP(tau=TAU, C=0.1, kernel="precomputed")
        if case["storage"] == "memmap32":
            Z = np.load(case["path"], mmap_mode="r")
        else:
            K = features @ features.T
            Z = K.astype(np.float32) if case["storage"] == "float32" else K
    seconds, model = timed_fit(model, Z, y)
    return {"seconds": seconds, "candidate": int(model.candidate_),
            "objective": float(model.objective_), "engine": model.engine_,
            "rank": int(getattr(model, "gram_rank_", features.shape[1])),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(case: dict) -> dict:
    done = subprocess.run([sys.executable, __file__, "--case", json.dumps(case)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"case {case} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def low_rank(sizes: list[int], folder: Path, summary: list[str]) -> None:
    print("\n## 4. Low rank: the 3-mer spectrum kernel (rank 64)\n")
    print("The Gram matrix of 64 cosine-normalized 3-mer counts, against the linear kernel "
          "on those 64 features; C = 0.1. Peak memory: the child process's peak resident "
          "set (imports and data included). `vs float64`: the same candidate, and the "
          "relative objective difference.\n")
    print("| n | input | engine | rank | fit s | / linear | peak MB | vs float64 |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        features, _ = spectrum_data(n)
        path = folder / f"spectrum_{n}.npy"
        np.save(path, (features @ features.T).astype(np.float32))
        runs = {kind: measure({"n": n, "storage": kind, "path": str(path)})
                for kind in ("features", "float64", "float32", "memmap32")}
        path.unlink()
        for kind, r in runs.items():
            base = runs["float64"]
            rel = abs(r["objective"] - base["objective"]) / max(1.0, abs(base["objective"]))
            same = f"{'yes' if r['candidate'] == base['candidate'] else 'NO'}, {rel:.0e}"
            print(f"| {n} | {'linear kernel' if kind == 'features' else kind} | {r['engine']} "
                  f"| {r['rank']} | {r['seconds']:.2f} | "
                  f"{r['seconds'] / runs['features']['seconds']:.2f} | {r['peak_mb']:.0f} | "
                  f"{same} |", flush=True)
        summary.append(f"rank-64 Gram, n = {n}: {runs['float64']['seconds']:.1f} s = "
                       f"{runs['float64']['seconds'] / runs['features']['seconds']:.2f}x the "
                       f"linear kernel on its 64 features (target <= 1.5); float32 memory map "
                       f"{runs['memmap32']['seconds']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small grid only")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--data", nargs="+", help="grid cells of these data sets only "
                        "(with --n, --gamma-d, --C: a subset of the grid, no sections 3-4)")
    parser.add_argument("--n", nargs="+", type=int, help="grid cells of these sizes only")
    parser.add_argument("--gamma-d", nargs="+", type=float, help="grid cells of these γ·d only")
    parser.add_argument("--C", nargs="+", type=float, help="grid cells of these C only")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                        help="the sections to run (default: all; with --data, --n, "
                        "--gamma-d or --C only grid and reference, on that subset)")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_storage_case(json.loads(args.case))))
        return
    print("# Kernel AATP on real data, in every regime")
    summary: list[str] = []
    names = [f"{u}{variant}" for u in UCI for variant in ("", " 5%")] + list(SYNTHETIC)
    with tempfile.TemporaryDirectory() as tmp:
        names, sizes = args.data or names, args.n or [400, 1000]
        gammas, Cs = args.gamma_d or [0.1, 1.0, 10.0], args.C or [0.01, 0.1, 1.0, 10.0]
        subset = bool(args.data or args.n or args.gamma_d or args.C)
        if args.quick:
            names, sizes, gammas, Cs = ["letter 5%", "clusters"], [80], [1.0], [0.1, 10.0]
        if "grid" in args.sections:
            grid(names, sizes, gammas, Cs, summary)
        if "reference" in args.sections:
            for size in (n for n in sizes if n <= 400):
                reference_check(names, size, gammas, Cs, summary)
        if "large" in args.sections and not (subset or args.quick):
            large(["magic", "letter", "heavy tails"], 5000, summary)
        if "low-rank" in args.sections and not subset:
            low_rank([400] if args.quick else [1000, 5000], Path(tmp), summary)
    print()
    print("\n".join(f"SUMMARY: {line}" for line in summary))


if __name__ == "__main__":
    main()

"""Data sets for demos, tests and the papers' experiments."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_fraction
from .cutoff import ceil_fraction

__all__ = ["load_diabetes_top", "load_paper_dataset", "make_ranking_data",
           "make_sparse_ranking_data", "PAPER_DATASETS"]


def load_diabetes_top(fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """scikit-learn's diabetes data (442 patients, 10 features) as a rare-class ranking task.

    The relevant items are the ``fraction`` of patients with the largest disease
    progression one year after baseline (the regression target), ties included: with the
    default 10%, 47 of 442 are relevant. A linear scorer separates them well on average
    (AUC near 0.9) but not at the very top, which is where cvxtop's surrogates aim.

    Returns
    -------
    X : array of shape (442, 10), the standardized features as scikit-learn ships them
    y : array of 0/1, 1 = among the largest progressions
    feature_names : list of str
    """
    fraction = check_fraction(fraction, "fraction")
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    target = data.target
    m = ceil_fraction(fraction, len(target))
    threshold = np.sort(target)[len(target) - m]
    return data.data, (target >= threshold).astype(np.int64), list(data.feature_names)


PAPER_DATASETS = ("ionosphere", "spambase", "boston", "letter", "magic")


def _read_dat(text: str) -> tuple[np.ndarray, np.ndarray]:
    """A headerless comma-separated table whose last column is the class label."""
    rows = [line.split(",") for line in text.splitlines() if line.strip()]
    X = np.array([[float(v) for v in r[:-1]] for r in rows], dtype=np.float64)
    labels = np.array([r[-1].strip() for r in rows])
    return X, labels


def load_paper_dataset(name: str, data_dir=None, letter: str = "A"
                       ) -> tuple[np.ndarray, np.ndarray]:
    """One of the public data sets of the papers' experiments, as ``(X, y)``.

    The files are those of the repository's ``data/`` folder (see its README); pass that
    folder as ``data_dir``. The letter data also ship with the package (compressed), so
    ``data_dir`` may be omitted for ``"letter"``. Relevant items (y = 1):

    * ``"ionosphere"``: class ``g`` (good radar return), 225 of 351 (Boyd et al. 2012 Table 1);
    * ``"spambase"``: spam, 1,812 of 4,597 (Boyd et al. 2012 Appendix C);
    * ``"boston"``: ``chas = 1``, 35 of 506; the other 12 columns are the features
      (Boyd et al. 2012 Table 2, "feature 4");
    * ``"letter"``: the letter ``letter`` against the rest, about 4% (Kar et al. 2015 Section 6);
    * ``"magic"``: class ``h`` (hadron), 6,688 of 19,020.
    """
    import gzip
    from importlib.resources import files
    from pathlib import Path

    if name not in PAPER_DATASETS:
        raise ValueError(f"name must be one of {PAPER_DATASETS}, got {name!r}")
    if data_dir is None:
        if name != "letter":
            raise ValueError(f"only the letter data ship with the package; pass data_dir "
                             f"(the repository's data/ folder) to load {name!r}")
        text = gzip.decompress(files("cvxtop").joinpath("data/letter.dat.gz").read_bytes())
        X, labels = _read_dat(text.decode())
        return X, (labels == letter).astype(np.int64)
    folder = Path(data_dir)
    if name == "boston":
        lines = (folder / "boston.csv").read_text().splitlines()
        header = [h.strip() for h in lines[0].split(",")]
        table = np.array([[float(v) for v in ln.split(",")] for ln in lines[1:] if ln.strip()])
        target = header.index("chas")
        keep = [i for i, h in enumerate(header) if h not in ("rownames", "chas")]
        return table[:, keep], (table[:, target] == 1).astype(np.int64)
    positive = {"ionosphere": "g", "spambase": "1", "magic": "h", "letter": letter}
    X, labels = _read_dat((folder / f"{name}.dat").read_text())
    return X, (labels == positive[name]).astype(np.int64)


def make_ranking_data(n: int, d: int, pos_rate: float = 0.1, noise: float = 1.0,
                      random_state: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic ranking data: Gaussian features, relevance from a noisy linear score.

    ``X ~ N(0, I_d)``; the relevant items are the ``pos_rate`` fraction with the largest
    ``X w* + noise·ε`` for a random unit ``w*`` and standard normal ``ε`` (at least one
    relevant and one irrelevant item).
    """
    if n < 2 or d < 1:
        raise ValueError(f"need n >= 2 and d >= 1, got n={n}, d={d}")
    pos_rate = check_fraction(pos_rate, "pos_rate")
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, d))
    return X, _top_of_noisy_score(X, rng, pos_rate, noise)


def make_sparse_ranking_data(n: int, d: int, density: float = 0.001, pos_rate: float = 0.1,
                             noise: float = 1.0, random_state: int | None = 0
                             ) -> tuple[Any, np.ndarray]:
    """:func:`make_ranking_data` with a sparse CSR ``X``: about ``density·n·d`` standard
    normal entries at uniformly random positions (drawn with replacement, duplicates
    summed, so memory follows the entries, not ``n·d``)."""
    import scipy.sparse as sp

    if n < 2 or d < 1:
        raise ValueError(f"need n >= 2 and d >= 1, got n={n}, d={d}")
    density = check_fraction(density, "density")
    pos_rate = check_fraction(pos_rate, "pos_rate")
    rng = np.random.default_rng(random_state)
    entries = max(1, int(round(density * n * d)))
    X = sp.csr_matrix((rng.standard_normal(entries),
                       (rng.integers(0, n, entries), rng.integers(0, d, entries))),
                      shape=(n, d))
    X.sum_duplicates()
    return X, _top_of_noisy_score(X, rng, pos_rate, noise)


def _top_of_noisy_score(X: Any, rng: np.random.Generator, pos_rate: float, noise: float
                        ) -> np.ndarray:
    """Labels: the ``pos_rate`` fraction of items with the largest ``X w* + noise·ε`` for a
    random unit ``w*`` (at least one relevant and one irrelevant item), equal scores taken by
    the smallest index, the same on every CPU (sparse rows without a stored entry all score
    0 when ``noise`` is 0, and numpy's default sort orders ties by the CPU's SIMD)."""
    n, d = X.shape
    w = rng.standard_normal(d)
    latent = X @ (w / np.linalg.norm(w)) + noise * rng.standard_normal(n)
    m = min(n - 1, max(1, ceil_fraction(pos_rate, n)))
    y = np.zeros(n, dtype=np.int64)
    y[np.argsort(-latent, kind="stable")[:m]] = 1
    return y

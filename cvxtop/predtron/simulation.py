"""The synthetic subset-ranking data of Jain et al. 2015 Section 6.

Each instance is a matrix ``X ∈ R^{m×p0}`` (one row per document) and its relevance grades
come from the score ``s_i = <X(i), w*>`` and the thresholds ``ζ_1 = +∞``, ``ζ_j = 1/j``
(``2 <= j <= m``), ``ζ_{m+1} = −∞``: ``y(i) = m − j`` iff ``ζ_{j+1} <= s_i <= ζ_j``, so grades
lie in ``0 .. m−1`` and the score gaps between grades shrink down the list.

The paper leaves the document centres ``μ_i``, the noise level and ``w*`` unspecified; the
choices below are ours (stated in each function): document ``i`` is centred where its score
falls in the middle of the ``i``-th grade band, so a typical list holds every grade once
and noise mixes the narrow bands at the bottom.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int_in_range, check_positive, check_vector

__all__ = ["grades_from_scores", "band_centres", "gaussian_lists", "uniform_lists",
           "sparse_weights"]


def grades_from_scores(scores: np.ndarray, m: int) -> np.ndarray:
    """Grades ``m − j`` with ``j`` the band ``ζ_{j+1} <= s <= ζ_j`` (any array shape)."""
    cuts = 1.0 / np.arange(2, m + 1)  # ζ_2 > ζ_3 > ... > ζ_m
    bands = 1 + np.sum(np.asarray(scores)[..., None] < cuts, axis=-1)
    return (m - bands).astype(np.float64)


def band_centres(m: int) -> np.ndarray:
    """Score at the middle of each band: ``ζ_2 + 1/4`` above the top cut, midpoints between
    cuts, and ``ζ_m/2`` below the bottom cut."""
    cuts = 1.0 / np.arange(2, m + 1)
    return np.r_[cuts[0] + 0.25, (cuts[:-1] + cuts[1:]) / 2, cuts[-1] / 2]


def _unit(w: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w must be a non-zero vector")
    return w / norm


def gaussian_lists(n: int, m: int, p0: int, noise: float, rng: np.random.Generator,
                   w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` lists for Figure 1 (a)-(b): row ``i`` ~ N(μ_i, noise²·I) with
    ``μ_i = c_i w*`` (``c`` = :func:`band_centres`, ``w*`` a random unit vector unless given).

    Returns ``X`` of shape ``(n, m, p0)``, grades ``Y`` of shape ``(n, m)`` and ``w*``.
    """
    n = check_int_in_range(n, "n", 1, 10**7)
    m = check_int_in_range(m, "m", 2, 10**5)
    p0 = check_int_in_range(p0, "p0", 1, 10**7)
    noise = check_positive(noise, "noise")
    w = _unit(rng.standard_normal(p0)) if w is None else _unit(check_vector(w, p0, "w"))
    X = band_centres(m)[None, :, None] * w + noise * rng.standard_normal((n, m, p0))
    return X, grades_from_scores(X @ w, m), w


def sparse_weights(p0: int, s: int, rng: np.random.Generator) -> np.ndarray:
    """``w*`` for Figure 1 (c): ``s`` random coordinates with Gaussian values, unit ℓ1 norm."""
    check_int_in_range(s, "s", 1, p0, "p0")
    w = np.zeros(p0)
    support = rng.choice(p0, size=s, replace=False)
    w[support] = rng.standard_normal(s)
    return w / np.abs(w).sum()


def uniform_lists(n: int, m: int, w: np.ndarray, scale: float, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``n`` lists for Figure 1 (c): entries uniform on ``[−1, 1]``, grades from the scores
    ``scale·<X(i), w*>`` (``scale`` spreads the scores over the bands)."""
    n = check_int_in_range(n, "n", 1, 10**7)
    m = check_int_in_range(m, "m", 2, 10**5)
    scale = check_positive(scale, "scale")
    X = rng.uniform(-1.0, 1.0, size=(n, m, len(w)))
    return X, grades_from_scores(scale * (X @ w), m)

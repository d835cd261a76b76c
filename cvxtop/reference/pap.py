"""Brute-force definitions of pAp@k and its surrogates (Hiranandani et al. 2020), by
enumeration of the top sets and of every valid ordering matrix π. Risks are normalized by
``1/(βk)``, β = min(n₊, k) (``1/(n₊k)`` for the pAUC structural bound), for
``1 <= k <= n₋`` and ``n₊ >= 1``.

Orderings matrices π (Section 4): ``π[i, j] = 1`` when positive ``i`` is ranked below
negative ``j``. A matrix is *valid* when some total order of the items induces it;
:func:`valid_orderings` enumerates exactly these (see its docstring for why the enumeration
is complete), and :func:`valid_orderings_by_permutation` does the same by listing every
total order, for checking.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any

import numpy as np

from .._validation import check_int_in_range, require_classes
from ._common import guard as _guard, inputs as _inputs, ranked_inputs as _ranked_inputs
from ._common import subsets as _subsets

__all__ = ["valid_orderings", "valid_orderings_by_permutation", "pap_risk", "pap_avg",
           "pap_max", "pap_ts", "pap_ramp", "pap_ts_paper", "pauc_struct"]


@lru_cache(maxsize=64)
def _valid_orderings_cached(n_rows: int, n_cols: int) -> np.ndarray:
    count = math.factorial(n_cols) * (n_cols + 1) ** n_rows
    _guard(count, f"the {n_rows}x{n_cols} ordering matrices")
    # Column order σ of the negatives and, per positive, the number c_i of negatives
    # ranked above it: π[i, j] = 1 when negative j is among the first c_i of σ.
    cuts = np.array(list(itertools.product(range(n_cols + 1), repeat=n_rows)), dtype=np.int64)
    cuts = cuts.reshape(-1, n_rows)
    blocks = []
    for sigma in itertools.permutations(range(n_cols)):
        place = np.empty(n_cols, dtype=np.int64)
        place[list(sigma)] = np.arange(n_cols)
        blocks.append((place[None, None, :] < cuts[:, :, None]).astype(np.int8))
    out = np.unique(np.concatenate(blocks).reshape(-1, n_rows * n_cols), axis=0)
    out = out.reshape(-1, n_rows, n_cols)
    out.setflags(write=False)
    return out


def valid_orderings(n_rows: int, n_cols: int) -> np.ndarray:
    """All valid ordering matrices π ∈ {0,1}^(n_rows × n_cols), Hiranandani et al. 2020 Section 4.

    Returns an array of shape ``(m, n_rows, n_cols)``. A total order of ``n_rows``
    positives and ``n_cols`` negatives induces π through the order σ of the negatives and,
    for each positive, the number c_i of negatives above it (π[i, σ(l)] = 1 for l < c_i);
    conversely every (σ, c) is realized by placing each positive right after its c_i-th
    negative. Enumerating all (σ, c) therefore gives exactly the valid matrices, each once
    after removing duplicates. :func:`valid_orderings_by_permutation` checks this.
    """
    n_rows = check_int_in_range(n_rows, "n_rows", 0, 64)
    n_cols = check_int_in_range(n_cols, "n_cols", 0, 64)
    return _valid_orderings_cached(n_rows, n_cols)


def valid_orderings_by_permutation(n_rows: int, n_cols: int) -> np.ndarray:
    """The same set as :func:`valid_orderings`, from every total order of the items."""
    n = n_rows + n_cols
    _guard(math.factorial(n), "the total orders of the items")
    mats = []
    for order in itertools.permutations(range(n)):
        position = np.empty(n, dtype=np.int64)
        position[list(order)] = np.arange(n)
        mats.append((position[:n_rows][:, None] > position[n_rows:][None, :]).ravel())
    out = np.unique(np.array(mats, dtype=np.int8).reshape(-1, n_rows * n_cols), axis=0)
    return out.reshape(-1, n_rows, n_cols)


def _pap_inputs(y_true: Any, y_score: Any, k: int, ranked: bool = False):
    """Positive and negative scores (ranked exactly with ``ranked``: the risk compares
    scores only), ``k`` checked, and β = min(n₊, k)."""
    y, s = (_ranked_inputs if ranked else _inputs)(y_true, y_score)
    n_pos, n_neg = require_classes(y)
    k = check_int_in_range(k, "k", 1, n_neg, "the number of irrelevant items n₋")
    return s[y == 1], s[y == 0], k, min(n_pos, k)


def _guard_top_sets(n_pos: int, beta: int, n_neg: int, k: int) -> None:
    """Refuse an enumeration of the top-β positive and top-k negative sets that is too
    large (before any of it starts)."""
    _guard(math.comb(n_pos, beta) + math.comb(n_neg, k)
           + math.comb(n_pos, beta) * math.comb(n_neg, k), "the top-β and top-k sets")


def _valid_top_sets(values: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """Subsets of ``size`` indices that some sorting permutation ranks first."""
    out = []
    for c in _subsets(len(values), size):
        inside = np.zeros(len(values), dtype=bool)
        inside[list(c)] = True
        if size == len(values) or values[inside].min() >= values[~inside].max():
            out.append(c)
    return out


def pap_risk(y_true: Any, y_score: Any, k: int) -> float:
    """pAp@k risk, Hiranandani et al. 2020 eq. (1).

    (1/(βk)) Σ_{i ≤ β} Σ_{j ≤ k} 1[s⁺_(i) <= s⁻_(j)] over the top-β positives and top-k
    negatives. Every choice of those sets allowed by ties is enumerated and the largest
    risk returned (all choices agree: the sets' score multisets do not depend on it).
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k, ranked=True)
    _guard_top_sets(len(pos), beta, len(neg), k)
    worst = 0.0
    for zp in _valid_top_sets(pos, beta):
        for zn in _valid_top_sets(neg, k):
            errors = sum(pos[i] <= neg[j] for i in zp for j in zn)
            worst = max(worst, errors / (beta * k))
    return worst


def _pair_margins(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """M[i, j] = 1 + s⁻_j − s⁺_i: the loss-augmented score of one flipped pair."""
    return 1.0 + neg[None, :] - pos[:, None]


def pap_ramp(y_true: Any, y_score: Any, k: int) -> float:
    """Ramp surrogate, Hiranandani et al. 2020 eq. (8) (= eq. (6)).

    max over Z₋ ⊆ S₋ (|Z₋| = k) of min over Z₊ ⊆ S₊ (|Z₊| = β) of max over valid
    π ∈ Π_{β×k} of (1/(βk)) [Σ π_ij − Σ_i p_i s_i + Σ_j q_j s_j], p and q the row and
    column sums of π.
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k)
    pis = valid_orderings(beta, k).astype(np.float64)
    _guard(math.comb(len(neg), k) * math.comb(len(pos), beta) * len(pis), "pap_ramp")
    best = -np.inf
    for zn in _subsets(len(neg), k):
        worst_pos = np.inf
        for zp in _subsets(len(pos), beta):
            m = _pair_margins(pos[list(zp)], neg[list(zn)])
            worst_pos = min(worst_pos, float(np.max(np.einsum("pij,ij->p", pis, m))))
        best = max(best, worst_pos)
    return best / (beta * k)


def pap_avg(y_true: Any, y_score: Any, k: int) -> float:
    """Avg surrogate, Hiranandani et al. 2020 eq. (10).

    max over Z₋ (|Z₋| = k) and valid π ∈ Π_{β×k} of
    (1/(βk)) [Σ π_ij + Σ π_ij s_{z_j} − mean(s⁺) Σ π_ij].
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k)
    pis = valid_orderings(beta, k).astype(np.float64)
    _guard(math.comb(len(neg), k) * len(pis), "pap_avg")
    mean_pos = float(pos.mean())
    best = -np.inf
    for zn in _subsets(len(neg), k):
        col = 1.0 + neg[list(zn)] - mean_pos
        best = max(best, float(np.max(np.einsum("pij,j->p", pis, col))))
    return best / (beta * k)


def pap_max(y_true: Any, y_score: Any, k: int) -> float:
    """Max surrogate: Hiranandani et al. 2020 eq. (9) with the max over Z₊ replaced by a min (its
    eq. (24)).

    max over Z₋ (|Z₋| = k) and valid π ∈ Π_{β×k} of (1/(βk)) [Σ π_ij + Σ_j q_j s_{z_j} −
    min over ordered Z₊ = (z⁺_1..z⁺_β) of Σ_i p_i s_{z⁺_i}].
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k)
    pis = valid_orderings(beta, k).astype(np.float64)
    ordered = np.array(list(itertools.permutations(range(len(pos)), beta)), dtype=np.int64)
    _guard(math.comb(len(neg), k) * len(pis) * len(ordered), "pap_max")
    p = pis.sum(axis=2)  # (m, β) row sums
    q = pis.sum(axis=1)  # (m, k) column sums
    pos_sums = p @ pos[ordered].T  # (m, #ordered): Σ_i p_i s_{z_i}
    min_pos = pos_sums.min(axis=1)
    best = -np.inf
    for zn in _subsets(len(neg), k):
        value = pis.sum(axis=(1, 2)) + q @ neg[list(zn)] - min_pos
        best = max(best, float(value.max()))
    return best / (beta * k)


def _full_struct_terms(pos: np.ndarray, zneg: np.ndarray, pis: np.ndarray) -> np.ndarray:
    """For each π ∈ Π_{n₊×k}: − Σ_i p_i s_i + Σ_j q_j s_j."""
    p = pis.sum(axis=2)
    q = pis.sum(axis=1)
    return q @ zneg - p @ pos


def pap_ts(y_true: Any, y_score: Any, k: int) -> float:
    """Tight-struct (TS) surrogate, Hiranandani et al. 2020 eq. (14).

    max over Z₋ (|Z₋| = k) and valid π ∈ Π_{n₊×k} of (1/(βk)) [Σ_{i ≤ β} Σ_j π_{(i)_π, j}
    − Σ_i p_i s_i + Σ_j q_j s_j], where (i)_π is the i-th positive in an order consistent
    with π: the first term is the sum of the β smallest row sums of π (a positive with
    fewer negatives above it ranks higher; ties do not change the sum).
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k)
    pis = valid_orderings(len(pos), k).astype(np.float64)
    _guard(math.comb(len(neg), k) * len(pis), "pap_ts")
    loss = np.sort(pis.sum(axis=2), axis=1)[:, :beta].sum(axis=1)
    best = -np.inf
    for zn in _subsets(len(neg), k):
        best = max(best, float(np.max(loss + _full_struct_terms(pos, neg[list(zn)], pis))))
    return best / (beta * k)


def pauc_struct(y_true: Any, y_score: Any, k: int) -> float:
    """Structural pAUC(0, k/n₋] bound (the SVM-pAUC baseline of Hiranandani et al. 2020 Section 7).

    max over Z₋ (|Z₋| = k) and valid π ∈ Π_{n₊×k} of (1/(n₊k)) [Σ π_ij − Σ_i p_i s_i +
    Σ_j q_j s_j]: Hiranandani et al. 2020 eq. (4) restricted to the top-k negatives.
    """
    pos, neg, k, _ = _pap_inputs(y_true, y_score, k)
    pis = valid_orderings(len(pos), k).astype(np.float64)
    _guard(math.comb(len(neg), k) * len(pis), "pauc_struct")
    loss = pis.sum(axis=(1, 2))
    best = -np.inf
    for zn in _subsets(len(neg), k):
        best = max(best, float(np.max(loss + _full_struct_terms(pos, neg[list(zn)], pis))))
    return best / (len(pos) * k)


def pap_ts_paper(y_true: Any, y_score: Any, k: int) -> float:
    """What Algorithm 2 of Hiranandani et al. 2020 (lines 10-12) computes for the TS
    surrogate, by its definition: over the top-k negatives ``z_j`` and the positives ranked
    by score, ``(1/(βk)) Σ_j [Σ_{i ≤ β} (1 + z_j − s_(i))₊ + Σ_{i > β} (z_j − s_(i))₊]``.

    Every choice of the top-k negatives and of the top-β positives that ties allow is
    enumerated and the largest value returned (all choices agree: the sums depend on the
    sets' scores only).
    """
    pos, neg, k, beta = _pap_inputs(y_true, y_score, k)
    _guard_top_sets(len(pos), beta, len(neg), k)
    worst = -np.inf
    for zp in _valid_top_sets(pos, beta):
        top = np.zeros(len(pos), dtype=bool)
        top[list(zp)] = True
        for zn in _valid_top_sets(neg, k):
            total = 0.0
            for j in zn:
                total += sum(max(0.0, 1.0 + neg[j] - pos[i]) for i in np.flatnonzero(top))
                total += sum(max(0.0, neg[j] - pos[i]) for i in np.flatnonzero(~top))
            worst = max(worst, total / (beta * k))
    return float(worst)

"""Hypothesis strategies for top-of-list code: the instances that break it.

Every strategy favours the cases where implementations of precision@k, pAp@k and their
surrogates usually go wrong: tied scores straddling the cut (one relevant and one
irrelevant item at the k-th score), tie-heavy score grids, scores spanning 10^-100 to
10^100, a single relevant item, ``k`` at its bounds (1 and n₊ or n₋), and fractional κ
whose product with n₊ is not an integer (Kar et al. 2015's prec@κ, ``k = ceil(κ·n₊)``).

The ``"cvxtop"`` profile (:data:`PROFILE`: 200 examples, derandomized, no deadline) makes a
suite reproducible: ``settings.load_profile("cvxtop")`` in a ``conftest.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from ..cutoff import ceil_fraction, is_fraction, pap_cutoff, prec_cutoff

__all__ = ["PROFILE", "RankedList", "GroupedLists", "RankingProblem", "CutoffCase",
           "DECIMAL_TRAPS", "ranked_lists", "grouped_lists", "ranking_problems", "cutoff_cases"]

#: Name of the registered settings profile: 200 examples, derandomized (the same examples on
#: every run), no deadline (the enumerations of :mod:`cvxtop.reference` are slow).
PROFILE = "cvxtop"
settings.register_profile(PROFILE, max_examples=200, derandomize=True, deadline=None)

FAMILIES = ("prec", "pap", "metric")
#: κ values whose product with a count is not an integer in floating point as written
#: (0.55·100 is 55.00000000000001) next to ones that are
_DECIMAL_KAPPAS = (0.1, 0.2, 0.25, 0.3, 1 / 3, 0.5, 0.55, 0.7, 0.9, 1.0)


def _decimal_traps() -> tuple[tuple[float, int], ...]:
    """(κ, n₊) with two-decimal κ where the ceiling of the floating-point product differs
    from the ceiling of the decimal product (0.55 of 100: 56 against 55; the smallest n₊
    with such a κ is 25)."""
    traps = []
    for n_pos in (25, 50, 100, 200, 1000):
        for hundredths in range(1, 100):
            kappa = hundredths / 100
            if math.ceil(kappa * n_pos) != ceil_fraction(kappa, n_pos):
                traps.append((kappa, n_pos))
    return tuple(traps)


#: the cut-offs where floating point's κ·n₊ and the decimal rule disagree
DECIMAL_TRAPS = _decimal_traps()


@dataclass(frozen=True)
class RankedList:
    """One scored list: 0/1 labels ``y``, scores ``s`` and a cut-off ``k`` valid for the
    family (an int, or a float κ for prec@κ)."""

    y: np.ndarray
    s: np.ndarray
    k: int | float
    family: str

    @property
    def n_pos(self) -> int:
        return int(self.y.sum())

    @property
    def n_neg(self) -> int:
        return len(self.y) - self.n_pos

    @property
    def cutoff(self) -> int:
        """``k`` as an int: ``ceil(κ·n₊)`` for a float κ (:func:`cvxtop.cutoff.prec_cutoff`)."""
        if self.family == "pap":
            return pap_cutoff(self.k, self.n_neg)
        if self.family == "prec":
            return prec_cutoff(self.k, self.n_pos)
        return int(self.k)


@dataclass(frozen=True)
class GroupedLists:
    """Several lists in one array: ``groups`` holds a list id per item; ``k`` is valid for
    every list (single-item lists only for ``family="metric"``, with
    ``skip_degenerate=True``)."""

    y: np.ndarray
    s: np.ndarray
    groups: np.ndarray
    k: int | float
    family: str


@dataclass(frozen=True)
class CutoffCase:
    """A prec@k cut-off to resolve: ``k`` (an int count or a fraction κ) on a list with
    ``n_pos`` relevant items."""

    k: int | float
    n_pos: int


@dataclass(frozen=True)
class RankingProblem:
    """A training problem ``½‖w‖² + C·L(y, Xw)`` for an optimizer under test."""

    X: np.ndarray
    y: np.ndarray
    surrogate: str
    k: int | float
    C: float


def _check_family(family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")


@st.composite
def _labels(draw: Any, family: str, max_items: int, one_relevant: bool = False,
            min_items: int = 1) -> np.ndarray:
    n_pos = 1 if one_relevant else draw(st.one_of(st.just(1), st.integers(1, max_items - 1)))
    low = max(1 if family in ("pap", "metric") else 0, min_items - n_pos)
    n_neg = draw(st.integers(low, max(low, max_items - n_pos)))
    order = draw(st.permutations(range(n_pos + n_neg)))
    return np.array([1] * n_pos + [0] * n_neg, dtype=np.int64)[list(order)]


@st.composite
def _cutoff(draw: Any, family: str, y: np.ndarray, kappa: bool) -> int | float:
    n_pos, n = int(y.sum()), len(y)
    bound = {"prec": n_pos, "pap": n - n_pos, "metric": n}[family]
    k = st.one_of(st.sampled_from([1, bound]), st.integers(1, bound))
    if family == "prec" and kappa:
        whole = draw(st.integers(0, n_pos - 1))
        fraction = draw(st.floats(0.05, 0.95))
        k = st.one_of(k, st.just(min(1.0, (whole + fraction) / n_pos)),
                      st.sampled_from(_DECIMAL_KAPPAS))
    return draw(k)


@st.composite
def _scores(draw: Any, y: np.ndarray, cut: int) -> np.ndarray:
    n = len(y)
    kind = draw(st.sampled_from(["tie at the cut", "grid", "magnitudes", "distinct"]))
    if kind == "grid":
        return np.array(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)),
                        dtype=np.float64) / 2.0
    if kind == "magnitudes":
        exponents = np.array(draw(st.lists(st.integers(-100, 100), min_size=n, max_size=n)))
        signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n,
                                       max_size=n)))
        return signs * 10.0 ** exponents.astype(np.float64)
    ranks = np.array(draw(st.permutations(range(n))), dtype=np.float64)
    s = n - ranks  # distinct scores, the item of rank r (0-based) scoring n − r
    if kind == "tie at the cut" and 0 < y.sum() < n:
        # one relevant and one irrelevant item share the score of the cut (the k-th highest)
        at_cut = float(n - min(cut, n) + 1)
        s[draw(st.sampled_from(np.flatnonzero(y == 1).tolist()))] = at_cut
        s[draw(st.sampled_from(np.flatnonzero(y == 0).tolist()))] = at_cut
    return s


def _shape_options(dtype: Any, sign: str, tie_rate: float | None,
                   score_range: tuple[float, float] | None) -> np.dtype:
    """Check the options that shape the scores; the dtype."""
    if sign not in ("any", "positive", "nonnegative"):
        raise ValueError(f"sign must be 'any', 'positive' or 'nonnegative', got {sign!r}")
    if tie_rate is not None and not 0.0 <= tie_rate <= 1.0:
        raise ValueError(f"tie_rate must be None or in [0, 1], got {tie_rate!r}")
    if score_range is not None:
        low, high = (score_range if isinstance(score_range, tuple) and len(score_range) == 2
                     else (None, None))
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                   and math.isfinite(v) for v in (low, high)) or not low < high:
            raise ValueError(f"score_range must be a pair (low, high) of finite numbers with "
                             f"low < high, got {score_range!r}")
        if sign != "any":
            raise ValueError("give sign or score_range, not both: the range sets the sign")
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"dtype must be a floating dtype, got {dtype}")
    return dtype


def _shaped(draw: Any, s: np.ndarray, dtype: np.dtype, sign: str, tie_rate: float | None,
            score_range: tuple[float, float] | None = None) -> np.ndarray:
    """Scores with a share of copies (``tie_rate``), moved to the sign or spread over the
    range asked for (order and ties kept), in ``dtype`` (whose rounding may tie more, and
    whose range holds the magnitudes at its largest value: those draws are kept, they are
    what a float32 library meets)."""
    n = len(s)
    if tie_rate is not None and n > 1:
        for i in range(n):
            if draw(st.floats(0.0, 1.0)) < tie_rate:
                s[i] = s[draw(st.integers(0, n - 1))]
    if sign != "any" or score_range is not None:
        _, rank = np.unique(s, return_inverse=True)  # 0 for the smallest score
        s = rank.astype(np.float64) + (1.0 if sign == "positive" else 0.0)
        if score_range is not None:
            low, high = score_range
            s = low + (high - low) * s / max(1.0, float(s.max()))
    largest = float(np.finfo(dtype).max)  # 1e100 is no float32: its largest, tied
    return np.clip(s, -largest, largest).astype(dtype)


@st.composite
def ranked_lists(draw: Any, family: str = "prec", *, max_items: int = 10,
                 min_items: int = 1, kappa: bool = True, dtype: Any = np.float64,
                 sign: str = "any", tie_rate: float | None = None,
                 one_relevant: bool = False,
                 score_range: tuple[float, float] | None = None) -> RankedList:
    """A :class:`RankedList` for ``family``: ``"prec"`` (``1 <= k <= n₊`` or a float κ in
    (0, 1] when ``kappa``), ``"pap"`` (``1 <= k <= n₋``, at least one of each class) or
    ``"metric"`` (both classes, ``1 <= k <= n``).

    The scores are drawn where code breaks (ties at the cut, grids, magnitudes from 1e-100
    to 1e100), then shaped as the library under test takes them: ``dtype`` (float32 makes
    more ties, kept), ``sign`` (``"positive"`` or ``"nonnegative"``: the same order and
    ties on ranks from 1 or 0, for libraries that drop items scored ``<= 0``),
    ``tie_rate`` (the share of items that copy another's score); ``one_relevant`` draws
    exactly one relevant item (hit@k, top-k accuracy); ``min_items`` and ``max_items``
    bound the list's size (libraries change behaviour with it). From ``max_items >= 25``,
    a quarter of the ``"prec"`` draws with ``kappa`` are the decimal traps of
    :data:`DECIMAL_TRAPS` (κ = 0.55 of n₊ = 100), where ``ceil(κ·n₊)`` in floating point
    is one more than the decimal rule of Kar et al. 2015's prec@κ.
    """
    _check_family(family)
    dtype = _shape_options(dtype, sign, tie_rate, score_range)
    if not 1 <= min_items <= max(2, max_items):
        raise ValueError(f"min_items must be in [1, max_items], got {min_items!r}")
    traps = [t for t in DECIMAL_TRAPS if t[1] <= max_items and not one_relevant]
    if family == "prec" and kappa and traps and draw(st.integers(0, 3)) == 0:
        k, n_pos = draw(st.sampled_from(traps))  # κ where float's κ·n₊ is off (0.55 of 100)
        n_neg = draw(st.integers(max(0, min_items - n_pos), max_items - n_pos))
        y = np.array([1] * n_pos + [0] * n_neg, dtype=np.int64)[
            list(draw(st.permutations(range(n_pos + n_neg))))]
    else:
        y = draw(_labels(family, max(2, max_items), one_relevant, min_items))
        k = draw(_cutoff(family, y, kappa))
    cut = prec_cutoff(k, int(y.sum())) if is_fraction(k) else int(k)
    s = _shaped(draw, draw(_scores(y, cut)), dtype, sign, tie_rate, score_range)
    return RankedList(y, s, k, family)


@st.composite
def score_matrices(draw: Any, *, max_queries: int = 4, max_items: int = 8,
                   dtype: Any = np.float64, sign: str = "any",
                   tie_rate: float | None = None,
                   score_range: tuple[float, float] | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Equal-length lists as matrices ``(Y, S)`` of shape ``(queries, items)``, each row
    with both classes: the 2-D inputs of scikit-learn's ``ndcg_score`` and of batched
    retrieval metrics (scores shaped as :func:`ranked_lists`)."""
    dtype = _shape_options(dtype, sign, tie_rate, score_range)
    queries = draw(st.integers(1, max_queries))
    items = draw(st.integers(2, max(2, max_items)))
    Y, S = [], []
    for _ in range(queries):
        n_pos = draw(st.integers(1, items - 1))
        order = draw(st.permutations(range(items)))
        y = np.array([1] * n_pos + [0] * (items - n_pos), dtype=np.int64)[list(order)]
        Y.append(y)
        S.append(_shaped(draw, draw(_scores(y, draw(st.integers(1, items)))),
                         dtype, sign, tie_rate, score_range))
    return np.stack(Y), np.stack(S)


@st.composite
def grouped_lists(draw: Any, family: str = "metric", *, max_groups: int = 4,
                  max_items: int = 6, singletons: bool = True) -> GroupedLists:
    """Lists of ``family`` concatenated with a group id per item, one cut-off valid for
    each; for ``"metric"`` with ``singletons``, some lists hold a single item (defined for
    no ranking metric: skipped with ``skip_degenerate=True``)."""
    _check_family(family)
    count = draw(st.integers(1, max_groups))
    lists = [draw(ranked_lists(family, max_items=max_items, kappa=False))
             for _ in range(count)]
    bound = min({"prec": r.n_pos, "pap": r.n_neg, "metric": len(r.y)}[family] for r in lists)
    k: int | float = draw(st.one_of(st.sampled_from([1, bound]), st.integers(1, bound)))
    if family == "prec" and draw(st.booleans()):
        k = draw(st.sampled_from(_DECIMAL_KAPPAS))
    ys, ss = [r.y for r in lists], [r.s for r in lists]
    if family == "metric" and singletons:
        for _ in range(draw(st.integers(0, 2))):
            ys.append(np.array([draw(st.integers(0, 1))]))
            ss.append(np.array([draw(st.floats(-10, 10))]))
    groups = np.concatenate([np.full(len(part), g) for g, part in enumerate(ys)])
    order = np.array(draw(st.permutations(range(len(groups)))), dtype=np.int64)
    return GroupedLists(np.concatenate(ys)[order], np.concatenate(ss)[order], groups[order],
                        k, family)


@st.composite
def ranking_problems(draw: Any, surrogate: str = "prec@k-avg", *, max_items: int = 30,
                     max_features: int = 4) -> RankingProblem:
    """A small training problem: features scaled by 10^-3 to 10^3 (and ``C`` by the inverse
    square, which poses the same problem), ``C`` from 0.01 to 100, a cut-off valid for
    ``surrogate``'s family (a fractional κ included for prec@k)."""
    family = "pap" if surrogate.startswith(("pap", "pauc")) else "prec"
    n_pos = draw(st.integers(1, max_items // 2))
    n_neg = draw(st.integers(1, max_items - n_pos))
    d = draw(st.integers(1, max_features))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)]
    scale = 10.0 ** draw(st.integers(-3, 3))
    X = (rng.standard_normal((len(y), d)) + draw(st.floats(0.0, 2.0)) * y[:, None]) * scale
    k = draw(_cutoff(family, y, kappa=True))
    C = 10.0 ** draw(st.integers(-2, 2)) / scale ** 2
    return RankingProblem(X, y, surrogate, k, C)


@st.composite
def cutoff_cases(draw: Any, max_pos: int = 1000) -> CutoffCase:
    """prec@k cut-offs (:class:`CutoffCase`) where cut-off code goes wrong: the cases of
    :data:`DECIMAL_TRAPS` (floating point's ``κ·n₊`` on the wrong side of an integer:
    0.55 of 100), κ at and near 1 and below ``1/n₊`` (the floor at 1), one- to
    three-decimal κ on counts that are multiples of 25, random κ, and ints at their bounds
    ``1`` and ``n₊`` (``n₊`` up to ``max_pos``)."""
    kind = draw(st.sampled_from(["trap", "decimal", "edge", "random", "int"]))
    if kind == "trap":
        kappa, n_pos = draw(st.sampled_from([t for t in DECIMAL_TRAPS if t[1] <= max_pos]
                                            or [(1.0, 1)]))
        return CutoffCase(kappa, n_pos)
    n_pos = draw(st.one_of(st.integers(1, max_pos),
                           st.integers(1, max(1, max_pos // 25)).map(lambda m: 25 * m)))
    if kind == "int":
        return CutoffCase(draw(st.one_of(st.sampled_from([1, n_pos]), st.integers(1, n_pos))),
                          n_pos)
    if kind == "decimal":
        digits = draw(st.integers(1, 3))
        kappa = draw(st.integers(1, 10 ** digits)) / 10 ** digits
    elif kind == "edge":
        kappa = draw(st.sampled_from([1.0, 1 - 1e-9, 0.5 / n_pos, 1 / n_pos, 1e-6]))
    else:
        kappa = draw(st.floats(1e-6, 1.0, exclude_min=False))
    return CutoffCase(kappa, n_pos)

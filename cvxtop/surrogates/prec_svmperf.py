"""SVMperf's prec@k loss (Joachims 2005), the baseline of Kar et al. 2015's experiments.

Joachims' structural SVM for prec@k maximizes over labelings ``ŷ`` that predict *at least*
``k`` items, with loss ``Δ = 100·(1 − precision(ŷ))``, and its slack is never negative. On the
loss scale of Kar et al. 2015 eq. (1) (``Δ`` divided by ``100/k``, scores in 0/1 coding),
with ``a`` relevant and ``b`` irrelevant items predicted (``m = a + b``):

    L(s) = max(0, max_{a + b >= k, b >= 1} k·b/(a + b) + sum_largest(s⁺, a) − Σs⁺
                                                + sum_largest(s⁻, b)).

Labelings without an irrelevant item (``b = 0``) have loss 0; SVMperf skips them (its
search keeps only labelings of positive loss) and so does this surrogate. Two differences
from the struct surrogate of Kar et al. 2015 eq. (3): eq. (3) fixes ``‖ŷ‖₁ = k`` (so
``ŷ = y`` is not a candidate when ``k < n₊`` and the surrogate is unbounded below, while
here ``ŷ`` may predict more than ``k`` items and the zero floor bounds it), and eq. (3)
weights a wrong item by 1 where this one weights it by ``k/m``.

For a fixed ``a`` the objective is concave in ``b``: its increment
``k·a/((a+b)(a+b+1)) + s⁻_(b+1)`` decreases with ``b``. So the best ``b`` for every ``a`` is
found by bisection on the increments, vectorized over ``a``: one sort of each class and
``O(n₊ log n₋)`` further work, where SVMperf scans all ``(a, b)`` pairs.

The mapping to SVMperf (``svm_perf_learn -l 4 --b 0 --p p -c C_perf``): SVMperf's labels are
``±50/n`` and its objective is ``½‖w‖² + C_perf·ξ``, so with ``k = max(1, floor(p·n₊))`` its
problem is this surrogate's with ``C = 100·k·C_perf/n²``, and SVMperf's weight vector is
``(n/k)`` times cvxtop's.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .. import reference
from .base import Bound, PrecSurrogate
from .prec import _highest
from .registry import register

__all__ = ["PrecSvmperf", "count_pieces", "svmperf_c"]


def svmperf_c(c_perf: float, k: int, n: int) -> float:
    """cvxtop's ``C`` for SVMperf's ``-c c_perf`` with cut-off ``k`` on ``n`` items:
    ``100·k·c_perf/n²`` (see the module docstring)."""
    return 100.0 * k * c_perf / n ** 2


def _increments(a: np.ndarray, b: np.ndarray, k: int, s_neg_desc: np.ndarray) -> np.ndarray:
    """``δ(b) = k·a/((a+b)(a+b+1)) + s⁻_(b+1)``, the gain of one more irrelevant item."""
    m = a + b
    return k * a / (m * (m + 1.0)) + s_neg_desc[np.minimum(b, len(s_neg_desc) - 1)]


def _bisect_negative_counts(a: np.ndarray, low: np.ndarray, k: int,
                            s_neg_desc: np.ndarray) -> np.ndarray:
    """For each ``a``, the first ``b`` in ``[low, n₋]`` with ``δ(b) <= 0`` (the maximizer of
    the concave ``k·b/(a + b) + sum_largest(s⁻, b)`` there), by bisection.

    The search starts inside a window common to every ``a``: ``δ(b) > 0`` wherever
    ``s⁻_(b+1) > 0``, and ``δ(b) < k/(4b) + s⁻_(b+1)`` for ``b >= 1`` (as
    ``(a+b)² >= 4ab``), so the answer lies between the count of positive negative scores
    and the first ``b`` with ``s⁻_(b+1) <= −k/(4b)`` (clipped to ``[low, n₋]``).
    """
    n_neg = len(s_neg_desc)
    positive = int(np.count_nonzero(s_neg_desc > 0))
    b = np.arange(1, n_neg)
    below = np.flatnonzero(s_neg_desc[1:] <= -k / (4.0 * b))
    ceiling = int(b[below[0]]) if len(below) else n_neg
    lo = np.maximum(low, min(positive, ceiling))
    hi = np.maximum(lo, ceiling)
    # a window of width w has width at most w // 2 after a step, so the widest one fixes
    # the number of steps; closed windows (lo = hi, possibly n₋) are left as they are
    for _ in range(int(np.max(hi - lo, initial=0)).bit_length()):
        open_ = lo < hi
        mid = (lo + hi) // 2  # < n₋ where the window is open
        stop = _increments(a, mid, k, s_neg_desc) <= 0
        hi = np.where(open_ & stop, mid, hi)
        lo = np.where(open_ & ~stop, mid + 1, lo)
    return lo


def _best_negative_counts(a: np.ndarray, low: np.ndarray, k: int, s_neg_desc: np.ndarray,
                          q_ascending: np.ndarray | None = None) -> np.ndarray:
    """For each ``a``, the ``b`` in ``[low, n₋]`` maximizing
    ``k·b/(a + b) + sum_largest(s⁻, b)``: the first ``b >= low`` whose increment ``δ(b)``
    is not positive (``δ`` decreases in ``b``).

    All ``a`` at once, without a search per ``a``: for ``s⁻_(b+1) >= 0`` every ``a >= 1``
    has ``δ(b) > 0``; for ``q = −s⁻_(b+1) > 0``, ``δ(b) > 0`` is
    ``q·A² + (q − k)·A + k·b < 0`` in ``A = a + b``, an open interval of ``A`` between the
    roots ``(k − q ∓ r)/(2q)``, ``r² = (k − q)² − 4qkb`` (empty without real roots). In ``a``
    the interval is ``(L_b, U_b)`` with ``U_b = (k − q + r)/(2q) − b`` and, since the roots'
    product is ``k·b/q``, ``L_b = b·(k + q − r)/(k − q + r)``. Both are monotone in ``b``:
    ``q`` does not fall and ``r`` does not rise as ``b`` grows, so ``U_b`` falls and
    ``L_b`` rises (and the ``b`` with real roots are a prefix). The first ``b`` whose
    interval misses ``a`` is therefore the first with ``L_b >= a`` or ``U_b <= a``: two
    ``searchsorted`` calls, where a bisection per ``a`` costs ``log n₋`` passes over every
    ``a``. Roots are rounded, so each answer is checked against the increments themselves
    (``δ(b − 1) > 0 >= δ(b)``) and the few that fail, at near-ties, are found by bisection.
    ``q_ascending`` is ``−s_neg_desc`` when the caller has it.
    """
    q_all = -s_neg_desc if q_ascending is None else q_ascending
    zero_or_more = int(np.searchsorted(q_all, 0.0, "right"))  # s >= 0
    positive = int(np.searchsorted(q_all, 0.0, "left"))  # s > 0
    # past q >= k, or where the discriminant (falling in b) is not positive, δ(b) <= 0 for
    # every a
    q = q_all[zero_or_more:int(np.searchsorted(q_all, k, "left"))]
    b = np.arange(zero_or_more, zero_or_more + len(q), dtype=np.float64)
    kq = k - q
    disc = kq * kq
    disc -= (4.0 * k) * (q * b)
    dead = disc <= 0
    if dead.any():
        live = int(np.argmax(dead))
        q, b, kq, disc = q[:live], b[:live], kq[:live], disc[:live]
    root = np.sqrt(disc)
    outer = kq + root  # 2q times the upper root
    # a subnormal q puts the root past float64's range: −U_b = −∞ is the right limit (the
    # interval reaches every a), and the answers are checked below
    with np.errstate(over="ignore", divide="ignore"):
        upper_neg = b - outer / (2.0 * q)  # −U_b, rising
    first_low = np.searchsorted(upper_neg, -a, "left")
    # L_b rises, so where its last value is below the smallest a >= 1 no a >= 1 reaches it
    # (a = 0 is set apart below): the usual case, with scores small against k
    last = len(q) - 1
    if last < 0 or (k + q[last] - root[last]) * b[last] / outer[last] < 1.0:
        first_high = len(q)
    else:
        lower = (k + q - root) * b / outer  # L_b, rising
        first_high = np.searchsorted(lower, a, "left")
    count = np.maximum(low, np.where(a == 0, positive,
                                     zero_or_more + np.minimum(first_high, first_low)))
    return _checked_counts(count, a, low, k, s_neg_desc)


def _checked_counts(count: np.ndarray, a: np.ndarray, low: np.ndarray, k: int,
                    s_neg_desc: np.ndarray) -> np.ndarray:
    """``count`` where it is the first ``b >= low`` with ``δ(b) <= 0`` as the increments
    themselves say (``δ(b − 1) > 0 >= δ(b)``); the bisection's answer where it is not."""
    with np.errstate(invalid="ignore"):  # a = 0 with count − 1 = 0 is masked by count > low
        wrong = ((count > low) & (_increments(a, count - 1, k, s_neg_desc) <= 0)) \
            | ((count < len(s_neg_desc)) & (_increments(a, count, k, s_neg_desc) > 0))
    if wrong.any():
        count = count.copy()
        count[wrong] = _bisect_negative_counts(a[wrong], low[wrong], k, s_neg_desc)
    return count


def count_pieces(b: Bound, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every count ``a`` of relevant items a labeling may predict (with room for
    ``max(1, k − a)`` irrelevant ones), the best count ``b`` of irrelevant items and the
    value of that count's piece, ``max_b k·b/(a + b) + sum_largest(s⁺, a) − Σs⁺ +
    sum_largest(s⁻, b)``; the loss is the largest of 0 and these (module docstring)."""
    k = b.k
    # sorted values: a value sort is several times cheaper than ordering the items
    pos_sums = np.concatenate(([0.0], np.cumsum(-np.sort(-s[b.pos]))))
    q_ascending = np.sort(-s[b.neg])
    neg_desc = -q_ascending
    neg_sums = np.concatenate(([0.0], np.cumsum(neg_desc)))
    a = np.arange(b.n_pos + 1)
    low = np.maximum(1, k - a)
    a, low = a[low <= b.n_neg], low[low <= b.n_neg]
    count = _best_negative_counts(a, low, k, neg_desc, q_ascending)
    return a, count, k * count / (a + count) + (pos_sums[a] - pos_sums[-1]) + neg_sums[count]


@register
class PrecSvmperf(PrecSurrogate):
    """SVMperf's prec@k loss (Joachims 2005), on the loss scale of Kar et al. 2015 eq. (1).

    ``max(0, max over ŷ with ‖ŷ‖₁ = m >= k and b >= 1 irrelevant items of k·b/m +
    (ŷ − y)·s)``; see the module docstring for the closed form, the differences from
    Kar et al. 2015 eq. (3) and the mapping to SVMperf's ``-c``. Convex (a maximum of affine
    functions of ``s``). Subgradient: the maximizing labeling's ``ŷ − y`` (zero when the
    floor is active).
    """

    name: ClassVar[str] = "prec@k-svmperf"
    convex: ClassVar[bool] = True
    dual_form: ClassVar[str | None] = "box-hinge"
    definition = staticmethod(reference.prec_svmperf)

    def dcp_size(self, n_pos: int, n_neg: int) -> int:
        n = n_pos + n_neg
        return n * (n + 2)  # one LP dual of n + 2 variables per labeling size m = k..n

    @property
    def exact_intercepts(self) -> bool:
        return True

    def intercept_of(self, g: np.ndarray, irrelevant: np.ndarray, k: int) -> float | None:
        """``k·b/(a + b)``, the intercept of the labeling whose ``ŷ − y`` is ``g``, from its
        counts: ``b = Σ_{y=0} g`` irrelevant and ``a = n₊ + Σ_{y=1} g`` relevant items
        predicted (0 for ``g = 0``, the floor). One rounding, whatever the scores' size,
        where ``L(s) − g·s`` loses the digits of the sums it is the difference of. ``None``
        when ``g`` is no such labeling's (entries other than 0 and 1 on the irrelevant
        items, 0 and −1 on the relevant ones, or counts the loss does not range over).
        Entries within 1e-9 of those count as them: with groups, a list's share of the
        mean's ``g`` times the number of lists is a labeling's up to that rounding."""
        relevant = np.ones(len(g), dtype=bool)
        relevant[irrelevant] = False
        labels = np.rint(g)
        if not np.allclose(g, labels, rtol=0.0, atol=1e-9):
            return None
        neg, pos = labels[~relevant], labels[relevant]
        if not (((neg == 0.0) | (neg == 1.0)).all() and ((pos == 0.0) | (pos == -1.0)).all()):
            return None
        b = int(np.count_nonzero(neg))
        a = len(pos) - int(np.count_nonzero(pos))
        if b == 0:
            return 0.0 if a == len(pos) else None
        return k * b / (a + b) if a + b >= k else None

    def _value_and_subgradient(self, b: Bound, s: np.ndarray) -> tuple[float, np.ndarray]:
        grad = np.zeros(len(s))
        if b.n_neg == 0:
            return 0.0, grad
        a, count, terms = count_pieces(b, s)
        best = int(np.argmax(terms))
        if terms[best] <= 0:
            return 0.0, grad
        # the items of the best labeling are picked by partition, ties in any order
        grad[_highest(b.neg, s[b.neg], int(count[best]))] = 1.0
        grad[_highest(b.pos, -s[b.pos], b.n_pos - int(a[best]))] = -1.0
        return float(terms[best]), grad

    def _expression(self, b: Bound, s: Any) -> tuple[Any, list]:
        """``τ >= 0`` and, for every labeling size ``m = k..n``, ``τ >=`` the LP dual of
        ``max {(s + (k/m)(1 − y))·ŷ : 0 <= ŷ <= 1, Σŷ = m, Σ_{y_i = 0} ŷ_i >= 1} − y·s``
        (the constraint matrix is an interval matrix, so the LP's optimum is a labeling):
        ``min_{t, r >= 0} m·t − r + Σ_i (s_i + (k/m + r)(1 − y_i) − t)₊``."""
        import cvxpy as cp

        if b.n_neg == 0:
            return cp.Constant(0.0), []
        n, k = b.n, b.k
        sizes = np.arange(k, n + 1, dtype=np.float64)
        irrelevant = (1.0 - b.y)[None, :]
        hinge = cp.Variable((len(sizes), n), nonneg=True)
        t = cp.Variable((len(sizes), 1))
        r = cp.Variable((len(sizes), 1), nonneg=True)
        tau = cp.Variable(nonneg=True)
        ones = np.ones((len(sizes), 1))
        scores = ones @ cp.reshape(s, (1, n), order="C")
        constraints = [
            hinge >= scores + (k / sizes)[:, None] * irrelevant - t @ np.ones((1, n))
            + r @ irrelevant,
            tau >= cp.multiply(sizes, cp.vec(t, order="F")) - cp.vec(r, order="F")
            + cp.sum(hinge, axis=1) - b.y.astype(np.float64) @ s,
        ]
        return tau, constraints

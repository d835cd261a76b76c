"""Cut-offs: the integer ``k`` behind a fraction, in one place for every family and command.

**The rule.** A fraction ``x`` of ``n`` items means the ``ceil(x·n)`` items at the top, with
``x·n`` computed exactly on the decimal number the user wrote: the shortest decimal that
reads back as ``x`` in ``x``'s own type (``repr`` for a Python float, the same digits numpy
prints for a ``float16``, ``float32``, ``float64`` or ``longdouble``), or ``x`` itself for
a :class:`fractions.Fraction`. So ``np.float32(0.1)`` and ``0.1`` both mean one tenth, and
every number type gives the same cut-off for the same written value. Floating point gets
the product wrong both ways otherwise: ``0.07 * 100`` is ``7.000000000000001`` and
``0.55 * 100`` is ``55.00000000000001`` (ceilings 8 and 56 where the decimal rule gives 7
and 55), and the binary value of ``np.float32(0.1)`` times 100 is ``10.000000149…``.

An int is a count, never a fraction; a bool is refused; so are NaN, infinities and
fractions outside their interval, and counts of items that are not non-negative ints.

The families' rules built on it (:func:`ceil_fraction`):

* prec@k (Kar et al. 2015): an int ``1 <= k <= n₊``, or a fraction κ in (0, 1] meaning
  ``max(1, ceil(κ·n₊))`` (prec@κ) — :func:`prec_cutoff`; on a mini-batch,
  :func:`batch_prec_cutoff`;
* pAp@k (Hiranandani et al. 2020): an int ``1 <= k <= n₋`` — :func:`pap_cutoff`;
* the τ-quantile (Boyd et al. 2012, Section 2): τ in (0, 1), the ``max(1, ceil(τ·n))``-th
  largest score — :func:`tau_cutoff`.
"""

from __future__ import annotations

import numbers
from functools import lru_cache
from typing import Any

import numpy as np

from ._validation import check_fraction, check_int_in_range, exact_decimal

__all__ = ["is_fraction", "exact_decimal", "ceil_fraction", "prec_cutoff",
           "batch_prec_cutoff", "pap_cutoff", "tau_cutoff", "CUTOFF_RULE"]

#: The rule in one sentence, for messages and docs.
CUTOFF_RULE = ("ceil(κ·n) computed exactly on the shortest decimal that reads back as κ in "
               "its own type (0.55 of 100 is 55, np.float32(0.1) of 100 is 10), at least 1")


def is_fraction(k: Any) -> bool:
    """Whether ``k`` is a fraction (a real number that is not an integer type): a Python or
    numpy float, or a :class:`fractions.Fraction`. Ints are counts; bools are neither."""
    return isinstance(k, numbers.Real) and not isinstance(k, (numbers.Integral, bool, np.bool_))


def _count(n: Any, name: str) -> int:
    """A number of items: a non-negative int (not a bool)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer (a number of items), got "
                        f"{type(n).__name__} {n!r}")
    if n < 0:
        raise ValueError(f"{name} must be a non-negative integer (a number of items), got {n}")
    return int(n)


@lru_cache(maxsize=4096, typed=True)
def _ceil_cached(x: Any, n: int) -> int:
    q = exact_decimal(x, "the fraction") * n
    return -((-q.numerator) // q.denominator)


def ceil_fraction(x: Any, n: int) -> int:
    """``ceil(x·n)`` for the decimal number written as ``x`` (module docstring), exactly:
    ``ceil_fraction(0.55, 100) == 55``. Memoized per type and value (a ``float32`` and a
    ``float`` of the same binary value are different decimals): a mini-batch run meets few
    distinct batch sizes, and the exact product is slow next to a batch."""
    return _ceil_cached(x, _count(n, "n"))


def prec_cutoff(k: Any, n_pos: int, name: str = "k") -> int:
    """prec@k's cut-off on a list with ``n_pos`` relevant items: an int in ``[1, n₊]``, or
    a fraction κ in (0, 1] meaning ``max(1, ceil(κ·n₊))``."""
    n_pos = _count(n_pos, "n_pos")
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int or a float in (0, 1], got a bool")
    if isinstance(k, numbers.Integral):
        return check_int_in_range(k, name, 1, n_pos, "the number of relevant items n₊")
    if not isinstance(k, numbers.Real):
        raise TypeError(f"{name} must be an int or a float in (0, 1], got "
                        f"{type(k).__name__} {k!r}")
    check_fraction(k, name, closed_right=True)
    if n_pos < 1:
        raise ValueError(f"{name} = {k!r} is a fraction of the relevant items, and there is "
                         "none (n₊ = 0): prec@κ needs n₊ >= 1")
    return max(1, ceil_fraction(k, n_pos))


def batch_prec_cutoff(k: Any, n_pos_total: int | None, n_pos: int) -> int | None:
    """prec@k's cut-off on a mini-batch with ``n_pos`` relevant items: ``ceil(κ·n₊(batch))``
    (at least 1) for a fraction κ; for an int ``k``, ``ceil(k·n₊(batch)/n₊)`` of the whole
    list's ``n_pos_total`` (``min(k, n₊(batch))`` on a stream, where it is unknown), never
    more than ``n₊(batch)``; ``None`` without a relevant item."""
    if n_pos == 0:
        return None
    if is_fraction(k):
        return min(n_pos, max(1, ceil_fraction(k, n_pos)))
    if n_pos_total is None:
        return min(int(k), n_pos)
    # ceil(k·n₊(batch)/n₊) in integers: through the float k/n₊ it can exceed k on the
    # whole list (5/6 rounds up, and 0.8333333333333334·6 > 5)
    return min(n_pos, max(1, -(-int(k) * n_pos // n_pos_total)))


def pap_cutoff(k: Any, n_neg: int, name: str = "k") -> int:
    """pAp@k's cut-off: an int in ``[1, n₋]``. A float is refused with the reason: it is
    prec@k's fraction κ, and the estimators' default ``k = 0.25`` is one, so a user who
    never passed ``k`` learns where it came from."""
    n_neg = _count(n_neg, "n_neg")
    if is_fraction(k):
        raise TypeError(f"{name} must be an integer, 1 <= {name} <= n₋ = {n_neg} (the "
                        f"irrelevant items at the top), for pAp@k, got {type(k).__name__} "
                        f"{k!r}: a float is a fraction κ of the relevant items, a cut-off "
                        "of the prec@k surrogates only (the default k = 0.25 is one)")
    return check_int_in_range(k, name, 1, n_neg, "the number of irrelevant items n₋")


@lru_cache(maxsize=256, typed=True)
def _checked_tau(tau: Any) -> None:
    check_fraction(tau, "tau")


def tau_cutoff(tau: Any, n: int) -> int:
    """Rank of the largest τ-quantile among ``n >= 1`` scores: ``max(1, ceil(τ·n))`` for τ
    in (0, 1). The check of ``τ`` is memoized per type and value, as the product is
    (:func:`ceil_fraction`): kernel AATP asks for the rank of every candidate, and the
    exact check took 3% of a fit on 400 items."""
    try:
        hash(tau)
    except TypeError:
        check_fraction(tau, "tau")  # (not a number: its own TypeError)
    _checked_tau(tau)
    if _count(n, "n") < 1:
        raise ValueError("n must be at least 1: the τ-quantile of no score is undefined")
    return max(1, ceil_fraction(tau, n))

"""Cut-offs: the integer ``k`` behind a fraction, in one place for every family and command.

A fraction ``x`` of ``n`` items means the ``ceil(x·n)`` items at the top. Floating point
gets that product wrong both ways (``0.3 * 10`` is ``3.0000000000000004``; the binary value
of ``0.1`` times 100,000 is just above 10,000), so every cut-off here is computed exactly on
the decimal number the user wrote (:func:`ceil_fraction`). The families' rules built on it:

* prec@k (Kar et al. 2015): an int ``1 <= k <= n₊``, or a float κ in (0, 1] meaning
  ``ceil(κ·n₊)`` (prec@κ) — :func:`prec_cutoff`;
* pAp@k (Hiranandani et al. 2020): an int ``1 <= k <= n₋`` — :func:`pap_cutoff`;
* the τ-quantile (Boyd et al. 2012, Section 2): the ``ceil(τ·n)``-th largest score —
  :func:`tau_cutoff`.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ._validation import check_fraction, check_int_in_range

__all__ = ["ceil_fraction", "prec_cutoff", "pap_cutoff", "tau_cutoff"]


@lru_cache(maxsize=4096)
def ceil_fraction(x: float, n: int) -> int:
    """``ceil(x·n)`` for the decimal number written as ``x`` (its shortest round-trip
    ``repr``), computed exactly: ``ceil_fraction(0.3, 10) == 3``. Memoized: a mini-batch
    run meets few distinct batch sizes, and the exact product is slow next to a batch."""
    q = Fraction(repr(float(x))) * n
    return -((-q.numerator) // q.denominator)


def prec_cutoff(k: Any, n_pos: int, name: str = "k") -> int:
    """prec@k's cut-off: an int in ``[1, n₊]``, or a float κ in (0, 1] meaning
    ``max(1, ceil(κ·n₊))``."""
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int or a float in (0, 1], got a bool")
    if isinstance(k, numbers.Integral):
        return check_int_in_range(k, name, 1, n_pos, "the number of relevant items n₊")
    if isinstance(k, numbers.Real):
        kappa = check_fraction(k, name, closed_right=True)
        return max(1, ceil_fraction(kappa, n_pos))
    raise TypeError(f"{name} must be an int or a float in (0, 1], got {type(k).__name__}")


def pap_cutoff(k: Any, n_neg: int, name: str = "k") -> int:
    """pAp@k's cut-off: an int in ``[1, n₋]``."""
    return check_int_in_range(k, name, 1, n_neg, "the number of irrelevant items n₋")


def tau_cutoff(tau: float, n: int) -> int:
    """Rank of the largest τ-quantile among ``n`` scores: ``max(1, ceil(τ·n))``."""
    return max(1, ceil_fraction(tau, n))

"""Sizes of the pAp@k surrogates' cvxpy forms (:mod:`._pap_dcp`), without importing cvxpy:
which of a pair-row form's two writings is smaller, and about how many auxiliary variables
it takes (``Surrogate.dcp_size``, which the solvers' size policies read)."""

from __future__ import annotations

__all__ = ["uses_levels", "size"]


def uses_levels(n_pos: int, n_neg: int, k: int, matrices: int = 1) -> bool:
    """Whether rows on k levels take fewer auxiliary variables than rows on the negatives:
    ``matrices·n₊·k + (k − 1)(n₋ + 1)`` against ``matrices·n₊·n₋``, for a form with
    ``matrices`` epigraph matrices (two for TS's ``a`` and ``b``)."""
    return matrices * n_pos * k + (k - 1) * (n_neg + 1) < matrices * n_pos * n_neg


def size(n_pos: int, n_neg: int, k: int, matrices: int = 1) -> int:
    """About the auxiliary variables of a pair-row form written the smaller way, with one
    per item for the scores and the rows."""
    k = min(k, n_neg)
    if uses_levels(n_pos, n_neg, k, matrices):
        pairs = matrices * n_pos * k + (k - 1) * (n_neg + 1)
    else:
        pairs = matrices * n_pos * n_neg
    return pairs + n_pos + n_neg

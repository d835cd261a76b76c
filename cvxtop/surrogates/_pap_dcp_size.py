"""Sizes of the pAp@k surrogates' cvxpy forms (:mod:`._pap_dcp`), without importing cvxpy:
which of a pair-row form's two writings is smaller, and about how many auxiliary variables
it takes (``Surrogate.dcp_size``, which the solvers' size policies read)."""

from __future__ import annotations

__all__ = ["uses_levels", "size"]


def _sizes(n_pos: int, n_neg: int, k: int, matrices: int) -> tuple[int, int]:
    """Auxiliary variables of the rows on k levels, ``matrices·n₊·k + (k − 1)(n₋ + 1)``, and
    on the negatives, ``matrices·n₊·n₋``, for a form with ``matrices`` epigraph matrices
    (two for TS's ``a`` and ``b``)."""
    return matrices * n_pos * k + (k - 1) * (n_neg + 1), matrices * n_pos * n_neg


def uses_levels(n_pos: int, n_neg: int, k: int, matrices: int = 1) -> bool:
    """Whether rows on k levels take fewer auxiliary variables than rows on the negatives."""
    on_levels, on_pairs = _sizes(n_pos, n_neg, k, matrices)
    return on_levels < on_pairs


def size(n_pos: int, n_neg: int, k: int, matrices: int = 1) -> int:
    """About the auxiliary variables of a pair-row form written the smaller way, with one
    per item for the scores and the rows."""
    return min(_sizes(n_pos, n_neg, min(k, n_neg), matrices)) + n_pos + n_neg

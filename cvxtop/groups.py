"""Lists of items (users, queries): one ``Groups`` object for metrics, objectives and solvers.

With groups a metric or a loss is taken per list and then averaged over the lists
(Hiranandani et al. 2020, eq. (17), for pAp@k); the lists also are the natural mini-batches
of the approximate solvers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

__all__ = ["Groups"]


@dataclass(frozen=True)
class Groups:
    """The partition of ``n`` items into lists.

    Attributes
    ----------
    codes : int64 array of shape (n,)
        The list of each item, as a code ``0..G-1`` (codes follow the sorted ids).
    ids : array of shape (G,)
        The caller's id of each code (for messages and reports).
    indices : tuple of G int arrays
        The positions of each list's items, ascending.
    """

    codes: np.ndarray
    ids: np.ndarray
    indices: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, groups: Any, n: int, name: str = "groups") -> "Groups":
        """Validate one id per item (any sortable, hashable ids) and split the items; a
        ``Groups`` of ``n`` items is returned as it is (split once, used many times)."""
        if isinstance(groups, Groups) and len(groups.codes) == n:
            return groups
        if groups is None:
            raise TypeError(f"{name} must be an array-like of group ids, got None")
        arr = np.asarray(groups)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
        if len(arr) != n:
            raise ValueError(f"{name} has {len(arr)} entries but there are {n} items")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values")
        if arr.dtype == object:
            try:
                arr = arr.astype(str)
            except Exception:
                raise TypeError(f"{name} must hold hashable, sortable ids") from None
        ids, codes = np.unique(arr, return_inverse=True)
        codes = codes.astype(np.int64).ravel()
        order = np.argsort(codes, kind="stable")
        bounds = np.flatnonzero(np.diff(codes[order])) + 1
        return cls(codes, ids, tuple(np.split(order, bounds)))

    @property
    def n_groups(self) -> int:
        return len(self.indices)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self.indices)

    def id(self, code: int) -> Any:
        """The caller's id of list ``code``, as a Python scalar."""
        value = self.ids[code]
        return value.item() if isinstance(value, np.generic) else value

"""Lists of items (users, queries): one ``Groups`` object for metrics, objectives and solvers.

With groups a metric or a loss is taken per list and then averaged over the lists
(Hiranandani et al. 2020, eq. (17), for pAp@k); the lists also are the natural mini-batches
of the approximate solvers.
"""

from __future__ import annotations

from dataclasses import dataclass
import numbers
from typing import Any, Iterator

import numpy as np

__all__ = ["Groups"]


def _id_kind(value: Any) -> str:
    """``"str"``, ``"bytes"`` or ``"number"``; anything else is not an id."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, (numbers.Real, np.bool_)):
        return "number"
    raise TypeError(f"group ids must be strings or real numbers, got {type(value).__name__} "
                    f"{value!r}")


def _id_array(groups: Any, name: str) -> np.ndarray:
    """The ids as an array whose equality is Python's: numbers compare by value (an int
    id of any size stays exact), strings by text, and a mix of the two is refused (numpy
    would turn ``[1, "1"]`` into two equal strings)."""
    typed = isinstance(groups, np.ndarray) and groups.dtype != object
    try:
        arr = np.asarray(groups) if typed else np.asarray(groups, dtype=object)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    if arr.ndim != 1:
        return arr  # refused by the caller, by shape
    if typed:
        if arr.dtype.kind not in "biufUSMm":
            raise TypeError(f"{name} must hold strings or real numbers, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values")
        return arr
    values = arr.tolist()
    try:
        kinds = {_id_kind(v) for v in values}
    except TypeError as exc:
        raise TypeError(f"{name}: {exc}") from None
    if len(kinds) > 1:
        raise TypeError(f"{name} mixes {' and '.join(sorted(kinds))} ids (e.g. 1 and '1'), "
                        "which would be ambiguous: use one type for every id")
    if kinds == {"number"}:
        if not all(np.isfinite(v) for v in values if isinstance(v, (float, np.floating))):
            raise ValueError(f"{name} contains NaN or infinite values")
        if all(isinstance(v, (numbers.Integral, np.bool_)) for v in values) and \
                all(-2 ** 63 <= int(v) < 2 ** 63 for v in values):
            return np.array([int(v) for v in values], dtype=np.int64)
        return arr  # compared as Python numbers: exact for ints of any size and floats
    return np.array(values)  # strings or bytes


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
        """Validate one id per item and split the items; a ``Groups`` of ``n`` items is
        returned as it is (split once, used many times).

        Ids are all strings or all real numbers (the module's rule): two ids name one list
        exactly when they are equal as Python values, so ``1``, ``1.0`` and ``True`` are
        one list and ``1`` and ``"1"`` are refused as a mix."""
        if isinstance(groups, Groups) and len(groups.codes) == n:
            return groups
        if groups is None:
            raise TypeError(f"{name} must be an array-like of group ids, got None")
        arr = _id_array(groups, name)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
        if len(arr) != n:
            raise ValueError(f"{name} has {len(arr)} entries but there are {n} items")
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

"""Surrogates of prec@k (papers/000) and pAp@k (papers/001), behind one registry.

``get(name, k)`` returns a surrogate object with ``value``, ``subgradient``,
``expression`` and ``convex``; see :mod:`cvxtop.surrogates.base` for the protocol.
"""

from __future__ import annotations

from typing import Any

from .base import PapSurrogate, PrecSurrogate, Surrogate

__all__ = ["get", "available", "register", "Surrogate", "PrecSurrogate", "PapSurrogate"]

_REGISTRY: dict[str, type[Surrogate]] = {}


def register(cls: type[Surrogate]) -> type[Surrogate]:
    """Class decorator adding a surrogate to the registry under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"a surrogate named {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def available() -> list[str]:
    """Registered surrogate names."""
    return sorted(_REGISTRY)


def get(name: str, k: Any) -> Surrogate:
    """The surrogate ``name`` with cut-off ``k`` (validated against the data when used)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    try:
        cls = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown surrogate {name!r}; available: {available()}") from None
    return cls(k)


# The families register themselves on import.
from . import pap, prec  # noqa: E402,F401

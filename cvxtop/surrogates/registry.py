"""The registry of surrogates by name (a leaf: the families import it to register)."""

from __future__ import annotations

from typing import Any

from .base import Surrogate

__all__ = ["register", "unregister", "available", "get"]

_REGISTRY: dict[str, type[Surrogate]] = {}


def register(cls: type[Surrogate]) -> type[Surrogate]:
    """Class decorator adding a surrogate to the registry under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"a surrogate named {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (for surrogates registered by tests or plugins)."""
    if name not in _REGISTRY:
        raise ValueError(f"no surrogate named {name!r} is registered")
    del _REGISTRY[name]


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

"""Surrogates of prec@k (Kar et al. 2015) and pAp@k (Hiranandani et al. 2020), behind one
registry.

``get(name, k)`` returns a surrogate object with ``value``, ``subgradient``,
``expression``, ``convex`` and ``bind``; see :mod:`cvxtop.surrogates.base` for the protocol
and :mod:`cvxtop.surrogates.checks` for the conformance checks every registered surrogate
passes. A new surrogate is one class (a subclass of a family base, with its brute-force
``definition``) decorated with :func:`register`.
"""

from __future__ import annotations

from . import pap, prec, prec_svmperf  # noqa: F401  (the families register on import)
from .base import Bound, PapSurrogate, PrecSurrogate, Surrogate
from .registry import available, get, register, unregister

__all__ = ["get", "available", "register", "unregister", "Surrogate", "Bound",
           "PrecSurrogate", "PapSurrogate"]

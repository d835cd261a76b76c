"""cvxtop: learning to rank at the top of a list, solved exactly and approximately.

Public modules: :mod:`cvxtop.metrics`, :mod:`cvxtop.reference`. See ``README.md``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import metrics, reference
from .exceptions import SolverError
from .aatp import AATP

__all__ = ["__version__", "metrics", "reference", "SolverError", "AATP"]

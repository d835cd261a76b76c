"""cvxtop: learning to rank at the top of a list, solved exactly and approximately.

Public modules: :mod:`cvxtop.metrics`, :mod:`cvxtop.surrogates`, :mod:`cvxtop.reference`,
:mod:`cvxtop.predtron`; estimators :class:`TopRanker` and :class:`AATP`. See ``README.md``.
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import metrics, predtron, reference, surrogates
from .aatp import AATP
from .estimators import TopRanker
from .exceptions import SolverError

__all__ = ["__version__", "metrics", "reference", "surrogates", "predtron", "TopRanker",
           "AATP", "SolverError"]

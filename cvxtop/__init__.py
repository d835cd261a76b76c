"""cvxtop: learning to rank at the top of a list, solved exactly and approximately.

Public modules: :mod:`cvxtop.metrics`, :mod:`cvxtop.surrogates`, :mod:`cvxtop.reference`,
:mod:`cvxtop.predtron`; estimators :class:`TopRanker` and :class:`AATP`. See ``README.md``.

Names are imported on first use (PEP 562), so that ``import cvxtop.metrics`` or
``import cvxtop.reference`` loads neither cvxpy nor scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "metrics": (".metrics", None),
    "reference": (".reference", None),
    "surrogates": (".surrogates", None),
    "predtron": (".predtron", None),
    "TopRanker": (".estimators", "TopRanker"),
    "AATP": (".aatp", "AATP"),
    "SolverError": (".exceptions", "SolverError"),
}

__all__ = ["__version__", "metrics", "reference", "surrogates", "predtron", "TopRanker",
           "AATP", "SolverError"]

if TYPE_CHECKING:  # the names as static analysis sees them
    from . import metrics, predtron, reference, surrogates  # noqa: F401
    from .aatp import AATP  # noqa: F401
    from .estimators import TopRanker  # noqa: F401
    from .exceptions import SolverError  # noqa: F401


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'cvxtop' has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

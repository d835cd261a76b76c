"""cvxtop: learning to rank at the top of a list, solved exactly and approximately.

Public modules: :mod:`cvxtop.metrics`, :mod:`cvxtop.surrogates`, :mod:`cvxtop.reference`,
:mod:`cvxtop.predtron`; estimators :class:`TopRanker` and :class:`AATP`. See ``README.md``.

Names and submodules are imported on first use (PEP 562), so that ``import cvxtop.metrics``
or ``import cvxtop.reference`` loads neither cvxpy nor scikit-learn.
"""

from __future__ import annotations

import importlib
import importlib.util
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
    """A public name, or any submodule (``cvxtop.estimators`` after ``import cvxtop``),
    imported on first use."""
    if name in _LAZY:
        module_name, attribute = _LAZY[name]
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        module_name, attribute = f".{name}", None
    else:
        raise AttributeError(f"module 'cvxtop' has no attribute {name!r}")
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""cvxtop: learning to rank at the top of a list, solved exactly and approximately.

Public modules: :mod:`cvxtop.metrics`, :mod:`cvxtop.surrogates`, :mod:`cvxtop.reference`,
:mod:`cvxtop.predtron`, :mod:`cvxtop.solvers`, :mod:`cvxtop.datasets`, :mod:`cvxtop.cutoff`,
:mod:`cvxtop.testing`; estimators :class:`TopRanker` and :class:`AATP`. See ``README.md``.

Names and submodules are imported on first use (PEP 562), so that ``import cvxtop.metrics``
or ``import cvxtop.reference`` loads neither cvxpy nor scikit-learn.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: class -> the module that defines it (submodules are found by name)
_CLASSES = {"TopRanker": ".estimators", "TopRankerCV": ".model_selection", "AATP": ".aatp",
            "SolverError": ".exceptions", "save_model": ".model_io", "load_model": ".model_io"}

__all__ = ["__version__", "metrics", "reference", "surrogates", "predtron", "solvers",
           "datasets", "cutoff", "testing", "TopRanker", "TopRankerCV", "AATP", "SolverError",
           "save_model", "load_model"]

if TYPE_CHECKING:  # the names as static analysis sees them
    from . import (cutoff, datasets, metrics, predtron, reference, solvers,  # noqa: F401
                   surrogates, testing)
    from .aatp import AATP  # noqa: F401
    from .estimators import TopRanker  # noqa: F401
    from .exceptions import SolverError  # noqa: F401
    from .model_io import load_model, save_model  # noqa: F401
    from .model_selection import TopRankerCV  # noqa: F401


def __getattr__(name: str) -> Any:
    """A public name, or any submodule (``cvxtop.estimators`` after ``import cvxtop``),
    imported on first use."""
    if name in _CLASSES:
        value = getattr(importlib.import_module(_CLASSES[name], __name__), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'cvxtop' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (and the submodules imported so far), not this module's helpers."""
    loaded = {name for name, value in globals().items()
              if not name.startswith("_") and getattr(value, "__name__", "").startswith(
                  f"{__name__}.")}
    return sorted(set(__all__) | loaded)

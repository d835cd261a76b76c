"""Ground truth for other projects' test suites: hypothesis strategies that favour what
breaks top-of-list code, and assertions against the definitions of the papers.

Strategies (:mod:`cvxtop.testing.strategies`, need hypothesis): :func:`ranked_lists`,
:func:`grouped_lists`, :func:`score_matrices`, :func:`ranking_problems`,
:func:`cutoff_cases`, and the
``"cvxtop"`` settings profile.
Assertions (:mod:`cvxtop.testing.asserts`): :func:`assert_metric_matches`,
:func:`assert_surrogate_matches`, :func:`assert_cutoff_matches` and
:func:`assert_near_optimum`; :func:`set_tolerances` for a whole suite.
Other libraries' conventions (:mod:`cvxtop.testing.conventions`): :func:`roc_auc_max_fpr`
(scikit-learn's McClish-standardized partial AUC) and :func:`mcclish`.

Importing this package loads neither cvxpy nor scikit-learn (nor hypothesis): the names
are imported on first use, and only :func:`assert_near_optimum`, which runs the exact
solver, loads cvxpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> the submodule that defines it
_NAMES = {
    "RankedList": ".strategies", "GroupedLists": ".strategies", "RankingProblem": ".strategies",
    "ranked_lists": ".strategies", "grouped_lists": ".strategies",
    "score_matrices": ".strategies",
    "ranking_problems": ".strategies", "PROFILE": ".strategies",
    "CutoffCase": ".strategies", "cutoff_cases": ".strategies", "DECIMAL_TRAPS": ".strategies",
    "assert_metric_matches": ".asserts", "assert_surrogate_matches": ".asserts",
    "assert_cutoff_matches": ".asserts", "assert_near_optimum": ".asserts",
    "set_tolerances": ".asserts",
    "mcclish": ".conventions", "roc_auc_max_fpr": ".conventions",
}
__all__ = sorted(_NAMES)

if TYPE_CHECKING:  # the names as static analysis sees them
    from .asserts import (assert_cutoff_matches, assert_metric_matches,  # noqa: F401
                          assert_near_optimum, assert_surrogate_matches, set_tolerances)
    from .conventions import mcclish, roc_auc_max_fpr  # noqa: F401
    from .strategies import (DECIMAL_TRAPS, PROFILE, CutoffCase,  # noqa: F401
                             GroupedLists, RankedList, RankingProblem, cutoff_cases,
                             grouped_lists, ranked_lists, ranking_problems,
                             score_matrices)


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module 'cvxtop.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

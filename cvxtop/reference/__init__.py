"""Brute-force definitions for tiny instances: the ground truth of cvxtop.

Every function here evaluates a metric or surrogate *by literal enumeration of its
definition in the paper*: all candidate labelings, all subsets, all orderings. Nothing is
simplified with a closed form, so these functions are slow (exponential) and independent of
the fast code in :mod:`cvxtop.metrics` and :mod:`cvxtop.surrogates`, which is tested
against them.

Use them in your own tests too: if you implement one of these surrogates, compare it with
the function here on many random instances with up to about 8 items per class. Instances
whose enumeration would exceed :data:`MAX_ENUMERATION` candidates are refused with a
``ValueError``. The package holds one module per paper: :mod:`.prec` (Kar et al. 2015),
:mod:`.pap` (Hiranandani et al. 2020), :mod:`.aatp` (Boyd et al. 2012) and :mod:`.predtron`
(Jain et al. 2015); the prec@k and pAp@k functions are also available here.

Conventions (the same as the rest of cvxtop):

* ``y`` holds 0/1 labels, ``s`` the scores of the same items;
* prec@k quantities (Kar et al. 2015) are on the *loss* scale
  of eq. (1): the number of irrelevant items among the top ``k``, for ``1 <= k <= n₊``;
* pAp@k quantities (Hiranandani et al. 2020) are risks normalized by
  ``1/(βk)``, β = min(n₊, k) (``1/(n₊k)`` for the pAUC structural bound), for
  ``1 <= k <= n₋`` and ``n₊ >= 1``;
* tied scores at a cut are resolved pessimistically: the loss is the largest over all
  orderings consistent with the scores.

Orderings matrices π (Hiranandani et al. 2020 Section 4): ``π[i, j] = 1`` when positive ``i`` is
ranked below negative ``j``. A matrix is *valid* when some total order of the items induces it;
:func:`valid_orderings` enumerates exactly these (see its docstring for why the enumeration
is complete), and :func:`valid_orderings_by_permutation` does the same by listing every
total order, for checking.
"""

from __future__ import annotations

from . import aatp, predtron
from ._common import MAX_ENUMERATION
from .pap import (
    pap_avg,
    pap_max,
    pap_ramp,
    pap_risk,
    pap_ts,
    pap_ts_paper,
    pauc_struct,
    valid_orderings,
    valid_orderings_by_permutation,
)
from .prec import prec_at_k_loss, prec_avg, prec_max, prec_ramp, prec_struct, prec_svmperf

#: Each surrogate name of :mod:`cvxtop.surrogates` -> its enumeration here and whether the
#: surrogate is convex in the scores (what a subgradient inequality can be checked on).
SURROGATES = {
    "prec@k-struct": (prec_struct, True),
    "prec@k-ramp": (prec_ramp, False),
    "prec@k-max": (prec_max, True),
    "prec@k-avg": (prec_avg, True),
    "prec@k-svmperf": (prec_svmperf, True),
    "pap@k-avg": (pap_avg, True),
    "pap@k-max": (pap_max, True),
    "pap@k-ts": (pap_ts, True),
    "pap@k-ramp": (pap_ramp, False),
    "pap@k-ts-paper": (pap_ts_paper, False),
    "pauc-struct": (pauc_struct, True),
}

__all__ = [
    "MAX_ENUMERATION",
    "SURROGATES",
    "valid_orderings",
    "valid_orderings_by_permutation",
    "prec_at_k_loss",
    "prec_struct",
    "prec_ramp",
    "prec_max",
    "prec_avg",
    "prec_svmperf",
    "pap_risk",
    "pap_avg",
    "pap_max",
    "pap_ts",
    "pap_ramp",
    "pap_ts_paper",
    "pauc_struct",
    "aatp",
    "predtron",
]

"""Accuracy at the top (Boyd et al. 2012).

Modules, one job each:

* :mod:`.kernels`: linear, rbf, precomputed and callable kernels; ``K = F Fᵀ`` and the
  PSD policy;
* :mod:`.problem`: the quantile, the empirical loss ``R̂(h)`` of Section 3.1, the QP data
  (bipartite items or preference pairs) and the duality-gap certificate;
* :mod:`.primal`, :mod:`.dual`: eq. (2) and eq. (4) in cvxpy, compiled once (DPP), on
  the shared plumbing of :mod:`.cvxpy_qp` (Clarabel, status check, certificate);
* :mod:`.fast`: the dedicated numpy solver of the box-constrained dual;
* :mod:`.selection`: scoring a candidate and the selection rule with its tolerances;
* :mod:`.candidates`: order (nearest-neighbour tour), screening of repeated points, joblib
  and tqdm;
* :mod:`.estimator`: the scikit-learn estimator :class:`AATP`;
* :mod:`.demo`: the AATP run of ``cvxtop demo``.
"""

from __future__ import annotations

from .estimator import (
    AATP,
    EXPECTED_FAILED_CHECKS,
    PRECOMPUTED_EXPECTED_FAILED_CHECKS,
    expected_failed_checks,
)
from ..gram import nearest_psd
from .problem import aatp_loss, aatp_pairs_loss, weighted_top_quantile

__all__ = ["AATP", "EXPECTED_FAILED_CHECKS", "PRECOMPUTED_EXPECTED_FAILED_CHECKS",
           "expected_failed_checks", "aatp_loss", "aatp_pairs_loss",
           "weighted_top_quantile", "nearest_psd"]

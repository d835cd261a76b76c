"""Predtron: online learning for general prediction problems (Jain et al. 2015
and Tewari, NIPS 2015), with an exact batch reference.

Problems (:mod:`~cvxtop.predtron.base` protocol: ``pred``, ``loss``, ``psi``, ``margin``,
``psi_expression``): :class:`Binary`, :class:`Multiclass`, :class:`Ordinal`,
:class:`Multilabel`, :class:`SubsetRanking`, :class:`MultilabelRanking`, and
:class:`FiniteProblem` for any small prediction space.

Learners: :class:`Predtron` (Algorithm 1), :class:`PredtronLink` (``Predtron.Link``, the
p-norm link of Corollaries 6 and 8), :class:`KernelPredtron` (Section 2.3). Exact reference:
:func:`batch_reference`.
"""

from __future__ import annotations

from .base import Problem
from .batch import batch_objective, batch_reference, linear_loss
from .finite import Binary, FiniteProblem, Multiclass, Ordinal
from .kernel import KernelPredtron
from .multilabel import MULTILABEL_LOSSES, Multilabel
from .online import Predtron, PredtronLink
from .ranking import MultilabelRanking, SubsetRanking, ndcg_loss

__all__ = [
    "Problem",
    "FiniteProblem",
    "Binary",
    "Multiclass",
    "Ordinal",
    "Multilabel",
    "MULTILABEL_LOSSES",
    "SubsetRanking",
    "MultilabelRanking",
    "ndcg_loss",
    "Predtron",
    "PredtronLink",
    "KernelPredtron",
    "batch_reference",
    "batch_objective",
    "linear_loss",
]

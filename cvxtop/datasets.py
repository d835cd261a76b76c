"""Data sets for demos, tests and the papers' experiments."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_diabetes

from ._validation import ceil_fraction, check_fraction

__all__ = ["load_diabetes_top"]


def load_diabetes_top(fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """scikit-learn's diabetes data (442 patients, 10 features) as a rare-class ranking task.

    The relevant items are the ``fraction`` of patients with the largest disease
    progression one year after baseline (the regression target), ties included: with the
    default 10%, 47 of 442 are relevant. A linear scorer separates them well on average
    (AUC near 0.9) but not at the very top, which is where cvxtop's surrogates aim.

    Returns
    -------
    X : array of shape (442, 10), the standardized features as scikit-learn ships them
    y : array of 0/1, 1 = among the largest progressions
    feature_names : list of str
    """
    fraction = check_fraction(fraction, "fraction")
    data = load_diabetes()
    target = data.target
    m = ceil_fraction(fraction, len(target))
    threshold = np.sort(target)[len(target) - m]
    return data.data, (target >= threshold).astype(np.int64), list(data.feature_names)

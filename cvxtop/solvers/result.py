"""One result object for every solver, so their answers are comparable."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SolveResult"]


@dataclass
class SolveResult:
    """What a solver returns.

    Attributes
    ----------
    coef : array of shape (d,)
        The solution ``w``.
    objective : float
        ``P(w) = ½‖w‖² + C·L(y, Zw)`` evaluated exactly in numpy at ``coef``.
    lower_bound : float or None
        A lower bound on the optimal value, when the method provides a rigorous one (the
        cutting plane's dual bound); ``None`` otherwise.
    gap : float or None
        Relative optimality gap ``(objective − lower_bound)/|objective|``, certified by a
        rigorous lower bound; ``None`` for methods without a certificate (and, for the raw
        direct engine without certification, the relative difference between ``objective``
        and the solver's optimal value).
    status : str
        ``"optimal"``, or the stopping reason (``"max_iter"``, ``"inaccurate"``, ...).
    engine : str
        Which method produced the result.
    n_iter : int
        Iterations (cutting-plane rounds, solver iterations, epochs, ...).
    message : str
        A human-readable summary.
    """

    coef: np.ndarray
    objective: float
    lower_bound: float | None
    gap: float | None
    status: str
    engine: str
    n_iter: int
    message: str = ""

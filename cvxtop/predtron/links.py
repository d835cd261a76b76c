"""The p-norm link of Predtron.Link, Jain et al. 2015 Corollaries 6 and 8.

Predtron.Link replaces the additive step by mirror descent with
``φ(W) = ½‖W‖²_{2,r}`` (the ``ℓ_r`` norm of the ``ℓ_2`` norms of the groups; groups of one
entry give ``½‖w‖²_r``): ``W_{τ+1} = (∇φ)⁻¹(∇φ(W_τ) − η∇_τ)``. Keeping ``θ = ∇φ(W)``, the
step is ``θ ← θ − η∇_τ`` and ``W = ∇φ*(θ)`` with the conjugate ``φ* = ½‖·‖²_{2,q}``,
``1/r + 1/q = 1``. The paper sets ``r = log p/(log p − 1)``, i.e. ``q = log p``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["paper_r", "dual_exponent", "pnorm_link"]


def paper_r(p: int) -> float:
    """``r = log p/(log p − 1)`` (Jain et al. 2015 Cor. 6 and 8), for ``p >= 8``.

    For ``p < e²`` the formula gives ``r > 2`` (or no value at all), where ``½‖·‖²_r`` is no
    longer ``(r − 1)``-strongly convex and the analysis does not apply; there ``r = 2``, the
    Euclidean Predtron, is returned.
    """
    logp = math.log(p)
    return logp / (logp - 1.0) if logp >= 2.0 else 2.0


def dual_exponent(r: float) -> float:
    """``q = r/(r − 1)``, the exponent of the dual norm."""
    return r / (r - 1.0)


def pnorm_link(theta: np.ndarray, q: float) -> np.ndarray:
    """``∇(½‖θ‖²_{2,q})`` with one group per row of ``theta``.

    Row ``j`` is ``θ_j (‖θ_j‖₂/‖θ‖_{2,q})^{q−2}``; the zero matrix maps to zero.
    """
    norms = np.linalg.norm(theta, axis=1)
    total = np.linalg.norm(norms, ord=q)
    if total == 0:
        return np.zeros_like(theta)
    return theta * ((norms / total) ** (q - 2.0))[:, None]

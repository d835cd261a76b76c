"""Solvers of ``½‖w‖² + C·L(y, Zw)``: exact engines (direct cvxpy, cutting plane), the
convex-concave procedure for ramp surrogates, full-batch subgradient descent; the
mini-batch methods live in :mod:`cvxtop.solvers.minibatch`."""

from .cutting_plane import solve_cutting_plane
from .dca import solve_dca
from .direct import solve_direct
from .gd import solve_gd
from .objective import RankingObjective
from .result import SolveResult

__all__ = ["RankingObjective", "SolveResult", "solve_direct", "solve_cutting_plane", "solve_dca",
           "solve_gd"]

"""Solvers of ``½‖w‖² + C·L(y, Zw)``: :func:`minimize` chooses and runs the method (exact
engines, the convex-concave procedure, GD, the mini-batch methods) and returns a
:class:`SolveResult`; :class:`Stream` holds the state of an online run (``partial_fit``).
The methods' own functions (``solve_direct``, ``solve_cutting_plane``, ``solve_dca``,
``solve_gd``) are the building blocks ``minimize`` calls."""

from .cutting_plane import solve_cutting_plane
from .dca import solve_dca
from .direct import solve_direct
from .gd import solve_gd
from .minimize import METHODS, OPTIONS, check_method, exact_method, minimize
from .objective import RankingObjective
from .result import STATUSES, SolveResult
from .stream import Stream

__all__ = ["minimize", "exact_method", "check_method", "METHODS", "OPTIONS", "RankingObjective",
           "SolveResult", "STATUSES", "Stream", "solve_direct", "solve_cutting_plane",
           "solve_dca", "solve_gd"]

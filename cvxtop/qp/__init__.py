"""The hand-written QP solvers, in one home: small dense QPs over the simplex
(:mod:`.simplex`, the cutting plane's master and SGD's planes, refined from the rows of
its Gram matrix by :mod:`.rows_refinement`) and over a box
(:mod:`.box`, AATP's last step after screening, and the step to the boundary that AATP's
interior point shares). They depend on numpy and scipy alone; the problem-specific dual
solvers built on them live with their problems (:mod:`cvxtop.solvers.selection_dual`,
:mod:`cvxtop.solvers.box_dual`, :mod:`cvxtop.aatp.fast`, :mod:`cvxtop.aatp.face_descent`).
"""

from .box import BoxQPResult, solve_box_qp, step_to_boundary
from .rows_refinement import refine_on_rows
from .simplex import FaceCache, solve_simplex_qp

__all__ = ["solve_simplex_qp", "FaceCache", "refine_on_rows", "solve_box_qp", "BoxQPResult",
           "step_to_boundary"]

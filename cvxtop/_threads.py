"""BLAS threading around the iterative solvers.

The iterative solvers (cutting plane, line searches, GD, SGD, perceptrons) call BLAS on
vectors and thin matrices thousands of times, where OpenBLAS's worker threads cost more than
they save (measurements in the solver guide, "BLAS threads"). The solvers therefore run
with BLAS limited to one thread, restoring the caller's setting afterwards.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from threadpoolctl import threadpool_limits

__all__ = ["single_threaded_blas"]


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit BLAS to one thread inside the ``with`` block."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield

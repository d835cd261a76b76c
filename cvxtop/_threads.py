"""BLAS threading around the iterative solvers.

The iterative solvers (cutting plane, line searches, GD, SGD, perceptrons) call BLAS on
vectors and thin matrices thousands of times, where OpenBLAS's worker threads cost more than
they save (measurements in the solver guide, "BLAS threads"). The solvers therefore run
with BLAS limited to one thread, restoring the caller's setting afterwards.

Finding the BLAS libraries of the process takes a few milliseconds (threadpoolctl scans
the loaded shared objects), more than a whole small fit, so the scan is done once, at the
first solve (numpy's and scipy's BLAS are loaded by then), and a ``with`` block nested in
another one of the same thread leaves the limit as it is.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from threadpoolctl import ThreadpoolController

__all__ = ["single_threaded_blas"]

_controller: ThreadpoolController | None = None
_controller_lock = threading.Lock()
_depth = threading.local()


def _blas_controller() -> ThreadpoolController:
    """The process's BLAS thread pools, found once."""
    global _controller
    with _controller_lock:
        if _controller is None:
            import scipy.linalg  # noqa: F401  (scipy's own BLAS, if it has one, is loaded)

            _controller = ThreadpoolController().select(user_api="blas")
        return _controller


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit BLAS to one thread inside the ``with`` block."""
    depth = getattr(_depth, "value", 0)
    if depth:
        _depth.value = depth + 1
        try:
            yield
        finally:
            _depth.value = depth
        return
    _depth.value = 1
    try:
        with _blas_controller().limit(limits=1):
            yield
    finally:
        _depth.value = 0

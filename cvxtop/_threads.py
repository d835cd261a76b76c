"""BLAS threading around the iterative solvers.

The iterative solvers (cutting plane, line searches, GD, SGD, perceptrons) call BLAS on
vectors and thin matrices thousands of times, where OpenBLAS's worker threads cost more than
they save (measurements in the solver guide, "BLAS threads"). The solvers therefore run
with BLAS limited to one thread, restoring the caller's setting afterwards. The few
products large enough to gain from threads (a wide cut store's, 8 MB of rows or more) get
the caller's threads back for their duration (:func:`callers_blas_threads`).

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

__all__ = ["single_threaded_blas", "callers_blas_threads"]

_controller: ThreadpoolController | None = None
_controller_lock = threading.Lock()
_depth = threading.local()
_callers = threading.local()  # each BLAS library and the caller's threads, inside the limit


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
    controller = _blas_controller()
    _callers.value = [(lib, lib.num_threads) for lib in controller.lib_controllers]
    try:
        with controller.limit(limits=1):
            yield
    finally:
        _depth.value = 0
        _callers.value = []


@contextmanager
def callers_blas_threads() -> Iterator[None]:
    """Inside :func:`single_threaded_blas`, give each BLAS library back the threads the
    caller had for the ``with`` block: for the few products large enough to gain from
    them (a wide cut store's, ``cvxtop.solvers.cutting_plane``). Outside it, or when the
    caller had one thread, a no-op."""
    callers = [(lib, n) for lib, n in getattr(_callers, "value", []) if n > 1]
    if not getattr(_depth, "value", 0) or not callers:
        yield
        return
    for lib, n in callers:
        lib.set_num_threads(n)
    try:
        yield
    finally:
        for lib, _ in callers:
            lib.set_num_threads(1)

"""BLAS threading around the iterative solvers.

The iterative solvers (cutting plane, line searches, GD, SGD, perceptrons) call BLAS on
vectors and thin matrices thousands of times, where OpenBLAS's worker threads cost more than
they save (measurements in the solver guide, "BLAS threads"). The solvers therefore run
with BLAS limited to one thread, restoring the caller's setting afterwards. The few
products large enough to gain from threads (a wide cut store's, a large sparse ``X``'s) are
split over a pool of Python threads instead, as many as the caller gave BLAS
(:func:`callers_thread_count`, used by :mod:`cvxtop.solvers.parallel_products`): OpenBLAS's
own threads would keep spinning between products and take a core from the solver.

Finding the BLAS libraries of the process takes a few milliseconds (threadpoolctl scans
the loaded shared objects), more than a whole small fit, so the scan is done once, at the
first solve (numpy's and scipy's BLAS are loaded by then), and a ``with`` block nested in
another one of the same thread leaves the limit as it is.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Iterator

from threadpoolctl import ThreadpoolController

__all__ = ["single_threaded_blas", "callers_blas_threads", "callers_thread_count"]

_controller: ThreadpoolController | None = None
_controller_lock = threading.Lock()
_depth = threading.local()
_callers = threading.local()  # each BLAS library's threads before the limit, inside it


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


def callers_thread_count() -> int:
    """Inside :func:`single_threaded_blas`, the most threads any BLAS library of the caller
    had (the parallelism the caller allows, e.g. by ``OMP_NUM_THREADS`` or
    ``threadpoolctl``), capped by the process's CPUs: the threads of the solvers' own
    parallel products (:mod:`cvxtop.solvers.parallel_products`). Outside it, 1."""
    if not getattr(_depth, "value", 0):
        return 1
    threads = max((n for _, n in getattr(_callers, "value", [])), default=1)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1
    return max(1, min(threads, cpus))


@contextmanager
def callers_blas_threads() -> Iterator[None]:
    """Inside :func:`single_threaded_blas`, give BLAS back the caller's threads for the
    ``with`` block (one large factor of a dense matrix, whose single call gains from them),
    and limit it to one thread again after; outside it, nothing changes."""
    callers = getattr(_callers, "value", []) if getattr(_depth, "value", 0) else []
    for lib, threads in callers:
        lib.set_num_threads(threads)
    try:
        yield
    finally:
        for lib, _ in callers:
            lib.set_num_threads(1)

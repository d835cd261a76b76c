"""The products split over the caller's threads (cvxtop.solvers.parallel_products): the
same numbers as the plain products, on blocks that share the sparse matrix's arrays."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy import sparse
from threadpoolctl import threadpool_info, threadpool_limits

import cvxtop.solvers.parallel_products as pp
from cvxtop._threads import callers_blas_threads, single_threaded_blas


@pytest.fixture
def pool():
    with ThreadPoolExecutor(max_workers=3) as executor:
        yield executor


def random_sparse(fmt: str, n: int, d: int, seed: int, empty_rows: bool = False):
    rng = np.random.default_rng(seed)
    Z = sparse.random(n, d, density=0.2, random_state=rng, format="lil")
    if empty_rows:  # whole rows and columns without a value, so some blocks are empty
        Z[: n // 2] = 0
        Z[:, : d // 3] = 0
    return Z.asformat(fmt)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("blocks", [1, 2, 3, 7])
@pytest.mark.parametrize("empty_rows", [False, True])
def test_blocked_sparse_products_equal_scipys(pool, fmt, blocks, empty_rows):
    Z = random_sparse(fmt, 23, 17, blocks, empty_rows)
    rng = np.random.default_rng(blocks)
    w, g = rng.standard_normal(17), rng.standard_normal(23)
    blocked = pp.BlockedSparse(Z, blocks, pool)
    assert blocked.shape == Z.shape and blocked.T.shape == (17, 23)
    np.testing.assert_allclose(blocked @ w, Z @ w, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(blocked.T @ g, Z.T @ g, rtol=1e-13, atol=1e-13)
    # the blocks are views of Z's arrays, not copies
    for block in blocked._blocks + blocked._transposes:
        if block.nnz:
            assert np.shares_memory(block.data, Z.data)
            assert np.shares_memory(block.indices, Z.indices)


def test_blocked_sparse_refuses_a_matrix_for_a_vector(pool):
    blocked = pp.BlockedSparse(random_sparse("csr", 6, 5, 0), 2, pool)
    with pytest.raises(ValueError, match="w must be a vector"):
        blocked @ np.ones((5, 2))
    with pytest.raises(ValueError, match="g must be a vector"):
        blocked.T @ np.ones((6, 2))


@pytest.mark.parametrize("rows", [1, 2, 5, 40])
def test_split_dense_products_equal_numpys(pool, monkeypatch, rows):
    monkeypatch.setattr(pp, "PARALLEL_NUMBERS", 1)
    threads = pp.ProductThreads(pool, 3)
    rng = np.random.default_rng(rows)
    H, x, a = rng.standard_normal((rows, 11)), rng.standard_normal(11), rng.standard_normal(rows)
    assert (threads._parts(H) is None) == (rows < 3)  # fewer rows than threads: one product
    np.testing.assert_allclose(threads.rows_times(H, x), H @ x, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(threads.times_rows(a, H), a @ H, rtol=1e-13, atol=1e-13)
    X, A = rng.standard_normal((11, 4)), rng.standard_normal((4, rows))  # several at once
    np.testing.assert_allclose(threads.rows_times(H, X), H @ X, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(threads.times_rows(A, H), A @ H, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("rows", [1, 2, 5, 40])
@pytest.mark.parametrize("split", [True, False])
def test_split_weighted_gram_equals_numpys(pool, monkeypatch, rows, split):
    """``Zᵀ diag(weights) Z``, symmetric, with zero weights too; the buffer is only
    written."""
    if split:
        monkeypatch.setattr(pp, "PARALLEL_NUMBERS", 1)
    threads = pp.ProductThreads(pool, 3)
    rng = np.random.default_rng(rows)
    Z, weights = rng.standard_normal((rows, 7)), rng.exponential(size=rows)
    weights[::2] = 0.0
    buffer = np.full_like(Z, np.nan)
    gram = threads.weighted_gram(Z, weights, buffer)
    np.testing.assert_allclose(gram, Z.T @ (weights[:, None] * Z), rtol=1e-12, atol=1e-12)
    assert np.array_equal(gram, gram.T)


def test_small_products_and_one_thread_are_left_alone(pool):
    big = np.zeros((4, pp.PARALLEL_NUMBERS // 4))
    assert pp.ProductThreads(pool, 2)._parts(big[:, :-1]) is None  # below the threshold
    assert pp.ProductThreads(pool, 2)._parts(big) is not None
    assert pp.ProductThreads(None)._parts(big) is None
    Z = random_sparse("csr", 30, 30, 1)
    assert pp.ProductThreads(pool, 2).operator(Z) is Z  # below PARALLEL_NONZEROS
    dense = Z.toarray()
    assert pp.ProductThreads(pool, 2).operator(dense) is dense


def test_an_uncompressed_sparse_matrix_is_not_blocked(pool, monkeypatch):
    monkeypatch.setattr(pp, "PARALLEL_NONZEROS", 1)
    Z = random_sparse("csr", 30, 30, 1)
    assert isinstance(pp.ProductThreads(pool, 2).operator(Z), pp.BlockedSparse)
    coo = Z.tocoo()
    assert pp.ProductThreads(pool, 2).operator(coo) is coo


def test_product_threads_follow_the_callers_setting():
    with threadpool_limits(1, user_api="blas"), single_threaded_blas(), \
            pp.product_threads() as threads:
        assert threads.pool is None and threads.count == 1
    with threadpool_limits(2, user_api="blas"):
        with pp.product_threads() as threads:  # outside the limit: no pool
            assert threads.pool is None
        with single_threaded_blas(), pp.product_threads() as threads:
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
                else os.cpu_count()
            assert threads.count == min(2, cpus)


def blas_threads() -> dict[str, int]:
    """Each BLAS library's threads, by its file."""
    return {pool["filepath"]: pool["num_threads"] for pool in threadpool_info()
            if pool["user_api"] == "blas"}


def test_a_large_factor_gets_the_callers_blas_threads_back():
    """Inside the solvers' one-thread limit, ``callers_blas_threads`` gives each BLAS
    library the caller's threads for its block and one thread again after it; outside the
    limit it changes nothing."""
    with threadpool_limits(2, user_api="blas"):
        callers = blas_threads()  # (a library built for one thread stays at one)
        with single_threaded_blas():
            assert set(blas_threads().values()) == {1}
            with callers_blas_threads():
                assert blas_threads() == callers
            assert set(blas_threads().values()) == {1}
        with callers_blas_threads():
            assert blas_threads() == callers
        assert blas_threads() == callers

"""The one Gram-matrix policy (cvxtop.gram), shared by TopRanker and AATP."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop import AATP, TopRanker
from cvxtop.gram import (
    ROUNDING_FACTOR,
    SYMMETRY_RTOL,
    check_gram_matrix,
    nearest_psd,
)


def low_rank_gram(rng, n=60, rank=8, dtype=np.float64):
    G = rng.standard_normal((n, rank))
    K = G @ G.T
    K /= np.sqrt(np.outer(np.diag(K), np.diag(K)))  # cosine-normalized, as string kernels are
    return K.astype(dtype)


def labels(n, rng):
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = [1, 0]
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_dtypes_are_kept_without_a_copy(rng, dtype):
    K = low_rank_gram(rng, dtype=dtype)
    gram = check_gram_matrix(K)
    assert gram.values is K and gram.dtype == dtype
    assert gram.rows([3, 1]).dtype == np.float64
    assert np.array_equal(gram.rows([3, 1]), K[[3, 1]].astype(np.float64))


def test_memory_mapped_gram_is_not_copied(rng, tmp_path):
    K = low_rank_gram(rng, dtype=np.float32)
    np.save(tmp_path / "K.npy", K)
    mapped = np.load(tmp_path / "K.npy", mmap_mode="r")
    gram = check_gram_matrix(mapped)
    assert np.shares_memory(gram.values, mapped) and gram.values.dtype == np.float32
    assert gram.rank == 8


def test_integer_and_boolean_grams_become_float64():
    gram = check_gram_matrix(np.eye(4, dtype=np.int64))
    assert gram.dtype == np.float64 and gram.rank == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rank_ignores_the_rounding_of_the_input_dtype(rng, dtype):
    """A float32 Gram matrix of rank 8 has noise eigenvalues from its rounding; they stay
    below the dtype's tolerance, so the rank is 8, as in float64."""
    K = low_rank_gram(rng, n=300, rank=8, dtype=dtype)
    gram = check_gram_matrix(K)
    noise = np.abs(gram.eigenvalues[:-8]).max()
    assert gram.rank == 8
    assert noise <= gram.tolerance
    if dtype == np.float32:
        assert noise > 300 * np.finfo(np.float64).eps * gram.eigenvalues[-1]  # not float64 noise
    assert gram.tolerance >= ROUNDING_FACTOR * np.finfo(dtype).eps * gram.frobenius


def test_gram_rtol_sets_the_tolerance_relative_to_the_largest_eigenvalue(rng):
    K = low_rank_gram(rng)
    gram = check_gram_matrix(K, rtol=1e-3)
    assert gram.tolerance == pytest.approx(1e-3 * gram.eigenvalues[-1])
    assert check_gram_matrix(K, rtol=0.5).rank < 8


@pytest.mark.parametrize("bad, error, match", [
    ("x", TypeError, "gram_rtol must be None or a real number"),
    (True, TypeError, "gram_rtol must be None or a real number"),
    (-1e-3, ValueError, r"gram_rtol must lie in \[0, 1\)"),
    (1.0, ValueError, r"gram_rtol must lie in \[0, 1\)"),
])
def test_bad_gram_rtol(bad, error, match):
    with pytest.raises(error, match=match):
        check_gram_matrix(np.eye(3), rtol=bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_asymmetry_within_rounding_is_symmetrized(rng, dtype):
    K = low_rank_gram(rng, dtype=np.float64)
    bump = 0.1 * SYMMETRY_RTOL[np.dtype(dtype)]
    K[0, 1] += bump
    gram = check_gram_matrix(K.astype(dtype))
    assert np.array_equal(gram.values, gram.values.T)
    assert 0 < gram.asymmetry <= 2 * bump


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_asymmetry_beyond_rounding_is_refused_with_both_values(rng, dtype):
    K = low_rank_gram(rng).astype(dtype)
    K[0, 1] += 10 * SYMMETRY_RTOL[np.dtype(dtype)]
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K − Kᵀ\| = "
                                         r"[0-9.e-]+, above the rounding threshold"):
        check_gram_matrix(K)


def test_not_psd_names_the_matrix_the_eigenvalue_the_threshold_and_the_remedies(rng):
    K = low_rank_gram(rng)
    lam, V = np.linalg.eigh(K)
    lam[0] = -1e-6 * lam[-1]
    K = (V * lam) @ V.T
    gram = check_gram_matrix(K, "my Gram")
    with pytest.raises(ValueError) as info:
        gram.check_psd()
    text = str(info.value)
    assert text.startswith("my Gram is not positive semidefinite: its smallest eigenvalue is")
    for part in ("-1e-06 × the largest", "rounding threshold", "nearest_psd",
                 "gram_rtol >= 1e-06"):
        assert part in text
    check_gram_matrix(K, rtol=2e-6).check_psd()  # the way out the message gives
    check_gram_matrix(nearest_psd(K)).check_psd()  # and the other one


def test_round_off_negative_eigenvalues_are_zero_in_the_factor(rng):
    K = low_rank_gram(rng)
    lam, V = np.linalg.eigh(K)
    gram = check_gram_matrix(K)
    lam[0] = -0.5 * gram.tolerance
    factor = check_gram_matrix((V * lam) @ V.T).factor()
    assert factor.rank == 8
    assert np.allclose(factor.F @ factor.F.T, K, atol=1e-10)
    a = factor.dual_map @ np.ones(8)
    assert np.allclose(K @ a, factor.F @ np.ones(8), atol=1e-8)


def test_nearest_psd_clips_negative_eigenvalues():
    P = nearest_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert np.allclose(P, [[1.5, 1.5], [1.5, 1.5]])
    assert np.linalg.eigvalsh(P).min() > -1e-12


@pytest.mark.parametrize("case, match", [
    ("indefinite", "not positive semidefinite"),
    ("asymmetric", "must be symmetric"),
])
def test_toprank_and_aatp_accept_and_refuse_the_same_matrices(rng, case, match):
    """One policy: the same Gram matrix is refused by both estimators with one message,
    and a matrix within the tolerances is accepted by both."""
    n = 40
    K = low_rank_gram(rng, n=n)
    y = labels(n, rng)
    lam, V = np.linalg.eigh(K)
    gram = check_gram_matrix(K)
    slightly = K.copy()
    if case == "indefinite":
        lam[0] = -10 * gram.tolerance
        bad = (V * lam) @ V.T
        lam[0] = -0.1 * gram.tolerance
        slightly = (V * lam) @ V.T
    else:
        bad = K.copy()
        bad[0, 1] += 1e-6
        slightly[0, 1] += 1e-10
    for model in (TopRanker(kernel="precomputed", k=2), AATP(kernel="precomputed")):
        with pytest.raises(ValueError, match=match):
            model.fit(bad, y)
        model.fit(slightly, y)
        assert model.gram_rank_ == 8


def test_estimators_report_the_rank_they_used(rng):
    K = low_rank_gram(rng, n=50, rank=5, dtype=np.float32)
    y = labels(50, rng)
    assert TopRanker(kernel="precomputed", k=2).fit(K, y).gram_rank_ == 5
    model = AATP(kernel="precomputed", tau=0.2).fit(K, y)
    assert model.gram_rank_ == 5 and model.engine_ == "interior-point"

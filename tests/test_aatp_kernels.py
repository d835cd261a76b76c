"""AATP's kernels (cvxtop.aatp.kernels) and the candidate kernel K_k; the Gram policy
itself is tested in test_gram.py."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from cvxtop.reference.aatp import kernel_k
from cvxtop.aatp.kernels import make_kernel, rbf_gram
from cvxtop.gram import check_gram_matrix


def test_rbf_gram_matches_scikit_learn(rng):
    A, B = rng.standard_normal((7, 3)), rng.standard_normal((5, 3))
    assert np.allclose(rbf_gram(A, B, 0.3), rbf_kernel(A, B, gamma=0.3), atol=1e-14)


def test_default_gamma_is_one_over_n_features():
    assert make_kernel("rbf", None, 4).gamma == 0.25
    assert make_kernel("rbf", 2, 4).gamma == 2.0


@pytest.mark.parametrize("rank", [1, 3, 6])
def test_factor_reproduces_the_gram_matrix(rng, rank):
    G = rng.standard_normal((6, rank))
    K = G @ G.T
    F = check_gram_matrix(K).factor().F
    assert F.shape[1] == rank
    assert np.allclose(F @ F.T, K, atol=1e-12)


def test_candidate_kernel_is_psd_and_factorized(rng):
    """K_k of eq. (4) is the Gram matrix of the rows f − f_k, hence PDS (Section 3.3)."""
    X = rng.standard_normal((6, 2))
    K = rbf_gram(X, X, 0.7)
    F = check_gram_matrix(K).factor().F
    for k in range(6):
        Kk = kernel_k(K, k)
        assert np.allclose(Kk, (F - F[k]) @ (F - F[k]).T, atol=1e-12)
        assert np.linalg.eigvalsh(Kk).min() > -1e-12


@pytest.mark.parametrize("kernel, gamma, error, match", [
    ("poly", None, ValueError, "kernel must be one of"),
    (3, None, TypeError, "kernel must be one of"),
    ("rbf", -1.0, ValueError, "gamma must be a finite number > 0"),
    ("rbf", "scale", TypeError, "gamma must be None or a real number"),
])
def test_bad_kernel_arguments(kernel, gamma, error, match):
    with pytest.raises(error, match=match):
        make_kernel(kernel, gamma, 3)


def test_callable_kernel_with_a_wrong_shape_is_an_error(rng):
    k = make_kernel(lambda a, b: np.ones((len(a), 2)), None, 3)
    with pytest.raises(ValueError, match=r"returned shape \(4, 2\).*expected \(4, 4\)"):
        k.train_gram(rng.standard_normal((4, 3)))

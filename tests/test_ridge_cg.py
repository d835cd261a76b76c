"""Conjugate gradients on ridged Gram systems (cvxtop.solvers.ridge_cg): the answer solves
the system column by column, from any start, a zero column is solved by zero, and the
products split over threads equal the plain ones; an active set's steps solve to a loose
residual first."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from cvxtop.solvers import ridge_cg
from cvxtop.solvers.parallel_products import ProductThreads


def system(seed: int, m: int = 120, d: int = 300, density: float = 0.05):
    rng = np.random.default_rng(seed)
    B = sp.random(m, d, density=density, format="csr", random_state=seed)
    signs = rng.choice([-1.0, 1.0], m)
    c, r = float(rng.choice([0.01, 1.0, 100.0])), float(rng.choice([1e-3, 0.1, 10.0]))
    dense = c * (signs[:, None] * (B @ B.T).toarray() * signs[None, :]) + r * np.eye(m)
    return B, signs, c, r, dense, rng


@pytest.mark.parametrize("seed", range(8))
def test_the_answer_solves_every_column(seed):
    B, signs, c, r, dense, rng = system(seed)
    R = rng.standard_normal((B.shape[0], 4))
    start = rng.standard_normal(R.shape) if seed % 2 else np.zeros_like(R)
    A = ridge_cg.RidgedGram(B, signs, c, r)
    np.testing.assert_allclose(A @ R, dense @ R, rtol=1e-12, atol=1e-10)
    Y, residual = ridge_cg.solve(A, R, start, 1e-11, 10_000)
    assert residual <= 1e-11
    np.testing.assert_allclose(Y, np.linalg.solve(dense, R), rtol=1e-8, atol=1e-10)


def test_a_zero_column_is_solved_by_zero_from_any_start():
    B, signs, c, r, dense, rng = system(0)
    R = rng.standard_normal((B.shape[0], 3))
    R[:, 1] = 0.0
    Y, residual = ridge_cg.solve(ridge_cg.RidgedGram(B, signs, c, r), R,
                                 rng.standard_normal(R.shape), 1e-10, 10_000)
    assert residual <= 1e-10 and np.all(Y[:, 1] == 0.0)


def test_few_iterations_report_the_residual_they_reached():
    B, signs, c, r, dense, rng = system(1, m=200, density=0.2)
    R = rng.standard_normal((200, 2))
    A = ridge_cg.RidgedGram(B, signs, 1.0, 1e-6)
    Y, residual = ridge_cg.solve(A, R, np.zeros_like(R), 1e-12, 2)
    actual = np.max(np.linalg.norm(R - A @ Y, axis=0) / np.linalg.norm(R, axis=0))
    assert residual == pytest.approx(actual, rel=1e-9) and residual > 1e-12


def test_products_over_threads_equal_the_plain_products(monkeypatch):
    monkeypatch.setattr(ridge_cg, "PARALLEL_NONZEROS", 10)
    B, signs, c, r, dense, rng = system(2)
    Y = rng.standard_normal((B.shape[0], 4))
    with ThreadPoolExecutor(3) as pool:
        threaded = ridge_cg.RidgedGram(B, signs, c, r, ProductThreads(pool, 3))
        assert threaded._pool is not None and len(threaded._blocks) == 3
        np.testing.assert_allclose(threaded @ Y, ridge_cg.RidgedGram(B, signs, c, r) @ Y,
                                   rtol=1e-12, atol=1e-12)


def test_a_step_residual_is_loose_for_a_bounded_number_of_steps():
    """The steps solve to the loose residual while they move more than ``FEW_MOVES`` items,
    for at most ``LOOSE_STEPS`` steps (inexact answers can move items to and fro), then to
    the full one."""
    many = ridge_cg.FEW_MOVES + 1
    residual = ridge_cg.StepResidual(1e-8)
    assert residual.rtol == ridge_cg.CG_LOOSE_RTOL and residual.loose
    for _ in range(ridge_cg.LOOSE_STEPS - 1):
        residual.after(many)
        assert residual.loose
    residual.after(many)
    assert residual.rtol == 1e-8 and not residual.loose
    residual.after(3)  # once tight, tight for the rest of the guess's steps
    assert residual.rtol == 1e-8


@pytest.mark.parametrize("moves", [0, 1, ridge_cg.FEW_MOVES])
def test_a_step_residual_is_tight_after_a_step_that_moves_few_items(moves):
    """The items a step moves at the loose residual once they are few are those within its
    error of a threshold: the next steps solve to the full residual."""
    residual = ridge_cg.StepResidual(1e-8)
    residual.after(ridge_cg.FEW_MOVES + 12)
    assert residual.loose
    residual.after(moves)
    assert residual.rtol == 1e-8


def test_a_step_that_moves_more_than_its_items_keeps_the_residual_loose():
    """A step that moves few items but also a part of the guess many weights depend on (the
    selection dual's cap) has not settled: the next step still solves loosely; a step that
    moves nothing at all ends the loose steps whatever else."""
    residual = ridge_cg.StepResidual(1e-8)
    residual.after(1, settled=False)
    assert residual.loose and residual.rtol == ridge_cg.CG_LOOSE_RTOL
    residual.after(0, settled=False)
    assert residual.rtol == 1e-8


@pytest.mark.parametrize("tight", [1e-2, 1e-8])
def test_a_factored_or_already_loose_residual_is_the_tight_one(tight):
    assert ridge_cg.StepResidual(1e-8, iterative=False).rtol == 1e-8
    assert ridge_cg.StepResidual(tight).rtol == max(tight, ridge_cg.CG_LOOSE_RTOL)
    assert ridge_cg.StepResidual(1e-2).loose is False

"""The face equations from one shared factor (cvxtop.aatp.face_system): the same steps as
a direct solve of the anchored matrix, one factor across anchors and neighbouring free
sets, and the face-descent solver through it agreeing with the interior-point solver."""

from __future__ import annotations

import numpy as np
import pytest

from cvxtop.aatp import face_descent, face_system
from cvxtop.aatp.candidates import nearest_neighbour_tour
from cvxtop.aatp.face_descent import FaceDescentSolver
from cvxtop.aatp.face_system import FaceSystem
from cvxtop.aatp.fast import FastDualSolver
from cvxtop.aatp.kernels import rbf_gram
from cvxtop.gram import check_gram_matrix

from test_aatp_face_descent import KINDS, assert_same_solutions, instance

RIDGE = 1e-13


def anchored(K, item, sign, k, slots):
    """``Q[slots, slots]`` of the candidate anchored at item ``k``, with the ridge."""
    it, sg = item[slots], sign[slots]
    Q = (K[np.ix_(it, it)] - K[it, k][:, None] - K[k, it][None, :] + K[k, k]) \
        * sg[:, None] * sg[None, :]
    return Q + RIDGE * np.eye(len(slots))


def random_setup(rng, n=60, pairs=False):
    X = rng.standard_normal((n, 3))
    K = rbf_gram(X, X, 0.5)
    if pairs:  # an item in two slots, with both signs
        item = np.r_[np.arange(n), rng.choice(n, n // 3, replace=False)]
        sign = np.r_[np.ones(n), -np.ones(n // 3)]
    else:
        item, sign = np.arange(n), rng.choice([-1.0, 1.0], n)
    return K, item, sign


@pytest.mark.parametrize("pairs", [False, True])
def test_the_solutions_solve_the_anchored_face_equations(pairs):
    rng = np.random.default_rng(int(pairs))
    K, item, sign = random_setup(rng, pairs=pairs)
    faces = FaceSystem(lambda a, b: K[np.ix_(a, b)], item, sign, RIDGE)
    slots = np.arange(len(item))
    free = np.sort(rng.choice(slots, 40, replace=False))
    solved = 0
    for _ in range(30):
        k = int(rng.integers(len(K)))
        # neighbouring free sets: a few slots leave, a few enter, never the anchor's own
        out = rng.choice(free, 3, replace=False)
        into = rng.choice(np.setdiff1d(slots, free), 3, replace=False)
        free = np.setdiff1d(np.union1d(np.setdiff1d(free, out), into), np.flatnonzero(item == k))
        # an item in two slots of the set makes the face singular (but for the ridge): the
        # set holds one slot per item, the base that serves it may hold both
        free = free[np.unique(item[free], return_index=True)[1]]
        free.sort()
        g = rng.standard_normal(len(free))
        x = faces.solve(k, K[:, k], float(K[k, k]), free, g)
        Q = anchored(K, item, sign, k, free)
        assert x is not None
        assert np.linalg.norm(Q @ x - g) <= 1e-10 * np.linalg.norm(g)
        solved += 1
    assert solved == 30
    if not pairs:  # the base grows to every slot and stays (a pairs base swaps twins)
        assert faces.factorizations < 10


def test_a_trusted_base_skips_its_check_and_a_wrong_inverse_ends_the_trust():
    """After TRUST_AFTER solves that pass the residual check at once, a base's solves skip
    it (and stay exact on a well-conditioned face); an inverse gone wrong is caught by the
    next check, within RECHECK_EVERY solves, and from then on every solve is checked and
    refined to the tolerance."""
    rng = np.random.default_rng(9)
    X = rng.standard_normal((60, 3))
    K = rbf_gram(X, X, 5.0)  # a local kernel: well conditioned, as trust needs
    item, sign = np.arange(60), rng.choice([-1.0, 1.0], 60)
    faces = FaceSystem(lambda a, b: K[np.ix_(a, b)], item, sign, RIDGE)
    free = np.arange(5, 55)

    def solve():
        k = int(rng.choice(np.r_[0:5, 55:60]))
        g = rng.standard_normal(len(free))
        x = faces.solve(k, K[:, k], float(K[k, k]), free, g)
        assert x is not None
        residual = anchored(K, item, sign, k, free) @ x - g
        return float(np.linalg.norm(residual) / np.linalg.norm(g))

    skipped = 0
    for _ in range(2 * face_system.RECHECK_EVERY):
        assert solve() <= 1e-10
        skipped += faces.unchecked > 0
    assert faces.factorizations == 1 and skipped >= face_system.RECHECK_EVERY
    faces.inverse *= 1.0 + 1e-3  # a wrong inverse, as a base gone singular would give
    for _ in range(face_system.RECHECK_EVERY):
        solve()
        if faces.passed == 0:
            break
    assert faces.passed == 0
    for _ in range(face_system.RECHECK_EVERY):
        assert solve() <= 1e-10 and faces.unchecked == 0


def test_repeated_anchors_and_a_set_inside_the_base_need_no_new_factor():
    rng = np.random.default_rng(5)
    K, item, sign = random_setup(rng)
    faces = FaceSystem(lambda a, b: K[np.ix_(a, b)], item, sign, RIDGE)
    free = np.arange(10, 50)
    for k in (0, 1, 2, 0):
        for shrink in (0, 5, 10):
            g = np.ones(len(free) - shrink)
            part = free[shrink:]
            x = faces.solve(k, K[:, k], float(K[k, k]), part, g)
            assert np.linalg.norm(anchored(K, item, sign, k, part) @ x - g) <= 1e-10 * np.linalg.norm(g)
    assert faces.factorizations == 1


def test_a_base_whose_borders_cost_more_than_a_factor_is_formed_on_the_free_set():
    """A base of every slot serving free sets of 55% of them (within the share of the base
    that a border may take): each border's factor costs more than the solve's products
    with the inverse, so once the borders have cost more than a factor of the free set,
    the free set becomes the base; free sets that remove a few slots keep the base."""
    rng = np.random.default_rng(11)
    n = 400
    X = rng.standard_normal((n, 20))  # a well-conditioned Gram matrix
    K, item, sign = rbf_gram(X, X, 0.05), np.arange(n), rng.choice([-1.0, 1.0], n)
    faces = FaceSystem(lambda a, b: K[np.ix_(a, b)], item, sign, RIDGE)
    every = np.arange(1, n)  # not the anchor's own slot
    faces.solve(0, K[:, 0], float(K[0, 0]), every, np.ones(len(every)))
    assert faces.factorizations == 1 and len(faces.base) == len(every)
    for k in range(3):  # a few slots fewer: the border costs less than the products
        free = np.setdiff1d(every, np.r_[k, rng.choice(every, 5, replace=False)])
        g = rng.standard_normal(len(free))
        x = faces.solve(k, K[:, k], float(K[k, k]), free, g)
        assert np.linalg.norm(anchored(K, item, sign, k, free) @ x - g) \
            <= 1e-10 * np.linalg.norm(g)
    assert faces.factorizations == 1
    most = np.sort(rng.choice(every, 220, replace=False))
    for k in range(30):
        free = most[item[most] != k]
        g = rng.standard_normal(len(free))
        x = faces.solve(k, K[:, k], float(K[k, k]), free, g)
        assert np.linalg.norm(anchored(K, item, sign, k, free) @ x - g) \
            <= 1e-10 * np.linalg.norm(g)
    assert faces.factorizations == 2
    assert len(faces.base) <= len(most)


def test_a_singular_matrix_without_a_factor_reports_none():
    K = np.ones((6, 6))  # rank one: with no ridge, no Cholesky factor exists
    faces = FaceSystem(lambda a, b: K[np.ix_(a, b)], np.arange(6), np.ones(6), 0.0)
    assert faces.solve(0, K[:, 0], 1.0, np.arange(1, 6), np.ones(5)) is None


@pytest.mark.parametrize("kind", KINDS)
def test_face_descent_through_the_shared_factor_agrees_with_the_interior_point_solver(
        kind, monkeypatch):
    monkeypatch.setattr(face_descent, "SHARED_FACTOR_FROM", 1)
    rng = np.random.default_rng(10 + KINDS.index(kind))
    for _ in range(8):
        problem, gram = instance(rng, kind, n_max=20)
        tour = nearest_neighbour_tour(gram, problem.candidates)
        reference = FastDualSolver(problem).solve_many(tour)
        solver = FaceDescentSolver(problem, gram)
        assert_same_solutions(problem, reference, solver.solve_many(tour))


def test_a_local_kernel_of_hundreds_of_items_uses_the_shared_factor():
    """A local RBF kernel on 240 items: almost every slot is free for every candidate, the
    regime the shared factor is for; each solved candidate is certified and few factors
    serve them all."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((240, 4))
    gram = check_gram_matrix(rbf_gram(X, X, 2.5))
    from cvxtop.aatp.problem import CERTIFICATE_RTOL, items_problem
    y = (rng.random(240) < 0.1).astype(int)
    problem = items_problem(gram.factor().F, y, 1.0)
    tour = nearest_neighbour_tour(gram, problem.candidates)[:12]
    solver = FaceDescentSolver(problem, gram)
    solutions = solver.solve_many(tour)
    assert all(s.duality_gap <= CERTIFICATE_RTOL * max(1.0, abs(s.objective))
               for s in solutions)
    assert 1 <= solver.faces.factorizations <= 3


def test_a_shrinking_face_solves_each_smaller_face_from_its_first_factor():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((30, 30))
    Q = A @ A.T + 0.1 * np.eye(30)
    from cvxtop.aatp.face_system import ShrinkingFace
    face = ShrinkingFace(Q, RIDGE)
    kept = np.arange(30)
    for _ in range(12):
        g = rng.standard_normal(len(kept))
        sub = Q[np.ix_(kept, kept)] + RIDGE * np.eye(len(kept))
        x = face.solve(g)
        assert np.linalg.norm(sub @ x - g) <= 1e-9 * np.linalg.norm(g)
        position = int(rng.integers(len(kept)))
        face.remove(position)
        kept = np.delete(kept, position)
    with pytest.raises(np.linalg.LinAlgError):
        ShrinkingFace(-np.eye(3), 0.0)

"""Brute-force definitions of Predtron's problems (Jain et al. 2015) for tiny instances,
written from the paper's text.

Nothing here calls the fast code in :mod:`cvxtop.predtron` beyond reading a problem's
parameters: each loss, representation and the surrogate of eq. (2) is written out from its
definition and enumerated over the whole prediction space. Predtron's problem classes are
imported inside the functions that need them (they import cvxpy), so that
``import cvxtop.reference`` stays light.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

__all__ = ["predictions", "rep_loss", "sigma_y", "ndcg", "psi", "worst_loss", "margin"]

TOL = 1e-10


def predictions(problem):
    """Every prediction of a (tiny) problem."""
    from ..predtron import FiniteProblem, Multilabel

    if isinstance(problem, FiniteProblem):
        return list(range(problem.n_predictions))
    if isinstance(problem, Multilabel):
        return [np.array(s, dtype=np.int64) for s in itertools.product([0, 1], repeat=problem.m)]
    return [np.array(p, dtype=np.int64) + 1 for p in itertools.permutations(range(problem.m))]


def finite_rep_loss(problem, sigma, y):
    """rep and loss of Section 3 for Binary, Multiclass and Ordinal, from the definitions."""
    from ..predtron import Binary, Multiclass, Ordinal

    if isinstance(problem, Ordinal):
        return np.eye(problem.levels)[sigma], float(abs(sigma - y))
    if isinstance(problem, Multiclass):
        m = problem.m
        if sigma == m:  # REJECT
            cost = np.broadcast_to(np.asarray(problem.reject_cost, float), (m,))[y]
            return np.ones(m) / math.sqrt(m), float(cost)
        return np.eye(m)[sigma], float(sigma != y)
    assert isinstance(problem, Binary)
    alpha = np.broadcast_to(np.asarray(problem.costs, float), (2,))
    if problem.reject_costs is None:
        return np.array([1.0 if sigma == 1 else -1.0]), float(alpha[y]) * (sigma != y)
    if sigma == 2:
        beta = np.broadcast_to(np.asarray(problem.reject_costs, float), (2,))
        return np.ones(2) / math.sqrt(2), float(beta[y])
    return np.eye(2)[sigma], float(alpha[y]) * (sigma != y)


def multilabel_rep_loss(problem, sigma, y):
    m = problem.m
    rep = np.array([1.0 if s else -1.0 for s in sigma]) / math.sqrt(m)
    pred_set = {j for j in range(m) if sigma[j]}
    label_set = {j for j in range(m) if y[j]}
    if problem.loss_name == "hamming":
        loss = len(pred_set | label_set) - len(pred_set & label_set)
    elif problem.loss_name == "subset_01":
        loss = int(pred_set != label_set)
    else:
        loss = sum(1 for r in label_set for s in set(range(m)) - label_set
                   if r not in pred_set and s in pred_set)
    return rep, float(loss)


def dcg(positions, y):
    return sum((2.0 ** y[i] - 1) / math.log2(1 + positions[i]) for i in range(len(y)))


@functools.lru_cache(maxsize=None)
def ideal_dcg(y):
    """Z(y): the largest DCG over all rankings."""
    return max(dcg(p, y) for p in itertools.permutations(range(1, len(y) + 1)))


def ndcg(positions, y):
    """NDCG of Section 4: Σ_i (2^{y_i} − 1)/log2(1 + σ(i)) / Z(y)."""
    ideal = ideal_dcg(tuple(float(v) for v in y))
    return 1.0 if ideal == 0 else dcg(positions, y) / ideal


def ranking_rep_loss(problem, sigma, y):
    f = np.array([problem.f(i) if callable(problem.f) else problem.f[i - 1]
                  for i in range(1, problem.m + 1)], dtype=float)
    z = math.sqrt(float(np.sum(f**2)))
    return np.array([f[s - 1] for s in sigma]) / z, 1.0 - ndcg(sigma, y)


def rep_loss(problem, sigma, y):
    from ..predtron import FiniteProblem, Multilabel, SubsetRanking

    if isinstance(problem, FiniteProblem):
        return finite_rep_loss(problem, sigma, y)
    if isinstance(problem, Multilabel):
        return multilabel_rep_loss(problem, sigma, y)
    assert isinstance(problem, SubsetRanking)
    return ranking_rep_loss(problem, sigma, y)


def sigma_y(problem, y):
    """The fixed correct prediction σ_y documented by cvxtop (for rankings: y sorted in
    decreasing order, ties in document order)."""
    from ..predtron import FiniteProblem, Multilabel

    if isinstance(problem, FiniteProblem):
        return int(y)
    if isinstance(problem, Multilabel):
        return np.array(y, dtype=np.int64)
    order = sorted(range(len(y)), key=lambda i: (-y[i], i))
    positions = np.empty(len(y), dtype=np.int64)
    positions[order] = np.arange(1, len(y) + 1)
    return positions


def table(problem, t, y):
    """(prediction, rep, loss, similarity) for every prediction."""
    rows = []
    for sigma in predictions(problem):
        rep, loss = rep_loss(problem, sigma, y)
        rows.append((sigma, rep, loss, float(rep @ t)))
    return rows


def psi(problem, t, y):
    """Eq. (2) by enumeration."""
    rep_y, _ = rep_loss(problem, sigma_y(problem, y), y)
    return max(loss - float((rep_y - rep) @ t) for _, rep, loss, _ in table(problem, t, y))


def worst_loss(problem, t, y):
    """The largest loss over the maximizers of eq. (1)."""
    rows = table(problem, t, y)
    best = max(sim for *_, sim in rows)
    return max(loss for _, _, loss, sim in rows if sim >= best - TOL * (1 + abs(best)))


def margin(problem, t, y):
    """The largest γ with margin γ (Section 2.2) by enumeration; 0 if not compatible."""
    rows = table(problem, t, y)
    best = max(sim for *_, sim in rows)
    top = [sim >= best - TOL * (1 + abs(best)) for *_, sim in rows]
    correct = [loss <= TOL for _, _, loss, _ in rows]
    if top != correct:
        return 0.0
    gaps = [rc[3] - rw[3] for rc, c in zip(rows, correct) if c
            for rw, w in zip(rows, correct) if not w]
    return min(gaps) if gaps else math.inf

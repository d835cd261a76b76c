"""Mistake bounds of Perceptron@k-avg and Perceptron@k-max (Kar et al. 2015 Algorithms 1-2).

On generated streams whose margin is realized by a known unit vector ``w*`` in every batch
(a constant cut-off ``k`` per batch, ``R`` the largest feature norm of the stream):

* Corollary 8: under the (k, γ)-margin (Definition 5), Algorithm 1 makes
  ``Δ_T^C <= 4kR²/γ²`` mistakes;
* Corollary 10: under the strong γ-margin (Definition 4), Algorithm 2 makes
  ``Δ_T^C <= 4kR²/γ²`` mistakes;
* Theorems 7 and 9: on any stream, ``Δ_T^C <= (‖w‖·R·√(4k) + √L̂_T(w))²`` for every ``w``,
  with ``L̂_T(w)`` the sum over the batches of the avg (resp. max) surrogate at ``w``;
* the two lemmas of their proofs (Kar et al. 2015, Appendix C, Lemmas 18-20), step by step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from cvxtop import TopRanker, surrogates
from cvxtop.metrics import precision_at_k
from cvxtop.solvers.perceptron import PerceptronState, perceptron_step

N_POS, N_NEG, K = 8, 24, 3  # per batch; Corollary 8 needs k <= n₊
D = 30


@dataclass
class Stream:
    batches: list[tuple[np.ndarray, np.ndarray]]
    w_star: np.ndarray

    @property
    def R(self) -> float:
        return max(float(np.linalg.norm(X, axis=1).max()) for X, _ in self.batches)

    def margin(self, kind: str) -> float:
        """The margin ``w*`` realizes in every batch: Definition 5 ((k, γ)-margin, the mean
        of the n₊ − k + 1 lowest relevant scores over the highest irrelevant one) or
        Definition 4 (strong: lowest relevant over highest irrelevant)."""
        values = []
        for X, y in self.batches:
            s = X @ self.w_star
            pos = np.sort(s[y == 1])
            lowest = pos[:N_POS - K + 1].mean() if kind == "avg" else pos[0]
            values.append(lowest - s[y == 0].max())
        return min(values)

    def loss(self, surrogate: str, w: np.ndarray) -> float:
        """``L̂_T(w)``: the surrogate summed over the batches."""
        sur = surrogates.get(surrogate, K)
        return sum(sur.value(y, X @ w) for X, y in self.batches)

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        return np.vstack([X for X, _ in self.batches]), np.concatenate([y for _, y in self.batches])


def make_stream(seed: int, T: int, kind: str, noise: float = 3.0, flip: float = 0.0) -> Stream:
    """Batches of N_POS relevant and N_NEG irrelevant items along a random unit ``w*``.

    Irrelevant items project on ``w*`` uniformly in [-1, 0]. ``kind="strong"``: relevant
    ones in [0.3, 1]. ``kind="avg"``: two relevant items per batch hidden at -0.5 (below
    some irrelevant ones, so the strong margin fails) and the others in [0.6, 1], which
    keeps the (k, γ)-margin. Every item also gets a component orthogonal to ``w*`` of norm
    ``noise``. ``flip`` swaps that fraction of projections between classes (no margin).
    """
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(D)
    w_star /= np.linalg.norm(w_star)
    y = np.r_[np.ones(N_POS, dtype=np.int64), np.zeros(N_NEG, dtype=np.int64)]
    batches = []
    for _ in range(T):
        if kind == "strong":
            p_pos = rng.uniform(0.3, 1.0, N_POS)
        else:
            p_pos = np.r_[np.full(2, -0.5), rng.uniform(0.6, 1.0, N_POS - 2)]
        p = np.r_[p_pos, rng.uniform(-1.0, 0.0, N_NEG)]
        swap = rng.random(len(p)) < flip
        p[swap] = -p[swap]
        xi = rng.standard_normal((len(p), D))
        xi -= np.outer(xi @ w_star, w_star)
        xi *= noise / np.linalg.norm(xi, axis=1, keepdims=True)
        perm = rng.permutation(len(p))
        batches.append(((np.outer(p, w_star) + xi)[perm], y[perm]))
    return Stream(batches, w_star)


def run(stream: Stream, variant: str) -> tuple[PerceptronState, list[np.ndarray]]:
    """Algorithm 1 or 2 over the stream; the iterates ``w_0, ..., w_T``."""
    state = PerceptronState(np.zeros(D))
    iterates = [state.w.copy()]
    for X, y in stream.batches:
        perceptron_step(state, X, y, K, variant)
        iterates.append(state.w.copy())
    return state, iterates


# ---- Corollaries 8 and 10 ---------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_corollary_8_perceptron_avg_under_the_k_gamma_margin(seed):
    stream = make_stream(seed, T=1500, kind="avg")
    gamma = stream.margin("avg")
    assert gamma > 0.2
    assert stream.margin("strong") < 0  # only the weaker (k, γ)-margin holds
    # Claim 6, the step from the margin to the corollary: w*/γ has zero avg surrogate
    for X, y in stream.batches:
        assert surrogates.get("prec@k-avg", K).value(y, X @ (stream.w_star / gamma)) <= 1e-9
    state, _ = run(stream, "avg")
    bound = 4 * K * stream.R ** 2 / gamma ** 2
    assert 0 < state.mistakes <= bound
    assert state.batches == 1500


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_corollary_10_perceptron_max_under_the_strong_margin(seed):
    stream = make_stream(seed, T=1500, kind="strong")
    gamma = stream.margin("strong")
    assert gamma > 0.2
    for X, y in stream.batches:
        assert surrogates.get("prec@k-max", K).value(y, X @ (stream.w_star / gamma)) <= 1e-9
    state, _ = run(stream, "max")
    assert 0 < state.mistakes <= 4 * K * stream.R ** 2 / gamma ** 2


@pytest.mark.parametrize("variant, kind", [("avg", "avg"), ("max", "strong")])
def test_corollaries_through_the_estimator(variant, kind):
    """partial_fit (one batch per call, int k) and fit over repeated passes
    (``shuffle=False``, κ = k/n₊ per batch) are streams too: the same bound holds."""
    stream = make_stream(7, T=300, kind=kind)
    gamma = stream.margin(kind)
    bound = 4 * K * stream.R ** 2 / gamma ** 2
    online = TopRanker(f"prec@k-{variant}", k=K, solver="perceptron")
    for X, y in stream.batches:
        online.partial_fit(X, y)
    direct, _ = run(stream, variant)
    assert online.mistakes_ == direct.mistakes > 0
    np.testing.assert_allclose(online.coef_, direct.w, rtol=1e-12, atol=1e-12)
    X_all, y_all = stream.stacked()
    passes = TopRanker(f"prec@k-{variant}", k=K / N_POS, solver="perceptron",
                       batch_size=N_POS + N_NEG, epochs=5, shuffle=False).fit(X_all, y_all)
    assert 0 < passes.mistakes_ <= bound
    assert passes.mistakes_ >= online.mistakes_  # the first pass is the online run


# ---- Theorems 7 and 9 on streams without a margin ---------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("variant, kind", [("avg", "avg"), ("max", "strong")])
def test_theorems_7_and_9_hold_for_every_comparator(seed, variant, kind):
    stream = make_stream(seed, T=400, kind=kind, flip=0.1)
    assert stream.margin(kind) < 0  # flipped items break the margin
    state, _ = run(stream, variant)
    R = stream.R
    rng = np.random.default_rng(seed)
    comparators = [c * stream.w_star for c in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)]
    comparators += [state.w, state.w / max(np.linalg.norm(state.w), 1e-12)]
    comparators += [rng.standard_normal(D) for _ in range(2)]
    bounds = []
    for w in comparators:
        L = stream.loss(f"prec@k-{variant}", w)
        bounds.append((np.linalg.norm(w) * R * np.sqrt(4 * K) + np.sqrt(L)) ** 2)
    assert state.mistakes > 0
    assert state.mistakes <= min(bounds)


# ---- the lemmas of the proofs, step by step --------------------------------------------------

@pytest.mark.parametrize("variant, kind", [("avg", "avg"), ("max", "strong"), ("avg", "strong"),
                                           ("max", "avg")])
@pytest.mark.parametrize("flip", [0.05, 0.2])
def test_lemmas_18_to_20_at_every_step(variant, kind, flip):
    """Lemma 18: ``‖w_t‖² <= ‖w_{t-1}‖² + 4kR²Δ_t``, from ``<w_{t-1}, v_t> <= 0`` (false
    negatives score no higher than false positives) and ``‖v_t‖ <= 2Δ_t R``. Lemma 19
    (avg) and 20 (max): ``<w_t, w> >= <w_{t-1}, w> + Δ_t − ℓ(w; X_t, y_t)`` for every fixed
    ``w``. The lemmas hold on any stream, margin or not."""
    stream = make_stream(11, T=150, kind=kind, noise=1.5, flip=flip)
    state, iterates = run(stream, variant)
    assert state.updates >= 10
    rng = np.random.default_rng(0)
    comparators = [stream.w_star * c for c in (1.0, 5.0)] + [rng.standard_normal(D) * c
                                                             for c in (0.3, 1.0, 3.0)]
    sur = surrogates.get(f"prec@k-{variant}", K)
    mistakes = 0
    for (X, y), w_before, w_after in zip(stream.batches, iterates, iterates[1:]):
        v = w_after - w_before
        R_t = float(np.linalg.norm(X, axis=1).max())
        delta = round(K * (1 - precision_at_k(y, X @ w_before, K)))  # ties: pessimistic
        mistakes += delta
        assert float(w_before @ v) <= 1e-9 * (1 + np.linalg.norm(w_before) * np.linalg.norm(v))
        assert np.linalg.norm(v) <= 2 * delta * R_t * (1 + 1e-12)
        assert w_after @ w_after <= w_before @ w_before + 4 * K * R_t ** 2 * delta + 1e-9
        for w in comparators:
            gain = float(w_after @ w - w_before @ w)
            assert gain >= delta - sur.value(y, X @ w) - 1e-9
    assert mistakes == state.mistakes

"""Shared fixtures and instance generators for the test suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from cvxtop import surrogates
from cvxtop.surrogates.base import Surrogate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` as the module ``name`` (registered in ``sys.modules``,
    where dataclasses look their module up while being built)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def gap_scale_of(model) -> float:
    """What a fitted ``TopRanker``'s ``gap_`` is relative to: ``|objective_|``, or
    ``½‖coef_‖²`` where that is larger (prec@k-struct's negative loss; cvxtop.solvers.gaps)."""
    return max(abs(model.objective_), 0.5 * float(model.coef_ @ model.coef_))


def tiny_instance(rng: np.random.Generator, max_pos: int = 5, max_neg: int = 5,
                  ties: bool = False, min_pos: int = 1, min_neg: int = 1):
    """A random labeled score vector with shuffled items; with ``ties``, scores are drawn
    from a small integer grid so that equal scores (across and within classes) are common."""
    n_pos = int(rng.integers(min_pos, max_pos + 1))
    n_neg = int(rng.integers(min_neg, max_neg + 1))
    y = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)]
    if ties:
        s = rng.integers(-2, 3, size=n_pos + n_neg).astype(float) / 2.0
    else:
        s = rng.standard_normal(n_pos + n_neg)
    perm = rng.permutation(n_pos + n_neg)
    return y[perm], s[perm]


def random_pairs(rng: np.random.Generator, n: int) -> np.ndarray:
    """Up to ``2n`` random preference pairs (preferred, other) of distinct items among
    ``n``, at least one."""
    m = int(rng.integers(1, 2 * n))
    pairs = np.c_[rng.integers(0, n, m), rng.integers(0, n, m)]
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return pairs if len(pairs) else np.array([[0, 1]])


def registered(family: type[Surrogate] = Surrogate, convex: bool | None = None) -> list[str]:
    """Registered surrogate names of a family (a base class), optionally only the convex or
    non-convex ones: read from the registry, so that a new surrogate joins every test
    parametrized by it."""
    names = []
    for name in surrogates.available():
        cls = type(surrogates.get(name, 1))
        if issubclass(cls, family) and (convex is None or cls.convex == convex):
            names.append(name)
    return names


def definition(name: str):
    """The brute-force definition of the registered surrogate ``name``."""
    return type(surrogates.get(name, 1)).definition


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def svmperf_intercepts_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """prec@k-svmperf's cuts with the intercepts ``L(s) − g·s`` of the code before they
    were read off the labelings' counts, for tests of the mechanisms that certified its
    stalled fits then (with the counts' intercepts the rounds certify those fits first)."""
    from cvxtop.surrogates.prec_svmperf import PrecSvmperf

    monkeypatch.setattr(PrecSvmperf, "exact_intercepts", property(lambda self: False))
    monkeypatch.setattr(PrecSvmperf, "intercept_of", lambda self, g, irrelevant, k: None)

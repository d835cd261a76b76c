"""The selection of the largest entries that the surrogates use: the same items on every
CPU (numpy's argpartition orders ties by its SIMD code where the CPU has AVX2 or AVX-512)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cvxtop import surrogates
from cvxtop.surrogates.top_indices import top_indices


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.data())
def test_the_largest_entries_with_ties_taken_by_index(entries, data):
    """The definition: the first m of a stable sort by decreasing value."""
    values = np.array(entries, dtype=np.float64)
    m = data.draw(st.integers(0, len(values) + 2))
    expected = np.argsort(-values, kind="stable")[:m]
    chosen = top_indices(values, m)
    assert chosen.dtype == np.intp
    assert sorted(chosen.tolist()) == sorted(expected.tolist())


def test_the_entries_come_above_the_cut_first_each_part_by_index():
    values = np.array([1.0, 3.0, 2.0, 3.0, 2.0, 2.0])
    np.testing.assert_array_equal(top_indices(values, 4), [1, 3, 2, 4])
    np.testing.assert_array_equal(top_indices(values, 0), np.empty(0, dtype=np.intp))
    np.testing.assert_array_equal(top_indices(values, 9), np.arange(6))


@pytest.mark.parametrize("name", ["prec@k-struct", "prec@k-ramp", "prec@k-max", "prec@k-avg",
                                  "pap@k-avg", "pap@k-max", "pap@k-ts", "pauc-struct"])
def test_a_subgradient_at_ties_takes_the_tied_items_by_index(name):
    """Every score tied: of the five irrelevant items, the subgradient weighs those of the
    smallest indices (a prefix of them), on every CPU."""
    y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    g = surrogates.get(name, 2).subgradient(y, np.zeros(len(y)))
    weighed = np.flatnonzero(g[y == 0] != 0.0)
    assert len(weighed) and weighed.tolist() == list(range(len(weighed)))

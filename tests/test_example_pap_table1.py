"""examples/pap_table1.py (Hiranandani et al. 2020 Table 1): the table's cells, the pair counting
against an all-pairs enumeration, and a quick run end to end."""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import pytest

from conftest import load_example


@pytest.fixture(scope="module")
def ex():
    yield load_example("pap_table1")
    del sys.modules["pap_table1"]


def test_every_cell_of_table1_is_reproduced(ex):
    lines, differ = ex.table1_lines()
    assert differ == 0
    assert len(lines) == 2 + sum(len(cells) for cells in ex.PAPER.values())
    assert "| AUC | f1 | 22/30 | 22/30 | yes |" in lines


def test_the_table_rankings_have_five_relevant_items_of_eleven(ex):
    for ranking in ex.RANKINGS.values():
        assert (len(ranking), ranking.count("1")) == (11, 5)


def brute_pair_counts(a: np.ndarray, b: np.ndarray) -> dict[str, int]:
    pairs = list(itertools.combinations(range(len(a)), 2))
    return {"pairs": len(pairs),
            "discordant": sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in pairs),
            "a ties, b separates": sum(a[i] == a[j] and b[i] != b[j] for i, j in pairs)}


@pytest.mark.parametrize("seed", range(30))
def test_pair_counts_match_all_pairs(ex, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    a = rng.integers(0, 4, m) / 3.0  # few values: many ties
    b = rng.integers(0, 5, m) / 7.0
    assert ex.pair_counts(a, b) == brute_pair_counts(a, b)


def test_enumeration_covers_every_ranking(ex):
    shape = ex.ListShape(7, 3, 2)
    e = ex.enumerate_rankings(shape)
    assert len(e.pap) == math.comb(7, 3)
    assert e.pap.max() == 1.0 and e.pap.min() == 0.0


def test_quick_run_writes_the_report_and_the_figure(ex, tmp_path):
    text = ex.run(ex.QUICK_SHAPES, tmp_path, "quick")
    assert (tmp_path / "pap_table1.md").read_text() == text
    assert (tmp_path / "pap_table1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "every cell is reproduced" in text
    assert "| 11 | 5 | 2 | 462 | 106,491 |" in text
    # n₊ <= k: pAp@k is pAUC over the top k negatives (Hiranandani et al. 2020 Section 3), so the
    # two never order a pair differently
    assert "| 11 | 5 | 6 | 462 | 106,491 | 0 (0.0%) | 0 (0.0%) |" in text

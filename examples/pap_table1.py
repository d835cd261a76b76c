"""Reproduce Table 1 of Hiranandani et al. 2020 and measure how often its
point holds over every ranking of the same list.

Table 1 ranks one list of five relevant and six irrelevant items by five score functions and
argues from it that AUC and pAUC can prefer a ranking that is worse at the top (f1 has the
best AUC and the worst top; f2 the best pAUC over the top two negatives without the best
top), and that prec@k cannot tell rankings apart once n₊ < k (f4 and f5 tie at prec@6 = 5/6,
while pAp@6 prefers f5). Part 1 recomputes every number of the table with
:mod:`cvxtop.metrics`, next to the paper's. Part 2 enumerates every placement of the n₊
relevant items among n positions (all C(n, n₊) rankings) and counts, over all pairs of
rankings, how often AUC or pAUC orders a pair against pAp@k, and how often pAp@k separates
two rankings that prec@k ties. Writes ``pap_table1.md`` and ``pap_table1.png`` to ``--out``.
``--quick`` enumerates the table's own list (n = 11, n₊ = 5); the default adds lists of 16
items.

    python examples/pap_table1.py --quick
    python examples/pap_table1.py --out examples/output
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np

from cvxtop import metrics
from cvxtop.report import pyplot

# Table 1 of Hiranandani et al. 2020: the label at each rank (rank 1 first) under each score
# function.
RANKINGS: dict[str, str] = {
    "f1": "01101110000", "f2": "10111000001", "f3": "11000000111",
    "f4": "11011100000", "f5": "11101100000",
}
# The paper's numbers, with the number of pairs each one counts as its denominator.
PAPER: dict[str, dict[str, str]] = {
    "AUC": {"f1": "22/30", "f2": "21/30", "f3": "12/30"},
    "pAUC(0, 2/6]": {"f1": "2/10", "f2": "5/10", "f3": "4/10"},
    "pAp@2": {"f1": "2/4", "f2": "3/4", "f3": "1"},
    "prec@6": {"f4": "5/6", "f5": "5/6"},
    "pAp@6": {"f4": "27/30", "f5": "28/30"},
}
Metric = Callable[[np.ndarray, np.ndarray], float]


def metric(name: str) -> Metric:
    """The cvxtop metric a column of Table 1 reports, as a function of (labels, scores)."""
    table: dict[str, Metric] = {
        "AUC": lambda y, s: metrics.roc_auc(y, s),
        "pAUC(0, 2/6]": lambda y, s: metrics.partial_auc(y, s, 2),
        "pAp@2": lambda y, s: metrics.pap_at_k(y, s, 2),
        "prec@6": lambda y, s: metrics.precision_at_k(y, s, 6),
        "pAp@6": lambda y, s: metrics.pap_at_k(y, s, 6),
    }
    return table[name]


def labels_and_scores(ranking: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels in rank order and scores that decrease down the list (no ties)."""
    y = np.array([int(c) for c in ranking])
    return y, np.arange(len(y), 0, -1, dtype=float)


def table1_lines() -> tuple[list[str], int]:
    """Part 1: every cell of Table 1, cvxtop against the paper; and the number that differ.
    cvxtop's value is shown over the paper's denominator (each metric is a count of pairs
    or items over a fixed total)."""
    lines = ["| metric | function | cvxtop | paper | agree |", "|---|---|---|---|---|"]
    differ = 0
    for name, cells in PAPER.items():
        for f, paper in cells.items():
            value = metric(name)(*labels_and_scores(RANKINGS[f]))
            same = abs(value - float(Fraction(paper))) < 1e-12
            differ += not same
            written = int(paper.split("/")[1]) if "/" in paper else 1  # as the paper writes it
            shown = f"{round(value * written)}/{written}" if "/" in paper else f"{value:g}"
            lines.append(f"| {name} | {f} | {shown} | {paper} | {'yes' if same else 'NO'} |")
    return lines, differ


# ---- Part 2: every ranking of a list -----------------------------------------------------------

@dataclass(frozen=True)
class ListShape:
    """A list of ``n`` items of which ``n_pos`` are relevant, judged at cut-off ``k``."""

    n: int
    n_pos: int
    k: int


@dataclass(frozen=True)
class Enumeration:
    """The metrics of every ranking of one list shape (one row per ranking)."""

    shape: ListShape
    auc: np.ndarray
    pauc: np.ndarray
    prec: np.ndarray
    pap: np.ndarray


def enumerate_rankings(shape: ListShape) -> Enumeration:
    """AUC, pAUC over the top k negatives, prec@k and pAp@k of all C(n, n₊) rankings."""
    scores = np.arange(shape.n, 0, -1, dtype=float)
    rows = []
    for positions in itertools.combinations(range(shape.n), shape.n_pos):
        y = np.zeros(shape.n, dtype=int)
        y[list(positions)] = 1
        rows.append((metrics.roc_auc(y, scores), metrics.partial_auc(y, scores, shape.k),
                     metrics.precision_at_k(y, scores, shape.k),
                     metrics.pap_at_k(y, scores, shape.k)))
    auc, pauc, prec, pap = np.array(rows).T
    return Enumeration(shape, auc, pauc, prec, pap)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Rank codes of ``values`` (equal values share a code, codes increase with value);
    rounding to 12 digits makes equal fractions computed differently compare equal."""
    _, codes = np.unique(np.round(values, 12), return_inverse=True)
    return codes, int(codes.max()) + 1


def pair_counts(a: np.ndarray, b: np.ndarray) -> dict[str, int]:
    """Over all unordered pairs of rankings: how many ``a`` and ``b`` order in opposite
    directions (discordant), how many ``a`` ties while ``b`` does not, and the total.

    Counted from the joint table of the two metrics' values, so the cost is the number of
    distinct value pairs, not the square of the number of rankings."""
    ca, na = _codes(a)
    cb, nb = _codes(b)
    joint = np.zeros((na, nb), dtype=np.int64)
    np.add.at(joint, (ca, cb), 1)
    # above_b[i, j]: rankings with a-code i and b-code > j;
    # below_a_above_b[i, j]: rankings with a-code < i and b-code > j
    above_b = np.cumsum(joint[:, ::-1], axis=1)[:, ::-1]
    above_b = np.hstack([above_b[:, 1:], np.zeros((na, 1), dtype=np.int64)])
    below_a_above_b = np.vstack([np.zeros((1, nb), dtype=np.int64),
                                 np.cumsum(above_b, axis=0)[:-1]])
    discordant = int((joint * below_a_above_b).sum())
    same_a = joint.sum(axis=1)
    tied_a = int((same_a * (same_a - 1) // 2).sum())
    tied_both = int((joint * (joint - 1) // 2).sum())
    m = len(a)
    return {"pairs": m * (m - 1) // 2, "discordant": discordant,
            "a ties, b separates": tied_a - tied_both}


def study_row(e: Enumeration) -> dict[str, str]:
    """The counts behind the paper's three arguments for one list shape."""
    auc = pair_counts(e.auc, e.pap)
    pauc = pair_counts(e.pauc, e.pap)
    prec = pair_counts(e.prec, e.pap)
    pairs = auc["pairs"]

    def share(count: int) -> str:
        return f"{count:,} ({100 * count / pairs:.1f}%)"

    return {
        "n": str(e.shape.n), "n₊": str(e.shape.n_pos), "k": str(e.shape.k),
        "rankings": f"{len(e.auc):,}", "pairs": f"{pairs:,}",
        "AUC against pAp@k": share(auc["discordant"]),
        "pAUC against pAp@k": share(pauc["discordant"]),
        "prec@k ties, pAp@k separates": share(prec["a ties, b separates"]),
        "pAp@k against prec@k": share(prec["discordant"]),
    }


def reading(differ: int, rows: list[dict[str, str]], shapes: list[ListShape]) -> list[str]:
    """What the two tables show, stated from the numbers measured in this run."""
    def count(row: dict[str, str], column: str) -> int:
        return int(row[column].split()[0].replace(",", ""))

    first = rows[0]
    at_or_above = [r for r, s in zip(rows, shapes) if s.n_pos >= s.k]
    below = [r for r, s in zip(rows, shapes) if s.n_pos < s.k]
    lines = [
        "- Table 1: " + ("every cell is reproduced by the definitions cvxtop implements "
                         "(`roc_auc`, `partial_auc`, `precision_at_k`, `pap_at_k`)."
                         if differ == 0 else f"{differ} cell(s) differ; see the rows marked NO."),
        f"- f1 against f3 and f2 against f3 are not isolated: on Table 1's list with k = 2, AUC "
        f"orders {first['AUC against pAp@k']} of all pairs of rankings against pAp@2, and "
        f"pAUC {first['pAUC against pAp@k']}.",
        "- When n₊ >= k, pAp@k = 1 exactly when prec@k = 1 (Hiranandani et al. 2020 Section 3), "
        "but below the top the two still disagree: they order "
        + ", ".join(f"{r['pAp@k against prec@k']} (n₊ = {r['n₊']}, k = {r['k']})"
                    for r in at_or_above)
        + " pairs oppositely. The paper's summary that pAp@k 'behaves like prec@k' when "
        "n₊ > k holds at the top value, not as an ordering.",
        "- When n₊ <= k, pAp@k is pAUC over the top k negatives (Section 3), so the "
        "*pAUC against pAp@k* column is 0 on those rows: a check of the two implementations.",
    ]
    if below:
        lines.append(
            "- When n₊ < k, prec@k is capped at n₊/k and ties "
            + ", ".join(r["prec@k ties, pAp@k separates"] for r in below)
            + " pairs that pAp@k separates (f4 against f5 is one), and the two even order "
            + ", ".join(r["pAp@k against prec@k"] for r in below)
            + " pairs oppositely: prec@k rewards relevant items in the top k however they "
            "are ordered against the irrelevant ones there.")
    return lines


def markdown(rows: list[dict[str, str]]) -> list[str]:
    header = list(rows[0])
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(r[h] for h in header) + " |" for r in rows])


def plot(table_list: Enumeration, small_n_pos: Enumeration, path: Path) -> None:
    """AUC and pAUC against pAp@2 over every ranking of Table 1's list, with f1-f3 marked;
    prec@6 against pAp@6 with f4 and f5."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.0))
    panels = ((axes[0], table_list.auc, table_list.pap, "AUC", "pAp@2", ("f1", "f2", "f3")),
              (axes[1], table_list.pauc, table_list.pap, "pAUC(0, 2/6]", "pAp@2",
               ("f1", "f2", "f3")),
              (axes[2], small_n_pos.prec, small_n_pos.pap, "prec@6", "pAp@6", ("f4", "f5")))
    for ax, x, y, x_metric, y_metric, marked in panels:
        points, counts = np.unique(np.round(np.c_[x, y], 12), axis=0, return_counts=True)
        ax.scatter(points[:, 0], points[:, 1], s=8 + 4 * counts, alpha=0.4,
                   label="all rankings (size: how many)")
        for f in marked:
            where = (metric(x_metric)(*labels_and_scores(RANKINGS[f])),
                     metric(y_metric)(*labels_and_scores(RANKINGS[f])))
            ax.scatter(*where, marker="x", s=80)
            ax.annotate(f, where, textcoords="offset points", xytext=(5, 5))
        ax.set_xlabel(x_metric)
        ax.set_ylabel(y_metric)
        ax.legend(loc="upper left", fontsize=8)
    axes[0].set_title("n = 11, n₊ = 5: AUC against pAp@2")
    axes[1].set_title("n = 11, n₊ = 5: pAUC against pAp@2")
    axes[2].set_title("n = 11, n₊ = 5 < k = 6: prec@6 against pAp@6")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


QUICK_SHAPES = (ListShape(11, 5, 2), ListShape(11, 5, 6))
FULL_SHAPES = QUICK_SHAPES + (ListShape(16, 3, 2), ListShape(16, 3, 6), ListShape(16, 8, 2),
                              ListShape(16, 8, 6), ListShape(16, 12, 3))


def run(shapes: tuple[ListShape, ...], out: Path, mode: str) -> str:
    """Both parts; writes the report and the figure to ``out`` and returns the report."""
    start = time.perf_counter()
    table, differ = table1_lines()
    enumerations = {shape: enumerate_rankings(shape) for shape in shapes}
    rows = [study_row(e) for e in enumerations.values()]
    out.mkdir(parents=True, exist_ok=True)
    plot(enumerations[QUICK_SHAPES[0]], enumerations[QUICK_SHAPES[1]], out / "pap_table1.png")
    verdict = ("every cell agrees" if differ == 0
               else f"{differ} cell(s) differ from the paper")
    lines = [
        "# Hiranandani et al. 2020 Table 1 with cvxtop.metrics", "",
        f"`python examples/pap_table1.py{' --quick' if mode == 'quick' else ''}`; "
        f"{time.perf_counter() - start:.1f} s.", "",
        "## 1. Table 1, recomputed", "",
        "Labels in rank order as printed in the paper; scores decrease down the list, so "
        f"there are no ties. pAUC is the raw (not McClish-standardized) pAUC over the top two "
        f"negatives, `cvxtop.metrics.partial_auc(y, s, 2)`. Result: {verdict}.", "",
        *table, "",
        "## 2. Every ranking of the list", "",
        "All C(n, n₊) placements of the relevant items, compared in every unordered pair. "
        "*AUC against pAp@k*: pairs that AUC and pAp@k order in opposite directions (f1 "
        "against f3 in Table 1 is one); *pAUC against pAp@k*: the same for pAUC over the top "
        "k negatives (f2 against f3); *prec@k ties, pAp@k separates*: pairs with equal prec@k "
        "and different pAp@k (f4 against f5); *pAp@k against prec@k*: pairs the two order "
        "oppositely. Percentages are of all pairs.", "",
        *markdown(rows), "",
        "## Reading", "",
        *reading(differ, rows, list(enumerations)),
        "", "Figure: `pap_table1.png` (every ranking of Table 1's list, with f1-f5 marked).", "",
    ]
    text = "\n".join(lines)
    (out / "pap_table1.md").write_text(text)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the table's own list")
    parser.add_argument("--out", type=Path, default=Path("examples/output"))
    args = parser.parse_args()
    text = run(QUICK_SHAPES if args.quick else FULL_SHAPES, args.out,
               "quick" if args.quick else "full")
    print(text)


if __name__ == "__main__":
    main()

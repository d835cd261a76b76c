"""Reproduce Figure 1 (a)-(c) of Jain et al. 2015, Section 6.

Subset ranking with the NDCG loss, learned by Predtron (η = 1):

* (a) test loss against the number n of training lists (m = 20, p0 = 30), for
  ``rep(σ) ∝ f(σ)`` with f(i) = 1/i, −i^1.1 and −i²;
* (b) the same against the list length m (n = 30, p0 = 30);
* (c) ℓ2 margins (Predtron) against ℓ1 margins (Predtron.Link, r = log p0/(log p0 − 1)) on
  uniform data with an s-sparse w* (s = 50, n = 50, m = 20), as p0 grows;
* and the exact batch reference (cvxpy) at one setting of (a), to see where the online
  method ends up.

Each learner makes passes over its training lists until one pass has no mistake (at most
``EPOCHS``), then is scored on fresh test lists by the mean of 1 − NDCG (ties broken against
the label). Writes ``figure1a.png``, ``figure1b.png``, ``figure1c.png`` and ``figure1.md`` to
``--out``. ``--quick`` runs a reduced grid (under a minute); the default is the full grid.

    python examples/predtron_figure1.py --quick
    python examples/predtron_figure1.py --out examples/output
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cvxtop.predtron import (Predtron, PredtronLink, SubsetRanking,
                             batch_objective, batch_reference, linear_loss)
from cvxtop.predtron.simulation import gaussian_lists, sparse_weights, uniform_lists
from cvxtop.report import pyplot

F_CHOICES = {
    "1/i": lambda i: 1.0 / i,
    "-i^1.1": lambda i: -float(i) ** 1.1,
    "-i^2": lambda i: -float(i) ** 2,
}
NOISE = 0.02  # std of the document noise in (a)-(b); the paper does not give it
SCALE_C = 3.0  # spreads the scores of (c) over the grade bands
EPOCHS = 100
FLOOR = 1e-13  # zero losses are drawn here on the log scale


@dataclass
class Grid:
    reps: int
    n_test: int
    n_values: list[int]
    m_values: list[int]
    p0_values: list[int]
    batch_n: int


QUICK = Grid(reps=2, n_test=100, n_values=[10, 40, 100], m_values=[10, 20], p0_values=[500, 2500],
             batch_n=10)
FULL = Grid(reps=20, n_test=300, n_values=[10, 20, 40, 60, 80, 100],
            m_values=[10, 13, 16, 19, 22, 25], p0_values=[500, 1000, 1500, 2000, 2500],
            batch_n=30)


def summary(losses: list[float]) -> tuple[float, float]:
    """Mean and standard error over repetitions."""
    arr = np.asarray(losses)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr))) if len(arr) > 1 else 0.0


def gaussian_run(n: int, m: int, seed: int, n_test: int) -> dict[str, tuple[float, int]]:
    """Test loss and training mistakes of Predtron for each f on one draw of (a)/(b) data."""
    rng = np.random.default_rng(seed)
    X, Y, w = gaussian_lists(n, m, 30, NOISE, rng)
    X_test, Y_test, _ = gaussian_lists(n_test, m, 30, NOISE, rng, w=w)
    out = {}
    for name, f in F_CHOICES.items():
        model = Predtron(SubsetRanking(m, f=f), eta=1.0, epochs=EPOCHS).fit(X, Y)
        out[name] = (model.average_loss(X_test, Y_test), model.mistakes_)
    return out


Curves = dict[str, list[tuple[float, float]]]


def panel_ab(values: list[int], grid: Grid, vary: str) -> tuple[Curves, Curves]:
    """Test-loss curves and training-mistake curves, one point per value of n or m."""
    losses: Curves = {name: [] for name in F_CHOICES}
    mistakes: Curves = {name: [] for name in F_CHOICES}
    for v in values:
        n, m = (v, 20) if vary == "n" else (30, v)
        runs = [gaussian_run(n, m, seed, grid.n_test) for seed in range(grid.reps)]
        for name in F_CHOICES:
            losses[name].append(summary([r[name][0] for r in runs]))
            mistakes[name].append(summary([r[name][1] for r in runs]))
    return losses, mistakes


def panel_c(grid: Grid) -> Curves:
    curves: Curves = {"Predtron-L2": [], "Predtron-L1": []}
    problem = SubsetRanking(20)
    for p0 in grid.p0_values:
        losses: dict[str, list[float]] = {name: [] for name in curves}
        for seed in range(grid.reps):
            rng = np.random.default_rng(1000 + seed)
            w = sparse_weights(p0, 50, rng)
            X, Y = uniform_lists(50, 20, w, SCALE_C, rng)
            X_test, Y_test = uniform_lists(grid.n_test, 20, w, SCALE_C, rng)
            for name, learner in (("Predtron-L2", Predtron), ("Predtron-L1", PredtronLink)):
                model = learner(problem, eta=1.0, epochs=EPOCHS).fit(X, Y)
                losses[name].append(model.average_loss(X_test, Y_test))
        for name in curves:
            curves[name].append(summary(losses[name]))
    return curves


def batch_rows(grid: Grid, lam: float = 1e-3) -> list[tuple]:
    """Online Predtron against the exact minimizer of Σψ + (λ/2)‖w‖² at one (a) setting."""
    rng = np.random.default_rng(7)
    X, Y, w = gaussian_lists(grid.batch_n, 20, 30, NOISE, rng)
    X_test, Y_test, _ = gaussian_lists(grid.n_test, 20, 30, NOISE, rng, w=w)
    rows = []
    for name, f in F_CHOICES.items():
        problem = SubsetRanking(20, f=f)
        online = Predtron(problem, eta=1.0, epochs=EPOCHS).fit(X, Y)
        result = batch_reference(problem, X, Y, lam=lam)
        rows.append((name, online.average_loss(X, Y), linear_loss(problem, result.coef, X, Y),
                     online.average_loss(X_test, Y_test),
                     linear_loss(problem, result.coef, X_test, Y_test),
                     batch_objective(problem, online.coef_, X, Y, lam), result.objective,
                     abs(result.objective - result.solver_value), online.n_iter_))
    return rows


def plot_ab(values, curves, xlabel, title, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, points in curves.items():
        means = np.maximum([p[0] for p in points], FLOOR)
        ax.semilogy(values, means, marker="o", label=f"f(i) = {name}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test loss 1 − NDCG (0 drawn at 1e-13)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_c(values, curves, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for name, points in curves.items():
        ax.errorbar(values, [p[0] for p in points], yerr=[p[1] for p in points], marker="o",
                    capsize=3, label=name)
    ax.set_xlabel("data dimensionality p0")
    ax.set_ylabel("test loss 1 − NDCG")
    ax.set_title("ℓ1 vs ℓ2 margins (s = 50, n = 50, m = 20)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(header: str, values, curves, fmt: str = ".2e") -> list[str]:
    names = list(curves)
    lines = [f"| {header} | " + " | ".join(names) + " |",
             "|---" * (len(names) + 1) + "|"]
    for i, v in enumerate(values):
        cells = [f"{curves[name][i][0]:{fmt}} ± {curves[name][i][1]:.1e}" for name in names]
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "output")
    parser.add_argument("--quick", action="store_true", help="reduced grid, under a minute")
    args = parser.parse_args()
    grid = QUICK if args.quick else FULL
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    curves_a, mistakes_a = panel_ab(grid.n_values, grid, "n")
    plot_ab(grid.n_values, curves_a, "number of training lists n",
            "Subset ranking (m = 20, p0 = 30)", args.out / "figure1a.png")
    curves_b, mistakes_b = panel_ab(grid.m_values, grid, "m")
    plot_ab(grid.m_values, curves_b, "documents per list m", "Subset ranking (n = 30, p0 = 30)",
            args.out / "figure1b.png")
    curves_c = panel_c(grid)
    plot_c(grid.p0_values, curves_c, args.out / "figure1c.png")
    batch = batch_rows(grid)

    lines = [f"# Figure 1 of Jain et al. 2015, {'quick' if args.quick else 'full'} mode",
             "",
             f"Mean test loss (1 − NDCG) ± standard error over {grid.reps} repetitions, "
             f"{grid.n_test} test lists each; Predtron with η = 1, passes until a pass without "
             f"mistakes (at most {EPOCHS}). Document noise {NOISE} in (a)-(b).",
             "", "## (a) m = 20, p0 = 30, varying n", ""]
    lines += table("n", grid.n_values, curves_a)
    lines += ["", "Training mistakes (rounds with positive loss over all passes):", ""]
    lines += table("n", grid.n_values, mistakes_a, fmt=".1f")
    lines += ["", "## (b) n = 30, p0 = 30, varying m", ""]
    lines += table("m", grid.m_values, curves_b)
    lines += ["", "Training mistakes:", ""]
    lines += table("m", grid.m_values, mistakes_b, fmt=".1f")
    lines += ["", "## (c) s = 50, n = 50, m = 20, varying p0", ""]
    lines += table("p0", grid.p0_values, curves_c)
    lines += ["", f"## Batch reference, (a) with n = {grid.batch_n}, λ = 1e-3", "",
              "| f | train loss online | train loss batch | test loss online | test loss batch "
              "| objective at online w | batch optimum | objective minus solver value (abs.) "
              "| passes |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, *vals, passes in batch:
        lines.append(f"| {name} | " + " | ".join(f"{v:.3g}" for v in vals) + f" | {passes} |")
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s."]
    (args.out / "figure1.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""The ``cvxtop`` command (also ``python -m cvxtop``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

import numpy as np

from . import __version__
from .io import read_scored_items, read_vector
from .report import evaluate_scores, format_table

__all__ = ["main", "build_parser"]


def _to_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _cmd_evaluate(args: argparse.Namespace) -> int:
    if args.scores is not None or args.labels is not None:
        if args.data is not None or args.scores is None or args.labels is None:
            raise ValueError("give either one data file, or both --scores and --labels")
        y, s, groups = read_vector(args.labels), read_vector(args.scores), None
    elif args.data is not None:
        items = read_scored_items(args.data)
        y, s, groups = items.y_true, items.y_score, items.groups
    else:
        raise ValueError("nothing to evaluate: give a data file, or --scores and --labels")
    result = evaluate_scores(y, s, k=args.k, tau=args.tau, groups=groups)
    if args.json:
        print(json.dumps(_to_json(result), indent=2))
    else:
        print(format_table([{"metric": m, "value": v} for m, v in result.items()]))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    result = run_demo(seed=args.seed)
    if args.json:
        print(json.dumps(_to_json({"description": result.description, "rows": result.rows}),
                         indent=2))
        return 0
    print("\n".join(result.description))
    print()
    print(format_table(result.rows))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cvxtop",
        description="Learning to rank at the top of a list: metrics, exact solvers, demos.",
    )
    parser.add_argument("--version", action="version", version=f"cvxtop {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ev = sub.add_parser(
        "evaluate",
        help="top-of-list metrics of scored items",
        description="Metrics of scored items, from one file (CSV with label/score columns, "
        "svmlight with the score as its only feature, or .npz with y_true/y_score) or from "
        "separate --scores and --labels files (one value per line, or .npy).",
    )
    ev.add_argument("data", nargs="?", help="CSV, svmlight or .npz file")
    ev.add_argument("--scores", help="file with one score per line (or .npy)")
    ev.add_argument("--labels", help="file with one 0/1 label per line (or .npy)")
    ev.add_argument("--k", type=int, default=10, help="cut-off for prec@k, pAp@k, pAUC (10)")
    ev.add_argument("--tau", type=float, default=0.05, help="top quantile for P@τ, NDCG@τ")
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.set_defaults(func=_cmd_evaluate)

    demo = sub.add_parser(
        "demo", help="the main job on shipped data",
        description="Rank the rare class of scikit-learn's breast-cancer data and print "
        "held-out top-of-list metrics for each scorer.")
    demo.add_argument("--seed", type=int, default=0, help="seed of the split (0)")
    demo.add_argument("--json", action="store_true", help="print JSON instead of a table")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except BrokenPipeError:  # output piped into a pager or `head` that closed early
        sys.stderr.close()
        return 0
    except (ValueError, TypeError, OSError) as exc:
        print(f"cvxtop {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

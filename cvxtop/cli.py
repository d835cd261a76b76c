"""The ``cvxtop`` command (also ``python -m cvxtop``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Sequence

import numpy as np

from . import __version__
from ._validation import (check_count_or_auto, check_features, check_fraction, check_labels,
                          check_random_state, check_ranked_scores)
from .io import read_scored_items, read_vector
from .parameters import positive_int
from .report import evaluate_scores, format_table, metric_rows
from .solvers.minibatch import DEFAULT_EPOCHS
from .solvers.one_block import ONE_BLOCK_ROUNDS

__all__ = ["main", "build_parser"]


class _UsageError(Exception):
    """A bad command line: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the option and the problem, then where to read more)
    that :func:`main` turns into exit status 2 instead of leaving the interpreter."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


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
        items = read_scored_items(args.data, label_column=args.label_column,
                                  score_column=args.score_column,
                                  group_column=args.group_column)
        y, s, groups = items.y_true, items.y_score, items.groups
    else:
        raise ValueError("nothing to evaluate: give a data file, or --scores and --labels")
    source = args.data or args.scores
    y = check_labels(y, f"the labels of {args.data or args.labels}")
    check_ranked_scores(s, f"the scores of {source}")  # a message that names the file
    groups = None if args.pooled else groups
    result = evaluate_scores(y, s, k=args.k, tau=args.tau, groups=groups)
    _check_k_fits(args.k, len(y), groups, args.data or args.scores)
    if args.json:
        print(json.dumps(_to_json(result), indent=2))
        return 0
    print(_metrics_caption(result))
    print(format_table(metric_rows(result)))
    for error in result["errors"]:
        print(f"undefined: {error}")
    return 0


def _check_k_fits(k: int, n_items: int, groups: Any, source: str) -> None:
    """``--k`` larger than every list leaves every cut-off metric undefined: refused."""
    if groups is None:
        longest, what = n_items, f"the {n_items} items"
    else:
        longest = int(np.unique(np.asarray(groups), return_counts=True)[1].max())
        what = f"the longest list ({longest} items)"
    if k > longest:
        raise ValueError(f"argument --k: {k} exceeds {what} of {source}")


def _metrics_caption(result: dict) -> str:
    """One line on what the metric table is computed over."""
    line = (f"{result['items']} items, {result['relevant']} relevant; k = {result['k']}, "
            f"tau = {result['tau']:g}")
    if result["groups"] is not None:
        line += (f"; each metric is the mean over the {result['groups']} groups (queries) "
                 "where it is defined (--pooled: all items as one list)")
    return line


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import columns, run_demo

    result = run_demo(seed=args.seed)
    if args.json:
        print(json.dumps(_to_json({"description": result.description, "k": result.k,
                                   "rows": result.rows}), indent=2))
        return 0
    print("\n".join(result.description))
    print()
    headings = columns(result.k)
    print(format_table([{headings[key]: "-" if value is None else value
                         for key, value in row.items()} for row in result.rows]))
    return 0


def _argument(parse: Callable[[str], Any], check: Callable[[Any, str], Any],
              must: str) -> Callable[[str], Any]:
    """An argparse type: ``parse`` the text, then run the library's own check of the value
    (:mod:`cvxtop._validation`, :mod:`cvxtop.parameters`), so that an option accepts
    exactly what the parameter it sets accepts; a refusal says what the option ``must``
    be."""

    def convert(text: str) -> Any:
        try:
            return check(parse(text), "the value")
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be {must}, got {text!r}") from None

    return convert


#: ``--k`` of ``evaluate``: a positive integer.
_positive_int = _argument(int, positive_int, "a positive integer")
#: ``--seed``: what numpy and scikit-learn accept as a seed.
_seed = _argument(int, check_random_state, "an integer from 0 to 2**32 - 1")
#: ``--tau``: a number in (0, 1), as the estimators' ``tau``.
_fraction = _argument(float, check_fraction, "a number in (0, 1)")
#: ``--batch-size``, ``--epochs``: a positive integer or ``auto``.
_parse_count_or_auto = _argument(lambda text: text if text == "auto" else int(text),
                                 check_count_or_auto, "a positive integer or 'auto'")


def _parse_k(text: str) -> int | float:
    """``--k``: an int (a cut-off) or a float in (0, 1] (κ, for prec@k surrogates)."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"k must be an int or a float, got {text!r}")


def _model_path(text: str) -> str:
    """``--model``: a ``.json`` or ``.npz`` path in an existing directory (checked before
    any training)."""
    from pathlib import Path

    path = Path(text)
    if path.suffix not in (".json", ".npz"):
        raise argparse.ArgumentTypeError(f"must end in .json or .npz, got {text!r}")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; name the model file "
                                         "to write")
    if not path.resolve().parent.is_dir():
        raise argparse.ArgumentTypeError(f"the directory of {text!r} does not exist")
    return text


def _cmd_fit(args: argparse.Namespace) -> int:
    import time

    from .training import fit_from_file

    start = time.perf_counter()
    report = fit_from_file(
        args.data, surrogate=args.surrogate, k=args.k, C=args.C, solver=args.solver,
        engine=args.engine, epochs=args.epochs, batch_size=args.batch_size,
        label_column=args.label_column, drop=tuple(args.drop.split(",")) if args.drop else (),
        positive=args.positive, standardize=args.standardize,
        test_size=args.test_size, seed=args.seed, tau=args.tau, model_path=args.model,
        progress=not args.json, group_column=args.group_column, pooled=args.pooled,
        skip_degenerate_groups=args.skip_degenerate_groups)
    report["training"]["seconds"] = round(time.perf_counter() - start, 3)
    _print_report(report, args.json, args.model, "fit")
    return 0


def _print_report(report: dict, as_json: bool, model: str | None, command: str) -> None:
    for message in report["warnings"]:
        print(f"cvxtop {command}: warning: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps(_to_json(report), indent=2))
        return
    print(format_table([{"": k, "value": "-" if v is None else v}
                        for k, v in report["training"].items()]))
    for part in ("train", "test"):
        if part in report:
            print(f"\nmetrics on the {part} items: {_metrics_caption(report[part])}")
            print(format_table(metric_rows(report[part])))
    if report["training"].get("zero_model"):
        print("\nThe fitted model is the zero model: every score ties, so its ranking means "
              "nothing. C does not change this; a larger --k, --surrogate prec@k-struct or a "
              "pap@k surrogate, or other features may (docs: 'When the optimum is the zero "
              "model').")
    if model:
        print(f"\nmodel saved to {model}")


def _cmd_aatp(args: argparse.Namespace) -> int:
    import time

    from .training import aatp_from_file

    start = time.perf_counter()
    report = aatp_from_file(
        args.data, gram=args.gram, tau=args.tau, C=args.C, kernel=args.kernel,
        gamma=args.gamma, label_column=args.label_column,
        drop=tuple(args.drop.split(",")) if args.drop else (), positive=args.positive,
        standardize=args.standardize, test_size=args.test_size, seed=args.seed,
        model_path=args.model, progress=not (args.json or args.no_progress),
        n_jobs=args.n_jobs, gram_rtol=args.gram_rtol, group_column=args.group_column)
    report["training"]["seconds"] = round(time.perf_counter() - start, 3)
    _print_report(report, args.json, args.model, "aatp")
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    from .io import read_features, read_matrix
    from .model_io import load_model

    model = load_model(args.model)
    if type(model.estimator).__name__ not in ("TopRanker", "AATP"):
        raise ValueError(f"{args.model}: cvxtop predict scores TopRanker and AATP models; "
                         f"this one is a {type(model.estimator).__name__} (load it in Python "
                         "with cvxtop.load_model)")
    if model.kernel == "precomputed":
        if args.gram is None or args.data is not None:
            raise ValueError(f"{args.model} is a precomputed-kernel model: give the Gram "
                             "matrix of the new items with the training items as --gram "
                             "(and no data file)")
        X = model.gram_columns(read_matrix(args.gram), f"{args.gram} (--gram)")
        source = args.gram
    else:
        if args.gram is not None or args.data is None:
            raise ValueError(f"{args.model} scores feature vectors: give a data file (--gram "
                             "is for precomputed-kernel models)")
        X = read_features(args.data, model.n_features, model.feature_names,
                          label_column=args.label_column,
                          drop=tuple(args.drop.split(",")) if args.drop else ())
        source = args.data
    if args.gram is None:
        X = check_features(X, f"{source} (its feature columns)")
    scores = model.decision_function(X)
    if args.output:
        _write_scores(args.output, scores)
    if args.json:
        print(json.dumps({"model": str(args.model), "data": str(source),
                          "items": len(scores), "scores": scores.tolist()}))
    elif not args.output:
        print("\n".join(repr(float(v)) for v in scores))
    return 0


def _write_scores(path: str, scores: np.ndarray) -> None:
    """Scores to ``.npy`` or to a text file, one per line (exact round-trip values)."""
    if path.endswith(".npy"):
        np.save(path, scores)
    else:
        with open(path, "w") as fh:
            fh.write("".join(f"{float(v)!r}\n" for v in scores))


def _cmd_bench(args: argparse.Namespace) -> int:
    import subprocess
    from pathlib import Path

    runner = Path(args.dir) / "benchmarks" / "run.py"
    if not runner.is_file():
        raise ValueError(f"{runner} not found: cvxtop bench runs the benchmark suite of a "
                         "checkout of the cvxtop repository; run it from the checkout's root "
                         "or pass --dir")
    command = [sys.executable, str(runner), "--out", args.out, *args.runner_options]
    return subprocess.run(command).returncode


def _cmd_oracle(args: argparse.Namespace) -> int:
    from .testing.oracle import run_lines

    errors = run_lines(sys.stdin, sys.stdout.write, sys.stdout.flush)
    return 1 if errors else 0


def _cmd_golden(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .testing.golden import build_golden, golden_text

    text = golden_text(build_golden())
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _add_data_file_options(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """The options shared by ``fit`` and ``aatp``: how to read the data file, the held-out
    split, where to save the model and the output format."""
    parser.add_argument("--label-column",
                        help="name of the label column of a CSV (default: the one column "
                        "named y_true, label, labels, y or target)")
    parser.add_argument("--group-column",
                        help="name of the column of list ids (users, queries) of a CSV, or "
                        "of the array of an .npz (default: the one named group, groups, "
                        "user, query or qid, if any; svmlight: qid). Such a column is never "
                        "a feature")
    parser.add_argument("--drop", help="comma-separated columns of a CSV to leave out")
    parser.add_argument("--positive", help="label value of relevant items (e.g. g)")
    parser.add_argument("--standardize", action="store_true", help="standardize the features")
    parser.add_argument("--test-size", type=float, default=0.0,
                        help="fraction held out for testing, stratified (0: none)")
    parser.add_argument("--seed", type=_seed, default=0, help=seed_help)
    parser.add_argument("--model", type=_model_path,
                        help="save the model to this .json or .npz file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    ev.add_argument("--k", type=_positive_int, default=10,
                    help="cut-off for prec@k, pAp@k, pAUC (10)")
    ev.add_argument("--tau", type=_fraction, default=0.05,
                    help="top quantile for P@τ, NDCG@τ, in (0, 1) (0.05)")
    ev.add_argument("--label-column", help="name of the label column (default: the one "
                    "named y_true, label, labels, y or target)")
    ev.add_argument("--score-column", help="name of the score column (default: the one "
                    "named y_score, score, scores, s or prediction)")
    ev.add_argument("--group-column", help="name of the column of list ids (default: the "
                    "one named group, groups, user, query or qid, if any)")
    ev.add_argument("--pooled", action="store_true",
                    help="with a group column: all items as one list instead of the mean "
                    "over groups")
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.set_defaults(func=_cmd_evaluate)

    fit = sub.add_parser(
        "fit", help="train a ranker on a data file and report its metrics",
        description="Train TopRanker on a data file (CSV with a label column, headerless "
        "CSV/.dat with the label last, svmlight, or .npz with X and y), optionally hold "
        "out a test part, print the metrics and save the model. Columns of a CSV are found "
        "by name ignoring case (a repeated name is refused): the label column is "
        "--label-column or the one named y_true/label/labels/y/target; a column of list ids "
        "(--group-column, or the one named group/groups/user/query/qid; svmlight's qid) "
        "makes the loss and the metrics means over the lists (--pooled: one list); two "
        "candidates for either role are refused. Every other column is a feature; the "
        "report says which columns were taken.")
    fit.add_argument("data", help="training data file")
    fit.add_argument("--surrogate", default="prec@k-avg", help="surrogate name (prec@k-avg)")
    fit.add_argument("--k", type=_parse_k, default=0.25,
                     help="cut-off: an int, or κ in (0, 1] for prec@k surrogates (0.25)")
    fit.add_argument("--C", type=float, default=1.0, help="weight of the loss (1.0)")
    fit.add_argument("--solver", default="exact", choices=["exact", "gd", "sgd", "perceptron"])
    fit.add_argument("--engine", default="auto", choices=["auto", "direct", "cutting-plane"])
    fit.add_argument("--epochs", type=_parse_count_or_auto, default="auto",
                     help=f"epochs of sgd/perceptron: an int or auto (auto: {DEFAULT_EPOCHS}, "
                     f"and up to {ONE_BLOCK_ROUNDS} cutting-plane rounds when sgd takes the "
                     "data as one block)")
    fit.add_argument("--batch-size", type=_parse_count_or_auto, default="auto",
                     help="mini-batch size of sgd/perceptron: an int or auto (auto: 500, "
                     "and n/64 for large data with sgd)")
    fit.add_argument("--tau", type=_fraction, default=0.05,
                     help="top quantile of P@τ and NDCG@τ, in (0, 1) (0.05)")
    fit.add_argument("--pooled", action="store_true",
                     help="with a column of list ids: train and evaluate on all items as one "
                     "list instead of the mean over lists (the ids are still no feature)")
    fit.add_argument("--skip-degenerate-groups", action="store_true",
                     help="with a column of list ids: leave the lists on which the surrogate "
                     "is undefined (a query without a relevant item) out of the loss; the "
                     "metrics leave them out either way")
    _add_data_file_options(fit, seed_help="seed of the split and of sgd (0)")
    fit.set_defaults(func=_cmd_fit)

    aatp = sub.add_parser(
        "aatp", help="train AATP (accuracy at the top) on a data file or a Gram matrix",
        description="Train AATP (Boyd et al. 2012) on a data file (the layouts of "
        "'cvxtop fit'), or with --gram on a precomputed Gram matrix whose rows follow the "
        "items of the data file (which then supplies the labels); print the metrics and "
        "save the model.")
    aatp.add_argument("data", help="data file (features and labels, or labels only with --gram)")
    aatp.add_argument("--gram", help="n x n Gram matrix (.npy, .npz or CSV): kernel precomputed")
    aatp.add_argument("--tau", type=_fraction, default=0.05, help="top quantile τ in (0, 1) "
                      "(0.05)")
    aatp.add_argument("--C", type=float, default=1.0, help="weight of the loss (1.0)")
    aatp.add_argument("--kernel", default="linear", choices=["linear", "rbf"])
    aatp.add_argument("--gamma", type=float, help="rbf width (1/n_features by default)")
    aatp.add_argument("--n-jobs", type=int, help="parallel workers for the candidates (1)")
    aatp.add_argument("--gram-rtol", type=float,
                      help="eigenvalues within this fraction of the largest are rounding "
                      "(default: from the Gram matrix's dtype)")
    aatp.add_argument("--no-progress", action="store_true",
                      help="no progress bar (candidates done / total) on stderr")
    _add_data_file_options(aatp, seed_help="seed of the split (0)")
    aatp.set_defaults(func=_cmd_aatp)

    bench = sub.add_parser(
        "bench", help="run the benchmark suite of a repository checkout",
        description="Run benchmarks/run.py of a checkout of the cvxtop repository: a table "
        "per benchmark and a summary, written to --out (the published tables under "
        "benchmarks/results/ are rewritten only with --out benchmarks/results). Every other "
        "option goes to benchmarks/run.py as it is: --quick (the smoke version), --only "
        "NAME ..., --json (see python benchmarks/run.py --help).")
    bench.add_argument("--out", default="cvxtop-bench",
                       help="directory for the tables and the summary (./cvxtop-bench)")
    bench.add_argument("--dir", default=".", help="the repository checkout (.)")
    bench.set_defaults(func=_cmd_bench)

    predict = sub.add_parser(
        "predict", help="score items with a saved model",
        description="Score the items of a data file with a model saved by 'cvxtop fit "
        "--model' or 'cvxtop aatp --model' (linear or rbf kernel): one score per line on "
        "stdout, or --output. The file's layouts are those of 'cvxtop fit'; a label column "
        "may be present (it is ignored), and a model trained on a CSV with a header picks "
        "its feature columns by name. A precomputed-kernel model scores from --gram: the "
        "Gram matrix of the new items (rows) with the training items (columns), or with "
        "every item of the training data file, whose training rows the model recorded.")
    predict.add_argument("model", help="model file (.json or .npz)")
    predict.add_argument("data", nargs="?",
                         help="CSV/.dat, svmlight, .npz (X) or .npy file of items")
    predict.add_argument("--gram", help="precomputed kernels: the new-by-training Gram matrix "
                         "(.npy, .npz or CSV)")
    predict.add_argument("--output", help="write the scores here (.npy, or text)")
    predict.add_argument("--label-column", help="name of a label column of a CSV to ignore")
    predict.add_argument("--drop", help="comma-separated columns of a CSV to leave out")
    predict.add_argument("--json", action="store_true", help="print JSON with the scores")
    predict.set_defaults(func=_cmd_predict)

    oracle = sub.add_parser(
        "oracle", help="answer ground-truth questions read as JSON Lines on stdin",
        description="Read one JSON case per line on stdin and write one JSON answer per "
        "line on stdout, in one process: op = metric, surrogate (value and subgradient), "
        "reference (the enumeration of a definition), cutoff (ceil(kappa n+)) or optimum "
        "(a certified optimum of a training problem). Each answer has id, ok and the "
        "result, or error; exit status 1 when some case got an error (docs: 'Using "
        "cvxtop as ground truth').")
    oracle.set_defaults(func=_cmd_oracle)

    golden = sub.add_parser(
        "golden", help="write the golden cases (the file shipped with cvxtop)",
        description="Compute the golden cases (instances with every metric, surrogate "
        "value and subgradient, cut-offs and certified optima) and write them as JSON: the "
        "file cvxtop ships as cvxtop/data/golden-v2.json.")
    golden.add_argument("--out", help="write here instead of stdout")
    golden.set_defaults(func=_cmd_golden)

    demo = sub.add_parser(
        "demo", help="the main job on shipped data",
        description="Rank the rare class of the letter data (shipped with cvxtop): exact "
        "against approximate training, with held-out top-of-list metrics for each scorer.")
    demo.add_argument("--seed", type=_seed, default=0, help="seed of the split (0)")
    demo.add_argument("--json", action="store_true", help="print JSON instead of a table")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if args.command == "bench":  # its options are benchmarks/run.py's own
            args.runner_options = unknown
        elif unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except BrokenPipeError:  # output piped into a pager or `head` that closed early
        sys.stderr.close()
        return 0
    except Exception as exc:
        if not isinstance(exc, _reported_errors()):
            raise
        # the advice of the library's message, in the command line's words
        message = str(exc).replace("pass skip_degenerate_groups=True",
                                   "pass --skip-degenerate-groups")
        print(f"cvxtop {args.command}: error: {message}", file=sys.stderr)
        return 2


def _reported_errors() -> tuple[type[Exception], ...]:
    """Errors reported on one line with exit status 2: bad input and files, and a solver's
    failure (:class:`cvxtop.SolverError`, whose module, which imports cvxpy, is loaded only
    by the commands that solve)."""
    module = sys.modules.get("cvxtop.exceptions")
    return (ValueError, TypeError, OSError) + ((module.SolverError,) if module else ())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

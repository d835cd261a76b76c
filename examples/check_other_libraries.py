"""Check torchmetrics, pytrec_eval and ranx against cvxtop's definitions with the kit.

Each library's suite is a few lines of glue around ``assert_metric_matches``, with the
library's convention for tied scores stated as the cvxtop metric's options
(docs/checking-libraries.md lists them), on the kit's draws: ties at the cut, grids,
magnitudes, float32 where the library computes in it; no draw is discarded.

Run:  python examples/check_other_libraries.py
A library that is not installed is reported as skipped; the script fails (exit status 1)
if a check fails.
"""

from __future__ import annotations

import sys
import traceback

import numpy as np
from hypothesis import given, settings

from cvxtop.testing import PROFILE, assert_metric_matches, ranked_lists, score_matrices

settings.load_profile(PROFILE)


def check_pytrec_eval() -> None:
    """trec_eval orders tied documents by document id, descending, and keeps scores as
    float32 (1e-46 and -1e-46 tie there): the draws are float32."""
    import pytrec_eval

    def trec(measure, y, s, k=None):
        ids = [f"d{i:04d}" for i in range(len(y))]
        evaluator = pytrec_eval.RelevanceEvaluator({"q": dict(zip(ids, map(int, y)))},
                                                   {measure if k is None else f"{measure}.{k}"})
        values = evaluator.evaluate({"q": dict(zip(ids, map(float, s)))})["q"]
        return values[measure if k is None else f"{measure}_{k}"]

    @given(ranked_lists("metric", max_items=30, dtype=np.float32))
    def suite(case):
        order = dict(ties="order", tie_key=-np.arange(len(case.y)))
        assert_metric_matches(lambda y, s, k: trec("P", y, s, k), "precision_at_k",
                              case.y, case.s, case.k, **order)
        assert_metric_matches(lambda y, s: trec("map", y, s), "average_precision",
                              case.y, case.s, **order)
        assert_metric_matches(lambda y, s, k: trec("ndcg_cut", y, s, k), "ndcg_at_k",
                              case.y, case.s, case.k, **order)

    suite()


def check_ranx() -> None:
    """ranx keeps a run's input order among tied scores, on lists of up to 15 items."""
    import ranx

    def evaluate(metric, y, s):
        qrels = ranx.Qrels({"q": {f"d{i}": int(r) for i, r in enumerate(y)}})
        run = ranx.Run({"q": {f"d{i}": float(v) for i, v in enumerate(s)}})
        return float(ranx.evaluate(qrels, run, metric))

    @given(ranked_lists("metric", max_items=15))
    def suite(case):
        assert_metric_matches(lambda y, s, k: evaluate(f"precision@{k}", y, s),
                              "precision_at_k", case.y, case.s, case.k, ties="order")
        assert_metric_matches(lambda y, s: evaluate("map", y, s), "average_precision",
                              case.y, case.s, ties="order")
        assert_metric_matches(lambda y, s, k: evaluate(f"ndcg@{k}", y, s), "ndcg_at_k",
                              case.y, case.s, case.k, ties="order")

    suite()


def check_torchmetrics() -> None:
    """torchmetrics' NDCG averages the gains of a tie block; per query, in float32."""
    import torch
    from torchmetrics.functional.retrieval import retrieval_normalized_dcg

    def ndcg(y, s, k):
        return float(retrieval_normalized_dcg(torch.tensor(s), torch.tensor(y), top_k=k))

    @given(score_matrices(max_items=12, dtype=np.float32))
    def suite(matrices):
        Y, S = matrices
        for k in (1, Y.shape[1] // 2 + 1):
            assert_metric_matches(ndcg, "ndcg_at_k", Y.ravel(), S.ravel(), k, ties="average",
                                  groups=np.repeat(np.arange(len(Y)), Y.shape[1]))

    suite()


CHECKS = {"pytrec_eval": check_pytrec_eval, "ranx": check_ranx,
          "torchmetrics": check_torchmetrics}


def main() -> int:
    failed = False
    for name, check in CHECKS.items():
        try:
            check()
        except ModuleNotFoundError as missing:
            print(f"{name}: skipped ({missing.name} is not installed)")
            continue
        except AssertionError:
            failed = True
            print(f"{name}: FAILED\n{traceback.format_exc()}")
            continue
        print(f"{name}: every check passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

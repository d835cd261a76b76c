"""Inputs that used to give a wrong answer with no error, or an error that did not name the
argument: each test here failed on the code before its fix (exit status 0, a wrong number,
or a traceback from inside numpy), and pins the behaviour that replaced it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from cvxtop import AATP, TopRanker, metrics, reference, surrogates
from cvxtop.cli import main
from cvxtop.cutoff import batch_prec_cutoff, prec_cutoff, tau_cutoff
from cvxtop.exceptions import SolverError
from cvxtop.surrogates.base import ScoreOverflowError
from cvxtop.testing import (assert_cutoff_matches, assert_metric_matches,
                            assert_near_optimum, assert_surrogate_matches)
from cvxtop.testing.oracle import answer, run_lines
from cvxtop.training import metric_cutoff

ROOT = Path(__file__).resolve().parents[1]
BIG = [2 ** 62 + 1, 2 ** 62]  # distinct int64 scores that float64 rounds to one value


def _csv(tmp_path, name, header, rows):
    path = tmp_path / name
    path.write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return str(path)


def _rows(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0.3).astype(int)
    y[:2] = [1, 0]
    return X, y


def _fit_json(argv, capsys):
    code = main(["fit", *argv, "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


# ---- 1. columns are found by name: duplicate names are refused --------------------------------
@pytest.mark.parametrize("header", ["A,a,label", "x,x,label", "x, X ,label"])
def test_a_header_that_repeats_a_name_is_refused_by_fit_and_predict(tmp_path, capsys, header):
    X, y = _rows()
    path = _csv(tmp_path, "d.csv", header, np.c_[X, y].tolist())
    code, _, err = _fit_json([path], capsys)
    assert code == 2 and "every name must be unique" in err
    good = _csv(tmp_path, "good.csv", "A,b,label", np.c_[X, y].tolist())
    model = str(tmp_path / "m.json")
    assert main(["fit", good, "--model", model, "--json"]) == 0
    capsys.readouterr()
    assert main(["predict", model, path]) == 2
    assert "every name must be unique" in capsys.readouterr().err


# ---- 2. which column is the label, which holds the lists -------------------------------------
def test_two_label_like_columns_are_refused_and_the_chosen_one_is_reported(tmp_path, capsys):
    X, y = _rows()
    path = _csv(tmp_path, "d.csv", "f1,y,target", np.c_[X[:, 0], 1 - y, y].tolist())
    code, _, err = _fit_json([path], capsys)
    assert code == 2 and "several columns could be the label column ('y', 'target')" in err
    code, report, _ = _fit_json([path, "--label-column", "target"], capsys)
    assert code == 0
    training = report["training"]
    assert training["label_column"] == "target" and training["features"] == 2
    assert training["group_column"] is None and training["lists"] is None


def test_a_group_column_is_reported_and_pooled_trains_on_one_list(tmp_path, capsys):
    X, y = _rows(n=60)
    users = np.arange(60) % 3
    path = _csv(tmp_path, "d.csv", "f1,f2,user,label", np.c_[X, users, y].tolist())
    code, report, _ = _fit_json([path, "--k", "1"], capsys)
    assert code == 0
    assert report["training"]["group_column"] == "user" and report["training"]["lists"] == 3
    assert report["train"]["groups"] == 3 and report["training"]["features"] == 2
    code, pooled, _ = _fit_json([path, "--k", "1", "--pooled"], capsys)
    assert code == 0 and pooled["training"]["lists"] is None
    assert pooled["train"]["groups"] is None and pooled["training"]["features"] == 2
    two = _csv(tmp_path, "two.csv", "f1,user,qid,label", np.c_[X[:, 0], users, users, y].tolist())
    code, _, err = _fit_json([two], capsys)
    assert code == 2 and "--group-column" in err
    code, chosen, _ = _fit_json([two, "--group-column", "qid", "--k", "1"], capsys)
    assert code == 0 and chosen["training"]["group_column"] == "qid"
    assert chosen["training"]["features"] == 2  # f1 and user: only the named column is ids


def test_fit_help_says_how_columns_are_chosen(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for phrase in ("--group-column", "--pooled", "ignoring case", "refused"):
        assert phrase in text


def test_an_aatp_group_column_is_reported_as_not_used(tmp_path, capsys):
    X, y = _rows(n=30)
    path = _csv(tmp_path, "d.csv", "f1,f2,query,label", np.c_[X, np.arange(30) % 2, y].tolist())
    assert main(["aatp", path, "--json", "--tau", "0.2"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["training"]["group_column"] == "query"
    assert "left out of the features and not used" in out.err


# ---- 3. integer scores are ranked exactly ---------------------------------------------------
@pytest.mark.parametrize("scores", [np.array(BIG), np.array(BIG, dtype=np.uint64), BIG,
                                    [2 ** 70 + 1, 2 ** 70], np.array([2 ** 64 - 1, 2 ** 64 - 2],
                                                                     dtype=np.uint64)])
def test_metrics_rank_integer_scores_exactly(scores):
    y = [1, 0]
    assert metrics.precision_at_k(y, scores, 1) == 1.0
    assert metrics.pap_at_k(y, scores, 1) == 1.0
    assert metrics.roc_auc(y, scores) == 1.0
    assert metrics.average_precision(y, scores) == 1.0
    assert metrics.positives_at_top(y, scores) == 1
    assert reference.prec_at_k_loss(y, scores, 1) == 0
    assert reference.pap_risk(y, scores, 1) == 0.0
    assert metrics.top_quantile(scores, 0.5) == max(int(v) for v in scores)
    assert answer({"op": "metric", "name": "precision_at_k", "y": y,
                   "s": [int(v) for v in scores], "k": 1})["value"] == 1.0


def test_evaluate_reads_scores_without_rounding_their_order(tmp_path, capsys):
    """Scores in a file are ranked as written: integers past 2**53 and decimals longer than
    float64's digits stay distinct (float64 would tie them and score 0)."""
    for name, scores in (("ints.csv", ["9223372036854775807", "9223372036854775806"]),
                         ("digits.csv", ["0.1000000000000000000001", "0.1"])):
        path = _csv(tmp_path, name, "label,score", [[1, scores[0]], [0, scores[1]]])
        assert main(["evaluate", path, "--k", "1", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["metrics"]["precision_at_k"] == 1.0
    lines = tmp_path / "s.txt"
    lines.write_text("9223372036854775807\n9223372036854775806\n")
    labels = tmp_path / "l.txt"
    labels.write_text("1\n0\n")
    assert main(["evaluate", "--scores", str(lines), "--labels", str(labels), "--k", "1",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["roc_auc"] == 1.0


def test_longdouble_scores_are_ranked_in_their_own_precision():
    tiny = np.finfo(np.longdouble).eps
    s = np.array([1, 1], dtype=np.longdouble) + np.array([tiny, 0], dtype=np.longdouble)
    assert metrics.precision_at_k([1, 0], s, 1) == 1.0
    assert metrics.roc_auc([0, 1], s) == 0.0


def test_assert_metric_matches_sees_integer_ties_that_float64_would_make():
    def rounding(y, s, k):  # casts to float64 first: the two scores tie
        return metrics.precision_at_k(y, np.asarray(s, dtype=float), k)

    assert_metric_matches(metrics.precision_at_k, "precision_at_k", [1, 0], BIG, 1)
    with pytest.raises(AssertionError, match="got 0.0, expected 1.0"):
        assert_metric_matches(rounding, "precision_at_k", [1, 0], BIG, 1)


def test_surrogates_refuse_scores_that_float64_cannot_hold():
    with pytest.raises(ValueError, match="y_score holds values that float64 cannot represent"):
        surrogates.get("prec@k-avg", 1).value([1, 0], np.array(BIG))
    exact = np.array([2 ** 62, -2 ** 60])  # powers of two: float64 holds them exactly
    assert np.isfinite(surrogates.get("prec@k-avg", 1).value([1, 0], exact))


# ---- 4. a surrogate's value is exact or the call says it overflows ---------------------------
def test_surrogate_values_near_the_float64_limit_are_exact_or_refused():
    """At scores c·s with |c| up to 1e308 a value, when returned, equals c times the value
    at 1e12·s divided by 1e12 (the margins are negligible at both scales); otherwise the
    call raises ScoreOverflowError."""
    raised = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 2, n)
        y[:2] = [1, 0]
        s = rng.uniform(-1, 1, n)
        if seed % 3 == 0:
            s = np.round(2 * s) / 2
        for name in surrogates.available():
            k = int(rng.integers(1, min(y.sum(), n - y.sum()) + 1))
            sur = surrogates.get(name, k)
            for c in (1e306, 3e307, 1e308, -1e308):
                try:
                    value, grad = sur.value_and_subgradient(y, s * c)
                except ScoreOverflowError as exc:
                    assert "overflows float64" in str(exc)
                    raised += 1
                    continue
                scale = np.sign(c) * 1e12
                expected = sur.value(y, s * scale) / 1e12
                assert value / abs(c) == pytest.approx(expected, rel=1e-6, abs=1e-9), name
                assert np.all(np.isfinite(grad))
    assert raised > 0


def test_subnormal_scores_are_no_overflow():
    """A closed form may divide by a subnormal score on its way (prec@k-svmperf's roots):
    a harmless infinity there is not an overflow of the value."""
    y = np.r_[np.ones(5, int), np.zeros(7, int)]
    s = np.zeros(12)
    s[-1] = -2.6e-314
    for name in surrogates.available():
        value = surrogates.get(name, 1).value(y, s)
        assert value == pytest.approx(reference.SURROGATES[name][0](y, s, 1), abs=1e-12), name


# ---- 5. one cut-off rule for every number type, ranges checked -------------------------------
@pytest.mark.parametrize("args, error, message", [
    ((2.0, 10), ValueError, "tau must lie in (0, 1)"),
    ((1.0, 10), ValueError, "tau must lie in (0, 1)"),
    ((-0.5, 10), ValueError, "tau must lie in (0, 1)"),
    ((float("nan"), 10), ValueError, "tau must lie in (0, 1)"),
    ((0.1, 0), ValueError, "n must be at least 1"),
    ((0.1, 2.5), TypeError, "n must be a non-negative integer"),
    (("0.1", 10), TypeError, "tau must be a real number"),
])
def test_tau_cutoff_refuses_what_has_no_quantile(args, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        tau_cutoff(*args)


def test_every_number_type_means_the_decimal_it_was_written_as():
    for kappa in (0.1, np.float32(0.1), np.float16(0.1), np.longdouble("0.1"), Fraction(1, 10)):
        assert tau_cutoff(kappa, 100) == 10
        assert prec_cutoff(kappa, 100) == 10
    assert prec_cutoff(0.55, 100) == 55 and prec_cutoff(0.07, 100) == 7
    y = np.r_[np.ones(10, int), np.zeros(90, int)]
    s = -np.arange(100.0)
    assert metrics.precision_at_tau(y, s, np.float32(0.1)) == 1.0
    assert metrics.precision_at_tau(y, s, 0.1) == 1.0


def test_a_float32_kappa_resolves_alike_in_every_place():
    y = np.r_[np.ones(20, int), np.zeros(20, int)]
    k = np.float32(0.5)
    assert surrogates.get("prec@k-avg", k).resolve_k(y) == 10
    assert surrogates.get("prec@k-avg", k).batch_cutoff(20, 20, 40) == 10
    assert batch_prec_cutoff(k, 20, 20) == 10
    assert metric_cutoff(k, y) == 10


def test_prec_cutoff_checks_the_number_of_relevant_items():
    with pytest.raises(ValueError, match="there is none"):
        prec_cutoff(0.5, 0)
    with pytest.raises(ValueError, match="non-negative"):
        prec_cutoff(0.5, -4)
    with pytest.raises(TypeError, match="n_pos must be a non-negative integer"):
        prec_cutoff(0.5, 2.5)


# ---- 6. group ids compare as Python values ---------------------------------------------------
def test_group_ids_that_mix_strings_and_numbers_are_refused():
    y, s = np.array([1, 0, 1, 0]), np.array([1.0, 0.0, 1.0, 0.0])
    with pytest.raises(TypeError, match="mixes number and str ids"):
        metrics.precision_at_k(y, s, 1, groups=[1, 1, "1", "1"])
    X = np.c_[s, -s]
    with pytest.raises(TypeError, match="mixes number and str ids"):
        TopRanker("prec@k-struct", k=1).fit(X, y, groups=[1, 1, "1", "1"])
    with pytest.raises(TypeError, match="strings or real numbers, got dict"):
        metrics.precision_at_k(y, s, 1, groups=[{"a": 1}, {"a": 1}, {"b": 2}, {"b": 2}])


def test_equal_numbers_are_one_group_whatever_their_type():
    y, s = np.array([1, 0, 1, 0]), np.array([1.0, 0.0, 0.0, 1.0])
    same = np.array([1, 1.0, 2, 2.0], dtype=object)
    values = metrics.group_values("precision_at_k", y, s, same, k=1)
    assert values == {1: 1.0, 2: 0.0}
    model = TopRanker("prec@k-struct", k=1).fit(np.c_[s, -s], y, groups=same)
    assert model.n_groups_ == 2
    huge = [2 ** 70, 2 ** 70, 2 ** 70 + 1, 2 ** 70 + 1]  # float64 would merge them
    assert len(metrics.group_values("precision_at_k", y, s, huge, k=1)) == 2


# ---- 7. the testing kit cannot be fooled by NaN ------------------------------------------------
def test_assert_near_optimum_refuses_nan_solutions_and_tolerances():
    X, y = _rows(n=20)
    with pytest.raises(ValueError, match="w contains NaN"):
        assert_near_optimum([np.nan, 0.0], X, y, "prec@k-avg", 1, 1.0)
    with pytest.raises(ValueError, match="w contains NaN or infinite"):
        assert_near_optimum([np.inf, 0.0], X, y, "prec@k-avg", 1, 1.0)
    with pytest.raises(ValueError, match="rtol must be a finite number"):
        assert_near_optimum([0.0, 0.0], X, y, "prec@k-avg", 1, 1.0, rtol=float("nan"))
    with pytest.raises(ValueError, match="rtol must be a finite number"):
        assert_metric_matches(metrics.roc_auc, "roc_auc", [1, 0], [1, 0], rtol=float("nan"))


def test_assert_surrogate_matches_catches_nan_away_from_the_given_scores():
    y, s = np.array([1, 0, 1]), np.array([0.5, 0.2, -1.0])
    truth = surrogates.get("prec@k-avg", 1)

    def nan_elsewhere(y_true, y_score, k):
        return truth.value(y_true, y_score) if np.array_equal(y_score, s) else float("nan")

    with pytest.raises(AssertionError, match="returned nan, not a finite number"):
        assert_surrogate_matches(nan_elsewhere, "prec@k-avg", y, s, 1)


def test_assert_cutoff_matches_checks_its_arguments_and_states_the_decimal_rule():
    with pytest.raises(TypeError, match="n_pos must be a non-negative integer"):
        assert_cutoff_matches(lambda k, n: 1, 0.5, 2.5)
    with pytest.raises(AssertionError, match=r"the decimal κ was written as, 11/20, so κ·n₊ = "
                                             r"55 exactly"):
        assert_cutoff_matches(lambda k, n: int(np.ceil(k * n)), 0.55, 100)


# ---- 8. flags are True or False --------------------------------------------------------------
@pytest.mark.parametrize("flag", ["accept_inaccurate", "skip_degenerate_groups", "shuffle",
                                  "average", "early_stopping", "certify", "warm_start",
                                  "verbose"])
def test_toprankers_flags_refuse_strings(flag):
    X, y = _rows(n=20)
    with pytest.raises(TypeError, match=f"{flag} must be True or False, got str 'no'"):
        TopRanker(**{flag: "no"}).fit(X, y)


def test_metrics_skip_degenerate_refuses_strings():
    y, s = np.array([1, 0, 0, 0]), np.arange(4.0)
    for metric in (metrics.precision_at_k, metrics.pap_at_k):
        with pytest.raises(TypeError, match="skip_degenerate must be True or False"):
            metric(y, s, 1, groups=[0, 0, 1, 1], skip_degenerate="no")
    with pytest.raises(TypeError, match="skip_degenerate must be True or False"):
        metrics.positives_at_top(y, s, skip_degenerate="no")


# ---- 9. fit --tau is checked like evaluate's ---------------------------------------------------
@pytest.mark.parametrize("tau", ["3", "nan", "0", "-1"])
def test_fit_and_aatp_refuse_a_tau_outside_zero_one(tmp_path, capsys, tau):
    X, y = _rows()
    path = _csv(tmp_path, "d.csv", "a,b,label", np.c_[X, y].tolist())
    for command in ("fit", "aatp"):
        assert main([command, path, "--tau", tau]) == 2
        assert "argument --tau: must be a number in (0, 1)" in capsys.readouterr().err


# ---- the oracle stream -----------------------------------------------------------------------
def test_the_oracle_stream_survives_every_bad_line():
    lines = ['{"id": NaN, "op": "cutoff", "k": 1, "n_pos": 3}',
             "[" * 100_000,
             '{"id": "ovf", "op": "surrogate", "name": "prec@k-avg", "k": 1, "y": [1, 0], '
             '"s": [1e308, -1e308]}',
             '{"id": "frac", "op": "cutoff", "kappa": 2.5, "n_pos": 10}',
             '{"id": "ok", "op": "cutoff", "kappa": 1.0, "n_pos": 4}']
    written = []
    errors = run_lines(lines, written.append)
    answers = [json.loads(line) for line in written]
    assert errors == 4 and len(answers) == 5
    assert answers[0] == {"id": None, "ok": False,
                          "error": "line 1: not JSON (NaN is not a JSON number)"}
    assert "nested too deeply" in answers[1]["error"]
    assert answers[2]["id"] == "ovf" and "overflows float64" in answers[2]["error"]
    assert answers[3]["id"] == "frac" and "kappa must lie in (0, 1]" in answers[3]["error"]
    assert answers[4] == {"id": "ok", "ok": True, "value": 4}


def test_the_oracle_answers_each_line_before_the_next_is_written():
    """A client that writes one line and waits gets its answer (each answer is flushed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as usual
    proc = subprocess.Popen([sys.executable, "-m", "cvxtop", "oracle"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    got = []
    try:
        proc.stdin.write('{"id": 1, "op": "cutoff", "k": 2, "n_pos": 3}\n')
        proc.stdin.flush()
        reader = threading.Thread(target=lambda: got.append(proc.stdout.readline()))
        reader.start()
        reader.join(timeout=60)
        assert got and json.loads(got[0]) == {"id": 1, "ok": True, "value": 2}
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)


# ---- messages that name the argument or file ---------------------------------------------------
def test_estimator_messages_name_the_argument():
    X, y = _rows(n=20)
    with pytest.raises(ValueError, match=r"random_state must be None, an int from 0 to 2\*\*32"):
        TopRanker(random_state=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"random_state must be None, an int from 0 to 2\*\*32"):
        TopRanker(solver="sgd", random_state=-1).fit(X, y)
    with pytest.raises(ValueError, match="random_state must be None"):
        TopRanker(solver="sgd", random_state=2**32).fit(X, y)
    with pytest.raises(TypeError, match="solver_options must be a dict"):
        TopRanker(solver_options=["max_iter", 2]).fit(X, y)
    with pytest.raises(ValueError, match="pos_label='g' is not among the labels of y"):
        TopRanker(pos_label="g").fit(X, np.where(y == 1, "a", "b"))
    assert TopRanker(solver="sgd", random_state=np.random.RandomState(0)).fit(X, y).coef_.shape


def test_get_scorer_checks_its_parameters_when_made():
    with pytest.raises(TypeError, match="needs k="):
        metrics.get_scorer("precision_at_k")
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        metrics.get_scorer("pap_at_k", k=0)
    with pytest.raises(TypeError, match="unknown parameter"):
        metrics.get_scorer("roc_auc", k=3)
    with pytest.raises(ValueError, match="tau must lie in"):
        metrics.get_scorer("ndcg_at_tau", tau=1.5)


def test_command_line_messages_name_the_option_or_file(tmp_path, capsys):
    X, y = _rows()
    svm = tmp_path / "d.svm"
    svm.write_text("".join(f"{2 * v - 1} 1:{a} 2:{b}\n" for (a, b), v in zip(X, y)))
    assert main(["fit", str(svm), "--positive", "g"]) == 2
    assert "--positive 'g' is not a number" in capsys.readouterr().err
    folder = tmp_path / "models.json"
    folder.mkdir()
    assert main(["fit", str(svm), "--model", str(folder)]) == 2
    assert "is a directory" in capsys.readouterr().err
    good = _csv(tmp_path, "good.csv", "a,b,label", np.c_[X, y].tolist())
    model = str(tmp_path / "m.json")
    assert main(["fit", good, "--model", model, "--json"]) == 0
    capsys.readouterr()
    nan = _csv(tmp_path, "nan.csv", "a,b", [[1.0, "nan"], [0.0, 1.0]])
    assert main(["predict", model, nan]) == 2
    err = capsys.readouterr().err
    assert "nan.csv (its feature columns) contains NaN" in err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "argument --seed: must be an integer from 0 to 2**32 - 1"),
    (["--drop", "label"], "--drop names the label column 'label'"),
    (["--drop", "User"], "--drop names the group column 'user'"),
])
def test_fit_options_that_would_be_misread_are_refused(tmp_path, capsys, argv, message):
    X, y = _rows()
    path = _csv(tmp_path, "d.csv", "a,user,label", np.c_[X[:, 0], np.arange(40) % 2, y].tolist())
    assert main(["fit", path, *argv]) == 2
    assert message in capsys.readouterr().err
    assert main(["demo", "--seed", "-1"]) == 2
    assert "argument --seed" in capsys.readouterr().err


def test_aatp_names_the_gram_file_in_its_refusals(tmp_path, capsys):
    X, y = _rows(n=12)
    labels = _csv(tmp_path, "labels.csv", "label", [[v] for v in y])
    K = X @ X.T
    K[0, 1] += 1.0  # not symmetric
    np.save(tmp_path / "K.npy", K)
    assert main(["aatp", labels, "--gram", str(tmp_path / "K.npy")]) == 2
    assert "K.npy (--gram) must be symmetric" in capsys.readouterr().err
    indefinite = -np.eye(12)
    np.save(tmp_path / "neg.npy", indefinite)
    assert main(["aatp", labels, "--gram", str(tmp_path / "neg.npy")]) == 2
    assert "neg.npy (--gram)" in capsys.readouterr().err


def test_a_failed_certificate_is_not_reported_as_optimal():
    from cvxtop.aatp.problem import CandidateSolution, require_certified

    bad = CandidateSolution(3, np.zeros(2), np.zeros(1), 1.0, 0.5, 7, "optimal")
    with pytest.raises(SolverError) as err:
        require_certified(bad, "cvxpy")
    assert err.value.status == "not_certified"
    assert "the solver reported 'optimal'" in str(err.value)


def test_aatp_flags_refuse_strings():
    X, y = _rows(n=12)
    with pytest.raises(TypeError, match="screen must be True or False"):
        AATP(tau=0.2, screen="no").fit(X, y)


def test_the_readme_states_the_cutoff_its_example_uses():
    """README: the avg example's k = 2 is κ = 2/3 of its three relevant items (κ = 0.25
    would be k = 1, another value)."""
    text = (ROOT / "README.md").read_text()
    line = next(ln for ln in text.splitlines() if 'avg = surrogates.get("prec@k-avg", 2)' in ln)
    kappa = Fraction(line.split("κ = ")[1].split(" ")[0])
    y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.7, 0.1, 0.4, 0.2, 0.3, 0.0])
    assert surrogates.get("prec@k-avg", kappa).resolve_k(y) == 2
    assert surrogates.get("prec@k-avg", kappa).value(y, s) == surrogates.get("prec@k-avg", 2).value(y, s)

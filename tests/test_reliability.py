"""Property-based reliability: for every public surface, random valid inputs give finite
answers consistent with the brute-force reference, and random invalid inputs give a
ValueError/TypeError naming the argument (exit status 2 with one line for the command line).

Each probe's outcome is tallied per surface; ``CVXTOP_PROBE_TABLE=path python -m pytest
tests/test_reliability.py -p no:xdist`` writes the tally as the Markdown table shown in
docs/reliability.md (model files are probed in tests/test_model_files.py).
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvxtop import AATP, TopRanker, metrics, reference, surrogates
from cvxtop.cli import main
from cvxtop.cutoff import prec_cutoff
from cvxtop.predtron import Binary, Multiclass, Multilabel, Ordinal, Predtron

#: Probes per surface and kind (hypothesis examples, derandomized: the same every run).
PROBES = {
    ("metrics", "valid"): 300, ("metrics", "invalid"): 300,
    ("surrogates", "valid"): 200, ("surrogates", "invalid"): 200,
    ("reference", "invalid"): 100,
    ("TopRanker", "valid"): 60, ("TopRanker", "invalid"): 120,
    ("AATP", "valid"): 30, ("AATP", "invalid"): 80,
    ("Predtron", "valid"): 60, ("Predtron", "invalid"): 80,
    ("command line", "valid"): 30, ("command line", "invalid"): 80,
    ("model files", "invalid"): 300,
}
TALLY: dict[str, Counter] = defaultdict(Counter)
REFERENCE = {name: function for name, (function, _) in reference.SURROGATES.items()}
CONVEX = sorted(name for name, (_, convex) in reference.SURROGATES.items() if convex)


def probes(surface: str, kind: str):
    return settings(max_examples=PROBES[surface, kind], deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def probe_table():
    """With CVXTOP_PROBE_TABLE set, write the tally as a Markdown table at the end."""
    yield
    target = os.environ.get("CVXTOP_PROBE_TABLE")
    if not target:
        return
    lines = ["| surface | probes | how they ended |", "|---|---:|---|"]
    for surface in dict.fromkeys(s for s, _ in PROBES):
        counts = TALLY[surface]
        ended = ", ".join(f"{n} {what}" for what, n in sorted(counts.items(),
                                                               key=lambda kv: -kv[1]))
        lines.append(f"| {surface} | {sum(counts.values())} | {ended} |")
    Path(target).write_text("\n".join(lines) + "\n")


def refused(surface: str, call, names: tuple[str, ...]) -> None:
    """``call()`` must raise ValueError/TypeError on one line naming one of ``names``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert any(name in message for name in names), (names, message)
        assert len(message.splitlines()) == 1, message
        TALLY[surface][f"{type(exc).__name__} naming the argument"] += 1
        return
    raise AssertionError(f"accepted an invalid input (expected an error naming {names})")


# ---- instances ---------------------------------------------------------------------------
@st.composite
def labeled_scores(draw, max_pos=5, max_neg=5):
    """0/1 labels with both classes and scores that tie often or span many magnitudes."""
    n_pos = draw(st.integers(1, max_pos))
    n_neg = draw(st.integers(1, max_neg))
    y = np.array([1] * n_pos + [0] * n_neg)
    order = draw(st.permutations(range(n_pos + n_neg)))
    y = y[list(order)]
    if draw(st.booleans()):
        s = np.array(draw(st.lists(st.integers(-2, 2), min_size=len(y), max_size=len(y))),
                     dtype=float) / 2
    else:
        mags = draw(st.lists(st.integers(-200, 200), min_size=len(y), max_size=len(y)))
        signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(y),
                              max_size=len(y)))
        s = np.array(signs) * 10.0 ** np.array(mags, dtype=float)
    return y, s


METRIC_PARAMS = {"precision_at_k": "k", "pap_at_k": "k_neg", "roc_auc": None,
                 "partial_auc": "k_neg", "average_precision": None, "precision_at_tau": "tau",
                 "dcg_at_tau": "tau", "ndcg_at_tau": "tau", "positives_at_top": None}


def _metric_args(draw, name, y):
    kind = METRIC_PARAMS[name]
    n, n_neg = len(y), int((y == 0).sum())
    if kind == "k":
        return (draw(st.integers(1, n)),)
    if kind == "k_neg":
        return (draw(st.integers(1, n_neg)),)
    if kind == "tau":
        return (draw(st.floats(0.01, 0.99)),)
    return ()


# ---- metrics -----------------------------------------------------------------------------
@probes("metrics", "valid")
@given(data=st.data())
def test_metrics_on_valid_input_are_finite_and_match_the_reference(data):
    name = data.draw(st.sampled_from(sorted(METRIC_PARAMS)))
    y, s = data.draw(labeled_scores())
    args = _metric_args(data.draw, name, y)
    value = metrics.METRICS[name](y, s, *args)
    assert np.isfinite(value)
    n_pos = int(y.sum())
    bound = n_pos if name == "positives_at_top" else np.inf if name == "dcg_at_tau" else 1.0
    assert 0.0 <= value <= bound
    if name == "precision_at_k" and args[0] <= n_pos:
        assert value == pytest.approx(1 - reference.prec_at_k_loss(y, s, args[0]) / args[0])
    if name == "pap_at_k":
        assert value == pytest.approx(1 - reference.pap_risk(y, s, args[0]))
    TALLY["metrics"]["finite, consistent with the reference"] += 1


@probes("metrics", "invalid")
@given(data=st.data())
def test_metrics_on_invalid_input_name_the_argument(data):
    name = data.draw(st.sampled_from(sorted(METRIC_PARAMS)))
    y, s = data.draw(labeled_scores())
    args = list(_metric_args(data.draw, name, y))
    kind = METRIC_PARAMS[name]
    corruptions = ["nan score", "inf score", "label 2", "lengths", "empty", "2-D labels",
                   "string scores", "groups length"]
    if kind in ("k", "k_neg"):
        corruptions += ["k zero", "k too large", "k string", "k bool"]
    if kind == "tau":
        corruptions += ["tau 0", "tau 1", "tau nan"]
    what = data.draw(st.sampled_from(corruptions))
    kwargs = {}
    expect: tuple[str, ...]
    if what in ("nan score", "inf score"):
        s = s.copy()
        s[data.draw(st.integers(0, len(s) - 1))] = np.nan if what == "nan score" else -np.inf
        expect = ("y_score",)
    elif what == "label 2":
        y = y.copy()
        y[data.draw(st.integers(0, len(y) - 1))] = 2
        expect = ("y_true",)
    elif what == "lengths":
        s = s[:-1]
        expect = ("y_true", "y_score")
    elif what == "empty":
        y, s = y[:0], s[:0]
        expect = ("y_true", "y_score")
    elif what == "2-D labels":
        y = np.c_[y, y]
        expect = ("y_true",)
    elif what == "string scores":
        s = np.array(["a"] * len(s))
        expect = ("y_score",)
    elif what == "groups length":
        kwargs["groups"] = np.zeros(len(y) + 1)
        expect = ("groups",)
    elif what.startswith("k"):
        args[0] = {"k zero": 0, "k too large": len(y) + 1, "k string": "3",
                   "k bool": True}[what]
        expect = ("k",)
    else:
        args[0] = {"tau 0": 0.0, "tau 1": 1.0, "tau nan": float("nan")}[what]
        expect = ("tau",)
    refused("metrics", lambda: metrics.METRICS[name](y, s, *args, **kwargs), expect)


# ---- surrogates ----------------------------------------------------------------------------
def _surrogate_k(draw, name, y):
    if name.startswith("prec"):
        return draw(st.integers(1, int(y.sum())))
    return draw(st.integers(1, int((y == 0).sum())))


@probes("surrogates", "valid")
@given(data=st.data())
def test_surrogates_on_valid_input_match_the_enumeration(data):
    name = data.draw(st.sampled_from(sorted(REFERENCE)))
    y, s = data.draw(labeled_scores(max_pos=4, max_neg=4))
    s = np.clip(s, -1e6, 1e6)  # the enumeration sums scores: keep them summable exactly
    k = _surrogate_k(data.draw, name, y)
    surrogate = surrogates.get(name, k)
    value = surrogate.value(y, s)
    assert np.isfinite(value)
    assert value == pytest.approx(REFERENCE[name](y, s, k), rel=1e-9, abs=1e-9)
    g = surrogate.subgradient(y, s)
    assert g.shape == s.shape and np.all(np.isfinite(g))
    if surrogate.convex:
        other = s + np.array(data.draw(st.lists(st.integers(-3, 3), min_size=len(s),
                                                max_size=len(s))), dtype=float)
        assert surrogate.value(y, other) >= value + g @ (other - s) - 1e-9 * (1 + abs(value))
    TALLY["surrogates"]["finite, equal to the enumeration"] += 1


@probes("surrogates", "invalid")
@given(data=st.data())
def test_surrogates_on_invalid_input_name_the_argument(data):
    name = data.draw(st.sampled_from(sorted(REFERENCE)))
    y, s = data.draw(labeled_scores(max_pos=4, max_neg=4))
    k = _surrogate_k(data.draw, name, y)
    what = data.draw(st.sampled_from(["k zero", "k too large", "k string", "nan score",
                                      "label 2", "lengths", "no relevant", "unknown name"]))
    expect: tuple[str, ...] = ("k",)
    if what == "unknown name":
        refused("surrogates", lambda: surrogates.get(name + "-x", k), ("unknown surrogate",))
        return
    if what == "k zero":
        k = 0
    elif what == "k too large":
        k = len(y) + 1
    elif what == "k string":
        k = "2"
    elif what == "nan score":
        s = s.copy()
        s[0] = np.nan
        expect = ("y_score", "s")
    elif what == "label 2":
        y = y.copy()
        y[0] = 2
        expect = ("y_true",)
    elif what == "lengths":
        s = s[1:]
        expect = ("y_true", "y_score")
    else:
        y = np.zeros_like(y)
        expect = ("relevant",)
    refused("surrogates", lambda: surrogates.get(name, k).value(y, s), expect)


@probes("reference", "invalid")
@given(data=st.data())
def test_reference_functions_refuse_invalid_or_oversized_instances(data):
    """The brute-force enumerations name the argument, or refuse an instance too large to
    enumerate, before any enumeration starts."""
    functions = {**REFERENCE, "prec_at_k_loss": reference.prec_at_k_loss,
                 "pap_risk": reference.pap_risk}
    name = data.draw(st.sampled_from(sorted(functions)))
    y, s = data.draw(labeled_scores(max_pos=4, max_neg=4))
    k = _surrogate_k(data.draw, "prec" if name.startswith("prec") else "pap", y)
    what = data.draw(st.sampled_from(["k", "nan", "lengths", "too large"]))
    expect: tuple[str, ...] = ("k",)
    if what == "k":
        k = data.draw(st.sampled_from([0, -1, len(y) + 1]))
    elif what == "nan":
        s = s.copy()
        s[-1] = np.nan
        expect = ("y_score",)
    elif what == "lengths":
        s = s[:-1]
        expect = ("y_true", "y_score")
    else:
        y = np.r_[np.ones(40, int), np.zeros(40, int)]
        s = np.arange(80.0)
        k = 20
        expect = ("too large for brute-force enumeration",)
    refused("reference", lambda: functions[name](y, s, k), expect)


# ---- TopRanker ------------------------------------------------------------------------------
@st.composite
def ranking_problems(draw, max_n=12):
    n_pos = draw(st.integers(2, max_n // 2))
    n_neg = draw(st.integers(2, max_n // 2))
    d = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    X = rng.standard_normal((n_pos + n_neg, d)) + 0.8 * y[:, None]
    scale = 10.0 ** draw(st.integers(-8, 8))
    return X * scale, y, scale


@probes("TopRanker", "valid")
@given(problem=ranking_problems(), data=st.data())
def test_exact_fits_are_certified_and_match_the_reference_objective(problem, data):
    X, y, scale = problem
    name = data.draw(st.sampled_from(CONVEX))
    if name.startswith("prec"):
        k = data.draw(st.one_of(st.integers(1, int(y.sum())), st.floats(0.1, 1.0)))
    else:
        k = data.draw(st.integers(1, int((y == 0).sum())))
    C = 10.0 ** data.draw(st.integers(-2, 2)) / scale ** 2  # the same problem at every scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = TopRanker(name, k=k, C=C).fit(X, y)
    assert model.status_ == "optimal" and model.gap_ <= 1e-6
    assert np.all(np.isfinite(model.coef_))
    k_int = prec_cutoff(k, int(y.sum())) if isinstance(k, float) else k
    truth = 0.5 * model.coef_ @ model.coef_ + C * REFERENCE[name](y, X @ model.coef_, k_int)
    assert model.objective_ == pytest.approx(truth, rel=1e-9)
    zero = C * REFERENCE[name](y, np.zeros(len(y)), k_int)
    assert model.objective_ <= zero * (1 + 1e-6)
    TALLY["TopRanker"]["certified (gap <= 1e-6), objective equal to the enumeration"] += 1


TOP_RANKER_BAD = [
    ({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"C": float("nan")}, "C"), ({"C": "1"}, "C"),
    ({"k": 0}, "k"), ({"k": -2}, "k"), ({"k": 1.5}, "k"), ({"k": "a"}, "k"),
    ({"surrogate": "prec@k-nope"}, "surrogate"), ({"solver": "newton"}, "solver"),
    ({"engine": "fast"}, "engine"), ({"tol": 0.0}, "tol"), ({"max_iter": 0}, "max_iter"),
    ({"epochs": 0}, "epochs"), ({"batch_size": 0}, "batch_size"),
    ({"kernel": "rbf"}, "kernel"), ({"learning_rate": "fast"}, "learning_rate"),
    ({"cvx_solver": "MOSEK"}, "cvx_solver"), ({"radius": 1.0}, "radius"),
]


@probes("TopRanker", "invalid")
@given(problem=ranking_problems(), data=st.data())
def test_top_ranker_on_invalid_input_names_the_argument(problem, data):
    X, y, _ = problem
    what = data.draw(st.sampled_from(["param", "nan X", "1-D X", "y length", "y values",
                                      "string X", "empty X"]))
    params: dict = {}
    if what == "param":
        params, name = data.draw(st.sampled_from(TOP_RANKER_BAD))
        expect = (name,)
    elif what == "nan X":
        X = X.copy()
        X[data.draw(st.integers(0, len(X) - 1)), 0] = np.nan
        expect = ("X",)
    elif what == "1-D X":
        X = X[:, 0]
        expect = ("X", "Reshape")
    elif what == "y length":
        y = y[:-1]
        expect = ("X", "y")
    elif what == "y values":
        y = y + 1
        expect = ("y",)
    elif what == "string X":
        X = np.full(X.shape, "x")
        expect = ("X",)
    else:
        X, y = X[:0], y[:0]
        expect = ("X", "y")
    refused("TopRanker", lambda: TopRanker(**params).fit(X, y), expect)


# ---- AATP ------------------------------------------------------------------------------------
@probes("AATP", "valid")
@given(problem=ranking_problems(max_n=10), data=st.data())
def test_aatp_fits_are_finite_and_certified(problem, data):
    X, y, scale = problem
    X = X / scale
    kernel = data.draw(st.sampled_from(["linear", "rbf"]))
    tau = data.draw(st.floats(0.1, 0.5))
    model = AATP(tau=tau, C=10.0 ** data.draw(st.integers(-2, 1)), kernel=kernel).fit(X, y)
    assert 0 <= model.candidate_ < len(y) and np.all(np.isfinite(model.dual_coef_))
    assert model.duality_gap_ <= 1e-6 * max(1.0, abs(model.objective_))
    scores = model.decision_function(X)
    assert np.all(np.isfinite(scores)) and 0.0 <= model.score(X, y) <= 1.0
    TALLY["AATP"]["finite, duality gap <= 1e-6, candidate in range"] += 1


AATP_BAD = [({"tau": 0.0}, "tau"), ({"tau": 1.0}, "tau"), ({"tau": "0.1"}, "tau"),
            ({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"kernel": "poly"}, "kernel"),
            ({"kernel": "rbf", "gamma": -1.0}, "gamma"), ({"solver": "newton"}, "solver"),
            ({"n_jobs": 0}, "n_jobs"), ({"verbose": "yes"}, "verbose")]


@probes("AATP", "invalid")
@given(problem=ranking_problems(max_n=10), data=st.data())
def test_aatp_on_invalid_input_names_the_argument(problem, data):
    X, y, _ = problem
    what = data.draw(st.sampled_from(["param", "nan X", "y length", "asymmetric Gram",
                                      "non-square Gram", "one class"]))
    params: dict = {}
    if what == "param":
        params, name = data.draw(st.sampled_from(AATP_BAD))
        expect = (name,)
    elif what == "nan X":
        X = X.copy()
        X[0, 0] = np.inf
        expect = ("X",)
    elif what == "y length":
        y = y[1:]
        expect = ("X", "y")
    elif what == "one class":
        y = np.ones_like(y)
        expect = ("y",)
    else:
        params = {"kernel": "precomputed"}
        K = X @ X.T
        if what == "asymmetric Gram":
            K[0, 1] += 0.5 * np.abs(K).max() + 1.0
        else:
            K = K[:, :-1]
        X = K
        expect = ("X", "Gram")
    refused("AATP", lambda: AATP(**params).fit(X, y), expect)


# ---- Predtron --------------------------------------------------------------------------------
def _classic_perceptron_mistakes(X: np.ndarray, y: np.ndarray) -> int:
    w, mistakes = np.zeros(X.shape[1]), 0
    for x, label in zip(X, 2 * y - 1):
        if label * (w @ x) <= 0:
            w += label * x
            mistakes += 1
    return mistakes


@probes("Predtron", "valid")
@given(data=st.data())
def test_predtron_learns_finitely_and_binary_is_the_classic_perceptron(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    n, d = data.draw(st.integers(1, 30)), data.draw(st.integers(1, 4))
    X = rng.standard_normal((n, d)) * 10.0 ** data.draw(st.integers(-6, 6))
    kind = data.draw(st.sampled_from(["binary", "multiclass", "ordinal", "multilabel"]))
    if kind == "binary":
        problem, y = Binary(), rng.integers(0, 2, n)
    elif kind == "multiclass":
        m = data.draw(st.integers(2, 5))
        problem, y = Multiclass(m), rng.integers(0, m, n)
    elif kind == "ordinal":
        m = data.draw(st.integers(2, 5))
        problem, y = Ordinal(m), rng.integers(0, m, n)
    else:
        m = data.draw(st.integers(1, 4))
        problem, y = Multilabel(m), rng.integers(0, 2, (n, m))
    model = Predtron(problem, eta=10.0 ** data.draw(st.integers(-3, 3))).partial_fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and 0 <= model.mistakes_ <= model.n_rounds_ == n
    assert np.all(np.isfinite(model.decision_function(X)))
    if kind == "binary":
        assert model.mistakes_ == _classic_perceptron_mistakes(X, y)
    TALLY["Predtron"]["finite, mistakes within the rounds (binary: the classic "
                      "perceptron's)"] += 1


@probes("Predtron", "invalid")
@given(data=st.data())
def test_predtron_on_invalid_input_names_the_argument(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    X = rng.standard_normal((data.draw(st.integers(2, 6)), data.draw(st.integers(1, 3))))
    y = rng.integers(0, 3, len(X))
    problem = Multiclass(3)
    what = data.draw(st.sampled_from(["eta", "epochs", "problem", "label", "nan X", "1-D X",
                                      "m", "loss", "levels"]))
    if what in ("m", "loss", "levels"):
        make = {"m": lambda: Multiclass(data.draw(st.sampled_from([0, 1, -2, 2.5]))),
                "loss": lambda: Multilabel(3, loss="nope"),
                "levels": lambda: Ordinal(data.draw(st.sampled_from([0, 1])))}[what]
        refused("Predtron", make, (what,))
        return
    params: dict = {"problem": problem}
    if what == "eta":
        params["eta"] = data.draw(st.sampled_from([0.0, -1.0, float("inf"), "1"]))
    elif what == "epochs":
        params["epochs"] = data.draw(st.sampled_from([0, -1, 1.5]))
    elif what == "problem":
        params["problem"] = "multiclass"
    elif what == "label":
        y = y.copy()
        y[0] = data.draw(st.sampled_from([3, -1, 7]))
    elif what == "nan X":
        X = X.copy()
        X[1, -1] = np.nan
    else:
        X = X[:, 0]
    expect = {"label": ("y",), "nan X": ("X",), "1-D X": ("X",)}.get(what, (what,))
    refused("Predtron", lambda: Predtron(**params).fit(X, y), expect)


# ---- the command line -------------------------------------------------------------------------
def _csv(tmp_path: Path, rng: np.random.Generator, n: int, d: int) -> Path:
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0.3).astype(int)
    y[:2] = [0, 1]
    path = tmp_path / "items.csv"
    header = ",".join(f"f{j}" for j in range(d)) + ",label"
    path.write_text(header + "\n" + "\n".join(
        ",".join(repr(float(v)) for v in row) + f",{lab}" for row, lab in zip(X, y)))
    return path


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@probes("command line", "valid")
@given(data=st.data())
def test_commands_on_valid_input_print_finite_json(tmp_path, capsys, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    path = _csv(tmp_path, rng, data.draw(st.integers(8, 30)), data.draw(st.integers(1, 3)))
    command = data.draw(st.sampled_from(["evaluate", "fit", "aatp", "predict"]))
    if command == "evaluate":
        scored = tmp_path / "scored.csv"
        y = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)[:, -1]
        scored.write_text("label,score\n" + "\n".join(
            f"{int(v)},{float(s)!r}" for v, s in zip(y, rng.standard_normal(len(y)))))
        argv = ["evaluate", scored, "--k", data.draw(st.integers(1, 8))]
    elif command == "fit":
        name = data.draw(st.sampled_from(["prec@k-avg", "prec@k-struct", "pap@k-avg"]))
        k = data.draw(st.sampled_from(["0.5", "1"])) if name.startswith("prec") else "1"
        argv = ["fit", path, "--surrogate", name, "--k", k, "--C",
                data.draw(st.sampled_from(["0.1", "1", "10"]))]
    elif command == "aatp":
        argv = ["aatp", path, "--tau", data.draw(st.sampled_from(["0.1", "0.3"])),
                "--kernel", data.draw(st.sampled_from(["linear", "rbf"]))]
    else:
        model = tmp_path / data.draw(st.sampled_from(["m.json", "m.npz"]))
        train = ["fit", path, "--model", model] if data.draw(st.booleans()) else \
            ["aatp", path, "--kernel", "rbf", "--model", model]
        assert _run(capsys, train + ["--standardize"])[0] == 0
        argv = ["predict", model, path]
    code, out, err = _run(capsys, argv + ["--json"])
    assert code == 0, err
    numbers = []

    def collect(value):
        if isinstance(value, dict):
            for v in value.values():
                collect(v)
        elif isinstance(value, list):
            for v in value:
                collect(v)
        elif isinstance(value, float):
            numbers.append(value)
    collect(json.loads(out))
    assert all(np.isfinite(numbers))
    TALLY["command line"]["exit 0, JSON with finite numbers"] += 1


CLI_BAD = [
    (["fit", "{data}", "--k", "0"], "k"), (["fit", "{data}", "--k", "x"], "--k"),
    (["fit", "{data}", "--C", "-1"], "C"), (["fit", "{data}", "--C", "abc"], "--C"),
    (["fit", "{data}", "--surrogate", "nope"], "surrogate"),
    (["fit", "{data}", "--solver", "newton"], "--solver"),
    (["fit", "{data}", "--test-size", "1.5"], "test_size"),
    (["fit", "{data}", "--batch-size", "-3"], "--batch-size"),
    (["fit", "{data}", "--epochs", "0"], "--epochs"),
    (["fit", "{data}", "--epochs", "x"], "--epochs"),
    (["fit", "{data}", "--model", "m.txt"], "--model"),
    (["fit", "{data}", "--label-column", "nope"], "nope"),
    (["fit", "{data}", "--drop", "zzz"], "zzz"),
    (["fit", "{missing}"], "{missing}"), (["fit", "{binary}"], "{binary}"),
    (["aatp", "{data}", "--tau", "2"], "tau"), (["aatp", "{data}", "--C", "0"], "C"),
    (["aatp", "{data}", "--gram", "{missing}"], "{missing}"),
    (["aatp", "{data}", "--kernel", "poly"], "--kernel"),
    (["evaluate", "{scored}", "--k", "0"], "--k"),
    (["evaluate", "{scored}", "--k", "100000"], "--k"),
    (["evaluate", "{scored}", "--tau", "1"], "--tau"),
    (["evaluate", "{data}"], "{data}"), (["evaluate", "{missing}"], "{missing}"),
    (["predict", "{missing}", "{data}"], "{missing}"),
    (["predict", "{data}", "{data}"], "{data}"),
    (["nope"], "COMMAND"), (["fit"], "data"),
]


@probes("command line", "invalid")
@given(case=st.sampled_from(CLI_BAD), seed=st.integers(0, 2 ** 16))
def test_commands_on_invalid_input_exit_2_naming_the_option_or_file(tmp_path, capsys, case,
                                                                     seed):
    argv, named = case
    files = {"data": _csv(tmp_path, np.random.default_rng(seed), 12, 2),
             "missing": tmp_path / "missing.csv", "binary": tmp_path / "binary.csv",
             "scored": tmp_path / "scored.csv"}
    files["binary"].write_bytes(bytes(range(256)))
    files["scored"].write_text("label,score\n1,0.5\n0,0.2\n1,0.1\n0,0.9\n")
    code, out, err = _run(capsys, [a.format(**files) for a in argv])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and named.format(**files) in err, err
    TALLY["command line"]["exit 2, one line naming the option or file"] += 1


# ---- model files ------------------------------------------------------------------------------
def _models() -> dict[str, dict]:
    from cvxtop.predtron import KernelPredtron, PredtronLink

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = (X[:, 0] > 0.3).astype(int)
    ym = rng.integers(0, 3, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = {"TopRanker": TopRanker(k=0.5).fit(X, y),
                  "AATP rbf": AATP(tau=0.2, kernel="rbf").fit(X, y),
                  "PredtronLink": PredtronLink(Multiclass(3)).fit(X, ym),
                  "KernelPredtron": KernelPredtron(Multiclass(3), kernel="rbf").fit(X, ym)}
    from cvxtop.model_io import model_document

    return {name: model_document(est, info={"items": 40}) for name, est in fitted.items()}


MODEL_DOCUMENTS = _models()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 50) | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=6)


def _paths(value, prefix=()):
    """Every path to a value in a JSON document (the first few entries of each list)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:4]):
            yield from _paths(item, prefix + (i,))


@probes("model files", "invalid")
@given(data=st.data())
def test_any_perturbed_model_field_is_refused_by_name_or_round_trips(tmp_path, data):
    """Replace any value of a saved document by any JSON value: the file is refused with a
    ModelFileError naming it and the field, or it loads into a model that scores finitely
    and saves back to the same file."""
    import copy

    from cvxtop.model_io import ModelFileError, load_model, save_model

    name = data.draw(st.sampled_from(sorted(MODEL_DOCUMENTS)))
    document = copy.deepcopy(MODEL_DOCUMENTS[name])
    path = data.draw(st.sampled_from([p for p in _paths(document) if p]))
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = data.draw(JSON_VALUES)
    file = tmp_path / "model.json"
    file.write_text(json.dumps(document))
    try:
        model = load_model(file)
    except ModelFileError as exc:
        assert str(file) in str(exc) and len(str(exc).splitlines()) == 1
        TALLY["model files"]["ModelFileError naming the file" +
                             (" and the field" if exc.field else "")] += 1
        return
    scores = model.decision_function(np.ones((2, model.n_features)))
    huge = max(np.max(np.abs(a["data"]), initial=0) for a in document["arrays"].values()
               if isinstance(a, dict) and a.get("dtype") == "float64")
    assert np.all(np.isfinite(scores)) or huge > 1e150  # finite unless the sum overflows
    again, third = tmp_path / "again.json", tmp_path / "third.json"
    save_model(model, again)
    save_model(load_model(again), third)
    assert again.read_bytes() == third.read_bytes()
    TALLY["model files"]["loaded (a valid change), scored finitely, re-saved identically"] += 1


def test_the_docs_table_lists_every_surface():
    page = (Path(__file__).parents[1] / "docs" / "reliability.md").read_text()
    rows = {line.split("|")[1].strip() for line in page.splitlines()
            if line.startswith("| ") and line.count("|") == 4}
    assert {surface for surface, _ in PROBES} <= rows

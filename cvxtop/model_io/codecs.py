"""What a model file stores of each fitted estimator, and how it is rebuilt.

A codec names an estimator's stored parameters (its constructor arguments), fitted scalars
(``objective_`` as ``fitted.objective``) and fitted arrays, and checks each of them when a
file is read: the shapes follow from ``n_features_in``, the number of training items and
the kernel, so a coefficient vector of the wrong length or a candidate outside the training
items is refused by name rather than failing later inside numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["Codec", "codec_for", "CODECS", "json_value", "kernel_name"]


def json_value(value: Any) -> Any:
    """``value`` as a JSON value (numpy scalars and arrays included), or raise TypeError."""
    if isinstance(value, (np.generic, np.ndarray)):
        value = value.tolist()
    json.dumps(value, allow_nan=False)  # TypeError / ValueError for what JSON cannot hold
    return value


@dataclass(frozen=True)
class Scalar:
    """A fitted scalar attribute ``<name>_`` stored as ``fitted.<name>``."""

    name: str
    kind: str  # "int", "float", "str", "bool"
    optional: bool = False  # may be absent or null
    #: where the estimator holds it, when not in ``<name>_`` (restored by the codec)
    attribute: str | None = None

    def read(self, estimator: Any) -> tuple[bool, Any]:
        """Whether a fitted estimator has it, and its value as JSON."""
        owner, _, attr = (self.attribute or f"{self.name}_").rpartition(".")
        holder = getattr(estimator, owner, None) if owner else estimator
        if not hasattr(holder, attr):
            return False, None
        return True, json_value(getattr(holder, attr))


#: An array a codec stores: name (attribute ``<name>_``), dtype and shape, where a string
#: is a length shared by every array that names it (``"n"``: the training items).
ArraySpec = tuple[str, str, tuple[int | str, ...]]

#: Arrays whose attribute was renamed after the file format named them: the file keeps
#: its name (files stay readable both ways), the estimator its new attribute.
RENAMED_ATTRIBUTES = {"candidate_gaps": "candidate_quantile_distances_",
                      "candidate_gap_bounds": "candidate_quantile_distance_bounds_"}


def attribute_of(name: str) -> str:
    """The estimator attribute of a stored array's ``name``."""
    return RENAMED_ATTRIBUTES.get(name, name + "_")


@dataclass(frozen=True)
class Codec:
    """How one estimator class is stored: its fitted scalars, the arrays it stores for a
    kernel name, feature count and (Predtron) problem, and how they are put back."""

    name: str
    load_class: Callable[[], type]
    scalars: tuple[Scalar, ...]
    layout: Callable[[str | None, int, Any], list[ArraySpec]]
    restore: Callable[[Any, dict[str, np.ndarray], dict[str, Any]], None]
    #: further checks across fields: returns a (field, problem) pair or None
    check: Callable[[dict[str, Any], dict[str, np.ndarray]], tuple[str, str] | None] = \
        lambda scalars, arrays: None


def kernel_name(estimator: Any) -> str | None:
    """An estimator's kernel as stored: a name, ``"callable"``, or ``None`` (no kernel)."""
    kernel = getattr(estimator, "kernel", None)
    return "callable" if callable(kernel) else kernel


def _set_attributes(est: Any, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> None:
    for name, value in arrays.items():
        setattr(est, attribute_of(name), value)


# ---- TopRanker ----------------------------------------------------------------------------
def _top_ranker():
    from ..estimators import TopRanker

    return TopRanker


def _top_ranker_layout(kernel: str | None, n_features: int, problem: Any) -> list[ArraySpec]:
    if kernel == "precomputed":  # the features of a precomputed kernel are the training items
        return [("dual_coef", "float64", (n_features,))]
    return [("coef", "float64", (n_features,))]


TOP_RANKER = Codec(
    "TopRanker", _top_ranker,
    (Scalar("objective", "float"), Scalar("gap", "float", True),
     Scalar("lower_bound", "float", True), Scalar("status", "str"), Scalar("engine", "str"),
     Scalar("engine_detail", "str", True),
     Scalar("n_iter", "int"), Scalar("zero_model", "bool"), Scalar("n_groups", "int"),
     Scalar("n_groups_skipped", "int"), Scalar("mistakes", "int", True),
     Scalar("n_batches_skipped", "int", True), Scalar("gram_rank", "int", True)),
    _top_ranker_layout, _set_attributes)


# ---- AATP ---------------------------------------------------------------------------------
def _aatp():
    from ..aatp import AATP

    return AATP


def _aatp_layout(kernel: str | None, n_features: int, problem: Any) -> list[ArraySpec]:
    n = n_features if kernel == "precomputed" else "n"
    layout: list[ArraySpec] = [
        ("dual_coef", "float64", (n,)), ("candidates", "int64", ("c",)),
        ("candidate_gaps", "float64", ("c",)), ("candidate_objectives", "float64", ("c",)),
        ("candidate_duality_gaps", "float64", ("c",)), ("candidate_screened", "bool", ("c",)),
        ("candidate_gap_bounds", "float64", ("c", 2))]
    if kernel == "linear":
        layout.append(("coef", "float64", (n_features,)))
    elif kernel in ("rbf", "callable"):
        layout.append(("X_fit", "float64", (n, n_features)))
    return layout


def _aatp_check(scalars: dict[str, Any], arrays: dict[str, np.ndarray]
                ) -> tuple[str, str] | None:
    n = len(arrays["dual_coef"])
    if not 0 <= scalars["candidate"] < n:
        return "fitted.candidate", f"must index one of the {n} training items"
    candidates = arrays["candidates"]
    if np.any((candidates < 0) | (candidates >= n)):
        return "arrays.candidates", f"must index the {n} training items"
    if scalars["candidate"] not in candidates:
        return "fitted.candidate", "must be one of arrays.candidates"
    if scalars.get("gamma") is not None and scalars["gamma"] <= 0:
        return "fitted.gamma", "must be > 0"
    return None


def _aatp_restore(est: Any, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> None:
    from ..aatp.kernels import make_kernel
    from ..solvers.gaps import gap_floor

    _set_attributes(est, arrays, scalars)
    est.kernel_ = make_kernel(est.kernel, scalars.get("gamma"), est.n_features_in_)
    est.quantile_distance_ = scalars["candidate_gap"]
    est.gap_ = scalars["duality_gap"] / max(abs(scalars["objective"]), gap_floor(est.C))


AATP_CODEC = Codec(
    "AATP", _aatp,
    (Scalar("candidate", "int"), Scalar("quantile", "float"), Scalar("objective", "float"),
     Scalar("candidate_gap", "float", attribute="quantile_distance_"),
     Scalar("duality_gap", "float"), Scalar("n_iter", "int"),
     Scalar("engine", "str"), Scalar("n_fallbacks", "int"), Scalar("gram_rank", "int", True),
     Scalar("gamma", "float", True, attribute="kernel_.gamma")),
    _aatp_layout, _aatp_restore, _aatp_check)


# ---- Predtron family -----------------------------------------------------------------------
def _predtron_class(name: str) -> Callable[[], type]:
    def load() -> type:
        from .. import predtron

        return getattr(predtron, name)
    return load


def _predtron_layout(link: bool) -> Callable[[str | None, int, Any], list[ArraySpec]]:
    def layout(kernel: str | None, n_features: int, problem: Any) -> list[ArraySpec]:
        shape = (problem.dim, n_features) if problem.input_kind == "vector" else (n_features,)
        return [("coef", "float64", shape)] + ([("dual_coef", "float64", shape)] if link else [])
    return layout


def _kernel_predtron_layout(kernel: str | None, n_features: int, problem: Any
                            ) -> list[ArraySpec]:
    from ..predtron._model import n_outputs

    return [("support_rows", "float64", ("s", n_features)),
            ("dual_coef", "float64", ("s", n_outputs(problem)))]


def _predtron_restore(est: Any, arrays: dict[str, np.ndarray], scalars: dict[str, Any]
                      ) -> None:
    """Weights copied into a fresh model, so that learning can go on."""
    est.load_weights(est.n_features_in_, arrays)


_ONLINE_SCALARS = (Scalar("mistakes", "int"), Scalar("cumulative_loss", "float"),
                   Scalar("n_rounds", "int"), Scalar("n_iter", "int"))

CODECS: dict[str, Codec] = {
    "TopRanker": TOP_RANKER,
    "AATP": AATP_CODEC,
    "Predtron": Codec("Predtron", _predtron_class("Predtron"), _ONLINE_SCALARS,
                      _predtron_layout(False), _predtron_restore),
    "PredtronLink": Codec("PredtronLink", _predtron_class("PredtronLink"),
                          _ONLINE_SCALARS,
                          _predtron_layout(True), _predtron_restore),
    "KernelPredtron": Codec("KernelPredtron", _predtron_class("KernelPredtron"),
                            _ONLINE_SCALARS, _kernel_predtron_layout, _predtron_restore),
}


def codec_for(estimator: Any) -> Codec:
    """The codec of ``estimator``'s exact class, or TypeError."""
    name = type(estimator).__name__
    codec = CODECS.get(name)
    if codec is None or type(estimator) is not codec.load_class():
        raise TypeError(f"save_model stores {', '.join(CODECS)} estimators, got "
                        f"{type(estimator).__name__}")
    return codec

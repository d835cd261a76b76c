"""Model files: every fitted estimator of cvxtop saved as one versioned, checked document.

:func:`save_model` writes a fitted :class:`~cvxtop.TopRanker`, :class:`~cvxtop.AATP` or
Predtron learner (``Predtron``, ``PredtronLink``, ``KernelPredtron``), with an optional
standardization (``mean``, ``scale``), the input column names and free metadata, to
``.json`` or ``.npz``. :func:`load_model` reads it back as a :class:`SavedModel`, checking
every field first: a file that is not a model, comes from a newer format, or holds a wrong
shape, a non-finite number or a zero scale is refused with a :class:`ModelFileError` (a
``ValueError``) naming the file and the field. Nothing is unpickled. The format is
described by ``docs/schemas/model.schema.json`` and ``docs/model-files.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .._validation import check_features, check_n_features, is_sparse
from ..parameters import IgnoredParameterWarning
from .codecs import CODECS, Codec, attribute_of, codec_for, json_value, kernel_name
from .document import FORMAT, FORMAT_VERSION, Fields, ModelFileError, finite_json, \
    read_document, write_document

__all__ = ["save_model", "load_model", "model_document", "SavedModel", "ModelFileError",
           "FORMAT_VERSION"]

#: The top-level fields of a model document.
TOP_LEVEL = ("format", "format_version", "cvxtop_version", "estimator", "params",
             "params_not_saved", "kernel", "problem", "n_features_in", "feature_names",
             "fitted", "arrays", "info")
_PREDTRONS = ("Predtron", "PredtronLink", "KernelPredtron")


@dataclass(frozen=True)
class SavedModel:
    """A model read by :func:`load_model`.

    ``estimator`` is the fitted estimator, rebuilt with its parameters and fitted
    attributes (a Predtron learner can go on learning with ``partial_fit``).
    :meth:`decision_function` applies the stored standardization first, and picks a
    DataFrame's columns by ``feature_names``.
    """

    estimator: Any
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    feature_names: tuple[str, ...] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION
    cvxtop_version: str = ""
    #: precomputed kernels: the training items as rows of the data they came from, in the
    #: order of the Gram matrix's columns (``None`` when not recorded)
    train_rows: np.ndarray | None = None

    @property
    def kernel(self) -> str | None:
        """The stored kernel name (``"precomputed"``: scores take a test-by-train Gram
        matrix), or ``None`` for the Predtron learners."""
        return kernel_name(self.estimator)

    @property
    def n_features(self) -> int:
        """Columns of the input of :meth:`decision_function` (training items for a
        precomputed kernel)."""
        return int(self.estimator.n_features_in_)

    def gram_columns(self, K: Any, name: str = "K") -> np.ndarray:
        """The test-by-train Gram matrix from ``K``: as given when it has one column per
        training item, or its columns :attr:`train_rows` when it has one per row of the data
        the model was trained on (the training items and the others)."""
        from .._validation import check_matrix_dtype_preserving

        K = check_matrix_dtype_preserving(K, name)
        n_train = self.n_features
        if K.shape[1] == n_train:
            return K
        if self.train_rows is not None and K.shape[1] > int(self.train_rows.max()):
            return K[:, self.train_rows]
        rows = "" if self.train_rows is None else (
            f", or one per item of the data it was trained on (its training rows go up to index "
            f"{int(self.train_rows.max())})")
        raise ValueError(f"{name} must have one column per training item ({n_train}){rows}; "
                         f"got shape {K.shape}")

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores of new items: ``estimator.decision_function`` of the standardized ``X``
        (``(X − mean)/scale``; without forming it for a linear model and sparse ``X``)."""
        est = self.estimator
        if type(est).__name__ in _PREDTRONS:
            return est.decision_function(X)
        if self.feature_names is not None and hasattr(X, "columns"):
            present = set(map(str, X.columns))
            missing = [c for c in self.feature_names if c not in present]
            if missing:
                raise ValueError(f"X lacks the model's feature columns {missing[:5]}")
            X = X[list(self.feature_names)]
        Z = check_features(X, "X")
        check_n_features(Z.shape[1], self.n_features, type(est).__name__, "X")
        coef = getattr(est, "coef_", None)
        if coef is not None and self.kernel == "linear":
            if self.mean is None:
                return Z @ coef
            weights = coef / self.scale
            return Z @ weights - float(self.mean @ weights)
        if self.kernel == "precomputed":
            return est.decision_function(Z)
        Z = Z.toarray() if is_sparse(Z) else Z
        return est.decision_function(Z if self.mean is None else (Z - self.mean) / self.scale)


# ---- saving -------------------------------------------------------------------------------
def save_model(model: Any, path: str | Path, *, mean: Any = None, scale: Any = None,
               feature_names: Any = None, info: dict[str, Any] | None = None,
               train_rows: Any = None) -> None:
    """Save a fitted estimator (or a :class:`SavedModel`) to ``path`` (``.json``/``.npz``).

    ``mean`` and ``scale`` (one value per feature, ``scale > 0``) record a standardization
    the features went through before the fit; :meth:`SavedModel.decision_function` applies
    it. ``feature_names`` default to the estimator's ``feature_names_in_``. ``info`` is
    free metadata of JSON values (numbers, strings, booleans, null, lists, objects).
    ``train_rows`` (precomputed kernels) records which rows of the user's data the training
    items were, in the order of the Gram matrix's columns, so that new items can be scored
    from their Gram matrix with all those rows (:meth:`SavedModel.gram_columns`).
    Parameters that JSON cannot hold (a random ``Generator``, a callable kernel) are listed
    in ``params_not_saved``; a callable kernel is passed again to :func:`load_model`.
    """
    document, arrays = _document(*_saved_fields(model, mean=mean, scale=scale,
                                                feature_names=feature_names, info=info,
                                                train_rows=train_rows))
    write_document(path, document, arrays)


def _saved_fields(model: Any, *, mean: Any = None, scale: Any = None,
                  feature_names: Any = None, info: dict[str, Any] | None = None,
                  train_rows: Any = None) -> tuple:
    """The estimator and what is saved with it (a :class:`SavedModel` brings its own)."""
    if not isinstance(model, SavedModel):
        return model, mean, scale, feature_names, info, train_rows
    if any(v is not None for v in (mean, scale, feature_names, info, train_rows)):
        raise ValueError("a SavedModel is saved with its own mean, scale, feature_names, "
                         "info and train_rows; pass its estimator to change them")
    return (model.estimator, model.mean, model.scale, model.feature_names, model.info,
            model.train_rows)


def _model_names(estimator: Any, feature_names: Any) -> list[str] | None:
    """The input column names to store: given ones, else ``feature_names_in_``."""
    names = feature_names if feature_names is not None else getattr(
        estimator, "feature_names_in_", None)
    return None if names is None else [str(n) for n in names]


def model_document(model: Any, **kwargs: Any) -> dict[str, Any]:
    """The JSON document :func:`save_model` writes to a ``.json`` file, as a dict (arrays
    with their ``data`` lists): to embed a model in another JSON document. ``kwargs`` are
    those of :func:`save_model`."""
    document, arrays = _document(*_saved_fields(model, **kwargs))
    document["arrays"] = {name: {"dtype": str(arr.dtype), "shape": list(arr.shape),
                                 "data": arr.ravel().tolist()} for name, arr in arrays.items()}
    return document


def _document(est: Any, mean: Any, scale: Any, feature_names: Any,
              info: dict[str, Any] | None, train_rows: Any
              ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    codec = codec_for(est)
    if not hasattr(est, "n_features_in_"):
        raise ValueError(f"this {type(est).__name__} is not fitted: call fit first")
    kernel = kernel_name(est)
    params, not_saved = {}, []
    for name, value in est.get_params(deep=False).items():
        if name == "problem":
            continue  # the document's own field
        if name == "kernel" and callable(value):
            not_saved.append(name)
            continue
        try:
            params[name] = json_value(value)
        except (TypeError, ValueError):
            not_saved.append(name)
    n_features = int(est.n_features_in_)
    problem = getattr(est, "problem", None)
    arrays = {name: np.asarray(getattr(est, attribute_of(name)), dtype=dtype)
              for name, dtype, _ in codec.layout(kernel, n_features, problem)}
    arrays.update(_standardization(mean, scale, n_features, kernel, codec))
    if train_rows is not None:
        arrays["train_rows"] = _train_rows(train_rows, kernel, n_features)
    for name, arr in arrays.items():
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds non-finite values; a model file holds finite "
                             "numbers only")
    fitted = {}
    for scalar in codec.scalars:
        present, value = scalar.read(est)
        if present:
            fitted[scalar.name] = value
    names = _model_names(est, feature_names)
    if names is not None and len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names for {n_features} features")
    from .. import __version__
    from .problems import encode_problem

    document = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "cvxtop_version": __version__,
        "estimator": codec.name, "params": params, "params_not_saved": not_saved,
        "kernel": kernel, "problem": None if problem is None else encode_problem(problem),
        "n_features_in": n_features, "feature_names": names, "fitted": fitted,
        "info": _info(info),
    }
    return document, arrays


def _standardization(mean: Any, scale: Any, n_features: int, kernel: str | None,
                     codec: Codec) -> dict[str, np.ndarray]:
    if mean is None and scale is None:
        return {}
    if mean is None or scale is None:
        raise ValueError("give both mean and scale, or neither")
    if not _standardizable(codec, kernel):
        raise ValueError("a standardization (mean, scale) applies to feature inputs of "
                         "TopRanker and AATP, not to this model")
    arrays = {"mean": np.asarray(mean, dtype=np.float64),
              "scale": np.asarray(scale, dtype=np.float64)}
    for name, arr in arrays.items():
        if arr.shape != (n_features,):
            raise ValueError(f"{name} must have shape ({n_features},), got {arr.shape}")
    if not np.all(arrays["scale"] > 0):
        raise ValueError("scale must hold values > 0")
    return arrays


def _standardizable(codec: Codec, kernel: str | None) -> bool:
    """Whether a model scores feature vectors that a (mean, scale) can standardize."""
    return codec.name in ("TopRanker", "AATP") and kernel != "precomputed"


def _distinct_rows(rows: np.ndarray) -> bool:
    return bool(np.all(rows >= 0)) and len(np.unique(rows)) == len(rows)


def _train_rows(train_rows: Any, kernel: str | None, n_features: int) -> np.ndarray:
    if kernel != "precomputed":
        raise ValueError("train_rows applies to precomputed-kernel models")
    rows = np.asarray(train_rows)
    if rows.dtype.kind not in "iu" or rows.shape != (n_features,) or not _distinct_rows(rows):
        raise ValueError(f"train_rows must be {n_features} distinct non-negative integers (one "
                         "per training item)")
    return rows.astype(np.int64)


def _info(info: dict[str, Any] | None) -> dict[str, Any]:
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise TypeError(f"info must be a dict, got {type(info).__name__}")
    try:
        return json_value({str(k): v for k, v in info.items()})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"info must hold JSON values (finite numbers, strings, booleans, "
                         f"null, lists, dicts): {exc}") from None


# ---- loading ------------------------------------------------------------------------------
def load_model(path: str | Path, *, kernel: Callable[..., Any] | None = None) -> SavedModel:
    """Read and check a model file written by :func:`save_model` (or ``cvxtop fit/aatp
    --model``). ``kernel``: the callable kernel of a model trained with one."""
    document, raw = read_document(path)
    fields = Fields(path, document, raw)
    _check_format(fields, document)
    fields.only(document, TOP_LEVEL, "")
    name = fields.get(document, "estimator", "estimator", "str",
                      check=lambda v: None if v in CODECS else
                      f"must be one of {', '.join(CODECS)}")
    codec = CODECS[name]
    estimator = _estimator(fields, codec, document, kernel)
    n_features = fields.get(document, "n_features_in", "n_features_in", "int",
                            check=lambda v: None if v >= 1 else "must be >= 1")
    names = fields.get(document, "feature_names", "feature_names", "list", optional=True,
                       check=lambda v: None if len(v) == n_features and all(
                           isinstance(n, str) for n in v) else
                       f"must be null or {n_features} strings")
    scalars = _scalars(fields, codec, document)
    arrays = _arrays(fields, codec, document, kernel_name(estimator), n_features,
                     getattr(estimator, "problem", None))
    mean, scale = arrays.pop("mean", None), arrays.pop("scale", None)
    train_rows = arrays.pop("train_rows", None)
    problem = codec.check(scalars, arrays)
    if problem is not None:
        raise fields.error(*problem)
    info = fields.get(document, "info", "info", "dict", check=finite_json)
    estimator.n_features_in_ = n_features
    if names is not None and name in ("TopRanker", "AATP"):
        estimator.feature_names_in_ = np.array(names, dtype=object)
    for scalar in codec.scalars:
        if scalar.name in scalars and scalar.attribute is None:
            setattr(estimator, scalar.name + "_", scalars[scalar.name])
    codec.restore(estimator, arrays, scalars)
    return SavedModel(estimator, mean, scale, None if names is None else tuple(names), info,
                      document["format_version"], document["cvxtop_version"], train_rows)


def _check_format(fields: Fields, document: dict[str, Any]) -> None:
    if document.get("format") != FORMAT:
        raise fields.error("format", f"must be {FORMAT!r}: this is not a cvxtop model file "
                           "(or one saved before model files had a format version; fit and "
                           "save it again)")
    version = fields.get(document, "format_version", "format_version", "int",
                         check=lambda v: None if v >= 1 else "must be >= 1")
    written_by = document.get("cvxtop_version")
    if version > FORMAT_VERSION:
        from .. import __version__

        raise fields.error("format_version", f"the file has model format {version} (written "
                           f"by cvxtop {written_by}); this cvxtop {__version__} reads format "
                           f"{FORMAT_VERSION} and older: upgrade cvxtop to read it")
    fields.get(document, "cvxtop_version", "cvxtop_version", "str")


def _estimator(fields: Fields, codec: Codec, document: dict[str, Any],
               kernel: Callable[..., Any] | None) -> Any:
    """A new estimator with the stored parameters, checked by the estimator itself."""
    cls = codec.load_class()
    params = fields.get(document, "params", "params", "dict", check=finite_json)
    not_saved = fields.get(document, "params_not_saved", "params_not_saved", "list",
                           check=lambda v: None if all(isinstance(n, str) for n in v)
                           else "must be a list of parameter names")
    known = [p for p in cls._get_param_names() if p != "problem"]
    table = getattr(cls, "PARAMETERS", None)
    if table is not None:  # files written before a parameter's rename
        try:
            params = table.with_current_names(params)
        except ValueError as exc:
            raise fields.error("params", str(exc)) from None
    fields.only(params, known, "params")
    fields.only({n: None for n in not_saved}, known, "params_not_saved")
    stored_kernel = fields.get(document, "kernel", "kernel", "str", optional=True)
    arguments = dict(params)
    if stored_kernel == "callable":
        if kernel is None:
            raise fields.error("kernel", "the model was trained with a callable kernel: pass "
                               "the same callable, load_model(path, kernel=...)")
        arguments["kernel"] = kernel
    elif kernel is not None:
        raise ValueError(f"kernel=: {fields.path} holds a {stored_kernel!r} kernel model, "
                         "not a callable one")
    if codec.name in _PREDTRONS:
        from .problems import decode_problem

        fields.get(document, "problem", "problem", "dict", check=finite_json)
        arguments["problem"] = decode_problem(fields, document.get("problem"))
    elif document.get("problem") is not None:
        raise fields.error("problem", f"must be null for {codec.name}")
    try:
        estimator = cls(**arguments)
        with warnings.catch_warnings():  # the file's parameters were fitted with
            warnings.simplefilter("ignore", IgnoredParameterWarning)  # (warned then)
            estimator.check_params()
        if codec.name == "TopRanker":
            from ..surrogates import get

            get(estimator.surrogate, estimator.k)
    except (TypeError, ValueError) as exc:
        raise fields.error("params", str(exc)) from None
    if stored_kernel != kernel_name(estimator):
        raise fields.error("kernel", f"must be {kernel_name(estimator)!r} for these params")
    return estimator


def _scalars(fields: Fields, codec: Codec, document: dict[str, Any]) -> dict[str, Any]:
    fitted = fields.get(document, "fitted", "fitted", "dict")
    fields.only(fitted, [s.name for s in codec.scalars], "fitted")
    values = {}
    for scalar in codec.scalars:
        if scalar.name in fitted:
            values[scalar.name] = fields.get(fitted, scalar.name, f"fitted.{scalar.name}",
                                             scalar.kind, optional=scalar.optional)
        elif not scalar.optional:
            raise fields.error(f"fitted.{scalar.name}", "missing")
    return values


def _arrays(fields: Fields, codec: Codec, document: dict[str, Any], kernel: str | None,
            n_features: int, problem: Any) -> dict[str, np.ndarray]:
    arrays = fields.get(document, "arrays", "arrays", "dict")
    layout = codec.layout(kernel, n_features, problem)
    standardized = ("mean" in arrays or "scale" in arrays) and _standardizable(codec, kernel)
    if standardized:
        layout += [("mean", "float64", (n_features,)), ("scale", "float64", (n_features,))]
    if "train_rows" in arrays and kernel == "precomputed":
        layout.append(("train_rows", "int64", (n_features,)))
    fields.only(arrays, [name for name, _, _ in layout], "arrays")
    bound: dict[str, int] = {}
    values = {}
    for name, dtype, shape in layout:
        arr = fields.array(name, dtype, [d if isinstance(d, int) else None for d in shape])
        for symbol, length in zip(shape, arr.shape):
            if isinstance(symbol, str) and bound.setdefault(symbol, length) != length:
                raise fields.error(f"arrays.{name}", f"has {length} rows where the other "
                                   f"arrays have {bound[symbol]}")
        values[name] = arr
    rows = values.get("train_rows")
    if rows is not None and not _distinct_rows(rows):
        raise fields.error("arrays.train_rows", "must hold distinct non-negative row indices")
    if standardized and not np.all(values["scale"] > 0):
        bad = int(np.flatnonzero(values["scale"] <= 0)[0])
        raise fields.error("arrays.scale", f"entry {bad} is {values['scale'][bad]}; a scale "
                           "must be > 0")
    return values

"""Input checks shared by every public entry point.

Each check raises :class:`ValueError` (bad value) or :class:`TypeError` (bad type) with a
message that names the offending argument, before any numerical work starts. Keeping every
message in this one module keeps the wording uniform across metrics, surrogates, solvers and
estimators.
"""

from __future__ import annotations

import math
import numbers
import sys
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "is_sparse",
    "check_features",
    "check_labels",
    "check_scores",
    "check_ranked_scores",
    "check_matrix",
    "check_matrix_dtype_preserving",
    "check_gram",
    "check_same_length",
    "check_int_in_range",
    "exact_decimal",
    "check_fraction",
    "check_positive",
    "check_bool",
    "check_options_mapping",
    "check_random_state",
    "make_rng",
    "check_count_or_auto",
    "require_classes",
    "check_array3",
    "check_vector",
    "check_class_labels",
    "check_grades",
]


def is_sparse(value: Any) -> bool:
    """Whether ``value`` is a scipy sparse matrix or array, without importing scipy (a
    sparse object exists only once ``scipy.sparse`` has been imported)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(value)


def _as_numeric_array(value: Any, name: str) -> np.ndarray:
    if value is None:
        raise TypeError(f"{name} must be an array-like of numbers, got None")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array-like of numbers, got a string")
    if is_sparse(value):
        raise TypeError(f"{name} is a sparse matrix, and sparse input is not supported: "
                        "pass a dense array (X.toarray())")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must contain numbers only ({exc})") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must contain numbers or booleans, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise ValueError(f"{name} holds complex numbers: Complex data not supported")
    return arr


def check_labels(y: Any, name: str = "y_true") -> np.ndarray:
    """Return binary labels as an ``int64`` array of 0/1 (1 = relevant).

    Accepted encodings: 0/1, booleans, and -1/+1 (mapped to 0/1).
    """
    arr = _as_numeric_array(y, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == np.bool_:
        return arr.astype(np.int64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    relevant = arr == 1
    if np.all(relevant | (arr == 0)) or np.all(relevant | (arr == -1)):
        return relevant.astype(np.int64)
    shown = np.unique(arr).tolist()[:6]
    raise ValueError(
        f"{name} must hold binary labels (0/1, -1/+1 or booleans); found values {shown}"
    )


def _score_array(s: Any, name: str) -> np.ndarray:
    """A non-empty 1-D array of real numbers in its own dtype: integers and ``longdouble``
    are not rounded to ``float64`` here, and an ``object`` array keeps Python ints wider
    than 64 bits (they are compared exactly)."""
    if isinstance(s, (str, bytes)) or s is None or is_sparse(s):
        return _as_numeric_array(s, name)  # its messages
    try:
        arr = np.asarray(s)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == object:
        bad = [v for v in arr.tolist() if isinstance(v, (bool, np.bool_))
               or not isinstance(v, numbers.Real)]
        if bad:
            raise TypeError(f"{name} must contain real numbers only, got "
                            f"{type(bad[0]).__name__} {bad[0]!r}")
        if not all(np.isfinite(v) for v in arr.tolist() if isinstance(v, (float, np.floating))):
            raise ValueError(f"{name} contains NaN or infinite values")
        return arr
    arr = _as_numeric_array(arr, name)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _float64_if_exact(arr: np.ndarray) -> np.ndarray | None:
    """``arr`` as ``float64`` when every value converts without rounding, else ``None``."""
    if arr.dtype in (np.float64, np.float32, np.float16, np.bool_) or (
            arr.dtype.kind in "iu" and arr.dtype.itemsize <= 4):
        return arr.astype(np.float64, copy=False)
    if arr.dtype == object:
        values = arr.tolist()
        converted = [_float_or_inf(v) for v in values]
        exact = all(math.isfinite(f) and f == v for f, v in zip(converted, values))
        return np.array(converted, dtype=np.float64) if exact else None
    with np.errstate(over="ignore"):
        converted = arr.astype(np.float64)
    if not np.all(np.isfinite(converted)):
        return None
    if arr.dtype.kind in "iu":  # back through Python ints: exact, no overflow
        limit = 2.0 ** (64 if arr.dtype.kind == "u" else 63)
        inside = converted < limit
        if not inside.all():
            return None
        return converted if np.array_equal(converted.astype(arr.dtype), arr) else None
    return converted if np.array_equal(converted.astype(arr.dtype), arr) else None


def _float_or_inf(v: Any) -> float:
    try:
        return float(v)
    except OverflowError:  # a Python int past float64's range
        return math.inf


def check_scores(s: Any, name: str = "y_score") -> np.ndarray:
    """Return a finite 1-D ``float64`` array holding exactly the given values.

    Values that ``float64`` cannot hold exactly (integers beyond 2**53 that are not
    multiples of a power of two, ``longdouble`` digits past ``float64``'s, numbers past
    its range) are refused: a surrogate's value at rounded scores is not its value at the
    given ones. Order-based metrics rank such scores exactly instead
    (:func:`check_ranked_scores`).
    """
    arr = _score_array(s, name)
    exact = _float64_if_exact(arr)
    if exact is None:
        raise ValueError(f"{name} holds values that float64 cannot represent exactly "
                         f"({arr.dtype} values such as {_inexact_example(arr)}); pass "
                         "float64 scores, or shift and scale them into float64's range")
    return exact


def _inexact_example(arr: np.ndarray) -> Any:
    value = next((v for v in arr.tolist() if _float_or_inf(v) != v), arr.tolist()[0])
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def check_ranked_scores(s: Any, name: str = "y_score") -> tuple[np.ndarray, np.ndarray | None]:
    """Scores for order-based metrics: a finite 1-D ``float64`` array with exactly the
    order and ties of ``s``, and ``None``; or, when ``float64`` cannot hold every value
    exactly (integers beyond 2**53, ``longdouble``, Python ints of any size), their dense
    ranks (compared exactly in their own type) and the original array, so that
    ``[2**62 + 1, 2**62]`` stays two different scores."""
    arr = _score_array(s, name)
    exact = _float64_if_exact(arr)
    if exact is not None:
        return exact, None
    _, ranks = np.unique(arr, return_inverse=True)
    return ranks.astype(np.float64).ravel(), arr


def check_matrix(X: Any, name: str = "X") -> np.ndarray:
    """Return a finite 2-D ``float64`` array with at least one row and one column.

    A ``float64`` array (memory-mapped ones included) is returned without a copy.
    """
    return check_matrix_dtype_preserving(X, name).astype(np.float64, copy=False)


def check_features(X: Any, name: str = "X") -> Any:
    """:func:`check_matrix` for a feature matrix that may be a scipy sparse matrix or array:
    sparse input comes back as CSR with ``float64`` entries (a copy only when the format or
    dtype differs), its stored entries checked finite, never densified."""
    if not is_sparse(X):
        return check_matrix(X, name)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape={X.shape}): at least 1 sample and 1 feature "
                         "are required.")
    if np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"{name} holds complex numbers: Complex data not supported")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == np.bool_):
        raise TypeError(f"{name} must contain numbers or booleans, got dtype {X.dtype}")
    X = X.tocsr().astype(np.float64, copy=False)
    if not np.isfinite(X.data).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return X


def check_matrix_dtype_preserving(X: Any, name: str = "X") -> np.ndarray:
    """Like :func:`check_matrix`, but a ``float32`` array keeps its dtype (other numeric
    dtypes become ``float64``); memory maps of either float dtype are not copied."""
    arr = _as_numeric_array(X, name)
    if arr.ndim == 1:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}: Reshape your "
                         "data with .reshape(-1, 1) for one feature or .reshape(1, -1) for "
                         "one item")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: 0 sample(s) (shape={arr.shape}) while a minimum "
                         "of 1 is required.")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} is empty: 0 feature(s) (shape={arr.shape}) while a minimum "
                         "of 1 is required.")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if not _all_finite(arr):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _all_finite(arr: np.ndarray, chunk: int = 1 << 22) -> bool:
    """``np.isfinite(arr).all()`` in row blocks of about ``chunk`` entries, so a large
    (memory-mapped) matrix is scanned without a full-size temporary."""
    step = max(1, chunk // max(1, arr.shape[1]))
    return all(bool(np.isfinite(arr[i:i + step]).all()) for i in range(0, len(arr), step))


def check_gram(K: Any, name: str = "K", rtol: float = 1e-8) -> np.ndarray:
    """Return a square, finite, symmetric Gram matrix as ``float64``.

    Symmetry is checked to ``rtol`` relative to the largest absolute entry.
    """
    arr = check_matrix(K, name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {arr.shape}")
    scale = max(1.0, float(np.max(np.abs(arr))))
    asym = float(np.max(np.abs(arr - arr.T)))
    if asym > rtol * scale:
        raise ValueError(
            f"{name} must be symmetric; max |{name} - {name}.T| = {asym:.3g}"
        )
    return arr


def check_same_length(**arrays: np.ndarray) -> int:
    """Check that all given arrays have the same first dimension and return it."""
    lengths = {name: a.shape[0] if is_sparse(a) else len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{n} has {m}" for n, m in lengths.items())
        raise ValueError(f"inconsistent numbers of items: {detail}")
    return next(iter(lengths.values()))


def check_int_in_range(value: Any, name: str, low: int, high: int, high_desc: str = "") -> int:
    """Return ``value`` as an int after checking ``low <= value <= high``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if value < low or value > high:
        bound = f"{high}" + (f" ({high_desc})" if high_desc else "")
        raise ValueError(f"{name} must satisfy {low} <= {name} <= {bound}, got {value}")
    return value


def exact_decimal(x: Any, name: str = "x") -> Fraction:
    """The number the user wrote as ``x``, exactly: the shortest decimal that reads back as
    ``x`` in its own type (``repr`` of a Python float, numpy's shortest digits for
    ``float16``/``float32``/``longdouble``), ``x`` itself for an int or a ``Fraction``
    (the cut-off rule of :mod:`cvxtop.cutoff`). NaN and infinities are refused."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got a bool")
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):  # Python floats (np.float64 is one too)
        text = repr(float(x))
    elif isinstance(x, np.floating):
        text = np.format_float_scientific(x, unique=True)
    elif isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be an int, a Python or numpy float or a Fraction, got "
                        f"{type(x).__name__}")
    else:
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    if text.lstrip("-+") in ("nan", "inf"):
        raise ValueError(f"{name} must be a finite number, got {x!r}")
    return Fraction(text)


def check_fraction(value: Any, name: str, *, closed_right: bool = False) -> float:
    """Return a real number in (0, 1) (or (0, 1] with ``closed_right``) as the ``float``
    nearest the decimal the user wrote (:func:`exact_decimal`): ``np.float32(0.1)`` becomes
    ``0.1``, so that every number type means the same fraction."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    interval = "(0, 1]" if closed_right else "(0, 1)"
    try:
        q = exact_decimal(value, name)
    except ValueError:
        raise ValueError(f"{name} must lie in {interval}, got {value!r}") from None
    if not (0 < q < 1 or (closed_right and q == 1)):
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return float(q)


def check_bool(value: Any, name: str) -> bool:
    """A flag: ``True`` or ``False`` (a numpy bool too). Strings such as ``"no"`` and other
    values are refused instead of being taken by their truthiness."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_random_state(value: Any, name: str = "random_state") -> Any:
    """A seed: ``None``, an int in ``[0, 2³²)`` (what scikit-learn's splitters accept
    too), a :class:`numpy.random.Generator`, ``SeedSequence`` or ``BitGenerator``, or a
    legacy ``RandomState`` (scikit-learn's habit). Returned as given (:func:`make_rng`
    draws from it)."""
    if value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence,
                                           np.random.BitGenerator, np.random.RandomState)):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be None, an int from 0 to 2**32 - 1 or a numpy Generator, got "
                        f"{type(value).__name__} {value!r}")
    if not 0 <= value < 2 ** 32:
        raise ValueError(f"{name} must be None, an int from 0 to 2**32 - 1 or a numpy "
                         f"Generator, got {value}")
    return value


def make_rng(value: Any, name: str = "random_state") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a seed of :func:`check_random_state` (a
    ``RandomState`` gives the seed of a new generator, as scikit-learn draws from it)."""
    value = check_random_state(value, name)
    if isinstance(value, np.random.RandomState):
        value = int(value.randint(0, 2 ** 31 - 1))
    return np.random.default_rng(value)


def check_options_mapping(value: Any, name: str) -> dict:
    """Keyword options for another library (a cvxpy solver's): a mapping with string
    keys, returned as a dict."""
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of option names to values (e.g. "
                        f"{{'max_iter': 500}}), got {type(value).__name__} {value!r}")
    bad = [key for key in value if not isinstance(key, str)]
    if bad:
        raise TypeError(f"{name} must have string keys (option names), got {bad[0]!r}")
    return dict(value)


def check_count_or_auto(value: Any, name: str) -> int | str:
    """Return ``"auto"`` or a positive integer (a mini-batch size, a number of epochs)."""
    if isinstance(value, str) and value == "auto":
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 1:
        raise ValueError(f"{name} must be a positive integer or 'auto', got {value!r}")
    return int(value)


def check_positive(value: Any, name: str) -> float:
    """Return a finite real number > 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def check_positive_values(value: Any, name: str,
                          expected: str = "a sequence of numbers > 0") -> np.ndarray:
    """A non-empty sequence of finite real numbers > 0 (values of ``C``), as floats;
    ``expected`` names what else was accepted in the ``TypeError``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be {expected}, got {value!r}")
    values = [check_positive(c, f"{name}[{i}]") for i, c in enumerate(value)]
    if not values:
        raise ValueError(f"{name} must hold at least one value")
    return np.asarray(values, dtype=np.float64)


def require_classes(y: np.ndarray, name: str = "y_true", *, positive: bool = True,
                    negative: bool = True, context: str = "") -> tuple[int, int]:
    """Check that the required classes are present; return ``(n_pos, n_neg)``."""
    n_pos = int(np.count_nonzero(y))
    n_neg = int(len(y) - n_pos)
    suffix = f" ({context})" if context else ""
    if positive and n_pos == 0:
        raise ValueError(f"{name} has no relevant item (label 1); one is required{suffix}")
    if negative and n_neg == 0:
        raise ValueError(f"{name} has no irrelevant item (label 0); one is required{suffix}")
    return n_pos, n_neg


def check_array3(value: Any, name: str) -> np.ndarray:
    """Return a finite, non-empty 3-D ``float64`` array (e.g. a batch of input matrices)."""
    arr = _as_numeric_array(value, name)
    if arr.ndim != 3:
        raise ValueError(f"{name} must be 3-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    return check_matrix(arr.reshape(arr.shape[0], -1), name).reshape(arr.shape)


def check_vector(value: Any, length: int, name: str) -> np.ndarray:
    """Return a finite 1-D ``float64`` array of exactly ``length`` entries."""
    arr = check_scores(value, name)
    if len(arr) != length:
        raise ValueError(f"{name} must have {length} entries, got {len(arr)}")
    return arr


def check_class_labels(y: Any, n_classes: int, name: str = "y") -> np.ndarray:
    """Return integer class labels in ``0 .. n_classes - 1`` as ``int64`` (any shape)."""
    arr = _as_numeric_array(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == np.bool_:
        raise TypeError(f"{name} must hold integer class labels, got booleans")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if not np.all(arr == np.round(arr)):
        raise ValueError(f"{name} must hold integer class labels, found non-integer values")
    if arr.min() < 0 or arr.max() > n_classes - 1:
        raise ValueError(
            f"{name} must hold class labels in 0..{n_classes - 1}, found values in "
            f"[{arr.min():g}, {arr.max():g}]")
    return arr.astype(np.int64)


def check_grades(y: Any, name: str = "y") -> np.ndarray:
    """Return finite non-negative relevance grades as ``float64`` (any shape)."""
    arr = _as_numeric_array(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if arr.min() < 0:
        raise ValueError(f"{name} must hold non-negative relevance grades, found {arr.min():g}")
    return arr


# ---- accuracy at the top (cvxtop.aatp) -------------------------------------------------

__all__ += [
    "reject_sparse",
    "check_min_samples",
    "check_choice",
    "check_n_jobs",
    "check_pairs",
    "check_n_features",
    "require_target",
    "check_min_features",
]


def reject_sparse(X: Any, name: str = "X") -> None:
    """Refuse scipy sparse input with a message that says so (dense arrays only)."""
    if is_sparse(X):
        raise TypeError(f"{name} is a sparse matrix; sparse input is not supported, "
                        f"pass a dense array ({name}.toarray())")


def check_min_samples(n: int, minimum: int, name: str = "X") -> None:
    """At least ``minimum`` samples (rows)."""
    if n < minimum:
        noun = "sample" if n == 1 else "samples"
        raise ValueError(f"{name} has {n} {noun}; at least {minimum} are required")


def check_choice(value: Any, name: str, options: tuple) -> Any:
    """``value`` must be one of ``options``."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def check_n_jobs(n_jobs: Any, name: str = "n_jobs") -> int | None:
    """``None`` or a non-zero integer (joblib's convention; -1 means all workers)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name} must be None or an integer, got {type(n_jobs).__name__}")
    if n_jobs == 0:
        raise ValueError(f"{name} must be a non-zero integer or None, got 0")
    return int(n_jobs)


def check_pairs(pairs: Any, n_items: int, name: str = "pairs") -> np.ndarray:
    """Preference pairs as an ``int64`` array of shape (m, 2) of item indices.

    Row ``(a, b)`` states that item ``b`` is preferred over item ``a``; both must be valid
    indices and different.
    """
    arr = _as_numeric_array(pairs, name)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (m, 2) (one preference pair per row), "
                         f"got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == np.bool_ or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integer item indices")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= n_items:
        raise ValueError(f"{name} holds indices outside [0, {n_items - 1}] "
                         f"(there are {n_items} items)")
    same = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if same.size:
        raise ValueError(f"{name}[{same[0]}] compares item {arr[same[0], 0]} with itself")
    return arr


def check_n_features(n_features: int, expected: int, estimator: str, name: str = "X") -> None:
    """The number of features seen at fit time (scikit-learn's wording)."""
    if n_features != expected:
        raise ValueError(f"{name} has {n_features} features, but {estimator} is expecting "
                         f"{expected} features as input")


def require_target(y: Any, estimator: str, name: str = "y") -> None:
    """A supervised estimator needs ``y`` (scikit-learn's wording when it is missing)."""
    if y is None:
        raise ValueError(f"{estimator} requires {name} to be passed, but the target {name} "
                         "is None")


def check_min_features(X: np.ndarray, minimum: int = 1, name: str = "X") -> None:
    """At least ``minimum`` columns (scikit-learn's wording)."""
    if X.ndim == 2 and X.shape[1] < minimum:
        raise ValueError(f"{name} has {X.shape[1]} feature(s) (shape={X.shape}) while a "
                         f"minimum of {minimum} is required.")

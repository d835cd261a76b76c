"""A model file as a document: one JSON object, stored as ``.json`` or inside an ``.npz``.

The document (described by ``docs/schemas/model.schema.json``) holds every setting as a JSON
value and every array as ``{"dtype", "shape", "data"}`` with ``data`` the flat list of its
entries in C order. An ``.npz`` file stores the same object, without the ``data`` lists, as
the JSON string member ``document``, and each array as the member ``array.<name>``. Nothing
is ever unpickled (``np.load(..., allow_pickle=False)``), and floats are written with
Python's shortest round-trip repr, so a file written by this version reads back bit for bit.

:class:`Fields` reads the document back and checks it field by field; every refusal is a
:class:`ModelFileError` naming the file and the field (``arrays.coef``, ``params.C``).
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..io import DataFileError

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFileError", "Fields", "write_document",
           "read_document", "finite_json"]

#: The value of the document's ``format`` field.
FORMAT = "cvxtop-model"
#: The format version this cvxtop writes; it reads this one and older ones.
FORMAT_VERSION = 1
#: Array dtypes a model file may hold.
DTYPES = ("float64", "int64", "bool")
_NPZ_DOCUMENT = "document"
_NPZ_ARRAY = "array."


class ModelFileError(DataFileError):
    """A model file that cannot be read or does not hold a valid model. ``path`` and
    ``field`` (dotted, e.g. ``arrays.coef``; ``None`` for the file as a whole) say where."""

    def __init__(self, path: str | Path, field: str | None, problem: str) -> None:
        where = f"{path}" if field is None else f"{path}: field {field!r}"
        super().__init__(f"{where}: {problem}")
        self.path = str(path)
        self.field = field


def _json_text(document: dict[str, Any], arrays: dict[str, np.ndarray], inline: bool) -> str:
    """The document as indented JSON, each array's ``data`` on one line when ``inline``."""
    placeholders = {}
    doc = dict(document, arrays={})
    for name, arr in arrays.items():
        entry: dict[str, Any] = {"dtype": str(arr.dtype), "shape": list(arr.shape)}
        if inline:
            key = f"@array-data:{name}@"
            placeholders[json.dumps(key)] = json.dumps(arr.ravel().tolist(), allow_nan=False)
            entry["data"] = key
        doc["arrays"][name] = entry
    text = json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False)
    for key, data in placeholders.items():
        text = text.replace(key, data, 1)
    return text + "\n"


def write_document(path: str | Path, document: dict[str, Any],
                   arrays: dict[str, np.ndarray]) -> None:
    """Write ``document`` (settings, JSON values) and ``arrays`` to ``.json`` or ``.npz``."""
    p = Path(path)
    for name, arr in arrays.items():
        if str(arr.dtype) not in DTYPES:
            raise TypeError(f"array {name!r} has dtype {arr.dtype}; a model file holds "
                            f"{', '.join(DTYPES)}")
    if p.suffix == ".json":
        p.write_text(_json_text(document, arrays, inline=True), encoding="utf-8")
    elif p.suffix == ".npz":
        members = {_NPZ_ARRAY + name: arr for name, arr in arrays.items()}
        np.savez(p, **members, **{_NPZ_DOCUMENT: np.array(_json_text(document, arrays, False))})
    else:
        raise ValueError(f"path must end in .json or .npz, got {str(path)!r}")


def read_document(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The document and its raw arrays (``data`` lists for JSON, numpy arrays for npz),
    unchecked but for the file's own structure."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(p, None, "no such file")
    if p.suffix not in (".json", ".npz"):
        raise ModelFileError(p, None, "a model file ends in .json or .npz")
    if p.suffix == ".json":
        document = _parse(p, _read_text(p))
        return document, {}
    try:
        with np.load(p, allow_pickle=False) as npz:
            names = list(npz.files)
            if _NPZ_DOCUMENT not in names:
                raise ModelFileError(p, None, "not a cvxtop model file (no 'document' member)")
            text = npz[_NPZ_DOCUMENT]
            if text.dtype.kind != "U" or text.shape != ():
                raise ModelFileError(p, "document", "must be a JSON string")
            raw = {name[len(_NPZ_ARRAY):]: npz[name] for name in names
                   if name.startswith(_NPZ_ARRAY)}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(p, None, f"not a readable .npz model file ({exc})") from None
    return _parse(p, str(text)), raw


def _read_text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ModelFileError(p, None, "not a JSON model file (not UTF-8 text)") from None


def _parse(p: Path, text: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(p, None, f"not a JSON model file ({exc})") from None
    if not isinstance(document, dict):
        raise ModelFileError(p, None, "not a cvxtop model file (the JSON is a "
                             f"{type(document).__name__}, not an object)")
    return document


def _describe(value: Any) -> str:
    text = json.dumps(value) if _is_json(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def finite_json(value: Any) -> str | None:
    """``None`` when ``value`` is strict JSON (no NaN or infinity), else the problem."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return "must hold finite numbers only (no NaN or Infinity)"
    return None


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


class Fields:
    """Checked access to the fields of a document read from ``path``."""

    def __init__(self, path: str | Path, document: dict[str, Any],
                 raw_arrays: dict[str, Any]) -> None:
        self.path = str(path)
        self.document = document
        self._raw = raw_arrays
        self._npz = Path(path).suffix == ".npz"

    def error(self, field: str | None, problem: str) -> ModelFileError:
        return ModelFileError(self.path, field, problem)

    # ---- scalars and containers ---------------------------------------------------------
    def get(self, container: dict[str, Any], key: str, field: str, kind: str,
            *, optional: bool = False, check: Callable[[Any], str | None] | None = None) -> Any:
        """``container[key]`` as ``kind``: ``"int"``, ``"float"``, ``"str"``, ``"bool"``,
        ``"dict"`` or ``"list"``; ``None`` allowed when ``optional``. ``check`` returns a
        problem (a string) or ``None``."""
        if key not in container:
            if optional:
                return None
            raise self.error(field, "missing")
        value = container[key]
        if value is None and optional:
            return None
        problem = _kind_problem(value, kind)
        if problem is None and check is not None:
            problem = check(value)
        if problem is not None:
            raise self.error(field, f"{problem}, got {_describe(value)}")
        return float(value) if kind == "float" else value

    def only(self, container: dict[str, Any], allowed: Sequence[str], field: str) -> None:
        """Refuse keys of ``container`` outside ``allowed``."""
        extra = sorted(set(container) - set(allowed))
        if extra:
            name = f"{field}.{extra[0]}" if field else extra[0]
            raise self.error(name, f"not a field of this model (known: {', '.join(allowed)})")

    # ---- arrays ------------------------------------------------------------------------
    def array(self, name: str, dtype: str, shape: Sequence[int | None],
              *, optional: bool = False) -> np.ndarray | None:
        """The array ``arrays.<name>``: its declared dtype and shape must be ``dtype`` and
        ``shape`` (``None`` matches any length), its entries finite."""
        field = f"arrays.{name}"
        arrays = self.document["arrays"]
        if name not in arrays:
            if optional:
                return None
            raise self.error(field, "missing")
        entry = arrays[name]
        if not isinstance(entry, dict):
            raise self.error(field, f"must be an object with dtype, shape and data, got "
                             f"{_describe(entry)}")
        declared = self.get(entry, "dtype", f"{field}.dtype", "str",
                            check=lambda v: None if v == dtype else f"must be {dtype!r}")
        dims = self.get(entry, "shape", f"{field}.shape", "list",
                        check=lambda v: _shape_problem(v, shape))
        values = self._values(name, field, entry, declared, tuple(dims))
        return values

    def _values(self, name: str, field: str, entry: dict[str, Any], dtype: str,
                shape: tuple[int, ...]) -> np.ndarray:
        if self._npz:
            member = f"{_NPZ_ARRAY}{name}"
            if "data" in entry:
                raise self.error(f"{field}.data", "an .npz model keeps its arrays as members, "
                                 "not in the document")
            if name not in self._raw:
                raise self.error(field, f"the member {member!r} is missing")
            arr = self._raw[name]
            if str(arr.dtype) != dtype or arr.shape != shape:
                raise self.error(field, f"the member {member!r} holds {arr.dtype} of shape "
                                 f"{arr.shape}, but the document declares {dtype} of shape "
                                 f"{shape}")
        else:
            data = self.get(entry, "data", f"{field}.data", "list")
            size = math.prod(shape)
            if len(data) != size:
                raise self.error(f"{field}.data", f"must hold {size} entries for shape "
                                 f"{list(shape)}, got {len(data)}")
            for i, v in enumerate(data):
                problem = _kind_problem(v, _ENTRY[dtype])
                if problem is not None:
                    raise self.error(f"{field}.data", f"entry {i} is {_describe(v)}: "
                                     f"{problem} ({dtype})")
            arr = np.array(data, dtype=dtype).reshape(shape)
        if dtype == "float64" and not np.all(np.isfinite(arr)):
            bad = int(np.flatnonzero(~np.isfinite(arr.ravel()))[0])
            raise self.error(field, f"entry {bad} is {arr.ravel()[bad]}; a model holds finite "
                             "numbers only")
        return arr


_ENTRY = {"float64": "float", "int64": "int", "bool": "bool"}


def _kind_problem(value: Any, kind: str) -> str | None:
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and not math.isfinite(value):
            return "must be a finite number"
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "dict":
        ok = isinstance(value, dict)
    elif kind == "list":
        ok = isinstance(value, list)
    else:  # pragma: no cover - a programming error, not a file's
        raise ValueError(f"unknown kind {kind!r}")
    if ok:
        return None
    noun = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false",
            "dict": "an object", "list": "a list"}[kind]
    return f"must be {noun}"


def _shape_problem(dims: list[Any], shape: Sequence[int | None]) -> str | None:
    if len(dims) != len(shape) or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in dims):
        return f"must be a list of {len(shape)} non-negative integers"
    for got, want in zip(dims, shape):
        if want is not None and got != want:
            return f"must be {[('n' if w is None else w) for w in shape]}"
    return None

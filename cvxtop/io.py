"""Reading labels, scores and feature matrices from files (CSV, svmlight, npz, npy, text).

Every reader raises :class:`DataFileError` (a ``ValueError``) with a one-line message naming
the file and the problem, so the command line can print it without a traceback.
"""

from __future__ import annotations

import csv
import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DataFileError", "ScoredItems", "LabeledData", "read_vector", "read_matrix",
           "read_scored_items", "read_labeled_features", "read_labels", "read_features"]

LABEL_COLUMNS = ("y_true", "label", "labels", "y", "target")
SCORE_COLUMNS = ("y_score", "score", "scores", "s", "prediction")
GROUP_COLUMNS = ("group", "groups", "user", "query", "qid")
#: header names of a row-index column written by pandas (``""``, ``"Unnamed: 0"``) or R
#: (``""``, ``"rownames"`` in Rdatasets' files); ``"index"`` too when it counts the rows
INDEX_COLUMNS = ("", "unnamed: 0", "rownames", "index")


class DataFileError(ValueError):
    """A data file is missing, unreadable, or not in a supported layout."""


@dataclass(frozen=True)
class ScoredItems:
    """Labels and scores of a list of items, with optional group ids."""

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray | None = None


@dataclass(frozen=True)
class LabeledData:
    """A feature matrix with labels (not yet validated) and optional group ids; ``X`` is
    ``None`` for the labels-only files of :func:`read_labels`."""

    X: Any
    y: np.ndarray
    groups: np.ndarray | None = None
    feature_names: tuple[str, ...] | None = None
    index_column: str | None = None
    #: where the labels and the list ids were read: a CSV column's name (``"column 5"``
    #: without a header), an array of an ``.npz``, or the svmlight label and ``qid``
    label_column: str | None = None
    group_column: str | None = None


def _existing(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"{p}: no such file")
    return p


def _npz_arrays(p: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, read now and never unpickled; an error names the
    file and the array."""
    try:
        archive = np.load(p, allow_pickle=False)
    except Exception as exc:
        raise DataFileError(f"{p}: not a readable .npz file ({exc})") from None
    if not hasattr(archive, "files"):
        raise DataFileError(f"{p}: not an .npz archive (it holds a single array: use .npy)")
    arrays = {}
    with archive:
        for name in archive.files:
            try:
                arrays[name] = archive[name]
            except Exception as exc:
                raise DataFileError(f"{p}: array {name!r} cannot be read ({exc}); cvxtop "
                                    "reads numeric arrays and never unpickles") from None
    return arrays


def _text_lines(p: Path) -> list[str]:
    """The lines of a UTF-8 text file; a binary file is refused by name."""
    try:
        return p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{p}: not a text file (byte {exc.start} is not UTF-8)") from None


def _as_float(values: list[str], path: Path, column: str) -> np.ndarray:
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError as exc:
        raise DataFileError(f"{path}: column {column!r} is not numeric ({exc})") from None


def exact_numbers(texts: Any, path: Path, column: str) -> np.ndarray:
    """Scores written as text, read without rounding away their order: ``float64`` when
    every value converts exactly (the usual case: what float64 writers print), otherwise
    the exact values as Python ints and ``Fraction`` objects (``9223372036854775807`` and
    ``9223372036854775806``, equal in float64, stay two scores), which the metrics rank
    exactly."""
    texts = [str(v).strip() for v in texts]
    values = _as_float(texts, path, column)
    if all(t == repr(v) or t == repr(v)[:-2] for t, v in zip(texts, values.tolist())):
        return values  # each text is float64's own shortest form ("1.5", "3" for 3.0)
    exact: list[Any] = []
    for text, value in zip(texts, values.tolist()):
        try:
            q = Fraction(text)
        except (ValueError, ZeroDivisionError):  # "nan", "inf": refused later, by name
            exact.append(value)
            continue
        exact.append(int(q) if q.denominator == 1 else q)
    if all(math.isfinite(v) and Fraction(v) == q
           for v, q in zip(values.tolist(), exact) if not isinstance(q, float)):
        return values
    return np.array(exact, dtype=object)


def read_vector(path: str | Path) -> np.ndarray:
    """One number per item: ``.npy``, or a text/CSV file with one value per line."""
    p = _existing(path)
    if p.suffix == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except Exception as exc:
            raise DataFileError(f"{p}: not a readable .npy file ({exc})") from None
        if arr.ndim != 1:
            raise DataFileError(f"{p}: expected a 1-D array, got shape {arr.shape}")
        return arr
    lines = [ln.strip() for ln in _text_lines(p) if ln.strip()]
    if lines and not _is_number(lines[0].split(",")[0]):
        lines = lines[1:]  # a header line
    if any("," in ln for ln in lines):
        raise DataFileError(f"{p}: expected one value per line, found several columns")
    return exact_numbers(lines, p, "values")


def read_matrix(path: str | Path) -> np.ndarray:
    """A numeric matrix (a Gram matrix, say): ``.npy`` (memory-mapped, read-only, in its own
    dtype), ``.npz`` with one array (or an array named ``K``), or a CSV file of numbers
    without a header."""
    p = _existing(path)
    try:
        if p.suffix == ".npy":  # memory-mapped: a large Gram matrix is read as needed
            arr = np.load(p, mmap_mode="r", allow_pickle=False)
        elif p.suffix == ".npz":
            data = _npz_arrays(p)
            if "K" in data:
                arr = data["K"]
            elif len(data) == 1:
                arr = next(iter(data.values()))
            else:
                raise DataFileError(f"{p}: name the matrix 'K' (found {sorted(data)})")
        else:
            table = _Csv(p)
            if table.header is not None:
                raise DataFileError(f"{p}: a matrix file must hold numbers only (no header)")
            arr = table.numbers(list(range(table.width)))
    except DataFileError:
        raise
    except Exception as exc:
        raise DataFileError(f"{p}: not a readable matrix ({exc})") from None
    if arr.ndim != 2:
        raise DataFileError(f"{p}: expected a 2-D matrix, got shape {arr.shape}")
    return arr


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _refuse_duplicate_names(p: Path, header: list[str]) -> None:
    """Columns are found by name, ignoring case: two names equal but for case (``A`` and
    ``a``), or equal, would make that ambiguous."""
    seen: dict[str, str] = {}
    for name in header:
        key = name.strip().lower()
        if key in seen:
            same = "twice" if seen[key] == name else f"as {seen[key]!r} and {name!r}"
            raise DataFileError(f"{p}: the header names column {name!r} {same}; columns are "
                                "found by name ignoring case, so every name must be unique "
                                "(rename one)")
        seen[key] = name


def _pick(header: list[str], names: tuple[str, ...]) -> int | None:
    """The column named one of ``names`` (ignoring case); names are unique in a header."""
    lowered = [h.strip().lower() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return None


def _role_index(p: Path, names: list[str], given: str | None, usual: tuple[str, ...],
                kind: str) -> int | None:
    """The column (or array) that plays ``kind`` (label, score, group): the one named
    ``given``, else the one whose name is among the ``usual`` ones; several of those are
    ambiguous and refused, naming the option that picks one."""
    if given:
        j = _pick(names, (given.strip().lower(),))
        if j is None:
            raise DataFileError(f"{p}: no column named {given!r} for the {kind}s; found "
                                f"{names}")
        return j
    lowered = [h.strip().lower() for h in names]
    found = [j for j, name in enumerate(lowered) if name in usual]
    if len(found) > 1:
        shown = ", ".join(repr(names[j]) for j in found)
        raise DataFileError(f"{p}: several columns could be the {kind} column ({shown}): "
                            f"name the one to use with --{kind}-column")
    return found[0] if found else None


class _Csv:
    """A CSV file of numbers (and label or id columns), read column by column with numpy's
    C parser: one pass per kind of column instead of a Python conversion per cell."""

    def __init__(self, p: Path) -> None:
        self.path = p
        skip, rows = 0, []
        try:
            with p.open(newline="", encoding="utf-8") as fh:
                for line in fh:
                    skip += not rows
                    if line.strip():
                        rows.append([c.strip() for c in next(csv.reader([line]))])
                        if len(rows) == 2:
                            break
        except UnicodeDecodeError as exc:
            raise DataFileError(f"{p}: not a text file (byte {exc.start} is not UTF-8)"
                                ) from None
        except csv.Error as exc:
            raise DataFileError(f"{p}: not a CSV file ({exc})") from None
        if not rows:
            raise DataFileError(f"{p}: the file is empty")
        cells = rows[0]
        self.header: list[str] | None = None if _is_number(cells[0]) else cells
        if self.header is not None:
            _refuse_duplicate_names(p, self.header)
        self.skip = skip if self.header is not None else skip - 1
        self.width = len(cells)
        if len(rows) == 2 and len(rows[1]) != self.width:
            raise DataFileError(f"{p}: the first line has {self.width} columns and the next "
                                f"{len(rows[1])}")

    def name(self, j: int) -> str:
        return self.header[j] if self.header else f"column {j + 1}"

    def _load(self, columns: list[int] | None, dtype: type) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's notes on blank lines
            return np.loadtxt(self.path, delimiter=",", skiprows=self.skip, usecols=columns,
                              dtype=dtype, ndmin=2, quotechar='"', encoding="utf-8")

    def numbers(self, columns: list[int]) -> np.ndarray:
        """The columns as a ``float64`` matrix (one row per item)."""
        try:
            every = columns == list(range(self.width))
            # reading every column lets numpy check that all rows have the same width
            arr = self._load(None if every else columns, np.float64)
        except ValueError as exc:
            raise DataFileError(f"{self.path}: {self._culprit(columns)} ({exc})") from None
        if arr.shape[0] == 0:
            raise DataFileError(f"{self.path}: the file has a header but no rows")
        return arr

    def _culprit(self, columns: list[int]) -> str:
        for j in columns:
            try:
                self._load([j], np.float64)
            except ValueError as exc:
                if "could not convert" in str(exc):
                    return f"column {self.name(j)!r} is not numeric"
                break
        return "the rows do not all have the same number of columns"

    def strings(self, j: int) -> np.ndarray:
        """Column ``j`` as stripped strings (labels, list ids)."""
        try:
            arr = self._load([j], str)[:, 0]
        except ValueError as exc:
            raise DataFileError(f"{self.path}: column {self.name(j)!r}: {exc}") from None
        return np.char.strip(arr)

    @cached_property
    def index_column(self) -> int | None:
        """The first column when it is a row index (see :data:`INDEX_COLUMNS`): unnamed, or
        named ``rownames``/``index`` and counting the rows from 0 or 1."""
        if self.header is None or self.header[0].lower() not in INDEX_COLUMNS:
            return None
        if self.header[0].lower() in ("", "unnamed: 0"):
            return 0
        try:
            values = self._load([0], np.float64)[:, 0]
        except ValueError:
            return None
        start = values[0] if len(values) else 0
        counts = start in (0, 1) and np.array_equal(values, start + np.arange(len(values)))
        return 0 if counts else None


@dataclass(frozen=True)
class _Roles:
    """The columns (or arrays) a user named for the labels, the scores and the list ids;
    ``None`` lets the usual names decide (one candidate each, or the file is refused)."""

    label: str | None = None
    score: str | None = None
    group: str | None = None

    def pick(self, p: Path, names: list[str]) -> tuple[int | None, int | None, int | None]:
        """Positions in ``names`` of the label, score and group columns."""
        return (_role_index(p, names, self.label, LABEL_COLUMNS, "label"),
                _role_index(p, names, self.score, SCORE_COLUMNS, "score"),
                _role_index(p, names, self.group, GROUP_COLUMNS, "group"))


def _read_csv(p: Path, roles: _Roles) -> ScoredItems:
    table = _Csv(p)
    if table.header is None:
        if table.width != 2:
            raise DataFileError(
                f"{p}: a CSV without header must have two columns (label, score), "
                f"found {table.width}"
            )
        iy, isc, ig = 0, 1, None
    else:
        iy, isc, ig = roles.pick(p, table.header)
        if iy is None or isc is None:
            raise DataFileError(
                f"{p}: the header needs a label column ({'/'.join(LABEL_COLUMNS)}) and a "
                f"score column ({'/'.join(SCORE_COLUMNS)}); found {table.header}"
            )
    labels = table.numbers([iy])[:, 0]
    scores = exact_numbers(table.strings(isc), p, table.name(isc))
    return ScoredItems(labels, scores, table.strings(ig) if ig is not None else None)


def _read_svmlight(p: Path) -> ScoredItems:
    from sklearn.datasets import load_svmlight_file

    try:
        X, y, *rest = load_svmlight_file(str(p), query_id=True)
    except Exception as exc:
        raise DataFileError(f"{p}: not a readable svmlight file ({exc})") from None
    if X.shape[1] != 1:
        raise DataFileError(
            f"{p}: for scores, an svmlight file must hold a single feature (the score), "
            f"found {X.shape[1]}"
        )
    qid = rest[0] if rest else None
    groups = qid if qid is not None and np.any(qid != 0) else None
    return ScoredItems(y, np.asarray(X.todense()).ravel(), groups)


def _read_npz(p: Path, roles: _Roles) -> ScoredItems:
    data = _npz_arrays(p)
    keys = list(data)
    iy, isc, ig = roles.pick(p, keys)
    if iy is None or isc is None:
        raise DataFileError(f"{p}: needs arrays 'y_true' and 'y_score', found {sorted(keys)}")
    return ScoredItems(data[keys[iy]], data[keys[isc]], data[keys[ig]] if ig is not None else None)


def read_scored_items(path: str | Path, label_column: str | None = None,
                      score_column: str | None = None, group_column: str | None = None
                      ) -> ScoredItems:
    """Labels and scores (and groups, if present) from one file.

    * CSV: a header naming a label column (``y_true``, ``label``, ...), a score column
      (``y_score``, ``score``, ...) and optionally a group column (``group``, ``user``,
      ``qid``); or two unnamed columns ``label,score``.
    * svmlight (``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``): the label and a single
      feature holding the score; ``qid`` gives the groups.
    * ``.npz``: arrays ``y_true`` and ``y_score`` (and optionally ``groups``).

    ``label_column``, ``score_column`` and ``group_column`` name the columns (arrays) to
    use; otherwise each role takes the one column with one of its usual names, and two
    candidates are refused as ambiguous (as are repeated names in a CSV header).
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    roles = _Roles(label_column, score_column, group_column)
    if suffix == ".npz":
        return _read_npz(p, roles)
    if suffix in (".svm", ".svmlight", ".libsvm", ".txt"):
        return _read_svmlight(p)
    if suffix in (".csv", ""):
        return _read_csv(p, roles)
    raise DataFileError(f"{p}: unsupported file type {suffix!r} (use .csv, .npz or svmlight)")


def _dropped(table: _Csv, drop: tuple[str, ...]) -> list[int]:
    """Columns named in ``drop``, and a row-index column (:meth:`_Csv.index_column`)."""
    columns = []
    for name in drop:
        j = _pick(table.header or [], (name.lower(),))
        if j is None:
            raise DataFileError(f"{table.path}: no column named {name!r} to drop")
        columns.append(j)
    index = table.index_column
    return columns + ([index] if index is not None and index not in columns else [])


def _label_index(table: _Csv, label_column: str | None, required: bool) -> int | None:
    """The label column (:func:`_role_index`); ``None`` without a header."""
    if table.header is None:
        return None
    iy = _role_index(table.path, table.header, label_column, LABEL_COLUMNS, "label")
    if iy is None and required:
        raise DataFileError(f"{table.path}: the header needs a label column "
                            f"({'/'.join(LABEL_COLUMNS)}, or --label-column); found "
                            f"{table.header}")
    return iy


def _group_index(table: _Csv, group_column: str | None) -> int | None:
    """The list-id column (:func:`_role_index`); ``None`` without a header."""
    if table.header is None:
        if group_column:
            raise DataFileError(f"{table.path}: --group-column {group_column!r} needs a "
                                "header naming the columns")
        return None
    return _role_index(table.path, table.header, group_column, GROUP_COLUMNS, "group")


def _csv_labels(table: _Csv, iy: int, positive: str | None) -> np.ndarray:
    if positive is not None:
        return (table.strings(iy) == positive).astype(np.int64)
    return table.numbers([iy])[:, 0]


def _npz_groups(p: Path, data: dict[str, np.ndarray], group_column: str | None
                ) -> tuple[np.ndarray | None, str | None]:
    """The list ids of an ``.npz`` and the array's name (:func:`_role_index`)."""
    keys = list(data)
    j = _role_index(p, keys, group_column, GROUP_COLUMNS, "group")
    return (None, None) if j is None else (data[keys[j]], keys[j])


def _svmlight_labels(p: Path, y: np.ndarray, positive: str | None) -> np.ndarray:
    """svmlight labels are numbers: ``positive`` names one of them."""
    if positive is None:
        return y
    try:
        value = float(positive)
    except ValueError:
        shown = np.unique(y).tolist()[:6]
        raise DataFileError(f"{p}: --positive {positive!r} is not a number, and the labels "
                            f"of an svmlight file are numbers (found {shown})") from None
    return (y == value).astype(np.int64)


def read_labeled_features(path: str | Path, positive: str | None = None,
                          label_column: str | None = None,
                          drop: tuple[str, ...] = (), group_column: str | None = None
                          ) -> LabeledData:
    """Features, labels and optional groups from one file, for training.

    * CSV with a header: the label column and optionally a list-id column (below); every
      other column is a feature.
    * CSV without a header (``.csv`` or ``.dat``): the last column is the label, the others
      are features.
    * svmlight (``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``): labels, features (kept as
      a scipy CSR matrix, never densified), ``qid`` groups.
    * ``.npz``: arrays ``X`` and ``y`` (and optionally the list ids).

    **Which columns.** Names are matched ignoring case, and a header that repeats a name
    (``A`` and ``a`` too) is refused. The label column is ``label_column``, or else the
    one column named ``y_true``, ``label``, ``labels``, ``y`` or ``target``; the list ids
    (users, queries) are ``group_column``, or else the one column named ``group``,
    ``groups``, ``user``, ``query`` or ``qid``. Two candidates for either role are refused
    as ambiguous: name the one to use. ``drop`` lists columns to leave out. A row-index
    column is left out without being named: the first column of a header, unnamed (as
    pandas and R write it) or named ``rownames``/``index`` and counting the rows from 0 or
    1 (``index_column`` of the result names it). ``label_column`` and ``group_column`` of
    the result say which were taken.

    Labels must be binary (0/1, -1/+1) unless ``positive`` names the label value that marks
    a relevant item (e.g. ``"g"``); then every other value is irrelevant.
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    if suffix == ".npz":
        data = _npz_arrays(p)
        if "X" not in data or "y" not in data:
            raise DataFileError(f"{p}: needs arrays 'X' and 'y', found {sorted(data)}")
        y = data["y"]
        if positive is not None:
            y = (y.astype(str) == positive).astype(np.int64)
        groups, group_name = _npz_groups(p, data, group_column)
        return LabeledData(data["X"], y, groups, label_column="y", group_column=group_name)
    if suffix in (".svm", ".svmlight", ".libsvm", ".txt"):
        from sklearn.datasets import load_svmlight_file

        try:
            X, y, qid = load_svmlight_file(str(p), query_id=True)
        except Exception as exc:
            raise DataFileError(f"{p}: not a readable svmlight file ({exc})") from None
        has_qid = bool(np.any(qid != 0))
        return LabeledData(X.tocsr(), _svmlight_labels(p, y, positive),  # stays sparse
                           qid if has_qid else None, label_column="svmlight label",
                           group_column="qid" if has_qid else None)
    if suffix not in (".csv", ".dat", ""):
        raise DataFileError(f"{p}: unsupported file type {suffix!r} "
                            "(use .csv, .dat, .npz or svmlight)")
    table = _Csv(p)
    if table.header is None:
        iy, ig = table.width - 1, _group_index(table, group_column)
    else:
        iy, ig = _label_index(table, label_column, True), _group_index(table, group_column)
    if ig is not None and ig == iy:
        raise DataFileError(f"{p}: column {table.name(iy)!r} cannot be both the label and "
                            "the group column")
    dropped = _dropped(table, drop)
    for j, role in ((iy, "label"), (ig, "group")):
        if j is not None and j in dropped[:len(drop)]:
            raise DataFileError(f"{p}: --drop names the {role} column {table.name(j)!r}, "
                                "which is no feature anyway" + (
                                    "; --pooled leaves the lists out of the loss"
                                    if role == "group" else ""))
    features = [j for j in range(table.width) if j not in (iy, ig, *dropped)]
    if not features:
        raise DataFileError(f"{p}: no feature column besides the label and group")
    index = table.index_column
    return LabeledData(
        table.numbers(features), _csv_labels(table, iy, positive),
        table.strings(ig) if ig is not None else None,
        tuple(table.name(j) for j in features) if table.header else None,
        table.name(index) if index is not None else None,
        label_column=table.name(iy), group_column=table.name(ig) if ig is not None else None)


def read_labels(path: str | Path, positive: str | None = None,
                label_column: str | None = None, group_column: str | None = None
                ) -> LabeledData:
    """Labels (and groups) of the items of a file, for a precomputed Gram matrix that
    holds their features' place: ``X`` of the result is ``None``.

    * CSV with a header: the label column (other columns, e.g. sequences or ids, are
      ignored) and an optional group column, chosen as :func:`read_labeled_features`
      does; without a header, the last column.
    * ``.npy``: a 1-D array of labels; ``.npz``: the array ``y`` (and the list ids).
    * svmlight: the labels (the features are ignored).
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        y, groups, names = read_vector(p), None, ("the array", None)
    elif suffix == ".npz":
        data = _npz_arrays(p)
        if "y" not in data:
            raise DataFileError(f"{p}: needs an array 'y', found {sorted(data)}")
        groups, group_name = _npz_groups(p, data, group_column)
        y, names = data["y"], ("y", group_name)
    elif suffix in (".svm", ".svmlight", ".libsvm", ".txt"):
        full = read_labeled_features(p, positive=positive)
        return LabeledData(None, full.y, full.groups, label_column=full.label_column,
                           group_column=full.group_column)
    elif suffix in (".csv", ".dat", ""):
        table = _Csv(p)
        if table.header is None:
            iy, ig = table.width - 1, _group_index(table, group_column)
        else:
            iy, ig = _label_index(table, label_column, True), _group_index(table, group_column)
        return LabeledData(None, _csv_labels(table, iy, positive),
                           table.strings(ig) if ig is not None else None,
                           label_column=table.name(iy),
                           group_column=table.name(ig) if ig is not None else None)
    else:
        raise DataFileError(f"{p}: unsupported file type {suffix!r} "
                            "(use .csv, .dat, .npy, .npz or svmlight)")
    if positive is not None:
        y = (np.asarray(y).astype(str) == positive).astype(np.int64)
    return LabeledData(None, y, groups, label_column=names[0], group_column=names[1])


def read_features(path: str | Path, n_features: int,
                  feature_names: tuple[str, ...] | None = None,
                  label_column: str | None = None, drop: tuple[str, ...] = ()) -> np.ndarray:
    """The features of the items of a file to score with a saved model of ``n_features``
    features; labels, when the file has them, are ignored.

    * CSV with a header: the columns named ``feature_names`` when the model records them
      (in any order, other columns ignored); otherwise every column but the label, group
      and row-index columns and those in ``drop``.
    * CSV without a header (``.csv``, ``.dat``): ``n_features`` columns, or one more that
      holds the label (the training layout).
    * svmlight: the features (sparse); ``.npz``: the array ``X``; ``.npy``: a 2-D array.
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        X = read_matrix(p)
    elif suffix in (".npz", ".svm", ".svmlight", ".libsvm", ".txt"):
        if suffix == ".npz":
            data = _npz_arrays(p)
            if "X" not in data:
                raise DataFileError(f"{p}: needs an array 'X', found {sorted(data)}")
            X = data["X"]
        else:
            from sklearn.datasets import load_svmlight_file

            try:
                X = load_svmlight_file(str(p), n_features=n_features)[0].tocsr()
            except Exception as exc:
                raise DataFileError(f"{p}: not a readable svmlight file ({exc})") from None
    elif suffix in (".csv", ".dat", ""):
        X = _csv_features(_Csv(p), n_features, feature_names, label_column, drop)
    else:
        raise DataFileError(f"{p}: unsupported file type {suffix!r} "
                            "(use .csv, .dat, .npz, .npy or svmlight)")
    if X.ndim != 2 or X.shape[1] != n_features:
        raise DataFileError(f"{p}: the model scores items of {n_features} features, the file "
                            f"has {X.shape[1] if X.ndim == 2 else 'no 2-D'} feature columns")
    return X


def _csv_features(table: _Csv, n_features: int, feature_names: tuple[str, ...] | None,
                  label_column: str | None, drop: tuple[str, ...]) -> np.ndarray:
    if table.header is None:
        if table.width not in (n_features, n_features + 1):
            raise DataFileError(f"{table.path}: the model scores items of {n_features} "
                                f"features; a CSV without header needs {n_features} columns "
                                f"(or {n_features + 1} with the label last), found "
                                f"{table.width}")
        return table.numbers(list(range(n_features)))
    if feature_names is not None:
        lowered = [h.lower() for h in table.header]
        missing = [name for name in feature_names if name.lower() not in lowered]
        if missing:
            raise DataFileError(f"{table.path}: the model's feature columns {missing} are "
                                f"not in the header {table.header}")
        return table.numbers([lowered.index(name.lower()) for name in feature_names])
    iy, ig = _label_index(table, label_column, False), _group_index(table, None)
    dropped = _dropped(table, drop)
    return table.numbers([j for j in range(table.width) if j not in (iy, ig, *dropped)])

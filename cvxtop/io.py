"""Reading labels, scores and feature matrices from files (CSV, svmlight, npz, npy, text).

Every reader raises :class:`DataFileError` (a ``ValueError``) with a one-line message naming
the file and the problem, so the command line can print it without a traceback.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["DataFileError", "ScoredItems", "LabeledData", "read_vector", "read_matrix",
           "read_scored_items", "read_labeled_features"]

LABEL_COLUMNS = ("y_true", "label", "labels", "y", "target")
SCORE_COLUMNS = ("y_score", "score", "scores", "s", "prediction")
GROUP_COLUMNS = ("group", "groups", "user", "query", "qid")


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
    """A feature matrix with labels (not yet validated) and optional group ids."""

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray | None = None


def _existing(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"{p}: no such file")
    return p


def _as_float(values: list[str], path: Path, column: str) -> np.ndarray:
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError as exc:
        raise DataFileError(f"{path}: column {column!r} is not numeric ({exc})") from None


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
    lines = [ln.strip() for ln in p.read_text().splitlines() if ln.strip()]
    if lines and not _is_number(lines[0].split(",")[0]):
        lines = lines[1:]  # a header line
    if any("," in ln for ln in lines):
        raise DataFileError(f"{p}: expected one value per line, found several columns")
    return _as_float(lines, p, "values")


def read_matrix(path: str | Path) -> np.ndarray:
    """A numeric matrix (a Gram matrix, say): ``.npy`` (memory-mapped, read-only, in its own
    dtype), ``.npz`` with one array (or an array named ``K``), or a CSV file of numbers
    without a header."""
    p = _existing(path)
    try:
        if p.suffix == ".npy":  # memory-mapped: a large Gram matrix is read as needed
            arr = np.load(p, mmap_mode="r", allow_pickle=False)
        elif p.suffix == ".npz":
            data = np.load(p, allow_pickle=False)
            if "K" in data.files:
                arr = data["K"]
            elif len(data.files) == 1:
                arr = data[data.files[0]]
            else:
                raise DataFileError(f"{p}: name the matrix 'K' (found {sorted(data.files)})")
        else:
            header, body = _read_table(p)
            if header is not None:
                raise DataFileError(f"{p}: a matrix file must hold numbers only (no header)")
            arr = np.array([[float(v) for v in row] for row in body])
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


def _pick(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return None


def _read_table(p: Path) -> tuple[list[str] | None, list[list[str]]]:
    """The header (``None`` if the first cell is a number) and the body rows of a CSV file,
    all rows checked to have the same width."""
    with p.open(newline="") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    if not rows:
        raise DataFileError(f"{p}: the file is empty")
    header = None if _is_number(rows[0][0]) else rows[0]
    body = rows if header is None else rows[1:]
    if not body:
        raise DataFileError(f"{p}: the file has a header but no rows")
    width = len(rows[0])
    bad = [i + 1 for i, r in enumerate(body) if len(r) != width]
    if bad:
        raise DataFileError(f"{p}: row {bad[0]} has a different number of columns")
    return header, body


def _read_csv(p: Path) -> ScoredItems:
    header, body = _read_table(p)
    if header is None:
        if len(body[0]) != 2:
            raise DataFileError(
                f"{p}: a CSV without header must have two columns (label, score), "
                f"found {len(body[0])}"
            )
        iy, isc, ig = 0, 1, None
    else:
        iy, isc, ig = _pick(header, LABEL_COLUMNS), _pick(header, SCORE_COLUMNS), _pick(
            header, GROUP_COLUMNS)
        if iy is None or isc is None:
            raise DataFileError(
                f"{p}: the header needs a label column ({'/'.join(LABEL_COLUMNS)}) and a "
                f"score column ({'/'.join(SCORE_COLUMNS)}); found {header}"
            )
    y = _as_float([r[iy] for r in body], p, "label")
    s = _as_float([r[isc] for r in body], p, "score")
    g = np.array([r[ig] for r in body]) if ig is not None else None
    return ScoredItems(y, s, g)


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


def _read_npz(p: Path) -> ScoredItems:
    try:
        data = np.load(p, allow_pickle=False)
    except Exception as exc:
        raise DataFileError(f"{p}: not a readable .npz file ({exc})") from None
    keys = set(data.files)
    ky = next((k for k in LABEL_COLUMNS if k in keys), None)
    ks = next((k for k in SCORE_COLUMNS if k in keys), None)
    if ky is None or ks is None:
        raise DataFileError(f"{p}: needs arrays 'y_true' and 'y_score', found {sorted(keys)}")
    kg = next((k for k in GROUP_COLUMNS if k in keys), None)
    return ScoredItems(data[ky], data[ks], data[kg] if kg else None)


def read_scored_items(path: str | Path) -> ScoredItems:
    """Labels and scores (and groups, if present) from one file.

    * CSV: a header naming a label column (``y_true``, ``label``, ...), a score column
      (``y_score``, ``score``, ...) and optionally a group column (``group``, ``user``,
      ``qid``); or two unnamed columns ``label,score``.
    * svmlight (``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``): the label and a single
      feature holding the score; ``qid`` gives the groups.
    * ``.npz``: arrays ``y_true`` and ``y_score`` (and optionally ``groups``).
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    if suffix == ".npz":
        return _read_npz(p)
    if suffix in (".svm", ".svmlight", ".libsvm", ".txt"):
        return _read_svmlight(p)
    if suffix in (".csv", ""):
        return _read_csv(p)
    raise DataFileError(f"{p}: unsupported file type {suffix!r} (use .csv, .npz or svmlight)")


def _labels_from_strings(values: list[str], path: Path, positive: str | None) -> np.ndarray:
    if positive is not None:
        return np.array([v == positive for v in values], dtype=np.int64)
    return _as_float(values, path, "label")


def read_labeled_features(path: str | Path, positive: str | None = None,
                          label_column: str | None = None,
                          drop: tuple[str, ...] = ()) -> LabeledData:
    """Features, labels and optional groups from one file, for training.

    * CSV with a header: the label column (``label``, ``y``, ``target``, ...), optionally a
      group column (``group``, ``user``, ``qid``, ...); every other column is a feature.
    * CSV without a header (``.csv`` or ``.dat``): the last column is the label, the others
      are features.
    * svmlight (``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``): labels, features (kept as
      a scipy CSR matrix, never densified), ``qid`` groups.
    * ``.npz``: arrays ``X`` and ``y`` (and optionally ``groups``).

    ``label_column`` names the label column of a CSV with a header when it is not one of
    the usual names (e.g. ``"chas"``), and ``drop`` lists columns to leave out (an index
    column, say). Labels must be binary (0/1, -1/+1) unless
    ``positive`` names the label value that marks a relevant item (e.g. ``"g"``); then every
    other value is irrelevant.
    """
    p = _existing(path)
    suffix = p.suffix.lower()
    if suffix == ".npz":
        try:
            data = np.load(p, allow_pickle=False)
        except Exception as exc:
            raise DataFileError(f"{p}: not a readable .npz file ({exc})") from None
        if "X" not in data.files or "y" not in data.files:
            raise DataFileError(f"{p}: needs arrays 'X' and 'y', found {sorted(data.files)}")
        y = data["y"]
        if positive is not None:
            y = (y.astype(str) == positive).astype(np.int64)
        kg = next((k for k in GROUP_COLUMNS if k in data.files), None)
        return LabeledData(data["X"], y, data[kg] if kg else None)
    if suffix in (".svm", ".svmlight", ".libsvm", ".txt"):
        from sklearn.datasets import load_svmlight_file

        try:
            X, y, qid = load_svmlight_file(str(p), query_id=True)
        except Exception as exc:
            raise DataFileError(f"{p}: not a readable svmlight file ({exc})") from None
        if positive is not None:
            y = (y == float(positive)).astype(np.int64)
        return LabeledData(X.tocsr(), y, qid if np.any(qid != 0) else None)  # stays sparse
    if suffix not in (".csv", ".dat", ""):
        raise DataFileError(f"{p}: unsupported file type {suffix!r} "
                            "(use .csv, .dat, .npz or svmlight)")
    header, body = _read_table(p)
    if header is None:
        iy, ig = len(body[0]) - 1, None
    else:
        names = (label_column.lower(),) if label_column else LABEL_COLUMNS
        iy, ig = _pick(header, names), _pick(header, GROUP_COLUMNS)
        if iy is None:
            raise DataFileError(f"{p}: the header needs a label column "
                                f"({'/'.join(names)}); found {header}")
    dropped = []
    for name in drop:
        j = _pick(header or [], (name.lower(),))
        if j is None:
            raise DataFileError(f"{p}: no column named {name!r} to drop")
        dropped.append(j)
    features = [j for j in range(len(body[0])) if j not in (iy, ig, *dropped)]
    if not features:
        raise DataFileError(f"{p}: no feature column besides the label and group")
    names = header or [f"column {j + 1}" for j in range(len(body[0]))]
    X = np.column_stack([_as_float([r[j] for r in body], p, names[j]) for j in features])
    y = _labels_from_strings([r[iy] for r in body], p, positive)
    groups = np.array([r[ig] for r in body]) if ig is not None else None
    return LabeledData(X, y, groups)

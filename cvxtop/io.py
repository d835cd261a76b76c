"""Reading labels, scores and feature matrices from files (CSV, svmlight, npz, npy, text).

Every reader raises :class:`DataFileError` (a ``ValueError``) with a one-line message naming
the file and the problem, so the command line can print it without a traceback.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["DataFileError", "ScoredItems", "read_vector", "read_scored_items"]

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


def _read_csv(p: Path) -> ScoredItems:
    with p.open(newline="") as fh:
        rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    if not rows:
        raise DataFileError(f"{p}: the file is empty")
    if _is_number(rows[0][0]):
        header, body = None, rows
        if len(rows[0]) != 2:
            raise DataFileError(
                f"{p}: a CSV without header must have two columns (label, score), "
                f"found {len(rows[0])}"
            )
        iy, isc, ig = 0, 1, None
    else:
        header, body = rows[0], rows[1:]
        iy, isc, ig = _pick(header, LABEL_COLUMNS), _pick(header, SCORE_COLUMNS), _pick(
            header, GROUP_COLUMNS)
        if iy is None or isc is None:
            raise DataFileError(
                f"{p}: the header needs a label column ({'/'.join(LABEL_COLUMNS)}) and a "
                f"score column ({'/'.join(SCORE_COLUMNS)}); found {header}"
            )
    width = len(header) if header else 2
    bad = [i + 1 for i, r in enumerate(body) if len(r) != width]
    if bad:
        raise DataFileError(f"{p}: row {bad[0]} has a different number of columns")
    y = _as_float([r[iy] for r in body], p, "label")
    s = _as_float([r[isc] for r in body], p, "score")
    g = np.array([r[ig].strip() for r in body]) if ig is not None else None
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

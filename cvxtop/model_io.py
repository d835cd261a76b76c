"""Saving trained models (weights, standardization, settings) as .npz or JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._validation import is_sparse
from .io import DataFileError

__all__ = ["SavedRanker", "save_arrays", "load_arrays", "save_ranker", "load_ranker"]


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray], info: dict[str, Any]) -> None:
    """Write named arrays and a dict of settings: ``.npz`` (arrays plus a JSON ``info``
    string) or ``.json`` (arrays as nested lists)."""
    p = Path(path)
    if p.suffix == ".npz":
        np.savez(p, **arrays, info=np.array(json.dumps(info)))
    elif p.suffix == ".json":
        p.write_text(json.dumps({**{k: np.asarray(v).tolist() for k, v in arrays.items()},
                                 "info": info}, indent=2))
    else:
        raise DataFileError(f"{p}: a model file must end in .npz or .json")


def load_arrays(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file written by :func:`save_arrays`."""
    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"{p}: no such file")
    try:
        if p.suffix == ".npz":
            data = np.load(p, allow_pickle=False)
            return ({k: data[k] for k in data.files if k != "info"},
                    json.loads(str(data["info"])))
        content = json.loads(p.read_text())
        info = content.pop("info")
        return {k: np.array(v) for k, v in content.items()}, info
    except (KeyError, ValueError, OSError) as exc:
        raise DataFileError(f"{p}: not a cvxtop model file ({exc})") from None


@dataclass
class SavedRanker:
    """A linear ranker as ``cvxtop fit`` stores it: scores ``((X − mean) / scale) @ coef``."""

    coef: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    info: dict[str, Any]

    def decision_function(self, X: Any) -> np.ndarray:
        """``((X − mean)/scale)·coef``, without forming the standardized matrix (``X`` may be
        a scipy sparse matrix)."""
        X = X if is_sparse(X) else np.asarray(X, dtype=np.float64)
        weights = self.coef / self.scale
        return X @ weights - float(self.mean @ weights)


def save_ranker(path: str | Path, ranker: SavedRanker) -> None:
    """Write a :class:`SavedRanker` with :func:`save_arrays`."""
    save_arrays(path, {"coef": ranker.coef, "mean": ranker.mean, "scale": ranker.scale},
                ranker.info)


def load_ranker(path: str | Path) -> SavedRanker:
    """Read a file written by :func:`save_ranker`."""
    arrays, info = load_arrays(path)
    try:
        return SavedRanker(arrays["coef"], arrays["mean"], arrays["scale"], info)
    except KeyError as exc:
        raise DataFileError(f"{path}: not a linear cvxtop model (missing {exc})") from None

"""Saving a trained linear ranker (weights, standardization, settings) as .npz or JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .io import DataFileError

__all__ = ["SavedRanker", "save_ranker", "load_ranker"]


@dataclass
class SavedRanker:
    """What ``cvxtop fit`` stores: scores are ``((X − mean) / scale) @ coef``."""

    coef: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    info: dict[str, Any]

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return ((np.asarray(X, dtype=np.float64) - self.mean) / self.scale) @ self.coef


def save_ranker(path: str | Path, ranker: SavedRanker) -> None:
    """Write ``.npz`` (arrays plus a JSON ``info`` string) or ``.json`` (all as lists)."""
    p = Path(path)
    if p.suffix == ".npz":
        np.savez(p, coef=ranker.coef, mean=ranker.mean, scale=ranker.scale,
                 info=np.array(json.dumps(ranker.info)))
    elif p.suffix == ".json":
        p.write_text(json.dumps({"coef": ranker.coef.tolist(), "mean": ranker.mean.tolist(),
                                 "scale": ranker.scale.tolist(), "info": ranker.info},
                                indent=2))
    else:
        raise DataFileError(f"{p}: a model file must end in .npz or .json")


def load_ranker(path: str | Path) -> SavedRanker:
    """Read a file written by :func:`save_ranker`."""
    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"{p}: no such file")
    try:
        if p.suffix == ".npz":
            data = np.load(p, allow_pickle=False)
            return SavedRanker(data["coef"], data["mean"], data["scale"],
                               json.loads(str(data["info"])))
        content = json.loads(p.read_text())
        return SavedRanker(np.array(content["coef"]), np.array(content["mean"]),
                           np.array(content["scale"]), content["info"])
    except (KeyError, ValueError, OSError) as exc:
        raise DataFileError(f"{p}: not a cvxtop model file ({exc})") from None

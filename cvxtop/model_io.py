"""Saving trained models (weights, standardization, settings) as .npz or JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._validation import is_sparse
from .io import DataFileError

__all__ = ["SavedRanker", "SavedKernelRanker", "save_arrays", "load_arrays", "save_ranker",
           "load_ranker", "load_model"]


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray], info: dict[str, Any]) -> None:
    """Write named arrays and a dict of settings: ``.npz`` (arrays plus a JSON ``info``
    string) or ``.json`` (arrays as nested lists)."""
    p = Path(path)
    info = json.loads(json.dumps(info, default=_plain))  # numbers stay numbers
    if p.suffix == ".npz":
        np.savez(p, **arrays, info=np.array(json.dumps(info)))
    elif p.suffix == ".json":
        p.write_text(json.dumps({**{k: np.asarray(v).tolist() for k, v in arrays.items()},
                                 "info": info}, indent=2))
    else:
        raise DataFileError(f"{p}: a model file must end in .npz or .json")


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as the JSON numbers and lists they hold."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


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


@dataclass
class SavedKernelRanker:
    """An RBF-kernel AATP model as ``cvxtop aatp --kernel rbf`` stores it: the standardized
    training items ``X_fit``, ``dual_coef`` and the chosen ``candidate``; scores
    ``h(x) = Σ_j a_j [K(z_j, x) − K(z_k, x)]`` (Boyd et al. 2012 eq. (4)), as
    :meth:`cvxtop.AATP.decision_function`."""

    X_fit: np.ndarray
    dual_coef: np.ndarray
    candidate: int
    gamma: float
    mean: np.ndarray
    scale: np.ndarray
    info: dict[str, Any]

    def decision_function(self, X: Any) -> np.ndarray:
        from .aatp.kernels import rbf_gram

        X = X.toarray() if is_sparse(X) else np.asarray(X, dtype=np.float64)
        K = rbf_gram((X - self.mean) / self.scale, self.X_fit, self.gamma)
        return K @ self.dual_coef - self.dual_coef.sum() * K[:, self.candidate]


def load_model(path: str | Path) -> SavedRanker | SavedKernelRanker:
    """A model saved by ``cvxtop fit`` or ``cvxtop aatp`` that scores feature vectors:
    linear (``coef``) or RBF kernel (``X_fit``). A precomputed-kernel model is refused: it
    needs the Gram matrix between the new items and the training items."""
    arrays, info = load_arrays(path)
    if not isinstance(info, dict):
        raise DataFileError(f"{path}: not a cvxtop model file (its info is not a mapping)")
    if "coef" in arrays:
        return load_ranker(path)
    if "X_fit" in arrays:
        try:
            return SavedKernelRanker(arrays["X_fit"], arrays["dual_coef"],
                                     int(arrays["candidate"]), float(info["gamma"]),
                                     arrays["mean"], arrays["scale"], info)
        except (KeyError, TypeError, ValueError) as exc:
            raise DataFileError(f"{path}: an incomplete kernel model (missing or bad {exc})"
                                ) from None
    if "dual_coef" in arrays:
        raise DataFileError(f"{path}: a precomputed-kernel model scores new items from their "
                            "Gram matrix with the training items; cvxtop predict reads "
                            "feature vectors only")
    raise DataFileError(f"{path}: not a cvxtop model file (no coef, X_fit or dual_coef)")

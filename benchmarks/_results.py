"""Where the benchmark scripts write their tables: ``$CVXTOP_BENCH_OUT`` when
``benchmarks/run.py --out DIR`` (or ``cvxtop bench``) set it, else ``benchmarks/results``."""

from __future__ import annotations

import os
from pathlib import Path

PUBLISHED = Path(__file__).resolve().parent / "results"


def results_dir() -> Path:
    """The output directory, created if needed."""
    out = Path(os.environ.get("CVXTOP_BENCH_OUT") or PUBLISHED)
    out.mkdir(parents=True, exist_ok=True)
    return out

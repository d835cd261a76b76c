"""examples/check_other_libraries.py: each library is checked where installed and
reported as skipped where not, and the script's status says whether a check failed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "check_other_libraries.py"


def test_every_library_is_checked_or_skipped_cleanly():
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["pytrec_eval", "ranx", "torchmetrics"]
    for line in lines:
        assert re.fullmatch(r"\w+: (skipped \(\w+ is not installed\)|every check passed)", line)

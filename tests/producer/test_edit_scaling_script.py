"""benchmarks/edit_scaling.py runs and prints the figures it promises (no timing is asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_edit_scaling_benchmark_prints_json() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "edit_scaling.py"), "--bars", "16", "32",
                           "--rounds", "1", "--requests", "make the bass busier", "less reverb on the lead"],
                          capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(done.stdout)
    assert set(report["songs"]) == {"16", "32"} and report["songs"]["32"]["notes"] > report["songs"]["16"]["notes"]
    assert set(report["figures"]) == {"make the bass busier", "less reverb on the lead", "accept", "undo"}
    for figure in report["figures"].values():
        assert set(figure["wall_ms"]) == set(figure["cpu_ms"]) == {"16", "32"}
        assert all(ms > 0 for ms in figure["wall_ms"].values())
        assert isinstance(figure["wall_exponent"], float) and figure["wall_exponent_64_256"] is None

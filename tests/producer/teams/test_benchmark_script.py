"""benchmarks/teams.py runs and prints the figures it promises (no timing is asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_teams_benchmark_prints_json() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "teams.py"), "--repeats", "1", "--bars", "8",
                           "--songs", "2", "--workers", "1,2"], capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(done.stdout)
    versus = report["team_vs_pipeline"]
    assert versus["pipeline_s"] > 0 and versus["team_s"] > 0 and versus["overhead_ratio"] > 0
    assert versus["wrote"]["team"]["written"] == versus["wrote"]["team"]["sections"] > 0
    batch = report["batch"]
    assert batch["songs"] == 2 and batch["cores"] >= 1
    for mode in ("pool", "board_sqlite"):
        assert [row["workers"] for row in batch[mode]] == [1, 2]
        assert all(row["songs_per_s"] > 0 for row in batch[mode]) and batch[mode][0]["speedup"] == 1.0

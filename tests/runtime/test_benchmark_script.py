"""benchmarks/runtime.py runs and prints the figures it promises (no timing is asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_runtime_benchmark_prints_json() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "runtime.py"),
            "--turns",
            "20",
            "--concurrent-turns",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    overhead = report["per_turn_overhead"]
    assert overhead["turns"] == 20 and overhead["budget_ms"] == 2.0
    assert {"overhead_p50_ms", "overhead_p95_ms", "raw_pipe", "session", "within_budget"} <= set(
        overhead
    )
    assert report["throughput_16_sessions"]["sessions"] == 16
    assert report["throughput_16_sessions"]["sessions_turns_per_s"] > 0
    lateness = report["timeout_lateness"]
    assert lateness["rounds"] == 5 and lateness["budget_ms"] == 50.0 and "p95_ms" in lateness

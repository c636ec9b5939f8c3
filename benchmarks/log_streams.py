"""The run-log SSE stream under load (issue 24): `readers` clients (from five loopback
addresses) follow one JSONL log that grows by 20 MB/s, against a real `bandstand serve`,
while a client asks `GET /api/v1/jam/state` every 100 ms (tests/e2e/log_load.py).

Budgets: the server's resident memory stays under 300 MB; state answers p95 under 100 ms.
Prints JSON: memory before and at most, the state answers' count, p50/p95/max in
milliseconds, how many streams were served and refused (and with what status), the events
and bytes the served readers got, and the MB written to the log.

    python benchmarks/log_streams.py [--readers 50] [--seconds 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e and tests.server

from tests.e2e.log_load import run_load
from tests.server.jam_process import bandstand_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "runs").mkdir()
        with bandstand_server("serve", "--members", "beat", "--out", str(root / "projects"),
                              "--runs-dir", str(root / "runs"), cwd=root) as served:
            load = run_load(served, root / "runs", readers=args.readers, seconds=args.seconds)
    times = sorted(load.state_ms)
    served_readers = [r for r in load.readers if r.status == 200]
    print(json.dumps({
        "readers": args.readers, "seconds": args.seconds, "written_mb": round(load.written_mb, 1),
        "rss_mb_before": round(load.rss_mb[0], 1), "rss_mb_max": round(max(load.rss_mb), 1),
        "state_answers": len(times), "state_failures": len(load.state_failures),
        "state_p50_ms": round(statistics.median(times), 1),
        "state_p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 1), "state_max_ms": round(times[-1], 1),
        "streams_served": len(served_readers),
        "streams_refused": {str(s): sum(r.status == s for r in load.readers) for s in
                            sorted({r.status for r in load.readers} - {200})},
        "events_per_stream": round(statistics.mean(r.events for r in served_readers), 1) if served_readers else 0,
        "mb_per_stream": round(statistics.mean(r.bytes for r in served_readers) / 1e6, 2) if served_readers else 0,
        "closed_slow": sum(r.closed is not None for r in load.readers),
    }, indent=2))


if __name__ == "__main__":
    main()

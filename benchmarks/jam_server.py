"""The jam server under hostile replies: how fast `/api/v1/jam/state` answers while an LLM
member keeps answering patterns built to blow up (tests/e2e/hostile_jam.py — the local
OpenAI-compatible peer, a real `bandstand jam` process, a client asking every 50 ms).

Budget: every answer within 1 s, throughout (issue 16). Prints JSON: the answers' count,
p50/p95/max in milliseconds, the rounds played and whether every hostile reply was refused;
and the slowest read of a hostile 64 KiB WebSocket frame (`server.frames.read_frame`, which
runs on the event loop: deep nesting, escaped quotes, unterminated strings).

    python benchmarks/jam_server.py [--rounds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.peers and tests.e2e

from tests.e2e.hostile_jam import hostile_jam, play

BUDGET_MS = 1000.0


def hostile_frames(size: int = 64 * 1024) -> dict[str, float]:
    """Milliseconds to read (and refuse) each hostile frame of `size` characters."""
    import contextlib
    import time

    from bandstand.errors import InvalidInput
    from bandstand.server.frames import read_frame

    frames = {
        "nested": "[" * size,
        "escaped_quotes": '"' + '\\"' * ((size - 1) // 2),
        "quotes": '"' * size,
        "brackets_in_strings": '["[' * (size // 3),
        "backslashes": '"' + "\\" * (size - 1),
    }
    out = {}
    for name, text in frames.items():
        began = time.perf_counter()
        with contextlib.suppress(InvalidInput):
            read_frame(text, max_bytes=size)
        out[name] = round((time.perf_counter() - began) * 1000, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="directives to BEAT, each a hostile reply")
    args = parser.parse_args()
    with hostile_jam() as served:
        watch = asyncio.run(play(served, rounds=args.rounds))
    times = sorted(seconds * 1000 for _, seconds in watch.answers)
    beat = watch.thoughts("BEAT")
    print(json.dumps({
        "benchmark": "jam_server.state_under_hostile_replies",
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "answers": len(times),
        "all_200": all(status == 200 for status, _ in watch.answers),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(times[-1], 2),
        "budget_ms": BUDGET_MS,
        "within_budget": times[-1] <= BUDGET_MS,
        "hostile_replies": len(beat),
        "hostile_refused": all(t["status"] == "error" for t in beat),
        "frame_read_ms": (frames := hostile_frames()),
        "frame_read_worst_ms": max(frames.values()),
    }, indent=2))


if __name__ == "__main__":
    main()

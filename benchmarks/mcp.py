"""MCP speed: what going through `bandstand mcp` (a real process, the official
SDK's client over stdio) costs on top of calling the producer in Python.

- tool_overhead_ms: a studio tool call (`read_project`) over stdio minus the
  same call made in process on an open session (`ProjectSession.apply_tools`):
  p50 over MCP − p50 direct, the two made alternately. Budget: ≤ 5 ms.
- revision_tool_overhead_ms: the same for `set_track_volume`, which writes a
  revision and rewrites the session's files (tens of ms of disk work, so its
  difference is noisy). Reported.
- list_projects_ms: a band tool that does almost nothing, round trip over
  stdio: the transport's own floor. Reported.
- compose_ms: compose, 64 bars, five parts, the algorithmic musicians, WAV
  render excluded (`audio: false`), through MCP (the call's round trip, with
  progress notifications) and in process (`compose_song`), median of the
  rounds each; the ratio is MCP / in process. Reported.

    python benchmarks/mcp.py [--rounds 200] [--compose-rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# This file's folder comes first on sys.path and this file is named like the SDK: drop it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from bandstand.producer.composing.compose import compose_song  # noqa: E402
from bandstand.producer.sessions.library import Library  # noqa: E402

PROMPT = "funk groove in E minor, tight and bright"
BUDGET_OVERHEAD_MS = 5.0


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 3), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
            "min": round(ordered[0], 3), "n": len(ordered)}


async def _timed_async(rounds: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        result = await call()
        out.append((time.perf_counter() - t0) * 1000)
        assert not getattr(result, "is_error", False), result
    return out


def _timed(rounds: int, call: Callable[[], Any]) -> list[float]:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def paired(rounds: int, direct: Callable[[], Any], over_mcp: Callable[[], Awaitable[Any]]
                 ) -> tuple[list[float], list[float]]:
    """The same call made in process and over MCP, alternately (so drift in the machine's load
    and in the session's size falls on both alike)."""
    local, remote = [], []
    for _ in range(rounds):
        local += _timed(1, direct)
        remote += await _timed_async(1, over_mcp)
    return local, remote


async def measure(root: Path, rounds: int, compose_rounds: int) -> dict[str, Any]:
    song = compose_song(PROMPT, seed=1, bars=64, out_dir=str(root), render_audio=False).result.session_dir
    session = Library(root).session(song.name)
    volumes = iter([0.5 + (i % 50) / 100 for i in range(4 * rounds + 10)])
    server = StdioServerParameters(command=sys.executable, args=["-m", "bandstand", "mcp", "--out", str(root)])
    report: dict[str, Any] = {}
    async with Client(server) as client:
        await client.call_tool("list_projects", {})  # warm: the first call imports the tools' modules
        await client.call_tool("read_project", {"project": song.name})
        floor = await _timed_async(rounds, lambda: client.call_tool("list_projects", {}))
        direct_read, mcp_read = await paired(
            rounds, lambda: session.apply_tools([{"name": "read_project", "args": {}}], author="bench"),
            lambda: client.call_tool("read_project", {"project": song.name}))
        direct_write, mcp_write = await paired(
            rounds // 4,
            lambda: session.apply_tools([{"name": "set_track_volume", "args": {"track": "bass",
                                                                              "volume": next(volumes)}}],
                                        author="bench"),
            lambda: client.call_tool("set_track_volume", {"project": song.name, "track": "bass",
                                                          "volume": next(volumes)}))

        async def progress(done: float, total: float | None, message: str | None) -> None:
            return None

        over_mcp = await _timed_async(compose_rounds, lambda: client.call_tool(
            "compose", {"prompt": PROMPT, "bars": 64, "seed": 2, "audio": False}, progress_callback=progress))
    in_process = _timed(compose_rounds, lambda: compose_song(PROMPT, seed=2, bars=64, out_dir=str(root),
                                                             render_audio=False))
    read, direct_r = _stats(mcp_read), _stats(direct_read)
    overhead = round(read["p50"] - direct_r["p50"], 3)
    report["tool_overhead_ms"] = {"p50": overhead, "budget_p50": BUDGET_OVERHEAD_MS,
                                  "within_budget": overhead <= BUDGET_OVERHEAD_MS,
                                  "tool": "read_project", "mcp": read, "direct": direct_r}
    write, direct_w = _stats(mcp_write), _stats(direct_write)
    report["revision_tool_overhead_ms"] = {"p50": round(write["p50"] - direct_w["p50"], 3),
                                           "tool": "set_track_volume", "mcp": write, "direct": direct_w}
    report["list_projects_ms"] = _stats(floor)
    mcp_median, local_median = statistics.median(over_mcp), statistics.median(in_process)
    report["compose_ms"] = {"mcp": _stats(over_mcp), "in_process": _stats(in_process),
                            "ratio": round(mcp_median / local_median, 3)}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--compose-rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bandstand-mcp-bench-") as tmp:
        report = {"rounds": args.rounds, **anyio.run(measure, Path(tmp), args.rounds, args.compose_rounds)}
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

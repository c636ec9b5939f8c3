"""Session-layer overhead and throughput, against a raw pipe to the same fake `claude` process.

Two copies of the fake CLI (tests/peers/fake_claude.py) run side by side: one
driven through a raw pipe (write a stream-json user line, read until the
``result`` line), one through a `Session` on the claude-code backend. Turns
alternate between the two so drift hits both alike. The overhead is the
session's per-turn latency minus the raw pipe's (p50 and p95; budget ≤ 2 ms),
and the same for this process's CPU time per turn, which a busy machine does
not blur.
Throughput: 16 sessions at once, each running turns back to back, against 16
raw pipes doing the same (alternating, median of 5 rounds). The session layer alone (the offline backend, no
process) is reported too. Prints JSON.

    python benchmarks/runtime.py [--turns 400] [--concurrent-turns 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.peers

from bandstand.agents import AlgorithmicBackend
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from bandstand.runtime import Session, SessionLimits
from tests.peers.claude import fake_claude_bin, user_line

BUDGET_MS = 2.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(pct(ms, 0.5), 4),
        "p95_ms": round(pct(ms, 0.95), 4),
        "mean_ms": round(statistics.fmean(ms), 4),
    }


class RawPipe:
    """The fake CLI driven by hand: the floor any session layer sits on."""

    def __init__(self, cmd: list[str]) -> None:
        self.cmd = cmd
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.cmd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=32 * 1024 * 1024,
        )

    async def turn(self, text: str) -> str:
        assert (
            self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        )
        self.proc.stdin.write(user_line(text))
        await self.proc.stdin.drain()
        while True:
            msg = json.loads(await self.proc.stdout.readline())
            if msg.get("type") == "result":
                return str(msg["result"])

    async def stop(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.close()
        await self.proc.wait()


async def overhead(backend: ClaudeCodeBackend, turns: int, warmup: int = 20) -> dict[str, object]:
    raw = RawPipe(backend.command("You are a benchmark.", {}))
    await raw.start()
    session = Session(
        backend, name="bench", persona="You are a benchmark.", limits=SessionLimits(turn_timeout=30)
    )
    await session.start()
    raw_ms: list[float] = []
    session_ms: list[float] = []
    raw_cpu: list[float] = []
    session_cpu: list[float] = []
    clock, cpu = time.perf_counter, time.process_time
    for i in range(warmup + turns):
        text = f"turn {i % 10}"  # the fake echoes all it has seen: keep replies short and equal on both sides
        t0, c0 = clock(), cpu()
        await raw.turn(text)
        t1, c1 = clock(), cpu()
        await session.send(text)
        t2, c2 = clock(), cpu()
        if i >= warmup:
            raw_ms.append((t1 - t0) * 1000)
            session_ms.append((t2 - t1) * 1000)
            raw_cpu.append((c1 - c0) * 1000)
            session_cpu.append((c2 - c1) * 1000)
    await session.stop()
    await raw.stop()
    diff = [s - r for s, r in zip(session_ms, raw_ms, strict=True)]
    result = {
        "turns": turns,
        "raw_pipe": summary(raw_ms),
        "session": summary(session_ms),
        "overhead_p50_ms": round(pct(session_ms, 0.5) - pct(raw_ms, 0.5), 4),
        "overhead_p95_ms": round(pct(session_ms, 0.95) - pct(raw_ms, 0.95), 4),
        "paired_overhead": summary(diff),
        # this process's CPU time per turn: what the session layer itself costs, free of scheduling noise
        "cpu_raw_pipe": summary(raw_cpu),
        "cpu_session": summary(session_cpu),
        "cpu_overhead_p50_ms": round(pct(session_cpu, 0.5) - pct(raw_cpu, 0.5), 4),
        "cpu_overhead_p95_ms": round(pct(session_cpu, 0.95) - pct(raw_cpu, 0.95), 4),
        "budget_ms": BUDGET_MS,
    }
    result["within_budget"] = max(result["overhead_p50_ms"], result["overhead_p95_ms"]) <= BUDGET_MS  # type: ignore[call-overload]
    return result


async def throughput(
    backend: ClaudeCodeBackend, sessions: int, turns: int, reps: int = 5
) -> dict[str, object]:
    raws = [RawPipe(backend.command("p", {})) for _ in range(sessions)]
    await asyncio.gather(*(r.start() for r in raws))
    live = [
        Session(backend, name=f"s{i}", persona="p", limits=SessionLimits(turn_timeout=60))
        for i in range(sessions)
    ]
    await asyncio.gather(*(s.start() for s in live))

    async def drive_raw(pipe: RawPipe) -> None:
        for t in range(turns):
            await pipe.turn(f"turn {t % 10}")

    async def drive_session(session: Session) -> None:
        for t in range(turns):
            await session.send(f"turn {t % 10}")

    raw_s: list[float] = []
    session_s: list[float] = []
    for _ in range(reps):  # alternate the two sides so a busy machine weighs on both alike
        t0 = time.perf_counter()
        await asyncio.gather(*(drive_raw(r) for r in raws))
        t1 = time.perf_counter()
        await asyncio.gather(*(drive_session(s) for s in live))
        t2 = time.perf_counter()
        raw_s.append(t1 - t0)
        session_s.append(t2 - t1)
    await asyncio.gather(*(s.stop() for s in live))
    await asyncio.gather(*(r.stop() for r in raws))
    total = sessions * turns
    raw_med, session_med = statistics.median(raw_s), statistics.median(session_s)
    return {
        "sessions": sessions,
        "turns_each": turns,
        "repetitions": reps,
        "raw_pipes_turns_per_s": round(total / raw_med, 1),
        "sessions_turns_per_s": round(total / session_med, 1),
        "ratio_raw_over_sessions": round(session_med / raw_med, 3),
    }


async def in_process(turns: int) -> dict[str, object]:
    session = Session(AlgorithmicBackend(lambda req: req.text), name="bench")
    await session.start()
    ms = []
    for i in range(turns):
        t0 = time.perf_counter()
        await session.send(f"turn {i}")
        ms.append((time.perf_counter() - t0) * 1000)
    await session.stop()
    return {"turns": turns, **summary(ms)}


async def main(turns: int, concurrent_turns: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        backend = ClaudeCodeBackend(
            bin=str(fake_claude_bin(Path(tmp) / "bin")),
            registry=ProcessRegistry(Path(tmp) / "pids"),
        )
        return {
            "benchmark": "runtime",
            "peer": "raw stream-json pipe to the same fake claude process",
            "per_turn_overhead": await overhead(backend, turns),
            "throughput_16_sessions": await throughput(backend, 16, concurrent_turns),
            "session_layer_in_process": await in_process(turns),
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--concurrent-turns", type=int, default=50)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.turns, args.concurrent_turns)), indent=2))

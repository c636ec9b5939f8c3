"""Jam speed: start with four members, and directive → new combined pattern ready.

With the built-in (algorithmic) band, cold (a new seed per jam, so every
pattern is new to the pattern engine) and warm (the same jams again, so
patterns played before skip re-validation): the time for `JamEngine.start()` (four
sessions opened in parallel, a first round, validation, composition) and for
`JamEngine.directive(text)` (parse, context, a round for the addressed
members, validation, composition). With a fake LLM backend whose every turn
takes a fixed latency: the time a directive takes over that latency, i.e. the
engine's own overhead around LLM members. The seed's LLM band is the
reference peer for start: 5.3 s, 7.0 s, 6.7 s. Prints JSON with p50/p95 and
the budgets (start ≤ 50 ms, directive ≤ 20 ms p95, LLM overhead ≤ 5 ms).

Validation is most of a cold directive, so it is measured alone too: the CPU time
of `validate_pattern` on every (pattern, scale) the band played in the cold jams,
its cache cleared before each, next to its peer in the same run, the pattern
engine's own floor for the same code (evaluate it, query its four cycles), which
any validator pays. The machine is shared: compare CPU times, not wall times.
`validation_hostile` is the worst case over tests/patterns/hostile_corpus.py
(benchmarks/patterns_hostile.py; budget ≤ 200 ms per reply).

A big band too: sixteen members (the four defaults and twelve more, every role
twice or more), every directive a round for everyone (broadcast), the CPU time
of `directive(text)` per directive, cold (each directive's patterns new to the
engine) and warm (the same directives again in the same jam) (budget:
p95 ≤ 20 ms CPU), for the whole process and for the event loop's thread alone
(the patterns' validation runs in a worker thread: it never holds up the loop,
but it is CPU the machine spends). A round is played in stages (drums, then bass, then the rest:
the band listens within the round), so with LLM members a directive to everyone
waits for one model turn per stage; the fake-LLM overhead is measured over
that many latencies.

    python benchmarks/jam.py [--runs 40] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Mapping
from typing import Any

from bandstand.agents.base import Emit, TurnReply, TurnRequest, Usage
from bandstand.jam.engine import JamEngine, _stage
from bandstand.jam.persona import Persona, parse_persona, resolve_members

DIRECTIVES = [
    "more energy",
    "@BEAT double time",
    "Switch to D major",
    "@groove @aria simpler",
    "calm down",
    "go to F# minor, busier",
    "@GLITCH drop out",
    "@glitch come back, swing",
    "key of C minor, energy 5",
    "@drums half time",
]
LLM_DIRECTIVES = [
    "more energy",
    "simpler",
    "calm down",
    "busier",
    "@BEAT double time",
    "@BEAT half time",
]
SEED_LLM_BAND_START_S = [5.3, 7.0, 6.7]
BIG_BAND_ROLES = ("drums", "bass", "melody", "fx", "keys", "percussion", "lead", "texture")
BIG_BAND_DIRECTIVES = [
    "more energy", "double time", "3/4 time", "busier", "switch to D major", "swing", "simpler",
    "half time", "4/4 time", "calm down",
]


def big_band(size: int = 16) -> list[Persona]:
    """The four default members and `size - 4` more, the roles in turn."""
    extra = [
        parse_persona(f"---\nname: P{i:02d}\nrole: {BIG_BAND_ROLES[i % len(BIG_BAND_ROLES)]}\n---\n", source="bench")
        for i in range(size - 4)
    ]
    return [*resolve_members(None), *extra]


async def _big_jam(band: list[Persona], seed: int) -> tuple[list[tuple[Timing, float]], list[tuple[Timing, float]]]:
    """Per directive: (wall, process CPU) and the CPU time of the event loop's thread alone
    (the validation runs in a worker thread: the process CPU counts it, the loop's does not);
    the directives once (cold: every pattern new to this engine) and then again in the same
    jam (warm: the patterns it played before are known to its engine)."""
    engine = JamEngine(band, seed=seed)
    await engine.start()
    passes: list[list[tuple[Timing, float]]] = [[], []]
    for timings in passes:
        for text in BIG_BAND_DIRECTIVES:
            gc.collect()
            t0, loop0 = _now(), time.thread_time()
            await engine.directive(text)
            timings.append((_since(t0), time.thread_time() - loop0))
    await engine.stop()
    return passes[0], passes[1]


async def measure_big_band(runs: int) -> dict[str, Any]:
    band = big_band()
    await _big_jam(band, 20_000)  # warm up
    jams = [await _big_jam(band, 30_000 + seed) for seed in range(runs)]
    cold = [t for first, _ in jams for t in first]
    warm = [t for _, again in jams for t in again]

    def figure(found_: list[tuple[Timing, float]]) -> dict[str, Any]:
        found = summary([t for t, _ in found_])
        loop = [ms * 1000 for _, ms in found_]
        return {**found, "loop_cpu_p50_ms": round(statistics.median(loop), 3),
                "loop_cpu_p95_ms": round(pct(loop, 0.95), 3), "samples": len(found_),
                "budget_cpu_p95_ms": 20.0, "within_budget_loop": pct(loop, 0.95) <= 20.0,
                "within_budget_process": found["cpu_p95_ms"] <= 20.0}

    return {"members": len(band), "directives": BIG_BAND_DIRECTIVES, "cold": figure(cold), "warm": figure(warm)}
FIXED = {
    "drums": 's("bd ~ sd ~, hh*8")',
    "bass": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")',
    "melody": 'n("0 2 ~ 4").scale("C4:minor").s("triangle")',
    "fx": 's("~ ~ rim ~").delay(0.5)',
}


class FakeLLM:
    """A backend that answers every turn after `latency` seconds with a valid reply for the
    member's role (it reads the persona to know the role, as a model would)."""

    name = "fake-llm"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def open(self, persona: str, options: Mapping[str, Any]) -> Any:
        role = next((r for r in FIXED if f"the {r} player" in persona), "melody")
        return _Conversation(self.latency, FIXED[role])


class _Conversation:
    def __init__(self, latency: float, pattern: str) -> None:
        self.latency = latency
        self.text = json.dumps(
            {"pattern": pattern, "thoughts": "ok", "reaction": "ok", "comply_with_boss": True}
        )

    async def turn(self, request: TurnRequest, emit: Emit) -> TurnReply:
        await asyncio.sleep(self.latency)
        return TurnReply(text=self.text, usage=Usage())

    async def interrupt(self) -> None:
        return None

    async def close(self) -> None:
        return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(timings: list[Timing]) -> dict[str, float]:
    """Wall-clock p50/p95/max, and the CPU time p50/p95 (what the jam itself costs, apart
    from other processes competing for the machine)."""
    ms = [w * 1000 for w, _ in timings]
    cpu = [c * 1000 for _, c in timings]
    return {
        "p50_ms": round(statistics.median(ms), 3),
        "p95_ms": round(pct(ms, 0.95), 3),
        "max_ms": round(max(ms), 3),
        "cpu_p50_ms": round(statistics.median(cpu), 3),
        "cpu_p95_ms": round(pct(cpu, 0.95), 3),
    }


Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process)


def _now() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(t0: Timing, minus: float = 0.0) -> Timing:
    wall, cpu = _now()
    return wall - t0[0] - minus, cpu - t0[1]


Played = set[tuple[str, tuple[str, ...]]]  # (pattern, scale) the band played


async def _jam(
    band: list[Persona], seed: int, played: Played | None = None
) -> tuple[Timing, list[Timing]]:
    engine = JamEngine(band, seed=seed)
    gc.collect()
    t0 = _now()
    await engine.start()
    started = _since(t0)
    directives = []
    for text in DIRECTIVES:
        t0 = _now()
        await engine.directive(text)
        directives.append(_since(t0))
    await engine.stop()
    for record in engine.rounds if played is not None else ():
        scale = tuple(record.context["scale"])
        played.update(
            (m["pattern"], scale) for m in record.members.values() if m["pattern"] != "silence"
        )
    return started, directives


def validation(played: Played) -> dict[str, Any]:
    """CPU time of validate_pattern on each played (pattern, scale), cold, and of the
    engine's floor for the same code: evaluate it and query its four cycles."""
    from bandstand.jam._harmony import pitch_class
    from bandstand.patterns import evaluate, validate_pattern
    from bandstand.patterns.cache import CompileCache

    validate_ms, floor_ms = [], []
    for code, scale in sorted(played):
        classes = [pitch_class(n) for n in scale]
        cold = CompileCache()  # cold: as for a pattern the band has never played
        t0 = time.process_time()
        validate_pattern(code, scale=classes, cache=cold)
        validate_ms.append((time.process_time() - t0) * 1000)
        t0 = time.process_time()
        pattern = evaluate(code)
        for cycle in range(4):
            pattern.query_arc(cycle, cycle + 1)
        floor_ms.append((time.process_time() - t0) * 1000)

    def cpu(ms: list[float]) -> dict[str, float]:
        return {
            "cpu_p50_ms": round(statistics.median(ms), 3),
            "cpu_p95_ms": round(pct(ms, 0.95), 3),
        }

    return {
        "samples": len(validate_ms),
        "validate_pattern": cpu(validate_ms),
        "peer": {"name": "the pattern engine's floor: evaluate + query 4 cycles", **cpu(floor_ms)},
        "engine_share_of_validation": round(sum(floor_ms) / sum(validate_ms), 2),
    }


async def measure(band: list[Persona], runs: int, latency: float) -> dict[str, Any]:
    await _jam(band, 10_000)  # warm up imports and code paths
    # cold: every run has its own seed, so every pattern is new to the pattern engine
    played: Played = set()
    cold = [await _jam(band, seed, played) for seed in range(runs)]
    # warm: the same jams again; patterns the band has played before are not re-validated
    warm = [await _jam(band, seed) for seed in range(runs)]
    llm_directives = []
    fake = FakeLLM(latency)
    for _ in range(max(3, runs // 4)):
        engine = JamEngine(band, backend=lambda persona, seed: fake, turn_timeout=latency * 20 + 5)
        await engine.start()
        for text in LLM_DIRECTIVES:
            t0 = _now()
            record = await engine.directive(text)
            stages = len({_stage(engine.members[n]) for n, m in record.members.items() if m["asked"]})
            llm_directives.append(_since(t0, minus=latency * stages))
        await engine.stop()
    return {
        "cold_start": [s for s, _ in cold],
        "cold_directive": [d for _, ds in cold for d in ds],
        "warm_start": [s for s, _ in warm],
        "warm_directive": [d for _, ds in warm for d in ds],
        "llm_overhead": llm_directives,
        "validation": validation(played),
    }


def hostile_validation() -> dict[str, Any]:
    """Validation worst case over the hostile corpus (budget ≤ 200 ms per reply): the
    figure of benchmarks/patterns_hostile.py, run here too."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from patterns_hostile import measure as measure_hostile

    return measure_hostile(rounds=3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--big-band-runs", type=int, default=6)
    args = parser.parse_args()
    band = resolve_members(None)
    found = asyncio.run(measure(band, args.runs, args.latency_ms / 1000))
    big = asyncio.run(measure_big_band(args.big_band_runs))
    overhead = summary(found["llm_overhead"])
    seed_median_ms = statistics.median(SEED_LLM_BAND_START_S) * 1000

    def block(kind: str) -> dict[str, Any]:
        start, directive = summary(found[f"{kind}_start"]), summary(found[f"{kind}_directive"])
        return {
            "start": {**start, "budget_ms": 50.0, "within_budget": start["p95_ms"] <= 50.0},
            "directive": {
                **directive,
                "samples": len(found[f"{kind}_directive"]),
                "budget_p95_ms": 20.0,
                "within_budget": directive["p95_ms"] <= 20.0,
            },
        }

    report = {
        "benchmark": "jam: start with 4 members, directive → new combined pattern ready",
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "members": [p.name for p in band],
        "runs": args.runs,
        "algorithmic_cold": block("cold"),
        "algorithmic_warm": block("warm"),
        "validation": found["validation"],
        "validation_hostile": hostile_validation(),
        "fake_llm": {
            "latency_ms": args.latency_ms,
            "overhead": {
                **overhead,
                "samples": len(found["llm_overhead"]),
                "budget_ms": 5.0,
                "within_budget": overhead["p95_ms"] <= 5.0,
            },
        },
        "big_band_directive": big,
        "peer": {
            "name": "the seed's LLM band (start)",
            "start_s": SEED_LLM_BAND_START_S,
            "speedup_vs_peer_median_cold": round(
                seed_median_ms / summary(found["cold_start"])["p50_ms"], 1
            ),
        },
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

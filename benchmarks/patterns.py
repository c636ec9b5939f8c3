"""Pattern query speed: events per second, bandstand vs Strudel on node, same run.

Each pattern of a fixed set is queried one cycle at a time for N cycles (after
a warm-up), in Python and in Strudel 1.2.6 under node (tests/patterns/strudel,
installed by scripts/setup.d/strudel.sh), each timed `--rounds` times with
the best kept on both sides. Prints JSON: per pattern and in total, haps/s
on each side and the ratio Strudel ÷ bandstand (the budget is a ratio ≤ 2).

    python benchmarks/patterns.py [--cycles 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bandstand.patterns import evaluate
from bandstand.patterns.time import TimeSpan, to_time

STRUDEL_DIR = Path(
    os.environ.get("BANDSTAND_STRUDEL_DIR", Path(__file__).parent.parent / "tests/patterns/strudel")
)

PATTERNS = [
    'note("c e g b").s("piano")',
    's("bd*2, hh*4, ~ sd")',
    '"bd [sd sd] <hh oh>*2 cp(3,8)"',
    'note("<c2 ab1 eb2 bb1>*2").s("sawtooth").lpf(600)',
    'n("0 2 4 <6 7>").scale("C4:minor").s("piano")',
    's("hh*8").degradeBy(0.3).gain(sine.range(0.5, 1))',
    'note("c3 e3 g3").every(2, x => x.fast(2)).off(0.125, x => x.add(12))',
    's("bd? sd? [hh|oh]*4").sometimes(x => x.speed(2))',
    'n("0 1 2 3").shuffle(4).add("<0 12>")',
    'stack(s("bd(3,8)"), s("hh*4").gain(0.6), note("<c2 g1>").s("bass").jux(rev))',
]


def bench_python(codes: list[str], cycles: int, rounds: int) -> list[dict[str, float]]:
    results = []
    for code in codes:
        pat = evaluate(code)
        query = pat.query
        for c in range(300):
            query(TimeSpan(to_time(c), to_time(c + 1)), {})
        best = float("inf")
        haps = 0
        for _ in range(rounds):
            haps = 0
            t0 = time.perf_counter()
            for c in range(cycles):
                haps += len(query(TimeSpan(to_time(c), to_time(c + 1)), {}))
            best = min(best, time.perf_counter() - t0)
        results.append({"haps": haps, "seconds": best})
    return results


def bench_strudel(codes: list[str], cycles: int, rounds: int) -> list[dict[str, float]]:
    proc = subprocess.run(
        ["node", "--import", "./register.mjs", "bench.mjs"],
        input=json.dumps({"codes": codes, "cycles": cycles, "rounds": rounds}),
        capture_output=True,
        text=True,
        cwd=STRUDEL_DIR,
        check=True,
    )
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument(
        "--rounds", type=int, default=3, help="timings per pattern; the best counts"
    )
    args = parser.parse_args(argv)
    ours = bench_python(PATTERNS, args.cycles, args.rounds)
    theirs = bench_strudel(PATTERNS, args.cycles, args.rounds)
    rows = []
    for code, a, b in zip(PATTERNS, ours, theirs, strict=True):
        ours_rate = a["haps"] / a["seconds"]
        their_rate = b["haps"] / b["seconds"]
        rows.append(
            {
                "pattern": code,
                "haps": a["haps"],
                "strudel_haps": b["haps"],
                "bandstand_haps_per_s": round(ours_rate),
                "strudel_haps_per_s": round(their_rate),
                "ratio": round(their_rate / ours_rate, 3),
            }
        )
    total_ours = sum(a["haps"] for a in ours) / sum(a["seconds"] for a in ours)
    total_theirs = sum(b["haps"] for b in theirs) / sum(b["seconds"] for b in theirs)
    report = {
        "benchmark": "pattern queries, one cycle at a time",
        "cycles": args.cycles,
        "rounds": args.rounds,
        "patterns": rows,
        "bandstand_haps_per_s": round(total_ours),
        "strudel_haps_per_s": round(total_theirs),
        "ratio": round(total_theirs / total_ours, 3),
        "budget_ratio": 2.0,
        "within_budget": total_theirs / total_ours <= 2.0,
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

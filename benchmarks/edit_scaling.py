"""How the cost of directing a song grows with its length (issue #23: "edit cost
grows superlinearly"). One fixed prompt and seed composed at several lengths
(`--bars`, default 32 64 128 256 512; five parts, no audio), then, in process:

- edit: `bandstand edit`'s use case, `producer.requests.direct.direct(session, request)`
  — the session opened from disk, the words read, the parts the request reaches
  run again, the variation proposed (or, for a mixer request such as "less
  reverb on the lead", the revision committed and the top-level files
  rewritten) — for each of `--requests`;
- accept: `bandstand accept --no-audio`'s use case, the session opened and the
  variation of "make the bass busier" accepted (revision written, top-level
  files but the WAV rewritten);
- undo: `bandstand undo --no-audio`'s, the session opened and that accept undone.

Every run starts from a fresh copy of the composed session (copied outside the
timing), so no run sees the history another one left. Each figure is the median
of `--rounds` runs (after one warm-up run per length, which is not counted) of
wall ms, with the process's CPU ms beside it (`cpu`: the part nodes run on
worker threads; CPU is what the work costs when the machine is busy with
other things). `exponent` is the least-squares slope of log(median ms) against
log(bars) over all lengths (1 = linear), `exponent_64_256` the slope between
64 and 256 bars alone (the issue's figure), both for wall and CPU. A request a
song cannot take (a short one may have no verse) is named under `not_done`
with the reason, for that length.

    python benchmarks/edit_scaling.py [--bars 32 64 128 256 512] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROMPT = "funk groove in E minor, tight and bright"
SEED = 11
PARTS = ["drums", "bass", "chords", "lead", "pad"]
REQUESTS = ["make the bass busier", "make the drums simpler in the verse", "change the key to F# minor",
            "less reverb on the lead"]
ACCEPTED = "make the bass busier"  # the variation accept and undo are timed on


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall ms, process CPU ms) of one call."""
    cpu, start = time.process_time(), time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


def compose_session(bars: int, out: Path) -> Path:
    from bandstand.producer.composing.compose import compose_song

    composed = compose_song(PROMPT, seed=SEED, bars=bars, parts=PARTS, out_dir=str(out), render_audio=False,
                            assume_defaults=True)
    return Path(composed.result.session_dir)


def _fresh(pristine: Path, work: Path) -> Path:
    """A copy of the composed session under the same folder name (a session's name is its id)."""
    target = work / pristine.name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(pristine, target)
    return target


def _edit(pristine: Path, work: Path, request: str) -> tuple[float, float]:
    from bandstand.producer.requests.direct import direct

    session = _fresh(pristine, work)
    return _timed(lambda: direct(session, request))


def _accept_undo(pristine: Path, work: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    from bandstand.producer.composing.compose import part_generator
    from bandstand.producer.requests.direct import direct
    from bandstand.producer.sessions.projects import open_project

    session = _fresh(pristine, work)
    direct(session, ACCEPTED)
    accept = _timed(lambda: open_project(session, generator=part_generator).accept())
    undo = _timed(lambda: open_project(session, generator=part_generator).undo())
    return accept, undo


def measure(pristine: Path, work: Path, rounds: int, requests: list[str]) -> dict[str, Any]:
    """Each figure's samples, or the one-line reason a request cannot be done on this song
    (a short song may have no verse)."""
    from bandstand.errors import InvalidInput

    samples: dict[str, Any] = {r: [] for r in requests} | {"accept": [], "undo": []}
    for r in list(requests):  # warm-up: imports, lexicons, caches that a long-lived process keeps
        try:
            _edit(pristine, work, r)
        except InvalidInput as exc:
            samples[r] = str(exc)
            requests = [q for q in requests if q != r]
    _accept_undo(pristine, work)
    for _ in range(rounds):
        for r in requests:
            samples[r].append(_edit(pristine, work, r))
        accept, undo = _accept_undo(pristine, work)
        samples["accept"].append(accept)
        samples["undo"].append(undo)
    return samples


def _slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(ms) against log(bars)."""
    pts = [(math.log(b), math.log(ms)) for b, ms in points if ms > 0]
    if len(pts) < 2:
        return None
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return round(sum((x - mx) * (y - my) for x, y in pts) / den, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bars", type=int, nargs="+", default=[32, 64, 128, 256, 512])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", nargs="+", default=REQUESTS)
    args = parser.parse_args(argv)
    figures = [*args.requests, "accept", "undo"]
    report: dict[str, Any] = {"prompt": PROMPT, "seed": SEED, "parts": PARTS, "rounds": args.rounds, "songs": {},
                              "figures": {f: {"wall_ms": {}, "cpu_ms": {}} for f in figures}}
    with tempfile.TemporaryDirectory(prefix="bandstand-edit-scaling-") as tmp:
        root = Path(tmp)
        (root / "work").mkdir()
        for bars in sorted(args.bars):
            pristine = compose_session(bars, root / "songs")
            from bandstand.producer.sessions.projects import open_project

            head = open_project(pristine).head
            report["songs"][bars] = {"notes": head.note_count(), "regions": sum(len(t.regions) for t in head.tracks),
                                     "sections": len(head.sections)}
            samples = measure(pristine, root / "work", args.rounds, args.requests)
            for name, runs in samples.items():
                if isinstance(runs, str):
                    report["figures"][name].setdefault("not_done", {})[bars] = runs
                    continue
                report["figures"][name]["wall_ms"][bars] = round(statistics.median(w for w, _ in runs), 1)
                report["figures"][name]["cpu_ms"][bars] = round(statistics.median(c for _, c in runs), 1)
            print(f"{bars} bars: " + ", ".join(f"{n} {report['figures'][n]['wall_ms'].get(bars, 0):.0f} ms"
                                               for n in figures), file=sys.stderr, flush=True)
    for fig in report["figures"].values():
        for clock in ("wall", "cpu"):
            points = sorted(fig[f"{clock}_ms"].items())
            fig[f"{clock}_exponent"] = _slope(points)
            mid = [(b, ms) for b, ms in points if b in (64, 256)]
            fig[f"{clock}_exponent_64_256"] = _slope(mid) if len(mid) == 2 else None
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

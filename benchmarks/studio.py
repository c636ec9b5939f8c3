"""Studio speed, in process, on a composed 64-bar song with five parts (drums,
bass, chords, lead, pad; the sound plan's mix applied), made a project with
`create_from_song`:

- accept_ms: accepting a variation (the bass busier: ~50 % more notes), from
  `accept()` call to return — revision written, HEAD moved, the top-level
  files but the WAV made again and those that change rewritten (part MIDI,
  full arrangement, lead sheet, notes, piano roll, manifest). Budget:
  median ≤ 100 ms.
- accept_lead_ms: the same for a variation that rewrites the lead (so the lead
  sheet changes too). Reported.
- tool_call_ms: one tool call round trip in process — parameters validated,
  names resolved, the handler run on the HEAD project, the result with its
  entities map (`run_batch`). Budget: median ≤ 2 ms.
- tool_revision_ms: one tool call through `apply_tools` — a revision with its
  files rewritten. Reported.
- propose_ms: a proposal (made with `merge_song`) to a ready variation with
  its phrases and musical diff (`propose`). Reported.
- undo_ms: undoing an accepted variation (files rewritten). Reported.
- edit_ms: `bandstand edit`'s use case in process, "make the bass busier" on
  a session composed by `producer.composing.compose` (so it has its recipe): the words
  read, the blast radius, the bass node run again from the recipe, the
  proposal built and proposed — from the call to a ready variation.
  The session is opened once (as a server keeps it open): HEAD's project is
  read from disk once, not per request. Budget: median ≤ 150 ms.
- edit_key_ms: the same for "change the key to F# minor" (harmony and four
  parts run again; an expensive edit). Reported.
- alternatives_ms: three alternatives of the bass, each a ready variation,
  scored. Reported.

Each figure is a function in `FIGURES` that takes the fixture and returns its
samples (wall ms, timed with `_timed`, which also keeps the process's CPU ms:
`cpu_median` shows what the work costs when the machine is busy with other
things); `BUDGETS` holds the budgets, judged on the wall median. Add a figure
by adding a function and its entry.

    python benchmarks/studio.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bandstand import score
from bandstand.compose import compose
from bandstand.compose.sound import apply_sound
from bandstand.producer.sessions.head_files import sound_plan
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.studio import Project, Provenance, merge_song, to_song
from bandstand.studio.tools import ToolContext, run_batch

PROMPT = "funk groove in E minor, tight and bright"
PARTS = ["drums", "bass", "chords", "lead", "pad"]


@dataclass(slots=True)
class Fixture:
    session: ProjectSession
    rounds: int


def make_fixture(root: Path, rounds: int) -> Fixture:
    result = compose(PROMPT, seed=11, bars=64, parts=PARTS, out_dir=str(root), render_audio=False)
    song = apply_sound(result.song, sound_plan(result.session_dir))
    session = create_from_song(result.session_dir, song, Provenance(prompt=PROMPT, seeds={"song": 11}))
    return Fixture(session, rounds)


def _busier(head: Project, role: str, salt: int) -> Project:
    song = to_song(head)
    track = song.track(role)
    track.notes += [score.Note(n.start + 0.75, 0.25, n.pitch, 60 + salt % 40) for n in track.notes[::2]]
    track.sort()
    return merge_song(head, song)


def _rewritten_lead(head: Project, salt: int) -> Project:
    song = to_song(head)
    lead = song.track("lead")
    lead.notes = [score.Note(n.start, n.duration, min(127, n.pitch + 2 + salt % 3), n.velocity) for n in lead.notes]
    return merge_song(head, song)


CPU: list[float] = []  # the process's CPU time of every sample _timed took, in order


def _timed(fn: Callable[[], Any]) -> float:
    """Wall ms of one call; its CPU ms (all threads of the process) go to CPU."""
    cpu, start = time.process_time(), time.perf_counter()
    fn()
    wall = (time.perf_counter() - start) * 1000
    CPU.append((time.process_time() - cpu) * 1000)
    return wall


def accept_ms(fx: Fixture, change: Callable[[Project, int], Project]) -> list[float]:
    samples = []
    for i in range(fx.rounds):
        variation = fx.session.propose(change(fx.session.head, i), request="benchmark", author="benchmark")
        samples.append(_timed(lambda v=variation: fx.session.accept(v.id)))
        fx.session.undo()
    return samples


def propose_ms(fx: Fixture) -> list[float]:
    samples = []
    for i in range(fx.rounds):
        proposal = _busier(fx.session.head, "bass", i)
        samples.append(_timed(lambda p=proposal: fx.session.propose(p, request="benchmark", author="benchmark")))
    return samples


def tool_call_ms(fx: Fixture) -> list[float]:
    head = fx.session.head
    ctx = ToolContext(ids=fx.session.ids)
    calls = [{"name": "set_track_volume", "args": {"track": "bass", "volume": 0.5 + i / 1000}}
             for i in range(fx.rounds * 20)]
    run_batch(head, calls[:1], ctx=ctx)
    return [_timed(lambda c=c: run_batch(head, [c], ctx=ctx)) for c in calls]


def tool_revision_ms(fx: Fixture) -> list[float]:
    samples = []
    for i in range(fx.rounds):
        call = {"name": "set_track_pan", "args": {"track": "lead", "pan": 0.3 + i / 100}}
        samples.append(_timed(lambda c=call: fx.session.apply_tools([c], author="benchmark")))
        fx.session.undo()
    return samples


def undo_ms(fx: Fixture) -> list[float]:
    samples = []
    for i in range(fx.rounds):
        variation = fx.session.propose(_busier(fx.session.head, "bass", i), request="benchmark", author="benchmark")
        fx.session.accept(variation.id)
        samples.append(_timed(fx.session.undo))
    return samples


_EDIT_SESSION: dict[int, Path] = {}


def _edit_session(fx: Fixture) -> Path:
    """A second song, composed through `producer.composing.compose` so that it carries its recipe."""
    from bandstand.producer.composing.compose import compose_song

    key = id(fx)
    if key not in _EDIT_SESSION:
        out = fx.session.session_dir.parent / "edits"
        _EDIT_SESSION[key] = compose_song(PROMPT, seed=11, bars=64, parts=PARTS, out_dir=str(out),
                                          render_audio=False).result.session_dir
    return _EDIT_SESSION[key]


def edit_ms(fx: Fixture, request: str = "make the bass busier") -> list[float]:
    from bandstand.producer.requests.iteration import edit
    from bandstand.producer.sessions.projects import open_project

    root = _edit_session(fx)
    session = open_project(root)  # kept open, as a server keeps its sessions (HEAD is read once)
    edit(root, request, session=session)  # warm: imports, lexicons, the vocabulary
    samples = []
    made: list[Any] = []
    for _ in range(fx.rounds):
        samples.append(_timed(lambda: made.append(edit(root, request, session=session))))
        session.discard(made[-1].variation.id)
    return samples


def alternatives_ms(fx: Fixture) -> list[float]:
    from bandstand.producer.requests.alternatives import alternatives
    from bandstand.producer.sessions.projects import open_project

    root = _edit_session(fx)
    session = open_project(root)
    return [_timed(lambda: alternatives(root, "bass", session=session)) for _ in range(max(1, fx.rounds // 3))]


FIGURES: dict[str, Callable[[Fixture], list[float]]] = {
    "accept_ms": lambda fx: accept_ms(fx, lambda head, i: _busier(head, "bass", i)),
    "accept_lead_ms": lambda fx: accept_ms(fx, _rewritten_lead),
    "tool_call_ms": tool_call_ms,
    "tool_revision_ms": tool_revision_ms,
    "propose_ms": propose_ms,
    "undo_ms": undo_ms,
    "edit_ms": edit_ms,
    "edit_key_ms": lambda fx: edit_ms(fx, "change the key to F# minor"),
    "alternatives_ms": alternatives_ms,
}
BUDGETS: dict[str, float] = {"accept_ms": 100.0, "tool_call_ms": 2.0, "edit_ms": 150.0}


def _stats(samples: list[float], budget: float | None) -> dict[str, Any]:
    ordered = sorted(samples)
    out: dict[str, Any] = {"median": round(statistics.median(ordered), 3), "min": round(ordered[0], 3),
                           "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 3), "n": len(ordered)}
    if budget is not None:
        out |= {"budget": budget, "ok": out["median"] <= budget}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", nargs="*", choices=list(FIGURES), help="measure only these figures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bandstand-studio-bench-") as tmp:
        fx = make_fixture(Path(tmp), args.rounds)
        head = fx.session.head
        report: dict[str, Any] = {
            "song": {"bars": sum(s.bars for s in head.sections), "parts": [t.role for t in head.tracks],
                     "notes": head.note_count(), "regions": sum(len(t.regions) for t in head.tracks)},
            "rounds": args.rounds,
        }
        for name in args.only or FIGURES:
            CPU.clear()
            report[name] = _stats(FIGURES[name](fx), BUDGETS.get(name))
            report[name]["cpu_median"] = round(statistics.median(CPU), 3)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

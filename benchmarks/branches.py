"""Branches (issue #27): what `checkout` and `merge` cost in-process on a composed song
(`producer.sessions.branches`), against an `undo` of the same song — all three hold the session's lock,
write HEAD.json (a merge also its revision) and rewrite the top-level files.

Each round: a branch at HEAD, a one-part edit on it (Bass volume), checkout main, an edit of
another part (Drums pan), then timed: `checkout` to the branch and back, `merge` of the branch,
`undo` of the merge. Reported: the median and all (ms, wall and process CPU) of each, the graph
drawing for the resulting history, and the song's size (bars, notes).

    python benchmarks/branches.py [--rounds 3] [--bars 64] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROMPT = "late-night neo-soul with a warm bass"


def timed(work: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def one_round(session: Any, times: dict[str, list[tuple[float, float]]]) -> None:
    from bandstand.producer.sessions import branches

    def set_track(name: str, field: str, value: float) -> None:
        def change(head: Any) -> Any:
            track = next(t for t in head.tracks if t.name == name or t.role == name.lower())
            return head.with_track(track.model_copy(update={field: value}))
        session.edit(change, author="bench", request=f"{name} {field}")

    branches.create_branch(session, "alt")
    set_track("Bass", "volume", 0.4)
    branches.checkout(session, "main")
    set_track("Drums", "pan", 0.3)
    times["checkout"].append(timed(lambda: branches.checkout(session, "alt")))
    times["checkout"].append(timed(lambda: branches.checkout(session, "main")))
    times["merge"].append(timed(lambda: branches.merge(session, "alt")))
    times["graph"].append(timed(lambda: branches.graph(session)))
    times["undo"].append(timed(lambda: session.undo()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bars", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    from bandstand.producer.composing.compose import compose_song
    from bandstand.producer.sessions.projects import open_project

    work = Path(tempfile.mkdtemp(prefix="bandstand-bench-branches-"))
    try:
        composed = compose_song(PROMPT, seed=args.seed, bars=args.bars, out_dir=str(work / "composed"),
                                render_audio=False, render_pianoroll=False).result.session_dir
        times: dict[str, list[tuple[float, float]]] = {"checkout": [], "merge": [], "undo": [], "graph": []}
        notes = 0
        for n in range(args.rounds):
            root = work / f"round-{n}"
            shutil.copytree(composed, root)
            session = open_project(root)
            notes = session.head.note_count()
            one_round(session, times)
        report: dict[str, Any] = {"bars": args.bars, "notes": notes, "rounds": args.rounds}
        for name, samples in times.items():
            report[name] = {"wall_ms_median": round(statistics.median(w for w, _ in samples), 1),
                            "cpu_ms_median": round(statistics.median(c for _, c in samples), 1),
                            "wall_ms": [round(w, 1) for w, _ in samples]}
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

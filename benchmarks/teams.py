"""Agent teams and batches on this machine. Prints one JSON object.

- ``team_vs_pipeline``: the same song (prompt, seed, bars) composed offline by the
  plain compose pipeline and by an agent team (built-in musicians, the variation
  accepted so both leave the same files: MIDI, lead sheet, piano roll, no audio);
  the median wall time of each over ``--repeats`` runs (after one untimed run
  of each: imports and caches) and the team's overhead ratio (team /
  pipeline), with what each wrote (tracks, notes) beside it.
- ``batch``: ``--songs`` prompts composed by ``bandstand batch`` machinery with
  1, 2 and 4 workers: on a local process pool, and through a SQLite board with
  that many ``bandstand worker`` processes; songs per second (wall time, the
  workers' start included; for the board also from the first claim to the
  last completion) and the speed-up over one worker. The machine's core count
  and load are printed with it — workers past the cores cannot add throughput.

Budget: the team's overhead ratio ≤ 3 (it writes every section as its own agent
with its own tool calls, through one working copy of the project).

    python benchmarks/teams.py [--repeats 3] [--bars 32] [--songs 12] [--song-bars 16] [--workers 1,2,4] [--no-board]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bandstand.producer.batch import Conductor, batch_id, read_prompts, run_local
from bandstand.producer.composing.compose import compose_song
from bandstand.producer.sessions.projects import open_project
from bandstand.producer.teams import TeamOptions, run_team
from bandstand.studio import to_song

PROMPT = "funk groove in E minor"
PROMPTS = ("funk groove in E minor", "dark trap", "jazz ballad", "rock anthem", "lofi hip hop", "synthwave",
           "reggae", "house track", "bossa nova", "metal riff")
BUDGET_RATIO = 3.0


def _notes(song: Any) -> int:
    return sum(len(t.notes) for t in song.tracks)


def team_vs_pipeline(repeats: int, bars: int, tmp: Path) -> dict[str, Any]:
    plain: list[float] = []
    team: list[float] = []
    wrote: dict[str, Any] = {}
    compose_song(PROMPT, assume_defaults=True, seed=7, bars=bars, out_dir=str(tmp / "warm"), render_audio=False)
    asyncio.run(run_team(PROMPT, TeamOptions(seed=7, compose={"bars": bars}, accept=True,
                                             session_dir=str(tmp / "warm-team"))))  # imports and caches, untimed
    for n in range(repeats):
        t0 = time.perf_counter()
        result = compose_song(PROMPT, assume_defaults=True, seed=7, bars=bars, out_dir=str(tmp / f"plain{n}"),
                              render_audio=False).result
        plain.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        outcome = asyncio.run(run_team(PROMPT, TeamOptions(seed=7, compose={"bars": bars}, accept=True,
                                                           session_dir=str(tmp / f"team{n}"))))
        team.append(time.perf_counter() - t0)
        if n == 0:
            song = to_song(open_project(result.session_dir).head)
            made = to_song(open_project(outcome.session_dir).head)
            wrote = {"pipeline": {"tracks": len(song.tracks), "notes": _notes(song)},
                     "team": {"tracks": len(made.tracks), "notes": _notes(made), "sections": len(outcome.sections),
                              "written": sum(s["status"] == "written" for s in outcome.sections)}}
    p, t = statistics.median(plain), statistics.median(team)
    return {"prompt": PROMPT, "seed": 7, "bars": bars, "repeats": repeats, "pipeline_s": round(p, 3),
            "team_s": round(t, 3), "overhead_ratio": round(t / p, 2), "budget_ratio": BUDGET_RATIO,
            "within_budget": t / p <= BUDGET_RATIO, "wrote": wrote}


def _pool(jobs: list[Any], workers: int, out: Path) -> tuple[float, float | None]:
    t0 = time.perf_counter()
    results = run_local(jobs, out, workers=workers)
    elapsed = time.perf_counter() - t0
    if any(r.status != "composed" for r in results):
        raise SystemExit(f"a song failed: {[r.error for r in results if r.error]}")
    return elapsed, None


def _board(jobs: list[Any], workers: int, out: Path) -> tuple[float, float]:
    """(wall seconds with the workers' start, seconds from the first claim to the last completion)."""
    from datetime import timedelta

    from bandstand.board import Board
    from bandstand.board.board import parse_ts

    url = f"sqlite:///{out.parent / (out.name + '.db')}"
    bin_ = str(Path(sys.executable).parent / "bandstand")
    with Board.open(url, stale_after=timedelta(seconds=60)) as board:
        conductor = Conductor(board, jobs, batch_id(jobs))
        conductor.enqueue()
        procs = [subprocess.Popen([bin_, "worker", "--board", url, "--out", str(out), "--session", f"w{k}",
                                   "--heartbeat", "1", "--poll", "0.05"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
                 for k in range(workers)]
        try:
            t0 = time.perf_counter()  # workers start up inside the measured time, as a batch's do
            status = conductor.run(poll=0.05)
            elapsed = time.perf_counter() - t0
            tasks = [board.task(t) for t in conductor.tasks]
            first = min(parse_ts(t.started_at) for t in tasks if t.started_at)
            last = max(parse_ts(t.completed_at) for t in tasks if t.completed_at)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait(timeout=60)
    if status.given_up or len(status.results) != len(jobs):
        raise SystemExit(f"the board batch did not finish: {status.given_up}")
    return elapsed, (last - first).total_seconds()


def batch(songs: int, bars: int, counts: list[int], board: bool, tmp: Path) -> dict[str, Any]:
    text = "\n".join(PROMPTS[i % len(PROMPTS)] + f" take {i}" for i in range(songs))
    jobs = read_prompts(text, seed=100, defaults={"bars": bars})
    modes = {"pool": _pool, **({"board_sqlite": _board} if board else {})}
    out: dict[str, Any] = {"songs": songs, "bars": bars, "cores": os.cpu_count(),
                           "load_average_1m": round(os.getloadavg()[0], 2)}
    for mode, run in modes.items():
        rows = []
        for workers in counts:
            elapsed, steady = run(jobs, workers, tmp / f"{mode}-{workers}")
            row = {"workers": workers, "seconds": round(elapsed, 2), "songs_per_s": round(songs / elapsed, 3)}
            if steady is not None:  # the workers' own start left out: first claim to last completion
                row["claim_to_done_s"] = round(steady, 2)
                row["steady_songs_per_s"] = round(songs / max(steady, 1e-3), 3)
            rows.append(row)
        base = rows[0]["songs_per_s"]
        for row in rows:
            row["speedup"] = round(row["songs_per_s"] / base, 2)
        out[mode] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bars", type=int, default=32, help="bars of the team-vs-pipeline song")
    parser.add_argument("--songs", type=int, default=12)
    parser.add_argument("--song-bars", type=int, default=16, help="bars of every batch song")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--no-board", action="store_true", help="skip the SQLite board batch")
    args = parser.parse_args()
    counts = [int(x) for x in args.workers.split(",") if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        report = {"benchmark": "teams", "team_vs_pipeline": team_vs_pipeline(args.repeats, args.bars, root),
                  "batch": batch(args.songs, args.song_bars, counts, not args.no_board, root)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

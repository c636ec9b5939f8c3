"""The studio API's speed, offline (the built-in musicians, no language model),
measured against a real `bandstand serve` process over HTTP — and, beside each
figure, the same request run in this process through `producer.Studio` (the
"in-process peer": what the producer costs without HTTP, SSE and the other
process), so `http_over_inprocess` shows what the wire adds.

- first_event_ms: `POST /api/v1/stream` "what key is this in?" on a 32-bar
  project, from sending the request to reading its first event (`state`).
  Budget: median ≤ 30 ms.
- editing_5_tools_ms: an EDITING request of five tool calls ("set the tempo to
  100 bpm, mute the drums, pan the bass left, make the keys quieter and solo
  the lead": plan, 5 × (step active, toolStart, toolCall, step completed),
  summary, one revision with its files rewritten) from sending to `complete`.
  Undone (not timed) after each round. Budget: median ≤ 100 ms.
- composing_64_bars_ms: a structured COMPOSING prompt (funk, 96 BPM, drums,
  bass, keys, 64 bars: a new project, its parts written by the built-in
  musicians, proposed as a variation) from sending to its `done` event.
  Budget: median ≤ 500 ms.
- concurrent_20: 20 clients send the same request at once (the EDITING
  request above, each on its own copy of the project, and the question) —
  each stream's time to `complete`; the p95 of the 20 over the median of one
  stream alone (every client has opened its project once before, as the one
  alone has). Budget: p95 ≤ 3 × alone. Also shown: the p95 over the fair
  share (one alone × 20 / the cores: the time the work of 20 streams takes
  when the cores share it evenly, which is as well as CPU-bound work can do).

Every figure is a median (and p95) over `--rounds` rounds after one warm-up.
The machine's load shows in the figures (two cores shared with other work:
run it alone for figures to quote).

    python benchmarks/api.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

QUESTION = "what key is this in?"
EDITING = "set the tempo to 100 bpm, mute the drums, pan the bass left, make the keys quieter and solo the lead"
COMPOSING = ("BANDSTAND PROMPT\nMode: compose\nStyle: funk\nTempo: 96\nKey: E minor\n"
             "Roles: [drums, bass, keys]\nBars: 64\n")
CONCURRENT = 20
BUDGETS = {"first_event_ms": 30.0, "editing_5_tools_ms": 100.0, "composing_64_bars_ms": 500.0}
CONCURRENT_RATIO = 3.0


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _figure(samples: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(samples), 2), "p95": round(_p95(samples), 2),
            "min": round(min(samples), 2)}


# --------------------------------------------------------------------------- the server


@contextlib.contextmanager
def serve(out: Path) -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    """`bandstand serve --port 0 --out OUT` as its own process: (base URL, token, process)."""
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", "serve", "--port", "0", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        if "http://" not in lines[0] or "API token:" not in lines[1]:
            raise RuntimeError(f"bandstand serve did not start: {lines!r}")
        url = "http://" + lines[0].split("http://", 1)[1].split()[0]
        yield url.split("?", 1)[0], lines[1].split("API token:", 1)[1].split()[0], proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def http_stream(client: httpx.Client, prompt: str, project_id: str | None, until: str) -> dict[str, Any]:
    """Send a request and read its stream: ms to the first event and to the event `until`; the
    last event read."""
    body: dict[str, Any] = {"prompt": prompt, **({"projectId": project_id} if project_id else {})}
    start = time.perf_counter()
    first = None
    seen: list[str] = []
    with client.stream("POST", "api/v1/stream", json=body) as answer:
        if answer.status_code != 200:
            answer.read()
            raise RuntimeError(f"{answer.status_code}: {answer.text}")
        for line in answer.iter_lines():
            if not line.startswith("data: "):
                continue
            first = first if first is not None else (time.perf_counter() - start) * 1000
            event = json.loads(line[6:])
            seen.append(event["type"])
            if event["type"] == until:
                return {"first_ms": first, "ms": (time.perf_counter() - start) * 1000, "event": event, "types": seen}
            if event["type"] == "complete":
                raise RuntimeError(f"the stream ended before {until}: {event}")
    raise RuntimeError("the stream ended without complete")


# --------------------------------------------------------------------------- in process


def local_stream(studio: Any, prompt: str, project_id: str | None, until: str) -> dict[str, Any]:
    """The same request through `Studio.prepare` + `Studio.stream` in this process."""
    marks: dict[str, Any] = {"types": []}
    start = time.perf_counter()

    def sink(event: dict[str, Any]) -> None:
        now = (time.perf_counter() - start) * 1000
        marks.setdefault("first_ms", now)
        if "ms" not in marks:
            marks["types"].append(event["type"])
        if event["type"] == until and "ms" not in marks:
            marks.update(ms=now, event=event)

    prepared = studio.prepare(prompt, project_id=project_id)
    last = asyncio.run(studio.stream(prepared, sink))
    if "ms" not in marks:
        raise RuntimeError(f"the stream ended before {until}: {last}")
    return marks


# --------------------------------------------------------------------------- figures


def compose_project(out: Path) -> str:
    """A 32-bar funk song with five parts, made a project in `out` (the projects every figure edits)."""
    from bandstand.producer.composing.compose import compose_song

    result = compose_song("funk groove in E minor with keys and a lead", seed=3, bars=32, out_dir=str(out),
                          render_audio=False, render_pianoroll=False).result
    if result.status != "completed":
        raise RuntimeError(f"compose failed: {result.state.error}")
    return result.session_dir.name


Runner = Callable[[str, str | None, str], dict[str, Any]]


def figures(run: Runner, undo: Callable[[str], object], project: str, rounds: int) -> dict[str, Any]:
    """The three single-stream figures through `run` (HTTP or in process)."""
    firsts, edits, composes = [], [], []
    for i in range(rounds + 1):
        asked = run(QUESTION, project, "complete")
        edited = run(EDITING, project, "complete")
        if not edited["event"]["success"] or edited["types"].count("toolCall") != 5:
            raise RuntimeError(f"the EDITING request did not make 5 tool calls: {edited['types']} {edited['event']}")
        undo(project)
        composed = run(COMPOSING, None, "done")
        if i:  # the first round warms up
            firsts.append(asked["first_ms"])
            edits.append(edited["ms"])
            composes.append(composed["ms"])
    return {"first_event_ms": _figure(firsts), "editing_5_tools_ms": _figure(edits),
            "composing_64_bars_ms": _figure(composes)}


def concurrent(base: str, token: str, projects: list[str], prompt: str, rounds: int) -> dict[str, Any]:
    """One stream alone (median of `rounds`), then len(projects) streams at once."""
    headers = {"authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        alone = []
        for i in range(rounds + 1):
            took = http_stream(client, prompt, projects[0], "complete")
            if prompt == EDITING:
                client.post(f"api/v1/projects/{projects[0]}/undo").raise_for_status()
            if i:
                alone.append(took["ms"])
    results: list[dict[str, Any]] = [{} for _ in projects]
    barrier = threading.Barrier(len(projects))

    def one(i: int) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
            # connected, and the project open (as the one alone is), before the start
            client.get(f"api/v1/projects/{projects[i]}", params={"notes": False}).raise_for_status()
            barrier.wait()
            try:
                results[i] = http_stream(client, prompt, projects[i], "complete")
            except (RuntimeError, httpx.HTTPError) as exc:
                results[i] = {"error": str(exc)}

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(projects))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if not all(r.get("event", {}).get("success") for r in results):
        raise RuntimeError(f"a concurrent stream failed: {[r.get('error') for r in results]}")
    each = [r["ms"] for r in results]
    alone_median = statistics.median(alone)
    return {"alone_ms": _figure(alone), "each_ms": _figure(each),
            "first_event_ms": _figure([r["first_ms"] for r in results]),
            "p95_over_alone": round(_p95(each) / alone_median, 2),
            # the work of N streams shared by the cores: no server does better than this on CPU-bound work
            "p95_over_fair_share": round(_p95(each) / (alone_median * len(projects) / (os.cpu_count() or 1)), 2),
            "ok": _p95(each) <= CONCURRENT_RATIO * alone_median}


def _copy(n: int) -> str:
    """The id of the n-th copy of the project (ids look like session-20260101-abc123)."""
    return f"session-20260101-c0{n:04d}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    from bandstand.producer.sessions.studio import Studio

    with tempfile.TemporaryDirectory(prefix="bandstand-api-bench-") as tmp:
        root = Path(tmp)
        served_out, local_out = root / "served", root / "local"
        project = compose_project(served_out)
        for n in range(1, CONCURRENT):
            shutil.copytree(served_out / project, served_out / _copy(n))
        shutil.copytree(served_out / project, local_out / project)

        studio = Studio(local_out)
        local = figures(lambda p, pid, until: local_stream(studio, p, pid, until),
                        lambda pid: studio.library.session(pid).undo(1), project, args.rounds)

        with serve(served_out) as (base, token, proc):
            with httpx.Client(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=120) as client:
                http = figures(lambda p, pid, until: http_stream(client, p, pid, until),
                               lambda pid: client.post(f"api/v1/projects/{pid}/undo").raise_for_status(),
                               project, args.rounds)
            projects = [project] + [_copy(n) for n in range(1, CONCURRENT)]
            editing = concurrent(base, token, projects, EDITING, args.rounds)
            question = concurrent(base, token, projects, QUESTION, args.rounds)
            alive = proc.poll() is None

    report: dict[str, Any] = {"rounds": args.rounds, "cpus": os.cpu_count(), "server_alive": alive,
                              "load_average_1min": round(os.getloadavg()[0], 2)}
    for name, budget in BUDGETS.items():
        report[name] = {"http": http[name], "in_process": local[name], "budget_ms": budget,
                        "http_over_inprocess": round(http[name]["median"] / local[name]["median"], 2),
                        "ok": http[name]["median"] <= budget}
    report["concurrent_20"] = {"editing_5_tools": editing, "question": question,
                               "budget": f"p95 of each ≤ {CONCURRENT_RATIO:g} × one alone"}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

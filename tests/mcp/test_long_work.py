"""Long tools report progress as MCP progress notifications; a client's cancel stops the
work at its next safe point with nothing half-made kept; a tool stuck waiting does not
hold up other calls."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from bandstand.mcp import BandstandServer
from bandstand.runtime.runs import list_runs
from bandstand.studio import RevisionStore


def progress_log() -> tuple[list[tuple[float, float | None, str | None]], Any]:
    seen: list[tuple[float, float | None, str | None]] = []

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
    return seen, heard


def status(session: Path) -> str | None:
    from bandstand.compose.checkpoint import FileCheckpoint
    from bandstand.errors import BandstandError

    try:
        return FileCheckpoint.in_session(session).load().status
    except (OSError, BandstandError):
        return None


def wait_for(condition: Any, what: str, seconds: float = 120) -> None:
    """Wait until `condition()` holds (the cancelled work ends on its own thread)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


async def test_compose_reports_each_node_as_progress(call: Any, root: Path) -> None:
    seen, heard = progress_log()
    answer = await call("compose", progress=heard, prompt="deep house", bars=8, seed=5, audio=False)
    assert not answer.is_error, answer.content[0].text
    done = [p for p, _, _ in seen]
    assert done == sorted(set(done)) and done[0] == 1  # strictly increasing
    assert seen[-1][0] == seen[-1][1]  # the last one says: all of it
    messages = [m for _, _, m in seen]
    assert messages[0].startswith("✓ intent") and messages[-1].startswith("✓ output")
    assert any(m.startswith("✓ parts:bass") for m in messages)
    data = answer.structured_content
    assert data["status"] == "completed" and (root / data["project"] / "revisions").is_dir()
    assert [c.uri for c in answer.content[1:]] == [
        f"bandstand://projects/{data['project']}/files/{p}" for p in
        ("midi/full-arrangement.mid", "images/pianoroll.png", "notes/lead-sheet.musicxml", "notes/producer-notes.md")]


async def test_cancelling_compose_stops_it_resumable_and_nothing_becomes_a_project(server: BandstandServer,
                                                                                   root: Path) -> None:
    first = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        first.set()

    scope = anyio.CancelScope()
    async with Client(server) as client, anyio.create_task_group() as group:
        async def run() -> None:
            with scope:
                await client.call_tool("compose", {"prompt": "epic film score", "bars": 128, "seed": 1},
                                       progress_callback=heard)
        group.start_soon(run)
        await first.wait()
        scope.cancel()
        # the server answers other calls at once while the cancelled run winds down
        listed = await client.call_tool("list_projects", {})
        assert not listed.is_error
    [session] = root.iterdir()
    wait_for(lambda: status(session) in ("cancelled", "completed", "completed_partial", "failed"), "the run to stop")
    assert status(session) == "cancelled"
    assert not (session / "revisions").exists() and not (session / "audio").exists()


async def test_alternatives_report_each_take_and_a_cancel_drops_them(
        call: Any, server: BandstandServer, song: str, root: Path, caplog: pytest.LogCaptureFixture) -> None:
    seen, heard = progress_log()
    answer = await call("alternatives", progress=heard, project=song, target="bass", count=2)
    assert not answer.is_error, answer.content[0].text
    assert [(p, t) for p, t, _ in seen] == [(1, 2), (2, 2)]
    assert seen[0][2].startswith("take 1 of 2 of the bass")
    assert [a["label"] for a in answer.structured_content["alternatives"]] == ["A", "B"]

    # Cancel after the first take, while the work waits to save the next one (the test holds the
    # song's lock as another process would): it stops at its next safe point and keeps no take.
    caplog.set_level(logging.INFO, logger="bandstand.mcp")
    first = anyio.Event()
    lock = RevisionStore(root / song).lock()

    async def on_first(progress: float, total: float | None, message: str | None) -> None:
        if not first.is_set():  # hold the lock from the first take's report on: a take or two more at most
            lock.__enter__()
            first.set()

    scope = anyio.CancelScope()
    try:
        async with Client(server) as client, anyio.create_task_group() as group:
            async def run() -> None:
                with scope:
                    await client.call_tool("alternatives", {"project": song, "target": "progression", "count": 5},
                                           progress_callback=on_first)
            group.start_soon(run)
            await first.wait()
            scope.cancel()
            assert not (await client.call_tool("list_projects", {})).is_error  # the cancel has been read
    finally:
        if first.is_set():
            lock.__exit__(None, None, None)
    wait_for(lambda: "alternatives: cancelled while making" in caplog.text, "the work to stop")
    states = variation_states(root / song)
    # none of the cancelled set is kept (the takes are ranked before they are proposed)
    assert states[:2] == ["ready", "ready"] and set(states[2:]) <= {"discarded"}
    sets = json.loads((root / song / "state" / "alternatives.json").read_text())["sets"]
    assert [s["target"] for s in sets] == ["bass"]  # only the finished set


def variation_states(folder: Path) -> list[str]:
    from bandstand.producer.sessions.projects import open_project

    return [v.state for v in open_project(folder).variations()]


async def test_an_audio_export_reports_its_steps_and_a_cancel_writes_nothing(
        call: Any, server: BandstandServer, song: str, root: Path, caplog: pytest.LogCaptureFixture) -> None:
    seen, heard = progress_log()
    answer = await call("export", progress=heard, project=song, format="png")
    assert not answer.is_error
    assert [(p, t) for p, t, _ in seen] == [(0, 2), (1, 2), (2, 2)] and seen[-1][2] == "wrote 1 file"
    png = root / song / "export" / "pianoroll.png"
    assert answer.structured_content["files"] == [str(png)] and png.read_bytes()[:4] == b"\x89PNG"
    assert [c.uri for c in answer.content[1:]] == [f"bandstand://projects/{song}/files/export/pianoroll.png"]

    caplog.set_level(logging.INFO, logger="bandstand.mcp")
    rendering = anyio.Event()

    async def on_render(progress: float, total: float | None, message: str | None) -> None:
        if message == "rendering the audio":
            rendering.set()

    scope = anyio.CancelScope()
    async with Client(server) as client, anyio.create_task_group() as group:
        async def run() -> None:
            with scope:
                await client.call_tool("export", {"project": song, "format": "stems", "out": "stems-out"},
                                       progress_callback=on_render)
        group.start_soon(run)
        await rendering.wait()
        scope.cancel()
    # the render runs to its end on its own thread, then sees the cancel and writes nothing
    wait_for(lambda: "export: cancelled while rendering the audio" in caplog.text, "the render to stop", 300)
    assert not (root / song / "export" / "stems-out").exists()


async def test_a_tool_stuck_on_a_busy_session_does_not_hold_up_other_calls(server: BandstandServer, song: str,
                                                                           composed_song: Path, root: Path) -> None:
    import shutil

    other = "session-20200101-0000aa"
    shutil.copytree(composed_song, root / other)
    store = RevisionStore(root / song)
    async with Client(server) as client:
        lock = store.lock()
        lock.__enter__()  # another process is changing the song
        try:
            async with anyio.create_task_group() as group:
                stuck: list[Any] = []

                async def waits() -> None:
                    stuck.append(await client.call_tool("set_tempo", {"project": song, "tempo": 90}))
                group.start_soon(waits)
                for _ in range(3):
                    quick = await client.call_tool("set_tempo", {"project": other, "tempo": 90})
                    assert not quick.is_error
                    assert not (await client.call_tool("history", {"project": song})).is_error
                assert stuck == []  # still waiting for the lock
                lock.__exit__(None, None, None)
                lock = None
        finally:
            if lock is not None:
                lock.__exit__(None, None, None)
    assert not stuck[0].is_error and stuck[0].structured_content["revision"] == 2


async def test_a_team_composes_a_variation_reporting_each_agent(call: Any, root: Path, runs: Path) -> None:
    seen, heard = progress_log()
    answer = await call("compose", progress=heard, prompt="funk groove in E minor", bars=16, seed=3, team=True,
                        audio=False)
    assert not answer.is_error, answer.content[0].text
    data = answer.structured_content
    assert data["team"] is True and data["accepted"] is False and data["variation_id"]
    assert (root / data["project"] / "revisions").is_dir() and answer.content[1:] == []  # nothing at HEAD yet
    log = Path(data["log"])  # the run log, as `bandstand compose --team` writes it: the log view lists it
    assert [r.name for r in list_runs(runs)] == [log.name] and log.parent == runs
    said = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert {"coordinator", "team"} <= {e["session"] for e in said}
    assert sum(e["type"] == "agentComplete" for e in said) == len(seen)
    done = [p for p, _, _ in seen]
    assert done == list(range(1, len(seen) + 1)) and seen[-1][0] == seen[-1][1]
    assert seen[0][2] is not None and seen[0][2].startswith("✓ coordinator: ")
    assert any(m is not None and m.startswith("✓ drums/") for _, _, m in seen)
    waiting = (await call("list_variations", project=data["project"])).structured_content["variations"]
    assert [v["variation_id"] for v in waiting] == [data["variation_id"]]
    accepted = await call("accept_variation", project=data["project"])
    assert not accepted.is_error and accepted.structured_content["revision"] == data["revision"] + 1
    assert "midi/full-arrangement.mid" in [c.name for c in accepted.content[1:]]

    refused = await call("compose", prompt="house", accept=True)
    assert refused.is_error and refused.content[0].text == "accept goes with team (a team's song is a variation to accept)"


async def test_cancelling_a_team_stops_every_agent_and_proposes_nothing(
        server: BandstandServer, root: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bandstand.mcp")
    first = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        first.set()

    scope = anyio.CancelScope()
    async with Client(server) as client, anyio.create_task_group() as group:
        async def run() -> None:
            with scope:
                await client.call_tool("compose", {"prompt": "epic film score", "bars": 256, "seed": 1, "team": True,
                                                   "parts": ["drums", "bass", "chords", "lead", "pad", "arp",
                                                             "percussion", "counter_melody"]},
                                       progress_callback=heard)
        group.start_soon(run)
        await first.wait()
        scope.cancel()
        assert not (await client.call_tool("list_projects", {})).is_error  # the server answers at once
    wait_for(lambda: "compose: cancelled while composing with a team" in caplog.text, "the team to stop")
    [session] = root.iterdir()  # the team's empty project (revision 1), with no variation
    assert variation_states(session) == []

"""`ask` answers from the project's figures (as `bandstand ask` does); the jam tools start, direct, read and stop
a jam played by the built-in musicians on the server's loop, and save its recording."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import mido
import pytest
from mcp import Client

from bandstand.cli import run
from bandstand.mcp import BandstandServer
from bandstand.mcp.band import Band
from bandstand.producer.requests.ask import answer
from bandstand.producer.sessions.projects import open_project


async def test_ask_answers_from_the_figures_as_the_cli_does_and_changes_nothing(
        call: Any, song: str, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = await call("ask", project=song, question="what key is this in?")
    assert not said.is_error, said.content[0].text
    data = said.structured_content
    expected = answer(open_project(root / song).head, "what key is this in?")
    assert (data["answer"], data["reasoning"]) == (expected.content, list(expected.reasoning))
    assert "E minor" in data["answer"]
    # (the CLI runs its own event loop: on a thread of its own, as in a shell)
    assert await anyio.to_thread.run_sync(run, ["ask", str(root / song), "what key is this in?", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"kind": "answer", "answer": data["answer"],
                                                  "reasoning": data["reasoning"]}
    assert open_project(root / song).revision == 1
    missing = await call("ask", project=song)
    assert missing.is_error and missing.content[0].text == "question is missing; ask(project, question)"
    request = await call("ask", project=song, question="make the bass busier")
    assert request.is_error
    assert run(["ask", str(root / song), "make the bass busier"]) == 2
    assert request.content[0].text == capsys.readouterr().err.strip().removeprefix("bandstand: error: ")


async def test_a_jam_over_mcp(server: BandstandServer, band: Band, root: Path) -> None:
    async with Client(server) as client:
        early = await client.call_tool("jam_direct", {"text": "more energy"})
        assert early.is_error and early.content[0].text == "start the jam before giving directives"
        started = await client.call_tool("jam_start", {"members": ["BEAT", "GROOVE"]})
        assert not started.is_error, started.content[0].text
        state = started.structured_content
        assert state["running"] is True and state["type"] == "jam_state_update"
        directed = await client.call_tool("jam_direct", {"text": "@GROOVE busier"})
        assert directed.structured_content["accepted"] == "@GROOVE busier"
        wrong = await client.call_tool("jam_direct", {"text": "@NOBODY louder"})
        assert wrong.is_error and "NOBODY" in wrong.content[0].text
        deadline = time.monotonic() + 60
        while (now := (await client.call_tool("jam_state", {})).structured_content)["round"] < 1:
            assert time.monotonic() < deadline, "no round was played"
            await anyio.sleep(0.05)
        assert now["running"] and now["errors"] == [] and now["combined_pattern"]
        while not band.jam().transport.played:  # a round can come before the first cycle sounds
            assert time.monotonic() < deadline, "no cycle was played"
            await anyio.sleep(0.05)
        stopped = await client.call_tool("jam_stop", {})
        assert not stopped.is_error, stopped.content[0].text
    data = stopped.structured_content
    assert data["running"] is False
    folder = Path(data["recording"]["folder"])
    assert folder.parent == (root / "jams").resolve()
    assert {Path(f).name for f in data["recording"]["files"]} == {"jam.mid", "transcript.md", "rounds.jsonl"}
    first = json.loads((folder / "rounds.jsonl").read_text().splitlines()[0])
    assert set(first["members"]) == {"BEAT", "GROOVE"}  # who was asked to play
    midi = mido.MidiFile(folder / "jam.mid")
    assert sum(1 for t in midi.tracks for m in t if m.type == "note_on" and m.velocity) > 0


async def test_a_kept_jam_is_a_project_the_studio_tools_direct(server: BandstandServer, root: Path) -> None:
    async with Client(server) as client:
        early = await client.call_tool("jam_keep", {})
        assert early.is_error and "nothing recorded yet" in early.content[0].text
        assert not (await client.call_tool("jam_start", {"members": ["BEAT", "GROOVE"]})).is_error
        deadline = time.monotonic() + 60
        while (kept := await client.call_tool("jam_keep", {"title": "Kept"})).is_error:  # until a cycle has played
            assert time.monotonic() < deadline, kept.content[0].text
            await anyio.sleep(0.1)
        await client.call_tool("jam_stop", {"save": False})
        song = kept.structured_content
        assert song["form"][0] == "intro" and song["form"][-1] == "outro" and song["revision"] == 1
        listed = (await client.call_tool("list_projects", {})).structured_content
        assert song["project"] in json.dumps(listed)
        said = await client.call_tool("ask", {"project": song["project"], "question": "what key is this in?"})
        assert not said.is_error and "C minor" in said.structured_content["answer"]
    assert open_project(root / song["project"]).head.name == "Kept"

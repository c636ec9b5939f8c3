"""What an MCP client does with bandstand, step by step, checked as it goes — shared by
the stdio and the streamable-HTTP tests (each drives a real server process)."""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path
from typing import Any

import anyio
import mido

from bandstand.studio.tools import TOOLS

BAND = {"compose", "edit", "list_variations", "accept_variation", "discard_variation", "undo", "redo", "history",
        "alternatives", "export", "list_projects", "ask", "jam_start", "jam_direct", "jam_state", "jam_stop",
        "jam_keep"}


def notes_in(data: bytes) -> int:
    return sum(1 for track in mido.MidiFile(file=io.BytesIO(data)).tracks for m in track
               if m.type == "note_on" and m.velocity)


async def tools_match_the_registry(client: Any) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert BAND | set(TOOLS.names()) <= set(tools)
    for tool in TOOLS:
        schema = tools[tool.name].input_schema
        registry = tool.schema()["parameters"]
        assert {k: v for k, v in schema["properties"].items() if k != "project"} == registry["properties"]
        assert schema["required"] == ["project", *registry.get("required", [])]


async def compose_edit_accept_undo_export(client: Any, out: Path) -> str:
    """The song's whole life over MCP; returns its project id."""
    progress: list[tuple[float, float | None, str | None]] = []

    async def heard(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    made = await client.call_tool("compose", {"prompt": "funk groove in E minor", "bars": 16, "seed": 3,
                                              "audio": False}, progress_callback=heard)
    assert not made.is_error, made.content[0].text
    song = made.structured_content["project"]
    folder = out / song
    assert made.structured_content["session_dir"] == str(folder.resolve()) or (folder / "manifest.json").is_file()
    assert progress and progress[-1][0] == progress[-1][1] and progress[-1][2].startswith("✓ output")
    assert [c.type for c in made.content] == ["text", *["resource_link"] * (len(made.content) - 1)]
    first_bass = (folder / "midi" / "bass.mid").read_bytes()

    edit = await client.call_tool("edit", {"project": song, "request": "make the bass busier"})
    assert not edit.is_error, edit.content[0].text
    proposal = edit.structured_content
    assert proposal["kind"] == "variation" and "bass" in proposal["affected_parts"]
    assert proposal["diff"]["drums"] == "unchanged" and proposal["diff"]["bass"] != "unchanged"
    assert (folder / "midi" / "bass.mid").read_bytes() == first_bass  # nothing changes before accept

    listed = await client.call_tool("list_variations", {"project": song})
    [waiting] = listed.structured_content["variations"]
    assert waiting["variation_id"] == proposal["variation_id"] and waiting["state"] == "ready"

    accepted = await client.call_tool("accept_variation", {"project": song, "variation_id": proposal["variation_id"][:8]})
    assert not accepted.is_error, accepted.content[0].text
    assert accepted.structured_content["revision"] == 2
    busier = (folder / "midi" / "bass.mid").read_bytes()
    assert notes_in(busier) > notes_in(first_bass)

    undone = await client.call_tool("undo", {"project": song})
    assert undone.structured_content["revision"] == 1
    assert (folder / "midi" / "bass.mid").read_bytes() == first_bass
    history = (await client.call_tool("history", {"project": song})).structured_content["history"]
    assert [(h["revision"], h["undone"], h["head"]) for h in history] == [(1, False, True), (2, True, False)]
    redone = await client.call_tool("redo", {"project": song})
    assert redone.structured_content["revision"] == 2 and (folder / "midi" / "bass.mid").read_bytes() == busier

    exported = await client.call_tool("export", {"project": song, "format": "mid"})
    assert not exported.is_error, exported.content[0].text
    files = [Path(f) for f in exported.structured_content["files"]]
    assert {f.name for f in files} >= {"full-arrangement.mid", "bass.mid", "drums.mid"}
    assert notes_in((folder / "export" / "bass.mid").read_bytes()) == notes_in(busier)
    full = mido.MidiFile(folder / "export" / "full-arrangement.mid")
    parts = [f for f in files if f.suffix == ".mid" and f.name != "full-arrangement.mid"]  # one file a part
    assert len(parts) >= 4 and len(full.tracks) == len(parts) + 1 and notes_in((folder / "export" / "full-arrangement.mid").read_bytes()) > 300

    steps: list[str | None] = []

    async def step(done: float, total: float | None, message: str | None) -> None:
        steps.append(message)

    wav = await client.call_tool("export", {"project": song, "format": "wav"}, progress_callback=step)
    assert not wav.is_error, wav.content[0].text
    assert steps[:2] == ["reading the song", "rendering the audio"] and steps[-2:] == ["writing wav", "wrote 1 file"]
    assert any(str(s).startswith("played ") for s in steps[2:-2]), steps  # the render's parts, as they are played
    data = (folder / "export" / "full-arrangement.wav").read_bytes()
    assert data[:4] == b"RIFF" and len(data) > 100_000
    assert [c.uri for c in wav.content[1:]] == [f"bandstand://projects/{song}/files/export/full-arrangement.wav"]
    return song


async def resources_read_back(client: Any, song: str, out: Path) -> None:
    head = json.loads((await client.read_resource(f"bandstand://projects/{song}")).contents[0].text)
    assert head["revision"] == 2 and {t["role"] for t in head["tracks"]} >= {"drums", "bass"}
    history = json.loads((await client.read_resource(f"bandstand://projects/{song}/history")).contents[0].text)
    assert [h["revision"] for h in history] == [1, 2]
    midi = (await client.read_resource(f"bandstand://projects/{song}/files/midi/bass.mid")).contents[0]
    assert midi.mime_type == "audio/midi"
    assert base64.b64decode(midi.blob) == (out / song / "midi" / "bass.mid").read_bytes()


async def mistakes_are_one_line_and_the_server_goes_on(client: Any, song: str) -> None:
    answer = await client.call_tool("set_track_volume", {"project": song, "track": "bas", "volume": 0.7})
    assert answer.is_error and answer.content[0].text == "call 0 (set_track_volume): no track 'bas'; did you mean 'Bass'?"
    answer = await client.call_tool("history", {"project": song[:-1]})
    assert answer.is_error and answer.content[0].text.endswith(f"; did you mean '{song}'?")
    answer = await client.call_tool("accept_variation", {"project": song, "variation_id": "ffffffff"})
    assert answer.is_error and "is not a variation of this session" in answer.content[0].text
    answer = await client.call_tool("compose", {"prompt": "house", "bars": "many"})
    assert answer.is_error and answer.content[0].text.startswith("bars: Input should be a valid integer")
    answer = await client.call_tool("exprot", {"project": song, "format": "mid"})
    assert answer.is_error and answer.content[0].text == "unknown tool 'exprot'; did you mean 'export'?"
    assert not (await client.call_tool("list_projects", {})).is_error


async def a_cancelled_compose_stops(client: Any, out: Path) -> None:
    """Cancel a long compose at its first progress; the server answers at once and the run
    stops at its next node (resumable), never becoming a project."""
    from bandstand.compose.checkpoint import FileCheckpoint

    before = set(out.iterdir()) if out.exists() else set()
    first = anyio.Event()

    async def heard(done: float, total: float | None, message: str | None) -> None:
        first.set()

    scope = anyio.CancelScope()
    async with anyio.create_task_group() as group:
        async def run() -> None:
            with scope:
                await client.call_tool("compose", {"prompt": "epic film score", "bars": 128, "seed": 1},
                                       progress_callback=heard)
        group.start_soon(run)
        await first.wait()
        scope.cancel()
    assert not (await client.call_tool("list_projects", {})).is_error
    [session] = set(out.iterdir()) - before
    deadline = time.monotonic() + 120
    status = None
    while status not in ("cancelled", "completed", "completed_partial", "failed"):
        assert time.monotonic() < deadline, f"the cancelled run did not stop (status {status})"
        await anyio.sleep(0.05)
        try:
            status = FileCheckpoint.in_session(session).load().status
        except Exception:
            status = None
    assert status == "cancelled" and not (session / "revisions").exists()


async def ask_and_jam(client: Any, song: str) -> None:
    """A question answered from the song's figures; a jam started, directed, read and stopped."""
    said = await client.call_tool("ask", {"project": song, "question": "which chords are in the chorus?"})
    assert not said.is_error, said.content[0].text
    assert said.structured_content["answer"].startswith("The Chorus (bars ") and said.structured_content["reasoning"]
    started = await client.call_tool("jam_start", {"members": ["BEAT", "GROOVE"]})
    assert not started.is_error and started.structured_content["running"] is True
    assert not (await client.call_tool("jam_direct", {"text": "more energy"})).is_error
    deadline = time.monotonic() + 60
    while (await client.call_tool("jam_state", {})).structured_content["round"] < 1:
        assert time.monotonic() < deadline, "the band played no round"
        await anyio.sleep(0.05)
    stopped = await client.call_tool("jam_stop", {"save": False})
    assert stopped.structured_content["running"] is False and stopped.structured_content["recording"] is None

"""Resources: the projects, a project at HEAD, its history, variations and files (read
back: MIDI by mido, the piano roll as PNG, a stale WAV rendered for HEAD first); unknown
projects and files are refused in one line; the prompts."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import mido
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from bandstand.mcp import BandstandServer
from bandstand.producer.sessions.projects import open_project


async def read(server: BandstandServer, uri: str) -> Any:
    async with Client(server) as client:
        return (await client.read_resource(uri)).contents[0]


async def test_the_project_at_head_and_its_history_follow_the_tools(server: BandstandServer, call: Any,
                                                                    song: str, root: Path) -> None:
    listed = json.loads((await read(server, "bandstand://projects")).text)
    assert [p["projectId"] for p in listed["projects"]] == [song] and listed["root"] == str(root)
    assert not (await call("set_track_volume", project=song, track="bass", volume=0.5)).is_error
    head = await read(server, f"bandstand://projects/{song}")
    assert head.mime_type == "application/json"
    project = json.loads(head.text)
    assert project == open_project(root / song).head.model_dump(mode="json")
    assert next(t for t in project["tracks"] if t["role"] == "bass")["volume"] == 0.5
    history = json.loads((await read(server, f"bandstand://projects/{song}/history")).text)
    assert [(h["revision"], h["author"], h["head"]) for h in history] == [(1, "compose", False), (2, "mcp", True)]
    assert not (await call("edit", project=song, request="simpler drums")).is_error
    variations = json.loads((await read(server, f"bandstand://projects/{song}/variations")).text)
    assert [v["state"] for v in variations] == ["ready"] and variations[0]["diff"]["drums"] != "unchanged"


async def test_the_files_are_listed_and_read_back(server: BandstandServer, song: str, root: Path) -> None:
    listing = json.loads((await read(server, f"bandstand://projects/{song}/files")).text)
    paths = {f["path"]: f for f in listing["files"]}
    assert {"midi/full-arrangement.mid", "midi/bass.mid", "images/pianoroll.png", "notes/lead-sheet.musicxml",
            "manifest.json"} <= set(paths)
    assert not any(p.startswith(("revisions/", "variations/")) for p in paths)
    full = paths["midi/full-arrangement.mid"]
    assert full["uri"] == f"bandstand://projects/{song}/files/midi/full-arrangement.mid"
    assert full["mime_type"] == "audio/midi" and full["bytes"] == (root / song / "midi/full-arrangement.mid").stat().st_size
    midi = await read(server, full["uri"])
    assert midi.mime_type == "audio/midi"
    data = base64.b64decode(midi.blob)
    assert data == (root / song / "midi/full-arrangement.mid").read_bytes()
    tracks = mido.MidiFile(file=io.BytesIO(data)).tracks
    assert sum(1 for t in tracks for m in t if m.type == "note_on" and m.velocity) > 100
    png = await read(server, paths["images/pianoroll.png"]["uri"])
    assert png.mime_type == "image/png" and base64.b64decode(png.blob)[:4] == b"\x89PNG"
    sheet = await read(server, paths["notes/lead-sheet.musicxml"]["uri"])
    assert sheet.mime_type == "application/vnd.recordare.musicxml+xml"
    notes = await read(server, f"bandstand://projects/{song}/files/notes/producer-notes.md")
    assert notes.mime_type == "text/markdown" and notes.text.startswith("#")


@pytest.mark.slow
async def test_a_stale_wav_is_rendered_for_head_before_it_is_read(server: BandstandServer, call: Any,
                                                                  song: str, root: Path) -> None:
    listing = json.loads((await read(server, f"bandstand://projects/{song}/files")).text)
    assert listing["audio"]["current"] is False  # composed without audio
    wav = await read(server, f"bandstand://projects/{song}/files/audio/full-arrangement.wav")
    data = base64.b64decode(wav.blob)
    assert wav.mime_type == "audio/wav" and data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert json.loads((await read(server, f"bandstand://projects/{song}/files")).text)["audio"]["current"] is True


@pytest.mark.parametrize(("uri", "message"), [
    ("bandstand://projects/session-20200101-000000", "no project 'session-20200101-000000' in "),
    ("bandstand://projects/{song}/files/midi/kazoo.mid", "midi/kazoo.mid is not a file of {song}"),
    ("bandstand://projects/{song}/files/revisions/HEAD.json", "revisions/HEAD.json is not a file of {song}"),
])
async def test_unknown_projects_and_files_are_refused_in_one_line(server: BandstandServer, song: str, uri: str,
                                                                  message: str) -> None:
    async with Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri.format(song=song))
        assert (await client.list_resources()).resources  # and the server goes on
    assert str(caught.value).startswith(message.format(song=song))
    assert "\n" not in str(caught.value)


async def test_the_prompts_walk_through_the_common_flows(server: BandstandServer) -> None:
    async with Client(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"compose_and_refine", "direct_a_jam"}
        got = await client.get_prompt("compose_and_refine", {"idea": "late-night lo-fi", "bars": "32"})
    text = got.messages[0].content.text
    for tool in ("compose", "edit", "accept_variation", "discard_variation", "undo", "alternatives", "export"):
        assert tool in text
    assert "late-night lo-fi" in text and "bars=32" in text

"""MCP `import_midi`: a MIDI file on the server's machine becomes a project the other tools
direct (`edit` on it proposes a bass variation); a broken file is one line, an error result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from bandstand.mcp import BandstandServer

from ..producer.midi_songs import four_part_song


async def test_import_midi_makes_a_project_the_band_tools_direct(call: Any, server: BandstandServer,
                                                                 root: Path) -> None:
    four_part_song(root / "mine.mid")
    async with Client(server) as client:  # `call` takes the tool's name as `name`
        answer = await client.call_tool("import_midi", {"file": "mine.mid", "name": "Mine"})
    assert not answer.is_error, answer.content[0].text
    data = answer.structured_content
    assert [p["role"] for p in data["parts"]] == ["drums", "bass", "chords", "lead"]
    assert data["tempo"] == 100 and data["revision"] == 1 and (root / data["project"] / "revisions").is_dir()
    edit = await call("edit", project=data["project"], request="make the bass busier")
    assert not edit.is_error, edit.content[0].text
    assert edit.structured_content["affected_parts"] == ["bass"]


async def test_a_broken_file_is_one_line(call: Any, root: Path) -> None:
    (root / "broken.mid").write_bytes(b"MThd nonsense")
    answer = await call("import_midi", file="broken.mid")
    assert answer.is_error
    text = answer.content[0].text
    assert len(text.splitlines()) == 1 and "broken.mid is not a readable MIDI file" in text
    assert [p for p in root.iterdir() if p.is_dir()] == []


async def test_a_confined_server_reads_files_only_under_its_folder(root: Path, tmp_path: Path) -> None:
    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    outside = four_part_song(tmp_path / "outside.mid")
    server = build_server(Band(Library(root, folders=False)))  # as over HTTP: no folders elsewhere
    async with Client(server) as client:
        answer = await client.call_tool("import_midi", {"file": str(outside)})
    assert answer.is_error
    assert "is outside" in answer.content[0].text and "reads only under it" in answer.content[0].text
    assert [p for p in root.iterdir() if p.is_dir()] == []

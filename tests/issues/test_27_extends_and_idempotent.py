"""Issue 27: "add a melody to the intro" makes the existing Lead play there (no `lead-2`
beside it) unless an instrument is named; asking for it where the Lead already plays is an
error saying so, with what to say instead; creating the same region twice returns the
existing one with `skipped: true` (over MCP, as Maestro's idempotent tools do)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.producer.sessions.projects import open_project


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("issue27-extends")
    result = compose_song("funk groove in E minor with a synth pad", seed=3, bars=16, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return result.session_dir


@pytest.fixture
def song(composed: Path, tmp_path: Path) -> Path:
    target = tmp_path / "sessions" / composed.name
    shutil.copytree(composed, target)
    return target


def _edit(song: Path, request: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", "edit", str(song), request, "--json"],
                          capture_output=True, text=True, timeout=300)


def test_a_melody_where_the_lead_is_silent_extends_the_lead(song: Path) -> None:
    sections = {s.name: s for s in open_project(song).head.sections}
    assert sections["Intro"].start_bar == 1
    done = _edit(song, "add a melody to the intro")
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert made["affected_parts"] == ["lead"] and "lead-2" not in done.stdout
    assert any("existing lead now plays in the intro" in n for n in made["notes"])
    assert {p["part"] for p in made["phrases"]} == {"Lead"} and {p["bars"][0] for p in made["phrases"]} == {1}


def test_a_melody_where_the_lead_already_plays_says_so_and_an_instrument_is_a_new_part(song: Path) -> None:
    refused = _edit(song, "add a melody to the chorus")
    assert refused.returncode == 2 and "the lead already plays in the chorus" in refused.stderr
    assert "regenerate the lead in the chorus" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    flute = _edit(song, "add a flute to the chorus")
    assert flute.returncode == 0, flute.stderr
    assert json.loads(flute.stdout)["affected_parts"] == ["lead-2"]  # a named instrument is a part of its own
    assert open_project(song).head.revision == 1


def test_creating_the_same_region_twice_returns_it_skipped(song: Path) -> None:
    pytest.importorskip("mcp.server", reason="the mcp extra")
    import anyio
    from mcp import Client

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    server = build_server(Band(Library(song.parent, folders=True)))
    args = {"project": song.name, "track": "Lead", "start_beat": 200, "length_beats": 8}

    async def twice() -> tuple[object, object, object]:
        async with Client(server) as client:
            first = await client.call_tool("add_midi_region", args)
            again = await client.call_tool("add_midi_region", args)
            overlapping = await client.call_tool("add_midi_region", {**args, "start_beat": 204})
            return first, again, overlapping

    first, again, overlapping = anyio.run(twice)
    assert not first.is_error and not again.is_error, (first, again)  # type: ignore[attr-defined]
    made = first.structured_content["results"][0]["result"]  # type: ignore[attr-defined]
    same = again.structured_content["results"][0]["result"]  # type: ignore[attr-defined]
    assert same["skipped"] is True and same["region_id"] == made["region_id"] and "skipped" not in made
    assert again.structured_content["changed"] is False  # type: ignore[attr-defined]
    assert overlapping.is_error and "overlap" in overlapping.content[0].text  # type: ignore[attr-defined]

"""The jam through `App`, as every client reaches it (#29): a jam of the built-in musicians made,
started, directed, read, a recording file written, kept as a song, stopped with its recording in a
folder `App` chooses, that recording made a song; a headless jam recorded as a project; the band's
makers. Real jams, offline: the cycles are advanced here instead of waited for."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bandstand.errors import Conflict, InvalidInput, NotFound, OutputNotWritable
from bandstand.producer import App
from bandstand.producer.app import HeadlessJam, JamRecording, JamSongRequest
from bandstand.producer.sessions.projects import open_project
from bandstand.protocol import Emitter

if TYPE_CHECKING:
    from bandstand.producer.app import LiveJam

KEYS = """---
name: KEYS
role: melody
aliases: [keys]
---
You are KEYS, a soul organ player who comps behind everyone else.
"""


async def _played(app: App, members: list[str], cycles: int = 8) -> LiveJam:
    """A started jam of `members` with `cycles` cycles played."""
    jam = app.new_jam(members, seed=3)
    await app.start_jam(jam)
    assert jam.transport is not None
    for _ in range(cycles):
        jam.transport.advance()
    return jam


async def test_a_jam_through_the_app_is_started_directed_kept_and_stopped_with_its_recording(tmp_path: Path) -> None:
    app = App(tmp_path)
    jam = app.new_jam(["beat", "groove"], seed=3)
    assert app.jam_state(jam)["running"] is False
    with pytest.raises(Conflict, match="start the jam"):
        app.direct_jam(jam, "more energy")
    with pytest.raises(NotFound, match="nothing recorded yet"):
        await app.keep_jam(jam)
    started = await app.start_jam(jam, ["BEAT", "GROOVE"])
    assert started["running"] is True and started["type"] == "jam_state_update"
    with pytest.raises(Conflict, match="already playing"):
        await app.start_jam(jam)
    with pytest.raises(InvalidInput, match="@TUBA"):
        app.direct_jam(jam, "@TUBA play")
    errors: list[str] = []
    assert app.direct_jam(jam, "more energy", errors.append)["accepted"] == "more energy"
    for _ in range(200):
        if app.jam_state(jam)["context"]["energy"] != 5:
            break
        await asyncio.sleep(0.02)
    assert app.jam_state(jam)["context"]["energy"] == 7 and errors == []
    assert jam.transport is not None
    for _ in range(8):
        jam.transport.advance()

    written = await app.jam_file(jam, "transcript.md", tmp_path / "files")
    assert written.path == tmp_path / "files" / "transcript.md" and written.path.is_file()
    assert written.media_type == "text/markdown; charset=utf-8"
    with pytest.raises(NotFound, match="no such recording file"):
        await app.jam_file(jam, "jam.exe", tmp_path / "files")

    kept = await app.keep_jam(jam, title="kept live")
    project = kept.session.session_dir
    assert project.parent == tmp_path and (tmp_path / "jams" / project.name / "jam.mid").is_file()
    assert kept.form[0] == "intro" and kept.form[-1] == "outro" and kept.summary()["project"] == project.name
    assert open_project(project).head.name == "kept live"

    stopped = await app.stop_jam(jam, JamRecording(audio=False))
    assert stopped["running"] is False
    folder = Path(stopped["recording"]["folder"])
    assert folder.parent == (tmp_path / "jams").resolve() and folder.name.startswith("jam-")
    assert {Path(f).name for f in stopped["recording"]["files"]} == {"jam.mid", "transcript.md", "rounds.jsonl"}
    assert set(json.loads((folder / "rounds.jsonl").read_text().splitlines()[0])["members"]) == {"BEAT", "GROOVE"}

    song = app.jam_to_song(JamSongRequest(folder, tmp_path / "song", title="from the recording"))
    assert song.session.session_dir == tmp_path / "song" and song.session.revision == 1
    assert song.form[0] == "intro" and song.form[-1] == "outro"
    assert app.jam_to_song(JamSongRequest(folder)).session.session_dir == folder / "song"
    with pytest.raises(InvalidInput, match="already a project"):
        app.jam_to_song(JamSongRequest(folder, tmp_path / "song"))
    with pytest.raises(NotFound, match="no jam recording"):
        app.jam_to_song(JamSongRequest(tmp_path / "files"))


async def test_a_jam_stopped_without_saving_records_nothing(tmp_path: Path) -> None:
    app = App(tmp_path)
    jam = await _played(app, ["beat"], cycles=2)
    stopped = await app.stop_jam(jam, JamRecording(save=False))
    assert stopped["running"] is False and stopped["recording"] is None and not (tmp_path / "jams").exists()
    unplayed = app.new_jam(["groove"])
    assert (await app.stop_jam(unplayed))["recording"] is None and not (tmp_path / "jams").exists()


async def test_a_servers_band_jam_plays_its_personas_and_sends_its_events(tmp_path: Path) -> None:
    app = App(tmp_path)
    persona = tmp_path / "keys.md"
    persona.write_text(KEYS, encoding="utf-8")
    keys = App.load_persona(persona)
    band = App.jam_members(["beat", "keys"], [keys])
    assert [p.name for p in band] == ["BEAT", "KEYS"]
    assert [p.name for p in App.jam_members(None, [keys])][-1] == "KEYS"  # the default band and the persona
    with pytest.raises(InvalidInput, match="unknown band member 'tuba'"):
        App.jam_members(["tuba"])
    emitter, heard = Emitter(), []
    emitter.subscribe(heard.append)
    jam = app.band_jam(band, emitter=emitter, backend=App.jam_backend("algorithmic", band, ["KEYS=algorithmic"]),
                       autopilot=False)
    state = await app.start_jam(jam)
    assert [m["name"] for m in state["members"]] == ["BEAT", "KEYS"] and state["autopilot"] is False
    assert any(m["type"] == "jam_state_update" and m["running"] for m in heard)
    await app.stop_jam(jam, JamRecording(save=False))
    with pytest.raises(InvalidInput, match="write NAME=BACKEND"):
        App.jam_backend("algorithmic", band, ["KEYS"])


async def test_a_headless_jam_is_checked_first_and_recorded_as_a_project(tmp_path: Path) -> None:
    app = App(tmp_path)
    band = App.jam_members(["beat", "groove"])
    lines: list[str] = []
    summary = await app.record_jam(band, HeadlessJam(tmp_path / "rec", directives=("2:more energy",), cycles=4,
                                                     wav=False), echo=lines.append)
    assert summary["cycles"] == 4 and summary["rounds"] >= 2 and any("more energy" in line for line in lines)
    assert summary["project"]["path"] == str(tmp_path / "rec") and summary["project"]["revision"] == 1
    assert (tmp_path / "rec" / "jam.mid").is_file() and not (tmp_path / "rec" / "jam.wav").exists()
    heard = len(lines)
    app.jam_to_song(JamSongRequest(tmp_path / "rec", tmp_path / "song"))  # a project that is not a jam's take
    with pytest.raises(InvalidInput, match="holds a studio project"):
        await app.record_jam(band, HeadlessJam(tmp_path / "song", cycles=1, wav=False), echo=lines.append)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OutputNotWritable, match="is a file"):
        await app.record_jam(band, HeadlessJam(tmp_path / "file" / "rec", cycles=1, wav=False), echo=lines.append)
    assert len(lines) == heard  # refused before any sound
    again = await app.record_jam(band, HeadlessJam(tmp_path / "rec", cycles=2, wav=False), echo=lines.append)
    assert again["project"]["revision"] == 1  # a jam's own first take is replaced

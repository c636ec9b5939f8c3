"""`App.desk()`, the studio's reads and tools as every client reaches them (#29): a project's history and
variations with the JSON clients print, a studio tool applied by name, the tool registry and how a mistake is
said, an export and where it goes, alternatives, and which language model a `--backend` names — on real
session folders, read back from disk."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import mido
import pytest
from pydantic import BaseModel, ValidationError

from bandstand.errors import ConfigError, InvalidInput, NotFound, OutputNotWritable, ToolCallError
from bandstand.producer import App
from bandstand.producer.app import ExportRequest
from bandstand.producer.sessions.projects import ProjectSession

PROJECT = "session-20260101-abc123"


@pytest.fixture
def songs(session: ProjectSession, tmp_path: Path) -> Path:
    """A projects folder holding the small song as the project `PROJECT`."""
    root = tmp_path / "songs"
    shutil.copytree(session.session_dir, root / PROJECT)
    return root


def test_a_tool_by_name_then_the_history_and_the_files_it_shows(songs: Path) -> None:
    desk = App(songs).desk()
    applied = desk.apply_tool(PROJECT, "set_track_volume", {"track": "bass", "volume": 0.7}, author="mcp")
    assert applied.outcome.revision == 2 and applied.session.session_dir == songs / PROJECT
    data = applied.to_json()
    assert data["revision"] == 2 and data["changed"] is True
    assert [c["label"] for c in data["changes"]] == ["Bass volume"]

    read = desk.apply_tool(PROJECT, "read_project", {}, author="mcp")  # reading makes no revision
    assert read.outcome.entry is None and read.to_json()["changed"] is False

    history = desk.history(PROJECT)
    assert (history.project, history.head) == (PROJECT, 2)
    rows = history.rows_json()
    assert [r["revision"] for r in rows] == [1, 2] and rows[-1]["request"] == "tool set_track_volume"
    assert rows[-1]["head"] is True and rows[-1]["author"] == "mcp"
    assert history.to_json() == {"project": PROJECT, "head": 2, "history": rows}

    # the same project through its folder, as the CLI names it: the same rows
    assert App().desk().history(songs / PROJECT).rows_json() == rows

    moved = desk.moved(applied.session, applied.session.store.entry(2))
    assert list(moved) == ["revision", "request", "summary", "variation_id", "changes", "audio"]
    assert moved["audio"] == {"file": str(songs / PROJECT / "audio" / "full-arrangement.wav"), "current": False}


def test_types_strictly_or_as_the_cli_reads_them(songs: Path) -> None:
    desk = App(songs).desk()
    with pytest.raises(ToolCallError, match="volume"):
        desk.apply_tool(PROJECT, "set_track_volume", {"track": "bass", "volume": "0.5"}, author="mcp", strict=True)
    assert desk.history(PROJECT).head == 1  # refused: nothing changed
    with pytest.raises(NotFound, match="no project"):
        desk.apply_tool("session-20260101-zzzzzz", "read_project", {}, author="mcp")


def test_the_variations_a_change_in_words_leaves(composed_copy: Callable[..., Path]) -> None:
    root = composed_copy("funk groove", 3, 32)
    app = App(root.parent)
    made = app.desk().alternatives(root.name, "bass", count=2)
    assert len(made.alternatives) == 2
    listed = app.desk().variations(root.name)
    assert listed.project == root.name and listed.head == 1
    assert [v.id for v in listed.variations] == [a.variation.id for a in made.alternatives]
    rows = listed.rows_json()
    assert [r["variation_id"] for r in rows] == [a.variation.id for a in made.alternatives]
    assert all(r["stale"] is False and "recipe" not in r for r in rows)
    assert listed.to_json() == {"project": root.name, "head": 1, "variations": rows}
    assert any("bass" in line.lower() for line in listed.diff_lines(listed.variations[0]))


def test_an_export_goes_where_its_caller_may_write(songs: Path, tmp_path: Path) -> None:
    desk = App(songs).desk()
    done = desk.export(PROJECT, "mid", "mix-2")  # a project by id: under its own export/ folder
    assert done.out_dir == songs / PROJECT / "export" / "mix-2"
    assert all(mido.MidiFile(f).tracks for f in done.files)
    assert App(songs).export(ExportRequest(PROJECT, "mid", "mix-2")).files == done.files  # App.export is this
    with pytest.raises(InvalidInput, match="outside the project"):
        desk.export(PROJECT, "mid", str(tmp_path / "elsewhere"))
    with pytest.raises(InvalidInput, match="climbs out"):
        desk.export_folder(PROJECT, "../x")
    assert desk.export_folder(PROJECT, "page") == songs / PROJECT / "export" / "page"

    anywhere = tmp_path / "anywhere"  # the local user names the folder itself: any folder
    mine = App().desk().export(songs / PROJECT, "mid", anywhere)
    assert mine.out_dir == anywhere and {f.name for f in mine.files} == {f.name for f in done.files}
    assert "mid" in desk.export_formats() and "strudel" in desk.export_formats()
    with pytest.raises(InvalidInput, match="unknown export format"):
        desk.export(PROJECT, "mp3")


def test_the_tools_and_how_a_mistake_is_said() -> None:
    desk = App().desk()
    names = [t.name for t in desk.tools()]
    assert "set_track_volume" in names and "read_project" in names
    volume = next(t for t in desk.tools() if t.name == "set_track_volume")
    assert desk.signature(volume).startswith("set_track_volume(")
    assert desk.unknown_tool("set_track_volum", names) == "; did you mean 'set_track_volume'?"

    class Params(BaseModel):
        count: int

    with pytest.raises(ValidationError) as caught:
        Params.model_validate({"count": "many"})
    message, field = desk.explain("alternatives", Params, caught.value)
    assert field == "count" and "count" in message


def test_which_language_model_a_backend_flag_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no bandstand.toml here
    desk = App().desk()
    assert desk.backend(None) is None and desk.backend("") is None
    assert desk.backend("algorithmic") is None  # the rules and the built-in musicians read requests
    with pytest.raises(ConfigError, match="unknown backend 'nope'"):
        desk.backend("nope")
    assert desk.agents_config(runs_dir=tmp_path / "r").runs_dir == str(tmp_path / "r")

    rows = desk.check_backends()
    assert next(r for r in rows if r.backend == "algorithmic").usable
    assert all(list(r.to_json()) == ["backend", "usable", "detail"] for r in rows)


def test_a_midi_file_drawn_its_outputs_checked_first(tmp_path: Path) -> None:
    from bandstand.midi import write_midi

    from ..studio.songs import small_song

    song = tmp_path / "song.mid"
    write_midi(small_song(), song)
    desk = App().desk()
    with pytest.raises(OutputNotWritable, match=r"--png .* is a folder"):
        desk.render_file(song, png=tmp_path, audio=False)
    assert not (tmp_path / "song.png").exists()
    drawn = desk.render_file(song, audio=False)
    assert drawn.pianoroll == tmp_path / "song.png" and drawn.pianoroll.read_bytes().startswith(b"\x89PNG")
    assert drawn.wav is None and drawn.seconds > 0 and "BPM" in drawn.title

"""`producer.App`, the facade: a song's life through its methods alone — compose, direct in
words (a variation, a mixer revision, an answer), accept, undo, redo, export, import, the
projects and sessions listed — on real files."""

from __future__ import annotations

from pathlib import Path

import mido
import pytest

import bandstand.producer
from bandstand.errors import InvalidInput, NotFound
from bandstand.producer import App
from bandstand.producer.app import (
    AcceptRequest,
    ComposeRequest,
    ExportRequest,
    ImportRequest,
    WordsRequest,
)


def test_the_package_exports_the_facade_alone() -> None:
    assert bandstand.producer.__all__ == ["App"]


def test_a_song_through_the_facade(tmp_path: Path) -> None:
    app = App(tmp_path / "songs")
    composed = app.compose(ComposeRequest("funk groove in E minor", seed=3, bars=8))
    assert composed.result.status == "completed"
    song = composed.result.session_dir.name

    proposed = app.direct(WordsRequest(song, "make the bass busier"))
    assert proposed.kind == "variation" and proposed.edit is not None and proposed.edit.affected == ("bass",)
    variation = proposed.edit.variation
    assert variation is not None and app.session(song).revision == 1  # nothing changes before accept
    entry = app.accept(AcceptRequest(song, variation.id[:8]))
    assert entry.revision == 2 and app.session(song).revision == 2

    muted = app.direct(WordsRequest(song, "mute the drums"))
    assert muted.kind == "revision" and muted.revision == 3 and muted.steps == ("Mute Drums",)
    assert app.undo(song) == 2 and app.redo(song) == 3
    answered = app.ask(WordsRequest(song, "what key is this in?"))
    assert answered.kind == "answer" and "E" in answered.answer

    exported = app.export(ExportRequest(song, "mid", "mix-2"))
    assert exported.out_dir == composed.result.session_dir / "export" / "mix-2"
    [full] = [f for f in exported.files if f.name.startswith("full")]
    assert mido.MidiFile(full).tracks

    imported = app.import_midi(ImportRequest(full, name="imported"))
    ids = [s.project_id for s in app.sessions()]
    assert imported.session.session_dir.name in ids and song in ids


def test_mistakes_are_one_line(tmp_path: Path) -> None:
    app = App(tmp_path / "songs")
    with pytest.raises(NotFound, match="no project"):
        app.direct(WordsRequest("session-20260101-abc123", "make the bass busier"))
    with pytest.raises(InvalidInput, match="say which project"):
        app.direct(WordsRequest(None, "make the bass busier"))
    with pytest.raises(InvalidInput, match="does not exist"):
        App(folders=True).direct(WordsRequest(str(tmp_path / "nowhere"), "mute the drums"))

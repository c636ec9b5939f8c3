"""A session's WAV and stems rendered through its render cache (`state/render-cache/`) are the
bytes of a full render of HEAD without it — after the first render, an accept, an undo and a
redo — while the accept plays only the part it changed and the undo and redo play none; a
damaged entry is played again; HEAD moves leave the WAV stale until someone listens."""

from __future__ import annotations

import json
from pathlib import Path

from bandstand.compose.songfiles import RENDER_CACHE, write_audio
from bandstand.producer.sessions import head_files
from bandstand.producer.sessions.head_notes import sound_target, story_of
from bandstand.producer.sessions.projects import ProjectSession
from bandstand.render.trackcache import SUFFIX
from bandstand.studio import to_song

from .test_projects import busier

WAV = head_files.WAV


def audio_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "audio").rglob("*.wav"))}


def full_render(session: ProjectSession, out: Path) -> dict[str, bytes]:
    """HEAD's WAV and stems as a render without any cache makes them."""
    root, project = session.session_dir, session.head
    song = to_song(project)
    target = sound_target(story_of(root, project, song), json.loads((root / head_files.MANIFEST).read_text()))
    assert not write_audio(out, song, target_lufs=target).degraded
    return audio_files(out)


def entries(session: ProjectSession) -> set[str]:
    return {p.name for p in (session.session_dir / RENDER_CACHE).glob(f"*{SUFFIX}")}


def test_the_cached_render_is_a_full_renders_bytes_after_accept_undo_and_redo(session: ProjectSession,
                                                                             tmp_path: Path) -> None:
    root = session.session_dir
    session.ensure_audio()  # the first render plays every part and keeps each
    first = entries(session)
    assert len(first) == 3
    assert audio_files(root) == full_render(session, tmp_path / "r1")
    entry = session.accept(session.propose(busier(session), request="make the bass busier", author="test").id)
    assert head_files.audio_revision(root) == 1  # the HEAD move did not render
    session.ensure_audio()
    accepted = entries(session)
    assert len(accepted - first) == 1  # the bass, played again; drums and chords came from the cache
    assert audio_files(root) == full_render(session, tmp_path / f"r{entry.revision}")
    wav = (root / WAV).read_bytes()
    session.undo()
    session.ensure_audio()
    assert entries(session) == accepted  # nothing played
    assert audio_files(root) == full_render(session, tmp_path / "undone")
    assert (root / WAV).read_bytes() != wav
    session.redo()
    session.ensure_audio()
    assert entries(session) == accepted
    assert audio_files(root) == full_render(session, tmp_path / "redone")
    assert (root / WAV).read_bytes() == wav
    manifest = json.loads((root / head_files.MANIFEST).read_text())
    assert manifest["audio"] == {"file": WAV, "revision": 2, "stale": False}
    assert not any(RENDER_CACHE in f["path"] for f in manifest["files"])  # the cache is no file of the song


def test_a_damaged_entry_is_played_again(session: ProjectSession, tmp_path: Path) -> None:
    root = session.session_dir
    session.ensure_audio()
    for path in (root / RENDER_CACHE).glob(f"*{SUFFIX}"):
        data = bytearray(path.read_bytes())
        data[len(data) // 3] ^= 0x10
        path.write_bytes(bytes(data))
    (root / head_files.AUDIO_STAMP).unlink()  # the WAV is stale: render again
    session.ensure_audio()
    assert audio_files(root) == full_render(session, tmp_path / "full")

"""The session's top-level files show HEAD: after every HEAD move the part MIDI
files, `midi/full-arrangement.mid`, the piano roll, `notes/producer-notes.md`
and `manifest.json` are rewritten from the HEAD project (a file whose bytes
would not change is left alone; a part that left the song loses its file).
The manifest is written last and names the revision it shows, so a session
whose manifest is behind HEAD (a crash mid-rewrite) is repaired on the next
open.

The WAV is separate: rendering takes seconds, so a HEAD move only marks it
stale (`state/audio.json` names the revision the WAV was rendered from, the
manifest says `audio.stale`); `ensure_audio` renders it for HEAD when asked
— audition, export and the CLI after accept/undo/redo — so whoever needs the
WAV gets a current one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from bandstand import __version__
from bandstand.files import TMP_SUFFIX, write_bytes, write_json
from bandstand.score import Song, Track
from bandstand.studio import Project, to_song
from bandstand.studio.store import read_json

__all__ = ["AUDIO_STAMP", "FULL_MIDI", "MANIFEST", "PIANOROLL", "WAV", "HeadFiles", "audio_revision", "ensure_audio",
           "files_revision", "part_files", "write_head_files"]

MANIFEST = "manifest.json"
FULL_MIDI = "midi/full-arrangement.mid"
WAV = "audio/full-arrangement.wav"
PIANOROLL = "images/pianoroll.png"
PRODUCER_NOTES = "notes/producer-notes.md"
AUDIO_STAMP = "state/audio.json"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "part"


def part_files(project: Project) -> dict[str, str]:
    """Track id → its MIDI file: `midi/<role>.mid`, or the track's name when roles repeat."""
    roles = [t.role for t in project.tracks]
    out: dict[str, str] = {}
    taken = {FULL_MIDI}
    for t in project.tracks:
        stem = _slug(t.role) if t.role and roles.count(t.role) == 1 else _slug(t.name)
        rel, n = f"midi/{stem}.mid", 2
        while rel in taken:
            rel, n = f"midi/{stem}-{n}.mid", n + 1
        taken.add(rel)
        out[t.id] = rel
    return out


def _single(song: Song, track: Track) -> Song:
    return Song(title=f"{song.title} — {track.role or track.name}", tempo=song.tempo,
                time_signature=song.time_signature, key=song.key, sections=list(song.sections), tracks=[track],
                markers=list(song.markers), tempo_changes=list(song.tempo_changes))


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_bytes(path, data)


def _pianoroll(song: Song, path: Path) -> None:
    from bandstand.render import render_pianoroll

    render_pianoroll(song, path)


def _producer_notes(project: Project, files: dict[str, str]) -> str:
    ts = project.time_signature
    lines = [
        "# Producer notes", "",
        f"Project “{project.name}”, revision {project.revision}.", "",
        f"- Tempo: {project.tempo:g} BPM — set the DAW project tempo to {project.tempo:g}",
        f"- Time signature: {ts.numerator}/{ts.denominator}",
        f"- Key: {project.key or 'not set'}",
        f"- Length: {sum(s.bars for s in project.sections)} bars" if project.sections else "- Length: free",
    ]
    if project.provenance.prompt:
        lines.insert(2, f"Prompt: “{project.provenance.prompt.strip()}”\n")
    lines += ["", "## Tracks", "",
              f"Import `{FULL_MIDI}` (one track per part, markers at every section), or drag the single-part "
              "files onto their own tracks at bar 1.", ""]
    bus_names = {b.id: b.name for b in project.buses}
    for t in project.tracks:
        sound = f"drum kit {t.drum_kit}" if t.drum_kit is not None else f"GM program {t.program}"
        fx = ", ".join(e.type + (" (bypassed)" if e.bypass else "") for e in t.inserts) or "none"
        sends = ", ".join(f"{bus_names[s.bus_id]} {s.level:g}" for s in t.sends) or "none"
        state = " (muted)" if t.mute else " (solo)" if t.solo else ""
        lines.append(f"- **{t.name}**{state} — {t.role or 'part'}, {sound}, file `{files[t.id]}`; volume "
                     f"{t.volume:g}, pan {t.pan:g}; effects: {fx}; sends: {sends}")
    if project.buses:
        lines += ["", "## Buses", ""]
        lines += [f"- **{b.name}**: {', '.join(e.type for e in b.inserts) or 'no effects'}, return {b.volume:g}"
                  for b in project.buses]
    if project.sections:
        lines += ["", "## Arrangement markers", ""]
        lines += [f"- bar {s.start_bar}: {s.name} ({s.bars} bars, energy {s.energy:.2f})" for s in project.sections]
    lines.append("")
    return "\n".join(lines)


def audio_revision(session_dir: Path) -> int | None:
    """The revision the WAV was rendered from (None when unknown or missing)."""
    stamp = read_json(session_dir / AUDIO_STAMP)
    if not (session_dir / WAV).is_file() or not isinstance(stamp, dict):
        return None
    rev = stamp.get("revision")
    return rev if isinstance(rev, int) else None


def files_revision(session_dir: Path) -> int | None:
    """The revision the top-level files show, from the manifest (None when unknown)."""
    manifest = read_json(session_dir / MANIFEST)
    rev = manifest.get("revision") if isinstance(manifest, dict) else None
    return rev if isinstance(rev, int) else None


def _describe(rel: str) -> tuple[str, str]:
    if rel == FULL_MIDI:
        return "midi", "all parts, conductor track with tempo, key and section markers"
    if rel.startswith("midi/"):
        return "midi", f"{rel[5:-4]} part"
    return {"audio": ("audio", "stereo WAV render of the song"), "images": ("image", "piano roll of every part"),
            "notes": ("notes", "producer notes")}.get(rel.split("/", 1)[0], ("file", rel))


def _manifest(session_dir: Path, project: Project, files: dict[str, str], old: Any,
              pianoroll_source: str | None) -> dict[str, Any]:
    manifest: dict[str, Any] = dict(old) if isinstance(old, dict) else {"bandstand_version": __version__}
    song_files = {*files.values(), FULL_MIDI, PIANOROLL, PRODUCER_NOTES, WAV}
    entries = []
    listed = set()
    for entry in manifest.get("files", []):
        rel = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(rel, str) or not (session_dir / rel).is_file():
            continue
        if rel.startswith("midi/") and rel not in song_files:
            continue
        entries.append({**entry, "size": (session_dir / rel).stat().st_size})
        listed.add(rel)
    for rel in [*files.values(), FULL_MIDI, PIANOROLL, PRODUCER_NOTES, WAV]:
        if rel not in listed and (session_dir / rel).is_file():
            kind, description = _describe(rel)
            entries.append({"path": rel, "type": kind, "description": description,
                            "size": (session_dir / rel).stat().st_size})
            listed.add(rel)
    ts = project.time_signature
    wav_rev = audio_revision(session_dir)
    manifest.update({
        "revision": project.revision,
        "key": project.key,
        "tempo": project.tempo,
        "time_signature": f"{ts.numerator}/{ts.denominator}",
        "total_bars": sum(s.bars for s in project.sections),
        "sections": [{"name": s.name, "start_bar": s.start_bar, "bars": s.bars} for s in project.sections],
        "track_count": len(project.tracks),
        "parts": [{"role": t.role, "name": t.name, "file": files[t.id], "note_count": t.note_count,
                   "program": t.program, "drum_kit": t.drum_kit} for t in project.tracks],
        "files": entries,
        "audio": {"file": WAV, "revision": wav_rev, "stale": wav_rev != project.revision},
    })
    if pianoroll_source is not None:
        manifest["pianoroll_source"] = pianoroll_source
    else:
        manifest.pop("pianoroll_source", None)
    return manifest


def _all(tasks: list[Callable[[], Any]]) -> None:
    """Run file writes side by side (each ends in an fsync); the first error is raised after all end."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(t) for t in tasks]
    for future in futures:
        future.result()


class HeadFiles:
    """The top-level files for one project, prepared before HEAD moves and installed after.

    Preparing computes every file's bytes and starts drawing the piano roll (to a temporary
    name, on a worker thread) so the drawing overlaps the revision's own writes; `install`
    writes what changed, renames the piano roll into place and writes the manifest last.
    A prepared set that is never installed leaves nothing behind (`discard`)."""

    _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pianoroll")

    def __init__(self, session_dir: Path, project: Project, *, pianoroll: bool = True) -> None:
        from bandstand.midi import song_to_midi_bytes

        self.session_dir = session_dir
        self.project = project
        song = to_song(project)
        self.files = part_files(project)
        self.payloads = {rel: song_to_midi_bytes(_single(song, track))
                         for rel, track in zip(self.files.values(), song.tracks, strict=True)}
        self.payloads[FULL_MIDI] = song_to_midi_bytes(song)
        self.payloads[PRODUCER_NOTES] = _producer_notes(project, self.files).encode("utf-8")
        self.old_manifest = read_json(session_dir / MANIFEST)
        # the piano roll draws the notes (all in the full MIDI), the sections and the title line
        self.source = hashlib.sha256(self.payloads[FULL_MIDI]
                                     + repr((song.title, song.sections)).encode("utf-8")).hexdigest()
        old = self.old_manifest
        self.previous = old.get("pianoroll_source") if isinstance(old, dict) and \
            (session_dir / PIANOROLL).is_file() else None
        self.draw = pianoroll and self.previous != self.source
        self._png = session_dir / "images" / f".pianoroll.{os.getpid()}.{id(self)}.png{TMP_SUFFIX}"
        self._drawing = self._pool.submit(_pianoroll, song, self._png) if self.draw else None

    def install(self) -> list[str]:
        """Write the files that changed, the piano roll and the manifest; returns the paths."""
        root = self.session_dir
        keep = {Path(rel).name for rel in self.payloads if rel.startswith("midi/")}
        if (root / "midi").is_dir():
            for stale in (root / "midi").glob("*.mid"):
                if stale.name not in keep:
                    stale.unlink(missing_ok=True)
        _all([partial(_write_if_changed, root / rel, data) for rel, data in self.payloads.items()])
        if self._drawing is not None:
            self._drawing.result()
            os.replace(self._png, root / PIANOROLL)
        drawn = self.source if self.draw else self.previous
        write_json(root / MANIFEST, _manifest(root, self.project, self.files, self.old_manifest, drawn))
        return [*self.payloads, *([PIANOROLL] if self.draw else []), MANIFEST]

    def discard(self) -> None:
        """Forget the prepared files (the piano roll being drawn is removed when done)."""
        if self._drawing is not None:
            with contextlib.suppress(Exception):
                self._drawing.result()
            self._png.unlink(missing_ok=True)


def write_head_files(session_dir: Path, project: Project, *, pianoroll: bool = True) -> list[str]:
    """Rewrite the top-level files (all but the WAV) to show `project`; returns the paths written."""
    prepared = HeadFiles(session_dir, project, pianoroll=pianoroll)
    try:
        return prepared.install()
    except BaseException:
        prepared.discard()
        raise


def ensure_audio(session_dir: Path, project: Project) -> Path:
    """The WAV for `project` (rendered now unless it is already current); the manifest follows."""
    wav = session_dir / WAV
    if audio_revision(session_dir) == project.revision:
        return wav
    from bandstand.render import render_wav

    render_wav(to_song(project), wav)
    write_json(session_dir / AUDIO_STAMP, {"file": WAV, "revision": project.revision})
    manifest = read_json(session_dir / MANIFEST)
    if isinstance(manifest, dict) and manifest.get("revision") == project.revision:
        write_json(session_dir / MANIFEST, _manifest(session_dir, project, part_files(project), manifest,
                                                              manifest.get("pianoroll_source")))
    return wav

"""Import: your own MIDI file becomes a studio project, directed like a composed song.

    import_midi("song.mid")                         # output/SESSION, a project at revision 1
    import_midi(data, filename="song.mid", projects=root, name="My song")

The file is read within the MIDI reader's limits (`MIDI_LIMITS`: size, events, notes, length,
track-minutes) — a hostile file is one `MidiFileError` line. Tracks without notes go; each
other track's role is guessed from what the tracks play (`midi.guess_roles`: drum channel →
drums, overlapping notes → chords, lowest single line → bass, highest → lead). The key is the
file's key signature, else found from the notes (`theory.detect_key`); the tempo is the file's
first (120 without one). Sections come from the file's markers at bar lines, else from
repetition: 8-bar phrases that share half their notes are the same section (named verse,
chorus, bridge, breakdown as they first come, the jam's rule, `jam_song.section_labels`).
The project carries a compose recipe for its key, tempo, form and parts
(`jam_song.recipe`), so "make the bass busier", alternatives, A/B, accept and undo work on
it as on a composed song. The CLI (`bandstand import`), the HTTP API
(`POST /api/v1/projects/import`) and MCP (`import_midi`) call `import_midi`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bandstand.errors import InvalidInput
from bandstand.midi import guess_roles, midi_bytes_to_song, read_midi
from bandstand.producer.jams.jam_song import NAMES, Round, recipe, section_labels
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.score import Marker, Note, Section, Song
from bandstand.studio import Provenance
from bandstand.theory import detect_key

__all__ = ["IMPORT_AUTHOR", "PHRASE", "Imported", "import_midi"]

IMPORT_AUTHOR = "import"
PHRASE = 8
"""Bars in a section found by repetition (the last may be shorter)."""


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import made: the project, each part's (name, role), the key and where it came
    from ("file", "detected", or "none" for drums alone), the tempo, and the sections and where
    they came from ("file" for a file bandstand wrote, "markers" or "repetition")."""

    session: ProjectSession
    parts: tuple[tuple[str, str], ...]
    key: str | None
    key_source: str
    tempo: float
    sections: tuple[Section, ...]
    sections_source: str

    def summary(self) -> dict[str, object]:
        return {"project": self.session.session_dir.name, "path": str(self.session.session_dir),
                "revision": self.session.revision,
                "parts": [{"name": name, "role": role} for name, role in self.parts],
                "key": self.key, "key_source": self.key_source, "tempo": self.tempo,
                "sections": [{"name": s.name, "start_bar": s.start_bar, "bars": s.bars} for s in self.sections],
                "sections_source": self.sections_source}


def _read(source: str | os.PathLike[str] | bytes, filename: str) -> Song:
    if isinstance(source, bytes | bytearray):
        return midi_bytes_to_song(bytes(source), filename or "<upload>")
    return read_midi(Path(source).expanduser())


def _key(song: Song) -> tuple[str | None, str]:
    """The key and where it came from: the file, the notes, or none (drums only)."""
    if song.key:
        return song.key, "file"

    pitched = [n for t in song.tracks if not t.is_drum for n in t.notes if n.duration > 0]
    if not pitched:
        return None, "none"
    return detect_key(pitched).key.name, "detected"


def _bar_notes(song: Song, begin: float, length: float) -> tuple[tuple[Note, ...], ...]:
    return tuple(tuple(Note(n.start - begin, n.duration, n.pitch, n.velocity) for n in t.notes
                       if begin - 1e-9 <= n.start < begin + length - 1e-9) for t in song.tracks)


def _from_markers(markers: list[Marker], song: Song, bars: int) -> list[Section]:
    """Sections from markers at bar lines (the first section starting at bar 1), or none."""
    starts: dict[int, str] = {}
    for marker in markers:
        bar = marker.beat / song.beats_per_bar
        if abs(bar - round(bar)) < 1e-6 and marker.text.strip() and round(bar) < bars:
            starts.setdefault(round(bar) + 1, marker.text.strip()[:60])
    if 1 not in starts:
        return []
    ordered = sorted(starts.items())
    ends = [start for start, _ in ordered[1:]] + [bars + 1]
    return [Section(name, start, end - start, 0.6) for (start, name), end in zip(ordered, ends, strict=True)]


def _from_repetition(song: Song, bars: int) -> list[Section]:
    """`PHRASE`-bar sections named by which earlier phrase they sound like (the jam's rule)."""
    length = song.beats_per_bar
    starts = list(range(1, bars + 1, PHRASE))
    sizes = [min(PHRASE, bars + 1 - start) for start in starts]
    rounds = tuple(Round(i, "", 5, "", tuple(_bar_notes(song, (start - 1 + b) * length, length) for b in range(size)))
                   for i, (start, size) in enumerate(zip(starts, sizes, strict=True)))
    labels = section_labels(rounds)
    counts = [sum(len(notes) for bar in r.bars for notes in bar) for r in rounds]
    busiest = max(counts) or 1
    return [Section(NAMES[label], start, size, round(0.3 + 0.6 * count / busiest, 2))
            for label, start, size, count in zip(labels, starts, sizes, counts, strict=True)]


def import_midi(source: str | os.PathLike[str] | bytes, *, name: str = "", filename: str = "",
                projects: str | os.PathLike[str] = "output", out: str | os.PathLike[str] | None = None) -> Imported:
    """Import a MIDI file (a path, or the bytes of an upload named `filename`) as a new project in
    `out`, or in a new session folder under `projects` (see the module docstring)."""
    from bandstand.compose.api import new_session_id

    label = filename or (Path(source).name if not isinstance(source, bytes | bytearray) else "upload.mid")
    song = _read(source, label)
    song.tracks = [t for t in song.tracks if t.notes]
    if not song.tracks:
        raise InvalidInput(f"{label} has no notes to import; give a MIDI file with at least one note")
    names: set[str] = set()
    for track, role in zip(song.tracks, guess_roles(song.tracks), strict=True):
        track.role = role
        track.sort()
        unique, n = track.name, 2
        while unique in names:  # a part is found by its name: two tracks never share one
            unique, n = f"{track.name} {n}", n + 1
        track.name = unique
        names.add(unique)
    song.title = (name.strip() or song.title or Path(label).stem)[:200]
    song.key, key_source = _key(song)
    bars = song.length_bars
    sections, sections_source = list(song.sections), "file"  # a file bandstand wrote keeps its sections
    if not sections:
        sections, sections_source = _from_markers(song.markers, song, bars), "markers"
    if not sections:
        sections, sections_source = _from_repetition(song, bars), "repetition"
    song.sections = sections
    section_names = {s.name for s in sections}
    song.markers = [m for m in song.markers if m.text.strip() not in section_names]
    folder = Path(out if out is not None else projects).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(f"--out {folder} is a file; give a folder for the project", field="out")
    target = folder if out is not None else folder / new_session_id()
    if (target / "revisions").is_dir():
        raise InvalidInput(f"{target} is already a project; import into another folder", field="out")
    prompt = f"{song.title}, imported from {label}, in {song.key or 'no key'} at {song.tempo:g} BPM"
    provenance = Provenance(prompt=prompt, generator="import", recipe=recipe(song, prompt))
    session = create_from_song(target, song, provenance, author=IMPORT_AUTHOR, request=f"bandstand import {label}")
    return Imported(session, tuple((t.name, t.role) for t in song.tracks), song.key, key_source, song.tempo,
                    tuple(sections), sections_source)

"""A session's top-level files written from a `Song` — the one function compose's
output stage and the studio (after accept, undo, redo) both call:

    midi/<role>.mid …, midi/full-arrangement.mid   (the mix as CC7/CC10, section markers)
    audio/full-arrangement.wav, audio/stems/<part>.wav
    images/pianoroll.png
    notes/lead-sheet.musicxml, notes/preset-assignments.md, notes/effect-chains.md, notes/mix.md

Everything but the audio is a pure function of the song (and the optional
sound plan and chord list), so it is fast and the same song writes the same
bytes; the audio is separate (`render_audio=False`, or `write_audio` on its own).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from bandstand.compose.models.sound import SoundPlan
from bandstand.files import write_bytes
from bandstand.score import ControlChange, Song, Track

__all__ = ["FULL", "FileEntry", "SongFiles", "mix_controls", "write_audio", "write_song_outputs"]

FULL = "full-arrangement"


@dataclass(slots=True)
class FileEntry:
    path: str
    type: str
    description: str
    size: int = 0


@dataclass(slots=True)
class SongFiles:
    """What was written (relative paths), and what could not be (one line each)."""

    files: list[FileEntry] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)

    def add(self, root: Path, rel: str, kind: str, description: str) -> None:
        self.files.append(FileEntry(rel, kind, description, (root / rel).stat().st_size))


def _cc7(volume: float) -> int:
    """GM channel volume for a linear gain: the GM curve is gain = (cc/127)², capped at 127."""
    return max(0, min(127, round(127 * math.sqrt(min(volume, 1.0)))))


def mix_controls(track: Track) -> Track:
    """The track with its mix written as MIDI controllers where it maps: CC7 (volume, the GM
    square-law curve, unity and above at 127) and CC10 (pan) at the start, and their automation
    as controller points every half beat. Tracks with their own CC7 ramps keep them, scaled by
    the volume. Mute, solo, inserts and sends have no MIDI form (the notes list them)."""
    mix = track.mix
    lanes = {lane.parameter: lane for lane in mix.automation if lane.points}
    own7 = [c for c in track.controls if c.control == 7]
    controls = [c for c in track.controls if c.control != 10 or "pan" not in lanes]
    if own7:
        scale = math.sqrt(min(mix.volume, 1.0))
        controls = [ControlChange(c.time, 7, round(c.value * scale)) if c.control == 7 else c for c in controls]
    else:
        controls.append(ControlChange(0.0, 7, _cc7(mix.volume)))
    controls.append(ControlChange(0.0, 10, min(127, round(mix.pan * 127))))
    for name, cc, convert in (("volume", 7, _cc7), ("pan", 10, lambda p: min(127, round(p * 127)))):
        lane = lanes.get(name)
        if lane is None or (name == "volume" and own7):
            continue
        beat, last = lane.points[0].beat, lane.points[-1].beat
        while beat <= last + 1e-9:
            value = lane.value_at(beat)
            if value is not None:
                controls.append(ControlChange(beat, cc, convert(value)))
            beat += 0.5
    out = replace(track, controls=sorted(controls, key=lambda c: (c.time, c.control)))
    return out


def _single(song: Song, track: Track) -> Song:
    return Song(title=f"{song.title} — {track.role}", tempo=song.tempo, time_signature=song.time_signature,
                key=song.key, sections=list(song.sections), tracks=[track], markers=list(song.markers),
                tempo_changes=list(song.tempo_changes))


def _all(tasks: list[Callable[[], Any]]) -> None:
    """Run file writes side by side (each ends in an fsync, which waits on the disk, not the
    interpreter); the first error is raised after all have finished."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(t) for t in tasks]
    for future in futures:
        future.result()


def _remove_stale(folder: Path, keep: set[str], suffix: str) -> None:
    if folder.is_dir():
        for path in folder.glob(f"*{suffix}"):
            if path.name not in keep:
                with contextlib.suppress(OSError):
                    path.unlink()


def part_files(song: Song) -> dict[str, Track]:
    """The per-part MIDI file name of each track: its role, or role-2, role-3 … when roles repeat."""
    out: dict[str, Track] = {}
    for track in song.tracks:
        role = track.role or "part"  # a track without a role (one a person added) still gets a visible name
        name, n = role, 1
        while f"{name}.mid" in out:
            n += 1
            name = f"{role}-{n}"
        out[f"{name}.mid"] = track
    return out


def write_song_outputs(root: Path, song: Song, *, sound: SoundPlan | None = None,
                       chords: Sequence[tuple[float, str]] | None = None, target_lufs: float | None = None,
                       render_audio: bool = True, render_pianoroll: bool = True, stems: bool = True) -> SongFiles:
    """Write the song's MIDI, notes, lead sheet, piano roll and (with `render_audio`) WAV and stems
    under `root`. `sound` names the presets; `chords` (beat, symbol) label the lead sheet;
    `target_lufs` is the master's loudness (the plan's, else −14)."""
    from bandstand.compose import notes as mixnotes
    from bandstand.compose.leadsheet import lead_sheet
    from bandstand.midi import song_to_midi_bytes

    out = SongFiles()
    files = part_files(song)
    planned: list[tuple[str, str, str, Callable[[], Any]]] = []
    for name, track in files.items():
        rel = f"midi/{name}"
        planned.append((rel, "midi", f"{track.role} part (GM program {track.program})",
                        partial(write_bytes, root / rel, song_to_midi_bytes(_single(song, mix_controls(track))))))
    full = replace(song, tracks=[mix_controls(t) for t in song.tracks])
    planned.append((f"midi/{FULL}.mid", "midi", "all parts (mix as CC7/CC10), conductor track with tempo, key and "
                    "section markers", partial(write_bytes, root / f"midi/{FULL}.mid", song_to_midi_bytes(full))))
    pages: dict[str, tuple[str, str, str | bytes]] = {
        "notes/lead-sheet.musicxml": ("lead-sheet", "the melody with chord symbols and rehearsal marks (MusicXML)",
                                      lead_sheet(song, chords)),
        "notes/preset-assignments.md": ("notes", "preset assignments", mixnotes.preset_assignments(song, sound)),
        "notes/effect-chains.md": ("notes", "effect chains", mixnotes.effect_chains(song, sound)),
        "notes/mix.md": ("notes", "mix: level, pan, sends and the master per track",
                         mixnotes.mix_page(song, sound, target_lufs)),
    }
    for rel, (kind, description, data) in pages.items():
        body = data if isinstance(data, bytes) else data.encode("utf-8")
        planned.append((rel, kind, description, partial(write_bytes, root / rel, body)))
    _remove_stale(root / "midi", {rel.rsplit("/", 1)[1] for rel, *_ in planned if rel.startswith("midi/")}, ".mid")
    tasks = [w for *_, w in planned]
    failed: dict[str, str] = {}
    if render_pianoroll:
        tasks.append(partial(_pianoroll, failed, root, song))
    audio = SongFiles()
    with ThreadPoolExecutor(max_workers=8) as pool:  # the files are written while the audio renders
        futures = [pool.submit(t) for t in tasks]
        if render_audio:
            audio = write_audio(root, song, target_lufs=target_lufs if target_lufs is not None else
                                (sound.target_lufs if sound else None), stems=stems)
    for future in futures:
        future.result()
    for rel, kind, description, _ in planned:
        out.add(root, rel, kind, description)
    if render_pianoroll:
        if "images/pianoroll.png" in failed:
            out.degraded.append(f"images/pianoroll.png not written: {failed['images/pianoroll.png']}")
        else:
            out.add(root, "images/pianoroll.png", "image", "piano roll of every part")
    out.files += audio.files
    out.degraded += audio.degraded
    return out


def _pianoroll(failed: dict[str, str], root: Path, song: Song) -> None:
    try:
        from bandstand.render import render_pianoroll

        render_pianoroll(song, root / "images" / "pianoroll.png")
    except Exception as exc:  # a missing renderer degrades the session, it does not fail it
        failed["images/pianoroll.png"] = str(exc)


def write_audio(root: Path, song: Song, *, target_lufs: float | None = None, stems: bool = True) -> SongFiles:
    """The mastered WAV (and the stems in audio/stems/) of the song; a render that cannot be made
    (no SoundFont) is reported in `degraded`, not raised."""
    from bandstand.render import Master, render_wav

    out = SongFiles()
    rel = f"audio/{FULL}.wav"
    settings = Master(target_lufs=target_lufs) if target_lufs is not None else Master()
    try:
        render_wav(song, root / rel, settings=settings, stems_dir=root / "audio" / "stems" if stems else None)
    except Exception as exc:  # a missing SoundFont or renderer degrades the session, it does not fail it
        out.degraded.append(f"{rel} not written: {exc}")
        return out
    out.add(root, rel, "audio", f"stereo WAV, mixed and mastered to {settings.target_lufs:g} LUFS, peaks under "
            f"{settings.ceiling_dbtp:g} dBTP")
    if stems:
        for path in sorted((root / "audio" / "stems").glob("*.wav")):
            out.add(root, f"audio/stems/{path.name}", "stem", f"{path.stem} after its fader (not mastered)")
    return out



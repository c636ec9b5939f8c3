"""A session's top-level files written from a `Song` — the one function compose's
output stage and the studio (after accept, undo, redo) both call:

    midi/<role>.mid …, midi/full-arrangement.mid   (the mix as CC7/CC10, section markers)
    audio/full-arrangement.wav, audio/stems/<part>.wav
    images/pianoroll.png
    notes/lead-sheet.musicxml, notes/preset-assignments.md, notes/effect-chains.md, notes/mix.md

Everything but the audio is a pure function of the song (and the optional
sound plan and chord list), so it is fast and the same song writes the same
bytes; the audio is separate (`render_audio=False`, or `write_audio` on its own).
A studio render (`producer.sessions.head_files.render_audio`) keeps each track it plays in
the session's `state/render-cache/` (`bandstand.render.trackcache`), so a later
render of a changed song plays only the tracks that changed; compose does not
fill it (a batch of songs would keep hundreds of megabytes of audio each).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.compose.models.sound import SoundPlan
from bandstand.files import write_bytes
from bandstand.score import ControlChange, Song, Track, part_names

if TYPE_CHECKING:
    from bandstand.render.meter import Meter

__all__ = [
    "FULL",
    "LEAD_SHEET",
    "MANIFEST",
    "RENDER_CACHE",
    "FileEntry",
    "SongFile",
    "SongFiles",
    "lead_sheet_source",
    "mix_controls",
    "self_listed",
    "song_files",
    "write_audio",
    "write_song_outputs",
]

MANIFEST = "manifest.json"

FULL = "full-arrangement"
RENDER_CACHE = "state/render-cache"  # the session's finished tracks, kept between renders


@dataclass(slots=True)
class FileEntry:
    path: str
    type: str
    description: str
    size: int = 0


@dataclass(slots=True)
class SongFiles:
    """What was written (relative paths), and what could not be (one line each); `write_failed`
    when one of those could not be written by the system (a full disk, permissions),
    `out_of_time` when the render was stopped because its time was up; `pianoroll_of`, the song
    the piano roll was drawn from when it was; `lead_sheet_source`, the digest of what the lead
    sheet was made from (`lead_sheet_source`) when one was written; `meters`, each WAV's measures taken as it was
    written (`bandstand.render.meter`), by its path."""

    files: list[FileEntry] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    write_failed: bool = False
    out_of_time: bool = False
    pianoroll_of: Song | None = None
    lead_sheet_source: str | None = None
    meters: dict[Path, Meter] = field(default_factory=dict)  # the WAVs written, measured as they were

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
                tempo_changes=list(song.tempo_changes), key_changes=list(song.key_changes),
                metre_changes=list(song.metre_changes))


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
    """The per-part MIDI file name of each track: `score.part_names` (the name its stem has too)."""
    return {f"{name}.mid": track for name, track in zip(part_names(song.tracks), song.tracks, strict=True)}


LEAD_SHEET = "notes/lead-sheet.musicxml"


@dataclass(frozen=True, slots=True)
class SongFile:
    """One file of a song's top level (all but the audio and the piano roll): where it goes, what it
    is, and how to make its bytes."""

    rel: str
    kind: str
    description: str
    make: Callable[[], bytes]


def song_files(song: Song, *, sound: SoundPlan | None = None, chords: Sequence[tuple[float, str]] | None = None,
               target_lufs: float | None = None) -> list[SongFile]:
    """The part MIDI files, the full arrangement, the lead sheet and the mix notes of the song; each
    made when asked (the lead sheet takes ~15 ms on a long song, the rest ~1 ms each)."""
    from bandstand.compose import notes as mixnotes
    from bandstand.compose.leadsheet import lead_sheet
    from bandstand.midi import song_to_midi_bytes

    out = [SongFile(f"midi/{name}", "midi", f"{track.role} part (GM program {track.program})",
                    partial(lambda t: song_to_midi_bytes(_single(song, mix_controls(t))), track))
           for name, track in part_files(song).items()]
    out.append(SongFile(f"midi/{FULL}.mid", "midi", "all parts (mix as CC7/CC10), conductor track with tempo, key "
                        "and section markers",
                        lambda: song_to_midi_bytes(replace(song, tracks=[mix_controls(t) for t in song.tracks]))))
    text: list[tuple[str, str, str, Callable[[], str | bytes]]] = [
        (LEAD_SHEET, "lead-sheet", "the melody with chord symbols and rehearsal marks (MusicXML)",
         lambda: lead_sheet(song, chords)),
        ("notes/preset-assignments.md", "notes", "preset assignments", lambda: mixnotes.preset_assignments(song, sound)),
        ("notes/effect-chains.md", "notes", "effect chains", lambda: mixnotes.effect_chains(song, sound)),
        ("notes/mix.md", "notes", "mix: level, pan, sends and the master per track",
         lambda: mixnotes.mix_page(song, sound, target_lufs)),
    ]
    out += [SongFile(rel, kind, description, partial(_encoded, make)) for rel, kind, description, make in text]
    return out


def _encoded(make: Callable[[], str | bytes]) -> bytes:
    data = make()
    return data if isinstance(data, bytes) else data.encode("utf-8")


def lead_sheet_source(song: Song, chords: Sequence[tuple[float, str]] | None) -> str:
    """A digest of everything the lead sheet is made from: the same digest, the same lead sheet."""
    from bandstand.compose.leadsheet import melody_track

    melody = melody_track(song)
    chords_part = None if chords else next((t for t in song.tracks if t.role == "chords"), None)
    material = repr((song.title, song.tempo, str(song.time_signature), song.key, song.sections, song.tempo_changes,
                     melody.notes if melody else None, list(chords) if chords else None,
                     chords_part.notes if chords_part else None, len(song.tracks) and song.length_beats))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def write_song_outputs(root: Path, song: Song, *, sound: SoundPlan | None = None,
                       chords: Sequence[tuple[float, str]] | None = None, target_lufs: float | None = None,
                       render_audio: bool = True, render_pianoroll: bool = True, stems: bool = True,
                       cancelled: Callable[[], bool] | None = None,
                       time_up: Callable[[], str | None] | None = None,
                       progress: Callable[[str], None] | None = None, measure: bool = False) -> SongFiles:
    """Write the song's MIDI, notes, lead sheet, piano roll and (with `render_audio`) WAV and stems
    under `root`. `sound` names the presets; `chords` (beat, symbol) label the lead sheet;
    `target_lufs` is the master's loudness (the plan's, else −14). `cancelled` and `time_up`
    stop the render as `write_audio` says; `progress` is told what the render does now; with
    `measure`, the WAV and the stems are measured as they are written (`SongFiles.meters`)."""
    out = SongFiles()
    planned = song_files(song, sound=sound, chords=chords, target_lufs=target_lufs)
    _remove_stale(root / "midi", {f.rel.rsplit("/", 1)[1] for f in planned if f.rel.startswith("midi/")}, ".mid")
    tasks: list[Callable[[], Any]] = [partial(lambda f: write_bytes(root / f.rel, f.make()), f) for f in planned]
    failed: dict[str, BaseException] = {}
    if render_pianoroll:
        tasks.append(partial(_pianoroll, failed, root, song))
    audio = SongFiles()
    with ThreadPoolExecutor(max_workers=8) as pool:  # the files are written while the audio renders
        futures = [pool.submit(t) for t in tasks]
        if render_audio:
            audio = write_audio(root, song, target_lufs=target_lufs if target_lufs is not None else
                                (sound.target_lufs if sound else None), stems=stems, cancelled=cancelled,
                                time_up=time_up, progress=progress, measure=measure)
    for future in futures:
        future.result()
    for f in planned:
        out.add(root, f.rel, f.kind, f.description)
    out.lead_sheet_source = lead_sheet_source(song, chords)  # revision 1's head need not write it again
    if render_pianoroll:
        if "images/pianoroll.png" in failed:
            exc = failed["images/pianoroll.png"]
            out.degraded.append(f"images/pianoroll.png not written: {exc}")
            out.write_failed = isinstance(exc, OSError)
        else:
            out.add(root, "images/pianoroll.png", "image", "piano roll of every part")
            out.pianoroll_of = song
    out.files += audio.files
    out.degraded += audio.degraded
    out.write_failed = out.write_failed or audio.write_failed
    out.out_of_time = audio.out_of_time
    out.meters = audio.meters
    return out


def _pianoroll(failed: dict[str, BaseException], root: Path, song: Song) -> None:
    try:
        from bandstand.render.pianoroll import render_pianoroll  # not the package: its audio stack

        render_pianoroll(song, root / "images" / "pianoroll.png")
    except Exception as exc:  # a missing renderer degrades the session, it does not fail it
        failed["images/pianoroll.png"] = exc


def write_audio(root: Path, song: Song, *, target_lufs: float | None = None, stems: bool = True,
                cancelled: Callable[[], bool] | None = None,
                time_up: Callable[[], str | None] | None = None, cache: Path | None = None,
                progress: Callable[[str], None] | None = None, measure: bool = False) -> SongFiles:
    """The mastered WAV (and the stems in audio/stems/) of the song; a render that cannot be made
    (no SoundFont) is reported in `degraded`, not raised; once `cancelled()` says so the render
    stops and `Cancelled` is raised — unless `time_up()` then gives a reason: the render was
    stopped for time, and the WAV is reported missing for that reason (`out_of_time`). `cache`:
    the folder of finished tracks to take them from and keep them in
    (`bandstand.render.trackcache`; the bytes are the same). With `measure`, the WAV and the
    tracks' stems are measured as they are written (`SongFiles.meters`: what the quality
    figures read instead of the files)."""
    from bandstand.compose.nodes import Cancelled
    from bandstand.render import Master, render_wav
    from bandstand.render.cancel import RenderCancelled
    from bandstand.render.trackcache import TrackCache

    out = SongFiles()
    rel = f"audio/{FULL}.wav"
    settings = Master(target_lufs=target_lufs) if target_lufs is not None else Master()
    try:
        render_wav(song, root / rel, settings=settings, stems_dir=root / "audio" / "stems" if stems else None,
                   cancelled=cancelled, cache=TrackCache(cache) if cache is not None else None, progress=progress,
                   meters=out.meters if measure else None)
    except RenderCancelled:
        reason = time_up() if time_up is not None else None
        if reason is None:
            raise Cancelled() from None
        out.degraded.append(f"{rel} not written: {reason}")
        out.out_of_time = True
        return out
    except Exception as exc:  # a missing SoundFont or renderer degrades the session, it does not fail it
        out.degraded.append(f"{rel} not written: {exc}")
        out.write_failed = isinstance(exc, OSError)
        return out
    from bandstand.render.synth import engine_name

    out.add(root, rel, "audio", f"stereo WAV, mixed and mastered to {settings.target_lufs:g} LUFS, peaks under "
            f"{settings.ceiling_dbtp:g} dBTP; played by the {engine_name()} synthesizer")
    if stems:
        for path in sorted((root / "audio" / "stems").glob("*.wav")):
            out.add(root, f"audio/stems/{path.name}", "stem", f"{path.stem} after its fader (not mastered)")
    return out


def self_listed(data: dict[str, Any]) -> bytes:
    """The manifest as JSON, listing itself with its own size (the size is a fixed point:
    a few rounds at most, as only the digits of the size change). The studio writes HEAD's
    manifest through it too, so the same revision gives the same bytes."""
    entry = {"path": MANIFEST, "type": "manifest", "description": "what is here, how it was made, timings, quality, "
             "seed", "size": 0}
    data = {**data, "files": [*data["files"], entry]}
    for _ in range(8):
        raw = (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        if entry["size"] == len(raw):
            break
        entry["size"] = len(raw)
    return raw

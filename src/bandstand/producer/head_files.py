"""The session's top-level files show HEAD: after every HEAD move the part MIDI
files, `midi/full-arrangement.mid`, the lead sheet and the mix notes
(`compose.songfiles.write_song_outputs`, the writer compose uses too), the
piano roll, `notes/producer-notes.md` and `manifest.json` are rewritten from
the HEAD project. The manifest is written last and names the revision it
shows, so a session whose manifest is behind HEAD (a crash mid-rewrite) is
repaired on the next open. The preset names come from the session's sound
plan (compose's, when the session has one); the lead sheet names its chords
from the chords part.

The WAV is separate: rendering takes seconds, so a HEAD move only marks it
stale (`state/audio.json` names the revision the WAV and stems were rendered
from, the manifest says `audio.stale`); `ensure_audio` renders them for HEAD
when asked — audition, export and the CLI after accept/undo/redo — so whoever
needs the WAV gets a current one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bandstand import __version__
from bandstand.files import TMP_SUFFIX, write_json, write_text
from bandstand.score import Song
from bandstand.studio import Project, to_song
from bandstand.studio.store import read_json

__all__ = ["AUDIO_STAMP", "FULL_MIDI", "MANIFEST", "PIANOROLL", "PRODUCER_NOTES", "WAV", "HeadFiles",
           "audio_revision", "files_revision", "install_audio", "part_files", "render_audio", "sound_plan", "staged_leftovers", "target_lufs",
           "write_head_files"]

MANIFEST = "manifest.json"
FULL_MIDI = "midi/full-arrangement.mid"
WAV = "audio/full-arrangement.wav"
PIANOROLL = "images/pianoroll.png"
PRODUCER_NOTES = "notes/producer-notes.md"
AUDIO_STAMP = "state/audio.json"
PIPELINE_STATE = "state/pipeline-state.json"


def part_files(project: Project, song: Song | None = None) -> dict[str, str]:
    """Track id → its MIDI file (the names `write_song_outputs` gives: role, role-2, …)."""
    from bandstand.compose.songfiles import part_files as names

    by_track = names(song or to_song(project))
    return {t.id: f"midi/{name}" for t, name in zip(project.tracks, by_track, strict=True)}


def sound_plan(session_dir: Path) -> Any:
    """The session's sound plan (compose's, from its pipeline state), or None."""
    state = read_json(session_dir / PIPELINE_STATE)
    try:
        output = state["nodes"]["sound"]["output"]
    except (KeyError, TypeError):
        return None
    if not isinstance(output, dict):
        return None
    from pydantic import ValidationError

    from bandstand.compose.models.sound import SoundPlan

    try:
        return SoundPlan.model_validate(output)
    except ValidationError:
        return None


def target_lufs(session_dir: Path, sound: Any = None) -> float | None:
    """The master's loudness target: the manifest's, else the sound plan's (None: the default)."""
    manifest = read_json(session_dir / MANIFEST)
    try:
        return float(manifest["master"]["target_lufs"])
    except (KeyError, TypeError, ValueError):
        return getattr(sound if sound is not None else sound_plan(session_dir), "target_lufs", None)


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


def _manifest(session_dir: Path, project: Project, files: dict[str, str], written: list[Any], old: Any,
              pianoroll_source: str | None) -> dict[str, Any]:
    manifest: dict[str, Any] = dict(old) if isinstance(old, dict) else {"bandstand_version": __version__}
    fresh = {f.path: {"path": f.path, "type": f.type, "description": f.description} for f in written}
    fresh[PRODUCER_NOTES] = {"path": PRODUCER_NOTES, "type": "notes", "description": "producer notes"}
    fresh[PIANOROLL] = {"path": PIANOROLL, "type": "image", "description": "piano roll of every part"}
    stale_stems = audio_revision(session_dir) is None
    entries: list[dict[str, Any]] = []
    listed: set[str] = set()
    for entry in [*manifest.get("files", []), *fresh.values()]:
        rel = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(rel, str) or rel in listed or not (session_dir / rel).is_file():
            continue
        if (rel.startswith("midi/") and rel not in fresh) or (rel.startswith("audio/stems/") and stale_stems):
            continue  # a part that left the song
        entries.append({**entry, **fresh.get(rel, {}), "size": (session_dir / rel).stat().st_size})
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
                   "program": t.program, "drum_kit": t.drum_kit, "volume": t.volume, "pan": t.pan}
                  for t in project.tracks],
        "files": entries,
        "audio": {"file": WAV, "revision": wav_rev, "stale": wav_rev != project.revision},
    })
    if project.provenance.team:  # an agent team's record: who wrote each section, under which contract
        manifest["team"] = {**project.provenance.team, "contracts": dict(project.provenance.contract_hashes)}
    else:
        manifest.pop("team", None)
    if pianoroll_source is not None:
        manifest["pianoroll_source"] = pianoroll_source
    else:
        manifest.pop("pianoroll_source", None)
    return manifest


STAGING = ".staging"  # a prepared set of files: .head-<pid>-<n>.staging.tmp/ in the session


def _stage(staging: Path, project: Project, song: Song, files: dict[str, str], draw: bool) -> Any:
    """Write the song's files (and the producer notes) under `staging`, laid out as in a session."""
    from bandstand.compose.songfiles import write_song_outputs

    root = staging.parent
    sound = sound_plan(root)
    written = write_song_outputs(staging, song, sound=sound, target_lufs=target_lufs(root, sound),
                                 render_audio=False, render_pianoroll=draw)
    write_text(staging / PRODUCER_NOTES, _producer_notes(project, files))
    return written


class HeadFiles:
    """The top-level files for one project, prepared before HEAD moves and installed after.

    Preparing makes the song, then writes its files into a staging folder in the session on a
    worker thread — the part MIDI, the full arrangement, the lead sheet, the notes, and the piano
    roll when the notes, sections or title changed — while the caller writes the revision (its
    fsyncs let the worker run). `install` moves the staged files into place and writes the
    manifest last; `discard` removes them. A crash leaves only the staging folder, which the next
    open of the session removes."""

    _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="head-files")

    def __init__(self, session_dir: Path, project: Project, *, pianoroll: bool = True) -> None:
        from bandstand.midi import song_to_midi_bytes

        self.session_dir = session_dir
        self.project = project
        self.song = to_song(project)
        self.files = part_files(project, self.song)
        self.old_manifest = read_json(session_dir / MANIFEST)
        # the piano roll draws the notes, the sections and the title line
        self.source = hashlib.sha256(song_to_midi_bytes(self.song)
                                     + repr((self.song.title, self.song.sections)).encode("utf-8")).hexdigest()
        old = self.old_manifest
        self.previous = old.get("pianoroll_source") if isinstance(old, dict) and \
            (session_dir / PIANOROLL).is_file() else None
        self.draw = pianoroll and self.previous != self.source
        self.staging = session_dir / f".head-{os.getpid()}-{id(self)}{STAGING}{TMP_SUFFIX}"
        self._job = self._pool.submit(_stage, self.staging, project, self.song, self.files, self.draw)

    def install(self) -> list[str]:
        """Move the staged files into place and write the manifest; returns the paths."""
        root = self.session_dir
        written = self._job.result()
        moved = []
        for path in sorted(p for p in self.staging.rglob("*") if p.is_file()):
            rel = path.relative_to(self.staging)
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            moved.append(str(rel))
        keep = {Path(rel).name for rel in moved if rel.startswith("midi/")}
        if (root / "midi").is_dir():
            for stale in (root / "midi").glob("*.mid"):
                if stale.name not in keep:
                    stale.unlink(missing_ok=True)
        shutil.rmtree(self.staging, ignore_errors=True)
        drawn = self.source if self.draw and PIANOROLL in moved else self.previous
        write_json(root / MANIFEST, _manifest(root, self.project, self.files, written.files, self.old_manifest, drawn))
        return [*moved, MANIFEST]

    def discard(self) -> None:
        """Forget the prepared files."""
        with contextlib.suppress(Exception):
            self._job.result()
        shutil.rmtree(self.staging, ignore_errors=True)


def staged_leftovers(session_dir: Path) -> list[Path]:
    """Staging folders in the session. Under the session's lock none is in use: they are what a
    killed process left behind."""
    return sorted(session_dir.glob(f".head-*{STAGING}{TMP_SUFFIX}"))


def write_head_files(session_dir: Path, project: Project, *, pianoroll: bool = True) -> list[str]:
    """Rewrite the top-level files (all but the WAV) to show `project`; returns the paths written."""
    prepared = HeadFiles(session_dir, project, pianoroll=pianoroll)
    try:
        return prepared.install()
    except BaseException:
        prepared.discard()
        raise


def render_audio(session_dir: Path, project: Project, out_dir: Path) -> list[str]:
    """Render the project's WAV and stems into `out_dir` (laid out as in a session); returns the
    one-line reasons when it could not (no SoundFont)."""
    from bandstand.compose.songfiles import write_audio

    sound = sound_plan(session_dir)
    return write_audio(out_dir, to_song(project), target_lufs=target_lufs(session_dir, sound)).degraded


def install_audio(session_dir: Path, project: Project, staged: Path) -> None:
    """Move a WAV (and stems) rendered for `project` into the session, stamp it, update the manifest."""
    audio = session_dir / "audio"
    stems = audio / "stems"
    if (staged / "audio" / "stems").is_dir():
        for old in stems.glob("*.wav") if stems.is_dir() else ():
            if not (staged / "audio" / "stems" / old.name).exists():
                old.unlink(missing_ok=True)
        stems.mkdir(parents=True, exist_ok=True)
        for new in (staged / "audio" / "stems").glob("*.wav"):
            os.replace(new, stems / new.name)
    audio.mkdir(parents=True, exist_ok=True)
    os.replace(staged / WAV, session_dir / WAV)
    write_json(session_dir / AUDIO_STAMP, {"file": WAV, "revision": project.revision})
    manifest = read_json(session_dir / MANIFEST)
    if isinstance(manifest, dict) and manifest.get("revision") == project.revision:
        write_json(session_dir / MANIFEST, _manifest(session_dir, project, part_files(project), [], manifest,
                                                     manifest.get("pianoroll_source")))

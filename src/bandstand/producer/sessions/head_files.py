"""The session's top-level files show HEAD: after every HEAD move the part MIDI
files, `midi/full-arrangement.mid`, the lead sheet and the mix notes
(`compose.songfiles.write_song_outputs`, the writer compose uses too), the
piano roll, `notes/producer-notes.md` and `manifest.json` are rewritten from
the HEAD project. The manifest is written last and names the revision it
shows, so a session whose manifest is behind HEAD (a crash mid-rewrite) is
repaired on the next open. A file whose bytes would not change is not written
again, and the lead sheet and the piano roll are not even made again when what
they are made from has not changed (the manifest keeps a digest of it). The
preset names, the master's target and the producer notes' story come from
HEAD's recipe (`producer.sessions.head_notes`); the lead sheet names the planned chords
while the chords part plays them, else what the chords part plays.

The WAV is separate: rendering takes seconds, so a HEAD move only marks it
stale (`state/audio.json` names the revision the WAV and stems were rendered
from, the manifest says `audio.stale`); `ensure_audio` renders them for HEAD
when someone listens — `bandstand render SESSION_DIR`, a studio command's
`--audio`, a read through MCP — so whoever needs the WAV gets a current one.
The render plays only the tracks the session's render cache
(`state/render-cache/`, `bandstand.render.trackcache`) does not hold, so after a
one-part edit it plays one part and after an undo none; the bytes are those of
a full render.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.compose.api import (
    LEAD_SHEET,
    MANIFEST,
    RENDER_CACHE,
    lead_sheet_source,
    self_listed,
    song_files,
    write_audio,
)
from bandstand.compose.api import part_files as names
from bandstand.files import TMP_SUFFIX, write_bytes, write_json
from bandstand.score import Song
from bandstand.studio import Project, to_song
from bandstand.studio.store import read_json
from bandstand.version import __version__

if TYPE_CHECKING:
    from bandstand.compose.api import SoundPlan

__all__ = ["AUDIO_STAMP", "FULL_MIDI", "MANIFEST", "PIANOROLL", "PRODUCER_NOTES", "STAGED", "WAV", "HeadFiles",
           "audio_revision", "files_revision", "install_audio", "part_files", "pianoroll_source", "render_audio",
           "sound_plan", "staged_leftovers", "target_lufs", "write_head_files"]

FULL_MIDI = "midi/full-arrangement.mid"
WAV = "audio/full-arrangement.wav"
PIANOROLL = "images/pianoroll.png"
PRODUCER_NOTES = "notes/producer-notes.md"
AUDIO_STAMP = "state/audio.json"
PIPELINE_STATE = "state/pipeline-state.json"


def part_files(project: Project, song: Song | None = None) -> dict[str, str]:
    """Track id → its MIDI file (the names `write_song_outputs` gives: `score.part_names`)."""
    by_track = names(song or to_song(project))
    return {t.id: f"midi/{name}" for t, name in zip(project.tracks, by_track, strict=True)}


def pianoroll_source(song: Song) -> str:
    """A digest of what the piano roll is drawn from (the notes, the sections and the title
    line): the same digest, the same picture."""
    from bandstand.midi import song_to_midi_bytes

    return hashlib.sha256(song_to_midi_bytes(song) + repr((song.title, song.sections)).encode("utf-8")).hexdigest()


def sound_plan(session_dir: Path, project: Project | None = None) -> SoundPlan | None:
    """The sound plan HEAD's files name: `project`'s recipe's (HEAD's when not given), else
    compose's from its pipeline state, else None."""
    from bandstand.producer.sessions.head_notes import story_of

    if project is None:
        from bandstand.studio import RevisionStore

        store = RevisionStore(session_dir)
        if store.exists():
            project = store.project(store.pointer().head)
    if project is None:
        from bandstand.producer.sessions.head_notes import checkpoint_sound

        return checkpoint_sound(session_dir)
    return story_of(session_dir, project, to_song(project)).sound


def target_lufs(session_dir: Path, sound: Any = None) -> float | None:
    """The master's loudness target: the manifest's, else the sound plan's (None: the default)."""
    manifest = read_json(session_dir / MANIFEST)
    try:
        return float(manifest["master"]["target_lufs"])
    except (KeyError, TypeError, ValueError):
        return getattr(sound if sound is not None else sound_plan(session_dir), "target_lufs", None)


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
              pianoroll_source: str | None, lead_sheet_source: str | None = None,
              target: float | None = None) -> dict[str, Any]:
    manifest: dict[str, Any] = dict(old) if isinstance(old, dict) else {"bandstand_version": __version__}
    fresh = {f.rel: {"path": f.rel, "type": f.kind, "description": f.description} for f in written}
    fresh[PRODUCER_NOTES] = {"path": PRODUCER_NOTES, "type": "notes", "description": "producer notes"}
    fresh[PIANOROLL] = {"path": PIANOROLL, "type": "image", "description": "piano roll of every part"}
    stale_stems = audio_revision(session_dir) is None
    entries: list[dict[str, Any]] = []
    listed: set[str] = set()
    for entry in [*manifest.get("files", []), *fresh.values()]:
        rel = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(rel, str) or rel in listed or rel == MANIFEST or not (session_dir / rel).is_file():
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
        # a song whose metre changes: each section with the metre it starts in
        "sections": [{"name": s.name, "start_bar": s.start_bar, "bars": s.bars,
                      **({"time_signature": str(project.metre_at(s.start_bar))} if project.metre_changes else {})}
                     for s in project.sections],
        "track_count": len(project.tracks),
        "parts": [{"role": t.role, "name": t.name, "file": files[t.id], "note_count": t.note_count,
                   "program": t.program, "drum_kit": t.drum_kit, "volume": t.volume, "pan": t.pan}
                  for t in project.tracks],
        "files": entries,
        "audio": {"file": WAV, "revision": wav_rev, "stale": wav_rev != project.revision},
    })
    bpb = ts.beats_per_bar
    if project.metre_changes:  # the metre map after the opening metre, by bar (a one-metre song says nothing more)
        manifest["metre_changes"] = [{"bar": c.bar, "time_signature": str(c.time_signature)}
                                     for c in project.metre_changes]
    else:
        manifest.pop("metre_changes", None)
    if project.key_changes:  # the key map after the opening key, by bar (a one-key song says nothing more)
        manifest["key_changes"] = [{"bar": round(c.beat / bpb) + 1 if not project.metre_changes
                                    else round(_bar(project, c.beat)), "key": c.key} for c in project.key_changes]
    else:
        manifest.pop("key_changes", None)
    if project.tempo_changes:  # the tempo map after the opening tempo, by bar (a bar may be fractional in a jam)
        bars = [round(c.beat / bpb + 1 if not project.metre_changes else _bar(project, c.beat), 3)
                for c in project.tempo_changes]
        manifest["tempo_changes"] = [{"bar": int(bar) if bar == int(bar) else bar, "bpm": c.bpm}
                                     for bar, c in zip(bars, project.tempo_changes, strict=True)]
    else:
        manifest.pop("tempo_changes", None)
    if project.provenance.team:  # an agent team's record: who wrote each section, under which contract
        manifest["team"] = {**project.provenance.team, "contracts": dict(project.provenance.contract_hashes)}
    else:
        manifest.pop("team", None)
    if target is not None:
        manifest["master"] = {**(manifest.get("master") or {}), "target_lufs": target, "ceiling_dbtp": -1.0}
    for key, value in (("pianoroll_source", pianoroll_source), ("lead_sheet_source", lead_sheet_source)):
        if value is not None:
            manifest[key] = value
        else:
            manifest.pop(key, None)
    return manifest


STAGED = ".staged"  # a prepared file: .<name>.head-<pid>-<n>.staged.tmp beside the file it replaces
_WRITERS = ThreadPoolExecutor(max_workers=6, thread_name_prefix="head-files-write")  # the files, side by side


def _put(head: HeadFiles, rel: str, data: bytes) -> None:
    """Stage `data` for `rel` beside it, unless the session's file already holds exactly it. The
    staged file is not fsynced: the files are made from the revision, which is, and a session
    whose files are behind HEAD is repaired when opened."""
    target = head.session_dir / rel
    try:
        if target.read_bytes() == data:
            return
    except OSError:
        pass
    staged = target.with_name(f".{target.name}{head.tag}{STAGED}{TMP_SUFFIX}")
    try:
        staged.write_bytes(data)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        staged.write_bytes(data)
    head.staged[rel] = staged


def _stage(head: HeadFiles) -> list[Any]:
    """Make HEAD's song and files and stage those that change (see `HeadFiles`); returns every
    file's entry."""
    from bandstand.producer.sessions.head_notes import producer_notes, sound_target, story_of

    root, project = head.session_dir, head.project
    song = head.song = to_song(project)
    head.files = part_files(project, song)
    head.old_manifest = read_json(root / MANIFEST)
    story = story_of(root, project, song)
    head.target = sound_target(story, head.old_manifest)
    old = head.old_manifest if isinstance(head.old_manifest, dict) else {}
    head.source = pianoroll_source(song)
    there = (root / PIANOROLL).is_file()
    head.previous = old.get("pianoroll_source") if there else None
    drawn_from = head.previous or (head.drawn if there else None)
    head.draw = head.pianoroll and drawn_from != head.source
    head.lead_source = lead_sheet_source(song, story.chords)
    lead_same = (old.get("lead_sheet_source") or head.lead_written) == head.lead_source and (root / LEAD_SHEET).is_file()
    planned = song_files(song, sound=story.sound, chords=story.chords, target_lufs=head.target)
    jobs: list[Callable[[], Any]] = [partial(lambda f: _put(head, f.rel, f.make()), f) for f in planned
                                     if not (f.rel == LEAD_SHEET and lead_same)]
    jobs.append(lambda: _put(head, PRODUCER_NOTES, producer_notes(project, head.files, story, song).encode("utf-8")))
    if head.draw:
        from bandstand.render.pianoroll import pianoroll_png

        jobs.insert(0, lambda: _put(head, PIANOROLL, pianoroll_png(song)))  # the longest, first
    futures = [_WRITERS.submit(job) for job in jobs]
    for future in futures:
        future.result()
    return planned


class HeadFiles:
    """The top-level files for one project, prepared before HEAD moves and installed after.

    Preparing makes the song, then its files on a worker thread — the part MIDI, the full
    arrangement, the notes, the lead sheet and the piano roll when what they are made from changed
    — and stages, beside each file, the ones whose bytes differ from the session's, while the
    caller writes the revision (its fsyncs let the worker run). `install` renames the staged
    files into place and writes the manifest last; `discard` removes them. A crash leaves only
    staged files (`staged_leftovers`), which the next open of the session removes."""

    _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="head-files")
    _count = itertools.count()

    def __init__(self, session_dir: Path, project: Project, *, pianoroll: bool = True,
                 drawn: str | None = None, lead_written: str | None = None) -> None:
        self.session_dir = session_dir
        self.project = project
        self.pianoroll = pianoroll
        self.drawn = drawn
        self.lead_written = lead_written
        self.tag = f".head-{os.getpid()}-{next(self._count)}"
        self.staged: dict[str, Path] = {}
        # made on the worker thread (`_stage`)
        self.song: Song
        self.files: dict[str, str]
        self.old_manifest: Any = None
        self.target: float | None = None
        self.source = self.lead_source = ""
        self.previous: str | None = None
        self.draw = False
        self._job = self._pool.submit(_stage, self)

    def install(self) -> list[str]:
        """Move the staged files into place and write the manifest; returns the paths."""
        root = self.session_dir
        planned = self._job.result()
        moved = sorted(self.staged)
        for rel in moved:
            os.replace(self.staged[rel], root / rel)
        self.staged.clear()
        keep = {Path(f.rel).name for f in planned if f.rel.startswith("midi/")}
        if (root / "midi").is_dir():
            for stale in (root / "midi").glob("*.mid"):
                if stale.name not in keep:
                    stale.unlink(missing_ok=True)
        drawn = self.source if self.draw and PIANOROLL in moved else self.previous
        write_bytes(root / MANIFEST, self_listed(_manifest(root, self.project, self.files, planned, self.old_manifest,
                                                           drawn, self.lead_source, self.target)))
        return [*moved, MANIFEST]

    def discard(self) -> None:
        """Forget the prepared files."""
        with contextlib.suppress(Exception):
            self._job.result()
        for staged in self.staged.values():
            staged.unlink(missing_ok=True)
        self.staged.clear()


def staged_leftovers(session_dir: Path) -> list[Path]:
    """Files staged for the top level (and the staging folders of earlier versions). Under the
    session's lock none is in use: they are what a killed process left behind."""
    folders = (session_dir, *(session_dir / d for d in ("midi", "notes", "images")))
    return sorted(p for d in folders for p in d.glob(f".*.head-*{STAGED}{TMP_SUFFIX}")) + \
        sorted(session_dir.glob(f".head-*.staging{TMP_SUFFIX}"))


def write_head_files(session_dir: Path, project: Project, *, pianoroll: bool = True,
                     drawn: str | None = None, lead_written: str | None = None) -> list[str]:
    """Rewrite the top-level files (all but the WAV) to show `project`; returns the paths written.
    `drawn` is what the piano roll in the folder was drawn from (its `pianoroll_source`) when the
    caller knows and the manifest does not say (compose drew it a moment ago): it is not drawn
    again when HEAD's is the same; `lead_written`, likewise, what the lead sheet in the folder was
    made from (its `lead_sheet_source`). The manifest records only what it recorded before."""
    prepared = HeadFiles(session_dir, project, pianoroll=pianoroll, drawn=drawn, lead_written=lead_written)
    try:
        return prepared.install()
    except BaseException:
        prepared.discard()
        raise


def render_audio(session_dir: Path, project: Project, out_dir: Path,
                 progress: Callable[[str], None] | None = None) -> list[str]:
    """Render the project's WAV and stems into `out_dir` (laid out as in a session), playing only
    the tracks the session's render cache does not hold; returns the one-line reasons when it
    could not (no SoundFont). `progress` is told what the render does now."""
    from bandstand.producer.sessions.head_notes import sound_target, story_of

    song = to_song(project)
    target = sound_target(story_of(session_dir, project, song), read_json(session_dir / MANIFEST))
    return write_audio(out_dir, song, target_lufs=target, cache=session_dir / RENDER_CACHE, progress=progress).degraded


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
        write_bytes(session_dir / MANIFEST, self_listed(_manifest(
            session_dir, project, part_files(project), [], manifest, manifest.get("pianoroll_source"),
            manifest.get("lead_sheet_source"))))


def _bar(project: Project, beat: float) -> float:
    """The 1-based bar `beat` falls in, with the fraction of it (following the metre map)."""
    bar = project.beat_to_bar(beat + 1e-9)
    return bar + (beat - project.bar_to_beat(bar)) / project.metre_at(bar).beats_per_bar

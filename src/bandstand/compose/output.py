"""Stage 8 — output: the session folder.

    manifest.json
    state/song-state.json, state/pipeline-state.json
    progression/main.progression
    midi/<role>.mid …, midi/full-arrangement.mid
    audio/full-arrangement.wav
    images/pianoroll.png
    notes/preset-assignments.md, effect-chains.md, arrangement-map.md, producer-notes.md

Every file goes through `bandstand.files` (temporary name, then rename).
MIDI, progression and notes are functions of the node outputs only, so the
same prompt and seed write the same bytes. Files a previous run of the same
session left behind (a part that no longer plays) are removed. The manifest
is written last: a folder without one is an unfinished session.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bandstand import __version__
from bandstand.compose import notes
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.state import PipelineState
from bandstand.files import write_bytes, write_json, write_text
from bandstand.score import Song, Track

MANIFEST = "manifest.json"
FULL = "full-arrangement"
KNOWN_DIRS = ("state", "progression", "midi", "audio", "images", "notes")


@dataclass(slots=True)
class FileEntry:
    path: str
    type: str
    description: str
    size: int = 0


@dataclass(slots=True)
class SessionOutput:
    files: list[FileEntry] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)

    def add(self, root: Path, rel: str, kind: str, description: str) -> None:
        self.files.append(FileEntry(rel, kind, description, (root / rel).stat().st_size))


def _single(song: Song, track: Track) -> Song:
    return Song(title=f"{song.title} — {track.role}", tempo=song.tempo, time_signature=song.time_signature,
                key=song.key, sections=list(song.sections), tracks=[track], markers=list(song.markers),
                tempo_changes=list(song.tempo_changes))


def _bare_song(intent: Intent, arrangement: ArrangementPlan, tracks: list[Track]) -> Song:
    from bandstand.score import Marker, Section, TimeSignature

    bpb = intent.time_signature[0]
    return Song(title=intent.summary, tempo=intent.tempo, time_signature=TimeSignature(*intent.time_signature),
                key=f"{intent.key} {intent.mode}",
                sections=[Section(s.name, s.start_bar, s.bars, s.energy) for s in arrangement.sections],
                markers=[Marker((s.start_bar - 1) * bpb, s.name) for s in arrangement.sections], tracks=tracks)


def _remove_stale(folder: Path, keep: set[str], suffix: str) -> None:
    if folder.is_dir():
        for path in folder.glob(f"*{suffix}"):
            if path.name not in keep:
                with contextlib.suppress(OSError):
                    path.unlink()


def _all(tasks: list[Callable[[], Any]]) -> None:
    """Run file writes side by side: each ends in an fsync, which waits on the disk, not
    the interpreter. The first error is raised after all have finished."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(t) for t in tasks]
    for future in futures:
        future.result()


def write_session(root: Path, state: PipelineState, intent: Intent, harmony: Any, arrangement: ArrangementPlan,
                  parts: Mapping[str, Any], sound: SoundPlan | None, song: Song | None,
                  quality: Mapping[str, Any] | None, progression_text: str) -> SessionOutput:
    """Write the session folder (everything but the checkpoint, which the engine keeps)."""
    from bandstand.midi import song_to_midi_bytes

    out = SessionOutput()
    by_role: dict[str, Track] = {t.role: t for t in song.tracks} if song else {r: p.track for r, p in parts.items()}
    whole = song or _bare_song(intent, arrangement, list(by_role.values()))
    planned: list[tuple[str, str, str, Callable[[], Any]]] = [  # (path, type, description, write)
        ("progression/main.progression", "progression", "the chord progression, documented",
         partial(write_text, root / "progression" / "main.progression", progression_text)),
    ]
    for role, track in by_role.items():
        rel = f"midi/{role}.mid"
        data = song_to_midi_bytes(_single(whole, track))
        planned.append((rel, "midi", f"{role} part (GM program {track.program})",
                        partial(write_bytes, root / rel, data)))
        stats = parts[role].stats.model_dump(mode="json") if role in parts else {"role": role}
        out.parts.append({**stats, "file": rel})
    if song is not None:
        full = song_to_midi_bytes(song)
        planned.append((f"midi/{FULL}.mid", "midi", "all parts, conductor track with tempo, key and section markers",
                        partial(write_bytes, root / f"midi/{FULL}.mid", full)))
    else:
        out.degraded.append("no full arrangement: the assembly node did not produce a song")
    _remove_stale(root / "midi", {rel.rsplit("/", 1)[1] for rel, *_ in planned if rel.startswith("midi/")}, ".mid")
    renders = []
    if state.config.render_audio:
        renders.append((f"audio/{FULL}.wav", "audio", "stereo WAV render of the song", "render_wav"))
    if state.config.render_pianoroll:
        renders.append(("images/pianoroll.png", "image", "piano roll of every part", "render_pianoroll"))
    failed: dict[str, str] = {}
    tasks: list[Callable[[], Any]] = [w for *_, w in planned]
    tasks += [partial(_render, failed, root, whole, rel, fn) for rel, _, _, fn in renders]
    _all(tasks)
    for rel, kind, description, _ in planned:
        out.add(root, rel, kind, description)
    for rel, kind, description, _ in renders:
        if rel in failed:
            out.degraded.append(f"{rel} not written: {failed[rel]}")
        else:
            out.add(root, rel, kind, description)

    progression = getattr(harmony, "summary", "")
    table = [(f.path, f.type, f.description) for f in out.files]
    part_rows = [(p["role"], by_role[p["role"]].program, p["file"]) for p in out.parts]
    pages = {
        "notes/preset-assignments.md": notes.preset_assignments(sound),
        "notes/effect-chains.md": notes.effect_chains(sound),
        "notes/arrangement-map.md": notes.arrangement_map(arrangement, intent),
        "notes/producer-notes.md": notes.producer_notes(intent, arrangement, sound, table, part_rows, progression,
                                                       state.seed),
    }
    song_state = state.song_state.model_copy(update={"files": [f.path for f in out.files]})
    second: list[Callable[[], Any]] = [partial(write_text, root / rel, text) for rel, text in pages.items()]
    second.append(partial(write_json, root / "state" / "song-state.json", song_state.model_dump(mode="json")))
    second.append(partial(write_bytes, root / "state" / "pipeline-state.json",
                          state.model_dump_json().encode("utf-8") + b"\n"))
    _all(second)
    for rel in pages:
        out.add(root, rel, "notes", rel.rsplit("/", 1)[1].removesuffix(".md").replace("-", " "))
    out.add(root, "state/song-state.json", "state", "the song as built, with its history")
    out.add(root, "state/pipeline-state.json", "state", "the pipeline checkpoint (resume reads it)")

    write_json(root / MANIFEST, manifest(state, intent, arrangement, out, quality))
    return out


def _render(failed: dict[str, str], root: Path, song: Song, rel: str, fn_name: str) -> None:
    try:
        import bandstand.render as render

        getattr(render, fn_name)(song, root / rel)
    except Exception as exc:  # a missing SoundFont or renderer degrades the session, it does not fail it
        failed[rel] = str(exc)


def manifest(state: PipelineState, intent: Intent, arrangement: ArrangementPlan, out: SessionOutput,
             quality: Mapping[str, Any] | None) -> dict[str, Any]:
    num, den = intent.time_signature
    return {
        "session_id": state.session_id,
        "pipeline_id": state.pipeline_id,
        "created_at": state.created_at.isoformat(),
        "prompt": state.raw_prompt,
        "genre": intent.genre,
        "key": f"{intent.key} {intent.mode}",
        "tempo": intent.tempo,
        "half_time": intent.tempo_analysis.half_time,
        "time_signature": f"{num}/{den}",
        "total_bars": arrangement.total_bars,
        "sections": [{"name": s.name, "start_bar": s.start_bar, "bars": s.bars} for s in arrangement.sections],
        "track_count": len(out.parts),
        "parts": out.parts,
        "files": [{"path": f.path, "type": f.type, "description": f.description, "size": f.size} for f in out.files],
        "nodes": {
            name: {"status": r.status, "duration_ms": r.duration_ms, "retries": r.retry_count,
                   "tool_calls": len(r.tool_calls), "summary": r.summary}
            for name, r in state.nodes.items()
        },
        "quality": dict(quality) if quality else None,
        "degraded": out.degraded,
        "seed": state.seed,
        "bandstand_version": __version__,
        "backends": {"intent": f"rule-based + {state.config.intent_backend}" if state.config.intent_backend
                     else "rule-based", "parts": "algorithmic"},
    }

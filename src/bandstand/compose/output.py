"""Stage 8 — output: the session folder.

    manifest.json
    state/song-state.json, state/pipeline-state.json
    progression/main.progression
    midi/<role>.mid …, midi/full-arrangement.mid
    audio/full-arrangement.wav, audio/stems/<part>.wav
    images/pianoroll.png
    notes/lead-sheet.musicxml, preset-assignments.md, effect-chains.md, mix.md, arrangement-map.md,
    producer-notes.md

The sound plan is written into the song first (`compose.sound.apply_sound`:
each track's level, pan, inserts and sends, the buses), so the files show and
the WAV plays the mix the notes describe; the song's files are written by
`compose.songfiles.write_song_outputs`, the function the studio calls too.
Every file goes through `bandstand.files` (temporary name, then rename).
MIDI, progression and notes are functions of the node outputs only, so the
same prompt and seed write the same bytes. Files a previous run of the same
session left behind (a part that no longer plays) are removed. The manifest
is written last: a folder without one is an unfinished session. It lists
itself among the files, and this node as completed with the time it took up
to the manifest (the last thing it does).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.compose import notes
from bandstand.compose.metres import metre_map
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.songfiles import (
    FULL,
    MANIFEST,
    FileEntry,
    _all,
    part_files,
    self_listed,
    write_song_outputs,
)
from bandstand.compose.songjson import SONG_JSON, song_to_json
from bandstand.compose.sound import apply_sound
from bandstand.compose.state import PipelineState, now
from bandstand.files import write_bytes, write_json, write_text
from bandstand.protocol.jsonvalue import JSONObject
from bandstand.score import Marker, Section, Song, Track
from bandstand.version import __version__

if TYPE_CHECKING:
    from bandstand.render.meter import Meter


@dataclass(slots=True)
class SessionOutput:
    files: list[FileEntry] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    write_failed: bool = False
    out_of_time: bool = False
    pianoroll_of: Song | None = None  # the song the piano roll was drawn from (when it was)
    lead_sheet_source: str | None = None  # the digest of what the lead sheet was made from

    def add(self, root: Path, rel: str, kind: str, description: str) -> None:
        self.files.append(FileEntry(rel, kind, description, (root / rel).stat().st_size))


def _bare_song(intent: Intent, arrangement: ArrangementPlan, tracks: list[Track]) -> Song:
    metres = metre_map(intent, arrangement)
    return Song(title=intent.summary, tempo=intent.tempo, time_signature=metres.opening,
                metre_changes=list(metres.changes), key=f"{intent.key} {intent.mode}",
                sections=[Section(s.name, s.start_bar, s.bars, s.energy) for s in arrangement.sections],
                markers=[Marker(metres.start(s.start_bar), s.name) for s in arrangement.sections], tracks=tracks)


def chord_changes(harmony: HarmonyPlan, arrangement: ArrangementPlan,
                  beats_per_bar: float | Callable[[int], float]) -> list[tuple[float, str]] | None:
    """The chord symbol of every bar where it changes, from the harmony plan and the arrangement
    (bars of `beats_per_bar` beats, or starting where `beats_per_bar(bar)` says: a song whose
    metre changes)."""
    chords = harmony.chords
    if not chords:
        return None
    # bar → its section, as `ArrangementPlan.section_at` finds it (the first that holds it), made once:
    # asking `chord_index_at` bar by bar scans the sections each time (quadratic in a long song)
    section_of: dict[int, SectionPlan] = {}
    for sec in arrangement.sections:
        for b in range(max(1, sec.start_bar), min(sec.end_bar, arrangement.total_bars) + 1):
            section_of.setdefault(b, sec)
    out: list[tuple[float, str]] = []
    for bar in range(1, arrangement.total_bars + 1):
        section = section_of.get(bar)
        if section is None:  # outside every section
            continue
        try:
            symbol = chords[section.chord_indices[bar - section.start_bar]].symbol
        except (IndexError, KeyError):
            continue
        if not out or out[-1][1] != symbol:
            out.append((beats_per_bar(bar) if callable(beats_per_bar) else (bar - 1) * beats_per_bar, symbol))
    return out


def write_session(root: Path, state: PipelineState, intent: Intent, harmony: HarmonyPlan,
                  arrangement: ArrangementPlan, parts: Mapping[str, PartResult], sound: SoundPlan | None, song: Song | None,
                  quality: Mapping[str, Any] | None, progression_text: str, *,
                  cancelled: Callable[[], bool] | None = None,
                  time_up: Callable[[], str | None] | None = None,
                  progress: Callable[[str], None] | None = None) -> SessionOutput:
    """Write the session folder (everything but the checkpoint, which the engine keeps); the WAV
    render stops (`Cancelled`) once `cancelled()` says so — or, when `time_up()` gives a reason,
    the session is written without the WAV (`out_of_time`)."""
    out = SessionOutput()
    by_role: dict[str, Track] = {t.role: t for t in song.tracks} if song else {r: p.track for r, p in parts.items()}
    whole = song or _bare_song(intent, arrangement, list(by_role.values()))
    if song is None:
        out.degraded.append("no full arrangement: the assembly node did not produce a song")
    if sound is not None:
        whole = apply_sound(whole, sound)
    write_text(root / "progression" / "main.progression", progression_text)
    written = write_song_outputs(root, whole, sound=sound, chords=chord_changes(harmony, arrangement, whole.bar_to_beat),
                                 render_audio=state.config.render_audio,
                                 render_pianoroll=state.config.render_pianoroll, cancelled=cancelled,
                                 time_up=time_up, progress=progress, measure=quality is not None)
    if song is None:  # without assembly there is no full arrangement to offer
        (root / "midi" / f"{FULL}.mid").unlink(missing_ok=True)
        written.files = [f for f in written.files if f.path != f"midi/{FULL}.mid"]
    out.add(root, "progression/main.progression", "progression", "the chord progression, documented")
    out.files += written.files
    out.degraded += written.degraded
    out.write_failed = written.write_failed
    out.out_of_time = written.out_of_time
    out.pianoroll_of = written.pianoroll_of
    out.lead_sheet_source = written.lead_sheet_source
    meters = written.meters
    names = {t.name: f"midi/{name}" for name, t in part_files(whole).items()}
    for t in whole.tracks:
        stats = parts[t.role].stats.model_dump(mode="json") if t.role in parts else {"role": t.role}
        out.parts.append({**stats, "name": t.name, "file": names[t.name], "level_db": round(20 * math.log10(t.mix.volume), 2)
                          if t.mix.volume > 0 else None, "pan": t.mix.pan,
                          "preset": notes.preset_name(t, sound)})

    progression = harmony.summary
    pages = {
        "notes/arrangement-map.md": notes.arrangement_map(arrangement, intent),
    }
    table = [(f.path, f.type, f.description) for f in out.files] + [(SONG_JSON, "state", "the song with its mix"),
        ("notes/arrangement-map.md", "notes", "arrangement map"), ("notes/producer-notes.md", "notes",
                                                                   "producer notes")]
    pages["notes/producer-notes.md"] = notes.producer_notes(intent, arrangement, sound, table, whole, names,
                                                            progression, state.seed)
    song_state = state.song_state.model_copy(update={"files": [f[0] for f in table]})
    second: list[Callable[[], Any]] = [partial(write_text, root / rel, text) for rel, text in pages.items()]
    second.append(partial(write_json, root / "state" / "song-state.json", song_state.model_dump(mode="json")))
    second.append(partial(write_bytes, root / SONG_JSON, json.dumps(song_to_json(whole), separators=(",", ":"),
                                                                   ensure_ascii=False).encode("utf-8")))
    second.append(partial(write_bytes, root / "state" / "pipeline-state.json",
                          state.model_dump_json().encode("utf-8") + b"\n"))
    _all(second)
    for rel in pages:
        out.add(root, rel, "notes", rel.rsplit("/", 1)[1].removesuffix(".md").replace("-", " "))
    out.add(root, "state/song-state.json", "state", "the song as built, with its history")
    out.add(root, SONG_JSON, "state", "the finished song with its mix (what the WAV was rendered from)")
    out.add(root, "state/pipeline-state.json", "state", "the pipeline checkpoint (resume reads it)")

    if quality is not None and state.config.render_audio and not out.out_of_time:
        quality = {**quality, "audio": _audio_quality(root, out.parts, meters)}
    data = manifest(state, intent, arrangement, out, quality, sound)
    write_bytes(root / MANIFEST, self_listed(data))
    out.add(root, MANIFEST, "manifest", "what is here, how it was made, timings, quality, seed")
    return out


def _node_entry(state: PipelineState, name: str) -> JSONObject:
    """A node's line in the manifest; the node writing the manifest (output) is reported as
    completed, with its time up to now, since the manifest is the last thing it writes."""
    r = state.nodes[name]
    status, duration = r.status, r.duration_ms
    if r.status == "running" and name == state.current_node and r.started_at is not None:
        status = "completed"
        duration = round((now() - r.started_at).total_seconds() * 1000, 3)
    return {"status": status, "duration_ms": duration, "retries": r.retry_count, "tool_calls": len(r.tool_calls),
            "summary": r.summary}


def _audio_quality(root: Path, parts: list[dict[str, Any]], meters: Mapping[Path, Meter]) -> JSONObject:
    """The stems' audio figures (`compose.quality.audio`), rated against their roles' ranges; from
    the `meters` the render took as it wrote the files (the files are read only where none was)."""
    from bandstand.compose.quality import rate
    from bandstand.compose.quality.audio import audio_figures, stems_by_role

    figures = audio_figures(root / "audio" / f"{FULL}.wav", stems_by_role(root, parts), meters)
    return {name: f.model_dump(mode="json") for name, f in rate(figures).items()}


def manifest(state: PipelineState, intent: Intent, arrangement: ArrangementPlan, out: SessionOutput,
             quality: Mapping[str, Any] | None, sound: SoundPlan | None = None) -> JSONObject:
    metres = metre_map(intent, arrangement)
    opening = metres.opening
    return {
        "session_id": state.session_id,
        "pipeline_id": state.pipeline_id,
        "created_at": state.created_at.isoformat(),
        "prompt": state.raw_prompt,
        "genre": intent.genre,
        # what the prompt's words were read as where they were not taken as written
        # ("tango" played as its nearest genre, a key that does not exist): said, never silent
        "assumptions": [*state.config.assumed, *(a.reason for a in intent.ambiguities if a.severity == "optional")],
        "key": f"{intent.key} {intent.mode}",
        "tempo": intent.tempo,
        "half_time": intent.tempo_analysis.half_time,
        "time_signature": str(opening),
        # a song whose sections have metres of their own: the map after the opening metre, by bar
        **({"metre_changes": [{"bar": c.bar, "time_signature": str(c.time_signature)} for c in metres.changes]}
           if metres.changes else {}),
        "total_bars": arrangement.total_bars,
        "sections": [{"name": s.name, "start_bar": s.start_bar, "bars": s.bars,
                      **({"time_signature": str(metres.at(s.start_bar))} if metres.changes else {})}
                     for s in arrangement.sections],
        "track_count": len(out.parts),
        "parts": out.parts,
        "files": [{"path": f.path, "type": f.type, "description": f.description, "size": f.size} for f in out.files],
        "nodes": {name: _node_entry(state, name) for name in state.nodes},
        "quality": dict(quality) if quality else None,
        # the quality gate's retries: each take judged (what fell short, what was redrawn), the
        # one kept and, when none passed, what was tried said once
        **({"quality_retries": state.quality_retries.model_dump(mode="json")} if state.quality_retries else {}),
        "master": {"target_lufs": sound.target_lufs if sound else -14.0, "ceiling_dbtp": -1.0},
        "degraded": out.degraded,
        "seed": state.seed,
        # the takes compose made of each part (`--takes`): the one kept and every take's score
        "takes": {"count": state.config.takes,
                  "parts": {p["role"]: {"kept": p["take"], "scores": p["takes"]} for p in out.parts
                            if p.get("takes")}},
        "bandstand_version": __version__,
        "backends": {"intent": f"rule-based + {state.config.intent_backend}" if state.config.intent_backend
                     else "rule-based", "parts": "algorithmic"},
    }

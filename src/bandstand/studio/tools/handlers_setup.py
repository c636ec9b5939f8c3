"""Handlers of the setup phase: reading the project, starting over, tempo, key,
metre, tracks and regions. Each is pure: (context, project, params) →
(new project, result with the ids it made)."""

from __future__ import annotations

import re
from typing import Any

from bandstand.errors import InvalidInput, TheoryError
from bandstand.score import TempoChange as ScoreChange
from bandstand.score import TimeSignature as ScoreSignature
from bandstand.score.metre_map import MetreMap, remetre
from bandstand.studio.model import MetreChange, Project, Region, TempoChange, TimeSignature, Track
from bandstand.studio.tools import params as P
from bandstand.studio.tools.registry import ToolContext
from bandstand.studio.tools.resolve import find_track
from bandstand.theory import parse_key

__all__ = [
    "add_midi_region", "add_midi_track", "check_free", "create_project", "read_project", "set_key",
    "set_midi_program", "set_tempo", "set_time_signature", "set_track_colour", "set_track_name", "touch",
]

Result = tuple[Project, dict[str, Any]]


def touch(project: Project, track: Track, **fields: Any) -> Project:
    """The project with `track` changed (and marked as touched by a person or agent)."""
    return project.with_track(track.model_copy(update={**fields, "user_touched": True}))


def check_free(track: Track, start: float, length: float, *, ignore: str | None = None) -> None:
    """Refuse a region span that overlaps another region of the track."""
    end = start + length
    for r in track.regions:
        if r.id != ignore and r.start_beat < end and start < r.end_beat:
            raise InvalidInput(f"beats {start:g}–{end:g} overlap region '{r.name or r.id}' (beats "
                               f"{r.start_beat:g}–{r.end_beat:g}) on track '{track.name}'", field="start_beat")


def _key(text: str) -> str:
    try:
        return str(parse_key(text))
    except TheoryError as exc:
        raise InvalidInput(str(exc), field="key") from None


def read_project(ctx: ToolContext, project: Project, p: P.ReadProject) -> Result:
    bus_names = {b.id: b.name for b in project.buses}

    def region(r: Region) -> dict[str, Any]:
        out: dict[str, Any] = {"id": r.id, "name": r.name, "start_beat": r.start_beat,
                               "length_beats": r.length_beats, "note_count": len(r.notes), "cc_count": len(r.cc),
                               "pitch_bend_count": len(r.pitch_bends), "aftertouch_count": len(r.aftertouch)}
        if p.include_notes:
            out["notes"] = [n.model_dump() for n in r.notes]
        return out

    def track(t: Track) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": t.id, "name": t.name, "role": t.role, "gm_program": t.program, "drum_kit": t.drum_kit,
            "colour": t.colour, "volume": t.volume, "pan": t.pan, "mute": t.mute, "solo": t.solo,
            "inserts": [{"id": e.id, "type": e.type, "params": dict(e.params), "bypass": e.bypass} for e in t.inserts],
            "sends": [{"bus": bus_names[s.bus_id], "bus_id": s.bus_id, "level": s.level} for s in t.sends],
            "automation": [{"parameter": lane.parameter, "points": len(lane.points)} for lane in t.automation],
            "regions": [region(r) for r in t.regions],
        }
        if p.include_automation:
            out["automation"] = [lane.model_dump() for lane in t.automation]
        return out

    ts = project.time_signature
    return project, {
        "project": {
            "id": project.id, "name": project.name, "revision": project.revision, "tempo": project.tempo,
            "key": project.key, "time_signature": f"{ts.numerator}/{ts.denominator}",
            "sections": [s.model_dump() for s in project.sections],
            "buses": [{"id": b.id, "name": b.name, "inserts": [e.type for e in b.inserts]} for b in project.buses],
            "tracks": [track(t) for t in project.tracks],
        }}


def create_project(ctx: ToolContext, project: Project, p: P.CreateProject) -> Result:
    ts = TimeSignature()
    if p.time_signature:
        num, den = (int(x) for x in p.time_signature.split("/"))
        try:
            ts = TimeSignature(numerator=num, denominator=den)
        except ValueError:
            raise InvalidInput(f"time signature {p.time_signature} is not a metre; use e.g. 4/4, 6/8, 7/8",
                               field="time_signature") from None
    fresh = Project(id=ctx.ids.new(), name=p.name, tempo=p.tempo, key=_key(p.key) if p.key else None,
                    time_signature=ts, revision=project.revision, provenance=project.provenance)
    return fresh, {"project_id": fresh.id}


def set_tempo(ctx: ToolContext, project: Project, p: P.SetTempo) -> Result:
    if p.start_bar is None:  # the whole song: one tempo
        return project.model_copy(update={"tempo": p.tempo, "tempo_changes": ()}), {}
    from bandstand.score.tempo_map import retempo

    start = project.bar_to_beat(p.start_bar)
    end = project.bar_to_beat(p.end_bar + 1) if p.end_bar is not None else None
    changes = [ScoreChange(c.beat, c.bpm) for c in project.tempo_changes]
    tempo, after = retempo(project.tempo, changes, start, end, lambda _old: p.tempo)
    return project.model_copy(update={"tempo": tempo, "tempo_changes": tuple(
        TempoChange(beat=c.beat, bpm=c.bpm) for c in after)}), {}


def set_key(ctx: ToolContext, project: Project, p: P.SetKey) -> Result:
    key = _key(p.key)
    return project.model_copy(update={"key": key}), {"key": key}


def set_time_signature(ctx: ToolContext, project: Project, p: P.SetTimeSignature) -> Result:
    ts = TimeSignature(numerator=p.numerator, denominator=p.denominator)
    if p.start_bar is None:  # the whole song: one metre
        return project.model_copy(update={"time_signature": ts, "metre_changes": ()}), {}
    # those bars only, the metre after them as it was; the notes keep their beats (a DAW's
    # time-signature track: the bars are counted anew, nothing is moved)
    now = remetre(MetreMap.of(*project.score_metres()), p.start_bar, p.end_bar,
                  ScoreSignature(p.numerator, p.denominator))

    def of(sig: ScoreSignature) -> TimeSignature:
        return TimeSignature(numerator=sig.numerator, denominator=sig.denominator)

    changes = tuple(MetreChange(bar=c.bar, time_signature=of(c.time_signature)) for c in now.changes)
    return project.model_copy(update={"time_signature": of(now.opening), "metre_changes": changes}), {}


def _unique_name(project: Project, name: str, *, other_than: str | None = None) -> str:
    clean = name.strip()
    if not clean:
        raise InvalidInput("a track needs a name", field="name")
    for t in project.tracks:
        if t.id != other_than and t.name.casefold() == clean.casefold():
            raise InvalidInput(f"there is already a track named '{t.name}' (names are unique, ignoring case)",
                               field="name")
    return clean


def add_midi_track(ctx: ToolContext, project: Project, p: P.AddMidiTrack) -> Result:
    name = _unique_name(project, p.name)
    role = (p.role or re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_") or "part").strip().lower()
    track = Track(id=ctx.ids.new(), name=name, role=role,
                  program=p.gm_program, drum_kit=p.drum_kit, colour=p.colour, user_touched=True)
    return project.with_track(track), {"track_id": track.id}


def add_midi_region(ctx: ToolContext, project: Project, p: P.AddMidiRegion) -> Result:
    """A new region — or, when the track already has one over exactly that span, that one
    (`skipped: true`): creating the same region twice is not a mistake (Maestro's tools are idempotent)."""
    track = find_track(project, p.track)
    same = next((r for r in track.regions if r.start_beat == p.start_beat and r.length_beats == p.length_beats), None)
    if same is not None:
        return project, {"region_id": same.id, "track_id": track.id, "skipped": True}
    check_free(track, p.start_beat, p.length_beats)
    region = Region(id=ctx.ids.new(), track_id=track.id, name=(p.name or "").strip(), start_beat=p.start_beat,
                    length_beats=p.length_beats)
    return project.with_region(region), {"region_id": region.id, "track_id": track.id}


def set_midi_program(ctx: ToolContext, project: Project, p: P.SetMidiProgram) -> Result:
    track = find_track(project, p.track)
    return touch(project, track, program=p.gm_program, drum_kit=p.drum_kit), {}


def set_track_name(ctx: ToolContext, project: Project, p: P.SetTrackName) -> Result:
    track = find_track(project, p.track)
    return touch(project, track, name=_unique_name(project, p.name, other_than=track.id)), {}


def set_track_colour(ctx: ToolContext, project: Project, p: P.SetTrackColour) -> Result:
    track = find_track(project, p.track)
    return touch(project, track, colour=p.colour.lower()), {}

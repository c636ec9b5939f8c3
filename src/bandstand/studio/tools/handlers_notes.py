"""Handlers of the composition, arrangement and expression phases: notes in,
regions moved, copied, deleted, transposed, quantized and swung, and CC, pitch
bend and aftertouch drawn into regions."""

from __future__ import annotations

import math
from typing import Any

from bandstand.errors import InvalidInput
from bandstand.studio.model import (
    AftertouchEvent,
    CCEvent,
    NoteEvent,
    PitchBendEvent,
    Project,
    Region,
    Track,
)
from bandstand.studio.tools import params as P
from bandstand.studio.tools.generate import generate_part as _generate
from bandstand.studio.tools.handlers_setup import check_free, touch
from bandstand.studio.tools.registry import ToolContext
from bandstand.studio.tools.resolve import find_region, find_track

__all__ = [
    "add_aftertouch", "add_midi_cc", "add_notes", "add_pitch_bend", "apply_swing", "clear_notes",
    "delete_region", "duplicate_region", "generate_part", "move_region", "quantize_notes", "remove_notes",
    "transpose_notes", "update_notes",
]

Result = tuple[Project, dict[str, Any]]


def _sorted_notes(notes: list[NoteEvent]) -> tuple[NoteEvent, ...]:
    return tuple(sorted(notes, key=lambda n: (n.start, n.pitch, n.duration, n.velocity)))


def _update(project: Project, region: Region, **fields: Any) -> Project:
    track = project.track_by_id(region.track_id)
    changed = region.model_copy(update=fields)
    return touch(project, track, regions=tuple(changed if r.id == region.id else r for r in track.regions))


def add_notes(ctx: ToolContext, project: Project, p: P.AddNotes) -> Result:
    _, region = find_region(project, p.region)
    for i, n in enumerate(p.notes):
        if n.start >= region.length_beats:
            raise InvalidInput(f"notes[{i}] starts at beat {n.start:g}, past the end of region "
                               f"'{region.name or region.id}' ({region.length_beats:g} beats long); start is "
                               "beats from the region's start", field=f"notes.{i}.start")
    new = [NoteEvent(id=ctx.ids.new(), pitch=n.pitch, start=n.start, duration=n.duration, velocity=n.velocity)
           for n in p.notes]
    project = _update(project, region, notes=_sorted_notes([*region.notes, *new]))
    return project, {"region_id": region.id, "note_ids": [n.id for n in new], "note_count": len(region.notes) + len(new)}


def generate_part(ctx: ToolContext, project: Project, p: P.GeneratePart) -> Result:
    return _generate(project, generator=ctx.generator, ids=ctx.ids, role=p.role, bars=p.bars, style=p.style,
                     key=p.key, section=p.section, start_bar=p.start_bar, track=p.track,
                     constraints=p.constraints, offset_beats=p.offset_beats)


def move_region(ctx: ToolContext, project: Project, p: P.MoveRegion) -> Result:
    track, region = find_region(project, p.region)
    target = find_track(project, p.track) if p.track else track
    check_free(target, p.start_beat, region.length_beats, ignore=region.id)
    moved = region.model_copy(update={"start_beat": p.start_beat, "track_id": target.id})
    if target.id != track.id:
        project = touch(project, track, regions=tuple(r for r in track.regions if r.id != region.id))
        target = project.track_by_id(target.id)
        regions = sorted([*target.regions, moved], key=lambda r: r.start_beat)
        return touch(project, target, regions=tuple(regions)), {"region_id": region.id, "track_id": target.id}
    regions = sorted((moved if r.id == region.id else r for r in track.regions), key=lambda r: r.start_beat)
    return touch(project, track, regions=tuple(regions)), {"region_id": region.id, "track_id": track.id}


def duplicate_region(ctx: ToolContext, project: Project, p: P.DuplicateRegion) -> Result:
    track, region = find_region(project, p.region)
    start = region.end_beat if p.start_beat is None else p.start_beat
    check_free(track, start, region.length_beats)
    copy = region.model_copy(update={
        "id": ctx.ids.new(), "start_beat": start,
        "notes": tuple(n.model_copy(update={"id": ctx.ids.new()}) for n in region.notes)})
    return project.with_region(copy), {"region_id": copy.id, "track_id": track.id}


def delete_region(ctx: ToolContext, project: Project, p: P.DeleteRegion) -> Result:
    track, region = find_region(project, p.region)
    return touch(project, track, regions=tuple(r for r in track.regions if r.id != region.id)), {}


def transpose_notes(ctx: ToolContext, project: Project, p: P.TransposeNotes) -> Result:
    _, region = find_region(project, p.region)
    out = []
    for n in region.notes:
        pitch = n.pitch + p.semitones
        if not 0 <= pitch <= 127:
            raise InvalidInput(f"transposing by {p.semitones} moves note {n.pitch} at beat {n.start:g} to {pitch}, "
                               "outside 0..127", field="semitones")
        out.append(n.model_copy(update={"pitch": pitch}))
    return _update(project, region, notes=_sorted_notes(out)), {"note_count": len(out)}


def quantize_notes(ctx: ToolContext, project: Project, p: P.QuantizeNotes) -> Result:
    _, region = find_region(project, p.region)
    grid = p.grid_beats
    out = []
    moved = 0
    for n in region.notes:
        absolute = region.start_beat + n.start
        target = round(absolute / grid) * grid - region.start_beat
        start = max(0.0, n.start + (target - n.start) * p.strength)
        if start >= region.length_beats:
            start = n.start
        moved += start != n.start
        out.append(n.model_copy(update={"start": start}))
    return _update(project, region, notes=_sorted_notes(out)), {"notes_moved": moved}


def apply_swing(ctx: ToolContext, project: Project, p: P.ApplySwing) -> Result:
    _, region = find_region(project, p.region)
    g = 0.5 if p.grid == "8ths" else 0.25
    out = []
    moved = 0
    for n in region.notes:
        k = (region.start_beat + n.start) / g
        nearest = round(k)
        if abs(k - nearest) < 0.05 and nearest % 2 == 1:  # an off-beat of the grid
            start = n.start + p.amount * g / 3
            if start < region.length_beats and not math.isclose(start, n.start):
                n = n.model_copy(update={"start": start})
                moved += 1
        out.append(n)
    return _update(project, region, notes=_sorted_notes(out)), {"notes_moved": moved}


def clear_notes(ctx: ToolContext, project: Project, p: P.ClearNotes) -> Result:
    _, region = find_region(project, p.region)
    return _update(project, region, notes=()), {"notes_removed": len(region.notes)}


def _notes_by_id(region: Region, ids: list[str], field: str) -> dict[str, NoteEvent]:
    notes = {n.id: n for n in region.notes}
    for i, note_id in enumerate(ids):
        if note_id not in notes:
            raise InvalidInput(f"region '{region.name or region.id}' has no note '{note_id}' (read_project with "
                               "include_notes lists the notes and their ids)", field=field.format(i))
    return notes


def update_notes(ctx: ToolContext, project: Project, p: P.UpdateNotes) -> Result:
    _, region = find_region(project, p.region)
    notes = _notes_by_id(region, [c.id for c in p.notes], "notes.{}.id")
    for i, change in enumerate(p.notes):
        values = {k: v for k, v in change.model_dump(exclude={"id"}).items() if v is not None}
        note = notes[change.id].model_copy(update=values)
        if note.start >= region.length_beats:
            raise InvalidInput(f"notes[{i}] would start at beat {note.start:g}, past the end of region "
                               f"'{region.name or region.id}' ({region.length_beats:g} beats long)",
                               field=f"notes.{i}.start")
        notes[change.id] = note
    return _update(project, region, notes=_sorted_notes(list(notes.values()))), {"note_count": len(notes)}


def remove_notes(ctx: ToolContext, project: Project, p: P.RemoveNotes) -> Result:
    _, region = find_region(project, p.region)
    _notes_by_id(region, p.note_ids, "note_ids.{}")
    gone = set(p.note_ids)
    kept = [n for n in region.notes if n.id not in gone]
    return _update(project, region, notes=tuple(kept)), {"notes_removed": len(region.notes) - len(kept),
                                                          "note_count": len(kept)}


def _check_beats(region: Region, beats: list[float]) -> None:
    for i, beat in enumerate(beats):
        if beat > region.length_beats:
            raise InvalidInput(f"events[{i}] at beat {beat:g} is past the end of region '{region.name or region.id}' "
                               f"({region.length_beats:g} beats); beats count from the region's start",
                               field=f"events.{i}.beat")


def add_midi_cc(ctx: ToolContext, project: Project, p: P.AddMidiCC) -> Result:
    _, region = find_region(project, p.region)
    _check_beats(region, [e.beat for e in p.events])
    events = [*region.cc, *(CCEvent(beat=e.beat, cc=p.cc, value=e.value) for e in p.events)]
    return _update(project, region, cc=tuple(sorted(events, key=lambda e: (e.beat, e.cc)))), {}


def add_pitch_bend(ctx: ToolContext, project: Project, p: P.AddPitchBend) -> Result:
    track, region = find_region(project, p.region)
    given = [(e.beat, e.value) for e in p.events] or _idiomatic(ctx, track, region, p.style or "")
    _check_beats(region, [beat for beat, _ in given])
    # the player's own bends take the place of those the part was written with (a metal lead's), not
    # a second set on top of them
    kept = () if p.idiom else region.pitch_bends
    events = [*kept, *(PitchBendEvent(beat=beat, value=value) for beat, value in given)]
    return _update(project, region, pitch_bends=tuple(sorted(events, key=lambda e: e.beat))), {"bend_count": len(given)}


def _idiomatic(ctx: ToolContext, track: Track, region: Region, style: str) -> list[tuple[float, int]]:
    """The bends `track`'s player makes over `region`'s notes (the context's bender: the craft's)."""
    bender = ctx.bender
    if bender is None:
        raise InvalidInput("idiomatic bends need a bender and none is configured here; give the events",
                           field="events")
    if track.role not in bender.roles:
        raise InvalidInput(f"'{track.name}' plays {track.role or 'no role'}, which is not bent (a bend moves every note "
                           f"the channel holds); idiomatic bends are for {', '.join(bender.roles)}", field="idiom")
    if not region.notes:
        raise InvalidInput(f"region '{region.name or region.id}' has no notes to bend", field="region")
    bends = bender.make([(n.start, n.duration, n.pitch) for n in region.notes], track.role, style,
                        region.length_beats)
    return [(b, v) for b, v in bends if b < region.length_beats]


def add_aftertouch(ctx: ToolContext, project: Project, p: P.AddAftertouch) -> Result:
    _, region = find_region(project, p.region)
    _check_beats(region, [e.beat for e in p.events])
    events = [*region.aftertouch, *(AftertouchEvent(beat=e.beat, value=e.value, pitch=p.pitch) for e in p.events)]
    kind = "channel" if p.pitch is None else "poly"
    return _update(project, region, aftertouch=tuple(sorted(events, key=lambda e: e.beat))), {"kind": kind}

"""`generate_part`: the one tool whose music comes from outside the studio.

The studio knows no composer. Whoever runs the tools passes a `PartGenerator`
(the producer hands in the compose generator; tests and other programs may
pass their own): it gets the project and a `PartRequest` and returns a
`GeneratedPart` — notes in beats from the part's first bar, plus the sound it
wants. The handler lands it as one region on the role's track (made when
missing), replacing a region that covers exactly the same bars.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bandstand.errors import InvalidInput
from bandstand.score import ControlChange, Note, PitchBend
from bandstand.studio.model import (
    CCEvent,
    NoteEvent,
    PitchBendEvent,
    Project,
    Region,
    Track,
)
from bandstand.studio.tools.resolve import find_track, suggest

__all__ = ["GeneratedPart", "PartGenerator", "PartRequest", "generate_part"]


@dataclass(frozen=True, slots=True)
class PartRequest:
    """What to generate: `bars` bars for `role` from 1-based `start_bar` (in section `section`
    when named), in `key`, with free-text `style` words and `constraints`."""

    role: str
    bars: int
    start_bar: int
    key: str | None
    style: str | None = None
    section: str | None = None
    constraints: tuple[str, ...] = ()
    track_id: str | None = None


@dataclass(frozen=True, slots=True)
class GeneratedPart:
    """Generated music; times in beats from the start of `start_bar`."""

    notes: Sequence[Note]
    controls: Sequence[ControlChange] = ()
    pitch_bends: Sequence[PitchBend] = ()
    program: int = 0
    is_drum: bool = False
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class PartGenerator(Protocol):
    """Makes the music `generate_part` asks for."""

    def __call__(self, project: Project, request: PartRequest) -> GeneratedPart: ...


def _start_bar(project: Project, section: str | None, start_bar: int | None) -> int:
    if section is None:
        return start_bar or 1
    for s in project.sections:
        if s.name.casefold() == section.strip().casefold():
            return s.start_bar
    raise InvalidInput(f"no section '{section}'{suggest(section, [s.name for s in project.sections], 'sections')}",
                       field="section")


def generate_part(project: Project, *, generator: PartGenerator | None, ids: Any, role: str, bars: int,
                  style: str | None, key: str | None, section: str | None, start_bar: int | None,
                  track: str | None, constraints: Sequence[str], offset_beats: float = 0.0,
                  ) -> tuple[Project, dict[str, Any]]:
    """Run the generator and land its notes; returns the project and {track_id, region_id, note_count}."""
    if generator is None:
        raise InvalidInput("generate_part needs a part generator and none is configured here; "
                       "add the notes with add_notes instead", field="role")
    first = _start_bar(project, section, start_bar)
    target: Track | None = find_track(project, track) if track else next(
        (t for t in project.tracks if t.role.casefold() == role.strip().casefold()), None)
    request = PartRequest(role=role.strip().lower(), bars=bars, start_bar=first, key=key or project.key,
                          style=style, section=section, constraints=tuple(constraints),
                          track_id=target.id if target else None)
    part = generator(project, request)
    length = bars * project.beats_per_bar
    if target is None:
        name = request.role.replace("_", " ").title()
        taken = {t.name.casefold() for t in project.tracks}
        n = 2
        while name.casefold() in taken:
            name, n = f"{request.role.replace('_', ' ').title()} {n}", n + 1
        target = Track(id=ids.new(), name=name, role=request.role,
                       program=None if part.is_drum else part.program, drum_kit=part.program if part.is_drum else None)
        project = project.with_track(target)
    start = project.bar_to_beat(first) + offset_beats
    if start < 0:
        raise InvalidInput(f"offset_beats {offset_beats:g} starts the part before the song's first beat",
                           field="offset_beats")
    keep = [n for n in part.notes if 0 <= n.start < length]
    existing = next((r for r in target.regions if r.start_beat == start and r.length_beats == length), None)
    region = Region(
        id=existing.id if existing else ids.new(), track_id=target.id,
        name=section or (existing.name if existing else f"{request.role} {first}–{first + bars - 1}"),
        start_beat=start, length_beats=length,
        notes=tuple(NoteEvent(id=ids.new(), pitch=n.pitch, start=n.start, duration=n.duration, velocity=n.velocity)
                    for n in keep),
        cc=tuple(CCEvent(beat=c.time, cc=c.control, value=c.value) for c in part.controls if c.time < length),
        pitch_bends=tuple(PitchBendEvent(beat=b.time, value=b.value) for b in part.pitch_bends if b.time < length),
    )
    project = project.with_region(region)
    return project, {"track_id": target.id, "region_id": region.id, "note_count": len(keep),
                     "description": part.description}

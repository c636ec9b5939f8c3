"""A `Form:` in `Mode: edit`: the song reshaped into the sections asked for, as a variation.

The asked form is lined up with the song's own sections by kind (a diff of the two
sequences): a section both have keeps its music; a section the song lacks is a copy of the
song's nearest section of that kind (a third chorus, a second verse); a section left out is
cut; a section given more bars repeats its own bars, given fewer keeps its first ones. Every
part moves with its bars — notes, controllers, bends, aftertouch, automation and markers —
and the compose recipe's arrangement follows, so later requests regenerate the new form.
What cannot be honoured is refused in one line: a section kind the song has nowhere to copy
from (compose it again with that Form), section names no Form word reads, tempo or key
changes along the way, or a form the song already has.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from itertools import pairwise
from typing import Any

from bandstand.errors import InvalidInput
from bandstand.producer.requests.structured_form import FormSection, section_kind
from bandstand.studio import Project
from bandstand.studio.ids import IdIssuer
from bandstand.studio.model import Region, Section, Track

__all__ = ["Reshaped", "reshape"]


class Reshaped:
    """The reshaped project and what changed, in words."""

    def __init__(self, project: Project, summary: str) -> None:
        self.project = project
        self.summary = summary


def _song_kinds(project: Project) -> list[str]:
    kinds = []
    for s in project.sections:
        base = re.sub(r"\s+(?:\d+|[A-Z]|Tail)$", "", s.name.strip())
        kind = section_kind(base) or section_kind(base.split(" ")[0])
        if kind is None:
            raise InvalidInput(f"Form: the song's section '{s.name}' is not one a Form names, so its form is kept; "
                               "compose it again with this Form (Mode: compose)", field="Form")
        kinds.append(kind)
    return kinds


def _sources(old: list[str], new: list[str], asked: tuple[FormSection, ...]) -> list[int]:
    """For each asked section, the index of the song's section it takes its music from."""
    out: list[int | None] = [None] * len(new)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                out[j1 + k] = i1 + k
            continue
        for j in range(j1, j2):  # inserted (or replaced): the nearest section of its kind
            same = [i for i, kind in enumerate(old) if kind == new[j]]
            if not same:
                raise InvalidInput(f"Form: the song has no {asked[j].name.lower()} to build one from; compose it "
                                   "again with this Form (Mode: compose), or add the part in words", field="Form")
            out[j] = min(same, key=lambda i: (abs(i - i1), i))
    return [int(i) for i in out if i is not None]


def _labels(names: list[str]) -> list[str]:
    total = Counter(names)
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        seen[name] += 1
        out.append(f"{name} {seen[name]}" if total[name] > 1 else name)
    return out


def _move(region: Region, copies: dict[int, list[int]], bpb: float, ids: IdIssuer) -> Region | None:
    """`region` with its events in the new bars (None when none of its bars is kept)."""
    first = int(region.start_beat // bpb)
    last = max(first + 1, int(-(-(region.start_beat + region.length_beats) // bpb)))
    landing = sorted(nb for ob in range(first, last) for nb in copies.get(ob, ()))
    if not landing:
        return None
    start = landing[0] * bpb
    end = (landing[-1] + 1) * bpb

    def place(beat: float) -> list[tuple[int, float]]:
        absolute = region.start_beat + beat
        ob = int(absolute // bpb)
        return [(i, nb * bpb + (absolute - ob * bpb) - start) for i, nb in enumerate(copies.get(ob, ()))]

    notes = []
    for n in region.notes:
        for i, at in place(n.start):
            notes.append(n.model_copy(update={"id": n.id if i == 0 else ids.new(), "start": at,
                                              "duration": max(1e-3, min(n.duration, end - start - at))}))
    events: dict[str, Any] = {kind: tuple(sorted((e.model_copy(update={"beat": at}) for e in getattr(region, kind)
                                                  for _, at in place(e.beat)), key=lambda e: e.beat))
                              for kind in ("cc", "pitch_bends", "aftertouch")}
    return region.model_copy(update={"start_beat": start, "length_beats": end - start,
                                     "notes": tuple(sorted(notes, key=lambda n: (n.start, n.pitch))), **events})


def _automation(track: Track, copies: dict[int, list[int]], bpb: float) -> Track:
    lanes = []
    for lane in track.automation:
        points = {}
        for p in lane.points:
            ob = int(p.beat // bpb)
            for nb in copies.get(ob, ()):
                at = nb * bpb + (p.beat - ob * bpb)
                points[at] = p.model_copy(update={"beat": at})
        lanes.append(lane.model_copy(update={"points": tuple(points[b] for b in sorted(points))}))
    return track.model_copy(update={"automation": tuple(lanes)})


def _recipe(recipe: dict[str, Any], old: tuple[Section, ...], sections: list[Section], sources: list[int],
            source_bar: list[int]) -> dict[str, Any]:
    """The compose recipe's arrangement in the new form (its sections found by their first bar)."""
    arrangement = recipe.get("arrangement")
    if not isinstance(arrangement, dict) or not isinstance(arrangement.get("sections"), list):
        return recipe
    by_start = {int(s.get("start_bar", 0)): s for s in arrangement["sections"] if isinstance(s, dict)}
    planned = []
    for section, src in zip(sections, sources, strict=True):
        was = by_start.get(old[src].start_bar)
        if was is None:
            return recipe
        chords = list(was.get("chord_indices") or [])
        planned.append({**was, "name": section.name, "start_bar": section.start_bar, "bars": section.bars,
                        "chord_indices": [chords[i % len(chords)] for i in range(section.bars)] if chords else []})
    energy = list(arrangement.get("bar_energy") or [])
    moved = {**arrangement, "sections": planned, "total_bars": len(source_bar), "form_name": "custom",
             "bar_energy": [energy[b] for b in source_bar] if len(energy) > max(source_bar) else energy}
    return {**recipe, "arrangement": moved}


def reshape(project: Project, asked: tuple[FormSection, ...], ids: IdIssuer) -> Reshaped:
    """The project in the `asked` form (see the module docstring); `InvalidInput` when it cannot be."""
    if project.tempo_changes or project.key_changes:
        raise InvalidInput("Form: this song changes tempo or key along the way; its form is kept in an edit — "
                           "compose it again with this Form (Mode: compose)", field="Form")
    old = project.sections
    if not old or old[0].start_bar != 1 or any(a.end_bar != b.start_bar for a, b in pairwise(old)):
        raise InvalidInput("Form: the song's sections do not run bar by bar from the start, so its form is kept",
                           field="Form")
    kinds = _song_kinds(project)
    sources = _sources(kinds, [s.kind for s in asked], asked)
    bars = [a.bars if a.said else old[src].bars for a, src in zip(asked, sources, strict=True)]
    source_bar = [old[src].start_bar - 1 + k % old[src].bars for src, n in zip(sources, bars, strict=True)
                  for k in range(n)]
    if source_bar == list(range(old[-1].end_bar - 1)):
        raise InvalidInput("Form: the song already has this form (" + ", ".join(
            f"{s.name} {s.bars}" for s in old) + "); nothing to change", field="Form")
    copies: dict[int, list[int]] = {}
    for nb, ob in enumerate(source_bar):
        copies.setdefault(ob, []).append(nb)
    names = _labels([re.sub(r"\s+\d+$", "", old[src].name) for src in sources])
    sections, start = [], 1
    for name, src, n in zip(names, sources, bars, strict=True):
        sections.append(Section(name=name, start_bar=start, bars=n, energy=old[src].energy))
        start += n
    bpb = project.beats_per_bar
    tracks = []
    for track in project.tracks:
        regions = [r for r in (_move(r, copies, bpb, ids) for r in track.regions) if r is not None]
        tracks.append(_automation(track.model_copy(update={"regions": tuple(regions)}), copies, bpb))
    markers = tuple(m.model_copy(update={"beat": copies[int(m.beat // bpb)][0] * bpb + m.beat % bpb})
                    for m in project.markers if int(m.beat // bpb) in copies)
    provenance = project.provenance.model_copy(update={"recipe": _recipe(
        dict(project.provenance.recipe), old, sections, sources, source_bar)})
    reshaped = project.model_copy(update={"sections": tuple(sections), "tracks": tuple(tracks), "markers": markers,
                                          "provenance": provenance})
    summary = (f"Reshaped into {' – '.join(f'{s.name} {s.bars}' for s in sections)} "
               f"({old[-1].end_bar - 1} → {start - 1} bars)")
    return Reshaped(Project.model_validate(reshaped.model_dump()), summary)

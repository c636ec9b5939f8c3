"""Three-way merge of two projects that grew apart from one revision (a branch
merged into another). Each thing a change can touch is compared on its own —
a song field (tempo, key, sections…), a bus, a part's settings one by one, a
part's region (one per section) — and taken from the side that changed it.
When both sides changed the same thing differently it is a clash, named the
way a musician says it ("Bass in chorus (bars 9–16)", "Drums volume",
"the sections"); a merge with any clash makes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import ValidationError

from bandstand.studio.model import BusSpec, Project, Region, Track

__all__ = ["MergeResult", "merge_projects"]

T = TypeVar("T")

# every song-wide field but the ones merged their own way, so a field added to `Project` is merged too
_SONG_FIELDS = tuple(f for f in Project.model_fields if f not in ("id", "revision", "provenance", "buses", "tracks"))
_SONG_LABELS = {"name": "the song's name"}
_TRACK_FIELDS = tuple(f for f in Track.model_fields if f not in ("id", "regions"))


class _Clash(Exception):
    pass


@dataclass(frozen=True, slots=True)
class MergeResult:
    """The merged project (None when anything clashed) and the clashes, in the song's order."""

    project: Project | None
    conflicts: tuple[str, ...]


def _pick(base: T | None, ours: T | None, theirs: T | None) -> T | None:
    """The side that changed (ours when both made the same change); a clash when both changed it."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    raise _Clash


def _by_id(items: tuple[T, ...], key: Callable[[T], str]) -> dict[str, T]:
    return {key(i): i for i in items}


def _ordered(ours: tuple[T, ...], theirs: tuple[T, ...], key: Callable[[T], str]) -> list[str]:
    """Ids in our order, then the ones only theirs has, in theirs' order."""
    ids = [key(i) for i in ours]
    return ids + [key(i) for i in theirs if key(i) not in ids]


def _region_label(project: Project, track: Track, region: Region) -> str:
    bpb = project.beats_per_bar
    first = int(region.start_beat // bpb) + 1
    last = max(first, int(-(-(region.start_beat + region.length_beats) // bpb)))
    bars = f"bar {first}" if first == last else f"bars {first}–{last}"
    return f"{track.name} in {region.name} ({bars})" if region.name else f"{track.name} in {bars}"


def _merge_track(project: Project, base: Track, ours: Track, theirs: Track, clashes: list[str]) -> Track:
    fields = {}
    for name in _TRACK_FIELDS:
        try:
            fields[name] = _pick(getattr(base, name), getattr(ours, name), getattr(theirs, name))
        except _Clash:
            clashes.append(f"{ours.name} {name.replace('_', ' ')}")
    b, o, t = (_by_id(x.regions, lambda r: r.id) for x in (base, ours, theirs))
    regions = []
    for rid in _ordered(ours.regions, theirs.regions, lambda r: r.id):
        try:
            region = _pick(b.get(rid), o.get(rid), t.get(rid))
        except _Clash:
            shown = o.get(rid) or t.get(rid) or b[rid]
            clashes.append(_region_label(project, ours, shown))
            continue
        if region is not None:
            regions.append(region)
    regions.sort(key=lambda r: (r.start_beat, r.id))
    return ours.model_copy(update={**fields, "regions": tuple(regions)})


def merge_projects(base: Project, ours: Project, theirs: Project) -> MergeResult:
    """`theirs`' changes since `base` made on `ours` (whose id and revision the result keeps)."""
    clashes: list[str] = []
    song = {}
    for name in _SONG_FIELDS:
        try:
            song[name] = _pick(getattr(base, name), getattr(ours, name), getattr(theirs, name))
        except _Clash:
            clashes.append(_SONG_LABELS.get(name, f"the {name.replace('_', ' ')}"))
    provenance = ours.provenance if ours.provenance != base.provenance else theirs.provenance

    bus_b, bus_o, bus_t = (_by_id(p.buses, lambda x: x.id) for p in (base, ours, theirs))
    buses: list[BusSpec] = []
    for bid in _ordered(ours.buses, theirs.buses, lambda x: x.id):
        try:
            bus = _pick(bus_b.get(bid), bus_o.get(bid), bus_t.get(bid))
        except _Clash:
            clashes.append(f"the {(bus_o.get(bid) or bus_t.get(bid) or bus_b[bid]).name} bus")
            continue
        if bus is not None:
            buses.append(bus)

    tr_b, tr_o, tr_t = (_by_id(p.tracks, lambda x: x.id) for p in (base, ours, theirs))
    tracks: list[Track] = []
    for tid in _ordered(ours.tracks, theirs.tracks, lambda x: x.id):
        b, o, t = tr_b.get(tid), tr_o.get(tid), tr_t.get(tid)
        try:
            track = _pick(b, o, t)
        except _Clash:
            if b is None or o is None or t is None:
                name = (o or t or b).name  # type: ignore[union-attr]
                clashes.append(f"{name} (removed on one branch, changed on the other)")
                continue
            track = _merge_track(ours, b, o, t, clashes)
        if track is not None:
            tracks.append(track)

    if clashes:
        return MergeResult(None, tuple(clashes))
    merged = ours.model_copy(update={**song, "provenance": provenance, "buses": tuple(buses), "tracks": tuple(tracks)})
    try:  # checked whole: a part may send to a bus the other branch removed
        return MergeResult(Project.model_validate(merged.model_dump()), ())
    except ValidationError as exc:
        return MergeResult(None, (f"the merged song does not hold together: {str(exc).splitlines()[-1].strip()}",))

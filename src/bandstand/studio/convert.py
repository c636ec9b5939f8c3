"""The bridge between a project and a `score.Song` — export (MIDI, WAV, stems,
piano roll) and the compose pipeline need no second model.

- `to_song(project)`: regions flattened to song time, the mix and buses carried
  as `score.mix` values.
- `from_song(song, ids=…)`: one region per section per track (events outside
  every section get a region of their own), so a song opens like a DAW
  arrangement. `to_song(from_song(song)) == song` for every song whose event
  lists are in time order (what compose and the MIDI reader produce) and whose
  track names are unique and at most 50 characters (others are made so).
  Region starts are whole bars, so relative times convert back exactly.
- `merge_song(base, song, ids)`: the song's content in the base project's
  shape — tracks, buses, regions and notes that match keep their ids, so a
  regenerated part diffs as changes to the notes it really changed.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bandstand import score
from bandstand.score.metre_map import MetreMap, move_beat
from bandstand.studio.ids import IdIssuer, RandomIds
from bandstand.studio.model import (
    NAME_MAX,
    AftertouchEvent,
    AutomationLaneSpec,
    AutomationPointSpec,
    BusSpec,
    CCEvent,
    EffectSpec,
    KeyChange,
    Marker,
    MetreChange,
    NoteEvent,
    PitchBendEvent,
    ProgramChangeEvent,
    Project,
    Provenance,
    Region,
    Section,
    SendSpec,
    TempoChange,
    TimeSignature,
    Track,
)

__all__ = ["from_song", "merge_song", "to_song", "track_to_score"]


# --------------------------------------------------------------------------- project → song


def track_to_score(project: Project, track: Track) -> score.Track:
    """One project track as a `score.Track` (events in song time, mix as `score.mix`)."""
    bus_names = {b.id: b.name for b in project.buses}
    notes: list[score.Note] = []
    controls: list[score.ControlChange] = []
    bends: list[score.PitchBend] = []
    channel_at: list[score.ChannelAftertouch] = []
    poly_at: list[score.PolyAftertouch] = []
    for region in track.regions:
        s = region.start_beat
        notes += [score.Note(s + n.start, n.duration, n.pitch, n.velocity) for n in region.notes]
        controls += [score.ControlChange(s + c.beat, c.cc, c.value) for c in region.cc]
        bends += [score.PitchBend(s + b.beat, b.value) for b in region.pitch_bends]
        for a in region.aftertouch:
            if a.pitch is None:
                channel_at.append(score.ChannelAftertouch(s + a.beat, a.value))
            else:
                poly_at.append(score.PolyAftertouch(s + a.beat, a.pitch, a.value))
    mix = score.TrackMix(
        volume=track.volume, pan=track.pan, mute=track.mute, solo=track.solo,
        inserts=tuple(e.to_effect() for e in track.inserts),
        sends=tuple(score.Send(bus_names[s.bus_id], s.level) for s in track.sends),
        automation=tuple(lane.to_lane() for lane in track.automation),
    )
    program = track.drum_kit if track.drum_kit is not None else track.program
    return score.Track(
        name=track.name, role=track.role, program=program or 0, is_drum=track.is_drum, channel=track.channel,
        notes=notes, controls=controls, pitch_bends=bends, aftertouch=channel_at, poly_aftertouch=poly_at,
        program_changes=[score.ProgramChange(p.beat, p.program) for p in track.program_changes], mix=mix,
    )


def to_song(project: Project) -> score.Song:
    """The project as a `score.Song` — everything the render hears."""
    ts = project.time_signature
    return score.Song(
        title=project.name, tempo=project.tempo,
        time_signature=score.TimeSignature(ts.numerator, ts.denominator), key=project.key,
        metre_changes=project.score_metres()[1],
        sections=[score.Section(s.name, s.start_bar, s.bars, s.energy) for s in project.sections],
        tracks=[track_to_score(project, t) for t in project.tracks],
        markers=[score.Marker(m.beat, m.text) for m in project.markers],
        tempo_changes=[score.TempoChange(c.beat, c.bpm) for c in project.tempo_changes],
        key_changes=[score.KeyChange(c.beat, c.key) for c in project.key_changes],
        buses=[score.Bus(b.name, tuple(e.to_effect() for e in b.inserts), b.volume) for b in project.buses],
    )


# --------------------------------------------------------------------------- song → project


@dataclass(frozen=True, slots=True)
class _Span:
    start: float
    end: float
    name: str


def _section_spans(song: score.Song) -> list[_Span]:
    ordered = sorted(song.sections, key=lambda s: s.start_bar)
    spans: list[_Span] = []
    for i, s in enumerate(ordered):  # bars to beats following the metre map
        start = song.bar_to_beat(s.start_bar)
        end = song.bar_to_beat(s.end_bar)
        if i + 1 < len(ordered):
            end = min(end, song.bar_to_beat(ordered[i + 1].start_bar))
        if end > start and (not spans or start >= spans[-1].end):
            spans.append(_Span(start, end, s.name))
    return spans


class _Layout:
    """Which region an event time falls in: the given spans, then bar-aligned gap
    regions for events outside all of them (made on demand)."""

    def __init__(self, spans: Sequence[_Span], bpb: float) -> None:
        self.spans: list[_Span] = []
        for span in sorted(spans, key=lambda s: s.start):  # overlapping spans: the earlier one wins
            if not self.spans or span.start >= self.spans[-1].end:
                self.spans.append(span)
        self.starts = [s.start for s in self.spans]
        self.bpb = bpb

    def index(self, t: float) -> int:
        i = bisect.bisect_right(self.starts, t) - 1
        return i if i >= 0 and t < self.spans[i].end else -1

    def gap_spans(self, times: Iterable[float]) -> list[_Span]:
        """Bar-aligned spans covering `times` (all outside the known spans), one per gap."""
        by_gap: dict[int, list[float]] = defaultdict(list)
        for t in times:
            by_gap[bisect.bisect_right(self.starts, t)].append(t)
        out = []
        for gap, ts in sorted(by_gap.items()):
            low = self.spans[gap - 1].end if gap > 0 else 0.0
            high = self.spans[gap].start if gap < len(self.spans) else math.inf
            start = max(low, math.floor(min(ts) / self.bpb) * self.bpb)
            end = min(high, (math.floor(max(ts) / self.bpb) + 1) * self.bpb)
            out.append(_Span(start, end, ""))
        return out


@dataclass(slots=True)
class _Bucket:
    """A track's events in one span, times still in song beats."""

    notes: list[score.Note]
    cc: list[score.ControlChange]
    bends: list[score.PitchBend]
    channel_at: list[score.ChannelAftertouch]
    poly_at: list[score.PolyAftertouch]

    def __bool__(self) -> bool:
        return bool(self.notes or self.cc or self.bends or self.channel_at or self.poly_at)


def _bucket(track: score.Track, layout: _Layout) -> list[tuple[_Span, _Bucket]]:
    """The track's events grouped by span in time order (gap spans made for events outside)."""
    times = [n.start for n in track.notes] + [c.time for c in track.controls] + \
        [b.time for b in track.pitch_bends] + [a.time for a in track.aftertouch] + \
        [a.time for a in track.poly_aftertouch]
    outside = [t for t in times if layout.index(t) < 0]
    full = _Layout(sorted([*layout.spans, *layout.gap_spans(outside)], key=lambda s: s.start), layout.bpb)
    buckets = [_Bucket([], [], [], [], []) for _ in full.spans]
    at = full.index
    for n in track.notes:
        buckets[at(n.start)].notes.append(n)
    for c in track.controls:
        buckets[at(c.time)].cc.append(c)
    for b in track.pitch_bends:
        buckets[at(b.time)].bends.append(b)
    for a in track.aftertouch:
        buckets[at(a.time)].channel_at.append(a)
    for p in track.poly_aftertouch:
        buckets[at(p.time)].poly_at.append(p)
    return [(span, b) for span, b in zip(full.spans, buckets, strict=True) if b]


def _region(track_id: str, span: _Span, bucket: _Bucket, region_id: str, note_ids: list[str]) -> Region:
    s = span.start
    at = [AftertouchEvent(beat=a.time - s, value=a.value) for a in bucket.channel_at]
    at += [AftertouchEvent(beat=a.time - s, value=a.value, pitch=a.pitch) for a in bucket.poly_at]
    return Region(
        id=region_id, track_id=track_id, name=span.name, start_beat=s, length_beats=span.end - s,
        notes=tuple(NoteEvent(id=i, pitch=n.pitch, start=n.start - s, duration=n.duration, velocity=n.velocity)
                    for n, i in zip(bucket.notes, note_ids, strict=True)),
        cc=tuple(CCEvent(beat=c.time - s, cc=c.control, value=c.value) for c in bucket.cc),
        pitch_bends=tuple(PitchBendEvent(beat=b.time - s, value=b.value) for b in bucket.bends),
        aftertouch=tuple(at),
    )


def _unique_names(tracks: Sequence[score.Track]) -> list[str]:
    names: list[str] = []
    taken: set[str] = set()
    for t in tracks:
        base = (t.name.strip() or t.role.strip().replace("_", " ").title() or "Track")[:NAME_MAX]
        name, n = base, 2
        while name.casefold() in taken:
            suffix = f" {n}"
            name, n = base[: NAME_MAX - len(suffix)] + suffix, n + 1
        taken.add(name.casefold())
        names.append(name)
    return names


def _effects(effects: Sequence[score.Effect], ids: IdIssuer, keep: Sequence[EffectSpec] = ()) -> tuple[EffectSpec, ...]:
    out = []
    for i, e in enumerate(effects):
        same = keep[i] if i < len(keep) and keep[i].type == e.type else None
        out.append(EffectSpec(id=same.id if same else ids.new(), type=e.type, params=dict(e.params), bypass=e.bypass))
    return tuple(out)


def _track_fields(t: score.Track, name: str, bus_ids: dict[str, str], ids: IdIssuer,
                  keep: Track | None) -> dict[str, object]:
    m = t.mix
    return {
        "name": name, "role": t.role,
        "program": None if t.is_drum else t.program, "drum_kit": t.program if t.is_drum else None,
        "channel": t.channel, "volume": m.volume, "pan": m.pan, "mute": m.mute, "solo": m.solo,
        "inserts": _effects(m.inserts, ids, keep.inserts if keep else ()),
        "sends": tuple(SendSpec(bus_id=bus_ids[s.bus.casefold()], level=s.level) for s in m.sends),
        "automation": tuple(AutomationLaneSpec(parameter=lane.parameter, points=tuple(
            AutomationPointSpec(beat=p.beat, value=p.value, curve=p.curve) for p in lane.points))
            for lane in m.automation),
        "program_changes": tuple(ProgramChangeEvent(beat=p.time, program=p.program) for p in t.program_changes),
    }


def _buses(song: score.Song, ids: IdIssuer, keep: Sequence[BusSpec] = ()) -> tuple[BusSpec, ...]:
    by_name = {b.name.casefold(): b for b in keep}
    buses = []
    for b in song.buses:
        old = by_name.get(b.name.casefold())
        buses.append(BusSpec(id=old.id if old else ids.new(), name=b.name,
                             inserts=_effects(b.inserts, ids, old.inserts if old else ()), volume=b.volume))
    known = {b.name.casefold() for b in buses}
    for t in song.tracks:  # a send to a bus the song does not list: the bus is made (plain)
        for s in t.mix.sends:
            if s.bus.casefold() not in known:
                old = by_name.get(s.bus.casefold())
                buses.append(BusSpec(id=old.id if old else ids.new(), name=s.bus))
                known.add(s.bus.casefold())
    return tuple(buses)


def _song_fields(song: score.Song) -> dict[str, object]:
    ts = song.time_signature
    return {
        "name": song.title, "tempo": song.tempo,
        "tempo_changes": tuple(TempoChange(beat=c.beat, bpm=c.bpm) for c in song.tempo_changes),
        "key": song.key, "key_changes": tuple(KeyChange(beat=c.beat, key=c.key) for c in song.key_changes),
        "time_signature": TimeSignature(numerator=ts.numerator, denominator=ts.denominator),
        "metre_changes": tuple(MetreChange(bar=c.bar, time_signature=TimeSignature(
            numerator=c.time_signature.numerator, denominator=c.time_signature.denominator))
            for c in song.metre_changes),
        "sections": tuple(Section(name=s.name, start_bar=s.start_bar, bars=s.bars, energy=s.energy)
                          for s in song.sections),
        "markers": tuple(Marker(beat=m.beat, text=m.text) for m in song.markers),
    }


def from_song(song: score.Song, *, ids: IdIssuer | None = None, provenance: Provenance | None = None,
              project_id: str | None = None) -> Project:
    """A project holding the song: one region per section per track (revision 0)."""
    ids = ids or RandomIds()
    pid = project_id or ids.new()
    buses = _buses(song, ids)
    bus_ids = {b.name.casefold(): b.id for b in buses}
    layout = _Layout(_section_spans(song), song.beats_per_bar)
    tracks = []
    for t, name in zip(song.tracks, _unique_names(song.tracks), strict=True):
        tid = ids.new()
        regions = tuple(_region(tid, span, bucket, ids.new(), [ids.new() for _ in bucket.notes])
                        for span, bucket in _bucket(t, layout))
        tracks.append(Track(id=tid, regions=regions, **_track_fields(t, name, bus_ids, ids, None)))  # type: ignore[arg-type]
    return Project(id=pid, buses=buses, tracks=tuple(tracks), provenance=provenance or Provenance(),
                   **_song_fields(song))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- merge


def _match_tracks(base: Project, song: score.Song, names: list[str]) -> list[Track | None]:
    by_name = {t.name.casefold(): t for t in base.tracks}
    used: set[str] = set()
    out: list[Track | None] = []
    for t, name in zip(song.tracks, names, strict=True):
        old = by_name.get(name.casefold())
        if old is None or old.id in used:
            old = next((b for b in base.tracks if b.role == t.role and b.role and b.id not in used
                        and b.name.casefold() not in {n.casefold() for n in names}), None)
        if old is not None:
            used.add(old.id)
        out.append(old)
    return out


def _note_ids(old: Region | None, notes: Sequence[score.Note], start: float, ids: IdIssuer) -> list[str]:
    """Ids for `notes` (song time) landing in a region that starts at `start`: a note that
    sounds exactly like one of the old region's keeps that id; then one at the same start
    and pitch (its length or velocity changed); then one at the same start and length (it
    was transposed); the rest get new ids."""
    if old is None:
        return [ids.new() for _ in notes]
    out: list[str | None] = [None] * len(notes)
    taken: set[str] = set()
    passes: list[Callable[[float, int, float, int], tuple[float, ...]]] = [
        lambda s, p, d, v: (s, p, d, v), lambda s, p, d, v: (s, p), lambda s, p, d, v: (s, d)]
    left = len(notes)
    for key in passes:
        if not left:  # every note has its id (an unchanged region): the looser passes would find nothing to do
            break
        pools: dict[tuple[float, ...], list[str]] = defaultdict(list)
        for o in old.notes:
            if o.id not in taken:
                pools[key(o.start, o.pitch, o.duration, o.velocity)].append(o.id)
        for i, n in enumerate(notes):
            if out[i] is None:
                pool = pools.get(key(n.start - start, n.pitch, n.duration, n.velocity))
                if pool:
                    got = pool.pop(0)
                    out[i] = got
                    taken.add(got)
                    left -= 1
    return [got if got is not None else ids.new() for got in out]


def _free(sections: Sequence[_Span], taken: Sequence[_Span]) -> list[_Span]:
    """The sections that overlap none of the `taken` spans, in order. A section overlaps one when
    some span starting before the section ends ends after it starts: the spans sorted by start
    and a running maximum of their ends answer that by binary search, not by a scan of every span
    for every section."""
    ordered = sorted(taken, key=lambda sp: sp.start)
    starts = [sp.start for sp in ordered]
    reach: list[float] = []  # reach[i]: the latest end among the first i + 1 spans
    for sp in ordered:
        reach.append(sp.end if not reach else max(reach[-1], sp.end))
    out = []
    for sec in sections:
        before = bisect.bisect_left(starts, sec.end)  # the spans that start before the section ends
        if not before or reach[before - 1] <= sec.start:
            out.append(sec)
    return out


def _moved(region: Region, src: MetreMap, dst: MetreMap) -> Region:
    """`region` over the same bars of the metre map `dst` (its events as they were)."""
    start = move_beat(region.start_beat, src, dst)
    end = dst.start(src.bar(region.end_beat - 1e-6) + 1)
    return region.model_copy(update={"start_beat": start, "length_beats": max(end - start, 1e-3)})


def merge_song(base: Project, song: score.Song, *, ids: IdIssuer | None = None) -> Project:
    """The song's content in the base project's shape: every value comes from the song;
    tracks (by name, then role), buses (by name), regions (the base track's spans) and
    notes (same sound, then same start and pitch, then same start and length) keep their
    ids where they match. What did not change is the base's own value (so comparing it is
    cheap)."""
    ids = ids or RandomIds()
    buses = _buses(song, ids, base.buses)
    bus_ids = {b.name.casefold(): b.id for b in buses}
    names = _unique_names(song.tracks)
    section_layout = _Layout(_section_spans(song), song.beats_per_bar)
    # a song on another metre map: the old regions' beats are no longer their bars
    # a song on another metre map: the old regions keep their bars, so they move with them
    src, dst = MetreMap.of(*base.score_metres()), MetreMap.of_song(song)
    tracks = []
    for t, name, old in zip(song.tracks, names, _match_tracks(base, song, names), strict=True):
        tid = old.id if old else ids.new()
        old_regions = old.regions if old else ()
        if src != dst:
            old_regions = tuple(_moved(r, src, dst) for r in old_regions)
        known = {(r.start_beat, r.end_beat): r for r in old_regions}
        layout = section_layout
        if old_regions:  # the old regions, then the sections they leave free
            spans = [_Span(r.start_beat, r.end_beat, r.name) for r in old_regions]
            spans += _free(section_layout.spans, spans)
            layout = _Layout(spans, song.beats_per_bar)
        regions = []
        for span, bucket in _bucket(t, layout):
            prior = known.get((span.start, span.end))
            note_ids = _note_ids(prior, bucket.notes, span.start, ids)
            region = _region(tid, span, bucket, prior.id if prior else ids.new(), note_ids)
            regions.append(prior if region == prior else region)  # unchanged: the very same value
        fields = _track_fields(t, name, bus_ids, ids, old)
        extra_fields = {"colour": old.colour, "user_touched": old.user_touched} if old else {}
        track = Track(id=tid, regions=tuple(regions), **fields, **extra_fields)  # type: ignore[arg-type]
        tracks.append(old if track == old else track)
    merged = Project(id=base.id, buses=buses, tracks=tuple(tracks), revision=base.revision,
                     provenance=base.provenance, **_song_fields(song))  # type: ignore[arg-type]
    return base if merged == base else merged

"""Variations: a proposed change against a base revision, to hear and then
accept (all of it or some phrases) or discard.

A `Variation` carries its meta (id, base revision, intent, explanation,
affected tracks and regions, note counts), its **phrases** — one per region
per four bars, each listing its note changes (`added`: before is None,
`removed`: after is None, `modified`: both), CC, pitch-bend and aftertouch
changes, a label and tags — and the whole proposed project. Its state follows
one table (`TRANSITIONS`): created → streaming → ready → committed;
discarded, failed or expired from any state that is not terminal; nothing
leaves a terminal state. `commit_project` builds the project a commit makes
from the accepted phrases: the proposal, with every rejected phrase's changes
reverted to the base.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bandstand.errors import VariationConflict
from bandstand.studio.changes import Change, project_changes
from bandstand.studio.ids import IdIssuer
from bandstand.studio.model import (
    AftertouchEvent,
    CCEvent,
    NoteEvent,
    PitchBendEvent,
    Project,
    Region,
    Track,
)

__all__ = [
    "PHRASE_BARS",
    "TERMINAL",
    "TRANSITIONS",
    "EventChange",
    "NoteChange",
    "Phrase",
    "Variation",
    "VariationState",
    "build_phrases",
    "commit_project",
    "new_variation",
    "resolve_phrases",
    "transition",
]

VariationState = Literal["created", "streaming", "ready", "committed", "discarded", "failed", "expired"]
_ENDINGS: frozenset[str] = frozenset({"discarded", "failed", "expired"})
TRANSITIONS: dict[str, frozenset[str]] = {
    "created": frozenset({"streaming"}) | _ENDINGS,
    "streaming": frozenset({"ready"}) | _ENDINGS,
    "ready": frozenset({"committed"}) | _ENDINGS,
    "committed": frozenset(),
    "discarded": frozenset(),
    "failed": frozenset(),
    "expired": frozenset(),
}
TERMINAL: frozenset[str] = frozenset(s for s, nxt in TRANSITIONS.items() if not nxt)
PHRASE_BARS = 4


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NoteChange(_Model):
    """One note's change: `added` (before None), `removed` (after None) or `modified`."""

    kind: Literal["added", "removed", "modified"]
    note_id: str
    before: NoteEvent | None = None
    after: NoteEvent | None = None


class EventChange(_Model):
    """A controller event added (before None) or removed (after None); times are region-relative."""

    kind: Literal["added", "removed"]
    before: CCEvent | PitchBendEvent | AftertouchEvent | None = None
    after: CCEvent | PitchBendEvent | AftertouchEvent | None = None


class Phrase(_Model):
    """The changes to one region within one window of bars (1-based, inclusive)."""

    id: str
    track_id: str
    track_name: str
    region_id: str
    region_name: str
    region_start_beat: float
    start_bar: int
    end_bar: int
    label: str
    tags: tuple[str, ...] = ()
    notes: tuple[NoteChange, ...] = ()
    cc: tuple[EventChange, ...] = ()
    pitch_bends: tuple[EventChange, ...] = ()
    aftertouch: tuple[EventChange, ...] = ()

    def counts(self) -> dict[str, int]:
        out = {"added": 0, "removed": 0, "modified": 0}
        for n in self.notes:
            out[n.kind] += 1
        return out


class Variation(BaseModel):
    """A proposal against `base_revision`. Only `state`, `phrases`, `result_revision` and
    `error` change over its life, each through the functions of this module."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    id: str
    base_revision: int
    state: VariationState = "created"
    intent: str = ""
    explanation: str = ""
    request: str = ""
    author: str = ""
    created_at: dt.datetime
    updated_at: dt.datetime
    affected_tracks: list[dict[str, str]] = []
    affected_regions: list[dict[str, str]] = []
    counts: dict[str, int] = Field(default_factory=lambda: {"added": 0, "removed": 0, "modified": 0})
    changes: list[Change] = []
    phrases: list[Phrase] = []
    diff: dict[str, str] = {}
    details: dict[str, Any] = {}
    recipe: dict[str, Any] | None = None
    result_revision: int | None = None
    error: str | None = None
    proposal: Project | None = Field(default=None, description="None when listed without it")

    def meta(self) -> dict[str, Any]:
        """Everything but the phrases and the proposal (the `meta` event of a stream)."""
        return self.model_dump(mode="json", exclude={"phrases", "proposal"})

    def phrase_ids(self) -> list[str]:
        return [p.id for p in self.phrases]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def transition(variation: Variation, to: VariationState, **fields: Any) -> Variation:
    """The variation in state `to`; a move the table does not allow is a `VariationConflict`
    (discarding a discarded variation is allowed and changes nothing)."""
    if to == "discarded" and variation.state == "discarded":
        return variation
    if to not in TRANSITIONS[variation.state]:
        what = {"committed": f"is already committed (revision {variation.result_revision})",
                "discarded": "was discarded", "failed": f"failed ({variation.error})",
                "expired": "expired"}.get(variation.state, f"is {variation.state}")
        verb = {"committed": "accept", "discarded": "discard", "ready": "finish"}.get(to, f"move to {to}")
        raise VariationConflict(f"cannot {verb} variation {variation.id}: it {what}",
                                variation_id=variation.id, state=variation.state)
    return variation.model_copy(update={"state": to, "updated_at": _now(), **fields})


# --------------------------------------------------------------------------- phrases


def _window(beat: float, bpb: float, size: int) -> int:
    return math.floor(beat / (bpb * size) + 1e-9)


def _windows_of(base: Project, proposal: Project, size: int) -> tuple[Callable[[float], int], Callable[[float], int]]:
    """The window of `size` bars a beat of the base and of the proposal falls in (each on its own
    metre map when either has more than one metre)."""
    if not base.metre_changes and not proposal.metre_changes:
        bpb = proposal.beats_per_bar

        def uniform(beat: float) -> int:
            return _window(beat, bpb, size)

        return uniform, uniform

    def on(project: Project) -> Callable[[float], int]:
        def window(beat: float) -> int:
            return (project.beat_to_bar(beat + 1e-9) - 1) // size

        return window

    return on(base), on(proposal)


def _event_changes(before: Sequence[Any], after: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Events removed and added between two lists (as multisets)."""
    left: dict[Any, int] = defaultdict(int)
    for e in before:
        left[e] += 1
    added = []
    for e in after:
        if left[e] > 0:
            left[e] -= 1
        else:
            added.append(e)
    removed: list[Any] = []
    for e in before:
        if left[e] > 0:
            removed.append(e)
            left[e] -= 1
    return removed, added


def _tags(notes: list[NoteChange], extra: Iterable[str]) -> tuple[str, ...]:
    kinds = {n.kind for n in notes}
    tags: list[str] = [k for k in ("added", "removed", "modified") if k in kinds]
    added = sum(n.kind == "added" for n in notes)
    removed = sum(n.kind == "removed" for n in notes)
    if added > removed:
        tags.append("denser")
    elif removed > added:
        tags.append("sparser")
    return (*tags, *extra)


def _region_phrases(windows: tuple[Callable[[float], int], Callable[[float], int]], size: int, track: Track,
                    old: Region | None, new: Region | None, ids: IdIssuer) -> list[Phrase]:
    """The region's changes, one phrase per window of `size` bars (`windows`: the window of a beat of
    the base and of the proposal)."""
    at_old, at_new = windows
    region = new or old
    assert region is not None
    buckets: dict[int, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    old_notes = {n.id: n for n in old.notes} if old else {}
    new_notes = {n.id: n for n in new.notes} if new else {}
    base_at = old.start_beat if old else region.start_beat
    new_at = new.start_beat if new else region.start_beat
    for nid, n in new_notes.items():
        o = old_notes.get(nid)
        if o is None:
            buckets[at_new(new_at + n.start)]["notes"].append(
                NoteChange(kind="added", note_id=nid, after=n))
        elif o != n:
            buckets[at_new(new_at + n.start)]["notes"].append(
                NoteChange(kind="modified", note_id=nid, before=o, after=n))
    for nid, o in old_notes.items():
        if nid not in new_notes:
            buckets[at_old(base_at + o.start)]["notes"].append(
                NoteChange(kind="removed", note_id=nid, before=o))
    for kind in ("cc", "pitch_bends", "aftertouch"):
        removed, added = _event_changes(getattr(old, kind) if old else (), getattr(new, kind) if new else ())
        for e in removed:
            buckets[at_old(base_at + e.beat)][kind].append(EventChange(kind="removed", before=e))
        for e in added:
            buckets[at_new(new_at + e.beat)][kind].append(EventChange(kind="added", after=e))
    phrases = []
    for w in sorted(buckets):
        b = buckets[w]
        first, last = w * size + 1, (w + 1) * size
        notes = sorted(b["notes"], key=lambda c: ((c.after or c.before).start, (c.after or c.before).pitch))
        extra = [k for k in ("cc", "pitch_bends", "aftertouch") if b[k]]
        phrases.append(Phrase(
            id=ids.new(), track_id=track.id, track_name=track.name, region_id=region.id,
            region_name=region.name, region_start_beat=region.start_beat, start_bar=first, end_bar=last,
            label=f"{track.name} · bars {first}–{last}", tags=_tags(notes, extra), notes=tuple(notes),
            cc=tuple(b["cc"]), pitch_bends=tuple(b["pitch_bends"]), aftertouch=tuple(b["aftertouch"]),
        ))
    return phrases


def build_phrases(base: Project, proposal: Project, ids: IdIssuer, *, bars: int = PHRASE_BARS) -> list[Phrase]:
    """The region changes from base to proposal, one phrase per region per `bars` bars."""
    windows = _windows_of(base, proposal, bars)
    old_tracks = {t.id: t for t in base.tracks}
    new_tracks = {t.id: t for t in proposal.tracks}
    out: list[Phrase] = []
    for tid in [*(t.id for t in proposal.tracks), *(t.id for t in base.tracks if t.id not in new_tracks)]:
        nt, ot = new_tracks.get(tid), old_tracks.get(tid)
        track = nt or ot
        assert track is not None
        if nt is not None and ot is not None and nt.regions == ot.regions:
            continue
        old_regions = {r.id: r for r in ot.regions} if ot else {}
        new_regions = {r.id: r for r in nt.regions} if nt else {}
        for rid in [*new_regions, *(i for i in old_regions if i not in new_regions)]:
            o, n = old_regions.get(rid), new_regions.get(rid)
            if o is not None and n is not None and (o.notes, o.cc, o.pitch_bends, o.aftertouch) == (
                    n.notes, n.cc, n.pitch_bends, n.aftertouch):
                continue
            out.extend(_region_phrases(windows, bars, track, o, n, ids))
    return out


def new_variation(base: Project, proposal: Project, *, ids: IdIssuer, intent: str = "", explanation: str = "",
                  request: str = "", author: str = "", recipe: dict[str, Any] | None = None,
                  details: dict[str, Any] | None = None,
                  describe: Callable[[Project, Project], dict[str, str]] | None = None) -> Variation:
    """A variation in state `created` with its meta filled in (phrases come with `stream`)."""
    phrases = build_phrases(base, proposal, ids)
    counts = {"added": 0, "removed": 0, "modified": 0}
    for p in phrases:
        for k, v in p.counts().items():
            counts[k] += v
    tracks = {p.track_id: p.track_name for p in phrases}
    regions = {p.region_id: (p.region_name, p.track_id) for p in phrases}
    structural = [c for c in project_changes(base, proposal) if "/regions/" not in c.path]
    now = _now()
    variation = Variation(
        id=ids.new(), base_revision=base.revision, intent=intent, explanation=explanation, request=request,
        author=author, created_at=now, updated_at=now,
        affected_tracks=[{"id": i, "name": n} for i, n in tracks.items()],
        affected_regions=[{"id": i, "name": n, "track_id": t} for i, (n, t) in regions.items()],
        counts=counts, changes=structural, diff=describe(base, proposal) if describe else {},
        details=details or {}, recipe=recipe, proposal=proposal.model_copy(update={"revision": base.revision}),
    )
    return variation.model_copy(update={"phrases": phrases})


# --------------------------------------------------------------------------- commit


def resolve_phrases(variation: Variation, phrase_ids: Sequence[str]) -> set[str]:
    """The ids of the phrases chosen by id or unique prefix; `VariationConflict` naming the one
    that is not there (or when none is chosen)."""
    known = variation.phrase_ids()
    whole = set(known)  # phrase ids are unique: a whole id is looked up, only a prefix is searched for
    chosen: set[str] = set()
    for pid in phrase_ids:
        matches = [pid] if pid in whole else [k for k in known if len(pid) >= 4 and k.startswith(pid)]
        if len(matches) != 1:
            by_prefix = {k[:len(pid)]: k for k in known}
            close = difflib.get_close_matches(pid, list(by_prefix), n=1, cutoff=0.6)
            hint = f"; did you mean {by_prefix[close[0]]}?" if close else \
                f"; its phrases are {', '.join(k[:8] for k in known)}"
            what = "is ambiguous" if matches else "is not one of its phrases"
            raise VariationConflict(f"phrase id '{pid}' {what} in variation {variation.id}{hint}")
        chosen.add(matches[0])
    if not chosen:
        raise VariationConflict(f"no phrases chosen from variation {variation.id}; discard it instead")
    return chosen


def _revert(region: Region, phrases: Iterable[Phrase]) -> Region:
    notes = {n.id: n for n in region.notes}
    events: dict[str, list[Any]] = {k: list(getattr(region, k)) for k in ("cc", "pitch_bends", "aftertouch")}
    for p in phrases:
        for c in p.notes:
            if c.kind == "added":
                notes.pop(c.note_id, None)
            else:
                assert c.before is not None
                notes[c.note_id] = c.before
        for kind in ("cc", "pitch_bends", "aftertouch"):
            for e in getattr(p, kind):
                if e.kind == "added" and e.after in events[kind]:
                    events[kind].remove(e.after)
                elif e.kind == "removed":
                    events[kind].append(e.before)
    ordered = sorted(notes.values(), key=lambda n: (n.start, n.pitch, n.duration, n.velocity))
    return region.model_copy(update={
        "notes": tuple(ordered), **{k: tuple(sorted(v, key=lambda e: e.beat)) for k, v in events.items()}})


def commit_project(base: Project, variation: Variation, phrase_ids: Sequence[str] | None = None) -> Project:
    """The project that committing the chosen phrases (all when None) makes: the proposal with
    the rejected phrases' changes reverted to the base. A region the proposal added that ends up
    empty is left out; so is a track it added that ends up with no regions."""
    proposal = variation.proposal
    if proposal is None:
        raise ValueError(f"variation {variation.id} was loaded without its proposal")
    if phrase_ids is None:
        return proposal
    accepted = resolve_phrases(variation, phrase_ids)
    rejected: dict[str, list[Phrase]] = defaultdict(list)
    for p in variation.phrases:
        if p.id not in accepted:
            rejected[p.region_id].append(p)
    if not rejected:
        return proposal
    result = proposal
    base_tracks = {t.id: t for t in base.tracks}
    base_regions = {r.id for _, r in base.regions()}
    # which track holds each region (a project's region ids are unique, and no region changes track
    # here), so a rejected region is looked for in its own track, not in the whole song each time
    holder = {r.id: t.id for t, r in result.regions()}
    for rid, phrases in rejected.items():
        if rid not in holder:  # the proposal deleted the region: bring its header back, then revert into it
            base_track, base_region = base.region_by_id(rid)
            if base_track.id not in {t.id for t in result.tracks}:
                result = result.with_track(base_track.model_copy(update={"regions": ()}))
            region = base_region.model_copy(update={"notes": (), "cc": (), "pitch_bends": (), "aftertouch": ()})
            result = result.with_region(region)
            holder[rid] = region.track_id
        track = result.track_by_id(holder[rid])
        region = next(r for r in track.regions if r.id == rid)
        reverted = _revert(region, phrases)
        new_track_regions = tuple(reverted if r.id == rid else r for r in track.regions)
        if reverted.is_empty and rid not in base_regions:
            new_track_regions = tuple(r for r in track.regions if r.id != rid)
        result = result.with_track(track.model_copy(update={"regions": new_track_regions}))
    added_tracks = [t for t in result.tracks if t.id not in base_tracks]
    drop = {t.id for t in added_tracks if not t.regions
            and any(p.track_id == t.id for ps in rejected.values() for p in ps)}
    if drop:
        result = result.model_copy(update={"tracks": tuple(t for t in result.tracks if t.id not in drop)})
    return result

"""The studio's objects in the protocol's words: a variation as the `meta`,
`phrase` and `done` events of spec studio §3/§6 (camelCase on the wire; see
`bandstand.protocol.studio`), and a plan as its `plan` event. Pure
translation: the producer's streams and the variation endpoint both use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from bandstand.protocol.studio import (
    AftertouchPoint,
    CCPoint,
    Done,
    Meta,
    NoteChange,
    NoteCounts,
    PitchBendPoint,
    WireNote,
)
from bandstand.protocol.studio import Phrase as PhraseEvent
from bandstand.studio import Phrase, Variation
from bandstand.studio.model import AftertouchEvent, CCEvent, NoteEvent, PitchBendEvent

__all__ = ["DONE_STATUS", "done_event", "meta_event", "phrase_event", "variation_stream"]

DONE_STATUS: dict[str, str] = {"ready": "ready", "committed": "ready", "discarded": "discarded",
                               "failed": "failed", "expired": "failed", "created": "failed", "streaming": "failed"}
"""A variation's state → the `done` status its stream ends with."""


def _note(note: NoteEvent | None) -> WireNote | None:
    if note is None:
        return None
    return WireNote(note_id=note.id, pitch=note.pitch, start_beat=note.start, duration_beats=note.duration,
                    velocity=note.velocity)


def meta_event(variation: Variation) -> Meta:
    cost = variation.details.get("cost") if isinstance(variation.details, dict) else None
    return Meta(variation_id=variation.id, base_revision=variation.base_revision,
                intent=(variation.intent or variation.request or "a change")[:500],
                explanation=variation.explanation,
                affected_tracks=[t["id"] for t in variation.affected_tracks],
                affected_regions=[r["id"] for r in variation.affected_regions],
                note_counts=NoteCounts(**{k: int(v) for k, v in variation.counts.items()}),
                cost=cost if cost in ("cheap", "moderate", "expensive") else None)


def phrase_event(variation_id: str, phrase: Phrase, beats_per_bar: float) -> PhraseEvent:
    changes = [NoteChange(change=n.kind, before=_note(n.before), after=_note(n.after)) for n in phrase.notes]
    cc = [CCPoint(cc=e.after.cc, beat=e.after.beat, value=e.after.value) for e in phrase.cc
          if isinstance(e.after, CCEvent)]
    bends = [PitchBendPoint(beat=e.after.beat, value=e.after.value) for e in phrase.pitch_bends
             if isinstance(e.after, PitchBendEvent)]
    touch = [AftertouchPoint(beat=e.after.beat, value=e.after.value, pitch=e.after.pitch) for e in phrase.aftertouch
             if isinstance(e.after, AftertouchEvent)]
    return PhraseEvent(variation_id=variation_id, phrase_id=phrase.id, track_id=phrase.track_id,
                       region_id=phrase.region_id, start_beat=(phrase.start_bar - 1) * beats_per_bar,
                       end_beat=phrase.end_bar * beats_per_bar, label=phrase.label or f"{phrase.track_name}",
                       tags=list(phrase.tags), note_changes=changes, cc_events=cc, pitch_bends=bends,
                       aftertouch=touch)


def done_event(variation: Variation) -> Done:
    return Done(variation_id=variation.id, status=DONE_STATUS[variation.state],  # type: ignore[arg-type]
                phrase_count=len(variation.phrases))


def variation_stream(variation: Variation, beats_per_bar: float | None = None) -> Iterator[BaseModel]:
    """`meta`, one `phrase` per phrase, `done`."""
    bpb = beats_per_bar if beats_per_bar is not None else _beats_per_bar(variation)
    yield meta_event(variation)
    for phrase in variation.phrases:
        yield phrase_event(variation.id, phrase, bpb)
    yield done_event(variation)


def _beats_per_bar(variation: Variation) -> float:
    """From a phrase: its region starts at a beat and its window at a bar."""
    details: dict[str, Any] = variation.details if isinstance(variation.details, dict) else {}
    found = details.get("beats_per_bar")
    if isinstance(found, int | float) and found > 0:
        return float(found)
    if variation.proposal is not None:
        return variation.proposal.beats_per_bar
    return 4.0

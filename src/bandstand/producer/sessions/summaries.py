"""The JSON every client shows for the studio's objects — a variation with its
phrases and musical diff, a history row, a tool outcome, what an arrangement
view shows beside a project — so `bandstand variations --json`, `bandstand
edit --json`, the HTTP API, MCP and the studio page say the same thing the
same way."""

from __future__ import annotations

from bandstand.producer.sessions import head_files
from bandstand.producer.sessions.projects import HistoryRow, ProjectSession, ToolOutcome
from bandstand.protocol.jsonvalue import JSONObject
from bandstand.studio import HistoryEntry, Phrase, Project, Variation, to_song

__all__ = ["CHORD_ROLES", "arrangement_json", "audio_json", "history_json", "phrase_json", "revision_json",
           "tool_outcome_json", "variation_json"]

CHORD_ROLES: tuple[str, ...] = ("chords", "keys", "pad")
"""The part whose notes name the chord symbols, first found first (as the lead sheet does)."""


def phrase_json(phrase: Phrase) -> JSONObject:
    """A phrase in brief: id, part, bars, label, tags and its note counts."""
    return {"id": phrase.id, "part": phrase.track_name, "track_id": phrase.track_id, "region_id": phrase.region_id,
            "region": phrase.region_name, "bars": [phrase.start_bar, phrase.end_bar], "label": phrase.label,
            "tags": list(phrase.tags), **phrase.counts(), "cc": len(phrase.cc), "pitch_bends": len(phrase.pitch_bends),
            "aftertouch": len(phrase.aftertouch)}


def variation_json(variation: Variation, *, head: int | None = None) -> JSONObject:
    """A variation's meta, phrases in brief and diff; `stale` when it was made against another
    revision than `head`."""
    out = variation.meta()
    out["variation_id"] = out.pop("id")
    out["phrases"] = [phrase_json(p) for p in variation.phrases]
    out.pop("recipe", None)
    if head is not None:
        out["stale"] = variation.state == "ready" and variation.base_revision != head
    return out


def history_json(row: HistoryRow) -> JSONObject:
    return {**row.entry.model_dump(mode="json"), "undone": row.undone, "head": row.head}


def tool_outcome_json(outcome: ToolOutcome) -> JSONObject:
    return {"revision": outcome.revision, "changed": outcome.entry is not None,
            "results": [r.model_dump(mode="json") for r in outcome.results],
            "changes": [c.model_dump(mode="json") for c in outcome.entry.changes] if outcome.entry else []}


def arrangement_json(project: Project) -> JSONObject:
    """What an arrangement view shows beside the project: the chord symbols, bar by bar as the
    lead sheet names them (`beat` from the song's start, only where the chord changes), each
    track's instrument (General MIDI name, or "Drum kit"), the General MIDI drum names, and a
    few first requests that fit the song (`producer.requests.suggestions`)."""
    from bandstand.compose.api import chords_from_track
    from bandstand.midi import GM_DRUMS, GM_PROGRAMS
    from bandstand.producer.requests.suggestions import suggestions

    song = to_song(project)
    source = next((t for role in CHORD_ROLES for t in song.tracks if t.role == role and t.notes), None)
    chords: list[JSONObject] = [{"beat": beat, "symbol": symbol} for beat, symbol in chords_from_track(song, source)]
    instruments = {t.id: "Drum kit" if t.is_drum or t.program is None else GM_PROGRAMS[t.program] for t in project.tracks}
    return {"chords": chords, "chords_from": source.name if source else None, "instruments": instruments,
            "drum_names": {str(k): GM_DRUMS[k] for k in GM_DRUMS}, "suggestions": suggestions(project)}


def revision_json(entry: HistoryEntry) -> JSONObject:
    """A revision HEAD moved to (an accepted variation, an undo, a redo): its number, what was
    asked, its summary, the variation it came from and what changed."""
    return {"revision": entry.revision, "request": entry.request, "summary": entry.summary,
            "variation_id": entry.variation_id, "changes": [c.model_dump(mode="json") for c in entry.changes]}


def audio_json(session: ProjectSession) -> JSONObject:
    """The session's WAV and whether it shows HEAD (a change marks it stale until it is rendered)."""
    return {"file": str(session.session_dir / head_files.WAV),
            "current": head_files.audio_revision(session.session_dir) == session.revision}

"""The JSON every client shows for the studio's objects — a variation with its
phrases and musical diff, a history row, a tool outcome — so `bandstand
variations --json`, `bandstand edit --json`, the HTTP API and MCP say the same
thing the same way."""

from __future__ import annotations

from typing import Any

from bandstand.producer.projects import HistoryRow, ToolOutcome
from bandstand.studio import Phrase, Variation

__all__ = ["history_json", "phrase_json", "tool_outcome_json", "variation_json"]


def phrase_json(phrase: Phrase) -> dict[str, Any]:
    """A phrase in brief: id, part, bars, label, tags and its note counts."""
    return {"id": phrase.id, "part": phrase.track_name, "track_id": phrase.track_id, "region_id": phrase.region_id,
            "region": phrase.region_name, "bars": [phrase.start_bar, phrase.end_bar], "label": phrase.label,
            "tags": list(phrase.tags), **phrase.counts(), "cc": len(phrase.cc), "pitch_bends": len(phrase.pitch_bends),
            "aftertouch": len(phrase.aftertouch)}


def variation_json(variation: Variation, *, head: int | None = None) -> dict[str, Any]:
    """A variation's meta, phrases in brief and diff; `stale` when it was made against another
    revision than `head`."""
    out = variation.meta()
    out["variation_id"] = out.pop("id")
    out["phrases"] = [phrase_json(p) for p in variation.phrases]
    out.pop("recipe", None)
    if head is not None:
        out["stale"] = variation.state == "ready" and variation.base_revision != head
    return out


def history_json(row: HistoryRow) -> dict[str, Any]:
    return {**row.entry.model_dump(mode="json"), "undone": row.undone, "head": row.head}


def tool_outcome_json(outcome: ToolOutcome) -> dict[str, Any]:
    return {"revision": outcome.revision, "changed": outcome.entry is not None,
            "results": [r.model_dump(mode="json") for r in outcome.results],
            "changes": [c.model_dump(mode="json") for c in outcome.entry.changes] if outcome.entry else []}

"""What the last two nodes of the compose graph produce: the validation node's
`ValidationReport` (the quality score and the gate's verdict) and the output
node's `SessionFiles` (the files written and what is missing). Both save the
same JSON a checkpoint and a manifest held when they were plain dicts
(`{"score", "gate"}`, `{"files", "degraded"}`), so older sessions read back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from bandstand.compose.models.quality import GateResult, QualityScore

if TYPE_CHECKING:
    from bandstand.score import Song

__all__ = ["SessionFiles", "ValidationReport"]


class ValidationReport(BaseModel):
    """The validation node's artifact and checkpoint: the measured `score` and the `gate`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: QualityScore
    gate: GateResult


@dataclass(frozen=True, slots=True)
class SessionFiles:
    """The output node's artifact: the session's files (paths relative to the session folder,
    as the manifest lists them) and what is missing (`degraded`). `pianoroll_of` is the song
    the piano roll was drawn from in this process, when it was (never checkpointed: a resumed
    run does not know what an earlier process drew); `lead_sheet_source`, likewise, the digest of
    what the lead sheet written in this process was made from."""

    files: tuple[str, ...]
    degraded: tuple[str, ...] = ()
    pianoroll_of: Song | None = field(default=None, compare=False)
    lead_sheet_source: str | None = field(default=None, compare=False)

    def checkpoint(self) -> dict[str, list[str]]:
        """The JSON the checkpoint keeps: {"files": [...], "degraded": [...]}."""
        return {"files": list(self.files), "degraded": list(self.degraded)}

    @classmethod
    def from_checkpoint(cls, data: object) -> SessionFiles:
        """Back from `checkpoint()`'s JSON (a session written before `degraded` was kept has none)."""
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise ValueError(f"the output node's checkpoint is not {{'files': [...]}}: {str(data)[:80]}")
        return cls(files=tuple(str(f) for f in data["files"]),
                   degraded=tuple(str(d) for d in data.get("degraded") or ()))

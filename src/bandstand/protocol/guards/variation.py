"""The variation stream's guard: `meta → phrase* → done`, as a client that
reconnects to a variation reads it (spec studio §3).

`meta` first; every phrase belongs to the variation `meta` opened; `done` is
last and counts the phrases that were sent. An `error` may come at any point
before `done`; then only `done` with status failed may follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bandstand.protocol.guards.base import ProtocolViolation, StreamClosed
from bandstand.protocol.studio import Done, StreamError


@dataclass(slots=True)
class VariationGuard:
    variation: str | None = None
    phrases: int = 0
    failed: bool = False
    ended: bool = False

    def check(self, event: BaseModel) -> None:
        kind = str(getattr(event, "type", ""))
        if self.ended:
            raise StreamClosed(f"{kind} sent after done")
        step = {"meta": self._meta, "phrase": self._phrase, "done": self._done, "error": self._error}.get(kind)
        if step is None:
            raise ProtocolViolation(f"{kind} is not part of a variation stream")
        step(event)

    def unfinished(self) -> str | None:
        return None if self.ended else "the variation stream ended without done"

    def tail(self, message: str) -> list[BaseModel]:
        if self.ended:
            return []
        events: list[BaseModel] = [] if self.failed else [StreamError(message=message, code="protocol")]
        return [*events, Done(variation_id=self.variation or "unknown", status="failed", phrase_count=self.phrases)]

    def _meta(self, event: Any) -> None:
        if self.variation is not None or self.failed:
            raise ProtocolViolation("meta must open the variation stream, once")
        self.variation = event.variation_id

    def _phrase(self, event: Any) -> None:
        if self.variation is None or self.failed:
            raise ProtocolViolation("phrase before meta (or after an error)")
        if event.variation_id != self.variation:
            raise ProtocolViolation(f"phrase of variation {event.variation_id} inside {self.variation}")
        self.phrases += 1

    def _done(self, event: Any) -> None:
        if self.variation is not None and event.variation_id != self.variation:
            raise ProtocolViolation(f"done for variation {event.variation_id} inside {self.variation}")
        if self.variation is None and not self.failed:
            raise ProtocolViolation("done before meta")
        if event.phrase_count != self.phrases:
            raise ProtocolViolation(f"done counts {event.phrase_count} phrases, {self.phrases} were sent")
        if self.failed and event.status != "failed":
            raise ProtocolViolation(f"done {event.status} after an error")
        self.ended = True

    def _error(self, event: Any) -> None:
        if self.failed:
            raise ProtocolViolation("a second error (only done may follow an error)")
        self.failed = True

"""The compose stream's guard: a pipeline run's progress events.

`pipeline_started` first; node events name a node of the compose graph (a
step such as `harmony`, or a member such as `parts:bass`); `pipeline_finished`
last (the run completed, paused for approval, failed or was cancelled).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bandstand.protocol.compose import NODE_NAME, PipelineFinished
from bandstand.protocol.guards.base import ProtocolViolation, StreamClosed

_NODE = re.compile(NODE_NAME)


@dataclass(slots=True)
class ComposeGuard:
    pipeline_id: str | None = None
    session_dir: str = ""
    ended: bool = False

    def check(self, event: BaseModel) -> None:
        kind = str(getattr(event, "type", ""))
        if self.ended:
            raise StreamClosed(f"{kind} sent after pipeline_finished")
        run: Any = getattr(event, "pipeline_id", None)
        if kind == "pipeline_started":
            if self.pipeline_id is not None:
                raise ProtocolViolation("a second pipeline_started")
            self.pipeline_id, self.session_dir = run, str(getattr(event, "session_dir", ""))
            return
        if self.pipeline_id is None:
            raise ProtocolViolation(f"{kind} sent before pipeline_started")
        if run != self.pipeline_id:
            raise ProtocolViolation(f"{kind} of pipeline {run} inside {self.pipeline_id}")
        node = getattr(event, "node", None)
        if node is not None and not _NODE.match(str(node)):
            raise ProtocolViolation(f"{kind} for node {node!r}; nodes are named like harmony or parts:bass")
        self.ended = kind == "pipeline_finished"

    def unfinished(self) -> str | None:
        return None if self.ended else "the compose stream ended without pipeline_finished"

    def tail(self, message: str) -> list[BaseModel]:
        if self.ended:
            return []
        return [PipelineFinished(pipeline_id=self.pipeline_id or "unknown", status="failed",
                                 session_dir=self.session_dir, duration_ms=0.0, message=message)]

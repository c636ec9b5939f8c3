"""Session events and their append-only JSONL log.

Every event is a plain dict, ready for SSE or JSON: ``type``, ``session``
(the agent's name), ``session_id``, ``seq`` (1, 2, 3 … per session),
``ts`` (unix seconds) and the type's own fields listed in `EVENT_FIELDS`.
The format only ever grows: consumers must ignore keys they do not know.

The log is one JSON object per line, appended and flushed as events happen
(an append-only log cannot be written by rename; a crash loses at most the
line being written, and `read_log` skips a torn last line). It holds the
turn inputs and replies, so `history_from_log` can rebuild a conversation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from bandstand.agents.base import Message, ToolCall, ToolResult

# event type → the fields it always carries (beyond type/session/session_id/seq/ts)
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "session_started": ("backend", "persona"),
    "state_changed": ("from_state", "to_state"),
    "turn_started": ("turn", "input"),
    "text_delta": ("turn", "text"),
    "tool_use": ("turn", "tool"),
    "turn_completed": ("turn", "reply", "duration_s", "usage", "cost_usd"),
    "turn_failed": ("turn", "reason", "error"),
    "reply_invalid": ("turn", "error", "action"),
    "session_ended": ("reason", "state", "turns", "cost_usd"),
    # a claude-code team leader's own teammates (CLI subagents); `agent` names the teammate
    "teammate_started": ("turn", "agent", "task_id", "description"),
    "teammate_text": ("turn", "agent", "text"),
    "teammate_tool_use": ("turn", "agent", "tool"),
    "teammate_progress": ("turn", "agent", "task_id", "summary"),
    "teammate_finished": ("turn", "agent", "task_id", "status", "summary"),
}


class EventLog:
    """An append-only JSONL file of one session's events."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] | None = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 — held open for the session

    def write(self, event: dict[str, Any]) -> None:
        if self._fh is None:
            return
        self._fh.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All complete events of a JSONL log, in order (a torn last line is skipped)."""
    events = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return events


def history_from_log(path: str | os.PathLike[str]) -> list[Message]:
    """The conversation (user inputs, tool results, completed replies and their tool calls) recorded in a log."""
    pending: dict[int, dict[str, Any]] = {}
    history: list[Message] = []
    for event in read_log(path):
        kind = event.get("type")
        if kind == "turn_started":
            pending[event["turn"]] = event
        elif kind == "turn_completed" and event["turn"] in pending:
            started = pending.pop(event["turn"])
            results = tuple(ToolResult(r["call_id"], r["content"], r.get("is_error", False))
                            for r in started.get("tool_results", ()))
            calls = tuple(ToolCall(c["id"], c["name"], c.get("arguments", {}), error=c.get("error"))
                          for c in event.get("tool_calls", ()))
            history.append(Message("user", started["input"], tool_results=results))
            history.append(Message("assistant", event["reply"], tool_calls=calls))
    return history

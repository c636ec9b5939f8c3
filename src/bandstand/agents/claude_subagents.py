"""A `claude-code` leader's own teammates: Claude Code subagents, followed through its stream.

In the team mode ``claude-code`` the leader is one `claude` process that
starts its teammates itself, as the CLI's built-in subagents. The teammates
are defined on its command line (``--agents`` JSON: description, prompt,
model) and the leader gets the ``Task`` tool to start them. Its stream-json
output then carries their work (CLI 2.1.332, see the tool-calling reference):

- the leader's ``tool_use`` of ``Agent``/``Task`` with ``{description, prompt,
  subagent_type}`` — the teammate is ``subagent_type``;
- ``system`` lines ``task_started`` (task_id, tool_use_id, description),
  ``task_progress``, ``task_updated`` and ``task_notification`` (status
  completed | failed | stopped | killed, summary);
- the teammate's own ``assistant``/``user`` lines, with ``parent_tool_use_id``
  set to the leader's tool_use id.

`Subagents` attributes each of those lines to its teammate and turns them into
events that name it (``agent``): ``teammate_started``, ``teammate_text``,
``teammate_tool_use``, ``teammate_progress``, ``teammate_finished``. Teammates
run in the background, past the end of the leader's turn; the conversation
keeps reading until every teammate it started has finished, and hands their
results to the caller with the turn's reply (``meta["teammates"]``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bandstand.agents.base import Emit

__all__ = ["AGENT_TOOLS", "TEAM_TOOLS", "Subagents", "subagent_args"]

TEAM_TOOLS = ("Task",)
"""The CLI tools a leader needs to start subagents (its ``init`` lists the Agent tool as ``Task``)."""
AGENT_TOOLS = frozenset({"Agent", "Task"})
"""The names the model calls that tool by."""


def subagent_args(subagents: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The CLI flags that define `subagents` (name → description, prompt, model) and let the leader start them."""
    agents = {
        name: {k: v for k, v in spec.items() if k in ("description", "prompt", "model") and v}
        for name, spec in subagents.items()
    }
    tools = ",".join(TEAM_TOOLS)
    return ["--tools", tools, "--allowedTools", tools, "--agents", json.dumps(agents, separators=(",", ":"))]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


class Subagents:
    """Who each subagent line belongs to; who is still running; what the finished ones answered."""

    def __init__(self) -> None:
        self.by_use: dict[str, str] = {}  # the leader's tool_use id → teammate
        self.running: dict[str, str] = {}  # task id → teammate
        self.finished: list[dict[str, Any]] = []

    @property
    def busy(self) -> bool:
        """True while a teammate that was started has not finished."""
        return bool(self.running) or any(
            use not in self._settled for use in self.by_use
        )

    @property
    def _settled(self) -> set[str]:
        return {f["tool_use_id"] for f in self.finished}

    def leader_block(self, block: Mapping[str, Any]) -> None:
        """Note a `tool_use` block of the leader: a call of the Agent tool names a teammate."""
        if block.get("type") == "tool_use" and block.get("name") in AGENT_TOOLS:
            data = block.get("input") if isinstance(block.get("input"), Mapping) else {}
            assert isinstance(data, Mapping)
            self.by_use[str(block.get("id"))] = str(data.get("subagent_type") or "subagent")

    def line(self, msg: Mapping[str, Any], emit: Emit) -> bool:
        """Handle one stdout line if it is a teammate's; False for the leader's own lines."""
        kind, parent = msg.get("type"), msg.get("parent_tool_use_id")
        if kind in ("assistant", "user") and parent:
            agent = self.by_use.get(str(parent), "subagent")
            if kind == "assistant":
                for block in (msg.get("message") or {}).get("content") or ():
                    if block.get("type") == "text" and block.get("text"):
                        emit("teammate_text", {"agent": agent, "text": block["text"]})
                    elif block.get("type") == "tool_use":
                        emit("teammate_tool_use", {"agent": agent, "tool": block.get("name"), "input": block.get("input")})
            return True
        if kind == "user":
            self._refusals(msg, emit)
            return False
        if kind != "system":
            return False
        handler = {"task_started": self._started, "task_progress": self._progress, "task_updated": self._progress,
                   "task_notification": self._finished}.get(str(msg.get("subtype")))
        if handler is None:
            return False
        handler(msg, emit)
        return True

    def _agent(self, msg: Mapping[str, Any]) -> str:
        task = str(msg.get("task_id", ""))
        return self.running.get(task) or self.by_use.get(str(msg.get("tool_use_id")), "subagent")

    def _started(self, msg: Mapping[str, Any], emit: Emit) -> None:
        agent = self.by_use.get(str(msg.get("tool_use_id")), "subagent")
        self.running[str(msg.get("task_id", ""))] = agent
        emit("teammate_started", {"agent": agent, "task_id": msg.get("task_id"), "description": msg.get("description")})

    def _progress(self, msg: Mapping[str, Any], emit: Emit) -> None:
        emit("teammate_progress", {"agent": self._agent(msg), "task_id": msg.get("task_id"),
                                   "summary": msg.get("summary") or msg.get("last_tool_name") or msg.get("status")})

    def _finished(self, msg: Mapping[str, Any], emit: Emit) -> None:
        agent = self._agent(msg)
        task = str(msg.get("task_id", ""))
        self.running.pop(task, None)
        use = str(msg.get("tool_use_id") or next((u for u, a in self.by_use.items() if a == agent
                                                   and u not in self._settled), ""))
        status = str(msg.get("status") or "completed")
        self._finish(agent, use, status, str(msg.get("summary") or ""), emit, task)

    def _refusals(self, msg: Mapping[str, Any], emit: Emit) -> None:
        """A start the CLI refused (an unknown agent type) is a teammate that finished failing."""
        for block in (msg.get("message") or {}).get("content") or ():
            if (isinstance(block, Mapping) and block.get("type") == "tool_result" and block.get("is_error")
                    and str(block.get("tool_use_id")) in self.by_use):
                use = str(block["tool_use_id"])
                self._finish(self.by_use[use], use, "failed", _text(block.get("content")), emit, None)

    def _finish(self, agent: str, use: str, status: str, summary: str, emit: Emit, task: str | None) -> None:
        if use and use in self._settled:
            return
        self.finished.append({"from": agent, "ok": status == "completed", "status": status, "result": summary,
                              "tool_use_id": use})
        emit("teammate_finished", {"agent": agent, "task_id": task, "status": status, "summary": summary})

    def take_finished(self) -> list[dict[str, Any]]:
        """The results of the teammates that finished since the last call; forget them."""
        done, self.finished = self.finished, []
        for item in done:
            self.by_use.pop(item["tool_use_id"], None)
        return [{k: v for k, v in item.items() if k != "tool_use_id"} for item in done]

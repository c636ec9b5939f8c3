"""Teams: a leader session that delegates to teammate sessions; routing is code.

Each turn the leader answers a `LeaderReply`: whom to give which task
(``delegate``), or that the run is ``done`` with an ``answer``. The team hands
every task to its teammate's session — teammates work in parallel (at most
``max_parallel`` at once), each keeping its own conversation across rounds —
and delivers all results to the leader as the input of its next turn::

    {"results": [{"from": "bass", "task": "…", "ok": true, "result": "…"}]}

The leader's first input is ``{"prompt": …, "teammates": [names]}``. The run
ends when the leader is done, or at a limit: leader turns, wall clock, total
cost — or when the leader fails twice in a row. Teammate failures are
reported to the leader as results with ``ok: false``; they never end the run.
Events of every member session and of the team itself (`TEAM_EVENT_FIELDS`)
go to the team's listeners, in the order they happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from bandstand.agents.base import AgentBackend
from bandstand.agents.config import AgentsConfig
from bandstand.agents.registry import make_backend
from bandstand.agents.responders import resolve
from bandstand.errors import AgentError, BandstandError
from bandstand.runtime.events import EventLog
from bandstand.runtime.session import Session, SessionLimits
from bandstand.runtime.teamfile import TeamSpec

Listener = Callable[[dict[str, Any]], None]

TEAM_EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "team_started": ("leader", "teammates", "prompt"),
    "delegated": ("round", "to", "task"),
    "teammate_result": ("round", "from_member", "ok", "result"),
    "leader_invalid": ("round", "error"),
    "team_ended": ("reason", "answer", "rounds", "cost_usd"),
}


LEADER_PROTOCOL = (
    "You lead a team. Your first message gives the prompt and your teammates' names. "
    'Each reply is one JSON object: {"delegate": [{"to": "<teammate>", "task": "<what to do>"}], '
    '"done": false, "answer": ""}. Teammates work in parallel; their results arrive as your next '
    'message, {"results": [{"from": ..., "task": ..., "ok": ..., "result": ...}]}. When the work is '
    'finished reply {"delegate": [], "done": true, "answer": "<the final answer>"}.'
)


class Delegation(BaseModel):
    to: str
    task: str


class LeaderReply(BaseModel):
    """What a leader answers each turn."""

    delegate: list[Delegation] = Field(default_factory=list)
    done: bool = False
    answer: str = ""


@dataclass(slots=True)
class TeamResult:
    """How a run ended: ``reason`` is done, max_turns, timeout, budget, leader_failed or stopped."""

    reason: str
    answer: str
    rounds: int
    cost_usd: float
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.reason == "done"


class Team:
    """A running team built from a `TeamSpec`. ``await team.run(prompt)``."""

    def __init__(
        self,
        spec: TeamSpec,
        config: AgentsConfig | None = None,
        *,
        backends: Mapping[str, AgentBackend] | None = None,
        log_dir: str | Path | None = None,
    ) -> None:
        self.spec = spec
        self.config = config or AgentsConfig()
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self._listeners: list[Listener] = []
        self._seq = 0
        self._rounds_done = 0
        self._log = EventLog(self.log_dir / "team.jsonl") if self.log_dir is not None else None
        limits = SessionLimits(turn_timeout=spec.limits.turn_timeout)
        given = dict(backends or {})
        self.sessions: dict[str, Session] = {}
        for name, member in spec.members.items():
            backend = given.get(name) or self._backend(name)
            options = dict(member.options)
            if member.model:
                options["model"] = member.model
            persona = member.persona
            if name == spec.leader:
                options["teammates"] = spec.teammates
                persona = f"{persona}\n\n{LEADER_PROTOCOL}".strip()
            session = Session(
                backend,
                name=name,
                persona=persona,
                options=options,
                limits=limits,
                seed=member.seed,
                log_dir=self.log_dir,
            )
            session.add_listener(self._forward)
            self.sessions[name] = session

    def _backend(self, name: str) -> AgentBackend:
        member = self.spec.members[name]
        kind = member.backend or self.config.backend
        responder = resolve(member.responder) if member.responder else None
        return make_backend(kind, self.config, responder=responder)

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(event)` for every member and team event."""
        self._listeners.append(listener)

    def _forward(self, event: dict[str, Any]) -> None:
        for listener in self._listeners:
            with contextlib.suppress(Exception):
                listener(event)

    def _emit(self, kind: str, **fields: Any) -> None:
        self._seq += 1
        event = {
            "type": kind,
            "session": f"team:{self.spec.name}",
            "seq": self._seq,
            "ts": time.time(),
            **fields,
        }
        if self._log is not None:
            self._log.write(event)
        self._forward(event)

    @property
    def cost_usd(self) -> float:
        return sum(s.cost_usd for s in self.sessions.values())

    async def run(self, prompt: str) -> TeamResult:
        """Run the team on `prompt` until the leader is done or a limit is reached."""
        spec = self.spec
        self._emit("team_started", leader=spec.leader, teammates=spec.teammates, prompt=prompt)
        result = TeamResult("stopped", "", 0, 0.0)  # what a cancelled run reports
        try:
            async with asyncio.timeout(spec.limits.max_seconds):
                result = await self._rounds(prompt)
        except TimeoutError:
            result = TeamResult("timeout", "", self._rounds_done, self.cost_usd)
        finally:
            await asyncio.gather(
                *(s.stop() for s in self.sessions.values()), return_exceptions=True
            )
            await asyncio.gather(
                *(_aclose(s.backend) for s in self.sessions.values()), return_exceptions=True
            )
            result.cost_usd = self.cost_usd
            self._emit(
                "team_ended",
                reason=result.reason,
                answer=result.answer,
                rounds=result.rounds,
                cost_usd=result.cost_usd,
            )
            if self._log is not None:
                self._log.close()
        return result

    async def _rounds(self, prompt: str) -> TeamResult:
        spec, leader = self.spec, self.sessions[self.spec.leader]
        await asyncio.gather(*(s.start() for s in self.sessions.values()), return_exceptions=True)
        if leader.ended:
            return TeamResult(
                "leader_failed",
                f"the leader could not start ({leader.end_reason})",
                0,
                self.cost_usd,
            )
        message: dict[str, Any] = {"prompt": prompt, "teammates": spec.teammates}
        all_results: list[dict[str, Any]] = []
        failures = 0
        for round_no in range(spec.limits.max_turns):
            self._rounds_done = round_no
            if spec.limits.max_cost_usd is not None and self.cost_usd >= spec.limits.max_cost_usd:
                return TeamResult("budget", "", round_no, self.cost_usd, all_results)
            verdict = await leader.ask(message, LeaderReply, fallback=LeaderReply())
            if verdict.fallback:
                failures += 1
                self._emit(
                    "leader_invalid", round=round_no, error=verdict.error or verdict.reason or ""
                )
                if failures >= 2 or leader.ended:
                    return TeamResult(
                        "leader_failed",
                        verdict.error or "",
                        round_no + 1,
                        self.cost_usd,
                        all_results,
                    )
                message = {
                    "error": f"your last reply was unusable: {verdict.error}",
                    "teammates": spec.teammates,
                }
                continue
            failures = 0
            reply = verdict.value
            if reply.done:
                return TeamResult("done", reply.answer, round_no + 1, self.cost_usd, all_results)
            if not reply.delegate:
                message = {
                    "note": "delegate a task to a teammate, or reply done with your answer",
                    "teammates": spec.teammates,
                }
                continue
            results = await self._delegate(round_no, reply.delegate)
            all_results.extend(results)
            message = {"results": results}
        return TeamResult("max_turns", "", spec.limits.max_turns, self.cost_usd, all_results)

    async def _delegate(self, round_no: int, tasks: list[Delegation]) -> list[dict[str, Any]]:
        gate = asyncio.Semaphore(self.spec.limits.max_parallel)

        async def one(task: Delegation) -> dict[str, Any]:
            self._emit("delegated", round=round_no, to=task.to, task=task.task)
            session = self.sessions.get(task.to) if task.to != self.spec.leader else None
            outcome: dict[str, Any] = {"from": task.to, "task": task.task}
            if session is None:
                outcome.update(
                    ok=False,
                    result=f"no teammate named '{task.to}'; teammates: {', '.join(self.spec.teammates)}",
                )
            else:
                async with gate:
                    try:
                        outcome.update(ok=True, result=(await session.send(task.task)).text)
                    except AgentError as exc:
                        outcome.update(ok=False, result=f"failed: {exc}")
            self._emit(
                "teammate_result",
                round=round_no,
                from_member=task.to,
                ok=outcome["ok"],
                result=outcome["result"],
            )
            return outcome

        return list(await asyncio.gather(*(one(t) for t in tasks)))


async def _aclose(backend: AgentBackend) -> None:
    closer = getattr(backend, "aclose", None)
    if closer is not None:
        with contextlib.suppress(BandstandError, OSError):
            await closer()

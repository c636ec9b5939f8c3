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

In the team mode ``claude-code`` (`TeamSpec.mode`) the leader is one `claude`
process that starts its teammates itself, as the CLI's subagents
(`bandstand.agents.claude_subagents`): only the leader is a session; its
first input is the prompt; a turn ends once every teammate it started has
finished, and their results are its next input (``{"results": …}``, each
with ``from``, ``ok``, ``status``, ``result``). The run is done when the
leader answers a turn without starting anyone; that answer is the team's.
The teammates' own events (``teammate_*``, naming the ``agent``) are in the
leader's stream and log, and the team reports them as ``delegated`` and
``teammate_result`` like any delegation.

A run can continue from its logs: `Team.run` takes a `Resume` point
(`bandstand.runtime.resume`) with every member's conversation so far, the
rounds already played and the leader's next input.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from bandstand.agents.base import AgentBackend, Message
from bandstand.agents.config import AgentsConfig
from bandstand.agents.registry import make_backend
from bandstand.agents.responders import resolve
from bandstand.errors import AgentError, BandstandError
from bandstand.runtime.events import EventLog
from bandstand.runtime.session import Session, SessionLimits
from bandstand.runtime.teamfile import TeamSpec

Listener = Callable[[dict[str, Any]], None]

TEAM_EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "team_started": ("leader", "teammates", "prompt", "mode", "spec"),
    "team_resumed": ("round", "next_input"),
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


CLAUDE_LEADER_PROTOCOL = (
    "You lead a team. Your teammates are Claude Code subagents that you start yourself with the "
    "Agent tool (subagent_type = the teammate's name): {names}. Start them in the background, each "
    'with a clear task; their results arrive as your next message, {{"results": [{{"from": ..., '
    '"ok": ..., "status": ..., "result": ...}}]}}. Start more work if it is needed. When the work is '
    "finished, answer in plain words without starting any teammate: that answer is the team's answer."
)


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a run continues: each member's conversation so far, the leader turns already
    played (``round``), the leader's next input and the teammates' results so far."""

    prompt: str
    histories: Mapping[str, Sequence[Message]]
    round: int
    message: object
    results: Sequence[Mapping[str, Any]] = ()


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
        histories: Mapping[str, Sequence[Message]] | None = None,
    ) -> None:
        self.spec = spec
        self.config = config or AgentsConfig()
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self._listeners: list[Listener] = []
        self._seq = 0
        self._rounds_done = 0
        self._log = EventLog(self.log_dir / "team.jsonl") if self.log_dir is not None else None
        limits = SessionLimits(turn_timeout=spec.limits.turn_timeout)
        given, earlier = dict(backends or {}), dict(histories or {})
        self.sessions: dict[str, Session] = {}
        claude_team = spec.mode == "claude-code"
        for name, member in spec.members.items():
            if claude_team and name != spec.leader:
                continue  # a subagent of the leader's process, not a session
            backend = given.get(name) or (make_backend("claude-code", self.config) if claude_team
                                          else self._backend(name))
            options = dict(member.options)
            if member.model:
                options["model"] = member.model
            persona = member.persona
            if name == spec.leader and claude_team:
                options["subagents"] = _subagents(spec)
                protocol = CLAUDE_LEADER_PROTOCOL.format(names=", ".join(spec.teammates))
                persona = f"{persona}\n\n{protocol}".strip()
            elif name == spec.leader:
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
                history=earlier.get(name, ()),
            )
            session.add_listener(self._forward)
            self.sessions[name] = session
        if claude_team:
            self.sessions[spec.leader].add_listener(self._teammate_event)

    def _backend(self, name: str) -> AgentBackend:
        member = self.spec.members[name]
        kind = member.backend or self.config.backend
        responder = resolve(member.responder) if member.responder else None
        return make_backend(kind, self.config, responder=responder)

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(event)` for every member and team event."""
        self._listeners.append(listener)

    def _teammate_event(self, event: dict[str, Any]) -> None:
        """A claude-code leader's subagent starting or finishing, as the team's delegation events."""
        if event["type"] == "teammate_started":
            self._emit("delegated", round=self._rounds_done, to=event.get("agent"), task=event.get("description") or "")
        elif event["type"] == "teammate_finished":
            self._emit("teammate_result", round=self._rounds_done, from_member=event.get("agent"),
                       ok=event.get("status") == "completed", result=event.get("summary") or "")

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

    async def run(self, prompt: str, resume: Resume | None = None) -> TeamResult:
        """Run the team on `prompt` until the leader is done or a limit is reached;
        with `resume`, continue an earlier run from where its logs end."""
        spec = self.spec
        if resume is None:
            self._emit("team_started", leader=spec.leader, teammates=spec.teammates, prompt=prompt,
                       mode=spec.mode, spec=spec.model_dump(mode="json"))
        else:
            self._emit("team_resumed", round=resume.round, next_input=resume.message)
        result = TeamResult("stopped", "", resume.round if resume else 0, 0.0)  # what a cancelled run reports
        try:
            async with asyncio.timeout(spec.limits.max_seconds):
                if spec.mode == "claude-code":
                    result = await self._subagent_rounds(prompt, resume)
                else:
                    result = await self._rounds(prompt, resume)
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

    async def _started(self) -> TeamResult | None:
        """Start every member; a `TeamResult` when the leader cannot start."""
        leader = self.sessions[self.spec.leader]
        await asyncio.gather(*(s.start() for s in self.sessions.values()), return_exceptions=True)
        if leader.ended:
            return TeamResult("leader_failed", f"the leader could not start ({leader.end_reason})",
                              self._rounds_done, self.cost_usd)
        return None

    async def _subagent_rounds(self, prompt: str, resume: Resume | None) -> TeamResult:
        """The claude-code mode: the leader's own subagents do the work (see the module docstring)."""
        spec, leader = self.spec, self.sessions[self.spec.leader]
        first = resume.round if resume else 0
        self._rounds_done = first
        if (failed := await self._started()) is not None:
            return failed
        message: Any = resume.message if resume else prompt
        all_results: list[dict[str, Any]] = [dict(r) for r in resume.results] if resume else []
        failures = 0
        for round_no in range(first, spec.limits.max_turns):
            self._rounds_done = round_no
            if spec.limits.max_cost_usd is not None and self.cost_usd >= spec.limits.max_cost_usd:
                return TeamResult("budget", "", round_no, self.cost_usd, all_results)
            try:
                turn = await leader.send(message)
            except AgentError as exc:
                failures += 1
                self._emit("leader_invalid", round=round_no, error=str(exc))
                if failures >= 2 or leader.ended:
                    return TeamResult("leader_failed", str(exc), round_no + 1, self.cost_usd, all_results)
                continue
            failures = 0
            results = [dict(r) for r in turn.meta.get("teammates") or ()]
            if not results:
                return TeamResult("done", turn.text, round_no + 1, self.cost_usd, all_results)
            all_results.extend(results)
            message = {"results": results}
        return TeamResult("max_turns", "", spec.limits.max_turns, self.cost_usd, all_results)

    async def _rounds(self, prompt: str, resume: Resume | None) -> TeamResult:
        spec, leader = self.spec, self.sessions[self.spec.leader]
        first = resume.round if resume else 0
        self._rounds_done = first
        if (failed := await self._started()) is not None:
            return failed
        message: Any = resume.message if resume else {"prompt": prompt, "teammates": spec.teammates}
        all_results: list[dict[str, Any]] = [dict(r) for r in resume.results] if resume else []
        failures = 0
        for round_no in range(first, spec.limits.max_turns):
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


def _subagents(spec: TeamSpec) -> dict[str, dict[str, Any]]:
    """The leader's subagent definitions: one per teammate, from its persona and model."""
    out: dict[str, dict[str, Any]] = {}
    for name in spec.teammates:
        member = spec.members[name]
        prompt = member.persona.strip() or f"You are {name}, a member of the team."
        out[name] = {"description": f"{name}: {prompt.splitlines()[0][:200]}", "prompt": prompt,
                     "model": member.model}
    return out


async def _aclose(backend: AgentBackend) -> None:
    closer = getattr(backend, "aclose", None)
    if closer is not None:
        with contextlib.suppress(BandstandError, OSError):
            await closer()

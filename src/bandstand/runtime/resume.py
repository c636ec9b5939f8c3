"""Continuing a team run from its folder of JSONL logs (`bandstand team resume RUN_DIR`).

A team run leaves ``team.jsonl`` (the team's events; ``team_started`` holds the
prompt and the team file as it was) and one ``<member>-<id>.jsonl`` per member
session. `resume_point` reads them back into a `Resume`:

- every member's conversation so far (`history_from_log` over all of its logs,
  oldest first — a run resumed before has several);
- the leader turns already played (``round``: the limits count them too);
- the leader's next input: the same input again if its last turn never
  finished; else the results of the teammates it delegated to after that turn
  (a teammate that had not answered when the run stopped is reported as an
  interrupted failure, for the leader to give out again); in the ``claude-code``
  mode, the subagents' results recorded with the leader's last turn.

A run whose leader already gave its answer is not continued: `ResumePlan.done`
holds that answer. The continued run appends to the same folder: new events to
``team.jsonl`` (from ``team_resumed``), new session logs beside the old ones.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bandstand.agents.base import Message
from bandstand.errors import InvalidInput, NotFound
from bandstand.runtime.events import history_from_log, read_log
from bandstand.runtime.team import LeaderReply, Resume
from bandstand.runtime.teamfile import TeamSpec

__all__ = ["INTERRUPTED", "ResumePlan", "resume_point"]

INTERRUPTED = "interrupted: the run stopped before this task finished; give it out again if it is still needed"


@dataclass(frozen=True, slots=True)
class ResumePlan:
    """What `resume_point` found: the team as it ran, where to go on — or its answer, when it was done."""

    spec: TeamSpec
    resume: Resume
    done: str | None = None


def _member_logs(run: Path) -> dict[str, list[Path]]:
    """Each member's session logs, oldest first, by the session name their events carry."""
    found: dict[str, list[tuple[float, Path]]] = {}
    for path in sorted(run.glob("*.jsonl")):
        if path.name == "team.jsonl":
            continue
        events = read_log(path)
        if events and isinstance(events[0].get("session"), str):
            found.setdefault(events[0]["session"], []).append((float(events[0].get("ts") or 0.0), path))
    return {name: [p for _, p in sorted(logs)] for name, logs in found.items()}


def _as_input(text: str) -> Any:
    """A turn's input as it was sent: a JSON object back to a dict, anything else as text."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def resume_point(run_dir: str | Path, spec: TeamSpec | None = None) -> ResumePlan:
    """Read a team run's folder into where it continues (see the module docstring)."""
    run = Path(run_dir)
    team_log = run / "team.jsonl"
    if not team_log.is_file():
        raise NotFound(f"{run} is not a team run folder (it has no team.jsonl); "
                       "give the folder `bandstand team run` printed after 'log:'")
    events = read_log(team_log)
    begun = next((e for e in events if e.get("type") == "team_started"), None)
    if begun is None:
        raise InvalidInput(f"{team_log}: no team_started event; the run cannot be continued")
    if spec is None:
        if not isinstance(begun.get("spec"), dict):
            raise InvalidInput(f"{team_log} does not record the team file (an older run); "
                               "pass it with --team-file FILE.toml")
        try:
            spec = TeamSpec.model_validate(begun["spec"])
        except ValidationError as exc:
            raise InvalidInput(f"{team_log}: the recorded team file is not valid: {exc.errors()[0]['msg']}") from exc
    prompt = str(begun.get("prompt", ""))
    logs = _member_logs(run)
    histories: dict[str, list[Message]] = {
        name: [m for path in paths for m in history_from_log(path)] for name, paths in logs.items()
    }
    results = [{"from": e.get("from_member"), "ok": e.get("ok"), "result": e.get("result")}
               for e in events if e.get("type") == "teammate_result"]
    ended = [e for e in events if e.get("type") in ("team_ended", "team_resumed")]
    leader_logs = logs.get(spec.leader, [])
    turns, open_turn = _turns(leader_logs)
    played = len(turns) if spec.mode == "claude-code" else sum(isinstance(_as_input(t["input"]), dict) for t in turns)
    if ended and ended[-1].get("type") == "team_ended" and ended[-1].get("reason") == "done":
        return ResumePlan(spec, Resume(prompt, histories, played, None, results), str(ended[-1].get("answer") or ""))
    if open_turn is not None:  # the leader's last turn never finished: ask it again
        return ResumePlan(spec, Resume(prompt, histories, played, _as_input(open_turn["input"]), results))
    if not turns:
        first: Any = prompt if spec.mode == "claude-code" else {"prompt": prompt, "teammates": spec.teammates}
        return ResumePlan(spec, Resume(prompt, histories, 0, first, results))
    last = turns[-1]
    if spec.mode == "claude-code":
        delivered = list((last.get("meta") or {}).get("teammates") or [])
        if not delivered:
            return ResumePlan(spec, Resume(prompt, histories, played, None, results), str(last.get("reply", "")))
        return ResumePlan(spec, Resume(prompt, histories, played, {"results": delivered}, results))
    return ResumePlan(spec, Resume(prompt, histories, played, _after(last, events, spec), results),
                      _answer(last))


def _turns(logs: list[Path]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The leader's completed turns ({input, reply, meta, ts}) and its unfinished last turn, if any."""
    done: list[dict[str, Any]] = []
    open_turn: dict[str, Any] | None = None
    for path in logs:
        started: dict[int, dict[str, Any]] = {}
        for event in read_log(path):
            kind = event.get("type")
            if kind == "turn_started":
                started[event["turn"]] = open_turn = event
            elif kind == "turn_completed" and event.get("turn") in started:
                begun = started.pop(event["turn"])
                done.append({"input": begun.get("input", ""), "reply": event.get("reply", ""),
                             "meta": event.get("meta") or {}, "ts": float(event.get("ts") or 0.0)})
                open_turn = None
            elif kind == "turn_failed":
                started.pop(event.get("turn", -1), None)
    return done, open_turn


def _answer(last: Mapping[str, Any]) -> str | None:
    """The answer of a leader whose last reply said done (the run stopped before it ended)."""
    reply = _leader_reply(str(last.get("reply", "")))
    return reply.answer if reply is not None and reply.done else None


def _leader_reply(text: str) -> LeaderReply | None:
    try:
        return LeaderReply.model_validate_json(text)
    except ValidationError:
        return None


def _after(last: Mapping[str, Any], events: list[dict[str, Any]], spec: TeamSpec) -> Any:
    """The leader's next input after its last completed turn: the results of what it delegated."""
    since = [e for e in events if float(e.get("ts") or 0.0) >= float(last.get("ts") or 0.0)]
    given = [e for e in since if e.get("type") == "delegated"]
    answered = [e for e in since if e.get("type") == "teammate_result"]
    if not given:
        reply = _leader_reply(str(last.get("reply", "")))
        if reply is not None and reply.delegate:  # it delegated, and the run stopped before any was given out
            given = [{"to": d.to, "task": d.task} for d in reply.delegate]
        else:
            return {"note": "delegate a task to a teammate, or reply done with your answer", "teammates": spec.teammates}
    outcomes = []
    for task in given:
        match = next((r for r in answered if r.get("from_member") == task.get("to")), None)
        if match is not None:
            answered.remove(match)
        outcomes.append({"from": task.get("to"), "task": task.get("task"),
                         "ok": bool(match and match.get("ok")),
                         "result": match.get("result") if match else INTERRUPTED})
    return {"results": outcomes}

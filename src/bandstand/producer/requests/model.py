"""The language model's part in a studio request, when a backend is configured:

- `classify`: a request the rules do not route is read by the model into a mode
  (REASONING, EDITING or COMPOSING), with an intent, a confidence and the specialist
  who handles it (harmony, rhythm, sound, mix or the composer: `specialists.BRIEFS`);
- `edit_with_model`: EDITING as real tool calling by that specialist — the model gets
  the specialist's prompt and the tools of its subset that the EDITING mode allows
  (`TOOLS.schemas("editing", only=…)`; the backend refuses a call outside them),
  may call several per turn and gets each result back; every call is validated by the studio (`run_batch`:
  names with did-you-mean, ranges, placeholders, strikes) before it touches the
  working copy, so a made-up id is a `toolError` with the reason, which the model
  sees and may fix. The calls of its first turn are the plan's steps; a later
  call of the same tool retries a step that failed. Three failed calls stop it.
  All or nothing: a step that failed in the end leaves the project as it was;
- `reason_with_model`: REASONING with the project's figures as context, the
  model's text streamed as `content` as it comes;
- `compose_with_model`: a COMPOSING request the model routed is read into the
  studio's typed edits (`iteration_read`) and proposed as a variation.

Each turn runs on the request's event loop within its timeout, the request's
deadline, the model's circuit breaker and retries (`running.on_loop`).
"""

from __future__ import annotations

import functools
import json
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from bandstand.agents.breaker import retry
from bandstand.craft.requests import not_understood
from bandstand.errors import InvalidInput, ToolCallError
from bandstand.producer.execution.running import BREAKERS, on_loop
from bandstand.producer.requests.ask import analysis_context
from bandstand.producer.requests.intent import Routed
from bandstand.producer.requests.job import Job, Outcome
from bandstand.producer.requests.specialists import BRIEFS
from bandstand.protocol.studio import (
    Content,
    PlanStepUpdate,
    Reasoning,
    Status,
    SummaryFinal,
    ToolCall,
    ToolError,
    ToolStart,
)
from bandstand.protocol.studio import Plan as PlanEvent
from bandstand.protocol.studio import PlanStep as PlanStepEvent

if TYPE_CHECKING:
    from bandstand.agents import Message, TurnReply
    from bandstand.agents import ToolCall as AgentToolCall

__all__ = ["CLASSIFIER", "EDITOR", "MAX_FAILED_CALLS", "MAX_TURNS", "Reading", "classify", "compose_with_model",
           "edit_with_model", "reason_with_model"]

MAX_TURNS = 6
MAX_FAILED_CALLS = 3
CLASSIFIER = (
    "You route requests for bandstand, a studio where a person directs a band of AI musicians. Read the request "
    "and answer with JSON only: {\"mode\": \"REASONING\" | \"EDITING\" | \"COMPOSING\", \"intent\": a few words, "
    "\"confidence\": 0..1}. REASONING: a question about the song or about music, nothing changes. EDITING: a change "
    "the mix desk makes directly (tempo, key, track names, mute/solo, levels, pan, effects, automation, quantize). "
    "COMPOSING: notes are written or rewritten (new parts, a different feel, more energy). Also say who handles "
    "it, as \"specialist\": \"harmony\" (chords, key, pitches), \"rhythm\" (groove, swing, timing, tempo), "
    "\"sound\" (instruments, tone, effects), \"mix\" (levels, pan, mute, solo, sends, automation) or "
    "\"composer\" (anything else).")
EDITOR = BRIEFS["composer"].prompt
ANALYST = (
    "You are a music producer answering questions about a song in a studio. Answer from the figures given (key, "
    "chords per section, notes per bar, velocity, parts, energy), in a few sentences a musician understands.")


class Reading(BaseModel):
    mode: Literal["REASONING", "EDITING", "COMPOSING"]
    intent: str = Field(default="request", max_length=80)
    confidence: float = Field(default=0.5, ge=0, le=1)
    specialist: Literal["harmony", "rhythm", "sound", "mix", "composer"] = "composer"


def _history(job: Job) -> tuple[Message, ...]:
    from bandstand.agents import Message

    return tuple(Message(t.role, t.text) for t in job.prepared.history[-20:])


def _ignore(kind: str, fields: dict[str, object]) -> None:
    del kind, fields


async def classify(job: Job) -> Routed:
    """The model's reading of a request the rules did not route (a `Routed`)."""
    import asyncio

    from bandstand.agents import TurnRequest, json_schema, parse_reply
    backend, text = job.studio.backend, job.routed.text
    assert backend is not None  # the router sends a request here only when a model is configured
    limit = min(job.studio.timeouts.model_turn, job.control.remaining())

    async def once() -> TurnReply:
        conversation = await backend.open(CLASSIFIER, {})
        try:
            request = TurnRequest(text=f"Request: {text}", history=_history(job), name="classify",
                                  schema=json_schema(Reading), data={"request": text})
            return await asyncio.wait_for(conversation.turn(request, _ignore), timeout=limit)
        finally:
            await conversation.close()

    reply = await BREAKERS["model"].call(lambda: retry(once, attempts=2, base_delay=0.2))
    job.add_usage(reply.usage, "classify")
    parsed = parse_reply(reply.structured if isinstance(reply.structured, dict) else reply.text, Reading)
    if parsed.value is None:
        raise not_understood(text)
    reading = parsed.value
    if reading.mode != "REASONING" and job.prepared.project_id is None:
        raise InvalidInput(f"'{text[:60]}' is about a project: give projectId (GET /api/v1/projects lists them)",
                           field="projectId")
    return replace(job.routed, mode=reading.mode, intent=f"llm.{'-'.join(reading.intent.lower().split())[:60]}",
                   confidence=reading.confidence, specialist=reading.specialist)


# --------------------------------------------------------------------------- REASONING


def reason_with_model(job: Job) -> Outcome:
    from bandstand.agents import TurnRequest

    context: dict[str, Any] = {}
    if job.prepared.project_id is not None:
        head = job.studio.library.session(job.prepared.project_id).head
        context = analysis_context(head)
        job.emit(Reasoning(content=f"Looking at the song: {context['tempo']:g} BPM, {context['key'] or 'no key'}, "
                                   f"{len(context['sections'])} sections, {len(context['parts'])} parts"))
    said: list[str] = []

    def stream(kind: str, fields: dict[str, Any]) -> None:
        if kind == "text_delta" and fields.get("text"):
            said.append(str(fields["text"]))
            job.emit(Content(content=str(fields["text"])))

    backend = job.studio.backend
    assert backend is not None  # the router sends a question here only when a model is configured

    async def ask() -> Any:
        conversation = await backend.open(ANALYST, {})
        try:
            text = job.routed.text + (f"\n\nThe song in figures (JSON): {json.dumps(context)}" if context else "")
            return await conversation.turn(TurnRequest(text=text, history=_history(job), name="ask"), stream)
        finally:
            await conversation.close()

    reply = on_loop(job.loop, job.control, ask, timeout=job.studio.timeouts.model_turn)
    job.add_usage(reply.usage, "ask")
    if not said:
        job.emit(Content(content=reply.text or "(no answer)"))
    return Outcome(answer="".join(said) or reply.text)


# --------------------------------------------------------------------------- EDITING


def _label(name: str, args: dict[str, Any]) -> str:
    """A tool call in words ("set_track_volume Bass")."""
    what = next((str(args[k]) for k in ("track", "region", "bus", "name") if isinstance(args.get(k), str)), "")
    return f"{name.replace('_', ' ').capitalize()} {what}".strip()[:200]


class _Steps:
    """The plan made of the model's first calls; later calls retry the steps that failed."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.status: dict[str, str] = {}
        self.tool: dict[str, str] = {}
        self.errors: dict[str, str] = {}

    def announce(self, calls: list[AgentToolCall]) -> list[str]:
        ids = [f"s{i}" for i in range(1, len(calls) + 1)]
        steps = [PlanStepEvent(step_id=i, label=_label(c.name, dict(c.arguments)), tool_name=c.name[:200],
                               agent_id=self.job.routed.specialist) for i, c in zip(ids, calls, strict=True)]
        self.status = dict.fromkeys(ids, "pending")
        self.tool = {i: c.name for i, c in zip(ids, calls, strict=True)}
        title = "Changing " + ", ".join(dict.fromkeys(s.label.split(" ", 2)[-1] for s in steps))[:200]
        self.job.emit(PlanEvent(plan_id=f"plan-{self.job.prepared.trace_id[-16:]}", title=title, steps=steps))
        return ids

    def retrying(self, name: str) -> str | None:
        waiting = [s for s, st in self.status.items() if st == "active" and s in self.errors]
        return next((s for s in waiting if self.tool[s] == name), waiting[0] if waiting else None)

    def move(self, step: str, status: str, error: str | None = None) -> None:
        if self.status[step] == status:
            return
        self.status[step] = status
        self.job.emit(PlanStepUpdate(step_id=step, status=status, error=error))  # type: ignore[arg-type]


def edit_with_model(job: Job) -> Outcome:
    from bandstand.agents import Message, ToolResult, ToolSpec, TurnRequest
    from bandstand.producer.sessions.tool_context import tool_context
    from bandstand.studio.tools import TOOLS, Strikes, run_batch

    assert job.prepared.project_id is not None
    session = job.studio.library.session(job.prepared.project_id)
    working = base = session.head
    brief = BRIEFS.get(job.routed.specialist, BRIEFS["composer"])
    tools = tuple(ToolSpec(s["name"], s["description"], s["parameters"])
                  for s in TOOLS.schemas("editing", only=brief.tools))
    context = tool_context(session.ids)
    strikes, steps, failed, ran, used = Strikes(), _Steps(job), 0, [], []
    figures = json.dumps({"tempo": base.tempo, "key": base.key, "entities": base.entities(),
                        "tracks": [{"name": t.name, "role": t.role, "volume": t.volume, "pan": t.pan, "mute": t.mute}
                                   for t in base.tracks]})
    history: list[Message] = list(_history(job))
    request = TurnRequest(text=f"{job.routed.text}\n\nThe project (JSON): {figures}", history=tuple(history),
                          persona=brief.prompt, name="studio", tools=tools)
    job.emit(Status(message=f"The {brief.name} specialist (the model) is on it", agent_id=brief.name))
    backend = job.studio.backend
    assert backend is not None  # a specialist is the model only when one is configured
    conversation = on_loop(job.loop, job.control, lambda: backend.open(brief.prompt, {}),
                           timeout=job.studio.timeouts.model_turn)
    final = ""
    try:
        for turn in range(MAX_TURNS):
            reply = on_loop(job.loop, job.control, functools.partial(conversation.turn, request, _ignore),
                            timeout=job.studio.timeouts.model_turn)
            job.add_usage(reply.usage, "edit")
            history += [Message("user", request.text, tool_results=request.tool_results),
                        Message("assistant", reply.text, tool_calls=reply.tool_calls)]
            if not reply.tool_calls:
                final = reply.text
                break
            fresh = steps.announce(list(reply.tool_calls)) if turn == 0 else []
            results = []
            for i, call in enumerate(reply.tool_calls):
                step = fresh[i] if fresh else steps.retrying(call.name)
                if failed >= MAX_FAILED_CALLS or step is None:
                    why = (f"not run: {MAX_FAILED_CALLS} calls failed already" if failed >= MAX_FAILED_CALLS else
                           "not run: only the steps of the plan may be tried again")
                    if step is None:
                        job.emit(Status(message=f"{call.name[:100]}: {why}"))
                    results.append(ToolResult(call.id, why, True))
                    continue
                job.control.check()
                steps.move(step, "active")
                args = dict(call.arguments)
                job.emit(ToolStart(name=call.name[:200] or "tool", label=_label(call.name, args), step_id=step))
                error = call.error
                if error is None:
                    try:
                        outcome = run_batch(working, [{"name": call.name, "args": args}], ctx=context,
                                            mode="editing", strikes=strikes)
                    except ToolCallError as exc:
                        error = str(exc).split(": ", 1)[1] if str(exc).startswith("call 0 (") else str(exc)
                if error is not None:
                    failed += 1
                    steps.errors[step] = error
                    job.emit(ToolError(name=call.name[:200] or "tool", error=error[:500], id=call.id[:200] or None,
                                       step_id=step, params=args))
                    results.append(ToolResult(call.id, f"error: {error}", True))
                    continue
                working = outcome.project
                ran.append(outcome.calls[0].model_dump(mode="json"))
                used += [call.name] if call.name not in used else []
                steps.errors.pop(step, None)
                job.emit(ToolCall(id=f"call-{uuid.uuid4().hex[:12]}", name=call.name,
                                  params=dict(outcome.calls[0].args), step_id=step))
                steps.move(step, "completed")
                results.append(ToolResult(call.id, json.dumps(outcome.results[0].result, default=str)[:4000]))
            if failed >= MAX_FAILED_CALLS:
                break
            request = TurnRequest(text="", history=tuple(history), persona=brief.prompt, name="studio", tools=tools,
                                  tool_results=tuple(results))
    finally:
        on_loop(job.loop, job.control, conversation.close, timeout=10.0)
    for step, status in list(steps.status.items()):
        if status == "pending":
            steps.move(step, "skipped")
        elif status == "active":
            steps.move(step, "failed", steps.errors.get(step))
    bad = [s for s, st in steps.status.items() if st in ("failed", "skipped")]
    if bad:
        stopped = f"stopped after {failed} failed tool calls; " if failed >= MAX_FAILED_CALLS else ""
        raise InvalidInput(f"{stopped}{len(bad)} of {len(steps.status)} steps did not work "
                           f"({steps.errors.get(bad[0], 'not tried')}); nothing was changed")
    revision = base.revision
    if working != base:
        revision = session.commit(working, author="studio (model)", request=job.routed.text, kind="tools", tools=ran,
                                  summary=final[:200] or "tool calls").revision
    summary = (final or f"{len(ran)} tool calls").strip()[:500] or "done"
    tracks = [str(c["args"].get("track")) for c in ran if isinstance(c["args"].get("track"), str)]
    job.emit(SummaryFinal(summary=summary, tools_used=used, tracks=list(dict.fromkeys(tracks))))
    return Outcome(summary=summary, revision=revision, focus=list(dict.fromkeys(tracks)))


# --------------------------------------------------------------------------- COMPOSING


def compose_with_model(job: Job) -> Routed:
    """The model reads the request into the studio's typed edits: the request routed again as
    "compose.edit" with them (the modes then propose them)."""
    from bandstand.producer.requests.iteration import vocabulary
    from bandstand.producer.requests.iteration_read import read_with_model_async

    request = on_loop(job.loop, job.control,
                      lambda: read_with_model_async(job.routed.text, job.studio.backend, vocabulary(),
                                                    functools.partial(job.add_usage, source="compose")),
                      timeout=job.studio.timeouts.model_turn)
    if not request.edits:
        raise InvalidInput(f"the model read no change to make in '{job.routed.text[:80]}'")
    return replace(job.routed, request=request, intent="compose.edit")

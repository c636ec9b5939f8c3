"""One request in words, as a studio stream (spec studio §6): `prepare` reads it
(routing, the project, the conversation) before anything is sent — so a request
that cannot run is refused with one line —, `run_stream` sends its events:
`state` first; then by mode REASONING `reasoning* → content`, EDITING `plan →
[planStepUpdate → toolStart → toolCall → planStepUpdate]* → summary.final`,
COMPOSING the same with `generatorStart/generatorComplete` and then the
variation's `meta → phrase* → done`; `complete` last — always, also after an
`error` (steps not reached are reported skipped first).

The work runs on a worker thread (`running.WORKERS`) under the request's
`Control`; cancelling the task (the client went away) stops the work at its
next step and waits for it, so nothing is left running. Each event goes through
the protocol's `Emitter` and `StudioGuard` to `sink` (which must accept events
from any thread). The conversation, when there is one, gets both turns.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bandstand.compose.api import new_session_id
from bandstand.errors import BandstandError, InvalidInput, UserError
from bandstand.producer.execution.running import WORKERS, Cancelled, Control
from bandstand.producer.requests.conversations import Turn, clip
from bandstand.producer.requests.intent import route
from bandstand.producer.requests.job import Job, Outcome, Prepared
from bandstand.producer.requests.model import classify
from bandstand.producer.requests.modes import MODES
from bandstand.producer.requests_models import WordsRequest
from bandstand.protocol import STUDIO, Emitter, ProtocolViolation
from bandstand.protocol.jsonvalue import JSONObject
from bandstand.protocol.studio import (
    EXECUTION_MODES,
    Complete,
    PlanStepUpdate,
    StallWarning,
    State,
    StreamError,
)

if TYPE_CHECKING:
    from bandstand.producer.sessions.studio import Studio

__all__ = ["MAX_PROMPT", "prepare", "run_stream", "wants_team"]

MAX_PROMPT = WordsRequest.MAX_LENGTH  # the longest prompt, in characters
NEEDS_PROJECT = {"EDITING", "compose.edit", "compose.mood", "compose.parts"}
Sink = Callable[[JSONObject], None]


def prepare(studio: Studio, prompt: str, *, project_id: str | None = None,
            conversation_id: str | None = None) -> Prepared:
    """Read a request (see the module docstring): `InvalidInput` when it cannot run, `NotFound`
    for an unknown project or conversation."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInput("prompt: say what to do, e.g. 'make the bass busier' or 'what key is this in?'",
                           field="prompt")
    if len(prompt) > MAX_PROMPT:
        raise InvalidInput(f"prompt: at most {MAX_PROMPT} characters; this one has {len(prompt)}", field="prompt")
    focus: tuple[str, ...] = ()
    history: tuple[Turn, ...] = ()
    if conversation_id is not None:
        conversation = studio.conversations.get(conversation_id)
        project_id = project_id or conversation.project_id
        focus, history = tuple(conversation.focus), tuple(conversation.turns)
    project = studio.library.session(project_id).head if project_id else None
    routed = route(prompt, project=project, focus=focus, model=studio.backend is not None)
    needs = routed.mode if routed.mode == "EDITING" else routed.intent
    if project is None and (needs in NEEDS_PROJECT or (routed.mode == "REASONING" and routed.intent != "praise"
                                                      and studio.backend is None)):
        raise InvalidInput(f"'{prompt.strip()[:60]}' is about a project: give projectId (GET /api/v1/projects lists "
                           "them), or ask for something new ('a funk groove at 96 bpm')", field="projectId")
    if routed.new_project:
        project_id = new_session_id()
    return Prepared(prompt=prompt, routed=routed, project_id=project_id, conversation_id=conversation_id,
                    trace_id=f"trace-{uuid.uuid4().hex[:16]}", focus=focus, history=history)


def _state(job: Job) -> State:
    routed = job.routed
    return State(state=routed.mode, intent=routed.intent, confidence=round(routed.confidence, 3),
                 execution_mode=EXECUTION_MODES[routed.mode],  # type: ignore[arg-type]
                 trace_id=job.prepared.trace_id, project_id=job.prepared.project_id,
                 conversation_id=job.prepared.conversation_id, specialist=routed.specialist)


def _head(job: Job) -> int | None:
    pid = job.prepared.project_id
    if pid is None:
        return None
    try:
        return job.studio.library.session(pid).revision
    except BandstandError:
        return None


def _fail(job: Job, message: str, code: str, retryable: bool = False) -> None:
    """`error`, the steps never finished (pending → skipped, active → failed), `complete(false)`."""
    emitter = job.emitter
    if emitter.closed:
        return
    guard = emitter.guard
    if getattr(guard, "mode", None) is None:
        emitter.emit(_state(job))
    emitter.emit(StreamError(message=message[:500] or "failed", code=code, retryable=retryable))
    for step_id, status in list((getattr(guard, "steps", None) or {}).items()):
        if status in ("pending", "active"):
            emitter.emit(PlanStepUpdate(step_id=step_id, status="skipped" if status == "pending" else "failed",
                                        error=message[:500]))
    emitter.emit(Complete(success=False, trace_id=job.prepared.trace_id, project_id=job.prepared.project_id,
                          revision=_head(job), usage=job.stream_usage(), error=message[:500] or "failed"))


def wants_team(job: Job) -> bool:
    """Whether the request goes to the studio's agent team (when it has one): a new song of two or
    more parts (a structured prompt's Roles, else the genre's band) — not a song with a `Form:` of
    its own, which the built-in musicians write section by section as given."""
    routed = job.routed
    if job.studio.team is None or routed.mode != "COMPOSING" or not routed.new_project:
        return False
    prompt = routed.structured
    return prompt is None or (len(prompt.roles) != 1 and prompt.form in (None, "", [], {}))


def _work(job: Job) -> Outcome:
    return MODES[job.routed.mode](job)


async def run_stream(studio: Studio, prepared: Prepared, sink: Sink, *, control: Control | None = None,
                     on_outcome: Callable[[Outcome], None] | None = None) -> dict[str, Any]:
    """Send the stream of `prepared` to `sink` (see the module docstring); returns the last event.
    `on_outcome` gets what the mode did, before `complete` is sent (a client that is not a stream
    reads it there)."""
    loop = asyncio.get_running_loop()
    control = control or Control(timeout=studio.timeouts.request)
    emitter = Emitter(STUDIO)
    last: dict[str, Any] = {}
    heard = [time.monotonic()]

    def send(event: dict[str, Any]) -> None:
        heard[0] = time.monotonic()
        last.clear()
        last.update(event)
        sink(event)

    emitter.subscribe(send)
    job = Job(studio, prepared, prepared.routed, control, emitter, loop)
    studio.running[prepared.trace_id] = {"traceId": prepared.trace_id, "prompt": prepared.prompt[:200],
                                         "projectId": prepared.project_id, "mode": prepared.routed.mode}
    future: asyncio.Future[Outcome] | None = None
    watchdog = asyncio.create_task(_watch(job, heard, studio.timeouts.stall))
    try:
        if job.routed.needs_model:
            job.routed = await classify(job)
        emitter.emit(_state(job))
        job.say_unsaid()
        team = job.studio.team
        if team is not None and wants_team(job):  # wants_team says no without a team; this tells mypy
            outcome = await team(job)
        else:
            future = loop.run_in_executor(WORKERS, _work, job)
            outcome = await asyncio.shield(future)
        if on_outcome is not None:
            on_outcome(outcome)
        emitter.emit(Complete(success=True, trace_id=prepared.trace_id, project_id=prepared.project_id,
                              revision=outcome.revision, variation_id=outcome.variation_id,
                              usage=job.stream_usage(), warnings=[*job.routed.warnings, *outcome.warnings]))
        await _remember(job, outcome)
    except asyncio.CancelledError:
        control.cancel.set()
        if future is not None and not future.done():
            await asyncio.wait([future])
        emitter.close("the client went away; the request was cancelled")
        raise
    except Cancelled:
        emitter.close("the request was cancelled")
    except ProtocolViolation:
        pass  # the emitter has ended the stream with its failure tail
    except UserError as exc:
        _fail(job, str(exc), "invalid")
    except TimeoutError as exc:
        _fail(job, str(exc) or "the request took too long", "timeout", retryable=True)
    except BandstandError as exc:
        _fail(job, str(exc), "failed", retryable=bool(getattr(exc, "retryable", False)))
    except Exception as exc:  # the server never dies on a request; the client is told in one line
        _fail(job, f"internal error: {type(exc).__name__}: {str(exc)[:200]}", "internal")
    finally:
        watchdog.cancel()
        studio.running.pop(prepared.trace_id, None)
        emitter.close("the stream ended without a complete event")
    return dict(last)


async def _watch(job: Job, heard: list[float], stall: float) -> None:
    """A `stallWarning` each time the work has said nothing for `stall` seconds (sent on the event
    loop, as `complete` and `error` are, so it never lands after them)."""
    warned = heard[0]
    while True:
        await asyncio.sleep(max(0.001, min(stall / 4, 1.0)))
        idle = time.monotonic() - heard[0]
        guard = job.emitter.guard
        if idle < stall or heard[0] == warned or not getattr(guard, "may_send", lambda _: False)("stallWarning"):
            continue
        warned = heard[0]
        active = next((s for s, status in (getattr(guard, "steps", None) or {}).items() if status == "active"), None)
        where = f"step {active}" if active else "the request"
        job.emit(StallWarning(seconds=round(idle, 3), step_id=active,
                              message=f"{where} has made no progress for {idle:.0f} s; still working"))
        warned = heard[0]


async def _remember(job: Job, outcome: Outcome) -> None:
    """Both turns of the request, in its conversation (off the event loop)."""
    prepared = job.prepared
    if prepared.conversation_id is None:
        return
    user = Turn(role="user", text=clip(prepared.prompt), project_id=prepared.project_id)
    said = outcome.answer or outcome.summary or job.routed.intent
    assistant = Turn(role="assistant", text=clip(said), mode=job.routed.mode, intent=job.routed.intent,
                     focus=outcome.focus[:20], project_id=prepared.project_id, revision=outcome.revision,
                     variation_id=outcome.variation_id)
    await asyncio.to_thread(job.studio.conversations.add, prepared.conversation_id, [user, assistant],
                            project_id=prepared.project_id)

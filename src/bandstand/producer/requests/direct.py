"""A request in words on one session, for a client that is not a stream (the CLI's
`bandstand edit` and `bandstand ask`, MCP's `edit` and `ask`): the very path `POST
/api/v1/stream` runs, collected instead of streamed.

The words are routed once (`producer.requests.intent.route`, inside `Studio.prepare`) into
a typed request and run by the stream's modes (`producer.requests.modes`) in process: a
producer idiom ("make the bass busier", "change the key to F# minor", "try
something different") is COMPOSING — a variation through `producer.requests.iteration`,
nothing changes until it is accepted —; a mixer request ("less reverb on the
lead", "mute the drums", "the bass louder") is EDITING — its tool calls applied
as one revision, undoable —; a question ("what key is this in?") is REASONING —
an answer from the song's own figures. A request that asks for a new song is
refused with the command that makes one. So the CLI, HTTP and MCP make the same
change, byte for byte, from the same words on the same project. A revision says
who handled it (`specialist`) and, when a language model was used, every answer
says what it spent (`usage`, the stream's `complete.usage`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bandstand.errors import InvalidInput

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend
    from bandstand.producer.requests.proposal import EditOutcome

__all__ = ["Directed", "ask", "direct"]


@dataclass(frozen=True, slots=True)
class Directed:
    """What a request did: a variation proposed (`edit`: the iteration's outcome), a revision
    made (`steps` done, in order, with HEAD's new `revision`), or an `answer`."""

    kind: Literal["variation", "revision", "answer"]
    summary: str = ""
    revision: int | None = None
    steps: tuple[str, ...] = ()
    answer: str = ""
    reasoning: tuple[str, ...] = ()
    edit: EditOutcome | None = None
    events: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @property
    def specialist(self) -> str | None:
        """Who handled it (the stream's `state.specialist`)."""
        return next((e.get("specialist") for e in self.events if e.get("type") == "state"), None)

    @property
    def usage(self) -> dict[str, Any] | None:
        """What a language model spent on it (`complete.usage`), None when none was used."""
        used = next((e.get("usage") for e in reversed(self.events) if e.get("type") == "complete"), None)
        return dict(used) if isinstance(used, dict) and any(used.values()) else None

    def to_json(self) -> dict[str, Any]:
        spent = {"usage": self.usage} if self.usage else {}
        if self.kind == "variation" and self.edit is not None:
            return {"kind": "variation", **self.edit.to_json(), **spent}
        if self.kind == "answer":
            return {"kind": "answer", "answer": self.answer, "reasoning": list(self.reasoning), **spent}
        return {"kind": "revision", "revision": self.revision, "summary": self.summary, "steps": list(self.steps),
                "specialist": self.specialist, **spent}


def direct(session_dir: str | Path, request: str, *, backend: AgentBackend | None = None) -> Directed:
    """Do what `request` asks of the session (see the module docstring). Not understood, or
    a request for a new song → `InvalidInput` with one line, and nothing changed."""
    if not isinstance(request, str) or not request.strip():
        raise InvalidInput("say what to change, e.g. 'make the bass busier'")
    return _through_the_stream(Path(session_dir), request, backend)


def ask(session_dir: str | Path, question: str, *, backend: AgentBackend | None = None) -> Directed:
    """An answer to a question about the session, from its figures (or the model's, streamed
    and collected, when `backend` is given). A request that is not a question is refused."""
    from bandstand.producer.requests.ask import is_question

    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("ask a question about the song, e.g. 'what key is this in?'")
    if not is_question(question):
        raise InvalidInput(f"'{question.strip()[:60]}' is not a question; to change the song use "
                           f"bandstand edit SESSION_DIR \"{question.strip()[:60]}\"")
    directed = _through_the_stream(Path(session_dir), question, backend)
    if directed.kind != "answer":  # pragma: no cover - the router sends questions to REASONING
        raise InvalidInput(f"'{question.strip()[:60]}' could not be answered")
    return directed


def _run(stream: Callable[[], Coroutine[Any, Any, dict[str, Any]]]) -> dict[str, Any]:
    """The stream run to its end on a loop of its own: here, or — when this thread already runs a
    loop (a caller inside async code) — on a thread of its own, so that loop is never blocked twice."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(stream())
    with ThreadPoolExecutor(1, thread_name_prefix="bandstand-direct") as pool:
        return pool.submit(lambda: asyncio.run(stream())).result()


def _through_the_stream(session_dir: Path, request: str, backend: AgentBackend | None) -> Directed:
    from bandstand.producer.requests.job import Outcome
    from bandstand.producer.sessions.projects import open_project
    from bandstand.producer.sessions.studio import Studio

    root = session_dir.expanduser().resolve()
    open_project(root)  # a folder that is not a session is refused here, in the CLI's words
    studio = Studio(root.parent, backend=backend, folders=True)
    prepared = studio.prepare(request, project_id=str(root))  # the one router: words → typed request
    if prepared.new_project:
        raise InvalidInput(f"'{request.strip()[:60]}' asks for a new song: bandstand compose \"{request.strip()[:60]}\"")
    events: list[dict[str, Any]] = []
    outcomes: list[Outcome] = []
    complete = _run(lambda: studio.stream(prepared, events.append, on_outcome=outcomes.append))
    errors = [e for e in events if e["type"] == "error"]
    if errors or not complete.get("success", False):
        message = errors[0].get("message") if errors else None
        raise InvalidInput(str(message or f"'{request.strip()[:60]}' could not be done"))
    outcome = outcomes[0]
    if outcome.edit is not None:
        return Directed("variation", summary=outcome.summary or "", revision=outcome.edit.revision, edit=outcome.edit,
                        events=tuple(events))
    summary = next((str(e.get("summary") or "") for e in events if e["type"] == "summary.final"), "")
    mode = next((e.get("state") for e in events if e["type"] == "state"), prepared.routed.mode)
    if mode == "REASONING":  # as the stream ran it (a model may have routed it: `state`, not the rules' first reading)
        answer = "".join(str(e.get("content") or "") for e in events if e["type"] == "content")
        reasoning = tuple(str(e.get("content") or "") for e in events if e["type"] == "reasoning")
        return Directed("answer", answer=answer.strip(), reasoning=reasoning, events=tuple(events))
    steps = tuple(dict.fromkeys(str(e.get("label") or e.get("name")) for e in events if e["type"] == "toolStart"))
    return Directed("revision", summary=summary, revision=complete.get("revision"), steps=steps,
                    events=tuple(events))

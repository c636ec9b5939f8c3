"""A request in words on one session, for a client that is not a stream (the CLI's
`bandstand edit` and `bandstand ask`): the same engine the studio stream runs.

A producer idiom ("make the bass busier", "change the key to F# minor", "try
something different") becomes a variation through `producer.iteration`, as it
always did — nothing changes until it is accepted. What the idioms do not
know is read by the studio's router (`producer.intent`) and run through the
studio stream in process (`producer.stream`), exactly as `POST
/api/v1/stream` runs it: a mixer request ("less reverb on the lead", "mute the
drums", "pan the keys left") is EDITING — its tool calls applied as one
revision, undoable —, a question ("what key is this in?") is REASONING — an
answer from the song's own figures. A request that asks for a new song is
refused with the command that makes one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bandstand.errors import InvalidInput

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
    edit: Any = None
    events: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "variation":
            return {"kind": "variation", **self.edit.to_json()}
        if self.kind == "answer":
            return {"kind": "answer", "answer": self.answer, "reasoning": list(self.reasoning)}
        return {"kind": "revision", "revision": self.revision, "summary": self.summary, "steps": list(self.steps)}


def direct(session_dir: str | Path, request: str, *, backend: Any | None = None) -> Directed:
    """Do what `request` asks of the session (see the module docstring). Not understood, or
    a request for a new song → `InvalidInput` with one line, and nothing changed."""
    from bandstand.producer.iteration import edit

    try:
        return Directed("variation", edit=edit(session_dir, request, backend=backend))
    except InvalidInput as exc:
        if not str(exc).startswith("not understood"):
            raise
        understood_not = exc
    return _through_the_stream(Path(session_dir), request, backend, understood_not)


def ask(session_dir: str | Path, question: str, *, backend: Any | None = None) -> Directed:
    """An answer to a question about the session, from its figures (or the model's, streamed
    and collected, when `backend` is given). A request that is not a question is refused."""
    from bandstand.producer.ask import is_question

    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("ask a question about the song, e.g. 'what key is this in?'")
    if not is_question(question):
        raise InvalidInput(f"'{question.strip()[:60]}' is not a question; to change the song use "
                           f"bandstand edit SESSION_DIR \"{question.strip()[:60]}\"")
    directed = _through_the_stream(Path(session_dir), question, backend, None)
    if directed.kind != "answer":  # pragma: no cover - the router sends questions to REASONING
        raise InvalidInput(f"'{question.strip()[:60]}' could not be answered")
    return directed


def _through_the_stream(session_dir: Path, request: str, backend: Any | None,
                        not_understood: InvalidInput | None) -> Directed:
    from bandstand.producer.intent import GENERATION
    from bandstand.producer.projects import open_project
    from bandstand.producer.studio import Studio

    root = session_dir.expanduser().resolve()
    open_project(root)  # a folder that is not a session is refused here, in the CLI's words
    studio = Studio(root.parent, backend=backend)
    prepared = studio.prepare(request, project_id=root.name)
    routed = prepared.routed
    if routed.mode == "COMPOSING" and (routed.new_project or GENERATION.search(request)):
        raise InvalidInput(f"'{request.strip()[:60]}' asks for a new song: bandstand compose \"{request.strip()[:60]}\"")
    if routed.mode == "COMPOSING" and not_understood is not None:
        raise not_understood
    events: list[dict[str, Any]] = []
    complete = asyncio.run(studio.stream(prepared, events.append))
    errors = [e for e in events if e["type"] == "error"]
    if errors or not complete.get("success", False):
        message = errors[0].get("message") if errors else None
        raise InvalidInput(str(message or f"'{request.strip()[:60]}' could not be done"))
    summary = next((str(e.get("summary") or "") for e in events if e["type"] == "summary.final"), "")
    if routed.mode == "REASONING":
        answer = "".join(str(e.get("content") or "") for e in events if e["type"] == "content")
        reasoning = tuple(str(e.get("content") or "") for e in events if e["type"] == "reasoning")
        return Directed("answer", answer=answer.strip(), reasoning=reasoning, events=tuple(events))
    steps = tuple(dict.fromkeys(str(e.get("label") or e.get("name")) for e in events if e["type"] == "toolStart"))
    return Directed("revision", summary=summary, revision=complete.get("revision"), steps=steps,
                    events=tuple(events))

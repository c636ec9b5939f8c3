"""Reading a request with a language model, corrected by the rule tables.

The model is offered one tool, `propose_edits`, whose parameters are the
typed edits the rules produce (`craft.edits.Edit`), and calls it; a backend or
model that answers in text instead is read as JSON (`{"edits": [...]}`, JSON
mode). Then the tables correct
it: what the rules read from the same words wins for every kind of edit they
found (the model cannot turn "F# minor" into "F major"); the model's other
edits are kept when they validate (unknown roles, knobs or values out of
range are dropped, not guessed at). A reply that is not usable leaves the
rules' reading, and the rules' reading alone when the model is unreachable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bandstand.craft.edits import EDIT_ADAPTER, Edit, Request
from bandstand.craft.requests import Vocabulary, parse_request
from bandstand.errors import AgentError

__all__ = ["PERSONA", "read_with_model", "read_with_model_async"]

TOOL = "propose_edits"
PERSONA = (
    "You are a music producer's assistant. A person is directing a song they made and tells you what to change. "
    f"Call the tool {TOOL} once with the changes asked for (or, without tools, answer with JSON only: an object "
    "{\"edits\": [...]}), each edit following the schema "
    "(kind style: a role or '*' with knob deltas -1..1 among density, register, syncopation, swing, complexity, "
    "articulation, brightness, and optionally time_feel 0.5/1/2 and sections; energy: delta in tenths; key, mode, "
    "transpose, tempo, metre, genre, instrument, add_part, remove_part, presence, solo, regenerate, alternative, "
    "freeze, mix, praise). Roles: drums, bass, sub_bass, chords, lead, pad, arp, percussion, counter_melody. "
    "List only what the person asks for; an empty list when nothing is asked."
)


class Reading(BaseModel):
    """A model's reading as it is parsed: edits as raw objects, validated one by one (one
    bad edit does not lose the good ones)."""

    model_config = ConfigDict(extra="ignore")

    edits: list[dict[str, Any]] = []


class Edits(BaseModel):
    """The schema the model is asked to follow: the typed edits themselves."""

    edits: list[Edit] = []


def _ignore(kind: str, data: dict[str, Any]) -> None:
    del kind, data


async def _ask(backend: Any, text: str) -> Any:
    from bandstand.agents import ToolSpec, TurnRequest, json_schema

    tool = ToolSpec(TOOL, "Propose these edits to the song (the changes the person asked for).", json_schema(Edits))
    conversation = await backend.open(PERSONA, {})
    try:
        return await conversation.turn(
            TurnRequest(text=f"Request: {text}", name="edit", seed=0, data={"request": text}, tools=(tool,),
                        tool_choice=TOOL), _ignore)
    finally:
        await conversation.close()


def _valid(raw: list[dict[str, Any]]) -> list[Edit]:
    out: list[Edit] = []
    for item in raw[:16]:
        try:
            out.append(EDIT_ADAPTER.validate_python(item))
        except ValidationError:
            continue
    return out


def _merge(rules: Request, reply: Any) -> Request:
    """The rules' reading completed by the model's `reply` (see the module docstring)."""
    from bandstand.agents import parse_reply

    call = next((c for c in reply.tool_calls if c.name == TOOL and c.error is None), None)
    if call is not None:
        source: Any = dict(call.arguments)
    else:
        source = reply.structured if isinstance(reply.structured, dict) else reply.text
    parsed = parse_reply(source, Reading)
    if parsed.value is None:
        return rules
    kinds = {e.kind for e in rules.edits}
    extra = [e for e in _valid(parsed.value.edits) if e.kind not in kinds]
    return Request(text=rules.text, edits=(*rules.edits, *extra))


def read_with_model(text: str, backend: Any, vocabulary: Vocabulary) -> Request:
    """The rules' reading, completed by the model's (see the module docstring)."""
    rules = parse_request(text, vocabulary)
    try:
        reply = asyncio.run(_ask(backend, text))
    except (AgentError, OSError, TimeoutError):
        return rules
    return _merge(rules, reply)


async def read_with_model_async(text: str, backend: Any, vocabulary: Vocabulary,
                                on_usage: Callable[[Any], None] | None = None) -> Request:
    """`read_with_model` on the caller's event loop (the studio stream's); `on_usage` gets the
    turn's `agents.Usage`."""
    rules = parse_request(text, vocabulary)
    try:
        reply = await _ask(backend, text)
    except (AgentError, OSError, TimeoutError):
        return rules
    if on_usage is not None:
        on_usage(reply.usage)
    return _merge(rules, reply)

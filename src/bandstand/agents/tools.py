"""Tool calling, the part every backend shares: checking what the caller offers
(tool names and schemas, the tool choice), reading what the model called (a
name and a JSON text that may be malformed), and checking that a turn's
results answer exactly the calls of the reply before it.

The wire formats differ per backend and live in each backend; the rules here
do not. A call to a tool that was not offered, or with arguments that are not
a JSON object, is returned with `ToolCall.error` set (and a did-you-mean for
a near miss), so the caller answers it with an error result and the model
can try again.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bandstand.agents.base import Message, ToolCall, ToolResult, ToolSpec
from bandstand.errors import InvalidInput

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CHOICES = ("auto", "none", "required")
MAX_ARGUMENT_CHARS = 1_000_000
"""Longest arguments text read as JSON (a budget on what a model may send)."""


def check_tools(tools: Sequence[ToolSpec], choice: str) -> None:
    """`InvalidInput` unless every tool has a valid unique name and an object schema, and
    `choice` is auto, none, required or one of the tools' names."""
    names = [t.name for t in tools]
    for tool in tools:
        if not NAME.match(tool.name):
            raise InvalidInput(f"tool name {tool.name!r} must be 1-64 letters, digits, '_' or '-'")
        if tool.parameters.get("type") != "object":
            raise InvalidInput(f"tool {tool.name}: parameters must be a JSON schema of type 'object'")
    if len(set(names)) != len(names):
        raise InvalidInput(f"tool names must be unique: {', '.join(names)}")
    if choice not in CHOICES and choice not in names:
        raise InvalidInput(f"tool_choice {choice!r} is none of {', '.join(CHOICES)} and no offered tool")
    if choice == "required" and not tools:
        raise InvalidInput("tool_choice 'required' needs at least one tool")


def read_call(call_id: str, name: str, arguments: Any, tools: Iterable[ToolSpec]) -> ToolCall:
    """A model's call as a `ToolCall`: arguments parsed (text or object), problems in `error`."""
    offered = [t.name for t in tools]
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    error: str | None = None
    parsed: Any = arguments
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_CHARS:
            parsed, error = {}, f"the arguments are longer than {MAX_ARGUMENT_CHARS} characters"
        else:
            try:
                parsed = json.loads(arguments or "{}")
            except json.JSONDecodeError as exc:
                parsed, error = {}, f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})"
    if error is None and not isinstance(parsed, dict):
        parsed, error = {}, f"the arguments must be a JSON object, not {type(parsed).__name__}"
    if name not in offered:
        near = difflib.get_close_matches(name, offered, n=1)
        hint = f"; did you mean {near[0]}?" if near else (f"; the tools are {', '.join(offered)}" if offered else "")
        error = f"there is no tool {name!r}{hint}"
    return ToolCall(call_id, name, parsed, raw, error)


def pending_calls(history: Sequence[Message]) -> tuple[ToolCall, ...]:
    """The calls of the last assistant message that still wait for their results."""
    for message in reversed(history):
        if message.role == "assistant":
            return message.tool_calls
        if message.tool_results:
            return ()
    return ()


def check_results(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> None:
    """`InvalidInput` unless `results` answer every call in `calls` exactly once, and nothing else."""
    wanted = [c.id for c in calls]
    given = [r.call_id for r in results]
    if sorted(wanted) == sorted(given):
        return
    missing = [i for i in wanted if i not in given]
    unknown = [i for i in given if i not in wanted]
    twice = sorted({i for i in given if given.count(i) > 1})
    problems = [f"no result for {', '.join(missing)}"] if missing else []
    problems += [f"no call {', '.join(unknown)} to answer"] if unknown else []
    problems += [f"more than one result for {', '.join(twice)}"] if twice else []
    raise InvalidInput("tool results must answer the last reply's calls: " + "; ".join(problems))


def error_result(call: ToolCall) -> ToolResult:
    """The result that tells the model why its call was not run."""
    return ToolResult(call.id, f"error: {call.error}", is_error=True)


def result_text(result: ToolResult) -> str:
    """A result's content for APIs that have no error flag (OpenAI's tool messages)."""
    return result.content if not result.is_error or result.content.startswith("error") else f"error: {result.content}"


def specs(tools: Iterable[Mapping[str, Any]]) -> tuple[ToolSpec, ...]:
    """`ToolSpec`s from JSON objects with name, description and parameters (as tools.json lists them)."""
    return tuple(ToolSpec(t["name"], t.get("description", ""), t.get("parameters") or {"type": "object"}) for t in tools)

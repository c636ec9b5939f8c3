"""Running a batch of tool calls: all of them or none.

Before a call changes anything it is checked, in this order: the tool exists
and the mode may call it; no placeholder stands in for a value (`_noteCount`,
`_summary`, an empty or summarised `notes`) — refused with the real format;
`$N.field` references to earlier results of the batch are resolved (a
reference that does not resolve is an error, never the literal string); the
parameters validate against the tool's model (ranges, unknown keys with
suggestions); a region with three failed calls behind it is not tried again.
Then the handler runs on the project as the earlier calls left it. The first
failure stops the batch and nothing of it is kept.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import to_json

from bandstand.errors import InvalidInput, ToolCallError
from bandstand.studio.model import Project
from bandstand.studio.tools.catalog import CREATING, TOOLS
from bandstand.studio.tools.registry import Tool, ToolContext, ToolRegistry
from bandstand.studio.tools.resolve import find_region

__all__ = ["STRIKES", "BatchOutcome", "Strikes", "ToolCall", "ToolResult", "explain_validation", "model_signature",
           "run_batch", "signature"]

STRIKES = 3
_REF = re.compile(r"^\$(\d+)\.([A-Za-z_]\w*(?:\.\w+)*)$")
_ID_KEYS = ("id", "project_id", "track_id", "region_id", "bus_id", "effect_id", "note_id")


class ToolCall(BaseModel):
    """One call: a tool's name and its arguments (JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseModel):
    """What a call returned: the new ids it made, and every track, region and bus after it."""

    model_config = ConfigDict(frozen=True)

    index: int
    tool: str
    result: dict[str, Any]
    entities: dict[str, list[dict[str, str]]]
    ignored: list[str] = []


@dataclass(slots=True)
class BatchOutcome:
    project: Project
    results: list[ToolResult]
    calls: list[ToolCall]  # as run: references resolved, ignored ids dropped

    @property
    def changed(self) -> bool:
        return any(not TOOLS.get(c.name).read_only for c in self.calls)


@dataclass(slots=True)
class Strikes:
    """Failed calls per region, kept by the caller across the batches of one request: after
    `limit` failures on a region, calls on it are refused without being tried."""

    limit: int = STRIKES
    failures: dict[str, int] = field(default_factory=dict)


def signature(tool: Tool) -> str:
    """The call's real format, e.g. `add_notes(region, notes=[{pitch, start, duration, velocity}, …])`."""
    return model_signature(tool.name, tool.params)


def model_signature(name: str, params: type[BaseModel]) -> str:
    """`name(a, b?, c=[{…}, …])` for any parameter model (a studio tool's, an MCP tool's)."""
    parts = []
    for field_name, info in params.model_fields.items():
        ann = info.annotation
        inner = getattr(ann, "__args__", (None,))[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel) and getattr(ann, "__origin__", None) is list:
            parts.append(f"{field_name}=[{{{', '.join(inner.model_fields)}}}, …]")
        else:
            parts.append(field_name if info.is_required() else f"{field_name}?")
    return f"{name}({', '.join(parts)})"


def _fail(message: str, tool: str, index: int, field: str | None = None) -> ToolCallError:
    return ToolCallError(f"call {index} ({tool}): {message}", tool=tool, index=index, field=field)


def _placeholders(tool: Tool, args: Any, index: int, path: str = "") -> None:
    if isinstance(args, dict):
        for key, value in args.items():
            if isinstance(key, str) and key.startswith("_"):
                raise _fail(f"'{path}{key}' is a placeholder, not a parameter; give the values themselves: "
                            f"{signature(tool)}", tool.name, index, key)
            _placeholders(tool, value, index, f"{path}{key}.")
    elif isinstance(args, list):
        for i, value in enumerate(args):
            _placeholders(tool, value, index, f"{path}{i}.")


def _notes_present(tool: Tool, args: dict[str, Any], index: int) -> None:
    if "notes" in tool.params.model_fields and not (isinstance(args.get("notes"), list) and args["notes"]):
        got = "no notes" if not args.get("notes") else f"notes={args['notes']!r} instead of a list"
        raise _fail(f"{got}; notes=[{{pitch 0-127, start (beats from the region's start), duration (beats), "
                    f"velocity 1-127}}, …] with 1-512 notes per call: {signature(tool)}", tool.name, index, "notes")


def _resolve_refs(value: Any, results: Sequence[ToolResult], tool: str, index: int) -> Any:
    if isinstance(value, dict):
        return {k: _resolve_refs(v, results, tool, index) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_refs(v, results, tool, index) for v in value]
    if not isinstance(value, str) or not value.startswith("$"):
        return value
    match = _REF.match(value)
    if match is None:
        if re.match(r"^\$\d", value):
            raise _fail(f"'{value}' is not a reference; write $N.field (e.g. $0.track_id)", tool, index)
        return value
    n, path = int(match.group(1)), match.group(2)
    if n >= index:
        earlier = f"calls 0..{index - 1}" if index else "no calls"
        raise _fail(f"'{value}' refers to call {n}, but only {earlier} come before this one", tool, index)
    current: Any = results[n].result
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            have = ", ".join(results[n].result) or "nothing"
            raise _fail(f"'{value}': call {n} ({results[n].tool}) returned no '{path}' (it returned {have})",
                        tool, index)
    return current


def _drop_client_ids(tool: Tool, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    if tool.name not in CREATING:
        return args, []
    fields = tool.params.model_fields
    ignored = [k for k in args if k in _ID_KEYS and k not in fields]
    out = {k: v for k, v in args.items() if k not in ignored}
    if isinstance(out.get("notes"), list):
        notes = []
        for note in out["notes"]:
            if isinstance(note, dict) and any(k in note for k in _ID_KEYS):
                ignored.append("notes[].id")
                note = {k: v for k, v in note.items() if k not in _ID_KEYS}
            notes.append(note)
        out["notes"] = notes
    return out, sorted(set(ignored))


def _validation_message(tool: Tool, exc: ValidationError) -> tuple[str, str]:
    return explain_validation(tool.params, exc, signature(tool))


def explain_validation(params: type[BaseModel], exc: ValidationError, signature: str) -> tuple[str, str]:
    """A parameter model's validation error in one line (the first error; a misspelt parameter
    first, since it explains a missing one) and the parameter at fault: `signature` is the
    call's real format, shown where it helps."""
    errors = exc.errors()
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])  # a misspelling explains a miss
    loc = ".".join(str(p) for p in err["loc"]) or "arguments"
    kind, given = err["type"], err.get("input")
    if kind == "missing":
        return f"{loc} is missing; {signature}", loc
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(str(err["loc"][-1]), list(params.model_fields), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; {signature}"
        return f"unknown parameter '{loc}'{hint}", loc
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected", "")))
        close = difflib.get_close_matches(str(given), options, n=1) if isinstance(given, str) else []
        hint = f"did you mean '{close[0]}'?" if close else f"use one of: {', '.join(options) or err['msg']}"
        return f"{loc} {given!r} is not allowed; {hint}", loc
    if kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
        return f"{loc} {given!r} is out of range: {err['msg'][0].lower()}{err['msg'][1:]}", loc
    message = err["msg"].removeprefix("Value error, ")
    return (f"{loc}: {message}" if loc != "arguments" else message), loc


def _region_key(project: Project, args: dict[str, Any]) -> str | None:
    raw = args.get("region")
    if not isinstance(raw, str):
        return None
    try:
        return find_region(project, raw)[1].id
    except InvalidInput:
        return raw.strip().casefold()


def _call(raw: Any, index: int) -> ToolCall:
    """One call as sent, or a `ToolCallError` naming the field that does not fit (`name`, `args`)."""
    try:
        return ToolCall.model_validate(raw, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the call"
        raise ToolCallError(f"call {index}: {where}: {first.get('msg', 'is not valid')} "
                            '(a call is {"name": "TOOL", "args": {…}})', index=index, field=where) from None


def run_batch(project: Project, calls: Sequence[ToolCall | dict[str, Any]], *, ctx: ToolContext,
              mode: str = "direct", strikes: Strikes | None = None,
              registry: ToolRegistry = TOOLS, strict: bool = False) -> BatchOutcome:
    """Run the calls in order on `project`; all succeed or a `ToolCallError` says which failed and
    why (and the project is as it was). `strict`: arguments are taken only as the JSON types their
    schema names ("yes" is not a boolean, "5" not a number), as a protocol client must send them."""
    results: list[ToolResult] = []
    ran: list[ToolCall] = []
    for index, raw in enumerate(calls):
        call = raw if isinstance(raw, ToolCall) else _call(raw, index)
        try:
            tool = registry.get(call.name)
        except InvalidInput as exc:
            raise _fail(str(exc), call.name, index, "name") from None
        if not registry.allowed(mode, tool.name):
            allowed = ", ".join(registry.names(mode)) or "none"
            raise _fail(f"{tool.name} is not allowed in {mode} mode (allowed: {allowed})", tool.name, index)
        _placeholders(tool, call.args, index)
        args = _resolve_refs(call.args, results, tool.name, index)
        args, ignored = _drop_client_ids(tool, args)
        _notes_present(tool, args, index)
        key = _region_key(project, args)
        if strikes is not None and key is not None and strikes.failures.get(key, 0) >= strikes.limit:
            raise _fail(f"stopped retrying region '{args['region']}': {strikes.limit} calls on it failed already; "
                        "read_project to see it as it is now", tool.name, index, "region")
        try:
            try:
                params = (tool.params.model_validate_json(to_json(args), strict=True) if strict
                          else tool.params.model_validate(args))
            except ValidationError as exc:
                message, loc = _validation_message(tool, exc)
                raise _fail(message, tool.name, index, loc) from None
            try:
                project, result = tool.handler(ctx, project, params)
            except InvalidInput as exc:
                raise _fail(str(exc), tool.name, index, exc.context.get("field")) from None
            except ValidationError as exc:
                message, loc = _validation_message(tool, exc)
                raise _fail(message, tool.name, index, loc) from None
        except ToolCallError:
            if strikes is not None and key is not None:
                strikes.failures[key] = strikes.failures.get(key, 0) + 1
            raise
        results.append(ToolResult(index=index, tool=tool.name, result=result, entities=project.entities(),
                                  ignored=ignored))
        ran.append(ToolCall(name=tool.name, args=args))
    return BatchOutcome(project=project, results=results, calls=ran)

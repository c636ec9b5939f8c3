"""Reply validation: tolerant JSON extraction and pydantic checking.

Models wrap JSON in code fences, prose, or both. `extract_json` finds the one
JSON object in a reply; `parse_reply(text, Model)` extracts and validates it
and never raises — it returns a `Parsed` with either the value or a short
error. The session uses the error to ask for one repair turn
(`repair_prompt`), and falls back to a caller-given value, flagged, if the
repaired reply is still invalid (see `bandstand.runtime.Session.ask`).
`schema_instruction` is what an LLM is told when a turn must follow a schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


class ReplyFormatError(ValueError):
    """No JSON object could be found in a reply."""


def _first_object(text: str) -> dict[str, Any] | None:
    """The first complete JSON object in `text`, scanning from each ``{``."""
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def extract_json(text: str) -> dict[str, Any]:
    """The JSON object in `text`: bare, inside a code fence, or inside prose."""
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        value = None
    if isinstance(value, dict):
        return value
    for match in _FENCE.finditer(text):
        found = _first_object(match.group(2))
        if found is not None:
            return found
    found = _first_object(text)
    if found is not None:
        return found
    raise ReplyFormatError("the reply contains no JSON object")


@dataclass(frozen=True, slots=True)
class Parsed(Generic[T]):
    """The outcome of `parse_reply`: ``value`` when valid, else ``error``."""

    value: T | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse_reply(text: str | dict[str, Any] | None, model: type[T]) -> Parsed[T]:
    """Extract and validate a reply against `model`. Never raises."""
    if isinstance(text, dict):
        data: dict[str, Any] = text
    else:
        try:
            data = extract_json(text or "")
        except ReplyFormatError as exc:
            return Parsed(None, str(exc))
    try:
        return Parsed(model.model_validate(data))
    except ValidationError as exc:
        return Parsed(None, _describe(exc))


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema a backend is asked to follow for `model`."""
    return model.model_json_schema()


def repair_prompt(error: str, model: type[BaseModel]) -> str:
    """The text of the one repair turn: quotes the error and the expected schema."""
    schema = json.dumps(json_schema(model), separators=(",", ":"))
    return (
        f"Your last reply was not valid: {error}. "
        f"Reply again with only one JSON object that matches this schema, no prose: {schema}"
    )


def schema_instruction(schema: Mapping[str, Any]) -> str:
    """What an LLM is told when a turn's reply must follow a JSON schema."""
    return (
        "\n\nReply with only one JSON object (no prose, no code fence) matching this JSON schema: "
        + json.dumps(schema, separators=(",", ":"))
    )

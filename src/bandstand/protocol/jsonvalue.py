"""JSON as a type: `JSONValue` (what `json.loads` gives and `json.dumps` takes) and
`JSONObject` (an object of them), for payloads that are JSON but have no model of their own
— a page's view of a project, a jam's state as sent, a stream event on its way to a sink.
Arrays and objects inside a value are read-only (`Sequence`, `Mapping`), so a `list[str]`
or a `dict[str, int]` is a value as it is; the aliases are for annotations only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["JSONObject", "JSONValue"]

JSONValue: TypeAlias = "str | int | float | bool | Sequence[JSONValue] | Mapping[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"

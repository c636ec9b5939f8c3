"""Stream kinds: each names the events it may carry (by direction), the guard
that orders them, and how clients reach it. Built as data; the registry is
the table of all of them.

- `JAM` — the jam WebSocket (`/ws/jam`): jam messages both ways (snake_case
  keys, as the jam spec names them).
- `COMPOSE` — a compose run's progress events.
- `STUDIO` — `POST /api/v1/stream` (SSE): spec studio §6.
- `VARIATION` — a variation's phrases (meta → phrase* → done).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from bandstand.errors import InvalidInput
from bandstand.protocol.compose import COMPOSE_EVENTS
from bandstand.protocol.guards import ComposeGuard, Guard, JamGuard, StudioGuard, VariationGuard
from bandstand.protocol.jam import CLIENT_MESSAGES, SERVER_MESSAGES
from bandstand.protocol.studio import STUDIO_EVENTS, VARIATION_EVENTS


def type_name(model: type[BaseModel]) -> str:
    """The literal `type` tag of an event model."""
    found = model.model_fields.get("type")
    if found is None or not isinstance(found.default, str):
        raise TypeError(f"{model.__name__} has no literal 'type' field")
    return found.default


def _table(models: tuple[type[BaseModel], ...], kind: str) -> dict[str, type[BaseModel]]:
    table: dict[str, type[BaseModel]] = {}
    for model in models:
        name = type_name(model)
        if name in table:
            raise ValueError(f"{kind}: event type {name!r} registered twice")
        table[name] = model
    return table


def first_error(exc: ValidationError) -> str:
    """A pydantic error as one line: where, then what."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "message"
    return f"{where}: {first['msg']}"


@dataclass(frozen=True, slots=True)
class StreamKind:
    """One kind of stream: its events, its guard, its transport."""

    name: str
    description: str
    transport: str
    outgoing_models: tuple[type[BaseModel], ...]
    make_guard: Callable[[], Guard]
    incoming_models: tuple[type[BaseModel], ...] = ()
    outgoing: dict[str, type[BaseModel]] = field(init=False, repr=False, compare=False)
    incoming: dict[str, type[BaseModel]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "outgoing", _table(self.outgoing_models, self.name))
        object.__setattr__(self, "incoming", _table(self.incoming_models, self.name))

    def is_outgoing(self, event: BaseModel) -> bool:
        """True when `event` is an instance of one of this stream's outgoing models."""
        model = self.outgoing.get(str(getattr(event, "type", "")))
        return model is not None and type(event) is model

    def build(self, data: Mapping[str, Any]) -> BaseModel:
        """An outgoing event from a dict (snake_case or camelCase keys); `InvalidInput` if it does not validate."""
        name = data.get("type")
        model = self.outgoing.get(name) if isinstance(name, str) else None
        if model is None:
            raise InvalidInput(f"{self.name} streams carry no {name!r} events")
        try:
            return model.model_validate(dict(data))
        except ValidationError as exc:
            raise InvalidInput(f"bad {name} event: {first_error(exc)}") from exc

    def parse_incoming(self, data: Any) -> BaseModel:
        """Validate a client message (a dict) into its model; one clear error otherwise."""
        if not isinstance(data, dict):
            raise InvalidInput(f"a {self.name} message must be a JSON object with a 'type' field")
        name = data.get("type")
        model = self.incoming.get(name) if isinstance(name, str) else None
        if model is None:
            known = ", ".join(sorted(self.incoming))
            raise InvalidInput(f"unknown {self.name} message type {name!r}; expected one of: {known}")
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise InvalidInput(f"bad {name} message: {first_error(exc)}") from exc


JAM = StreamKind(
    "jam", "The live jam: state, thoughts, statuses, context, the playing pattern, sound events; the boss's controls.",
    "WebSocket /ws/jam", SERVER_MESSAGES, JamGuard, CLIENT_MESSAGES,
)
COMPOSE = StreamKind(
    "compose", "A compose run's progress: graph nodes (parts:bass, …) started, retried, completed, skipped or failed; the end.",
    "events of a compose run", COMPOSE_EVENTS, ComposeGuard,
)
STUDIO = StreamKind(
    "studio", "A request in words: state, plan, tool calls, generators, the variation, summary, complete.",
    "SSE POST /api/v1/stream", STUDIO_EVENTS, StudioGuard,
)
VARIATION = StreamKind(
    "variation", "A variation's phrases, as a client that reconnects reads them: meta, phrase*, done.",
    "a variation's stream", VARIATION_EVENTS, VariationGuard,
)
STREAM_KINDS: tuple[StreamKind, ...] = (JAM, COMPOSE, STUDIO, VARIATION)

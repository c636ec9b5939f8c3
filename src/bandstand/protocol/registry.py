"""The event registry: the one table of message types that may cross the wire.

A registry is built explicitly (no import-time global) from model classes whose
`type` field is a string literal; it parses incoming dicts into models, refuses
unknown types, and serves JSON schemas for clients and docs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from bandstand.errors import InvalidInput
from bandstand.protocol.models import CLIENT_MESSAGES, SERVER_MESSAGES


def type_name(model: type[BaseModel]) -> str:
    """The literal `type` tag of a message model."""
    field = model.model_fields.get("type")
    if field is None or not isinstance(field.default, str):
        raise TypeError(f"{model.__name__} has no literal 'type' field")
    return field.default


class Registry:
    """Message types by tag, split by direction (server→client, client→server)."""

    def __init__(self, outgoing: Iterable[type[BaseModel]], incoming: Iterable[type[BaseModel]]) -> None:
        self.outgoing: dict[str, type[BaseModel]] = {}
        self.incoming: dict[str, type[BaseModel]] = {}
        for table, models in ((self.outgoing, outgoing), (self.incoming, incoming)):
            for model in models:
                name = type_name(model)
                if name in table:
                    raise ValueError(f"message type {name!r} registered twice")
                table[name] = model

    def is_outgoing(self, message: BaseModel) -> bool:
        """True when `message` is an instance of a registered outgoing model."""
        model = self.outgoing.get(getattr(message, "type", ""))
        return model is not None and type(message) is model

    def parse_incoming(self, data: Any) -> BaseModel:
        """Validate a client message (a dict) into its model; one clear error otherwise."""
        if not isinstance(data, dict):
            raise InvalidInput("a jam message must be a JSON object with a 'type' field")
        name = data.get("type")
        model = self.incoming.get(name) if isinstance(name, str) else None
        if model is None:
            known = ", ".join(sorted(self.incoming))
            raise InvalidInput(f"unknown jam message type {name!r}; expected one of: {known}")
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            raise InvalidInput(f"bad {name} message: {where}: {first['msg']}") from exc

    def schemas(self) -> dict[str, Any]:
        """JSON schemas of every registered message, by direction and type."""
        return {
            "server_to_client": {n: m.model_json_schema() for n, m in sorted(self.outgoing.items())},
            "client_to_server": {n: m.model_json_schema() for n, m in sorted(self.incoming.items())},
        }


def jam_registry() -> Registry:
    """A registry of the jam's WebSocket messages."""
    return Registry(SERVER_MESSAGES, CLIENT_MESSAGES)

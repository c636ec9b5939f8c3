"""What clients read about the protocol: the version and one hash of every
schema, the events of each stream kind (`events.json`), one JSON Schema
document with every event (`schema.json`) and the tools (`tools.json`).

Each outgoing event's schema includes the envelope the emitter adds (`seq`,
`protocolVersion`). The tools come from a `ToolCatalog` the caller passes in
(the studio's tool registry); without one there are none. The hash covers the
schemas and the tools, so a client can tell in one request whether what it
learned is still true.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from bandstand.protocol.registry import Registry
from bandstand.protocol.streams import StreamKind
from bandstand.protocol.wire import PROTOCOL_VERSION

ToolCatalog = Callable[[], Sequence[Mapping[str, Any]]]
"""Returns the tools clients may call: one JSON object each (name, description, phase, parameters schema)."""

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ENVELOPE_SCHEMA: dict[str, Any] = {
    "seq": {"type": "integer", "minimum": 1, "description": "1, 2, … per stream"},
    "protocolVersion": {"const": PROTOCOL_VERSION},
}
Mode = Literal["validation", "serialization"]


def _pairs(registry: Registry) -> list[tuple[type[BaseModel], Mode]]:
    seen: dict[tuple[type[BaseModel], Mode], None] = {}
    for kind in registry.kinds.values():
        for model in kind.outgoing_models:
            seen[(model, "serialization")] = None
        for model in kind.incoming_models:
            seen[(model, "validation")] = None
    return list(seen)


def _with_envelope(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        **schema,
        "properties": {"type": schema["properties"]["type"], **ENVELOPE_SCHEMA, **schema["properties"]},
        "required": sorted({"type", *ENVELOPE_SCHEMA, *schema.get("required", ())}),
    }


def schema_document(registry: Registry) -> dict[str, Any]:
    """One JSON Schema (2020-12) with every event under `$defs`, and one union per stream and direction."""
    pairs = _pairs(registry)
    refs, top = models_json_schema(pairs, by_alias=True, ref_template="#/$defs/{model}")
    defs: dict[str, Any] = dict(top.get("$defs", {}))
    outgoing = {model for kind in registry.kinds.values() for model in kind.outgoing_models}
    for (model, mode), ref in refs.items():
        name = ref["$ref"].rsplit("/", 1)[1]
        if mode == "serialization" and model in outgoing:
            defs[name] = _with_envelope(defs[name])
    unions: dict[str, Any] = {}
    for kind in registry.kinds.values():
        for direction, mode, table in (("serverToClient", "serialization", kind.outgoing),
                                       ("clientToServer", "validation", kind.incoming)):
            if table:
                mapping = {name: refs[(model, mode)]["$ref"] for name, model in sorted(table.items())}
                unions[f"{kind.name}.{direction}"] = {
                    "oneOf": [{"$ref": ref} for ref in mapping.values()],
                    "discriminator": {"propertyName": "type", "mapping": mapping},
                }
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"urn:bandstand:protocol:{PROTOCOL_VERSION}",
        "title": "bandstand protocol",
        "description": "Every event bandstand sends or accepts, by stream kind and direction.",
        "$defs": {**dict(sorted(defs.items())), **unions},
    }


def _summary(model: type[BaseModel]) -> str:
    doc = (model.__doc__ or "").strip()
    return doc.split("\n\n")[0].replace("\n", " ") if doc and not doc.startswith("!!!") else ""


def _kind_document(kind: StreamKind, defs: Mapping[str, Any], refs: Mapping[Any, Any]) -> dict[str, Any]:
    def entries(table: Mapping[str, type[BaseModel]], mode: Mode) -> dict[str, Any]:
        out = {}
        for name, model in sorted(table.items()):
            schema = defs[refs[(model, mode)]["$ref"].rsplit("/", 1)[1]]
            out[name] = {"description": _summary(model), "fields": sorted(schema.get("properties", {}))}
        return out

    return {
        "description": kind.description,
        "transport": kind.transport,
        "serverToClient": entries(kind.outgoing, "serialization"),
        "clientToServer": entries(kind.incoming, "validation"),
    }


def events_document(registry: Registry) -> dict[str, Any]:
    """Every stream kind and its event types, each with its one-line description and fields."""
    document = schema_document(registry)
    refs, _ = models_json_schema(_pairs(registry), by_alias=True, ref_template="#/$defs/{model}")
    defs = document["$defs"]
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "envelope": sorted(("type", *ENVELOPE_SCHEMA)),
        "streams": {name: _kind_document(kind, defs, refs) for name, kind in registry.kinds.items()},
    }


def tools_document(catalog: ToolCatalog | None) -> dict[str, Any]:
    """The tools clients may call (none without a catalog)."""
    return {"protocolVersion": PROTOCOL_VERSION, "tools": [dict(t) for t in catalog()] if catalog else []}


def schema_hash(registry: Registry, catalog: ToolCatalog | None = None) -> str:
    """SHA-256 of the canonical JSON of every schema and tool: equal hashes, equal protocol."""
    canonical = json.dumps([schema_document(registry), tools_document(catalog)], sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def describe(registry: Registry, catalog: ToolCatalog | None = None) -> dict[str, Any]:
    """The protocol in one object: version, hash, and the event types of each stream kind."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "schemaHash": schema_hash(registry, catalog),
        "streams": {
            name: {"transport": kind.transport, "serverToClient": sorted(kind.outgoing),
                   "clientToServer": sorted(kind.incoming)}
            for name, kind in registry.kinds.items()
        },
        "tools": len(tools_document(catalog)["tools"]),
    }

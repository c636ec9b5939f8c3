"""The wire protocol: one registry of every stream bandstand speaks (the jam,
a compose run's progress, the studio stream, a variation's phrases), their
event models, one emitter and one guard per stream kind, and the documents
that describe it all to clients.

- `wire` — `PROTOCOL_VERSION`, `WireModel`/`WireEvent` (snake_case in Python, camelCase on the wire).
- `jsonvalue` — `JSONValue`, `JSONObject`: JSON as a type, for payloads without a model of their own.
- `jam`, `compose`, `studio` — the event models of each family.
- `streams` — `StreamKind` and `JAM`, `COMPOSE`, `STUDIO`, `VARIATION`; `registry` — `protocol_registry()`.
- `emitter` — `Emitter(kind)`: validate, guard, number (`seq`), envelope, send; failure tails.
- `guards` — `JamGuard`, `ComposeGuard`, `StudioGuard`, `VariationGuard`.
- `introspect` — `describe`, `events_document`, `schema_document`, `tools_document`, `schema_hash`.

Names are imported on first use (`__getattr__`), so a command that needs one
family (compose's progress events) does not build the models of the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bandstand.protocol import studio
    from bandstand.protocol.compose import COMPOSE_EVENTS, ComposeEvent
    from bandstand.protocol.emitter import Emitter, UnregisteredMessage, envelope
    from bandstand.protocol.guards import (
        ComposeGuard,
        Guard,
        JamGuard,
        ProtocolViolation,
        StreamClosed,
        StudioGuard,
        VariationGuard,
    )
    from bandstand.protocol.introspect import (
        ToolCatalog,
        describe,
        events_document,
        schema_document,
        schema_hash,
        tools_document,
    )
    from bandstand.protocol.jam import (
        AgentStatus,
        AgentThought,
        BossDirective,
        BossEcho,
        ChatHistory,
        CodeOverride,
        ContextView,
        ErrorMessage,
        Events,
        Execute,
        JamKept,
        JamStateUpdate,
        KeepJam,
        Layer,
        MemberView,
        MusicalContextUpdate,
        OverrideCode,
        SetAutopilot,
        SetEnergy,
        SetMute,
        SetSolo,
        SetTempo,
        SetVolume,
        SoundEvent,
        StartJam,
        StopJam,
    )
    from bandstand.protocol.registry import Registry, protocol_registry
    from bandstand.protocol.streams import COMPOSE, JAM, STREAM_KINDS, STUDIO, VARIATION, StreamKind
    from bandstand.protocol.wire import PROTOCOL_VERSION, WireEvent, WireModel

__all__ = [
    "COMPOSE",
    "COMPOSE_EVENTS",
    "JAM",
    "PROTOCOL_VERSION",
    "STREAM_KINDS",
    "STUDIO",
    "VARIATION",
    "AgentStatus",
    "AgentThought",
    "BossDirective",
    "BossEcho",
    "ChatHistory",
    "CodeOverride",
    "ComposeEvent",
    "ComposeGuard",
    "ContextView",
    "Emitter",
    "ErrorMessage",
    "Events",
    "Execute",
    "Guard",
    "JamGuard",
    "JamKept",
    "JamStateUpdate",
    "KeepJam",
    "Layer",
    "MemberView",
    "MusicalContextUpdate",
    "OverrideCode",
    "ProtocolViolation",
    "Registry",
    "SetAutopilot",
    "SetEnergy",
    "SetMute",
    "SetSolo",
    "SetTempo",
    "SetVolume",
    "SoundEvent",
    "StartJam",
    "StopJam",
    "StreamClosed",
    "StreamKind",
    "StudioGuard",
    "ToolCatalog",
    "UnregisteredMessage",
    "VariationGuard",
    "WireEvent",
    "WireModel",
    "describe",
    "envelope",
    "events_document",
    "protocol_registry",
    "schema_document",
    "schema_hash",
    "studio",
    "tools_document",
]

# name → the module that defines it (a module's own name: the submodule itself)
_LAZY: dict[str, str] = {
    **dict.fromkeys(("COMPOSE_EVENTS", "ComposeEvent"), "compose"),
    **dict.fromkeys(("Emitter", "UnregisteredMessage", "envelope"), "emitter"),
    **dict.fromkeys(("ComposeGuard", "Guard", "JamGuard", "ProtocolViolation", "StreamClosed", "StudioGuard",
                     "VariationGuard"), "guards"),
    **dict.fromkeys(("ToolCatalog", "describe", "events_document", "schema_document", "schema_hash",
                     "tools_document"), "introspect"),
    **dict.fromkeys(("AgentStatus", "AgentThought", "BossDirective", "BossEcho", "ChatHistory", "CodeOverride",
                     "ContextView", "ErrorMessage", "Events", "Execute", "JamKept", "JamStateUpdate", "KeepJam",
                     "Layer", "MemberView", "MusicalContextUpdate", "OverrideCode", "SetAutopilot", "SetEnergy",
                     "SetMute", "SetSolo", "SetTempo", "SetVolume", "SoundEvent", "StartJam", "StopJam"), "jam"),
    **dict.fromkeys(("Registry", "protocol_registry"), "registry"),
    **dict.fromkeys(("COMPOSE", "JAM", "STREAM_KINDS", "STUDIO", "VARIATION", "StreamKind"), "streams"),
    **dict.fromkeys(("PROTOCOL_VERSION", "WireEvent", "WireModel"), "wire"),
    "studio": "studio",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'bandstand.protocol' has no attribute {name!r}")
    module = importlib.import_module(f"bandstand.protocol.{where}")
    value = module if where == name else getattr(module, name)
    globals()[name] = value
    return value

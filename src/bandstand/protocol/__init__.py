"""The wire protocol: registered message models, one emitter, one guard.

Every message that leaves the process is a registered pydantic model; the
emitter refuses anything else, and the guard checks ordering invariants.
"""

from bandstand.protocol.compose import COMPOSE_EVENTS, ComposeEvent
from bandstand.protocol.emitter import Emitter, UnregisteredMessage
from bandstand.protocol.guard import Guard, ProtocolViolation
from bandstand.protocol.models import (
    AgentStatus,
    AgentThought,
    BossDirective,
    BossEcho,
    ContextView,
    ErrorMessage,
    Events,
    Execute,
    JamStateUpdate,
    Layer,
    MemberView,
    MusicalContextUpdate,
    SetAutopilot,
    SetMute,
    SetSolo,
    SoundEvent,
    StartJam,
    StopJam,
)
from bandstand.protocol.registry import Registry, jam_registry
from bandstand.protocol.wire import PROTOCOL_VERSION, WireEvent

__all__ = [
    "COMPOSE_EVENTS",
    "PROTOCOL_VERSION",
    "AgentStatus",
    "AgentThought",
    "BossDirective",
    "BossEcho",
    "ComposeEvent",
    "ContextView",
    "Emitter",
    "ErrorMessage",
    "Events",
    "Execute",
    "Guard",
    "JamStateUpdate",
    "Layer",
    "MemberView",
    "MusicalContextUpdate",
    "ProtocolViolation",
    "Registry",
    "SetAutopilot",
    "SetMute",
    "SetSolo",
    "SoundEvent",
    "StartJam",
    "StopJam",
    "UnregisteredMessage",
    "WireEvent",
    "jam_registry",
]

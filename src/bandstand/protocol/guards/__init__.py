"""One guard per stream kind: the ordering rules of the jam, the compose
progress, the studio stream and a variation's stream."""

from bandstand.protocol.guards.base import Guard, ProtocolViolation, StreamClosed
from bandstand.protocol.guards.compose import ComposeGuard
from bandstand.protocol.guards.jam import JamGuard
from bandstand.protocol.guards.studio import StudioGuard
from bandstand.protocol.guards.variation import VariationGuard

__all__ = [
    "ComposeGuard",
    "Guard",
    "JamGuard",
    "ProtocolViolation",
    "StreamClosed",
    "StudioGuard",
    "VariationGuard",
]

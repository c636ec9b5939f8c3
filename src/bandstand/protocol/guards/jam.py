"""The jam stream's guard.

A jam stream opens with a `jam_state_update`; rounds never go backwards;
scheduled cycles strictly increase; while the jam is stopped no statuses,
patterns or events are sent. The jam has no end event: a violation raises.
"""

from __future__ import annotations

from pydantic import BaseModel

from bandstand.protocol.guards.base import ProtocolViolation


class JamGuard:
    """Checks each outgoing jam message against what was sent before it."""

    def __init__(self) -> None:
        self.opened = False
        self.running = False
        self.round = 0
        self.last_cycle: int | None = None

    def check(self, message: BaseModel) -> None:
        """Raise `ProtocolViolation` if `message` may not follow the messages before it."""
        kind = getattr(message, "type", "")
        if kind == "error":
            return
        if not self.opened and kind != "jam_state_update":
            raise ProtocolViolation(f"{kind} sent before the first jam_state_update")
        if kind == "jam_state_update":
            self._state(message)
            return
        if not self.running and kind in {"events", "execute", "agent_status"}:
            raise ProtocolViolation(f"{kind} sent while the jam is stopped")
        message_round = getattr(message, "round", None)
        if isinstance(message_round, int):
            if message_round < self.round:
                raise ProtocolViolation(f"{kind} for round {message_round} after round {self.round}")
            self.round = message_round
        if kind == "events":
            cycle = getattr(message, "cycle", 0)
            if self.last_cycle is not None and cycle <= self.last_cycle:
                raise ProtocolViolation(f"events for cycle {cycle} after cycle {self.last_cycle}")
            self.last_cycle = cycle

    def unfinished(self) -> str | None:
        return None  # a jam stream may stop at any message

    def tail(self, message: str) -> list[BaseModel]:
        return []

    def _state(self, message: BaseModel) -> None:
        running = bool(getattr(message, "running", False))
        message_round = int(getattr(message, "round", 0))
        if running and not self.running:
            # a new jam starts: rounds and cycles count afresh
            self.round = message_round
            self.last_cycle = None
        elif message_round < self.round:
            raise ProtocolViolation(f"jam_state_update for round {message_round} after round {self.round}")
        else:
            self.round = message_round
        self.opened = True
        self.running = running

"""The jam stream: registered models only, one emitter, the jam guard's ordering rules."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from bandstand.errors import InvalidInput
from bandstand.protocol import (
    AgentStatus,
    AgentThought,
    ContextView,
    Emitter,
    ErrorMessage,
    Events,
    JamStateUpdate,
    ProtocolViolation,
    UnregisteredMessage,
    events_document,
    protocol_registry,
)
from bandstand.protocol.jam import CLIENT_MESSAGES, SERVER_MESSAGES, BossDirective
from bandstand.protocol.streams import JAM

CTX = ContextView(key="C minor", scale=["c", "d", "eb", "f", "g", "ab", "bb"], chords=["Cm"], bpm=120, time_signature="4/4", energy=5)


def state(running: bool, round_: int = 0) -> JamStateUpdate:
    return JamStateUpdate(
        running=running, round=round_, members=[], context=CTX, combined_pattern="silence", layers=[],
        autopilot=False, autopilot_interval=16,
    )


def thought(round_: int) -> AgentThought:
    return AgentThought(member="BEAT", emoji="🥁", thought="t", reaction="r", pattern="s(\"bd\")",
                        complied_with_boss=True, round=round_, timestamp=0.0)


def test_every_spec_message_type_is_registered() -> None:
    registry = protocol_registry().kind("jam")
    assert {"jam_state_update", "agent_thought", "agent_status", "musical_context_update", "execute", "events"} <= set(registry.outgoing)
    assert {"start_jam", "stop_jam", "boss_directive", "set_mute", "set_solo", "set_autopilot",
            "set_volume", "set_tempo", "set_energy", "override_code"} <= set(registry.incoming)
    assert {"code_override", "chat_history"} <= set(registry.outgoing)
    assert len(registry.outgoing) == len(SERVER_MESSAGES) and len(registry.incoming) == len(CLIENT_MESSAGES)


def test_the_jam_is_documented_for_both_directions() -> None:
    jam = events_document(protocol_registry())["streams"]["jam"]
    assert "text" in jam["clientToServer"]["boss_directive"]["fields"]
    assert {"events", "seq", "protocolVersion"} <= set(jam["serverToClient"]["events"]["fields"])


def test_incoming_messages_are_parsed_or_refused_with_one_line() -> None:
    registry = JAM
    assert registry.parse_incoming({"type": "boss_directive", "text": "more energy"}) == BossDirective(text="more energy")
    assert registry.parse_incoming({"type": "set_autopilot", "enabled": True}).interval == 16  # type: ignore[attr-defined]
    with pytest.raises(InvalidInput, match="unknown jam message type 'dance'"):
        registry.parse_incoming({"type": "dance"})
    with pytest.raises(InvalidInput, match="interval"):
        registry.parse_incoming({"type": "set_autopilot", "enabled": True, "interval": 3})
    with pytest.raises(InvalidInput, match="JSON object"):
        registry.parse_incoming(["boss_directive"])
    with pytest.raises(InvalidInput, match="now: Extra inputs"):  # the models forbid unknown fields
        registry.parse_incoming({"type": "stop_jam", "now": True})


def test_emitter_refuses_unregistered_messages_and_numbers_the_rest() -> None:
    class Sneaky(BaseModel):
        type: str = "jam_state_update"

    sent: list[dict] = []
    emitter = Emitter()
    emitter.subscribe(sent.append)
    with pytest.raises(UnregisteredMessage):
        emitter.emit(Sneaky())
    emitter.emit(state(True))
    emitter.emit(thought(1))
    assert [m["seq"] for m in sent] == [1, 2]
    assert sent[1]["type"] == "agent_thought" and sent[1]["round"] == 1


def test_guard_orders_the_stream() -> None:
    emitter = Emitter()
    with pytest.raises(ProtocolViolation, match="before the first jam_state_update"):
        emitter.emit(thought(1))
    emitter.emit(state(False))
    with pytest.raises(ProtocolViolation, match="while the jam is stopped"):
        emitter.emit(AgentStatus(member="BEAT", status="thinking", round=1))
    emitter.emit(state(True, 0))
    emitter.emit(thought(2))
    with pytest.raises(ProtocolViolation, match="round 1 after round 2"):
        emitter.emit(thought(1))
    emitter.emit(Events(cycle=0, cycle_seconds=2.0, events=[]))
    with pytest.raises(ProtocolViolation, match="cycle 0 after cycle 0"):
        emitter.emit(Events(cycle=0, cycle_seconds=2.0, events=[]))
    emitter.emit(state(False, 2))
    emitter.emit(state(True, 0))  # a new jam counts rounds and cycles afresh
    emitter.emit(Events(cycle=0, cycle_seconds=2.0, events=[]))


def test_private_messages_are_registered_but_not_broadcast() -> None:
    sent: list[dict] = []
    emitter = Emitter()
    emitter.subscribe(sent.append)
    emitter.emit(state(True))
    data = emitter.private(ErrorMessage(message="no such member"))
    assert data == {"type": "error", "message": "no such member", "seq": 1, "protocolVersion": "1.0"} and len(sent) == 1

    class Sneaky(BaseModel):
        type: str = "error"
        message: str = "x"

    with pytest.raises(UnregisteredMessage):
        emitter.private(Sneaky())


@pytest.mark.parametrize("message", [
    {"type": "set_autopilot", "enabled": 0},
    {"type": "start_jam", "restart": 0},
    {"type": "set_tempo", "bpm": "100"},
    {"type": "set_mute", "member": "BEAT", "muted": "yes"},
])
def test_client_messages_are_read_strictly(message: dict) -> None:
    # the OpenAPI fuzz found `"enabled": 0` and `"restart": 0` accepted as false
    with pytest.raises(InvalidInput, match="bad"):
        JAM.parse_incoming(message)

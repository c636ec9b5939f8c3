"""The compose pipeline's progress events live in the protocol: snake_case in
Python, camelCase on the wire, one line each for the CLI."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bandstand.protocol import compose as ev


def test_compose_events_are_camel_case_on_the_wire_and_snake_case_in_python() -> None:
    event = ev.NodeCompleted(pipeline_id="p1", node="harmony", summary="Cm Ab Eb Bb", duration_ms=3.5)
    assert event.wire() == {"pipelineId": "p1", "type": "node_completed", "node": "harmony",
                            "summary": "Cm Ab Eb Bb", "durationMs": 3.5}
    assert event.model_dump()["duration_ms"] == 3.5  # the engine's and CLI's view is unchanged
    assert ev.EVENT_ADAPTER.validate_python(event.wire()) == event  # a client's copy reads back
    assert event.line() == "✓ harmony — Cm Ab Eb Bb"
    part = ev.NodeStarted(pipeline_id="p1", node="parts:bass")
    assert part.wire()["node"] == "parts:bass" and part.line() == "… parts:bass"


def test_every_compose_event_has_a_unique_literal_type_and_refuses_unknown_fields() -> None:
    names = [m.model_fields["type"].default for m in ev.COMPOSE_EVENTS]
    assert len(set(names)) == len(names) == 10
    with pytest.raises(ValidationError):
        ev.Paused(pipeline_id="p", node="harmony", summary="s", colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ev.NodeStarted(pipeline_id="p", node="Stage 2/8")


def test_the_compose_guard_orders_a_run() -> None:
    from bandstand.protocol import COMPOSE, Emitter, ProtocolViolation

    sent: list[dict] = []
    emitter = Emitter(COMPOSE)
    emitter.subscribe(sent.append)
    with pytest.raises(ProtocolViolation, match="before pipeline_started"):
        emitter.emit(ev.NodeStarted(pipeline_id="p", node="intent"))
    emitter = Emitter(COMPOSE)
    emitter.subscribe(sent.append)
    emitter.emit(ev.PipelineStarted(pipeline_id="p", session_id="s", session_dir="/tmp/s", seed=7))
    emitter.emit(ev.NodeStarted(pipeline_id="p", node="intent"))
    with pytest.raises(ProtocolViolation, match="node 'Nine'"):
        emitter.emit(ev.NodeStarted.model_construct(pipeline_id="p", node="Nine", attempt=1))
    assert [m["type"] for m in sent] == ["pipeline_started", "node_started", "pipeline_finished"]
    assert sent[-1]["status"] == "failed" and sent[-1]["sessionDir"] == "/tmp/s" and sent[-1]["seq"] == 3

"""What clients read about the protocol: version, hash, events.json, schema.json
(validated against real emitted events with an independent JSON Schema validator)."""

from __future__ import annotations

import functools
from typing import Any

import jsonschema
from hypothesis import given, settings
from pydantic import BaseModel

import bandstand.protocol
from bandstand.protocol import (
    PROTOCOL_VERSION,
    STUDIO,
    Emitter,
    describe,
    events_document,
    protocol_registry,
    schema_document,
    schema_hash,
    tools_document,
)
from bandstand.protocol import compose as ev
from tests.protocol.streams import valid_stream


@functools.cache
def validator(union: str) -> jsonschema.protocols.Validator:
    """A validator of the schema document's `union` (built once: checking the document against
    the metaschema is what costs, not the validation)."""
    document = schema_document(protocol_registry())
    schema = {**document, "$ref": f"#/$defs/{union}"}
    cls = jsonschema.validators.validator_for(document)
    cls.check_schema(document)
    return cls(schema)


@settings(max_examples=60, deadline=None)
@given(valid_stream())
def test_every_emitted_studio_event_validates_against_schema_json(events: list[BaseModel]) -> None:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    for event in events:
        emitter.emit(event)
    check = validator("studio.serverToClient")
    for message in sent:
        check.validate(message)


def test_schema_json_refuses_what_the_models_refuse() -> None:
    check = validator("studio.serverToClient")
    good = {"type": "toolCall", "seq": 3, "protocolVersion": PROTOCOL_VERSION, "id": "c1", "name": "set_tempo",
            "params": {"bpm": 96}, "stepId": None, "agentId": None, "section": None}
    check.validate(good)
    for bad in ({**good, "seq": 0}, {**good, "protocolVersion": "0.1"}, {**good, "colour": "red"},
                {k: v for k, v in good.items() if k != "params"}, {**good, "type": "dance"}):
        assert not check.is_valid(bad), bad


def test_jam_and_compose_events_are_in_the_same_document() -> None:
    jam = validator("jam.clientToServer")
    jam.validate({"type": "boss_directive", "text": "more energy"})
    assert not jam.is_valid({"type": "boss_directive", "text": ""})
    compose = validator("compose.serverToClient")
    event = ev.NodeStarted(pipeline_id="p", node="intent")
    compose.validate({**event.wire(), "seq": 1, "protocolVersion": PROTOCOL_VERSION})


def test_events_json_lists_every_stream_kind_with_its_events() -> None:
    document = events_document(protocol_registry())
    assert set(document["streams"]) == {"jam", "compose", "studio", "variation"}
    studio = document["streams"]["studio"]["serverToClient"]
    spec = {"state", "reasoning", "content", "plan", "planStepUpdate", "toolStart", "toolCall", "toolError",
            "generatorStart", "generatorComplete", "meta", "phrase", "done", "summary.final", "error", "complete",
            "preflight", "status", "agentComplete", "planSummary", "progress", "stallWarning", "budgetUpdate"}
    assert set(studio) == spec
    assert studio["state"]["fields"] == sorted(["type", "seq", "protocolVersion", "state", "intent", "confidence",
                                                "executionMode", "traceId", "projectId", "conversationId",
                                                "specialist"])
    assert studio["complete"]["description"].startswith("Last event, always")
    assert set(document["streams"]["variation"]["serverToClient"]) == {"meta", "phrase", "done", "error"}


def test_the_hash_covers_schemas_and_tools() -> None:
    registry = protocol_registry()
    plain = schema_hash(registry)
    assert plain == schema_hash(protocol_registry()) and len(plain) == 64
    tools = [{"name": "set_tempo", "description": "Set the tempo.", "parameters": {"type": "object"}}]
    assert schema_hash(registry, lambda: tools) != plain
    assert tools_document(lambda: tools)["tools"] == tools and tools_document(None)["tools"] == []
    about = describe(registry)
    assert about["protocolVersion"] == PROTOCOL_VERSION and about["schemaHash"] == plain
    assert "complete" in about["streams"]["studio"]["serverToClient"]


def test_the_package_exports_are_pinned() -> None:
    assert {
        "PROTOCOL_VERSION", "Emitter", "StreamKind", "JAM", "COMPOSE", "STUDIO", "VARIATION", "StudioGuard",
        "VariationGuard", "JamGuard", "ComposeGuard", "ProtocolViolation", "StreamClosed", "protocol_registry",
        "describe", "events_document", "schema_document", "schema_hash", "tools_document", "ToolCatalog",
        "WireEvent", "WireModel", "ComposeEvent", "studio",
    } <= set(bandstand.protocol.__all__)
    assert all(hasattr(bandstand.protocol, name) for name in bandstand.protocol.__all__)

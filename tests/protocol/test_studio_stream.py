"""The studio stream: its events on the wire, the emitter's envelope and the
guard's order rules (spec studio §6), with hypothesis over whole streams."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from bandstand.protocol import (
    STUDIO,
    VARIATION,
    Emitter,
    ProtocolViolation,
    StreamClosed,
    StudioGuard,
    UnregisteredMessage,
)
from bandstand.protocol import studio as s
from tests.protocol.streams import TRACE, VAR, any_event, complete, phrase, state, valid_stream


def run(events: list[BaseModel]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    for event in events:
        emitter.emit(event)
    return sent


def refused(events: list[BaseModel], match: str) -> list[dict[str, Any]]:
    """Emit until the guard refuses (it must, with `match`); returns what was sent, tail included."""
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    with pytest.raises(ProtocolViolation, match=match):
        for event in events:
            emitter.emit(event)
    return sent


def well_formed(sent: list[dict[str, Any]]) -> None:
    """What every studio stream a client sees looks like, whatever happened inside."""
    assert [m["seq"] for m in sent] == list(range(1, len(sent) + 1))
    assert {m["protocolVersion"] for m in sent} == {"1.0"}
    assert sent[0]["type"] in ("state", "error")
    assert sent[-1]["type"] == "complete" and [m["type"] for m in sent].count("complete") == 1
    if not sent[-1]["success"]:
        assert "error" in [m["type"] for m in sent]
    replay = StudioGuard()  # the wire form reads back and passes a fresh guard
    for message in sent:
        replay.check(STUDIO.build({k: v for k, v in message.items() if k not in ("seq", "protocolVersion")}))
    assert replay.unfinished() is None


def test_events_are_camel_case_with_the_envelope_first() -> None:
    sent = run([state("EDITING"), s.ToolStart(name="set_tempo", label="Set tempo to 96 BPM"),
                s.ToolCall(id="c1", name="set_tempo", params={"bpm": 96}), s.SummaryFinal(summary="Tempo 96"),
                complete("EDITING")])
    assert list(sent[0])[:3] == ["type", "seq", "protocolVersion"]
    assert sent[0] == {"type": "state", "seq": 1, "protocolVersion": "1.0", "state": "EDITING", "intent": "test",
                       "confidence": 0.9, "executionMode": "apply", "traceId": TRACE,
                       "projectId": None, "conversationId": None, "specialist": None}
    assert sent[2]["params"] == {"bpm": 96} and sent[2]["agentId"] is None
    assert sent[-1]["usage"] == {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0, "cacheWriteTokens": 0,
                                 "costUsd": 0.0}
    well_formed(sent)


def test_models_refuse_what_the_spec_forbids() -> None:
    with pytest.raises(ValidationError, match="executionMode 'variation'"):
        s.State(state="COMPOSING", intent="x", confidence=1, execution_mode="apply", trace_id="t")
    with pytest.raises(ValidationError, match="says why"):
        s.Complete(success=False, trace_id="t")
    with pytest.raises(ValidationError, match="added note change has before null"):
        s.NoteChange(change="added", before=s.WireNote(pitch=1, start_beat=0, duration_beats=1, velocity=1))
    with pytest.raises(ValidationError, match="unique"):
        s.Plan(plan_id="p", title="t", steps=[s.PlanStep(step_id="a", label="A"), s.PlanStep(step_id="a", label="B")])
    with pytest.raises(ValidationError):
        s.ToolCall(id="c", name="x", params={}, colour="red")  # type: ignore[call-arg]
    assert s.ToolCall.model_validate({"id": "c", "name": "x", "params": {}, "stepId": "s1"}).step_id == "s1"


def test_an_event_given_as_a_dict_is_validated_and_a_bad_one_ends_the_stream() -> None:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    emitter.emit(state("EDITING"))
    emitter.emit({"type": "toolStart", "name": "set_tempo", "label": "Set tempo"})
    with pytest.raises(ProtocolViolation, match="bad toolCall event: params"):
        emitter.emit({"type": "toolCall", "id": "c1", "name": "set_tempo", "params": "fast"})
    assert [m["type"] for m in sent] == ["state", "toolStart", "error", "complete"]
    assert sent[-1]["success"] is False and "params" in sent[-1]["error"] and sent[-1]["traceId"] == TRACE
    with pytest.raises(StreamClosed):
        emitter.emit(s.SummaryFinal(summary="too late"))
    well_formed(sent)


def test_state_first_and_complete_last() -> None:
    refused([s.Content(content="x")], "before the state event")
    refused([state("REASONING"), state("EDITING")], "second state")
    refused([state("REASONING"), s.Content(content="x"), complete("REASONING"), s.Content(content="y")],
            "after complete")
    refused([state("REASONING"), complete("REASONING")], "may not complete after state")
    refused([state("EDITING"), s.StreamError(message="x"), complete("EDITING")], "success true after an error")


def test_each_mode_has_its_own_order() -> None:
    refused([state("REASONING"), s.ToolStart(name="a", label="A")], "toolStart is not part of a REASONING stream")
    refused([state("EDITING"), s.Meta(variation_id=VAR, base_revision=1, intent="x")], "meta is not part of a EDITING")
    refused([state("REASONING"), s.Content(content="a"), s.Reasoning(content="b")], "may not come answering")
    refused([state("COMPOSING"), phrase(0)], "phrase may not come after state")
    refused([state("COMPOSING"), s.Meta(variation_id=VAR, base_revision=1, intent="x"),
             s.Done(variation_id=VAR, status="ready", phrase_count=1)], "counts 1 phrases, 0 were sent")
    refused([state("COMPOSING"), s.Meta(variation_id=VAR, base_revision=1, intent="x"),
             s.Done(variation_id=VAR, status="failed", phrase_count=0), complete("COMPOSING")], "failed variation")


def test_plans_steps_and_tools() -> None:
    plan = s.Plan(plan_id="p", title="Building a funk groove",
                  steps=[s.PlanStep(step_id="a", label="Create Bass track"), s.PlanStep(step_id="b", label="Add content to Bass")])
    tool = s.ToolStart(name="add_midi_track", label="Create Bass track", step_id="a")
    refused([state("EDITING"), s.ToolStart(name="a", label="A"), s.ToolCall(id="1", name="a", params={}),
             s.ToolStart(name="b", label="B")], "second tool without a plan")
    refused([state("EDITING"), plan, tool], "outside an active plan step")
    refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="a", status="completed")], "from pending to completed")
    refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="z", status="active")], "unknown step z")
    refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="a", status="active"), tool,
             s.PlanStepUpdate(step_id="a", status="completed")], "ends while its tool is running")
    refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="a", status="active"), tool,
             s.ToolCall(id="1", name="set_tempo", params={}, step_id="a")], "without its toolStart")
    refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="a", status="active"), tool,
             s.ToolCall(id="1", name="add_midi_track", params={}, step_id="a"),
             s.PlanStepUpdate(step_id="a", status="completed"), s.SummaryFinal(summary="x"), complete("EDITING")],
            "plan steps have not ended: b")


def test_a_failed_stream_ends_its_steps_before_complete() -> None:
    plan = s.Plan(plan_id="p", title="Groove", steps=[s.PlanStep(step_id=i, label=i) for i in "abc"])
    sent = refused([state("EDITING"), plan, s.PlanStepUpdate(step_id="a", status="active"),
                    s.ToolStart(name="x", label="X", step_id="a"), s.ToolCall(id="1", name="x", params={}, step_id="a"),
                    s.PlanStepUpdate(step_id="a", status="completed"), s.PlanStepUpdate(step_id="b", status="active"),
                    s.SummaryFinal(summary="early"), complete("EDITING")], "plan steps have not ended: b, c")
    assert [(m["type"], m.get("stepId"), m.get("status")) for m in sent[-4:]] == [
        ("error", None, None), ("planStepUpdate", "b", "failed"), ("planStepUpdate", "c", "skipped"),
        ("complete", None, None)]
    well_formed(sent)


def test_agent_teams_interleave_their_tools() -> None:
    plan = s.Plan(plan_id="p", title="Team", steps=[s.PlanStep(step_id="d", label="Drums"), s.PlanStep(step_id="b", label="Bass")])
    sent = run([
        state("COMPOSING"), plan, s.Preflight(agent_id="drums", role="drums", label="Drums", step_ids=["d"]),
        s.Preflight(agent_id="bass", role="bass", label="Bass", step_ids=["b"]),
        s.PlanStepUpdate(step_id="d", status="active"), s.PlanStepUpdate(step_id="b", status="active"),
        s.ToolStart(name="generate_part", label="Drums", step_id="d", agent_id="drums"),
        s.ToolStart(name="generate_part", label="Bass", step_id="b", agent_id="bass"),
        s.GeneratorStart(role="drums", generator="builtin", agent_id="drums", section="verse"),
        s.Status(message="Bass waits for the verse kick", agent_id="bass", section="verse"),
        s.GeneratorComplete(role="drums", generator="builtin", note_count=64, duration_ms=2, agent_id="drums", section="verse"),
        s.ToolCall(id="1", name="generate_part", params={"role": "drums"}, step_id="d", agent_id="drums"),
        s.ToolError(name="generate_part", error="timed out", step_id="b", agent_id="bass"),
        s.PlanStepUpdate(step_id="d", status="completed"), s.PlanStepUpdate(step_id="b", status="failed"),
        s.AgentComplete(agent_id="drums", section="verse", success=True),
        s.Meta(variation_id=VAR, base_revision=1, intent="team"), phrase(0),
        s.Done(variation_id=VAR, status="ready", phrase_count=1), complete("COMPOSING"),
    ])
    assert sent[9]["agentId"] == "bass" and sent[9]["section"] == "verse"
    well_formed(sent)


def test_close_ends_a_stream_that_still_owes_its_complete() -> None:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    emitter.emit(state("REASONING"))
    emitter.emit(s.Reasoning(content="thinking"))
    emitter.close("the client went away")
    emitter.close()  # idempotent
    assert [m["type"] for m in sent] == ["state", "reasoning", "error", "complete"]
    assert sent[-1]["error"] == "the client went away"
    well_formed(sent)
    done = Emitter(STUDIO)
    for event in (state("REASONING"), s.Content(content="C minor"), complete("REASONING")):
        done.emit(event)
    done.close()  # a finished stream gets nothing more
    assert done.seq == 3


def test_the_variation_stream() -> None:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(VARIATION)
    emitter.subscribe(sent.append)
    emitter.emit(s.Meta(variation_id=VAR, base_revision=3, intent="busier bass"))
    emitter.emit(phrase(0))
    with pytest.raises(ProtocolViolation, match="phrase of variation other"):
        emitter.emit(phrase(1).model_copy(update={"variation_id": "other"}))
    assert [(m["type"], m.get("status"), m.get("phraseCount")) for m in sent] == [
        ("meta", None, None), ("phrase", None, None), ("error", None, None), ("done", "failed", 1)]
    with pytest.raises(UnregisteredMessage, match="not a registered variation event"):
        Emitter(VARIATION).emit(state("EDITING"))


@settings(max_examples=150, deadline=None)
@given(valid_stream())
def test_every_valid_stream_passes_and_is_numbered(events: list[BaseModel]) -> None:
    sent = run(events)
    assert len(sent) == len(events)
    well_formed(sent)


@settings(max_examples=150, deadline=None)
@given(valid_stream(), st.data())
def test_a_stream_cut_short_still_ends_properly(events: list[BaseModel], data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(events) - 1))
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    for event in events[:cut]:
        emitter.emit(event)
    emitter.close("cancelled")
    well_formed(sent)
    assert sent[-1]["success"] is False and len(sent) > cut


@settings(max_examples=150, deadline=None)
@given(valid_stream(), st.data())
def test_complete_anywhere_but_last_or_state_anywhere_but_first_is_refused(events: list[BaseModel], data: st.DataObject) -> None:
    where = data.draw(st.integers(1, len(events) - 1))
    early = [*events[:where], events[-1], *events[where:-1]]
    late_state = [*events[1:where + 1], events[0], *events[where + 1:]]
    for broken in (early, late_state):
        if broken == events:
            continue
        sent: list[dict[str, Any]] = []
        emitter = Emitter(STUDIO)
        emitter.subscribe(sent.append)
        with pytest.raises(ProtocolViolation):
            for event in broken:
                emitter.emit(event)
        well_formed(sent)


@settings(max_examples=300, deadline=None)
@given(st.lists(any_event(), max_size=25))
def test_whatever_a_producer_emits_the_client_sees_a_well_formed_stream(events: list[BaseModel]) -> None:
    sent: list[dict[str, Any]] = []
    emitter = Emitter(STUDIO)
    emitter.subscribe(sent.append)
    for event in events:
        try:
            emitter.emit(event)
        except ProtocolViolation:
            break
    emitter.close("the producer stopped")
    well_formed(sent)

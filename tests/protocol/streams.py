"""Builders of studio streams for the guard tests: valid streams of each mode
(as hypothesis strategies) and any event of the studio stream from a small
pool of ids, for fuzzing."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel

from bandstand.protocol import studio as s

TRACE = "trace-1"
VAR = "var-1"


def state(mode: str) -> s.State:
    return s.State(state=mode, intent="test", confidence=0.9, execution_mode=s.EXECUTION_MODES[mode], trace_id=TRACE)  # type: ignore[arg-type]


def complete(mode: str) -> s.Complete:
    return s.Complete(success=True, trace_id=TRACE, revision=2, variation_id=VAR if mode == "COMPOSING" else None)


def phrase(n: int) -> s.Phrase:
    change = s.NoteChange(change="added", after=s.WireNote(pitch=40, start_beat=0, duration_beats=1, velocity=90))
    return s.Phrase(variation_id=VAR, phrase_id=f"p{n}", track_id="t1", region_id="r1", start_beat=4 * n,
                    end_beat=4 * n + 4, label=f"Bass bars {n * 4 + 1}–{n * 4 + 4}", note_changes=[change])


@st.composite
def tool_steps(draw: Any, composing: bool) -> list[BaseModel]:
    """A plan (when 2+ tools) and its steps: each run, failed or never reached (skipped)."""
    count = draw(st.integers(0, 5))
    if count == 0:
        return []
    outcomes = draw(st.lists(st.sampled_from(["ok", "error", "skip"]), min_size=count, max_size=count))
    if count == 1:  # one tool needs no plan
        name = "add_notes"
        end: BaseModel = (s.ToolError(name=name, error="no such region") if outcomes[0] == "error"
                          else s.ToolCall(id="c0", name=name, params={"region": "r1"}))
        return [s.ToolStart(name=name, label="Add notes"), end]
    steps = [s.PlanStep(step_id=f"s{i}", label=f"Step {i}", tool_name="add_notes") for i in range(count)]
    events: list[BaseModel] = [s.Plan(plan_id="plan", title="Building a groove", steps=steps)]
    reached = True
    for i, outcome in enumerate(outcomes):
        reached = reached and outcome != "skip"
        if not reached:
            events.append(s.PlanStepUpdate(step_id=f"s{i}", status="skipped"))
            continue
        events.append(s.PlanStepUpdate(step_id=f"s{i}", status="active"))
        events.append(s.ToolStart(name="add_notes", label=f"Step {i}", step_id=f"s{i}"))
        if composing and draw(st.booleans()):
            events += [s.GeneratorStart(role="bass", generator="builtin", step_id=f"s{i}"),
                       s.GeneratorComplete(role="bass", generator="builtin", note_count=12, duration_ms=3, step_id=f"s{i}")]
        if outcome == "error":
            events.append(s.ToolError(name="add_notes", error="bad region", step_id=f"s{i}"))
            events.append(s.PlanStepUpdate(step_id=f"s{i}", status="failed", error="bad region"))
        else:
            events.append(s.ToolCall(id=f"c{i}", name="add_notes", params={}, step_id=f"s{i}"))
            events.append(s.PlanStepUpdate(step_id=f"s{i}", status="completed"))
    return events


@st.composite
def valid_stream(draw: Any) -> list[BaseModel]:
    """A complete, valid studio stream of a random mode."""
    mode = draw(st.sampled_from(["REASONING", "EDITING", "COMPOSING"]))
    events: list[BaseModel] = [state(mode)]
    if mode == "REASONING":
        events += [s.Reasoning(content=f"r{i}") for i in range(draw(st.integers(0, 3)))]
        events += [s.Content(content=f"c{i}") for i in range(draw(st.integers(1, 3)))]
    elif mode == "EDITING":
        events += draw(tool_steps(False))
        events.append(s.SummaryFinal(summary="Set the tempo to 96 BPM"))
    else:
        events += draw(tool_steps(True))
        phrases = draw(st.integers(0, 4))
        events.append(s.Meta(variation_id=VAR, base_revision=1, intent="busier bass"))
        events += [phrase(n) for n in range(phrases)]
        events.append(s.Done(variation_id=VAR, status="ready", phrase_count=phrases))
        if draw(st.booleans()):
            events.append(s.SummaryFinal(summary="A busier bass, ready to review"))
    events.append(complete(mode))
    return events


IDS = st.sampled_from(["s0", "s1", "s2"])
NAMES = st.sampled_from(["add_notes", "set_tempo"])
AGENTS = st.sampled_from([None, "bass-1"])


def any_event() -> st.SearchStrategy[BaseModel]:
    """Any studio event built from a small pool of ids, so fuzzed streams often almost make sense."""
    return st.one_of(
        st.sampled_from(["REASONING", "EDITING", "COMPOSING"]).map(state),
        st.just(s.Reasoning(content="hm")),
        st.just(s.Content(content="C minor")),
        st.lists(IDS, min_size=1, max_size=3, unique=True).map(
            lambda ids: s.Plan(plan_id="p", title="Plan", steps=[s.PlanStep(step_id=i, label=i) for i in ids])),
        st.builds(lambda i, status: s.PlanStepUpdate(step_id=i, status=status), IDS,
                  st.sampled_from(["active", "completed", "failed", "skipped"])),
        st.builds(lambda n, i, a: s.ToolStart(name=n, label=n, step_id=i, agent_id=a), NAMES, IDS, AGENTS),
        st.builds(lambda n, i, a: s.ToolCall(id="c", name=n, params={}, step_id=i, agent_id=a), NAMES, IDS, AGENTS),
        st.builds(lambda n, a: s.ToolError(name=n, error="bad", agent_id=a), NAMES, AGENTS),
        st.builds(lambda a: s.GeneratorStart(role="bass", generator="builtin", agent_id=a), AGENTS),
        st.builds(lambda a: s.GeneratorComplete(role="bass", generator="builtin", note_count=1, duration_ms=1, agent_id=a), AGENTS),
        st.just(s.Meta(variation_id=VAR, base_revision=1, intent="x")),
        st.integers(0, 2).map(phrase),
        st.builds(lambda n, status: s.Done(variation_id=VAR, status=status, phrase_count=n), st.integers(0, 2),
                  st.sampled_from(["ready", "failed"])),
        st.just(s.SummaryFinal(summary="done")),
        st.just(s.StreamError(message="boom")),
        st.sampled_from(["REASONING", "EDITING", "COMPOSING"]).map(complete),
        st.just(s.Complete(success=False, trace_id=TRACE, error="boom")),
        st.just(s.Preflight(agent_id="bass-1", role="bass", label="Bass")),
        st.just(s.Status(message="waiting for the kick", agent_id="bass-1")),
        st.just(s.AgentComplete(agent_id="bass-1", success=True)),
    )

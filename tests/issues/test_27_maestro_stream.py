"""Issue 27: the studio stream as Maestro's clients read it — `phase` on `toolStart` and
`planStepUpdate`, `planSummary` after the plan, `progress` after each step, `proposal` on
the tool calls that write a variation, `parallelGroup` on steps that run together, and a
`stallWarning` when the work says nothing for a while (the threshold is the studio's
`Timeouts.stall`, small here so the test need not wait 30 s)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bandstand.producer.sessions.studio import Studio, Timeouts
from bandstand.protocol import protocol_registry, schema_document

COMPOSE = """MAESTRO PROMPT
Mode: compose
Style: funk
Tempo: 96
Key: E minor
Roles: [drums, bass]
Bars: 8
"""


def _run(studio: Studio, prompt: str, project_id: str | None = None) -> list[dict[str, Any]]:
    prepared = studio.prepare(prompt, project_id=project_id)
    events: list[dict[str, Any]] = []
    asyncio.run(studio.stream(prepared, events.append))
    return events


@pytest.fixture(scope="module")
def validator() -> Any:
    document = schema_document(protocol_registry())
    return jsonschema.Draft202012Validator({**document, "$ref": "#/$defs/studio.serverToClient"})


def test_a_composition_says_phase_summary_progress_and_proposal(tmp_path: Path, validator: Any) -> None:
    events = _run(Studio(tmp_path), COMPOSE)
    for event in events:
        validator.validate(event)
    kinds = [e["type"] for e in events]
    plan = next(e for e in events if e["type"] == "plan")
    summary = next(e for e in events if e["type"] == "planSummary")
    assert kinds.index("planSummary") == kinds.index("plan") + 1
    assert summary["totalSteps"] == len(plan["steps"]) and summary["tracks"] == ["Drums", "Bass"]
    assert summary["phases"]["composition"] == 2 and sum(summary["phases"].values()) == len(plan["steps"])
    progress = [e for e in events if e["type"] == "progress"]
    assert [p["completedSteps"] for p in progress] == list(range(1, len(plan["steps"]) + 1))
    assert progress[-1]["percent"] == 100.0
    phases = {s["stepId"]: s["phase"] for s in plan["steps"]}
    assert all(e["phase"] == phases[e["stepId"]] for e in events if e["type"] in ("toolStart", "planStepUpdate"))
    tools = [e for e in events if e["type"] in ("toolStart", "toolCall")]
    assert tools and all(e["proposal"] is True for e in tools)  # a composition's calls write a variation
    assert "stallWarning" not in kinds  # the default threshold is 30 s


def test_an_edit_applies_so_its_calls_are_not_proposals(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    made = _run(studio, COMPOSE)
    pid = made[-1]["projectId"]
    studio.library.commit(made[-1]["variationId"])
    edited = _run(studio, "mute the drums and pan the bass left", pid)
    tools = [e for e in edited if e["type"] in ("toolStart", "toolCall")]
    assert tools and all(e["proposal"] is False for e in tools)
    assert {e["phase"] for e in edited if e["type"] == "toolStart"} == {"mixing"}


def test_a_step_that_says_nothing_for_the_threshold_is_warned_about(tmp_path: Path, validator: Any) -> None:
    events = _run(Studio(tmp_path, timeouts=Timeouts(stall=0.0005)), COMPOSE)
    for event in events:
        validator.validate(event)
    warnings = [e for e in events if e["type"] == "stallWarning"]
    assert warnings and events[-1]["type"] == "complete" and events[-1]["success"] is True
    assert all(w["seconds"] >= 0.0005 and "no progress" in w["message"] for w in warnings)
    kinds = [e["type"] for e in events]
    assert kinds.index("stallWarning") > kinds.index("state")


def test_a_teams_parts_run_together_in_one_parallel_group(tmp_path: Path) -> None:
    from bandstand.producer.teams import TeamOptions, compose_team
    from bandstand.protocol import STUDIO, Emitter

    emitter, events = Emitter(STUDIO), []
    emitter.subscribe(events.append)
    options = TeamOptions(seed=7, out_dir=str(tmp_path / "out"), compose={"bars": 8})
    asyncio.run(compose_team("funk groove in E minor", options, emitter=emitter))
    assert events[-1]["success"] is True
    plan = next(e for e in events if e["type"] == "plan")
    summary = next(e for e in events if e["type"] == "planSummary")
    parts = [s for s in plan["steps"] if s["stepId"].startswith(("plan:", "write:"))]
    assert parts and {s["parallelGroup"] for s in parts} == {"parts"} and summary["parallelGroups"] == ["parts"]
    assert {s["parallelGroup"] for s in plan["steps"] if s["stepId"] in ("setup", "mix")} == {None}
    assert all(e["proposal"] is True for e in events if e["type"] in ("toolStart", "toolCall"))


def test_a_compositions_dimension_blocks_are_read_and_applied(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    prompt = COMPOSE + ("Orchestration:\n  add: strings\nRhythm:\n  swing: more\nMelody: busier\n"
                        "Form: [intro, verse, chorus]\n")
    events = _run(studio, prompt)
    complete = events[-1]
    assert complete["success"] is True, complete
    assert not any(w.startswith("Form:") for w in complete["warnings"])  # the Form is the song's sections now
    sections = studio.library.session(complete["projectId"]).project(complete["revision"]).sections
    assert [s.name for s in sections] == ["Intro", "Verse", "Chorus"]
    plan = next(e for e in events if e["type"] == "plan")
    assert "Create Strings track" in [s["label"] for s in plan["steps"]]
    recipe = studio.library.session(complete["projectId"]).project(complete["revision"]).provenance.recipe
    overrides = {(o["role"], k): v for o in recipe["style_overrides"] for k, v in o["knobs"].items()}
    assert overrides[("*", "swing")] > 0 and overrides[("lead", "density")] > 0
    plain = _run(Studio(tmp_path / "plain"), COMPOSE)[-1]
    assert plain["warnings"] == []


def test_complete_carries_the_tokens_a_model_spent(tmp_path: Path) -> None:
    from bandstand.agents.anthropic_backend import AnthropicBackend
    from bandstand.producer.composing.compose import compose_song
    from tests.peers.studio_model import StudioAnthropic

    made = compose_song("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), render_audio=False).result
    studio = Studio(tmp_path, timeouts=Timeouts(request=60, generator=30, model_turn=20))
    offline = _run(studio, "why does the chorus feel flat?", made.session_dir.name)[-1]
    assert offline["usage"]["inputTokens"] == 0 and offline["usage"]["outputTokens"] == 0
    with StudioAnthropic() as server:
        studio.backend = AnthropicBackend(base_url=server.url, api_key="test-key", model="claude-haiku-4-5",
                                          stream=True, backoff=0.001)
        events = _run(studio, "why does the chorus feel flat?", made.session_dir.name)
    complete = events[-1]
    assert complete["success"] is True, complete
    assert complete["usage"]["inputTokens"] > 0 and complete["usage"]["outputTokens"] > 0
    budget = [e for e in events if e["type"] == "budgetUpdate"]
    assert [b["source"] for b in budget] == ["ask"] and budget[-1]["usage"] == complete["usage"]

"""A team composes offline: every agent shows up on the stream in order, the result is a
variation to review, and a failing or slow agent fails only its own steps."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bandstand.agents.config import TeamConfig
from bandstand.producer.sessions.projects import open_project
from bandstand.producer.teams import TeamOptions, compose_team
from bandstand.producer.teams.builtin import write_section
from bandstand.protocol import STUDIO, Emitter
from bandstand.studio import to_song

PROMPT = "funk groove in E minor with a synth pad"


def stream() -> tuple[Emitter, list[dict[str, Any]]]:
    emitter, events = Emitter(STUDIO), []
    emitter.subscribe(events.append)
    return emitter, events


def compose(tmp_path: Path, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    emitter, events = stream()
    defaults: dict[str, Any] = {"seed": 7, "out_dir": str(tmp_path / "out"), "compose": {"bars": 24}}
    outcome = asyncio.run(compose_team(PROMPT, TeamOptions(**{**defaults, **options}), emitter=emitter))
    return outcome, events


def by_agent(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e.get("agentId"):
            out[e["agentId"]].append(e)
    return out


def test_a_team_composes_a_variation_offline_agent_by_agent(tmp_path: Path) -> None:
    outcome, events = compose(tmp_path)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "state" and kinds[-1] == "complete" and events[-1]["success"] is True
    assert kinds.index("plan") < kinds.index("toolStart")
    assert kinds.index("meta") > max(i for i, k in enumerate(kinds) if k == "agentComplete")
    plan = next(e for e in events if e["type"] == "plan")
    ended = {e["stepId"]: e["status"] for e in events if e["type"] == "planStepUpdate"}
    assert set(ended) == {s["stepId"] for s in plan["steps"]} and set(ended.values()) == {"completed"}
    agents = by_agent(events)
    assert {"coordinator", "mixer", "drums", "bass", "chords", "lead", "pad"} <= set(agents)
    sections = [a for a in agents if "/" in a]
    assert len(sections) == len(outcome.sections) == sum(1 for s in plan["steps"] if s["stepId"].startswith("write:"))
    for agent, mine in agents.items():
        assert mine[0]["type"] == "preflight", agent
        assert mine[-1]["type"] == "agentComplete" and mine[-1]["success"] is True, agent
    for agent in sections:
        order = [e["type"] for e in agents[agent] if e["type"] != "status"]
        assert order[:3] == ["preflight", "toolStart", "toolCall"], agent  # the region first
        assert order[3:5] == ["generatorStart", "generatorComplete"], agent
        assert set(order[5:-1]) == {"toolStart", "toolCall"} and order[-1] == "agentComplete", agent
        assert all(e["section"] == agent.split("/", 1)[1] for e in agents[agent])
    # the bass of a section starts writing only after that section's drums finished
    seq = {(e["agentId"], e["type"]): e["seq"] for e in events if e.get("agentId")}
    both = [a.split("/", 1)[1] for a in sections if a.startswith("bass/") and f"drums/{a.split('/', 1)[1]}" in sections]
    assert both
    for name in both:
        assert seq[(f"drums/{name}", "agentComplete")] < seq[(f"bass/{name}", "generatorStart")]
        assert any("locked to the drums" in e["message"] for e in agents[f"bass/{name}"] if e["type"] == "status")
    # a variation waits for review: nothing changed yet
    session = open_project(outcome.session_dir)
    meta = next(e for e in events if e["type"] == "meta")
    assert events[-1]["variationId"] == meta["variationId"] == outcome.variation_id
    assert session.revision == 1 and session.head.note_count() == 0 and not outcome.accepted
    variation = session.variation(outcome.variation_id)
    assert variation.state == "ready" and variation.counts["added"] == sum(s["notes"] for s in outcome.sections)
    entry = session.accept(outcome.variation_id)
    assert entry.revision == 2 and session.head.note_count() == variation.counts["added"]
    song = to_song(session.head)
    assert {t.role for t in song.tracks if t.notes} == {"drums", "bass", "chords", "lead", "pad"}
    assert session.head.buses and any(t.sends for t in session.head.tracks)


def test_the_manifest_says_who_wrote_each_section_under_which_contract(tmp_path: Path) -> None:
    import json

    outcome, _ = compose(tmp_path, accept=True)
    manifest = json.loads((outcome.session_dir / "manifest.json").read_text())
    team = manifest["team"]
    assert manifest["revision"] == 2 and team["song"] == outcome.contracts["song"]
    for record in team["sections"]:
        assert record["status"] == "written"
        assert len(record["contract"]) == 64 and len(record["execution"]) == 64
        assert record["musician"] == {"backend": "builtin", "model": None, "persona": "", "fallback": None}
        assert team["contracts"][f"{record['role']}/{record['section']}"] == record["contract"]
    assert {r["signal"] for r in team["sections"] if r["role"] == "bass"} <= {"received", "none"}


def test_the_same_seed_gives_the_same_song(tmp_path: Path) -> None:
    first, _ = compose(tmp_path / "a", accept=True)
    second, _ = compose(tmp_path / "b", accept=True)
    midi = "midi/full-arrangement.mid"
    assert (first.session_dir / midi).read_bytes() == (second.session_dir / midi).read_bytes()
    assert [s["notes"] for s in first.sections] == [s["notes"] for s in second.sections]
    # the same song, but each run's execution hashes are bound to its own session (issue 27)
    assert first.session_dir.name != second.session_dir.name
    assert not {s["execution"] for s in first.sections} & {s["execution"] for s in second.sections}


def failing_drums(setup: Any, plan: Any, contract: Any, signal: Any) -> Any:
    if contract.role == "drums":
        raise RuntimeError("the drum machine is unplugged")
    return write_section(setup, plan, contract, signal)


def test_failing_drums_fail_their_own_steps_and_the_bass_plays_on_after_a_timeout(tmp_path: Path) -> None:
    outcome, events = compose(tmp_path, writer=failing_drums, team=TeamConfig(signal_timeout=0.2))
    agents = by_agent(events)
    drums = [a for a in agents if a.startswith("drums/")]
    assert drums and all(agents[a][-1]["success"] is False for a in drums)
    ended = {e["stepId"]: e["status"] for e in events if e["type"] == "planStepUpdate"}
    assert {ended[f"write:drums:{i}"] for i in {r["index"] for r in outcome.sections if r["role"] == "drums"}} == \
        {"failed"}
    assert {s for k, s in ended.items() if not k.startswith("write:drums:")} == {"completed"}
    said = [e["message"] for a in drums for e in agents[a] if e["type"] == "status"]
    assert any("the drum machine is unplugged" in m for m in said)  # every failed attempt is heard
    errors = [e["error"] for e in events if e["type"] == "planStepUpdate" and e["status"] == "failed"]
    assert any("circuit open" in e for e in errors)  # the breaker refuses the rest at once
    basses = [r for r in outcome.sections if r["role"] == "bass"]
    assert all(r["status"] == "written" for r in basses)
    waited = [r for r in basses if r["signal"] == "timeout"]
    assert waited
    for r in waited:
        assert any("no word from the drums" in e["message"] for e in agents[f"bass/{r['section']}"]
                   if e["type"] == "status")
    assert events[-1]["success"] is True and set(outcome.failed) == set(drums)
    assert open_project(outcome.session_dir).variation(outcome.variation_id).state == "ready"


def slow_lead(release: threading.Event) -> Callable[..., Any]:
    def writer(setup: Any, plan: Any, contract: Any, signal: Any) -> Any:
        if contract.role == "lead":
            release.wait(10)
        return write_section(setup, plan, contract, signal)
    return writer


def test_the_deadline_flows_down_to_the_slow_sections(tmp_path: Path) -> None:
    # every section has the same limit: one the others meet on a busy machine too (a 0.3 s one
    # raced them), and the lead's do not (they wait until the last of them has failed)
    release = threading.Event()
    leads: set[str] = set()

    def watch(event: dict[str, Any]) -> None:
        if event["type"] == "plan":
            leads.update(s["stepId"] for s in event["steps"] if s["stepId"].startswith("write:lead:"))
        elif event["type"] == "planStepUpdate" and event["status"] == "failed":
            leads.discard(event["stepId"])
            if not leads:
                release.set()

    emitter, events = stream()
    emitter.subscribe(watch)
    options = TeamOptions(seed=7, out_dir=str(tmp_path / "out"), compose={"bars": 24}, writer=slow_lead(release),
                          team=TeamConfig(section_timeout=2))
    try:
        outcome = asyncio.run(compose_team(PROMPT, options, emitter=emitter))
    finally:
        release.set()
    lead = [r for r in outcome.sections if r["role"] == "lead"]
    assert lead and all(r["status"] == "failed" and r["error"] == "the deadline passed" for r in lead)
    assert all(r["status"] == "written" for r in outcome.sections if r["role"] != "lead")
    assert events[-1]["success"] is True


def test_a_cancelled_team_leaves_nothing_running_and_proposes_nothing(tmp_path: Path) -> None:
    release = threading.Event()
    emitter, events = stream()
    before = threading.active_count()

    async def main() -> None:
        task = asyncio.create_task(compose_team(PROMPT, TeamOptions(seed=7, out_dir=str(tmp_path / "out"),
                                                                    writer=slow_lead(release)), emitter=emitter))
        while not any(e["type"] == "generatorStart" and e.get("role") == "lead" for e in events):
            await asyncio.sleep(0.01)
        task.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(main())
    assert threading.active_count() <= before
    assert events[-1]["type"] == "complete" and events[-1]["success"] is False
    session_dir = next((tmp_path / "out").iterdir())
    assert open_project(session_dir).variations() == []

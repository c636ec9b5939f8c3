"""LLM seats against the local OpenAI-compatible peer: a seat that answers well plays its part
(its drift corrected and reported), and a seat that times out, answers garbage or fabricates
ids falls back to the built-in musician for its own sections only, with a visible status."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bandstand.agents.config import AgentsConfig, SeatConfig, TeamConfig
from bandstand.producer.sessions.projects import open_project
from bandstand.producer.teams import TeamOptions, compose_team
from bandstand.protocol import STUDIO, Emitter
from tests.peers.openai_server import OpenAIServer


class Band(OpenAIServer):
    """The peer, answering as the persona in the system message says: GOOD (a plan with a
    wrong tempo, then generate_part with a wrong bar count), NOTES (its own notes, one past
    the section), GARBAGE (prose), HANG (never answers), FAKER (notes on a made-up region)."""

    def __init__(self) -> None:
        super().__init__()
        self.reply_for = self.plan_reply

    @staticmethod
    def persona(body: dict[str, Any]) -> str:
        system = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")
        return str(system).split()[0] if system else ""

    def plan_reply(self, user: str, system: str, n: int) -> str:
        who = system.split()[0]
        if who == "HANG":
            self.stopping.wait(30)
        try:
            sections = json.JSONDecoder().raw_decode(user)[0]["sections_you_play"]  # the schema follows it
        except (ValueError, KeyError):
            sections = None
        if who == "GARBAGE" or sections is None:
            return "I'd love to play! Let me think about the groove for a while..."
        return json.dumps({"sections": {sections[0]: "busier"}, "summary": f"{who} plays it", "tempo": 200})

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        if not body.get("tools"):
            return None
        who, ask = self.persona(body), json.JSONDecoder().raw_decode(user)[0]
        if who == "HANG":
            self.stopping.wait(30)
        calls = {
            "GOOD": ("generate_part", {"role": ask["role"], "bars": 99, "style": "busier", "section": ask["section"]}),
            "NOTES": ("add_notes", {"region": ask["region_id"], "notes": [
                {"pitch": 72, "start": 0, "duration": 1, "velocity": 90},
                {"pitch": 74, "start": 1, "duration": 1, "velocity": 90},
                {"pitch": 76, "start": 1000, "duration": 1, "velocity": 90}]}),
            "FAKER": ("add_notes", {"region": "region-i-made-up", "notes": [
                {"pitch": 60, "start": 0, "duration": 1, "velocity": 90}]}),
        }.get(who)
        if calls is None:
            return None
        name, arguments = calls
        return "", [{"id": f"call_{len(self.requests):04d}", "type": "function",
                     "function": {"name": name, "arguments": json.dumps(arguments)}}]


@pytest.fixture
def band(monkeypatch: pytest.MonkeyPatch) -> Iterator[Band]:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with Band() as server:
        yield server


def seat(persona: str, **more: Any) -> SeatConfig:
    return SeatConfig(backend="openai", persona=f"{persona} You play in the band.", model="local", **more)


def test_each_failing_seat_is_contained_to_its_own_sections(band: Band, tmp_path: Path) -> None:
    agents = AgentsConfig.model_validate({"openai": {"base_url": band.url + "/v1"}})
    # the hanging seat has its own 0.5 s; the others a minute, so a loaded machine cannot time them out
    team = TeamConfig(seat_timeout=60, seats={"drums": seat("GOOD"), "bass": seat("GARBAGE"),
                                             "chords": seat("HANG", timeout=0.5), "lead": seat("FAKER"),
                                             "pad": seat("NOTES")})
    emitter, events = Emitter(STUDIO), []
    emitter.subscribe(events.append)
    options = TeamOptions(seed=7, out_dir=str(tmp_path), compose={"bars": 16}, team=team, agents=agents)
    outcome = asyncio.run(compose_team("funk groove in E minor with a synth pad", options, emitter=emitter))

    assert events[-1]["type"] == "complete" and events[-1]["success"] is True
    assert all(r["status"] == "written" for r in outcome.sections) and not outcome.failed
    by_role: dict[str, list[dict[str, Any]]] = {}
    for r in outcome.sections:
        by_role.setdefault(r["role"], []).append(r)
    fallbacks = {role: {r["musician"]["fallback"] for r in records} for role, records in by_role.items()}
    assert fallbacks["drums"] == {None} and fallbacks["pad"] == {None}
    assert "garbage" in fallbacks["bass"] and fallbacks["bass"] <= {"garbage", "circuit open"}  # repeated garbage may open its breaker
    assert fallbacks["chords"] <= {"timeout", "circuit open"} and "timeout" in fallbacks["chords"]
    assert fallbacks["lead"] == {"fabricated"}
    assert {r["musician"]["backend"] for r in outcome.sections} == {"openai"}

    statuses = [e["message"] for e in events if e["type"] == "status"]
    assert any("the built-in musician plays this section" in m and "region-i-made-up" in m for m in statuses)
    assert any("no usable plan" in m for m in statuses), statuses
    # drift is corrected from the contract and said: the tempo of a plan, the bars of a call, a note past the end
    assert any("tempo=200" in w for w in outcome.warnings)
    assert any("bars=99" in w and "kept" in w for w in outcome.warnings)
    assert any("past the section" in w for w in outcome.warnings)
    assert set(events[-1]["warnings"]) <= set(outcome.warnings) and events[-1]["warnings"]
    # the pad's notes are the model's own; the drums played the model's words through the generator
    head = open_project(outcome.session_dir)
    proposal = head.variation(outcome.variation_id).proposal
    assert proposal is not None
    pad = next(t for t in proposal.tracks if t.role == "pad")
    assert {n.pitch for r in pad.regions for n in r.notes} == {72, 74}
    assert any(r.get("words") == "busier" for r in by_role["drums"])
    assert outcome.usage.input_tokens > 0
    [budget] = [e for e in events if e["type"] == "budgetUpdate"]  # the team's spend, said before complete
    assert budget["source"] == "team" and budget["usage"] == events[-1]["usage"] == outcome.usage.model_dump(
        mode="json", by_alias=True)


def test_a_team_file_gives_the_seats(band: Band, tmp_path: Path) -> None:
    from bandstand.producer.teams.seats import seats_for, team_config
    from bandstand.runtime import parse_team

    spec = parse_team("""
name = "funk-band"
leader = "coordinator"
[limits]
max_seconds = 90
turn_timeout = 7
max_parallel = 2
[members.coordinator]
persona = "You set the song up."
[members.bass]
persona = "GOOD You are GROOVE."
backend = "openai"
model = "local"
""")
    agents = AgentsConfig.model_validate({"openai": {"base_url": band.url + "/v1"}})
    team = team_config(agents, spec)
    assert (team.deadline, team.seat_timeout, team.max_parallel) == (90, 7, 2)
    seats = seats_for(("drums", "bass"), agents, team)
    assert seats["drums"].builtin and not seats["bass"].builtin
    assert seats["bass"].persona.startswith("GOOD") and seats["bass"].label == "openai:local"

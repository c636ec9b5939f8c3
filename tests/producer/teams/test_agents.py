"""A section agent checks its contract's whole lineage before it touches the project."""

from __future__ import annotations

from typing import Any

import pytest

from bandstand.agents.config import AgentsConfig, TeamConfig
from bandstand.producer.teams.agents import TeamRun, write_step
from bandstand.producer.teams.builtin import plan_part
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.coordinator import setup_project
from bandstand.producer.teams.safety import Deadline, Threads
from bandstand.producer.teams.seats import seats_for
from bandstand.producer.teams.signals import LocalSignals
from bandstand.producer.teams.stream import TeamStream
from bandstand.studio import SeededIds


def team() -> tuple[TeamRun, list[Any]]:
    setup = setup_project("funk groove in E minor", 7, {"bars": 24}, SeededIds(1))
    events: list[Any] = []
    stream = TeamStream(events.append)
    stream.steps = {write_step(r, s.index): "pending" for r in setup.roles for s in setup.contract.sections}
    run = TeamRun(setup, stream=stream, seats=seats_for(setup.roles, AgentsConfig(), TeamConfig()),
                  config=TeamConfig(), deadline=Deadline.after(30), signals=LocalSignals(), threads=Threads())
    return run, events


def tamper(contract: SectionContract, how: str) -> SectionContract:
    shape = contract.section
    return {
        "bars": contract.model_copy(update={"section": shape.model_copy(update={"bars": shape.bars * 2})}),
        "track": contract.model_copy(update={"track_id": "a-track-it-was-not-given"}),
        "tempo": contract.model_copy(update={"tempo": contract.tempo + 1}),
    }[how]


@pytest.mark.parametrize("how", ["bars", "track", "tempo"])
async def test_a_tampered_section_contract_is_refused_before_anything_is_written(how: str) -> None:
    run, events = team()
    instrument = InstrumentContract.derive(run.song, "bass", run.setup.part_seed("bass"))
    shape = run.song.sections[1]
    honest = SectionContract.derive(instrument, shape)
    before = run.working
    ok = await run.section(instrument, plan_part(run.setup, instrument), shape, tamper(honest, how))
    assert ok is False and run.working is before
    assert run.records[-1]["status"] == "refused" and "sealed" in run.records[-1]["error"]
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Preflight", "Status", "PlanStepUpdate", "AgentComplete"]
    assert "refused its contract" in events[1].message
    assert events[2].status == "skipped" and events[3].success is False


async def test_a_contract_resealed_for_another_instrument_is_refused() -> None:
    run, _ = team()
    bass = InstrumentContract.derive(run.song, "bass", run.setup.part_seed("bass"))
    chords = InstrumentContract.derive(run.song, "chords", run.setup.part_seed("chords"))
    shape = run.song.sections[1]
    forged = SectionContract.derive(chords, shape)  # well sealed, but not the bass's
    ok = await run.section(bass, plan_part(run.setup, bass), shape, forged)
    assert ok is False and "descends from" in run.records[-1]["error"]


async def test_an_honest_contract_is_written() -> None:
    run, _ = team()
    drums = InstrumentContract.derive(run.song, "drums", run.setup.part_seed("drums"))
    shape = run.song.sections[1]
    assert await run.section(drums, plan_part(run.setup, drums), shape) is True
    track = run.working.track_by_id(drums.track_id)
    assert len(track.regions) == 1 and track.regions[0].start_beat == shape.start_beat
    assert run.records[-1]["notes"] == len(track.regions[0].notes) > 0

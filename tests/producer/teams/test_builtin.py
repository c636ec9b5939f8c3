"""The built-in musicians, one section at a time: deterministic, inside their section, and a
bass that hears the drums locks to the kicks they played."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from bandstand.producer.teams.builtin import plan_part, section_situation, write_section
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.coordinator import SongSetup, setup_project
from bandstand.producer.teams.signals import drum_signal
from bandstand.studio import SeededIds


@cache
def funk() -> SongSetup:
    return setup_project("funk groove in E minor with a synth pad", 7, {}, SeededIds(1))


def section(setup: SongSetup, role: str, index: int) -> tuple[InstrumentContract, SectionContract]:
    instrument = InstrumentContract.derive(setup.contract, role, setup.part_seed(role))
    return instrument, SectionContract.derive(instrument, setup.contract.sections[index])


def test_the_coordinator_plans_what_compose_plans(tmp_path: Path) -> None:
    from bandstand.producer.composing.compose import compose_song

    setup = funk()
    assert setup.roles == ("drums", "bass", "chords", "lead", "pad")
    plain = compose_song("funk groove in E minor with a synth pad", seed=7, out_dir=str(tmp_path), render_audio=False,
                         skip_stages=["output"]).result
    assert plain.intent.tempo == setup.intent.tempo and plain.intent.key == setup.harmony.key
    assert [s["name"] for s in plain.summary()["sections"]] == [s.name for s in setup.contract.sections]


def test_a_section_situation_plays_only_that_section() -> None:
    setup = funk()
    sit = section_situation(setup.situation, 3)
    assert {b.section for b in sit.active("drums")} == {3}
    assert len(sit.bars) == len(setup.situation.bars)


def test_a_section_is_written_inside_its_beats_and_the_same_every_time() -> None:
    setup = funk()
    instrument, contract = section(setup, "chords", 3)
    plan = plan_part(setup, instrument)
    part = write_section(setup, plan, contract)
    assert part.notes and all(0 <= n.start < contract.beats for n in part.notes)
    assert write_section(setup, plan_part(setup, instrument), contract) == part
    other = write_section(setup, plan, section(setup, "chords", 5)[1])
    assert other.notes != part.notes


def kick_cover(setup: SongSetup, index: int, locked: bool) -> float:
    drums, drum_section = section(setup, "drums", index)
    bass, bass_section = section(setup, "bass", index)
    played = write_section(setup, plan_part(setup, drums), drum_section)
    signal = drum_signal(drum_section.section.name, played.notes, drum_section.bars, 4.0, 16)
    part = write_section(setup, plan_part(setup, bass), bass_section, signal if locked else None)
    assert part.locked_to == ("drums" if locked else "")
    kicks = {(bar, step) for bar, hits in enumerate(signal.kicks) for step, _ in hits}
    onsets = {divmod(round(n.start / 0.25), 16) for n in part.notes}
    return len(kicks & onsets) / len(kicks)


def test_a_bass_that_hears_the_drums_plays_on_more_of_their_kicks() -> None:
    setup = funk()
    locked = [kick_cover(setup, i, True) for i in (1, 3, 4)]
    guessing = [kick_cover(setup, i, False) for i in (1, 3, 4)]
    assert sum(locked) > sum(guessing)
    assert min(locked) >= 0.75

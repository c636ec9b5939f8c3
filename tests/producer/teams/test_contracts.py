"""Contracts: sealed, frozen, fingerprinted over their structure only; tampering is refused,
an LLM's structural drift is corrected and reported."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bandstand.errors import ContractMismatch
from bandstand.producer.teams.contracts import (
    InstrumentContract,
    SectionContract,
    SectionShape,
    SongContract,
    TrackShape,
    fingerprint_of,
    reconcile,
)

VERSE = SectionShape(index=0, name="Verse", kind="verse", start_bar=1, bars=8, start_beat=0, beats=32, energy=0.5,
                     roles=("drums", "bass"))
CHORUS = SectionShape(index=1, name="Chorus", kind="chorus", start_bar=9, bars=8, start_beat=32, beats=32,
                      energy=0.9, roles=("drums", "bass"))


def song(**changes: object) -> SongContract:
    fields = dict(seed=1, tempo=96.0, key="A", mode="minor", time_signature=(4, 4), beats_per_bar=4.0, total_bars=16,
                  sections=(VERSE, CHORUS), tracks=(TrackShape(track_id="t-drums", role="drums", drum_kit=0),
                                                    TrackShape(track_id="t-bass", role="bass", program=33)),
                  title="a song", prompt="funk")
    fields.update(changes)
    return SongContract.seal(**fields)


def test_a_sealed_contract_verifies_and_its_lineage_holds() -> None:
    s = song()
    bass = InstrumentContract.derive(s, "bass", 42)
    verse = SectionContract.derive(bass, VERSE)
    assert verse.verify_against(bass, s) is verse
    assert bass.parent == s.fingerprint and verse.parent == bass.fingerprint and verse.song == s.fingerprint
    assert bass.sections == (0, 1) and verse.track_id == "t-bass"


def test_contracts_are_frozen() -> None:
    s = song()
    with pytest.raises(ValidationError):
        s.tempo = 120.0  # type: ignore[misc]


def test_advisory_text_is_not_in_the_fingerprint_but_structure_is() -> None:
    s = song()
    assert song(title="another name", prompt="another brief").fingerprint == s.fingerprint
    renamed = (TrackShape(track_id="t-drums", role="drums", drum_kit=0, name="Kit", colour="#ffffff"),
               TrackShape(track_id="t-bass", role="bass", program=33, name="Low end"))
    assert song(tracks=renamed).fingerprint == s.fingerprint
    assert song(tempo=97.0).fingerprint != s.fingerprint
    assert song(sections=(VERSE, CHORUS.model_copy(update={"bars": 4}))).fingerprint != s.fingerprint
    bass = InstrumentContract.derive(s, "bass", 42)
    assert InstrumentContract.derive(s, "bass", 42, persona="You are GROOVE", brief="late night").fingerprint == \
        bass.fingerprint
    assert InstrumentContract.derive(s, "bass", 43).fingerprint != bass.fingerprint


def test_a_tampered_contract_is_refused() -> None:
    s = song()
    bass = InstrumentContract.derive(s, "bass", 42)
    verse = SectionContract.derive(bass, VERSE)
    longer = verse.model_copy(update={"section": VERSE.model_copy(update={"bars": 16})})
    with pytest.raises(ContractMismatch, match="changed after it was sealed"):
        longer.verify_against(bass, s)
    with pytest.raises(ValidationError, match="fingerprint does not match"):
        SectionContract.model_validate({**verse.model_dump(), "tempo": 120.0})


def test_a_contract_from_another_lineage_is_refused() -> None:
    s, other = song(), song(tempo=120.0)
    bass, foreign = InstrumentContract.derive(s, "bass", 42), InstrumentContract.derive(other, "bass", 42)
    verse = SectionContract.derive(foreign, VERSE)
    with pytest.raises(ContractMismatch, match="descends from"):
        verse.verify_against(bass, s)
    drums = InstrumentContract.derive(s, "drums", 7)
    with pytest.raises(ContractMismatch, match="descends from"):
        SectionContract.derive(drums, VERSE).verify_against(bass, s)


def test_a_section_the_instrument_does_not_play_is_refused() -> None:
    lone = SectionShape(index=2, name="Break", kind="bridge", start_bar=17, bars=4, start_beat=64, beats=16, energy=0.3,
                        roles=("drums",))
    s = song(sections=(VERSE, CHORUS, lone), total_bars=20)
    bass = InstrumentContract.derive(s, "bass", 42)
    with pytest.raises(ContractMismatch, match="not one bass plays"):
        SectionContract.derive(bass, lone).verify_against(bass, s)


def test_drift_is_corrected_from_the_contract_and_reported() -> None:
    verse = SectionContract.derive(InstrumentContract.derive(song(), "bass", 42), VERSE)
    corrected, warnings = reconcile(verse, {"bars": 12, "key": "a", "tempo": 96, "style": "busy", "section": "Chorus"})
    assert corrected == {"bars": 8, "key": "A", "tempo": 96.0, "style": "busy", "section": "Verse"}
    assert len(warnings) == 2
    assert "bars=12" in warnings[0] and "says 8" in warnings[0] and "section='Chorus'" in warnings[1]
    assert reconcile(verse, {"bars": 8}) == ({"bars": 8}, [])


names = st.text(min_size=1, max_size=20)


@given(title=names, prompt=names, colour=st.sampled_from(["#000000", "#123abc", None]))
def test_the_fingerprint_ignores_any_advisory_text(title: str, prompt: str, colour: str | None) -> None:
    tracks = (TrackShape(track_id="t-drums", role="drums", drum_kit=0, name=title, colour=colour),
              TrackShape(track_id="t-bass", role="bass", program=33, name=prompt))
    assert song(title=title, prompt=prompt, tracks=tracks).fingerprint == song().fingerprint


@given(tempo=st.floats(min_value=40, max_value=240, allow_nan=False), bars=st.integers(min_value=1, max_value=64))
def test_the_fingerprint_follows_the_structure(tempo: float, bars: int) -> None:
    changed = song(tempo=tempo, sections=(VERSE.model_copy(update={"bars": bars}), CHORUS))
    same = round(tempo, 6) == 96.0 and bars == 8
    assert (changed.fingerprint == song().fingerprint) == same
    assert fingerprint_of(changed) == changed.fingerprint

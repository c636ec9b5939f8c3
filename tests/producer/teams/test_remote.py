"""A section job written elsewhere (`remote.perform`): the request survives its JSON round trip,
the contracts are verified against the rebuilt setup, the worker's own seat writes it — and a
seat that fabricates ids or answers garbage falls back to the built-in musician for that
section, saying which fallback in the reply."""

from __future__ import annotations

from pathlib import Path

from bandstand.agents.config import AgentsConfig, TeamConfig
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.remote import SectionReply, SectionRequest, perform, rebuild

from .test_seats import Band, band, seat  # noqa: F401 - the peer's fixture

PROMPT, SEED, OPTIONS = "funk groove in E minor with a synth pad", 7, {"bars": 8}


def request(role: str = "bass") -> SectionRequest:
    setup = rebuild(PROMPT, SEED, OPTIONS)
    instrument = InstrumentContract.derive(setup.contract, role, setup.part_seed(role))
    shape = next(s for s in setup.contract.sections if role in s.roles)
    return SectionRequest(PROMPT, SEED, OPTIONS, instrument, SectionContract.derive(instrument, shape),
                          region_id="region-given")


def test_a_request_and_its_reply_survive_the_wire() -> None:
    asked = request()
    assert SectionRequest.from_json(asked.to_json()) == asked
    reply = perform(asked, where="here")
    assert reply.error is None and reply.part is not None and reply.part.notes
    assert reply.musician == {"backend": "builtin", "model": None, "persona": "", "fallback": None}
    back = SectionReply.from_json(reply.to_json())
    assert back.part == reply.part and back.where == "here"


def test_a_contract_from_another_song_is_refused() -> None:
    asked = request()
    other = rebuild("dark trap", SEED, OPTIONS)  # the same role and section index under another song
    foreign = InstrumentContract.derive(other.contract, "bass", other.part_seed("bass"))
    shape = next(s for s in other.contract.sections if "bass" in s.roles)
    forged = SectionRequest(PROMPT, SEED, OPTIONS, foreign, SectionContract.derive(foreign, shape))
    reply = perform(forged)
    assert reply.part is None and reply.error is not None and reply.error.startswith("contract refused")
    assert perform(asked).part is not None
    unplannable = SectionRequest(PROMPT, SEED, {"bars": 8, "genre": "no-such-genre-anywhere"}, asked.instrument,
                                 asked.contract)
    reply = perform(unplannable)
    assert reply.part is None and reply.error is not None and "cannot set the song up here" in reply.error


def test_the_workers_own_seats_write_and_fall_back_per_section(band: Band, tmp_path: Path) -> None:  # noqa: F811
    agents = AgentsConfig.model_validate({"openai": {"base_url": band.url + "/v1"}})
    team = TeamConfig(seat_timeout=5, seats={"bass": seat("FAKER"), "pad": seat("NOTES"), "chords": seat("GARBAGE")})
    faked = perform(request("bass"), agents=agents, team=team, where="w1")
    assert faked.musician["backend"] == "openai" and faked.musician["fallback"] == "fabricated"
    assert faked.part is not None and faked.part.notes == perform(request("bass")).part.notes  # type: ignore[union-attr]
    garbage = perform(request("chords"), agents=agents, team=team)
    assert garbage.musician["fallback"] == "garbage" and garbage.part is not None
    own = perform(request("pad"), agents=agents, team=team)
    assert own.musician["fallback"] is None and own.part is not None
    assert {n.pitch for n in own.part.notes} == {72, 74} and any("past the section" in w for w in own.warnings)

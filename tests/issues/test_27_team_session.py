"""Issue 27: a team run's contracts and execution hashes are bound to the session, not only to
the prompt and seed — two sessions of the same prompt and seed share track ids and notes but
not fingerprints, and a contract (or a board reply) replayed from another session is refused
with a line naming the sessions, while the section is written nowhere."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bandstand.errors import ContractMismatch
from bandstand.producer.teams import TeamOptions, compose_team
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.remote import SectionReply, SectionRequest, perform, rebuild
from bandstand.producer.teams.safety import Deadline
from bandstand.protocol import STUDIO, Emitter

PROMPT, SEED, OPTIONS = "funk groove in E minor", 7, {"bars": 8}


def section_request(session: str, role: str = "bass") -> SectionRequest:
    setup = rebuild(PROMPT, SEED, OPTIONS, session)
    instrument = InstrumentContract.derive(setup.contract, role, setup.part_seed(role))
    shape = next(s for s in setup.contract.sections if role in s.roles)
    return SectionRequest(PROMPT, SEED, OPTIONS, instrument, SectionContract.derive(instrument, shape),
                          region_id="region-given", session=session)


def test_the_same_prompt_and_seed_in_two_sessions_seal_different_contracts() -> None:
    a, b = rebuild(PROMPT, SEED, OPTIONS, "session-a"), rebuild(PROMPT, SEED, OPTIONS, "session-b")
    assert [t.track_id for t in a.contract.tracks] == [t.track_id for t in b.contract.tracks]
    assert a.contract.fingerprint != b.contract.fingerprint
    ours = section_request("session-a")
    with pytest.raises(ContractMismatch, match="belongs to session 'session-a', not to 'session-b'"):
        ours.contract.verify_against(ours.instrument, b.contract)
    ours.contract.verify_against(ours.instrument, a.contract)  # its own session takes it


def test_a_section_job_replayed_into_another_session_is_refused_by_the_worker() -> None:
    ours = section_request("session-a")
    written = perform(ours)
    assert written.part is not None and written.contract == ours.contract.fingerprint
    replayed = replace(ours, session="session-b")  # the same contracts sent as another session's job
    reply = perform(SectionRequest.from_json(replayed.to_json()))
    assert reply.part is None and reply.error is not None
    assert reply.error.startswith("contract refused") and "belongs to session 'session-a'" in reply.error


class Replaying:
    """A board that answers every section with what was written for another session."""

    def __init__(self, replies: dict[tuple[str, int], SectionReply]) -> None:
        self.replies = replies
        self.asked: list[SectionRequest] = []

    async def write(self, request: SectionRequest, deadline: Deadline) -> SectionReply:
        del deadline
        self.asked.append(request)
        return self.replies[(request.contract.role, request.contract.section.index)]


class Recording:
    """A board whose worker is this process (`perform`), keeping each reply."""

    def __init__(self) -> None:
        self.replies: dict[tuple[str, int], SectionReply] = {}

    async def write(self, request: SectionRequest, deadline: Deadline) -> SectionReply:
        del deadline
        reply = await asyncio.to_thread(perform, request)
        self.replies[(request.contract.role, request.contract.section.index)] = reply
        return reply


def _team(tmp_path: Path, name: str, jobs: Any) -> tuple[Any, list[dict[str, Any]]]:
    emitter, events = Emitter(STUDIO), []
    emitter.subscribe(events.append)
    options = TeamOptions(seed=SEED, out_dir=str(tmp_path), session_dir=str(tmp_path / name), compose=OPTIONS,
                          jobs=jobs)
    try:
        outcome = asyncio.run(compose_team(PROMPT, options, emitter=emitter))
    except Exception:  # the stream says why; the test reads it
        outcome = None
    return outcome, events


def test_a_team_takes_no_reply_replayed_from_another_sessions_run(tmp_path: Path) -> None:
    board = Recording()
    first, events = _team(tmp_path, "session-one", board)
    assert first is not None and events[-1]["success"] is True, events[-1]
    assert board.replies and all(r.part is not None for r in board.replies.values())
    assert first.variation_id is not None

    replay = Replaying(board.replies)
    second, events = _team(tmp_path, "session-two", replay)
    assert replay.asked and {r.session for r in replay.asked} == {"session-two"}
    refusals = [e["message"] for e in events if e["type"] == "status" and "refused its contract" in e["message"]]
    assert len(refusals) == len(replay.asked), refusals
    assert all("the board's reply was written under contract" in m and "session-two" in m for m in refusals)
    assert events[-1]["success"] is False and events[-1]["error"]
    assert second is None or not second.sections or all(s["status"] != "written" for s in second.sections)

"""Section jobs that run elsewhere: what a section agent sends out and gets back.

When a team's sections are written on other machines (the batch board), the
section agent still verifies, waits for its drums, makes its region and adds
the notes — only the writing goes out, as a `SectionRequest`: the song's
prompt, seed and options (from which the worker rebuilds the very same setup,
compose's plan nodes being deterministic) and the session it is for (the
contracts are bound to it), the sealed instrument and section
contracts, the instrument's words per section, the drums' signal when the
bass waited for one, and the region it writes into. `perform` is the worker's
side: it rebuilds the setup, **verifies the contracts against it** (a request
tampered with on the way is refused, never written), and has the section
written by its own seat for that role, else the built-in musician. The
`SectionReply` carries the notes back with the fingerprint of the contract
they were written under (the team takes only a reply to its own contract, so a
reply replayed from another session is refused), or the reason it could not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bandstand.agents.config import AgentsConfig, TeamConfig
from bandstand.errors import ContractMismatch
from bandstand.producer.teams.builtin import SectionPart, plan_part, write_section
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.coordinator import SongSetup, setup_project
from bandstand.producer.teams.safety import Deadline
from bandstand.producer.teams.seats import Seat, SeatFailed, SeatWrite, seats_for
from bandstand.producer.teams.signals import DrumSignal
from bandstand.score import ControlChange, Note, PitchBend
from bandstand.studio import SeededIds

__all__ = ["SectionJobs", "SectionReply", "SectionRequest", "perform", "rebuild"]


@dataclass(frozen=True, slots=True)
class SectionRequest:
    prompt: str
    seed: int
    song_options: Mapping[str, Any]
    instrument: InstrumentContract
    contract: SectionContract
    words: tuple[tuple[str, str], ...] = ()
    signal: DrumSignal | None = None
    region_id: str = ""
    session: str = ""

    def to_json(self) -> str:
        return json.dumps({"prompt": self.prompt, "seed": self.seed, "session": self.session,
                           "song_options": dict(self.song_options),
                           "instrument": self.instrument.model_dump(mode="json"),
                           "contract": self.contract.model_dump(mode="json"), "words": [list(w) for w in self.words],
                           "signal": self.signal.to_dict() if self.signal is not None else None,
                           "region_id": self.region_id}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SectionRequest:
        """Parse a request (a contract whose fingerprint does not match its fields fails here)."""
        data = json.loads(text)
        return cls(prompt=data["prompt"], seed=int(data["seed"]), song_options=dict(data["song_options"]),
                   instrument=InstrumentContract.model_validate(data["instrument"]),
                   contract=SectionContract.model_validate(data["contract"]),
                   words=tuple((str(a), str(b)) for a, b in data["words"]),
                   signal=DrumSignal.from_dict(data["signal"]) if data.get("signal") else None,
                   region_id=str(data.get("region_id", "")), session=str(data.get("session", "")))


@dataclass(frozen=True, slots=True)
class SectionReply:
    """The notes a worker wrote for a section (relative to its start), who wrote them, or why not."""

    part: SectionPart | None
    musician: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    error: str | None = None
    where: str = ""
    contract: str = ""
    """The fingerprint of the section contract the notes were written under."""

    def to_json(self) -> str:
        part = self.part
        body = None if part is None else {
            "notes": [[n.start, n.duration, n.pitch, n.velocity] for n in part.notes],
            "controls": [[c.time, c.control, c.value] for c in part.controls],
            "bends": [[b.time, b.value] for b in part.bends], "style": part.style, "locked_to": part.locked_to}
        return json.dumps({"part": body, "musician": dict(self.musician), "warnings": list(self.warnings),
                           "error": self.error, "where": self.where, "contract": self.contract})

    @classmethod
    def from_json(cls, text: str) -> SectionReply:
        data = json.loads(text)
        body = data.get("part")
        part = None if body is None else SectionPart(
            notes=tuple(Note(float(s), float(d), int(p), int(v)) for s, d, p, v in body["notes"]),
            controls=tuple(ControlChange(float(t), int(c), int(v)) for t, c, v in body["controls"]),
            bends=tuple(PitchBend(float(t), int(v)) for t, v in body["bends"]), style=str(body.get("style", "")),
            locked_to=str(body.get("locked_to", "")))
        return cls(part=part, musician=dict(data.get("musician") or {}), warnings=tuple(data.get("warnings") or ()),
                   error=data.get("error"), where=str(data.get("where", "")),
                   contract=str(data.get("contract", "")))


class SectionJobs(Protocol):
    """Where a team sends its sections to be written (see the module docstring)."""

    async def write(self, request: SectionRequest, deadline: Deadline) -> SectionReply: ...


_SETUPS: OrderedDict[str, SongSetup] = OrderedDict()


def rebuild(prompt: str, seed: int, song_options: Mapping[str, Any], session: str = "") -> SongSetup:
    """The song's setup as its coordinator made it in `session` (kept for the next sections of the
    same song)."""
    key = json.dumps([prompt, seed, dict(song_options), session], sort_keys=True)
    if key not in _SETUPS:
        _SETUPS[key] = setup_project(prompt, seed, song_options, SeededIds(f"team:{seed}:{prompt}"), session)
        while len(_SETUPS) > 8:
            _SETUPS.popitem(last=False)
    _SETUPS.move_to_end(key)
    return _SETUPS[key]


async def _ask(seat: Seat, request: SectionRequest) -> SeatWrite:
    try:
        return await seat.write(request.contract, request.region_id, {"your_plan": dict(request.words)},
                                seat.timeout)
    finally:
        closer = getattr(seat.backend, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()


def perform(request: SectionRequest, *, agents: AgentsConfig | None = None, team: TeamConfig | None = None,
            where: str = "") -> SectionReply:
    """Write the requested section here (see the module docstring); never raises for the request's
    own faults — a refused contract or a failed writer is the reply's `error`."""
    try:
        setup = rebuild(request.prompt, request.seed, request.song_options, request.session)
    except Exception as exc:  # options this machine cannot plan: the request's fault, said in the reply
        return SectionReply(None, error=f"cannot set the song up here: {type(exc).__name__}: {exc}", where=where)
    try:
        request.contract.verify_against(request.instrument, setup.contract)
    except ContractMismatch as exc:
        return SectionReply(None, error=f"contract refused: {exc}", where=where)
    agents, team = agents or AgentsConfig(), team or TeamConfig()
    seat = seats_for((request.contract.role,), agents, team)[request.contract.role]
    plan = plan_part(setup, request.instrument, request.words)
    musician: dict[str, Any] = seat.record() | {"fallback": None}
    warnings: tuple[str, ...] = ()
    try:
        if not seat.builtin:
            try:
                said = asyncio.run(_ask(seat, request))
            except SeatFailed as exc:
                musician["fallback"] = exc.kind
            else:
                warnings = said.warnings
                if said.notes is not None:
                    return SectionReply(SectionPart(notes=said.notes, style="written by the model"), musician,
                                        warnings, where=where, contract=request.contract.fingerprint)
                plan = plan_part(setup, request.instrument, [*request.words, (request.contract.section.name,
                                                                              said.words)])
        part = write_section(setup, plan, request.contract, request.signal)
    except Exception as exc:  # the writer failed: this section's job fails, nothing else
        return SectionReply(None, musician, warnings, error=f"{type(exc).__name__}: {exc}", where=where)
    return SectionReply(part, musician, warnings, where=where, contract=request.contract.fingerprint)

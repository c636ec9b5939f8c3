"""Seats: who plays each instrument of an agent team.

A seat is built-in (the craft's musician, offline and deterministic) or a
language model on a backend with a persona. Seats come from the ``[agents.team]``
table (`TeamConfig.seats`, by role) or from a team file (`runtime.TeamSpec`:
members named after roles become seats; its limits become the team's).

An LLM seat plans its part by answering, per section, how it plays there
(style words the request parser reads: "busier", "darker", "half time"…),
and writes a section by calling one of two studio tools on the region it is
given: `add_notes` (the notes themselves) or `generate_part` (the band's
generator, played in the style words it names). Whatever it says is checked:
a reply that is not usable (garbage), a call on an id it was not given
(fabricated), or a turn that passes its deadline raises `SeatFailed`, and the
caller falls back to the built-in musician for that section. Structural
values it echoes (bars, key, tempo, section) are corrected from the contract
and returned as warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.agents.base import AgentBackend, ToolSpec, Usage
from bandstand.agents.config import AgentsConfig, SeatConfig, TeamConfig
from bandstand.agents.registry import make_backend
from bandstand.errors import AgentError, RuntimeFailure, TurnTimeout
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract, reconcile
from bandstand.runtime import Session, SessionLimits, TeamSpec
from bandstand.score import Note

__all__ = ["BUILTIN", "PlanReply", "Seat", "SeatFailed", "SeatPlan", "SeatWrite", "seats_for", "team_config"]

BUILTIN = "algorithmic"
PLAN_PROTOCOL = (
    "You play one instrument in a band that is writing a song together. The structure is fixed "
    "(sections, bars, key, tempo); you decide how you play. Reply with one JSON object: "
    '{"sections": {"<section name>": "<a few style words: busier, sparser, darker, brighter, half time, '
    'laid back…>"}, "summary": "<one sentence>"}.'
)
WRITE_PROTOCOL = (
    "Write your part for one section by calling a tool on the region you are given: add_notes with the "
    "notes (start in beats from the region's start), or generate_part with style words for the band's "
    "generator. Use only the ids you are given."
)


class SeatFailed(RuntimeFailure):
    """An LLM seat's turn was not usable: timed out, garbage, or calls on ids it was not given."""

    def __init__(self, message: str, *, kind: str, **context: Any) -> None:
        self.kind = kind
        super().__init__(message, kind=kind, **context)


class PlanReply(BaseModel):
    """What an LLM seat answers when it plans its part."""

    model_config = ConfigDict(extra="forbid")

    sections: dict[str, str] = Field(default_factory=dict, max_length=64)
    summary: str = Field(default="", max_length=2000)
    key: str | None = None
    tempo: float | None = None


@dataclass(frozen=True, slots=True)
class SeatPlan:
    words: tuple[tuple[str, str], ...]
    summary: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatWrite:
    """A section as a seat wrote it: its own notes (relative to the region), or style words for
    the generator (`words`), with the warnings its drift earned."""

    notes: tuple[Note, ...] | None
    words: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(slots=True)
class Seat:
    role: str
    backend_name: str = BUILTIN
    persona: str = ""
    model: str | None = None
    timeout: float = 60.0
    backend: AgentBackend | None = None
    usage: Usage = field(default_factory=Usage)

    @property
    def builtin(self) -> bool:
        return self.backend is None

    @property
    def label(self) -> str:
        if self.builtin:
            return "builtin"
        return f"{self.backend_name}:{self.model}" if self.model else self.backend_name

    def record(self) -> dict[str, Any]:
        return {"backend": "builtin" if self.builtin else self.backend_name, "model": self.model,
                "persona": self.persona}

    # ------------------------------------------------------------------ the plan

    async def plan(self, contract: InstrumentContract, song: Mapping[str, Any], timeout: float) -> SeatPlan:
        """Ask the model how it plays each section; `SeatFailed` when it cannot say."""
        assert self.backend is not None
        data = {"you_play": contract.role, "song": song, "brief": contract.brief,
                "sections_you_play": [s["name"] for s in song["sections"] if s["index"] in contract.sections]}
        started = False
        try:
            async with self._session(f"{contract.role}-plan", timeout) as session:
                started = True
                verdict = await session.ask(data, PlanReply, fallback=PlanReply(), timeout=timeout)
                self.usage = self.usage + session.usage
        except (AgentError, TimeoutError) as exc:  # a session that did not start in its time is a timeout
            raise SeatFailed(f"{self.label}: {exc or 'no answer in time'}",
                             kind="timeout" if not started or isinstance(exc, TurnTimeout | TimeoutError)
                             else "failed") from None
        if verdict.fallback:
            raise SeatFailed(f"{self.label} gave no usable plan ({verdict.reason}: {verdict.error})",
                             kind="timeout" if verdict.reason == "timeout" else "garbage")
        reply = verdict.value
        names = {s["name"]: s["index"] for s in song["sections"]}
        warnings = []
        words = []
        for name, text in reply.sections.items():
            if names.get(name) not in contract.sections:
                warnings.append(f"{contract.role}: the model planned section {name!r}, which it does not play "
                                "(ignored)")
                continue
            words.append((name, text.strip()[:200]))
        if reply.key is not None and reply.key.split()[:1] != [contract.key] and \
                reply.key.strip().casefold() not in (contract.key.casefold(), f"{contract.key} {contract.mode}".casefold()):
            warnings.append(f"{contract.role}: the model planned key={reply.key!r}; the contract says "
                            f"'{contract.key} {contract.mode}' (kept it)")
        if reply.tempo is not None and abs(reply.tempo - contract.tempo) > 1e-6:
            warnings.append(f"{contract.role}: the model planned tempo={reply.tempo:g}; the contract says "
                            f"{contract.tempo:g} (kept {contract.tempo:g})")
        return SeatPlan(tuple(words), reply.summary.strip(), tuple(warnings))

    # ------------------------------------------------------------------ a section

    async def write(self, contract: SectionContract, region_id: str, context: Mapping[str, Any],
                    timeout: float) -> SeatWrite:
        """Ask the model for the section; `SeatFailed` when its answer cannot be used."""
        from bandstand.studio.tools import TOOLS

        assert self.backend is not None
        specs = [ToolSpec(t["name"], t["description"], t["parameters"])
                 for t in (TOOLS.get(n).schema() for n in ("add_notes", "generate_part"))]
        shape = contract.section
        data = {"role": contract.role, "track_id": contract.track_id, "region_id": region_id,
                "section": shape.name, "start_bar": shape.start_bar, "bars": shape.bars, "beats": shape.beats,
                "key": f"{contract.key} {contract.mode}", "tempo": contract.tempo,
                "time_signature": f"{contract.time_signature[0]}/{contract.time_signature[1]}", **context}
        started = False
        try:
            async with self._session(f"{contract.role}-{shape.index}", timeout, WRITE_PROTOCOL) as session:
                started = True
                try:
                    turn = await session.send(data, tools=specs, tool_choice="required", timeout=timeout)
                finally:
                    self.usage = self.usage + session.usage
        except (AgentError, TimeoutError) as exc:  # a session that did not start in its time is a timeout
            raise SeatFailed(f"{self.label}: {exc or 'no answer in time'}",
                             kind="timeout" if not started or isinstance(exc, TurnTimeout | TimeoutError)
                             else "failed") from None
        return read_calls(contract, region_id, turn.tool_calls, self.label)

    def _session(self, name: str, timeout: float, protocol: str = PLAN_PROTOCOL) -> Session:
        assert self.backend is not None
        options = {"model": self.model} if self.model else {}
        return Session(self.backend, name=name, persona=f"{self.persona}\n\n{protocol}".strip(), options=options,
                       limits=SessionLimits(turn_timeout=timeout, start_timeout=timeout, max_consecutive_failures=2))


def read_calls(contract: SectionContract, region_id: str, calls: Any, label: str) -> SeatWrite:
    """A seat's tool calls for one section, checked: garbage and fabricated ids raise `SeatFailed`,
    structural drift becomes warnings."""
    from bandstand.studio.tools.params import AddNotes, GeneratePart

    if not calls:
        raise SeatFailed(f"{label} called no tool for {contract.describe()}", kind="garbage")
    warnings: list[str] = []
    notes: list[Note] = []
    words: list[str] = []
    beats = contract.section.beats
    for call in calls:
        if call.error:
            raise SeatFailed(f"{label}: {call.error}", kind="garbage")
        args = dict(call.arguments)
        try:
            if call.name == "add_notes":
                params = AddNotes.model_validate(args)
            elif call.name == "generate_part":
                gp = GeneratePart.model_validate(args)
            else:
                raise SeatFailed(f"{label} called {call.name}, which it was not offered", kind="garbage")
        except ValidationError as exc:
            raise SeatFailed(f"{label}: {call.name} with unusable arguments ({exc.errors()[0]['msg']})",
                             kind="garbage") from None
        if call.name == "add_notes":
            if params.region != region_id:
                raise SeatFailed(f"{label} wrote to region {params.region!r}; it was given {region_id!r}",
                                 kind="fabricated")
            for n in params.notes:
                if n.start >= beats:
                    warnings.append(f"{contract.describe()}: a note at beat {n.start:g} lies past the section's "
                                    f"{beats:g} beats (dropped)")
                    continue
                notes.append(Note(n.start, min(n.duration, 64.0), n.pitch, n.velocity))
        else:
            if gp.track is not None and gp.track != contract.track_id:
                raise SeatFailed(f"{label} asked for track {gp.track!r}; its track is {contract.track_id!r}",
                                 kind="fabricated")
            reported = {"bars": gp.bars, "key": gp.key, "start_bar": gp.start_bar, "section": gp.section}
            if gp.key is not None:
                reported["key"] = gp.key.split()[0]
            _, drift = reconcile(contract, reported)
            if gp.role.strip().lower() != contract.role:
                drift.append(f"{contract.describe()}: the model asked for role {gp.role!r}; the contract says "
                             f"{contract.role!r} (kept {contract.role!r})")
            warnings += drift
            words.append(gp.style or "")
    return SeatWrite(tuple(notes) if notes else None, ", ".join(w for w in words if w), tuple(warnings))


def team_config(agents: AgentsConfig, team_file: TeamSpec | None = None) -> TeamConfig:
    """The team's limits and seats: the ``[agents.team]`` table, with a team file's members (named
    after roles) and limits over it."""
    from bandstand.craft import ROLES

    team = agents.team
    if team_file is None:
        return team
    seats = dict(team.seats)
    for name, member in team_file.members.items():
        if name in ROLES:
            seats[name] = SeatConfig(backend=member.backend, persona=member.persona, model=member.model,
                                     options=dict(member.options))
    limits = team_file.limits
    return team.model_copy(update={
        "seats": seats, "deadline": limits.max_seconds or team.deadline,
        "seat_timeout": limits.turn_timeout or team.seat_timeout, "max_parallel": limits.max_parallel})


def seats_for(roles: tuple[str, ...], agents: AgentsConfig, team: TeamConfig,
              backends: Mapping[str, AgentBackend] | None = None) -> dict[str, Seat]:
    """A seat for every role: built-in, or a backend made from the configuration (with the seat's
    model and server); `backends` gives ready-made backends by role."""
    out: dict[str, Seat] = {}
    for role in roles:
        spec = team.seats.get(role, SeatConfig())
        kind = spec.backend or team.backend
        timeout = spec.timeout or team.seat_timeout
        given = (backends or {}).get(role)
        if given is None and kind == BUILTIN:
            out[role] = Seat(role, persona=spec.persona, timeout=timeout)
            continue
        backend = given if given is not None else make_backend(kind, _seat_config(agents, kind, spec))
        model = spec.model or _configured_model(agents, kind)
        out[role] = Seat(role, getattr(backend, "name", kind), spec.persona, model, timeout, backend)
    return out


def _section_of(kind: str) -> str:
    return {"claude-code": "claude_code"}.get(kind, kind)


def _seat_config(agents: AgentsConfig, kind: str, spec: SeatConfig) -> AgentsConfig:
    section = _section_of(kind)
    current = getattr(agents, section, None)
    if not isinstance(current, BaseModel):
        return agents
    changes = {k: v for k, v in {"model": spec.model, "base_url": spec.base_url, **spec.options}.items()
               if v is not None and k in type(current).model_fields}
    return agents.model_copy(update={section: current.model_copy(update=changes)})


def _configured_model(agents: AgentsConfig, kind: str) -> str | None:
    current = getattr(agents, _section_of(kind), None)
    model = getattr(current, "model", None)
    return str(model) if model else None

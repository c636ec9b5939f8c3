"""The agents of a team at work: one per instrument, one per section of each
instrument, and the mixer — around one working copy of the project.

`TeamRun` holds what they share: the song's setup and contract, the working
project (every change is a studio tool call applied under one lock, with the
agent's own seeded ids, so the result does not depend on who finished
first), the section signals, a circuit breaker per generator and per seat,
the section records for the manifest, and the stream.

An **instrument agent** derives its `InstrumentContract`, plans its part
(its seat's words, or the built-in plan) and starts its section agents. A
**section agent** verifies its contract's whole lineage before it touches the
project, waits for its section's drums when it locks to the kick (outside
the writing gate, so waiting never starves the drums), creates its region,
has the part written (its seat, else the built-in musician, through the
breaker), adds the notes, and — for the drums — signals the section. Any
failure ends only that agent's steps; the rest of the band plays on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from bandstand.agents.breaker import CircuitBreaker
from bandstand.agents.config import TeamConfig
from bandstand.errors import CircuitOpen, ContractMismatch, RuntimeFailure, ToolCallError
from bandstand.producer.sessions.tool_context import tool_context
from bandstand.producer.teams.builtin import (
    KICK_LOCKED,
    PartPlan,
    SectionPart,
    plan_part,
    write_section,
)
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract, SectionShape
from bandstand.producer.teams.coordinator import SongSetup, track_name
from bandstand.producer.teams.mixing import mix_calls
from bandstand.producer.teams.remote import SectionJobs, SectionRequest
from bandstand.producer.teams.safety import Deadline, Threads, guarded
from bandstand.producer.teams.seats import Seat, SeatFailed
from bandstand.producer.teams.signals import DrumSignal, SignalKey, Signals, drum_signal
from bandstand.producer.teams.stream import TeamStream
from bandstand.studio import Project
from bandstand.studio.ids import SeededIds
from bandstand.studio.tools import MAX_NOTES_PER_CALL, ToolCall, run_batch

__all__ = ["TeamRun", "Writer", "section_agent_id", "write_step"]

Writer = Callable[[SongSetup, PartPlan, SectionContract, DrumSignal | None], SectionPart]
"""Writes one section (the built-in musician: `builtin.write_section`)."""


def write_step(role: str, section: int) -> str:
    return f"write:{role}:{section}"


def section_agent_id(role: str, shape: SectionShape) -> str:
    return f"{role}/{shape.name}"


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TeamRun:
    """One song's team at work (see the module docstring)."""

    def __init__(self, setup: SongSetup, *, stream: TeamStream, seats: Mapping[str, Seat], config: TeamConfig,
                 deadline: Deadline, signals: Signals, threads: Threads, writer: Writer = write_section,
                 wait_for_drums: bool = True, jobs: SectionJobs | None = None,
                 song_options: Mapping[str, Any] | None = None) -> None:
        self.setup = setup
        self.song = setup.contract
        self.stream = stream
        self.seats = dict(seats)
        self.config = config
        self.deadline = deadline
        self.signals = signals
        self.threads = threads
        self.writer = writer
        self.wait_for_drums = wait_for_drums
        self.jobs = jobs
        self.song_options = dict(song_options or {})
        self.working: Project = setup.project
        self.lock = asyncio.Lock()
        self.gate = asyncio.Semaphore(config.max_parallel)
        self.breakers = {r: CircuitBreaker(threshold=3, cooldown=config.deadline, name=f"{r} generator")
                         for r in setup.roles}
        self.seat_breakers = {r: CircuitBreaker(threshold=2, cooldown=config.deadline, name=f"{r} seat")
                              for r in setup.roles}
        self.contracts: dict[str, str] = {"song": self.song.fingerprint}
        self.instruments: dict[str, InstrumentContract] = {}
        self.records: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.failed: list[str] = []

    # ------------------------------------------------------------------ the project

    async def apply(self, agent: str, step: str, section: str | None, call: ToolCall, label: str,
                    ids: SeededIds) -> dict[str, Any]:
        """Run one studio tool call on the working project, said as toolStart → toolCall (or toolError)."""
        self.stream.tool(agent, call.name, label, step_id=step, section=section)
        try:
            async with self.lock:
                outcome = run_batch(self.working, [call], ctx=tool_context(ids), mode="composing")
                self.working = outcome.project
        except ToolCallError as exc:
            self.stream.tool_error(agent, call.name, str(exc), step_id=step, section=section)
            raise
        result = outcome.results[0].result
        made = next((str(v) for k, v in result.items() if k.endswith("_id") and isinstance(v, str)), None)
        params = {k: (len(v) if k in ("notes", "events") else v) for k, v in outcome.calls[0].args.items()}
        self.stream.tool_done(agent, made or f"{agent}#{call.name}", call.name, params, step_id=step, section=section)
        return result

    # ------------------------------------------------------------------ instruments

    async def instrument(self, role: str) -> None:
        stream, seat, name = self.stream, self.seats[role], track_name(role)
        contract = InstrumentContract.derive(self.song, role, self.setup.part_seed(role), persona=seat.persona,
                                             brief=self.setup.prompt)
        self.contracts[role] = contract.fingerprint
        self.instruments[role] = contract
        steps = [f"plan:{role}", *(write_step(role, i) for i in contract.sections)]
        stream.preflight(role, role, f"{name}: plan the part, then {len(contract.sections)} sections "
                         f"({seat.label})", steps)
        try:
            stream.step(f"plan:{role}", "active")
            plan = await self.plan(role, contract, seat)
            stream.reasoning(role, plan.summary)
            stream.step(f"plan:{role}", "completed", result=plan.summary)
        except (Exception, TimeoutError) as exc:
            reason = "the deadline passed" if isinstance(exc, TimeoutError) else str(exc)
            stream.end_steps(steps, reason)
            stream.done(role, False, f"{name}: no plan ({reason})")
            self.failed.append(role)
            return
        results = await asyncio.gather(*(self.section(contract, plan, self.song.sections[i])
                                         for i in contract.sections))
        written = sum(results)
        stream.done(role, written == len(results), f"{name}: {written} of {len(results)} sections written")

    async def plan(self, role: str, contract: InstrumentContract, seat: Seat) -> PartPlan:
        if not seat.builtin:
            timeout = min(seat.timeout, self.deadline.remaining())
            try:
                said = await seat.plan(contract, self.song_brief(), timeout)
            except SeatFailed as exc:
                self.stream.status(role, f"{track_name(role)}: {exc}; the built-in musician plans the part")
            else:
                for warning in said.warnings:
                    self.warn(role, warning)
                plan = plan_part(self.setup, contract, said.words, musician=seat.label)
                return replace(plan, summary=said.summary or plan.summary)
        return plan_part(self.setup, contract)

    def song_brief(self) -> dict[str, Any]:
        s = self.song
        return {"key": f"{s.key} {s.mode}", "tempo": s.tempo, "time_signature": f"{s.time_signature[0]}/"
                f"{s.time_signature[1]}", "sections": [{"index": x.index, "name": x.name, "kind": x.kind,
                                                       "bars": x.bars, "energy": x.energy, "plays": list(x.roles)}
                                                      for x in s.sections]}

    def warn(self, agent: str, warning: str, section: str | None = None) -> None:
        self.warnings.append(warning)
        self.stream.status(agent, f"warning: {warning}", section)

    # ------------------------------------------------------------------ sections

    async def section(self, instrument: InstrumentContract, plan: PartPlan, shape: SectionShape,
                      contract: SectionContract | None = None) -> bool:
        """One section agent; True when its section was written."""
        role, stream = instrument.role, self.stream
        agent, step = section_agent_id(role, shape), write_step(role, shape.index)
        contract = contract or SectionContract.derive(instrument, shape)
        stream.preflight(agent, role, f"{track_name(role)} for {shape.name}: {shape.bars} bars", [step],
                         section=shape.name)
        record: dict[str, Any] = {"role": role, "section": shape.name, "index": shape.index, "contract":
                                  contract.fingerprint, "track_id": instrument.track_id, "status": "failed"}
        self.records.append(record)
        region: str | None = None
        ids = SeededIds(contract.fingerprint)
        try:
            contract.verify_against(instrument, self.song)  # before it touches anything
            self.contracts[agent] = contract.fingerprint
            stream.step(step, "active")
            signal = await self.drums_for(role, shape, agent, self.deadline, record)
            async with self.gate:
                deadline = self.deadline.child(self.config.section_timeout)  # its own clock starts now
                async with asyncio.timeout(deadline.remaining()):
                    made = await self.apply(agent, step, shape.name, ToolCall(name="add_midi_region", args={
                        "track": instrument.track_id, "start_beat": shape.start_beat, "length_beats": shape.beats,
                        "name": shape.name}), f"Create region {shape.name} on {track_name(role)}", ids)
                    region = str(made["region_id"])
                    part = await self.compose(contract, plan, signal, agent, step, region, deadline, record)
                    await self.add_part(agent, step, shape.name, region, part, ids)
            if role == "drums":
                await self.signals.publish(SignalKey(shape.index, self.song.fingerprint), drum_signal(
                    shape.name, part.notes, shape.bars, self.song.beats_per_bar, self.setup.situation.steps))
        except ContractMismatch as exc:
            stream.status(agent, f"refused its contract: {exc}", shape.name)
            return self._failed(agent, step, shape, record, f"contract refused: {exc}", refused=True)
        except (Exception, TimeoutError) as exc:
            reason = "the deadline passed" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {exc}" \
                if not isinstance(exc, CircuitOpen | ToolCallError) else str(exc)
            if region is not None:
                await self._remove(agent, step, shape.name, region, ids)
            return self._failed(agent, step, shape, record, reason)
        record.update(status="written", region_id=region, notes=len(part.notes), style=part.style,
                      locked_to=part.locked_to or None,
                      execution=_digest({"contract": contract.fingerprint, "session": self.song.session,
                                         "musician": record["musician"],
                                         "words": record.get("words"), "signal": record.get("signal_kick"),
                                         "notes": [(n.start, n.duration, n.pitch, n.velocity) for n in part.notes]}))
        stream.step(step, "completed", result=f"{len(part.notes)} notes")
        stream.done(agent, True, f"{track_name(role)} for {shape.name}: {len(part.notes)} notes", shape.name)
        return True

    def _failed(self, agent: str, step: str, shape: SectionShape, record: dict[str, Any], reason: str,
                refused: bool = False) -> bool:
        record.update(status="refused" if refused else "failed", error=reason)
        self.failed.append(agent)
        self.stream.end_steps([step], reason)
        self.stream.done(agent, False, f"{shape.name}: {reason}", shape.name)
        return False

    async def _remove(self, agent: str, step: str, section: str, region: str, ids: SeededIds) -> None:
        """Take an unfinished section's region out again (its step still fails)."""
        try:
            await self.apply(agent, step, section, ToolCall(name="delete_region", args={"region": region}),
                             f"Remove the unfinished region {section}", ids)
        except ToolCallError:
            return

    async def drums_for(self, role: str, shape: SectionShape, agent: str, deadline: Deadline,
                        record: dict[str, Any]) -> DrumSignal | None:
        """Wait for this section's drums when the part locks to the kick (a status says how it went)."""
        if role not in KICK_LOCKED or "drums" not in shape.roles or "drums" not in self.setup.roles:
            record["signal"] = "none"
            return None
        if not self.wait_for_drums:
            record["signal"] = "not waited for"
            return None
        timeout = min(self.config.signal_timeout, deadline.remaining())
        self.stream.status(agent, f"{track_name(role)} for {shape.name}: waiting for the drums' kick "
                           f"(up to {timeout:g} s)", shape.name)
        signal = await self.signals.wait(SignalKey(shape.index, self.song.fingerprint), timeout)
        if signal is None:
            record["signal"] = "timeout"
            self.stream.status(agent, f"{track_name(role)} for {shape.name}: no word from the drums after "
                               f"{timeout:g} s; playing on the groove's kick grid", shape.name)
            return None
        t = signal.telemetry
        record.update(signal="received", signal_kick=t.kick)
        self.stream.status(agent, f"{track_name(role)} for {shape.name}: locked to the drums — kick "
                           f"{t.kick or 'none'}, density {t.density:.2f}/beat, energy {t.energy:.2f}", shape.name)
        return signal

    async def compose(self, contract: SectionContract, plan: PartPlan, signal: DrumSignal | None, agent: str,
                      step: str, region: str, deadline: Deadline, record: dict[str, Any]) -> SectionPart:
        """The section's notes: from its seat when it has a usable answer, else the built-in musician."""
        role, shape, seat = contract.role, contract.section, self.seats[contract.role]
        record["musician"] = seat.record() | {"fallback": None}
        if self.jobs is not None:
            return await self.send_out(contract, plan, signal, agent, step, region, deadline, record)
        if not seat.builtin:
            breaker = self.seat_breakers[role]
            with self.stream.generator(agent, role, seat.label, bars=shape.bars, step_id=step,
                                       section=shape.name) as out:
                try:
                    breaker.before_call()
                    said = await seat.write(contract, region, self.section_brief(contract, plan, signal),
                                            min(seat.timeout, deadline.remaining()))
                    breaker.success()
                except (SeatFailed, CircuitOpen) as exc:
                    if isinstance(exc, SeatFailed):
                        breaker.failure()
                    kind = getattr(exc, "kind", "circuit open")
                    record["musician"]["fallback"] = kind
                    self.stream.status(agent, f"{seat.label} for {shape.name}: {exc}; the built-in musician "
                                       "plays this section", shape.name)
                else:
                    for warning in said.warnings:
                        self.warn(agent, warning, shape.name)
                    if said.notes is not None:
                        out["notes"] = len(said.notes)
                        return SectionPart(notes=tuple(sorted(said.notes, key=lambda n: (n.start, n.pitch))),
                                           style="written by the model")
                    record["words"] = said.words
                    plan = replace(plan, styles=plan_part(self.setup, self.instruments[role],
                                                          [*plan.words, (shape.name, said.words)]).styles)
        def failed(attempt: int, exc: BaseException) -> None:
            self.stream.status(agent, f"the {role} generator failed for {shape.name} (attempt {attempt}): "
                               f"{type(exc).__name__}: {exc}", shape.name)

        with self.stream.generator(agent, role, "builtin:" + role, bars=shape.bars, step_id=step,
                                   section=shape.name, style=record.get("words") or None) as out:
            part = await guarded(self.breakers[role], lambda: self.threads.run(
                self.writer, self.setup, plan, contract, signal), deadline=deadline, on_failure=failed)
            out["notes"] = len(part.notes)
        return part

    async def send_out(self, contract: SectionContract, plan: PartPlan, signal: DrumSignal | None, agent: str,
                       step: str, region: str, deadline: Deadline, record: dict[str, Any]) -> SectionPart:
        """Have the section written elsewhere (a board job) and take the notes it sends back."""
        shape = contract.section
        request = SectionRequest(self.setup.prompt, self.setup.seed, self.song_options, self.instruments[contract.role],
                                 contract, plan.words, signal, region, self.song.session)
        assert self.jobs is not None
        with self.stream.generator(agent, contract.role, f"board:{contract.role}", bars=shape.bars, step_id=step,
                                   section=shape.name) as out:
            reply = await self.jobs.write(request, deadline)
            if reply.part is None:
                raise RuntimeFailure(f"the section's job on the board failed: {reply.error}")
            if reply.contract != contract.fingerprint:  # a reply replayed from another session (or song)
                raise ContractMismatch(f"{contract.describe()}: the board's reply was written under contract "
                                       f"{reply.contract[:12] or '(none)'}, not this session's "
                                       f"{contract.fingerprint[:12]} ({self.song.session or 'no session'}); refused",
                                       fingerprint=contract.fingerprint)
            out["notes"] = len(reply.part.notes)
        record["musician"] = dict(reply.musician)
        record["where"] = reply.where
        self.stream.status(agent, f"{track_name(contract.role)} for {shape.name}: written by {reply.where}", shape.name)
        for warning in reply.warnings:
            self.warn(agent, warning, shape.name)
        return reply.part

    def section_brief(self, contract: SectionContract, plan: PartPlan, signal: DrumSignal | None) -> dict[str, Any]:
        bars = [b for b in self.setup.situation.bars if b.section == contract.section.index]
        brief: dict[str, Any] = {"chords": [b.chord.symbol for b in bars], "energy": contract.section.energy,
                                 "your_plan": dict(plan.words).get(contract.section.name, "")}
        if signal is not None:
            brief["drums"] = {"kick": signal.telemetry.kick, "density": round(signal.telemetry.density, 3),
                              "energy": round(signal.telemetry.energy, 3)}
        return brief

    async def add_part(self, agent: str, step: str, section: str, region: str, part: SectionPart,
                       ids: SeededIds) -> None:
        notes = [{"pitch": n.pitch, "start": round(n.start, 6), "duration": round(max(n.duration, 1e-3), 6),
                  "velocity": n.velocity} for n in part.notes]
        for i in range(0, len(notes), MAX_NOTES_PER_CALL):
            chunk = notes[i:i + MAX_NOTES_PER_CALL]
            await self.apply(agent, step, section, ToolCall(name="add_notes", args={"region": region, "notes": chunk}),
                             f"Add {len(chunk)} notes to {section}", ids)
        by_cc: dict[int, list[dict[str, Any]]] = {}
        for c in part.controls:
            by_cc.setdefault(c.control, []).append({"beat": round(c.time, 6), "value": c.value})
        for cc, events in sorted(by_cc.items()):
            await self.apply(agent, step, section, ToolCall(name="add_midi_cc", args={
                "region": region, "cc": cc, "events": events}), f"Add CC {cc} to {section}", ids)
        if part.bends:
            await self.apply(agent, step, section, ToolCall(name="add_pitch_bend", args={
                "region": region, "events": [{"beat": round(b.time, 6), "value": b.value} for b in part.bends]}),
                f"Add pitch bends to {section}", ids)

    # ------------------------------------------------------------------ the mix

    async def mix(self) -> None:
        agent, step, stream = "mixer", "mix", self.stream
        stream.preflight(agent, "mixer", "Mix: levels, pans, effects, sends and buses", [step])
        ids = SeededIds(f"mix:{self.song.fingerprint}")
        try:
            if self.deadline.passed:
                raise TimeoutError
            stream.step(step, "active")
            calls = mix_calls(self.setup.sound, self.working)
            for call in calls:
                await self.apply(agent, step, None, call, _mix_label(call), ids)
        except (Exception, TimeoutError) as exc:
            reason = "the deadline passed" if isinstance(exc, TimeoutError) else str(exc)
            stream.end_steps([step], reason)
            stream.done(agent, False, f"mix: {reason}")
            self.failed.append(agent)
            return
        stream.step(step, "completed", result=f"{len(calls)} mix calls")
        stream.done(agent, True, f"levels, pans and sends for {len(self.working.tracks)} tracks, "
                    f"{len(self.working.buses)} buses")


def _mix_label(call: ToolCall) -> str:
    a = call.args
    return {"ensure_bus": f"Set up shared {a.get('name')} bus", "set_track_volume": "Set level",
            "set_track_pan": "Set pan", "add_send": f"Send to {a.get('bus')}",
            "add_insert_effect": f"Add {a.get('type')}"}.get(call.name, call.name)

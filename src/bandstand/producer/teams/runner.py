"""Composing with a team, as a use case every client shares.

`run_team(prompt, options, emit=…)` runs the whole team and says everything
between a COMPOSING stream's `state` and its `complete`: the coordinator
plans the song and commits the setup (tempo, key, sections, tracks) as
revision 1 of a new session; the instrument agents and their section agents
write in parallel into a working copy; the mixer sets the mix; the result is
proposed as a **variation** against revision 1 (`meta → phrase* → done`) and
accepted only when `options.accept` says so — never an unreviewed write.

`compose_team(prompt, options, emit=…)` is the same run with the stream's
frame around it (`state` … `complete`, through a protocol `Emitter` when one
is given): what the CLI's `bandstand compose --team`, MCP and the batch
worker call. Cancelling the coroutine stops every agent and seat; nothing is
proposed and no thread or process outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bandstand.agents.base import AgentBackend, Usage
from bandstand.agents.config import AgentsConfig, TeamConfig
from bandstand.compose.api import (
    Plans,
    make_config,
    new_session_id,
    planned_state,
    write_state,
)
from bandstand.errors import InvalidInput, OutputNotWritable, RuntimeFailure
from bandstand.producer.sessions.tool_context import tool_context
from bandstand.producer.teams.agents import TeamRun, Writer, section_agent_id, write_step
from bandstand.producer.teams.builtin import write_section
from bandstand.producer.teams.coordinator import Planned, plan_setup, track_name
from bandstand.producer.teams.remote import SectionJobs
from bandstand.producer.teams.safety import Deadline, Threads
from bandstand.producer.teams.seats import Seat, seats_for
from bandstand.producer.teams.signals import LocalSignals, Signals
from bandstand.producer.teams.stream import Emit, TeamStream
from bandstand.protocol import studio as ev
from bandstand.studio import Project
from bandstand.studio.ids import SeededIds
from bandstand.studio.tools import run_batch

__all__ = ["COMPOSE_OPTIONS", "TeamOptions", "TeamOutcome", "compose_team", "run_team"]

COMPOSE_OPTIONS: tuple[str, ...] = ("bars", "parts", "tempo", "key", "mode", "genre", "form")


@dataclass(frozen=True, slots=True)
class TeamOptions:
    """How a team composes: the song's options (those of compose: bars, parts, tempo, key, mode,
    genre, form), the seed, where the session goes, the team's limits and seats
    (`TeamConfig`), the backends' configuration, whether to accept the variation at once, and
    whether a bass waits for its section's drums; `jobs` sends the sections' writing elsewhere
    (the batch board: musicians on other machines); an ambiguous prompt takes its defaults when
    `assume_defaults`, else it is refused before anything is written. `writer` and `backends` are for tests and
    embedders (a section writer; ready-made backends by role)."""

    seed: int | None = None
    compose: Mapping[str, Any] = field(default_factory=dict)
    assume_defaults: bool = True
    out_dir: str = "output"
    session_dir: str | None = None
    accept: bool = False
    wait_for_drums: bool = True
    team: TeamConfig = field(default_factory=TeamConfig)
    agents: AgentsConfig = field(default_factory=AgentsConfig)
    backends: Mapping[str, AgentBackend] = field(default_factory=dict)
    writer: Writer = write_section
    jobs: SectionJobs | None = None


@dataclass(slots=True)
class TeamOutcome:
    """What a team run made: the session, its HEAD, the variation (accepted or waiting), the
    sections (who wrote them, under which contract), warnings, failed agents and usage."""

    session_dir: Path
    seed: int
    revision: int
    variation_id: str | None
    accepted: bool
    sections: list[dict[str, Any]]
    contracts: dict[str, str]
    warnings: list[str]
    failed: list[str]
    usage: ev.StreamUsage
    summary: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"session_dir": str(self.session_dir), "seed": self.seed, "revision": self.revision,
                "variation_id": self.variation_id, "accepted": self.accepted, "sections": self.sections,
                "contracts": self.contracts, "warnings": self.warnings, "failed": self.failed,
                "usage": self.usage.model_dump(mode="json"), "summary": self.summary}


def _session_dir(options: TeamOptions) -> Path:
    root = Path(options.session_dir) if options.session_dir else Path(options.out_dir) / new_session_id()
    try:
        root.mkdir(parents=True, exist_ok=False)
    except FileExistsError:
        if any(root.iterdir()):
            raise InvalidInput(f"{root} already holds files; give a new or empty session folder") from None
    except OSError as exc:
        raise OutputNotWritable(f"cannot create {root}: {exc.strerror or exc}; choose another folder with --out") \
            from exc
    return root


def _settled(prompt: str, options: TeamOptions) -> TeamOptions:
    """The options with every blocking ambiguity of the prompt settled (its default when
    `assume_defaults`; otherwise the same one-line refusal compose gives)."""
    from dataclasses import replace

    from bandstand.producer.composing.compose import ambiguity_questions

    chosen = {k: v for k, v in options.compose.items() if v is not None}
    unknown = sorted(set(chosen) - set(COMPOSE_OPTIONS))
    if unknown:
        raise InvalidInput(f"unknown song option '{unknown[0]}' for a team; use {', '.join(COMPOSE_OPTIONS)}")
    make_config(**chosen)  # every value checked before the session folder exists
    for question in ambiguity_questions(prompt, dict(chosen)):
        if not options.assume_defaults:
            raise InvalidInput(f"the prompt is ambiguous: {question.text.split('. Which')[0]}; name a "
                               f"{question.topic} ({', '.join(question.options)}), pass --{question.topic} NAME, "
                               f"or --yes to use '{question.default}'")
        chosen[question.topic] = question.default
    return replace(options, compose=chosen)


PARTS_GROUP = "parts"
"""The plan's parallel group of the instruments' steps: each part's agent works at the same time."""


def _plan_steps(planned: Planned) -> list[ev.PlanStep]:
    ts = planned.blank.time_signature
    steps = [ev.PlanStep(step_id="setup", label=f"Set up the song: {planned.intent.tempo:g} BPM, "
                         f"{planned.harmony.key} {planned.harmony.mode}, {ts}, {len(planned.sections)} sections",
                         phase="setup", agent_id="coordinator")]
    for role in planned.roles:
        name = track_name(role)
        steps.append(ev.PlanStep(step_id=f"plan:{role}", label=f"Plan the {name} part", track_name=name,
                                 agent_id=role, parallel_group=PARTS_GROUP))
        steps += [ev.PlanStep(step_id=write_step(role, s.index), label=f"Add content to {name}: {s.name}",
                              tool_name="add_notes", track_name=name, phase="composition",
                              agent_id=section_agent_id(role, s), section=s.name, parallel_group=PARTS_GROUP)
                  for s in planned.sections if role in s.roles]
    steps.append(ev.PlanStep(step_id="mix", label="Mix: levels, pans, effects, sends and the shared buses",
                             phase="mixing", agent_id="mixer"))
    return steps


def _write_state(root: Path, planned: Planned) -> None:
    """The session's pipeline state, as compose leaves it: the plan nodes and the sound plan
    (the head files name presets and the master's loudness from it)."""
    state = planned_state(root, planned.prompt, planned.seed, Plans(planned.intent, planned.harmony,
                                                                    planned.arrangement), planned.sound,
                          by="agent team's coordinator")
    song = state.song_state
    song.title, song.key, song.mode, song.tempo = planned.blank.name, planned.harmony.key, planned.harmony.mode, \
        planned.intent.tempo
    song.sections, song.total_bars, song.parts = [s.name for s in planned.sections], planned.arrangement.total_bars, \
        list(planned.roles)
    write_state(root, state)


async def _coordinate(prompt: str, seed: int, options: TeamOptions, stream: TeamStream,
                      threads: Threads) -> tuple[Planned, Project]:
    """The coordinator's turn: plan (no model), announce the plan, make the tracks."""
    agent = "coordinator"
    stream.preflight(agent, "coordinator", "Set up the song: tempo, key, form, sections, tracks, colours", ["setup"])
    stream.status(agent, "Reading the prompt and laying the song out")
    ids = SeededIds(f"team:{seed}:{prompt}")
    song_options = {k: v for k, v in options.compose.items() if k in COMPOSE_OPTIONS and v is not None}
    planned = await threads.run(plan_setup, prompt, seed, song_options, ids)
    flow = " → ".join(f"{s.name} {s.bars}" for s in planned.sections)
    stream.reasoning(agent, f"{planned.intent.summary}: {planned.arrangement.form_name} form, "
                            f"{planned.arrangement.total_bars} bars ({flow}); parts: {', '.join(planned.roles)}")
    stream.plan(f"A band of {len(planned.roles)} writing “{planned.blank.name[:60]}”", _plan_steps(planned))
    stream.step("setup", "active")
    project = planned.blank
    for call in planned.calls:
        stream.tool(agent, call.name, f"Create {call.args['name']} track", step_id="setup", section=None)
        outcome = run_batch(project, [call], ctx=tool_context(ids), mode="composing")
        project = outcome.project
        stream.tool_done(agent, str(outcome.results[0].result["track_id"]), call.name, dict(call.args),
                         step_id="setup", section=None)
    return planned, project


async def run_team(prompt: str, options: TeamOptions | None = None, *, emit: Emit | None = None,
                   signals: Signals | None = None) -> TeamOutcome:
    """Compose `prompt` with a team (see the module docstring); the events between `state` and
    `complete` go to `emit`."""
    from bandstand.producer.sessions.projects import create_from_project

    options = options or TeamOptions()
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInput('the prompt is empty; describe the song, e.g. "funk groove in E minor"')
    options = _settled(prompt, options)
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    stream = TeamStream(emit)
    deadline = Deadline.after(options.team.deadline)
    threads = Threads()
    seats: dict[str, Seat] = {}
    try:
        root = _session_dir(options)
        planned, project = await _coordinate(prompt, seed, options, stream, threads)
        seats = seats_for(planned.roles, options.agents, options.team, options.backends)
        setup = planned.seal(project, root.name)
        provenance = project.provenance.model_copy(update={"contract_hashes": {"song": setup.contract.fingerprint}})
        _write_state(root, planned)
        session = create_from_project(root, project.model_copy(update={"provenance": provenance}),
                                      author="team:coordinator", request=prompt)
        setup = planned.seal(session.head, root.name)
        stream.step("setup", "completed", result=f"revision {session.revision}: {len(project.tracks)} tracks")
        stream.done("coordinator", True, f"contract {setup.contract.fingerprint[:12]}")
        run = TeamRun(setup, stream=stream, seats=seats, config=options.team, deadline=deadline,
                      signals=signals or LocalSignals(), threads=threads, writer=options.writer,
                      wait_for_drums=options.wait_for_drums, jobs=options.jobs,
                      song_options={k: v for k, v in options.compose.items() if k in COMPOSE_OPTIONS})
        await asyncio.gather(*(run.instrument(role) for role in setup.roles))
        await run.mix()
        return _propose(prompt, seed, session, run, seats, options, stream)
    finally:
        threads.join()
        for seat in seats.values():
            closer = getattr(seat.backend, "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()


def _propose(prompt: str, seed: int, session: Any, run: TeamRun, seats: Mapping[str, Seat], options: TeamOptions,
             stream: TeamStream) -> TeamOutcome:
    written = [r for r in run.records if r["status"] == "written"]
    if not written:
        raise RuntimeFailure(f"the team wrote nothing ({len(run.failed)} agents failed: "
                             f"{', '.join(run.failed[:6])}); nothing to propose")
    sections = sorted(run.records, key=lambda r: (r["index"], r["role"]))
    team = {"song": run.song.fingerprint, "seed": seed,
            "seats": {role: seat.record() for role, seat in seats.items()},
            "sections": sections, "warnings": run.warnings}
    proposal = run.working.model_copy(update={"provenance": run.working.provenance.model_copy(
        update={"contract_hashes": dict(run.contracts), "team": team})})
    explanation = (f"{len(written)} sections written by {len(seats)} musicians"
                   + (f"; {len(run.failed)} agents failed" if run.failed else ""))
    variation = session.propose(proposal, request=prompt, intent=f"Agent team: {', '.join(run.setup.roles)}",
                                explanation=explanation, author="team", recipe=run.setup.recipe.model_dump(mode="json"),
                                details={"team": {"song": run.song.fingerprint, "failed": run.failed}})
    from bandstand.producer.sessions.wire import variation_stream

    for event in variation_stream(variation, run.song.beats_per_bar):
        stream.send(event)
    summary = f"{len(written)} sections in {len(run.setup.roles)} parts; variation {variation.id[:8]} " + \
        ("accepted" if options.accept else "waiting for review")
    stream.send(ev.SummaryFinal(summary=summary, tools_used=["add_midi_track", "add_midi_region", "add_notes",
                                                            "add_midi_cc", "add_pitch_bend", "set_track_volume",
                                                            "set_track_pan", "add_insert_effect", "ensure_bus",
                                                            "add_send"],
                                tracks=[t.name for t in run.working.tracks]))
    revision = session.revision
    if options.accept:
        revision = session.accept(variation.id).revision
    usage = sum((s.usage for s in seats.values()), start=_zero())
    return TeamOutcome(session_dir=session.session_dir, seed=seed, revision=revision, variation_id=variation.id,
                       accepted=options.accept, sections=sections, contracts=dict(run.contracts),
                       warnings=list(run.warnings), failed=list(run.failed),
                       usage=ev.StreamUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                                            cache_read_tokens=usage.cache_read_tokens,
                                            cache_write_tokens=usage.cache_write_tokens, cost_usd=usage.cost_usd),
                       summary=summary)


def _zero() -> Any:
    return Usage()


async def compose_team(prompt: str, options: TeamOptions | None = None, *, emitter: Any = None,
                       trace_id: str | None = None) -> TeamOutcome:
    """`run_team` inside a COMPOSING stream's frame: `state` first and `complete` last (also on
    failure, after `error`), through `emitter` (a protocol `Emitter` of the STUDIO kind) when given."""
    trace = trace_id or uuid.uuid4().hex
    emit = emitter.emit if emitter is not None else None

    def send(event: BaseModel) -> None:
        if emit is not None:
            emit(event)

    send(ev.State(state="COMPOSING", intent=f"compose with a team: {prompt.strip()[:200] or '…'}",
                  confidence=1.0, execution_mode="variation", trace_id=trace))
    try:
        outcome = await run_team(prompt, options, emit=emit)
    except asyncio.CancelledError:
        if emitter is not None:
            emitter.close("cancelled")
        raise
    except Exception as exc:
        if emitter is not None:
            emitter.close(str(exc)[:500] or type(exc).__name__)
        raise
    if any(v for v in outcome.usage.model_dump().values()):  # the seats' models: what they spent, before the end
        send(ev.BudgetUpdate(source="team", turn=outcome.usage, usage=outcome.usage))
    send(ev.Complete(success=True, trace_id=trace, revision=outcome.revision,
                     variation_id=outcome.variation_id, usage=outcome.usage, warnings=outcome.warnings[:50]))
    return outcome

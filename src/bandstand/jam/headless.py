"""A headless jam: the same engine in the terminal, recorded to a folder.

Directives are applied in order, either one every `every` cycles or at the
cycle given as a `CYCLE:` prefix (`"8:switch to D major"`); the autopilot
(on unless `autopilot=False`) offers the band a round every few cycles in
between, so a jam without directives evolves too. The transport
advances without waiting for the clock (a recording, not a performance); the
chat is printed as it happens; the folder receives jam.mid, jam.wav,
transcript.md and rounds.jsonl.

Everything that would fail later is checked before the first sound: the
output folder, every directive (its @mentions, and the key, chords and metre
it would set, applied in order to the opening context — chords outside the
key are refused now, not at cycle 8). A jam whose members all failed (an LLM
server that cannot be reached) is an `AgentError` naming the first failure,
not a silent recording.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from bandstand.errors import AgentError, InvalidInput, OutputNotWritable
from bandstand.files import unwritable
from bandstand.jam.autopilot import tick_headless
from bandstand.jam.context import MusicalContext, apply_directive
from bandstand.jam.directives import parse_directive
from bandstand.jam.engine import BackendFactory, JamEngine, algorithmic_backend
from bandstand.jam.persona import Persona
from bandstand.jam.recording import export
from bandstand.jam.transport import Transport
from bandstand.protocol import Emitter

_AT = re.compile(r"^\s*(\d+)\s*:\s*(.+)$", re.S)
_WHY = re.compile(r"^\[[^\]]*\]\s*\((.*)\)$", re.S)  # "[error — playing …] (why)" → why


@dataclass(frozen=True, slots=True)
class Scheduled:
    cycle: int
    text: str


def schedule(directives: list[str], cycles: int, every: int | None = None) -> list[Scheduled]:
    """When each directive is given: its `CYCLE:` prefix, else evenly spaced.

    A directive that would fall after the last cycle is an `InvalidInput`
    (it used to be dropped without a word)."""
    step = every or max(1, cycles // (len(directives) + 1))
    out = []
    for i, text in enumerate(directives):
        match = _AT.match(text)
        if match:
            item = Scheduled(int(match.group(1)), match.group(2).strip())
        else:  # evenly spaced directives stay inside the jam; an explicit --every is checked
            item = Scheduled(step * (i + 1) if every else min(step * (i + 1), cycles - 1), text)
        if item.cycle >= cycles:
            how = "its CYCLE: prefix" if match else f"--every {every}"
            raise InvalidInput(
                f"directive {text!r} falls at cycle {item.cycle} ({how}), but the jam plays cycles 0-{cycles - 1}; "
                "raise --cycles or give an earlier 'CYCLE:' prefix"
            )
        out.append(item)
    return sorted(out, key=lambda s: s.cycle)


def check_out_folder(out: str | Path) -> Path:
    """`out` as a folder the recording can be written to, checked before the jam plays.

    Nothing is created here: the nearest existing folder on the way must be a
    writable folder, so a bad `--out` fails at once instead of after the jam."""
    folder = Path(out)
    why = unwritable(folder)
    if why:
        raise OutputNotWritable(f"cannot record into {folder}: {why}; choose another --out")
    return folder


def check_directives(plan: list[Scheduled], personas: list[Persona], context: MusicalContext | None = None) -> None:
    """Parse every directive and apply its context changes, in order, to the opening context:
    whatever the jam would refuse mid-run is an `InvalidInput` now, naming the directive."""
    context = context or MusicalContext()
    for item in plan:
        try:
            directive = parse_directive(item.text, personas)
            if directive.changes_context:
                context, _ = apply_directive(context, directive)
        except InvalidInput as exc:
            raise InvalidInput(f"directive {item.text!r} (cycle {item.cycle}) would be refused: {exc}") from exc


def check_someone_played(engine: JamEngine, failures: list[str]) -> None:
    """`AgentError` when no member of the jam ever answered with a pattern (every turn failed or
    timed out): the recording would be silence. `failures` are the chat's notes of the failures."""
    answered = any(m["asked"] and m["status"] not in ("error", "timeout")
                   for record in engine.rounds for m in record.members.values())
    if engine.rounds and not answered:
        first = failures[0] if failures else "no member answered"
        raise AgentError(f"every member failed, nothing was recorded: {first}; check the backend "
                         "('bandstand agents check', --base-url, --model)")


class HeadlessSummary(TypedDict):
    """What a headless jam played and where it wrote it."""

    cycles: int
    rounds: int
    events: int
    context: dict[str, object]
    files: dict[str, str]


def chat_line(message: dict[str, Any]) -> str | None:
    """One emitted message as a chat line (None for messages the chat does not show)."""
    kind = message["type"]
    if kind == "agent_thought":
        flag = "" if message["complied_with_boss"] else "  ✋(did not comply)"
        note = f"  {message['note']}" if message.get("note") else ""
        return f"[r{message['round']}] {message['emoji']} {message['member']}: {message['thought']} — {message['reaction']}{flag}{note}\n      {message['pattern']}"
    if kind == "boss_directive_echo":
        to = f" → {', '.join(message['to'])}" if message["to"] else ""
        return f"🎤 BOSS{to}: {message['text']}"
    if kind == "musical_context_update":
        ctx = message["context"]
        return f"   context: {ctx['key']} | {' '.join(ctx['chords'])} | {ctx['bpm']:g} BPM | energy {ctx['energy']}/10"
    return None


async def run_headless(
    personas: list[Persona],
    *,
    directives: list[str],
    cycles: int = 16,
    every: int | None = None,
    out: str | Path = "jam-out",
    backend: BackendFactory = algorithmic_backend,
    seed: int = 0,
    turn_timeout: float = 30.0,
    wav: bool = True,
    echo: Callable[[str], None] = print,
    as_json: bool = False,
    autopilot: bool = True,
) -> HeadlessSummary:
    """Run a jam for `cycles` cycles with `directives`; returns a summary."""
    folder = check_out_folder(out)
    plan = schedule(directives, cycles, every)
    check_directives(plan, personas)
    emitter = Emitter()
    failures: list[str] = []

    def failed(message: dict[str, Any]) -> None:
        if message["type"] == "agent_thought" and message["status"] in ("error", "timeout"):
            why = _WHY.sub(r"\1", str(message.get("note") or message["thought"]))
            failures.append(f"{message['member']}: {why}")

    def show(message: dict[str, Any]) -> None:
        if as_json:
            if message["type"] != "events":
                echo(json.dumps(message, ensure_ascii=False))
        elif (line := chat_line(message)) is not None:
            echo(line)

    emitter.subscribe(show)
    emitter.subscribe(failed)
    engine = JamEngine(personas, backend=backend, seed=seed, turn_timeout=turn_timeout, emitter=emitter)
    engine.autopilot.set(autopilot)
    transport = Transport(engine)
    try:
        await engine.start()
        for cycle in range(cycles):
            due = [p for p in plan if p.cycle == cycle]
            for item in due:
                await engine.directive(item.text)
            if not due:  # a directive's round is this cycle's round
                await tick_headless(engine, cycle)
            transport.advance()
    finally:
        await engine.stop()
    check_someone_played(engine, failures)
    paths = export(engine, transport.played, folder, wav=wav)
    return {
        "cycles": cycles,
        "rounds": engine.round,
        "events": transport.scheduled,
        "context": engine.context.view(),
        "files": {k: str(v) for k, v in paths.items()},
    }

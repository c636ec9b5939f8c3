"""The jam engine: rounds, routing, validation, fallback, composition.

`JamEngine` owns the band. `start` opens every member's session in parallel
and plays a first round; `directive` parses what the boss said, applies any
context change first, updates the style of the members it is addressed to and
runs a round for them (every member when the key, chords or metre changed, or
when someone steps out to solo or back in: the others make room).
A round is played in stages so the band listens within it: the drums first,
then the bass on the kick it just heard, then everyone else
(`LISTENING_ORDER`); a bass that was not asked is asked anyway when the kick
under it changed (unless the boss wrote its line). The boss's controls beside the
words: a member's fader (`set_volume`), the tempo, the energy, and a member's
pattern rewritten (`override_member_code`), which the built-in musicians keep
playing until the boss asks them for something else.
Each reply is validated by the pattern engine; an invalid pattern, an
unparseable reply, an error or a timeout keeps the member's last good pattern
with status error/timeout and a chat line saying so. The sounding patterns are
stacked in code and every change goes out through the protocol emitter.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bandstand.agents.algorithmic import AlgorithmicBackend
from bandstand.agents.base import AgentBackend
from bandstand.craft.edits import EnergyEdit
from bandstand.errors import Conflict, InvalidInput
from bandstand.jam.autopilot import Autopilot
from bandstand.jam.band import MAX_VOLUME, Composition, Member, compose
from bandstand.jam.context import MusicalContext, apply_directive
from bandstand.jam.directives import Directive, parse_directive
from bandstand.jam.guide import GUIDE
from bandstand.jam.musicians import Musician
from bandstand.jam.persona import Persona
from bandstand.jam.sound import SILENCE, PatternBook, Verdict
from bandstand.jam.turn import REPEAT_ROUNDS, BandMate, JamReply, TurnInput, render_turn_text
from bandstand.protocol import (
    AgentStatus,
    AgentThought,
    CodeOverride,
    ContextView,
    Emitter,
    JamStateUpdate,
    MusicalContextUpdate,
)
from bandstand.protocol.jam import BossEcho
from bandstand.runtime import Session, SessionLimits
from bandstand.score import clamp_tempo

BackendFactory = Callable[[Persona, int], AgentBackend]
VALIDATION_BUDGET = 5.0
"""Seconds a round's pattern checks may take (they run off the event loop)."""
LISTENING_ORDER: dict[str, int] = {"drums": 0, "percussion": 0, "bass": 1}
"""The stage in which a role plays within a round (everyone else: the last stage)."""
LAST_STAGE = 2
MAKING_ROOM = frozenset({"solo", "drop_out", "come_back"})
"""Intents after which the whole band is asked (the others make room or fill in)."""
NOTES = {
    "timeout": "[timed out — playing last known pattern]",
    "error": "[error — playing last known pattern]",
    "invalid": "[invalid pattern — playing last known pattern]",
}


def algorithmic_backend(persona: Persona, seed: int) -> AgentBackend:
    """The built-in musician for `persona`, behind the runtime's algorithmic backend."""
    return AlgorithmicBackend(Musician(persona, seed).respond)


@dataclass(slots=True)
class RoundRecord:
    """One round as recorded in rounds.jsonl and the transcript."""

    round: int
    directive: str | None
    to: list[str]
    context: dict[str, Any]
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    combined: str = SILENCE

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "directive": self.directive,
            "to": self.to,
            "context": self.context,
            "members": self.members,
            "combined": self.combined,
        }


class JamEngine:
    """A live band directed by the boss. See the module docstring."""

    def __init__(
        self,
        personas: list[Persona],
        *,
        backend: BackendFactory = algorithmic_backend,
        context: MusicalContext | None = None,
        seed: int = 0,
        turn_timeout: float = 30.0,
        emitter: Emitter | None = None,
        log_dir: str | None = None,
    ) -> None:
        if not personas:
            raise InvalidInput("a jam needs at least one member")
        self.personas = personas
        self.backend = backend
        self.context = context or MusicalContext()
        self.seed = seed
        self.turn_timeout = turn_timeout
        self.emitter = emitter or Emitter()
        self.log_dir = log_dir
        self.members: dict[str, Member] = {p.name: Member(p) for p in personas}
        self.round = 0
        self.running = False
        self.composition = Composition(SILENCE, ())
        self.rounds: list[RoundRecord] = []
        self.autopilot = Autopilot()
        self._energy_delta = 0
        self._changed: list[str] = []
        self._round_lock = asyncio.Lock()
        self.on_round: list[Callable[[RoundRecord], None]] = []
        self.patterns = PatternBook()  # this engine's own compile cache: no session shares it

    # ------------------------------------------------------------------ lifecycle

    async def start(self, names: list[str] | None = None) -> RoundRecord:
        """Open the members' sessions in parallel and play the first round."""
        if self.running:
            raise InvalidInput("the jam is already running; stop it first")
        wanted = {n.upper() for n in names} if names else set(self.members)
        unknown = wanted - set(self.members)
        if unknown:
            raise InvalidInput(f"unknown member(s) {', '.join(sorted(unknown))}; the band is {', '.join(self.members)}")
        for member in self.members.values():
            member.active = member.name in wanted
        active = self.active()
        for member in active:
            member.session = self._session(member, self.backend(member.persona, self.seed))
        results = await asyncio.gather(*(m.session.start() for m in active), return_exceptions=True)
        for member, result in zip(active, results, strict=True):
            if isinstance(result, BaseException):
                member.status = "error"
                member.thoughts = f"could not start: {result}"
        self.running = True
        self.emit_state()
        return await self.play_round(None, [m.name for m in active])

    def _session(self, member: Member, backend: AgentBackend, history: Any = ()) -> Session:
        member.llm = getattr(backend, "name", "") != "algorithmic"
        musician = getattr(getattr(backend, "responder", None), "__self__", None)
        if isinstance(musician, Musician):  # it hears the others through this engine's patterns
            musician.book = self.patterns
        return Session(
            backend,
            name=member.name,
            persona=member.persona.system_prompt() + ("\n\n" + GUIDE if member.llm else ""),
            limits=SessionLimits(turn_timeout=self.turn_timeout, start_timeout=self.turn_timeout),
            seed=self.seed,
            log_dir=self.log_dir,
            history=history,
        )

    async def _reopen(self, member: Member) -> Session:
        """A fresh session for a member whose session ended after failing, with its whole
        conversation so far (a member that timed out keeps its memory)."""
        old = member.session
        session = self._session(member, old.backend, history=list(old.history))
        with contextlib.suppress(Exception):
            await old.stop()
        await session.start()
        return session

    async def stop(self) -> None:
        """End every member session (no process left behind) and stop the jam. Idempotent."""
        sessions = [m.session for m in self.members.values() if m.session is not None]
        await asyncio.gather(*(s.stop() for s in sessions), return_exceptions=True)
        for member in self.members.values():
            member.session = None
            member.status = "idle"
        was_running, self.running = self.running, False
        if was_running:
            self.emit_state()

    def active(self) -> list[Member]:
        return [m for m in self.members.values() if m.active]

    # ------------------------------------------------------------------ the boss

    def parse(self, text: str) -> Directive:
        return parse_directive(text, [m.persona for m in self.active()])

    async def directive(self, text: str) -> RoundRecord:
        """Apply a boss directive: context first, then a round for whom it concerns."""
        if not self.running:
            raise Conflict("start the jam before giving directives")
        return await self.run_directive(self.parse(text))

    async def run_directive(self, directive: Directive) -> RoundRecord:
        """Apply a parsed directive (typed or built by a control): context first, then a round."""
        self.emitter.emit(BossEcho(text=directive.text, to=list(directive.to), round=self.round))
        self._energy_delta, self._changed = 0, []
        if directive.changes_context:
            before = self.context.energy
            self.context, changed = apply_directive(self.context, directive)
            self._energy_delta, self._changed = self.context.energy - before, changed
            self.emitter.emit(MusicalContextUpdate(context=self.context_view(), changed=changed))
        for member in self.active():
            if directive.addressed_to(member.name):
                member.style = member.style.apply(directive.intents, self.round + 1)
                if directive.volume is not None:
                    member.volume = min(MAX_VOLUME, max(0.05, round(member.volume * directive.volume, 3)))
        names = [m.name for m in self.active() if directive.addressed_to(m.name)]
        if directive.key or directive.mode or directive.chords or directive.time_signature:
            names = [m.name for m in self.active()]  # everyone must re-spell their part
        elif directive.intents & MAKING_ROOM:
            names = [m.name for m in self.active()]  # the others make room (or fill in)
        return await self.play_round(directive, names)

    async def autopilot_round(self) -> RoundRecord:
        """A round the autopilot offers: every member is asked, and the members whose turn
        it is (`Autopilot.fresh_ideas`, by the creativity threshold) bring a new idea."""
        active = [m.name for m in self.active()]
        for name in self.autopilot.fresh_ideas(active, self.seed):
            member = self.members[name]
            member.style = member.style.model_copy(update={"since": self.round + 1})
        return await self.play_round(None, active)

    def set_mute(self, name: str, muted: bool) -> None:
        self._member(name).muted = muted
        self._recompose()

    def set_solo(self, name: str, soloed: bool) -> None:
        self._member(name).soloed = soloed
        self._recompose()

    # ------------------------------------------------------------------ the boss's controls

    def set_volume(self, name: str, volume: float) -> None:
        """A member's fader (0–1.5, 1 = as played): its layer's gain, heard and recorded alike."""
        self._member(name).volume = min(MAX_VOLUME, max(0.0, volume))
        self._recompose()

    def set_tempo(self, bpm: float) -> None:
        """The tempo control: the transport plays the next cycle at `bpm` (clamped to score.TEMPO_RANGE, 30–300); the members
        read it in their next turn (no round: nothing they play has to change)."""
        if not self.running:
            raise Conflict("start the jam before changing its tempo")
        bpm = float(clamp_tempo(bpm))
        if bpm == self.context.bpm:
            return
        self.context = self.context.model_copy(update={"bpm": bpm})
        self.emitter.emit(MusicalContextUpdate(context=self.context_view(), changed=["bpm"]))
        self.emit_state()

    async def set_energy(self, level: int) -> RoundRecord:
        """The energy control: the directive 'energy N/10' to the whole band, without words to read."""
        if not self.running:
            raise Conflict("start the jam before changing its energy")
        level = min(10, max(1, level))
        text = f"energy {level}/10"
        return await self.run_directive(Directive(text=text, body=text, energy=level, edits=(EnergyEdit(level=level),)))

    async def override_member_code(self, name: str, code: str) -> None:
        """The boss rewrites a member's pattern: validated like any reply (a refusal raises with
        the reason and the code), then it sounds from the next cycle and the member is told in
        its next turn."""
        if not self.running:
            raise Conflict("start the jam before editing a member's pattern")
        member = self._member(name)
        if not member.active:
            raise InvalidInput(f"{member.name} is not playing in this jam")
        text = code.strip()
        if not text:
            raise InvalidInput(f"{member.name}'s pattern is empty; write 'silence' to make it rest")
        try:
            reply = JamReply(pattern=text)
        except ValidationError as exc:  # too long for any member's reply: said as the reply's own rule
            raise InvalidInput(f"{member.name}'s pattern was refused: {exc.errors()[0]['msg'].lower()}") from None
        (verdict,) = await self._check([reply])
        if verdict is None or not verdict.ok:
            reason = verdict.error if verdict is not None else "invalid pattern"
            raise InvalidInput(f"{member.name}'s pattern was refused: {reason}")
        member.pattern = member.fallback_pattern = text
        member.using_fallback, member.status, member.boss_code = False, "idle", text
        member.override = text
        member.last_updated = time.time()
        self.emitter.emit(CodeOverride(member=member.name, code=text, round=self.round))
        self._recompose()

    def _member(self, name: str) -> Member:
        member = self.members.get(name.upper())
        if member is None:
            raise InvalidInput(f"no band member {name!r}; the band is {', '.join(self.members)}")
        return member

    # ------------------------------------------------------------------ rounds

    @property
    def round_running(self) -> bool:
        return self._round_lock.locked()

    async def play_round(self, directive: Directive | None, names: list[str]) -> RoundRecord:
        """One round: ask `names` stage by stage (`LISTENING_ORDER`: each stage hears what the
        stages before it just played), validate, fall back, recompose, emit."""
        async with self._round_lock:
            self.round += 1
            round_ = self.round
            record = RoundRecord(round_, directive.text if directive else None, list(directive.to) if directive else [], self.context.view())
            if self._end_solos(round_):
                names = [m.name for m in self.active()]  # the soloist comes back, the others fill in again
            targets = [self.members[n] for n in names if self.members[n].session is not None]
            for member in targets:
                member.status = "thinking"
                self.emitter.emit(AgentStatus(member=member.name, status="thinking", round=round_))
            asked: list[Member] = []
            changed = False
            drums_before = {m.name: m.pattern for m in targets if _stage(m) == 0}
            for stage in range(LAST_STAGE + 1):
                group = [m for m in targets if _stage(m) == stage]
                if stage == 1 and any(self.members[n].pattern != p for n, p in drums_before.items()):
                    # the kick under the bass changed: the bass follows it in this round
                    # (a line the boss wrote stays as written)
                    group += [m for m in self.active() if _stage(m) == 1 and m not in targets
                              and m.session is not None and m.override is None and m.boss_code is None]
                if not group:
                    continue
                inputs = {m.name: self._turn_input(m, directive) for m in group}
                for member in group:
                    member.boss_code = None  # told in this turn
                    member.solo_ended = False
                replies = await asyncio.gather(*(self._ask(m, inputs[m.name]) for m in group))
                verdicts = await self._check([reply for reply, _ in replies])
                for member, (reply, outcome), verdict in zip(group, replies, verdicts, strict=True):
                    changed |= self._settle(member, reply, outcome, verdict, round_, directive)
                asked += group
            for member in self.active():
                record.members[member.name] = {
                    "pattern": member.pattern,
                    "thoughts": member.thoughts,
                    "reaction": member.reaction,
                    "status": member.status,
                    "complied_with_boss": member.complied,
                    "fallback": member.using_fallback,
                    "asked": member in asked,
                }
            self._recompose(emit_state=False)
            record.combined = self.composition.code
            self.rounds.append(record)
            self.autopilot.round_done(changed or directive is not None)
            self.emit_state()
            for callback in self.on_round:
                callback(record)
            return record

    def _end_solos(self, round_: int) -> bool:
        """End each solo that has had its rounds (`SOLO_ROUNDS`); whether one ended."""
        ended = False
        for member in self.active():
            if member.style.solo_over(round_):
                member.style = member.style.end_solo(round_)
                member.solo_ended = ended = True
        return ended

    def _turn_input(self, member: Member, directive: Directive | None) -> TurnInput:
        to_member = directive is not None and directive.addressed_to(member.name)
        key_changed = bool(member.seen_key) and member.seen_key != self.context.key
        if key_changed:
            member.style = member.style.model_copy(update={"since": self.round})
        band = [
            BandMate(
                name=m.name, emoji=m.persona.emoji, role=m.persona.role, thoughts=m.thoughts,
                pattern=m.pattern, status=m.status, solo=m.style.solo, out=m.style.out,
            )
            for m in self.active()
        ]
        said = (directive.body or directive.text) if directive and to_member else None
        if member.boss_code is not None:  # the boss rewrote this member's pattern since its last turn
            rewrite = f"I rewrote your pattern as {member.boss_code} — keep its idea or build on it"
            said = f"{said}; and {rewrite}" if said else rewrite
        return TurnInput(
            round=self.round,
            member=member.name,
            role=member.persona.role,
            context=self.context,
            band=band,
            directive=said,
            directive_to_you=bool(directive and directive.to and to_member) or member.boss_code is not None,
            understood=directive is None or not to_member or bool(directive.edits) or directive.changes_context,
            intents=sorted(directive.intents) if directive and to_member else [],
            energy_delta=self._energy_delta if to_member else 0,
            key_changed=key_changed,
            context_changed=list(self._changed) if directive else [],
            style=member.style,
            last_pattern=None if member.pattern == SILENCE and not member.seen_key else member.pattern,
            rejected=member.rejected[0] if member.rejected else None,
            rejected_because=member.rejected[1] if member.rejected else None,
            boss_code=member.override,
            solo_ended=member.solo_ended,
            recent_lines=[line for said in member.said for line in said if line],
        )

    async def _ask(self, member: Member, turn: TurnInput) -> tuple[JamReply | None, str]:
        """The member's reply and 'ok' | 'timeout' | 'error' (no exception escapes)."""
        data: Any = render_turn_text(turn) if member.llm else turn
        fallback = JamReply(pattern=member.fallback_pattern or SILENCE, thoughts="", comply_with_boss=True)
        if member.session.ended:  # too many failures in a row ended it: a new one that remembers
            member.session = await self._reopen(member)
        try:
            verdict = await member.session.ask(data, JamReply, fallback=fallback)
        except Exception as exc:  # a broken session must not take the band down
            return None, f"error:{exc}"
        if verdict.fallback:
            return None, "timeout" if verdict.reason == "timeout" else f"error:{verdict.error or verdict.reason}"
        return verdict.value, "ok"

    async def _check(self, replies: list[JamReply | None]) -> list[Verdict | None]:
        """Validate the round's patterns off the event loop, within `VALIDATION_BUDGET` seconds
        (each check has its own event and depth budgets; this bounds the round as a whole).
        Patterns checked before are answered from the cache here, with no thread hop."""
        scale = self.context.scale
        known = [None if r is None else self.patterns.known_verdict(r.pattern, scale) for r in replies]
        if all(k is not None or r is None for k, r in zip(known, replies, strict=True)):
            return known

        def check() -> list[Verdict | None]:
            return [None if r is None else self.patterns.validate(r.pattern, scale) for r in replies]

        try:
            return await asyncio.wait_for(asyncio.to_thread(check), VALIDATION_BUDGET)
        except TimeoutError:
            late = Verdict(False, f"checking the pattern took longer than {VALIDATION_BUDGET:g} s")
            return [None if r is None else late for r in replies]

    def _settle(self, member: Member, reply: JamReply | None, outcome: str, verdict: Verdict | None, round_: int,
                directive: Directive | None = None) -> bool:
        """Apply one reply to the member; returns whether its sounding pattern changed.
        A rejected pattern is remembered with its reason: the member is told in its next turn."""
        before = member.pattern
        note = ""
        member.seen_key = self.context.key
        member.rejected = None
        if directive is not None and directive.addressed_to(member.name):
            member.override = None  # the boss has spoken again: the member plays its own part
        if reply is not None and verdict is not None:
            if verdict.ok:
                if member.boss_code is None:  # else the boss rewrote the part while this turn ran: it stays
                    member.pattern = member.fallback_pattern = reply.pattern.strip()
                    member.using_fallback = False
                    member.status = "idle"
                    if member.override is not None and member.pattern != member.override:
                        member.override = None
            else:
                outcome, note = "invalid", verdict.error
                member.rejected = (reply.pattern.strip(), verdict.error)
            member.thoughts, member.reaction, member.complied = reply.thoughts, reply.reaction, reply.comply_with_boss
            member.said = [*member.said, [reply.thoughts, reply.reaction]][-REPEAT_ROUNDS:]
        if outcome != "ok":
            kind = "timeout" if outcome == "timeout" else "error"
            member.status = kind
            member.pattern = member.fallback_pattern
            member.using_fallback = True
            key = "invalid" if outcome == "invalid" else kind
            detail = note or outcome.partition(":")[2]
            if reply is None:
                member.thoughts, member.reaction, member.complied = NOTES[key], "", True
            note = NOTES[key] + (f" ({detail[:160]})" if detail else "")
        member.last_updated = time.time()
        self.emitter.emit(
            AgentThought(
                member=member.name,
                emoji=member.persona.emoji,
                thought=member.thoughts,
                reaction=member.reaction,
                pattern=member.pattern,
                complied_with_boss=member.complied,
                round=round_,
                timestamp=member.last_updated,
                status=member.status,  # type: ignore[arg-type]
                note=note,
                rejected=reply.pattern.strip() if reply is not None and verdict is not None and not verdict.ok else "",
            )
        )
        self.emitter.emit(AgentStatus(member=member.name, status=member.status, round=round_))  # type: ignore[arg-type]
        return member.pattern != before

    # ------------------------------------------------------------------ the per-layer cap

    def tell_capped(self, name: str, cycle: int, found: int, kept: int, muted: str = "") -> None:
        """The member whose layer the transport thinned to the per-layer cap (or muted: its cycle
        ran past its budget) says so in the chat; the transport tells it once per pattern."""
        member = self.members.get(name)
        if member is None:
            return
        if muted:
            thought = f"My part is too heavy to play in cycle {cycle}, so it rests whenever that happens ({muted})."
            note = f"[muted in cycle {cycle}: {muted}]"
        else:
            thought = (f"My part is too busy in cycle {cycle} ({found} events; the limit is {kept} per cycle), "
                       f"so I thin it to {kept} whenever it overflows.")
            note = f"[thinned to {kept} of {found} events in cycle {cycle}]"
        self.emitter.emit(
            AgentThought(
                member=member.name, emoji=member.persona.emoji, thought=thought, reaction="",
                pattern=member.pattern, complied_with_boss=member.complied, round=self.round,
                timestamp=time.time(), status=member.status, note=note,  # type: ignore[arg-type]
            )
        )

    # ------------------------------------------------------------------ state out

    def _recompose(self, emit_state: bool = True) -> None:
        # the transport swaps the new composition in at the next cycle boundary (and says so)
        self.composition = compose(self.active())
        if emit_state and self.running:
            self.emit_state()

    def context_view(self) -> ContextView:
        return ContextView.model_validate(self.context.view())

    def state(self) -> JamStateUpdate:
        return JamStateUpdate(
            running=self.running,
            round=self.round,
            members=[m.view() for m in self.members.values()],
            context=self.context_view(),
            combined_pattern=self.composition.code,
            layers=self.composition.layer_views(),
            autopilot=self.autopilot.enabled,
            autopilot_interval=self.autopilot.interval,
        )

    def emit_state(self) -> None:
        self.emitter.emit(self.state())


def _stage(member: Member) -> int:
    return LISTENING_ORDER.get(member.persona.role, LAST_STAGE)


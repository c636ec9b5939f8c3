"""The jam's bridge to the pattern engine: validate a member's code, evaluate
it once (cached by text), and turn one cycle of haps into timed sound events.

Validation is the pattern engine's (`check_pattern`): the code parses in the
safe expression language, uses known functions and sounds, stays under the
density limit, and its pitched notes are in the scale (passing tones allowed).
The pattern and events validation computed are kept by code in the engine's
own `PatternBook`, so the transport, the recorder and the musicians listening
to each other evaluate and query nothing that was validated already, and no
two engines share a cache.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from bandstand.jam._harmony import pitch_class
from bandstand.protocol.jam import SoundEvent
from bandstand.theory import spell_pitch_class

if TYPE_CHECKING:
    from bandstand.patterns.cycle_cap import CappedCycle

SILENCE = "silence"
HEARD_CYCLES: Final = 4  # validation plays this many cycles; their events are kept for listening


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of validating one pattern."""

    ok: bool
    error: str = ""
    warnings: tuple[str, ...] = ()


class PatternBook:
    """What one jam engine's pattern engine made of its members' code: evaluated
    patterns, the events validation heard, and verdicts, each in its own small
    `CompileCache`, and the mini-notation strings of that code (a `MiniCache`: the
    members repeat figures in new code). Each engine owns one (`JamEngine.patterns`),
    so sessions never share objects or fill each other's caches. Safe across threads."""

    def __init__(self, size: int = 512) -> None:
        from bandstand.patterns.cache import CompileCache
        from bandstand.patterns.mini import MiniCache

        self.patterns = CompileCache(size)  # code → Pattern
        self.heard = CompileCache(size)  # code → the events of its first HEARD_CYCLES cycles
        self.verdicts = CompileCache(4 * size)  # (code, scale pitch classes) → Verdict
        self.analyses = CompileCache(size)  # the validator's own scale-independent work
        self.minis = MiniCache(2 * size)  # mini-notation text → its parsed tree and built patterns

    def compile(self, code: str) -> Any:
        """The Pattern for `code` (shared with validation: members repeat themselves)."""
        return self.patterns.get_or_make(code, lambda: _evaluate(code, self.minis))

    def onsets(self, code: str, cycles: int) -> list[Any]:
        """The haps of `code` that start in its first `cycles` cycles: the ones validation
        found when it played the code (no query), else a query (which may raise)."""
        heard = self.heard.get(code)
        if heard is None and cycles <= HEARD_CYCLES:
            heard = self._hear(code)
        if heard is not None and cycles <= HEARD_CYCLES:
            return [h for h in heard if h.whole is not None and h.whole.begin < cycles]
        return [h for h in self.compile(code).query_arc(0, cycles) if h.has_onset()]

    def _hear(self, code: str) -> Any:
        """The events of `code`'s first HEARD_CYCLES cycles found the way validation finds them,
        and kept where validation looks (a musician hears its own new part before the engine
        checks it: the check then costs only its scale); None when the code does not play."""
        from bandstand.patterns.validate import check_pattern

        checked = check_pattern(code, cycles=HEARD_CYCLES, cache=self.analyses, minis=self.minis)
        if checked.pattern is None:
            return None
        self.patterns.put(code, checked.pattern)
        self.heard.put(code, checked.events)
        return checked.events

    def validate(self, code: str, scale: list[str]) -> Verdict:
        """Check a member's pattern before it may sound (the pattern engine's verdict,
        within its time and event budget). Verdicts are kept by code and scale."""
        text = code.strip()
        if text == SILENCE:
            return Verdict(True)
        key = (text, tuple(pitch_class(n) for n in scale))
        verdict: Verdict = self.verdicts.get_or_make(key, lambda: self._validate(*key))
        return verdict

    def known_verdict(self, code: str, scale: list[str]) -> Verdict | None:
        """The verdict for `code` if it was checked before (nothing is computed), else None."""
        text = code.strip()
        if text == SILENCE:
            return Verdict(True)
        found: Verdict | None = self.verdicts.get((text, tuple(pitch_class(n) for n in scale)))
        return found

    def _validate(self, text: str, scale: tuple[int, ...]) -> Verdict:
        from bandstand.patterns.validate import check_pattern

        try:
            checked = check_pattern(
                text, scale=list(scale), cycles=HEARD_CYCLES, cache=self.analyses, minis=self.minis
            )
        except Exception as exc:  # the validator never raises for bad code; this is a guard
            return Verdict(False, f"{type(exc).__name__}: {exc}")
        report = checked.report
        if checked.pattern is not None:  # played already: keep what the engine made of it
            self.patterns.put(text, checked.pattern)
            self.heard.put(text, checked.events)
        if report.valid:
            return Verdict(True, warnings=tuple(report.warnings))
        reasons = [report.error] if report.error else []
        if report.unknown_functions:
            reasons.append("unknown function " + ", ".join(report.unknown_functions))
        if report.unknown_sounds:
            reasons.append("unknown sound " + ", ".join(report.unknown_sounds))
        reasons.extend(report.warnings)
        return Verdict(False, name_notes("; ".join(r for r in reasons if r) or "invalid pattern"))

    def cycle(self, code: str, cycle: int) -> CappedCycle:
        """What `code` may sound in `cycle`: its onsets computed within the cycle's budget and
        thinned to the per-layer cap (`bandstand.patterns.cycle_cap`) — what the band plays
        and the recording keeps alike."""
        from bandstand.patterns.cycle_cap import CappedCycle, play_cycle

        if code.strip() == SILENCE:
            return CappedCycle((), 0)
        return play_cycle(self.compile(code), cycle)

    def cycle_events(self, member: str, code: str, cycle: int) -> list[SoundEvent]:
        """`cycle_events` with this book's patterns."""
        return sound_events(member, list(self.cycle(code, cycle).haps), cycle)


_DEFAULT_BOOK = PatternBook()  # for callers outside an engine (tests, one-off tools)


def _evaluate(code: str, minis: Any = None) -> Any:
    from bandstand.patterns import evaluate

    return evaluate(code, minis=minis)


def compile_pattern(code: str, book: PatternBook | None = None) -> Any:
    """The Pattern for `code`, from `book` (an engine's own; default: a private one)."""
    return (book or _DEFAULT_BOOK).compile(code)


def capped_cycle(code: str, cycle: int, book: PatternBook | None = None) -> CappedCycle:
    """`PatternBook.cycle` of `book` (default: a private one)."""
    return (book or _DEFAULT_BOOK).cycle(code, cycle)


def onsets(code: str, cycles: int, book: PatternBook | None = None) -> list[Any]:
    """`PatternBook.onsets` of `book` (default: a private one)."""
    return (book or _DEFAULT_BOOK).onsets(code, cycles)


def validate(code: str, scale: list[str], book: PatternBook | None = None) -> Verdict:
    """`PatternBook.validate` of `book` (default: a private one)."""
    return (book or _DEFAULT_BOOK).validate(code, scale)


def known_verdict(code: str, scale: list[str], book: PatternBook | None = None) -> Verdict | None:
    """`PatternBook.known_verdict` of `book` (default: a private one)."""
    return (book or _DEFAULT_BOOK).known_verdict(code, scale)


_MIDI_LIST = re.compile(r"\(MIDI (\d+(?:, \d+)*)\)")


def name_notes(reason: str) -> str:
    """A validation reason with its MIDI numbers as note names, as musicians say them:
    "… outside the given scale (MIDI 61, 66, 71)" → "… outside the given scale (C#, F#, B)"."""
    def names(match: re.Match[str]) -> str:
        classes = dict.fromkeys(int(n) % 12 for n in match.group(1).split(", "))
        return "(" + ", ".join(spell_pitch_class(pc) for pc in classes) + ")"

    return _MIDI_LIST.sub(names, reason)


def _num(value: dict[str, Any], *names: str) -> float | None:
    for name in names:
        v = value.get(name)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return float(v)
    return None


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _pitch(value: dict[str, Any]) -> float | None:
    from bandstand.patterns.to_score import value_pitch

    pitch = value_pitch(value)
    return None if pitch is None else float(pitch)


def cycle_events(member: str, code: str, cycle: int, book: PatternBook | None = None) -> list[SoundEvent]:
    """The sound events of `code` starting inside `cycle`, times relative to the cycle;
    each says how the recording plays it in General MIDI (program, key, velocity)."""
    return (book or _DEFAULT_BOOK).cycle_events(member, code, cycle)


def sound_events(member: str, haps: list[Any], cycle: int) -> list[SoundEvent]:
    """`member`'s haps that start inside `cycle` as timed sound events (times relative to the
    cycle)."""
    from bandstand.patterns.to_score import held_cycles, midi_voice

    out = []
    for hap in haps:
        if not hap.has_onset() or not isinstance(hap.value, dict):
            continue
        value = hap.value
        sound = str(value.get("s", "") or ("triangle" if "note" in value or "n" in value else ""))
        if not sound:
            continue
        begin = Fraction(hap.whole.begin) - cycle
        length = float(Fraction(hap.whole.end) - Fraction(hap.whole.begin))
        duration = held_cycles(length, value) or held_cycles(length, None)  # legato 0: the step's length
        voice = midi_voice(value)
        out.append(
            SoundEvent(
                begin=float(begin),
                duration=duration,
                member=member,
                sound=sound.split(":")[0],
                note=_pitch(value),
                gain=_or(_num(value, "gain", "velocity"), 0.8),
                pan=_or(_num(value, "pan"), 0.5),
                cutoff=_num(value, "cutoff", "lpf"),
                delay=_num(value, "delay") or 0.0,
                room=_num(value, "room") or 0.0,
                crush=_num(value, "crush"),
                program=voice.program,
                key=voice.key,
                velocity=voice.velocity,
                kit=voice.kit,
            )
        )
    return out

"""The jam's bridge to the pattern engine: validate a member's code, evaluate
it once (cached by text), and turn one cycle of haps into timed sound events.

Validation is the pattern engine's (`check_pattern`): the code parses in the
safe expression language, uses known functions and sounds, stays under the
density limit, and its pitched notes are in the scale (passing tones allowed).
The pattern and events validation computed are kept by code, so the transport,
the recorder and the musicians listening to each other evaluate and query
nothing that was validated already.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from bandstand.jam._harmony import pitch_class
from bandstand.protocol.jam import SoundEvent

SILENCE = "silence"
HEARD_CYCLES: Final = 4  # validation plays this many cycles; their events are kept for listening


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of validating one pattern."""

    ok: bool
    error: str = ""
    warnings: tuple[str, ...] = ()


class _Memo:
    """A bounded map from code to what the engine made of it (oldest entries go first).
    Safe across threads: the jam checks patterns off the event loop."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: dict[Hashable, Any] = {}
        self._lock = threading.Lock()

    def get(self, code: Hashable, make: Callable[[Any], Any]) -> Any:
        with self._lock:
            found = self.items.get(code)
        if found is None:
            found = self.put(code, make(code))  # made outside the lock: another thread may read meanwhile
        return found

    def put(self, code: Hashable, value: Any) -> Any:
        with self._lock:
            self.items.pop(code, None)
            self.items[code] = value
            while len(self.items) > self.size:
                del self.items[next(iter(self.items))]
        return value


_PATTERNS = _Memo(512)  # code → Pattern
_HEARD = _Memo(512)
_VERDICTS = _Memo(2048)  # (code, scale pitch classes) → Verdict  # code → the events of its first HEARD_CYCLES cycles, as validation found them


def _evaluate(code: str) -> Any:
    from bandstand.patterns import evaluate

    return evaluate(code)


def compile_pattern(code: str) -> Any:
    """The Pattern for `code` (cached, and shared with validation: members repeat themselves)."""
    return _PATTERNS.get(code, _evaluate)


def onsets(code: str, cycles: int) -> list[Any]:
    """The haps of `code` that start in its first `cycles` cycles: the ones validation
    found when it played the code (no query), else a query (which may raise)."""
    heard = _HEARD.items.get(code)
    if heard is not None and cycles <= HEARD_CYCLES:
        return [h for h in heard if h.whole is not None and h.whole.begin < cycles]
    return [h for h in compile_pattern(code).query_arc(0, cycles) if h.has_onset()]


def validate(code: str, scale: list[str]) -> Verdict:
    """Check a member's pattern before it may sound (the pattern engine's verdict).
    Verdicts are cached by code and scale: members often repeat themselves."""
    text = code.strip()
    if text == SILENCE:
        return Verdict(True)
    key = (text, tuple(pitch_class(n) for n in scale))
    verdict: Verdict = _VERDICTS.get(key, lambda k: _validate(*k))
    return verdict


def known_verdict(code: str, scale: list[str]) -> Verdict | None:
    """The verdict for `code` if it was checked before (nothing is computed), else None."""
    text = code.strip()
    if text == SILENCE:
        return Verdict(True)
    found: Verdict | None = _VERDICTS.items.get((text, tuple(pitch_class(n) for n in scale)))
    return found


def _validate(text: str, scale: tuple[int, ...]) -> Verdict:
    from bandstand.patterns.validate import check_pattern

    try:
        checked = check_pattern(text, scale=list(scale), cycles=HEARD_CYCLES)
    except Exception as exc:  # the validator never raises for bad code; this is a guard
        return Verdict(False, f"{type(exc).__name__}: {exc}")
    report = checked.report
    if checked.pattern is not None:  # played already: keep what the engine made of it
        _PATTERNS.put(text, checked.pattern)
        _HEARD.put(text, checked.events)
    if report.valid:
        return Verdict(True, warnings=tuple(report.warnings))
    reasons = [report.error] if report.error else []
    if report.unknown_functions:
        reasons.append("unknown function " + ", ".join(report.unknown_functions))
    if report.unknown_sounds:
        reasons.append("unknown sound " + ", ".join(report.unknown_sounds))
    reasons.extend(report.warnings)
    return Verdict(False, name_notes("; ".join(r for r in reasons if r) or "invalid pattern"))


_MIDI_LIST = re.compile(r"\(MIDI (\d+(?:, \d+)*)\)")


def name_notes(reason: str) -> str:
    """A validation reason with its MIDI numbers as note names, as musicians say them:
    "… outside the given scale (MIDI 61, 66, 71)" → "… outside the given scale (C#, F#, B)"."""
    from bandstand.theory import spell_pitch_class

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


def cycle_events(member: str, code: str, cycle: int) -> list[SoundEvent]:
    """The sound events of `code` starting inside `cycle`, times relative to the cycle;
    each says how the recording plays it in General MIDI (program, key, velocity)."""
    from bandstand.patterns.to_score import midi_voice

    if code.strip() == SILENCE:
        return []
    haps = compile_pattern(code).query_arc(cycle, cycle + 1)
    out = []
    for hap in haps:
        if not hap.has_onset() or not isinstance(hap.value, dict):
            continue
        value = hap.value
        sound = str(value.get("s", "") or ("triangle" if "note" in value or "n" in value else ""))
        if not sound:
            continue
        begin = Fraction(hap.whole.begin) - cycle
        duration = Fraction(hap.whole.end) - Fraction(hap.whole.begin)
        legato = _num(value, "legato") or 1.0
        voice = midi_voice(value)
        out.append(
            SoundEvent(
                begin=float(begin),
                duration=float(duration) * legato,
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
            )
        )
    return out

"""``scale``: scale degrees to spelled notes, and notes quantized to a scale.

Follows @strudel/tonal 1.2.6: ``n("0 2 4").scale("C4:minor")`` gives the notes
C4 Eb4 G4 (spelled as tonal spells them), negative and large degrees wrap by
octaves, ``"3#"``/``"2b"`` shift by semitones, and note names are moved to the
nearest scale note (ties go up). Scale names come from `bandstand.theory`
(the names tonal accepts: ``"D:dorian"``, ``"C:minor:pentatonic"``).
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from bandstand.errors import PatternError, TheoryError
from bandstand.patterns.hap import Hap
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.time import TimeSpan
from bandstand.patterns.values import is_note, js_number, note_to_midi
from bandstand.theory import SCALES, letter_pc, scale_type
from bandstand.theory import parse_interval as theory_interval

__all__ = ["scale", "scale_note", "scale_transpose"]

_LETTERS = "CDEFGAB"
_TONIC = re.compile(r"^([a-gA-G])(#+|b+|s+|f+)?(-?\d+)?$")
_STEP = re.compile(r"^(-?\d+)([#bsf]*)$")
_INTERVAL = re.compile(r"^(\d+)([PMmAd]+)$")
# Where tonal (@tonaljs/scale-type, which Strudel uses) spells a scale otherwise than
# bandstand.theory: the same pitch classes, other letters.
_TONAL_SPELLING = {
    "chromatic": "1P 2m 2M 3m 3M 4P 5d 5P 6m 6M 7m 7M",
    "whole tone": "1P 2M 3M 4A 5A 6A",
    "altered": "1P 2m 2A 3M 4A 6m 7m",
    "enigmatic": "1P 2m 3M 5d 6m 7m 7M",
    "bebop major": "1P 2M 3M 4P 5P 5A 6M 7M",
}


@functools.lru_cache(maxsize=512)
def _parse_scale(name: str) -> tuple[str, int, int | None, tuple[tuple[int, int], ...]]:
    """(tonic letter, tonic accidental, tonic octave or None, [(letter steps, semitones)])."""
    text = name.replace(":", " ").strip()
    head, _, rest = text.partition(" ")
    m = _TONIC.match(head)
    if m is None:
        # tonal accepts a scale without a tonic ("minor"): Strudel then builds it on C3
        m, rest = _TONIC.match("C"), text
    if m is None or not rest.strip():
        raise PatternError(
            f'scale name "{name}" is incomplete or invalid (use a tonic and a scale, like "C:major")',
            text=name,
            position=0,
        )
    letter, acc, octave = m.groups()
    accidental = 0
    if acc:
        accidental = len(acc) if acc[0] in "#s" else -len(acc)
    try:
        mode = scale_type(rest.strip())
    except TheoryError as exc:
        raise PatternError(
            f'invalid scale name "{name}": {exc.message}', text=name, position=0
        ) from None
    steps = []
    spelled = _TONAL_SPELLING[mode].split() if mode in _TONAL_SPELLING else SCALES[mode]
    for iv in spelled:
        im = _INTERVAL.match(iv)
        assert im is not None
        steps.append((int(im.group(1)) - 1, theory_interval(iv).semitones))
    return letter.upper(), accidental, None if octave is None else int(octave), tuple(steps)


def _spell(letter: str, accidental: int, octave: int, letter_steps: int, semitones: int) -> str:
    """The note `semitones` above the tonic, on the letter `letter_steps` above it."""
    index = _LETTERS.index(letter) + letter_steps
    new_letter = _LETTERS[index % 7]
    new_octave = octave + index // 7
    tonic_midi = (octave + 1) * 12 + letter_pc(letter) + accidental
    natural = (new_octave + 1) * 12 + letter_pc(new_letter)
    shift = tonic_midi + semitones - natural
    acc = "#" * shift if shift > 0 else "b" * -shift
    return f"{new_letter}{acc}{new_octave}"


def _transpose_semitones(note: str, offset: int) -> str:
    """tonal's Note.transpose(note, Interval.fromSemitones(offset)) for small offsets."""
    m = re.match(r"^([A-G])(#*|b*)(-?\d+)$", note)
    assert m is not None
    letter, acc, octave = m.groups()
    accidental = len(acc) if acc.startswith("#") else -len(acc)
    # fromSemitones spells 1 as 2m, 2 as 2M, 3 as 3m, 4 as 3M, 5 as 4P, 6 as 5d, ...
    table = [
        (0, 0),
        (1, 1),
        (1, 2),
        (2, 3),
        (2, 4),
        (3, 5),
        (4, 6),
        (4, 7),
        (5, 8),
        (5, 9),
        (6, 10),
        (6, 11),
    ]
    octaves, rem = divmod(abs(offset), 12)
    steps, semis = table[rem]
    steps += 7 * octaves
    semis += 12 * octaves
    if offset < 0:
        steps, semis = -steps, -semis
    return _spell(letter, accidental, int(octave), steps, semis)


def scale_note(step: Any, name: str) -> str:
    """Scale degree `step` (0-based; may wrap by octaves) of the scale `name` as a spelled note."""
    letter, accidental, octave, steps = _parse_scale(name)
    number = js_number(step) if isinstance(step, str) else step
    offset = 0
    if number is None:
        m = _STEP.match(str(step))
        if m is None:
            raise PatternError(f'invalid scale step "{step}"', text=str(step), position=0)
        number = int(m.group(1))
        offset = sum(1 if c in "#s" else -1 for c in m.group(2))
    if number != number or math.isinf(number):
        raise PatternError(f'invalid scale step "{step}"', text=str(step), position=0)
    k = math.ceil(number)
    n = len(steps)
    octs = math.floor(k / n)
    letter_steps, semitones = steps[k % n]
    result = _spell(
        letter,
        accidental,
        3 if octave is None else octave,
        letter_steps + 7 * octs,
        semitones + 12 * octs,
    )
    if offset:
        result = _transpose_semitones(result, offset)
    return result


def _nearest(name: str, note: str) -> str:
    letter, accidental, _, steps = _parse_scale(name)
    spelled = [_spell(letter, accidental, 0, ls, st) for ls, st in [*steps, (7, 12)]]
    midis = [note_to_midi(s) for s in spelled]
    midi = note_to_midi(note)
    octave_diff = math.floor((midi - midis[0]) / 12)
    aligned = [m + 12 * octave_diff for m in midis]
    best, best_diff = 0, math.inf
    for i, m in enumerate(aligned):
        diff = abs(m - midi)
        if diff <= best_diff:
            best, best_diff = i, diff
    return _transpose_semitones(spelled[best], 12 * octave_diff)


def _scale_value(value: Any, name: str) -> Any:
    is_obj = isinstance(value, dict)
    h = value if is_obj else {"n": value}
    other = {k: v for k, v in h.items() if k not in ("note", "n", "value")}
    note_or_step = h.get("note", h.get("n", h.get("value")))
    if note_or_step is None:
        return value
    if is_note(note_or_step):
        result = _nearest(name, note_or_step)
    else:
        try:
            result = scale_note(note_or_step, name)
        except PatternError:
            return _DROP  # Strudel logs the error and drops the event
    return {**other, "note": result} if is_obj else result


_DROP = object()


def scale(name: Any, pat: Pattern) -> Pattern:
    """Turn scale degrees (n or plain numbers) into notes of the scale; quantize note names."""
    if isinstance(name, list):
        name = " ".join(str(x) for x in _flat(name))
    name = str(name)
    query = pat.query

    def q(span: TimeSpan, ctl: Any) -> list[Hap]:
        out = []
        for h in query(span, ctl):
            v = _scale_value(h.value, name)
            if v is h.value:  # nothing to place: Strudel passes it on untagged
                out.append(h)
            elif v is not _DROP:
                out.append(Hap(h.whole, h.part, v, (*h.context, ("scale", name))))
        return out

    return Pattern(q, pat.steps)


def _flat(xs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        out.extend(_flat(x) if isinstance(x, list) else [x])
    return out


_NOTE_NAME = re.compile(r"^([a-gA-G])(#*|b*)(-?\d*)$")


def _interval_steps(text: str) -> tuple[int, int] | None:
    """(letter steps, semitones) of a tonal interval name like "3M", "-2m", "P5"; None if invalid."""
    try:
        iv = theory_interval(text)
    except TheoryError:
        return None
    return int(iv.steps), int(iv.semitones)


def _transpose_note(note: str, amount: Any) -> str:
    m = _NOTE_NAME.match(note)
    if m is None:
        return ""  # tonal gives an empty name for what it cannot read
    letter, acc, octave = m.groups()
    accidental = len(acc) if acc.startswith("#") else -len(acc)
    number = js_number(amount) if isinstance(amount, str) else amount
    if isinstance(number, (int, float)) and not isinstance(number, bool):
        table = [
            (0, 0),
            (1, 1),
            (1, 2),
            (2, 3),
            (2, 4),
            (3, 5),
            (4, 6),
            (4, 7),
            (5, 8),
            (5, 9),
            (6, 10),
            (6, 11),
        ]
        octaves, rem = divmod(abs(int(number)), 12)
        steps, semis = table[rem]
        steps, semis = steps + 7 * octaves, semis + 12 * octaves
        if number < 0:
            steps, semis = -steps, -semis
    else:
        parsed = _interval_steps(str(amount))
        if parsed is None:
            return ""
        steps, semis = parsed
    spelled = _spell(letter.upper(), accidental, int(octave) if octave else 4, steps, semis)
    return spelled if octave else re.sub(r"-?\d+$", "", spelled)


def transpose(amount: Any, pat: Pattern) -> Pattern:
    """Move notes by semitones (a number) or by an interval ("3M", "-2m"), keeping spelling."""

    def move(h: Hap) -> Hap:
        value = h.value
        note = value.get("note", value) if isinstance(value, dict) else value
        if isinstance(note, (int, float)) and not isinstance(note, bool):
            if isinstance(amount, (int, float)) and not isinstance(amount, bool):
                semitones: Any = amount
            else:
                parsed = _interval_steps(str(amount))
                semitones = parsed[1] if parsed else 0
            target: Any = note + semitones
        elif isinstance(note, str) and is_note(note):
            target = _transpose_note(note, amount)
        else:
            return h
        new = {**value, "note": target} if isinstance(value, dict) else target
        return Hap(h.whole, h.part, new, h.context)

    return pat.with_hap(move)


_PITCH = re.compile(r"^([a-gA-G])(#+|b+)?(-?\d+)?$")


def _scale_offset(name: str, offset: float, note: Any) -> str:
    """`note` moved `offset` steps along the scale `name` (tonal's scaleOffset)."""
    count = len(_parse_scale(name)[3])
    pcs = [re.sub(r"-?\d+$", "", scale_note(i, name)) for i in range(count)]
    m = _PITCH.match(note) if isinstance(note, str) else None
    if m is None:
        raise ValueError(f'note "{note}" is not in scale "{name}"')
    start = m.group(1).upper() + (m.group(2) or "")
    octave = 3 if m.group(3) is None else int(m.group(3))
    if start not in pcs:
        raise ValueError(f'note "{note}" is not in scale "{name}"')
    index = i = pcs.index(start)
    pc = start
    direction = (offset > 0) - (offset < 0)
    while abs(i - index) < abs(offset):
        i += direction
        if direction < 0 and pc[0] == "C":
            octave += direction
        pc = pcs[i % count]
        if direction > 0 and pc[0] == "C":
            octave += direction
    return f"{pc}{octave}"


def scale_transpose(offset: Any, pat: Pattern) -> Pattern:
    """Move each note `offset` steps along the scale `.scale(...)` placed it in."""
    steps = js_number(offset) if isinstance(offset, str) else offset
    if not isinstance(steps, int | float) or steps != steps:
        raise ValueError(f'scale offset "{offset}" not a number')

    def move(h: Hap) -> Hap:
        name = h.scale()
        if name is None:
            raise ValueError("can only use scaleTranspose after .scale")
        value = h.value
        if isinstance(value, dict):
            return h.with_value(lambda v: {**v, "note": _scale_offset(name, steps, v.get("note"))})
        if not isinstance(value, str):
            raise ValueError("can only use scaleTranspose with notes")
        return h.with_value(lambda v: _scale_offset(name, steps, v))

    return pat.with_hap(move)

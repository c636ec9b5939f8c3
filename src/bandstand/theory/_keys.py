"""Keys: a tonic and a diatonic mode, with a signature and spelling rules.

A key spells its own scale degrees from the scale table and every other pitch
class by a fixed chromatic scheme relative to the tonic (b2, b3, #4, b6, b7),
so F# in C major and Eb in C minor come out as musicians write them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from bandstand.errors import TheoryError
from bandstand.theory._chords import chord_from_notes
from bandstand.theory._notes import LETTER_PCS, LETTERS, NoteName, parse_note_name
from bandstand.theory._scales import Scale, scale_from, scale_type

if TYPE_CHECKING:
    from bandstand.theory._chords import Chord

#: The seven diatonic modes a key may have, in the order of their degree in a major scale.
KEY_MODES: tuple[str, ...] = ("major", "dorian", "phrygian", "lydian", "mixolydian", "minor", "locrian")
#: Mode words written after a tonic that mean major or minor ("F#m", "Eb maj").
_MODE_WORDS: dict[str, str] = {"": "major", "m": "minor", "min": "minor", "M": "major", "maj": "major"}
#: Letter steps above the tonic used to spell each chromatic offset that is not in the key.
_CHROMATIC_STEPS: tuple[int, ...] = (0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6)
_TONIC_CHARS = set(LETTERS + LETTERS.lower())
_ACCIDENTALS = set("#b♯♭x")


@dataclass(frozen=True, slots=True)
class Key:
    """A key: spelled tonic, mode (one of `KEY_MODES`), its scale and signature (sharps > 0, flats < 0)."""

    tonic: str
    mode: str
    scale: Scale
    signature: int

    @property
    def name(self) -> str:
        return f"{self.tonic} {self.mode}"

    @property
    def tonic_pc(self) -> int:
        return self.scale.pitch_classes[0]

    @property
    def is_minor(self) -> bool:
        """True when the key's third is minor (minor, dorian, phrygian, locrian)."""
        return self.scale.intervals[2] == 3

    def __str__(self) -> str:
        return self.name

    def relative(self) -> Key:
        """Major ↔ relative minor; any other mode → the major key with the same signature."""
        if self.mode == "major":
            return key_from(parse_note_name(self.scale.notes[5]), "minor")
        index = KEY_MODES.index(self.mode)
        return key_from(parse_note_name(self.scale.notes[(7 - index) % 7]), "major")

    def parallel(self) -> Key:
        """Major ↔ minor on the same tonic; any other mode → major on the same tonic."""
        return key_from(parse_note_name(self.tonic), "minor" if self.mode == "major" else "major")

    @property
    def spelled(self) -> tuple[NoteName, ...]:
        """The scale's notes as spelled pitch classes."""
        return _spelled(self.scale.notes)

    def spell_name(self, pc: int) -> NoteName:
        """The spelled pitch class `pc` in this key."""
        pc %= 12
        spelled = self.spelled
        if pc in self.scale.pitch_classes:
            return spelled[self.scale.pitch_classes.index(pc)]
        tonic = spelled[0]
        letter = (tonic.letter + _CHROMATIC_STEPS[(pc - tonic.pc) % 12]) % 7
        natural = NoteName(letter).pc
        alter = (pc - natural + 6) % 12 - 6
        return NoteName(letter, alter)

    def spell(self, pc: int) -> str:
        """Name of pitch class `pc` in this key: ``parse_key("Eb major").spell(8) == "Ab"``."""
        return self.spell_name(pc).pc_name

    def degree_chords(self, sevenths: bool = False) -> tuple[Chord, ...]:
        """The chords built in thirds on each scale degree (triads, or sevenths)."""
        notes = [parse_note_name(n) for n in self.scale.notes]
        size = 4 if sevenths else 3
        return tuple(
            chord_from_notes([notes[(degree + 2 * k) % 7] for k in range(size)]) for degree in range(7)
        )


@lru_cache(maxsize=1024)
def _spelled(notes: tuple[str, ...]) -> tuple[NoteName, ...]:
    return tuple(parse_note_name(n) for n in notes)


def key_from(tonic: NoteName, mode: str) -> Key:
    """The key of `mode` (a name or alias of one of `KEY_MODES`) on a spelled tonic."""
    try:
        canonical = scale_type(mode)
    except TheoryError:  # not a scale at all: the key's own list is the useful one, not all 41 scales
        canonical = ""
    if canonical not in KEY_MODES:
        raise TheoryError(
            f"a key's mode must be one of {', '.join(KEY_MODES)}, not {mode!r}", text=mode, position=0
        )
    scale = scale_from(tonic.with_octave(None), canonical)
    signature = sum(parse_note_name(n).alter for n in scale.notes)
    return Key(scale.tonic, canonical, scale, signature)


def key_with_signature(sharps: int, minor: bool = False) -> Key:
    """The major (or, with `minor`, minor) key whose signature has `sharps` sharps (flats when
    negative, -7..7): each sharp is a fifth up the circle, four letters and seven semitones, and
    the relative minor a minor third below (``key_with_signature(-3, True)`` is C minor)."""
    if not -7 <= sharps <= 7:
        raise TheoryError(f"a key signature has -7 to 7 sharps, not {sharps}", text=str(sharps), position=0)
    letter, pc = (sharps * 4) % 7, (sharps * 7) % 12
    if minor:
        letter, pc = (letter - 2) % 7, (pc - 3) % 12
    alter = (pc - LETTER_PCS[letter] + 6) % 12 - 6
    return key_from(NoteName(letter, alter), "minor" if minor else "major")


def parse_key(text: str | Key) -> Key:
    """A key from ``"F# minor"``, ``"F#m"``, ``"Eb"``, ``"D dorian"``, ``"c:minor"``; a bare tonic is major."""
    if isinstance(text, Key):
        return text
    return _parse_key(text)


@lru_cache(maxsize=1024)
def _parse_key(text: str) -> Key:
    source = text
    body = text.replace(":", " ").strip()
    start = len(text) - len(text.lstrip())
    if not body or body[0] not in _TONIC_CHARS:
        raise TheoryError(
            f"not a key: {text!r} (expected a tonic and a mode, like 'F# minor' or 'Eb')",
            text=source, position=start,
        )
    end = 1
    while end < len(body) and body[end] in _ACCIDENTALS:
        end += 1
    tonic = parse_note_name(body[:end], offset=start, source=source)
    rest = body[end:].strip()
    mode = _MODE_WORDS.get(rest, rest)
    try:
        return key_from(tonic, mode)
    except TheoryError as exc:
        position = start + end + (len(body[end:]) - len(body[end:].lstrip()))
        raise TheoryError(f"{exc.message} in {text!r}", text=source, position=position) from None

"""Note names and MIDI numbers.

A note name is a letter (A–G, any case), accidentals (``#``/``s``, ``b``/``f``,
``x`` or ``##``, ``bb``, Unicode ♯ ♭ 𝄪 𝄫) and an optional octave; C4 is MIDI 60
and C-1 is 0. The octave belongs to the letter, so B#3 is 60 and Cb4 is 59.
Spelled names are kept as (letter, alteration) pairs so that keys, chords and
intervals can spell their notes correctly.
"""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.errors import TheoryError

LETTERS = "CDEFGAB"
#: Pitch class of each natural letter, in the order of `LETTERS`.
LETTER_PCS: tuple[int, ...] = (0, 2, 4, 5, 7, 9, 11)
_LETTER_HELP = "expected one of A B C D E F G"


def letter_pc(letter: str) -> int:
    """The pitch class of a natural letter, either case ("c" and "C" are 0, "b" is 11)."""
    index = LETTERS.find(letter.upper()) if len(letter) == 1 else -1
    if index < 0:
        raise TheoryError(f"{letter!r} is not a note letter; {_LETTER_HELP}")
    return LETTER_PCS[index]


#: Accidental characters and the semitones each adds.
_ACCIDENTAL_CHARS: dict[str, int] = {
    "#": 1, "♯": 1, "s": 1, "x": 2, "𝄪": 2,
    "b": -1, "♭": -1, "f": -1, "𝄫": -2,
}
_ACCIDENTAL_TEXT: dict[int, str] = {-3: "bbb", -2: "bb", -1: "b", 0: "", 1: "#", 2: "##", 3: "###"}
#: Default spelling of each pitch class when no key says otherwise.
SHARP_NAMES: tuple[str, ...] = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
FLAT_NAMES: tuple[str, ...] = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
#: How a chord root or a major key's tonic is usually spelled without a key: flats, but F#.
ROOT_NAMES: tuple[str, ...] = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
#: How a minor key's tonic is usually spelled: C#, F# and G# minor, but Eb and Bb minor.
MINOR_TONIC_NAMES: tuple[str, ...] = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B")

# the octaves MIDI notes 0-127 fall in (C-1 is 0, G9 is 127)
MIN_OCTAVE, MAX_OCTAVE = -1, 9
_NOTE_HELP = "expected a letter A-G, optional accidentals (# b x), and an octave like C#4"


@dataclass(frozen=True, slots=True)
class NoteName:
    """A spelled pitch: a letter index (0 = C … 6 = B), an alteration in semitones, an optional octave."""

    letter: int
    alter: int = 0
    octave: int | None = None

    @property
    def pc(self) -> int:
        """Pitch class 0–11."""
        return (LETTER_PCS[self.letter] + self.alter) % 12

    @property
    def midi(self) -> int:
        """MIDI number (needs an octave)."""
        if self.octave is None:
            raise TheoryError(f"note {self.name!r} has no octave", text=self.name, position=len(self.name))
        return (self.octave + 1) * 12 + LETTER_PCS[self.letter] + self.alter

    @property
    def step(self) -> int:
        """Diatonic step number: letters counted from C-1 (needs an octave for a full count)."""
        return (self.octave or 0) * 7 + self.letter

    @property
    def pc_name(self) -> str:
        """The name without octave, e.g. ``"C#"``."""
        return LETTERS[self.letter] + accidental_text(self.alter)

    @property
    def name(self) -> str:
        """The name with octave when there is one, e.g. ``"C#4"``."""
        return self.pc_name + ("" if self.octave is None else str(self.octave))

    def with_octave(self, octave: int | None) -> NoteName:
        return NoteName(self.letter, self.alter, octave)


def accidental_text(alter: int) -> str:
    """``#``/``b`` text for an alteration (``##``, ``bb`` for doubles)."""
    if alter in _ACCIDENTAL_TEXT:
        return _ACCIDENTAL_TEXT[alter]
    return ("#" if alter > 0 else "b") * abs(alter)


def parse_note_name(text: str, *, offset: int = 0, source: str | None = None,
                    octave_required: bool = False) -> NoteName:
    """Parse a spelled note name; errors point at the offending character.

    `offset` and `source` let callers (chord and key parsers) report positions
    in their own, longer text.
    """
    src = text if source is None else source
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    if not stripped:
        raise TheoryError(f"empty note name ({_NOTE_HELP})", text=src, position=offset)
    letter_char = stripped[0].upper()
    if letter_char not in LETTERS:
        raise TheoryError(
            f"not a note name: {stripped!r} at position {offset + lead} ({_NOTE_HELP})",
            text=src, position=offset + lead,
        )
    i = 1
    alter = 0
    kinds: set[int] = set()
    while i < len(stripped) and stripped[i] in _ACCIDENTAL_CHARS:
        step = _ACCIDENTAL_CHARS[stripped[i]]
        kinds.add(1 if step > 0 else -1)
        alter += step
        if len(kinds) > 1 or abs(alter) > 3:
            raise TheoryError(
                f"mixed or too many accidentals in {stripped!r} at position {offset + lead + i}",
                text=src, position=offset + lead + i,
            )
        i += 1
    octave: int | None = None
    rest = stripped[i:]
    if rest:
        j = 1 if rest[0] == "-" else 0
        while j < len(rest) and rest[j] in "0123456789":
            j += 1
        if j < len(rest) or rest in ("", "-"):
            at = offset + lead + i + min(j, len(rest) - 1)
            bad = rest[min(j, len(rest) - 1)]
            raise TheoryError(
                f"not a note name: {stripped!r}, unexpected {bad!r} at position {at} ({_NOTE_HELP})",
                text=src, position=at,
            )
        octave = int(rest)
        if not MIN_OCTAVE <= octave <= MAX_OCTAVE:  # C99 is a typo, not MIDI note 1200
            at = offset + lead + i
            raise TheoryError(
                f"octave {octave} in {stripped!r} at position {at} is outside {MIN_OCTAVE} to {MAX_OCTAVE} "
                "(MIDI notes run from C-1 to G9)",
                text=src, position=at,
            )
    elif octave_required:
        raise TheoryError(
            f"note {stripped!r} needs an octave, e.g. {stripped}4", text=src, position=offset + lead + i
        )
    return NoteName(LETTERS.index(letter_char), alter, octave)


def note_to_midi(name: str, *, default_octave: int | None = None) -> int:
    """MIDI number of a note name: ``note_to_midi("C#4") == 61``.

    A name without an octave is an error unless `default_octave` is given.
    """
    note = parse_note_name(name, octave_required=default_octave is None)
    if note.octave is None:
        note = note.with_octave(default_octave)
    return note.midi


def pitch_class(name: str | int) -> int:
    """Pitch class 0–11 of a note name (octave optional) or a MIDI number."""
    if isinstance(name, int):
        return name % 12
    return parse_note_name(name).pc


def note_from_midi(midi: int, pc_name: NoteName) -> NoteName:
    """The spelled note `pc_name` (letter and alteration) placed at MIDI number `midi`."""
    octave = (midi - LETTER_PCS[pc_name.letter] - pc_name.alter) // 12 - 1
    return NoteName(pc_name.letter, pc_name.alter, octave)

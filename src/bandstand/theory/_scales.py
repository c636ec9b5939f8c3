"""Scales and modes as a table of interval names.

Each scale is a tuple of interval names from its tonic (``"1P 2M 3m ..."``),
which gives both the semitones and the letter of each degree, so spelled notes
come out right (C blues is C Eb F Gb G Bb). Names and aliases follow the ones
Strudel and tonal accept (``"minor"``, ``"harmonic minor"``, ``"minor pentatonic"``),
and lookup ignores case, spaces, hyphens and underscores.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

from bandstand.errors import TheoryError
from bandstand.theory._intervals import Interval, parse_interval, transpose_name
from bandstand.theory._notes import NoteName, parse_note_name

#: canonical name → interval names from the tonic.
SCALES: dict[str, tuple[str, ...]] = {
    name: tuple(spec.split())
    for name, spec in {
        "major": "1P 2M 3M 4P 5P 6M 7M",
        "minor": "1P 2M 3m 4P 5P 6m 7m",
        "dorian": "1P 2M 3m 4P 5P 6M 7m",
        "phrygian": "1P 2m 3m 4P 5P 6m 7m",
        "lydian": "1P 2M 3M 4A 5P 6M 7M",
        "mixolydian": "1P 2M 3M 4P 5P 6M 7m",
        "locrian": "1P 2m 3m 4P 5d 6m 7m",
        "harmonic minor": "1P 2M 3m 4P 5P 6m 7M",
        "melodic minor": "1P 2M 3m 4P 5P 6M 7M",
        "harmonic major": "1P 2M 3M 4P 5P 6m 7M",
        "major pentatonic": "1P 2M 3M 5P 6M",
        "minor pentatonic": "1P 3m 4P 5P 7m",
        "blues": "1P 3m 4P 5d 5P 7m",
        "major blues": "1P 2M 3m 3M 5P 6M",
        "whole tone": "1P 2M 3M 4A 5A 7m",
        "chromatic": "1P 2m 2M 3m 3M 4P 4A 5P 6m 6M 7m 7M",
        "phrygian dominant": "1P 2m 3M 4P 5P 6m 7m",
        "lydian dominant": "1P 2M 3M 4A 5P 6M 7m",
        "lydian augmented": "1P 2M 3M 4A 5A 6M 7M",
        "locrian #2": "1P 2M 3m 4P 5d 6m 7m",
        "altered": "1P 2m 3m 3M 5d 6m 7m",
        "dorian b2": "1P 2m 3m 4P 5P 6M 7m",
        "mixolydian b6": "1P 2M 3M 4P 5P 6m 7m",
        "bebop": "1P 2M 3M 4P 5P 6M 7m 7M",
        "bebop major": "1P 2M 3M 4P 5P 6m 6M 7M",
        "bebop minor": "1P 2M 3m 3M 4P 5P 6M 7m",
        "hungarian minor": "1P 2M 3m 4A 5P 6m 7M",
        "hungarian major": "1P 2A 3M 4A 5P 6M 7m",
        "double harmonic major": "1P 2m 3M 4P 5P 6m 7M",
        "neapolitan minor": "1P 2m 3m 4P 5P 6m 7M",
        "neapolitan major": "1P 2m 3m 4P 5P 6M 7M",
        "diminished": "1P 2M 3m 4P 5d 6m 6M 7M",
        "half-whole diminished": "1P 2m 3m 3M 4A 5P 6M 7m",
        "augmented": "1P 2A 3M 5P 5A 7M",
        "persian": "1P 2m 3M 4P 5d 6m 7M",
        "enigmatic": "1P 2m 3M 4A 5A 6A 7M",
        "hirajoshi": "1P 2M 3m 5P 6m",
        "in-sen": "1P 2m 4P 5P 7m",
        "egyptian": "1P 2M 4P 5P 7m",
        "ritusen": "1P 2M 4P 5P 6M",
        "prometheus": "1P 2M 3M 4A 6M 7m",
    }.items()
}

#: other names → canonical name.
SCALE_ALIASES: dict[str, str] = {
    "ionian": "major",
    "aeolian": "minor",
    "natural minor": "minor",
    "maj": "major",
    "min": "minor",
    "pentatonic": "major pentatonic",
    "minor blues": "blues",
    "blues minor": "blues",
    "wholetone": "whole tone",
    "whole-tone": "whole tone",
    "spanish": "phrygian dominant",
    "mixolydian #11": "lydian dominant",
    "overtone": "lydian dominant",
    "super locrian": "altered",
    "superlocrian": "altered",
    "half diminished": "locrian #2",
    "aeolian b5": "locrian #2",
    "phrygian #6": "dorian b2",
    "melodic minor second mode": "dorian b2",
    "hindu": "mixolydian b6",
    "bebop dominant": "bebop",
    "gypsy minor": "hungarian minor",
    "double harmonic": "double harmonic major",
    "byzantine": "double harmonic major",
    "whole-half diminished": "diminished",
    "octatonic": "diminished",
    "dominant diminished": "half-whole diminished",
    "insen": "in-sen",
    "chinese": "major pentatonic",
}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in " -_")


_LOOKUP: dict[str, str] = {_key(n): n for n in SCALES} | {_key(a): c for a, c in SCALE_ALIASES.items()}


def scale_type(name: str) -> str:
    """The canonical scale name for a name or alias; raises `TheoryError` if unknown."""
    found = _LOOKUP.get(_key(name))
    if found is None:
        close = difflib.get_close_matches(name.lower(), [*SCALES, *SCALE_ALIASES], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise TheoryError(f"unknown scale {name!r} ({hint}known: {', '.join(SCALES)})", text=name, position=0)
    return found


@dataclass(frozen=True, slots=True)
class Scale:
    """A scale on a tonic: spelled notes, pitch classes and semitone intervals, in scale order."""

    tonic: str
    mode_name: str
    intervals: tuple[int, ...]
    pitch_classes: tuple[int, ...]
    notes: tuple[str, ...]
    octave: int | None = None

    @property
    def name(self) -> str:
        return f"{self.tonic} {self.mode_name}"

    @property
    def tonic_pc(self) -> int:
        return self.pitch_classes[0]

    def __len__(self) -> int:
        return len(self.intervals)

    def __contains__(self, pc: object) -> bool:
        return isinstance(pc, int) and pc % 12 in self.pitch_classes

    def degree_to_midi(self, step: int, root: int | None = None) -> int:
        """MIDI number of scale step `step` (0 = tonic; negative and past-the-octave wrap).

        `root` is the tonic's MIDI number; by default the scale's own octave (or 3,
        Strudel's default) is used: ``get_scale("C4 major").degree_to_midi(7) == 72``.
        """
        if root is None:
            octave = 3 if self.octave is None else self.octave
            root = (octave + 1) * 12 + self.tonic_pc
        octaves, index = divmod(step, len(self.intervals))
        return root + 12 * octaves + self.intervals[index]

    def nearest(self, midi: int) -> int:
        """The scale note closest to `midi` (ties go down)."""
        for distance in range(12):
            for candidate in (midi - distance, midi + distance):
                if candidate % 12 in self.pitch_classes:
                    return candidate
        raise TheoryError(f"scale {self.name} has no notes", text=self.name)


def scale_from(tonic: NoteName, kind: str) -> Scale:
    """Build the scale `kind` (a name or alias) on a spelled tonic."""
    mode = scale_type(kind)
    steps: list[Interval] = [parse_interval(i) for i in SCALES[mode]]
    root = tonic.with_octave(None)
    spelled = [transpose_name(root, i) for i in steps]
    return Scale(
        tonic=root.pc_name,
        mode_name=mode,
        intervals=tuple(i.semitones for i in steps),
        pitch_classes=tuple(n.pc for n in spelled),
        notes=tuple(n.pc_name for n in spelled),
        octave=tonic.octave,
    )


@lru_cache(maxsize=1024)
def get_scale(name: str) -> Scale:
    """A scale from ``"Eb dorian"``, ``"C4:minor"``, ``"c minor pentatonic"``; a bare tonic is major."""
    text = name.replace(":", " ").strip()
    if not text:
        raise TheoryError("empty scale name (expected a tonic and a scale, like 'Eb dorian')", text=name, position=0)
    head, _, rest = text.partition(" ")
    tonic = parse_note_name(head, offset=name.index(head[0]), source=name)
    kind = rest.strip() or "major"
    try:
        return scale_from(tonic, kind)
    except TheoryError as exc:
        position = max(name.find(rest.strip()) if rest.strip() else len(name), 0)
        raise TheoryError(f"{exc.message} in {name!r} at position {position}", text=name, position=position) from None

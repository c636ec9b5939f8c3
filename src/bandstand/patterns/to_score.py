"""Events → score: turn a pattern's haps into a `bandstand.score.Song`.

Every hap with an onset becomes a note: drum sounds (bd, sd, hh, …) become
hits on the General MIDI drum channel, every other sound a pitched note on a
track of its own with a GM program. Pitch comes from `note` (a MIDI number or
a note name, c3 = 48 as in Strudel), else `freq`, else superdough's default
note 36; velocity from `gain` × `velocity`; duration from the hap's whole ×
`legato`, held at most `MAX_HOLD_CYCLES`. Cycles become beats through `beats_per_cycle`. The tables here are
also the "known sounds" the validator checks against.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal

from bandstand.errors import InvalidInput
from bandstand.midi.gm import (
    DRUM_KITS,
    GM_DRUMS,
    drum_kit_of_bank,
    program_by_name,
    program_by_soundfont,
)
from bandstand.patterns.budget import DEFAULT_QUERY_BUDGET, QueryBudget, metered
from bandstand.patterns.values import is_note, js_number, note_to_midi
from bandstand.score import Note, Song, TimeSignature, Track

if TYPE_CHECKING:
    from bandstand.score import Song

SoundKind = Literal["drum", "synth", "instrument"]

# Strudel's drum-machine names (and a few everyday words), all keys of the GM drum map.
DRUM_SOUNDS: Final = (
    "bd", "sd", "hh", "oh", "cp", "rim", "lt", "mt", "ht", "cr", "rd", "cb", "sh", "tb", "perc",
    "kick", "snare", "clap", "hihat", "openhat", "crash", "ride", "tom", "cowbell", "shaker",
    "tambourine", "misc", "brk",
)  # fmt: skip
_DRUM_EXTRA: Final = {"sh": "shaker", "tb": "tambourine", "misc": "perc", "brk": "kick"}

# superdough's oscillators and noises → the GM program that sounds closest.
SYNTH_SOUNDS: Final[dict[str, str]] = {
    "sawtooth": "Lead 2 (sawtooth)", "saw": "Lead 2 (sawtooth)", "supersaw": "Lead 2 (sawtooth)",
    "square": "Lead 1 (square)", "sqr": "Lead 1 (square)", "pulse": "Lead 1 (square)",
    "triangle": "Lead 3 (calliope)", "tri": "Lead 3 (calliope)",
    "sine": "Ocarina", "sin": "Ocarina",
    "white": "Breath Noise", "pink": "Breath Noise", "brown": "Breath Noise",
}  # fmt: skip

# Instrument words musicians use (Strudel's sample and soundfont names included) → GM program.
INSTRUMENT_SOUNDS: Final[dict[str, str]] = {
    "piano": "Acoustic Grand Piano", "superpiano": "Acoustic Grand Piano",
    "epiano": "Electric Piano 1", "rhodes": "Electric Piano 1", "organ": "Drawbar Organ",
    "harpsichord": "Harpsichord", "clavinet": "Clavinet", "celesta": "Celesta",
    "glockenspiel": "Glockenspiel", "musicbox": "Music Box", "vibraphone": "Vibraphone",
    "marimba": "Marimba", "xylophone": "Xylophone", "bell": "Tubular Bells", "accordion": "Accordion",
    "harmonica": "Harmonica", "guitar": "Acoustic Guitar (steel)", "nylon": "Acoustic Guitar (nylon)",
    "bass": "Electric Bass (finger)", "jvbass": "Synth Bass 1", "synthbass": "Synth Bass 1",
    "violin": "Violin", "viola": "Viola", "cello": "Cello", "contrabass": "Contrabass",
    "harp": "Orchestral Harp", "timpani": "Timpani", "strings": "String Ensemble 1",
    "choir": "Choir Aahs", "voice": "Voice Oohs", "trumpet": "Trumpet", "trombone": "Trombone",
    "tuba": "Tuba", "horn": "French Horn", "brass": "Brass Section", "sax": "Alto Sax",
    "oboe": "Oboe", "bassoon": "Bassoon", "clarinet": "Clarinet", "piccolo": "Piccolo",
    "flute": "Flute", "recorder": "Recorder", "panflute": "Pan Flute", "ocarina": "Ocarina",
    "lead": "Lead 2 (sawtooth)", "pad": "Pad 2 (warm)", "sitar": "Sitar", "banjo": "Banjo",
    "koto": "Koto", "kalimba": "Kalimba", "steeldrums": "Steel Drums",
    "tubularbells": "Tubular Bells", "pipeorgan": "Church Organ", "psaltery": "Dulcimer",
    "dulcimer": "Dulcimer",
}  # fmt: skip

DEFAULT_SOUND: Final = "triangle"  # superdough plays notes without `s` on a triangle
DEFAULT_NOTE: Final = 36  # superdough's note when neither note nor freq is given
DEFAULT_VELOCITY: Final = 0.9  # Strudel's MIDI output default
_GM_PREFIX: Final = "gm_"
_BANK_SEPARATOR: Final = "_"
_WORK_PER_CYCLE: Final = 4_000  # a render's query budget per cycle: ample for 64 layered events
MAX_HOLD_CYCLES: Final = 16
"""The longest a note may sound, in cycles, whatever its legato or its length (a legato of a
million, or a note slowed a million times, would hold for weeks and overflow a MIDI file)."""


@dataclass(frozen=True, slots=True)
class Sound:
    """A known sound: its kind and its GM number (drum key for drums, program otherwise)."""

    name: str
    kind: SoundKind
    number: int


def _drum_key(name: str) -> int:
    return GM_DRUMS.note(_DRUM_EXTRA.get(name, name))


def _build_table() -> dict[str, Sound]:
    table: dict[str, Sound] = {}
    for name in DRUM_SOUNDS:
        table[name] = Sound(name, "drum", _drum_key(name))
    for name, program in SYNTH_SOUNDS.items():
        table[name] = Sound(name, "synth", program_by_name(program))
    for name, program in INSTRUMENT_SOUNDS.items():
        table[name] = Sound(name, "instrument", program_by_name(program))
    return table


SOUNDS: Final[Mapping[str, Sound]] = _build_table()


def lookup_sound(name: str) -> Sound | None:
    """The sound called `name`: a table entry, `gm_<program>` (Strudel's soundfonts),
    `<bank>_<drum>` (a drum machine bank such as RolandTR909_bd), or a variant of a known
    instrument (bass1, recorder_alto); None if unknown."""
    key = name.strip().lower()
    found = SOUNDS.get(key)
    if found is not None:
        return found
    if key.startswith(_GM_PREFIX):
        program = program_by_soundfont(key)
        if program is not None:
            return Sound(name, "instrument", program)
        rest = key[len(_GM_PREFIX) :]
        try:
            return Sound(name, "instrument", program_by_name(re.sub(r"\d+$", "", rest) or rest))
        except InvalidInput:
            return None
    _, sep, tail = key.rpartition(_BANK_SEPARATOR)
    if sep and tail in SOUNDS and SOUNDS[tail].kind == "drum":
        return Sound(name, "drum", SOUNDS[tail].number)
    # Variants of a known instrument: numbered (bass1) or qualified (recorder_alto, organ_4inch).
    for base in (key.rstrip("0123456789"), key.partition(_BANK_SEPARATOR)[0]):
        found = SOUNDS.get(base)
        if base and base != key and found is not None and found.kind != "drum":
            return Sound(name, found.kind, found.number)
    return None


# --------------------------------------------------------------------------- hap values


def value_sound(value: Any) -> str | None:
    """The `s` of a hap value (None when the value names no sound)."""
    if isinstance(value, Mapping):
        s = value.get("s")
        return str(s) if s is not None else None
    if isinstance(value, str) and lookup_sound(value) is not None:
        return value
    return None


def note_number(note: Any) -> float | None:
    """A MIDI number from a `note` value: a number, or a note name (octave 3 by default)."""
    if isinstance(note, bool):
        return None
    if isinstance(note, int | float):
        return float(note) if math.isfinite(note) else None
    if isinstance(note, str):
        if is_note(note):
            return float(note_to_midi(note))
        number = js_number(note)
        return None if number is None or not math.isfinite(number) else float(number)
    try:
        return float(note)
    except (TypeError, ValueError):
        return None


def freq_to_midi(freq: float) -> float:
    """The (fractional) MIDI number of a frequency in Hz (A4 = 440 Hz = 69)."""
    return 69.0 + 12.0 * math.log2(freq / 440.0)


def value_pitch(value: Any) -> float | None:
    """The explicit pitch of a hap value: `note`, else `freq`; None when the value has neither.

    A bare value (not a control map) is read as a note name or number unless it names a sound.
    """
    if isinstance(value, Mapping):
        if "note" in value:
            return note_number(value["note"])
        freq = value.get("freq")
        if isinstance(freq, int | float) and not isinstance(freq, bool) and freq > 0:
            return freq_to_midi(float(freq))
        return None
    if isinstance(value, str) and lookup_sound(value) is not None:
        return None
    return note_number(value)


def value_velocity(value: Any) -> int:
    """MIDI velocity 1..127 from `gain` × `velocity` (defaults 1 and 0.9)."""
    gain, velocity = 1.0, DEFAULT_VELOCITY
    if isinstance(value, Mapping):
        gain = _number(value.get("gain"), gain)
        velocity = _number(value.get("velocity"), velocity)
    return max(1, min(127, round(127 * gain * velocity)))


def _number(x: Any, default: float) -> float:
    if isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x):
        return float(x)
    return default


@dataclass(frozen=True, slots=True)
class MidiVoice:
    """How a hap value sounds in General MIDI: the program (None: the drum kit on channel 10),
    the key (None: outside 0..127, not played), the velocity and, for a drum, the kit (the
    GS kit its `bank` plays with: `midi.gm.drum_kit_of_bank`; 0, the standard kit, else)."""

    sound: Sound
    program: int | None
    key: int | None
    velocity: int
    kit: int = 0


def value_kit(value: Any) -> int:
    """The drum kit of a hap value's `bank` (0, the standard kit, without one or for a bank
    we do not know)."""
    bank = value.get("bank") if isinstance(value, Mapping) else None
    return (drum_kit_of_bank(bank) or 0) if isinstance(bank, str) else 0


def midi_voice(value: Any) -> MidiVoice:
    """The General MIDI voice of a hap value, as `pattern_to_song` (and so the WAV) plays it."""
    name = value_sound(value) or DEFAULT_SOUND
    sound = lookup_sound(name) or Sound(name, "instrument", 0)
    velocity = value_velocity(value)
    pitch = value_pitch(value)
    if sound.kind == "drum" and pitch is None:
        return MidiVoice(sound, None, sound.number, velocity, value_kit(value))
    midi = round(DEFAULT_NOTE if pitch is None else pitch)
    return MidiVoice(sound, sound.number, midi if 0 <= midi <= 127 else None, velocity)


# --------------------------------------------------------------------------- song


def as_fraction(t: Any) -> Fraction:
    """An exact time (int, Fraction, gmpy2 mpq) as a `Fraction` with plain int terms."""
    f = Fraction(t)
    return Fraction(int(f.numerator), int(f.denominator))


def _legato(value: Any) -> float:
    if isinstance(value, Mapping):
        for key in ("legato", "clip"):
            if key in value:
                return max(0.0, _number(value[key], 1.0))
    return 1.0


def held_cycles(length: float, value: Any) -> float:
    """How long, in cycles, an event `length` cycles long with `value` sounds: its length ×
    its `legato` (or `clip`), at most `MAX_HOLD_CYCLES`."""
    return min(length * _legato(value), float(MAX_HOLD_CYCLES))


def drum_track_name(kit: int) -> str:
    """The drum track of a kit: "drums" for the standard kit, "drums-tr-808" for another."""
    if kit == 0:
        return "drums"
    return "drums-" + re.sub(r"[^a-z0-9]+", "-", DRUM_KITS.get(kit, f"kit {kit}").lower()).strip("-")


def pattern_to_song(
    pattern: Any,
    cycles: int | float = 4,
    bpm: float = 120.0,
    beats_per_cycle: int = 4,
    *,
    start: int | float = 0,
    title: str = "",
    key: str | None = None,
    budget: QueryBudget | None = None,
) -> Song:
    """Render `cycles` cycles of `pattern` (from cycle `start`) as a song at `bpm`.

    Drum sounds share one drum track per kit (a drum-machine `bank` picks the kit);
    each other sound gets a track with its GM program. Notes outside MIDI's 0..127 and events of zero length are left out.
    The queries run under `budget` (default: 4,000 units of work per cycle, at least
    `DEFAULT_QUERY_BUDGET`).
    """
    if not cycles > 0:
        raise InvalidInput(f"cycles must be positive, got {cycles}")
    if not 1 <= beats_per_cycle <= 64:
        raise InvalidInput(f"beats per cycle {beats_per_cycle} is out of range; use 1..64")
    tracks: dict[str, Track] = {}
    origin = as_fraction(start)
    # the render's queries run under one budget that grows with the cycles asked for (unless given)
    if budget is None:
        budget = QueryBudget(max_work=max(DEFAULT_QUERY_BUDGET.max_work, _WORK_PER_CYCLE * math.ceil(cycles)))
    with metered(budget):
        haps = pattern.query_arc(origin, origin + as_fraction(cycles))
    for hap in haps:
        if not hap.has_onset():
            continue
        whole = hap.whole
        begin = float((as_fraction(whole.begin) - origin) * beats_per_cycle)
        duration = held_cycles(float(as_fraction(whole.end) - as_fraction(whole.begin)), hap.value) * beats_per_cycle
        if not duration > 0 or begin < 0:
            continue
        voice = midi_voice(hap.value)
        if voice.key is None:
            continue
        if voice.program is None:
            name = drum_track_name(voice.kit)
            track = tracks.get(name)
            if track is None:
                track = tracks[name] = Track(name=name, role="drums", is_drum=True, program=voice.kit)
        else:
            track = tracks.get(voice.sound.name)
            if track is None:
                track = tracks[voice.sound.name] = Track(
                    name=voice.sound.name, role=voice.sound.name, program=voice.program
                )
        track.notes.append(Note(begin, duration, voice.key, voice.velocity))
    for track in tracks.values():
        track.sort()
    return Song(
        title=title,
        tempo=float(bpm),
        time_signature=TimeSignature(beats_per_cycle, 4),
        key=key,
        tracks=list(tracks.values()),
    )

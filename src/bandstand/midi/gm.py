"""General MIDI tables: the 128 melodic program names, the percussion key map
(channel 10) in both directions, and lookups by name."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from typing import overload

from bandstand.errors import InvalidInput

GM_PROGRAMS: tuple[str, ...] = (
    # 0 pianos
    "Acoustic Grand Piano", "Bright Acoustic Piano", "Electric Grand Piano", "Honky-tonk Piano",
    "Electric Piano 1", "Electric Piano 2", "Harpsichord", "Clavinet",
    # 8 chromatic percussion
    "Celesta", "Glockenspiel", "Music Box", "Vibraphone", "Marimba", "Xylophone", "Tubular Bells",
    "Dulcimer",
    # 16 organs
    "Drawbar Organ", "Percussive Organ", "Rock Organ", "Church Organ", "Reed Organ", "Accordion",
    "Harmonica", "Tango Accordion",
    # 24 guitars
    "Acoustic Guitar (nylon)", "Acoustic Guitar (steel)", "Electric Guitar (jazz)",
    "Electric Guitar (clean)", "Electric Guitar (muted)", "Overdriven Guitar", "Distortion Guitar",
    "Guitar Harmonics",
    # 32 basses
    "Acoustic Bass", "Electric Bass (finger)", "Electric Bass (pick)", "Fretless Bass",
    "Slap Bass 1", "Slap Bass 2", "Synth Bass 1", "Synth Bass 2",
    # 40 strings
    "Violin", "Viola", "Cello", "Contrabass", "Tremolo Strings", "Pizzicato Strings",
    "Orchestral Harp", "Timpani",
    # 48 ensemble
    "String Ensemble 1", "String Ensemble 2", "Synth Strings 1", "Synth Strings 2", "Choir Aahs",
    "Voice Oohs", "Synth Voice", "Orchestra Hit",
    # 56 brass
    "Trumpet", "Trombone", "Tuba", "Muted Trumpet", "French Horn", "Brass Section",
    "Synth Brass 1", "Synth Brass 2",
    # 64 reed
    "Soprano Sax", "Alto Sax", "Tenor Sax", "Baritone Sax", "Oboe", "English Horn", "Bassoon",
    "Clarinet",
    # 72 pipe
    "Piccolo", "Flute", "Recorder", "Pan Flute", "Blown Bottle", "Shakuhachi", "Whistle", "Ocarina",
    # 80 synth lead
    "Lead 1 (square)", "Lead 2 (sawtooth)", "Lead 3 (calliope)", "Lead 4 (chiff)",
    "Lead 5 (charang)", "Lead 6 (voice)", "Lead 7 (fifths)", "Lead 8 (bass + lead)",
    # 88 synth pad
    "Pad 1 (new age)", "Pad 2 (warm)", "Pad 3 (polysynth)", "Pad 4 (choir)", "Pad 5 (bowed)",
    "Pad 6 (metallic)", "Pad 7 (halo)", "Pad 8 (sweep)",
    # 96 synth effects
    "FX 1 (rain)", "FX 2 (soundtrack)", "FX 3 (crystal)", "FX 4 (atmosphere)", "FX 5 (brightness)",
    "FX 6 (goblins)", "FX 7 (echoes)", "FX 8 (sci-fi)",
    # 104 ethnic
    "Sitar", "Banjo", "Shamisen", "Koto", "Kalimba", "Bagpipe", "Fiddle", "Shanai",
    # 112 percussive
    "Tinkle Bell", "Agogo", "Steel Drums", "Woodblock", "Taiko Drum", "Melodic Tom", "Synth Drum",
    "Reverse Cymbal",
    # 120 sound effects
    "Guitar Fret Noise", "Breath Noise", "Seashore", "Bird Tweet", "Telephone Ring", "Helicopter",
    "Applause", "Gunshot",
)  # fmt: skip

_DRUM_NAMES: dict[int, str] = {
    35: "Acoustic Bass Drum", 36: "Bass Drum 1", 37: "Side Stick", 38: "Acoustic Snare",
    39: "Hand Clap", 40: "Electric Snare", 41: "Low Floor Tom", 42: "Closed Hi-Hat",
    43: "High Floor Tom", 44: "Pedal Hi-Hat", 45: "Low Tom", 46: "Open Hi-Hat",
    47: "Low-Mid Tom", 48: "Hi-Mid Tom", 49: "Crash Cymbal 1", 50: "High Tom",
    51: "Ride Cymbal 1", 52: "Chinese Cymbal", 53: "Ride Bell", 54: "Tambourine",
    55: "Splash Cymbal", 56: "Cowbell", 57: "Crash Cymbal 2", 58: "Vibraslap",
    59: "Ride Cymbal 2", 60: "Hi Bongo", 61: "Low Bongo", 62: "Mute Hi Conga",
    63: "Open Hi Conga", 64: "Low Conga", 65: "High Timbale", 66: "Low Timbale",
    67: "High Agogo", 68: "Low Agogo", 69: "Cabasa", 70: "Maracas", 71: "Short Whistle",
    72: "Long Whistle", 73: "Short Guiro", 74: "Long Guiro", 75: "Claves", 76: "Hi Wood Block",
    77: "Low Wood Block", 78: "Mute Cuica", 79: "Open Cuica", 80: "Mute Triangle",
    81: "Open Triangle",
}  # fmt: skip

# Short names drummers and Strudel/Tidal users type, mapped to GM keys.
_DRUM_ALIASES: dict[str, int] = {
    "kick": 36, "bd": 36, "snare": 38, "sd": 38, "rim": 37, "rimshot": 37, "clap": 39, "cp": 39,
    "hihat": 42, "hh": 42, "ch": 42, "openhat": 46, "oh": 46, "pedalhat": 44, "crash": 49,
    "cr": 49, "ride": 51, "rd": 51, "tom": 45, "lt": 45, "mt": 47, "ht": 50, "tambourine": 54,
    "cowbell": 56, "cb": 56, "shaker": 70, "perc": 75,
}  # fmt: skip


def _normalize(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class DrumMap(Mapping[int, str]):
    """The GM percussion map: `GM_DRUMS[36]` is "Bass Drum 1" and
    `GM_DRUMS["Bass Drum 1"]` (or "kick", "bd", "closed hi-hat") is 36."""

    def __init__(self, names: Mapping[int, str], aliases: Mapping[str, int]) -> None:
        self._names = dict(names)
        self._notes = {_normalize(v): k for k, v in names.items()}
        self._notes.update({_normalize(k): v for k, v in aliases.items()})

    @overload
    def __getitem__(self, key: int) -> str: ...
    @overload
    def __getitem__(self, key: str) -> int: ...
    def __getitem__(self, key: int | str) -> str | int:
        if isinstance(key, str):
            return self.note(key)
        return self._names[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def note(self, name: str) -> int:
        """The GM key of a drum `name` (case and punctuation ignored); InvalidInput if unknown."""
        found = self._notes.get(_normalize(name))
        if found is None:
            close = difflib.get_close_matches(_normalize(name), list(self._notes), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise InvalidInput(f"unknown General MIDI drum '{name}'{hint}", name=name)
        return found

    def name(self, note: int) -> str:
        """The GM name of drum key `note`, or "Drum N" outside the map."""
        return self._names.get(note, f"Drum {note}")


GM_DRUMS = DrumMap(_DRUM_NAMES, _DRUM_ALIASES)
_PROGRAM_BY_KEY = {_normalize(n): i for i, n in enumerate(GM_PROGRAMS)}
# Everyday instrument words, mapped to the program a musician would expect.
_PROGRAM_ALIASES: dict[str, int] = {
    "piano": 0, "epiano": 4, "rhodes": 4, "organ": 16, "guitar": 25, "bass": 33, "synthbass": 38,
    "strings": 48, "choir": 52, "brass": 61, "sax": 65, "flute": 73, "lead": 81, "pad": 89,
}  # fmt: skip


def program_by_name(name: str) -> int:
    """The GM program number (0..127) for a name: exact ("Fretless Bass"), an everyday
    word ("strings" → 48), then the first program with it as a word ("harp" → 46),
    then the first whose name contains it ("sawtooth" → 81); InvalidInput if none."""
    key = _normalize(name)
    if not key:
        raise InvalidInput("empty General MIDI program name; use a name such as 'Fretless Bass'")
    if key in _PROGRAM_BY_KEY:
        return _PROGRAM_BY_KEY[key]
    if key in _PROGRAM_ALIASES:
        return _PROGRAM_ALIASES[key]
    for number, full in enumerate(GM_PROGRAMS):  # a whole word first: "harp" is not "Harpsichord"
        if key in (_normalize(w) for w in full.split()):
            return number
    for candidate, number in _PROGRAM_BY_KEY.items():
        if key in candidate:
            return number
    close = difflib.get_close_matches(key, list(_PROGRAM_BY_KEY), n=1)
    hint = f"; did you mean '{GM_PROGRAMS[_PROGRAM_BY_KEY[close[0]]]}'?" if close else ""
    raise InvalidInput(f"unknown General MIDI program '{name}'{hint}", name=name)


# Strudel's General MIDI soundfonts (@strudel/soundfonts) are named "gm_" + the program's name in
# snake case, except these: the four acoustic and electric grands share one piano, the electric
# pianos, synth pads and effects drop their numbers, and a few programs go by other names.
_STRUDEL_RENAMED: dict[int, str] = {
    0: "piano", 1: "piano", 2: "piano", 3: "piano", 4: "epiano1", 5: "epiano2", 23: "bandoneon",
    54: "synth_choir", 88: "pad_new_age", 89: "pad_warm", 90: "pad_poly", 91: "pad_choir", 92: "pad_bowed",
    93: "pad_metallic", 94: "pad_halo", 95: "pad_sweep", 96: "fx_rain", 97: "fx_soundtrack", 98: "fx_crystal",
    99: "fx_atmosphere", 100: "fx_brightness", 101: "fx_goblins", 102: "fx_echoes", 103: "fx_sci_fi",
    124: "telephone",
}  # fmt: skip
STRUDEL_SOUNDFONTS: tuple[str, ...] = tuple(
    "gm_" + _STRUDEL_RENAMED.get(number, re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"))
    for number, name in enumerate(GM_PROGRAMS)
)
"""Strudel's soundfont name of each GM program (`STRUDEL_SOUNDFONTS[32]` is "gm_acoustic_bass")."""
_PROGRAM_BY_SOUNDFONT = {name: number for number, name in reversed(list(enumerate(STRUDEL_SOUNDFONTS)))}


def program_by_soundfont(name: str) -> int | None:
    """The GM program of one of Strudel's soundfont names ("gm_piano" → 0, "gm_pad_warm" → 89),
    or None when Strudel has no soundfont of that name."""
    return _PROGRAM_BY_SOUNDFONT.get(name.strip().lower())


# The drum kits of a GS SoundFont (bank 128; the default SoundFont, TimGM6mb, has each of these):
# selected by a program change on the drum channel.
DRUM_KITS: dict[int, str] = {
    0: "Standard", 8: "Room", 16: "Power", 24: "Electronic", 25: "TR-808", 32: "Jazz", 40: "Brush",
    48: "Orchestra",
}  # fmt: skip

# Strudel's drum-machine banks (`.bank("RolandTR909")`, the tidal-drum-machines names and their
# short forms) → the GS kit closest in kind: the analogue machines → TR-808, the digital and
# hybrid ones of the late 80s → Electronic, the sampling machines of the early 80s → Power.
_BANK_KITS: dict[str, int] = {
    **dict.fromkeys((
        "rolandtr808", "tr808", "808", "rolandcompurhythm78", "cr78", "rolandtr606", "tr606", "korgkr55",
        "korgminipops", "korgkpr77", "bossdr55", "dr55",
    ), 25),
    **dict.fromkeys((
        "rolandtr909", "tr909", "909", "rolandtr707", "tr707", "rolandtr727", "tr727", "rolandtr626",
        "tr626", "rolandr8", "r8", "yamaharx5", "yamahary30", "alesishr16", "bossdr110", "casiorz1",
        "rolandcompurhythm1000", "cr1000", "rolandd110", "rolands1", "rolandmc303",
    ), 24),
    **dict.fromkeys((
        "linndrum", "linnlm1", "lm1", "linnlm2", "linn9000", "akailinn", "akaimpc60", "mpc60", "akaixr10",
        "oberheimdmx", "dmx", "sequentialcircuitsdrumtracks", "emudrumulator", "drumulator", "emusp12",
        "sp12", "emumodular",
    ), 16),
}  # fmt: skip


def drum_kit_of_bank(bank: str) -> int | None:
    """The GS drum kit (bank 128 program) a Strudel drum-machine bank plays with here, or None
    for a bank we do not know (it plays the standard kit)."""
    return _BANK_KITS.get(_normalize(bank))

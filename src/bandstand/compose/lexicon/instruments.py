"""Instrument words → the role that plays them and a General MIDI program (0-based).

`MODIFIERS` are adjectives kept with the instrument in a request's text
("lo-fi piano", "upright bass"); `ROLE_WORDS` name roles directly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Instrument:
    words: tuple[str, ...]
    role: str
    program: int | None


def _i(words: str, role: str, program: int | None) -> Instrument:
    return Instrument(tuple(w.strip() for w in words.split("|")), role, program)


INSTRUMENTS: tuple[Instrument, ...] = (
    _i("808|808s|808 bass|sub bass|sub-bass|subs", "sub_bass", 38),
    _i("rhodes|electric piano|e-piano|wurlitzer|wurli|keys", "chords", 4),
    _i("piano|pianos|grand piano|keyboard", "chords", 0),
    _i("organ|hammond|b3", "chords", 16),
    _i("guitar|guitars|acoustic guitar|steel guitar|steel-string guitar", "chords", 25),
    _i("nylon guitar|nylon-string guitar|classical guitar|spanish guitar|bossa guitar", "chords", 24),
    _i("electric guitar|clean guitar|jangly guitar", "chords", 27),
    _i("distorted guitar|power chords|overdriven guitar", "chords", 30),
    _i("clavinet|clav", "chords", 7),
    _i("strings|string section|violins|orchestra|cello|cellos", "pad", 48),
    _i("choir|choirs|voices|vocal pad|aahs", "pad", 52),
    _i("pad|pads|synth pad|synth pads|atmosphere|drone", "pad", 89),
    _i("bass|bassline|bass line|bass guitar|electric bass|fingered bass", "bass", 33),
    _i("upright bass|double bass|acoustic bass|walking bass", "bass", 32),
    _i("slap bass", "bass", 36),
    _i("synth bass|reese|reese bass|wobble bass|acid bass|303", "bass", 38),
    _i("saxophone|sax|alto sax|tenor sax", "lead", 65),
    _i("trumpet|flugelhorn|horn|horns|brass", "lead", 56),
    _i("flute|flutes|pan flute", "lead", 73),
    _i("synth lead|lead synth|lead|melody|hook|topline|whistle", "lead", 80),
    _i("vocal chops|vocal chop|chopped vocals|vocal samples|vox", "lead", 54),
    _i("bells|bell|music box|glockenspiel|celesta", "lead", 10),
    _i("vibraphone|marimba|kalimba|steel drums|steel pan", "lead", 11),
    _i("harmonica", "lead", 22),
    _i("violin|fiddle", "lead", 40),
    _i("arp|arps|arpeggio|arpeggios|arpeggiator|arpeggiated synth|sequence", "arp", 81),
    _i("congas|conga|bongos|shaker|shakers|percussion|tambourine|cowbell|claps|handclaps|timbales", "percussion", 0),
    _i("counter-melody|countermelody|counter melody|second melody", "counter_melody", 73),
    _i("drums|drum kit|drum machine|breakbeat|breaks|kick|kicks|snare|hi-hats|hihats|hi hats|hats", "drums", 0),
)

MODIFIERS: tuple[str, ...] = (
    "lo-fi", "lofi", "dusty", "warm", "detuned", "electric", "acoustic", "upright", "distorted", "muted",
    "jazzy", "soft", "fat", "deep", "bright", "analog", "vintage", "plucky", "gated", "wobbly", "heavy",
    "rolling", "crisp", "felt", "haunting", "glassy", "lush", "airy", "gritty",
)

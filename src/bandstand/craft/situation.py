"""The situation a musician plays in: the key and scale, the metre and tempo,
and bar by bar the chord sounding (and the next one), the section and its
energy (0–1), who plays, and what the others play that a part listens to
(the kick a bassist locks to). Plus the idiom — the genre's habits as the
generators read them — and the groove the band agreed on.

Compose builds a `Situation` from its intent, harmony plan and arrangement;
the jam builds one from its musical context and the band's patterns. Nothing
here is random.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from bandstand.theory import parse_chord, voice_chord

# Extra roles follow the activity of the core role they belong with when the
# arrangement does not name them itself.
ROLE_PARENT: dict[str, str] = {
    "arp": "chords", "percussion": "drums", "counter_melody": "lead", "sub_bass": "bass", "texture": "pad",
    "fx": "lead",
}
# How loosely each role plays against the groove's timing and velocity spread
# (drums define the pocket; sustained parts barely move).
ROLE_FEEL: dict[str, float] = {
    "drums": 1.0, "percussion": 1.0, "bass": 0.6, "sub_bass": 0.4, "chords": 0.5, "arp": 0.4,
    "lead": 0.7, "counter_melody": 0.7, "pad": 0.3, "texture": 0.5,
}
CHORD_REGISTER = (50, 74)  # D3..D5: where comping voicings live


@dataclass(frozen=True, slots=True)
class Chord:
    """The chord sounding in a bar: symbol, root and bass pitch classes, its pitch
    classes, its voicing (MIDI notes, low to high) and its tension (0 home … 1 pull)."""

    symbol: str
    root: int
    bass: int
    pcs: tuple[int, ...]
    pitches: tuple[int, ...]
    tension: float = 0.0

    @classmethod
    def of_symbol(cls, symbol: str, previous: tuple[int, ...] | None = None) -> Chord:
        """A chord from its symbol, voiced in the comping register (led from `previous`)."""
        return _of_symbol(symbol, previous)

    def _find(self, intervals: tuple[int, ...], default: int) -> int:
        for iv in intervals:
            if (self.root + iv) % 12 in self.pcs:
                return (self.root + iv) % 12
        return default % 12

    @property
    def third(self) -> int:
        """The chord's third as a pitch class (major or minor, whichever it has)."""
        return self._find((4, 3, 5, 2), self.root)

    @property
    def fifth(self) -> int:
        return self._find((7, 6, 8), self.root + 7)

    @property
    def seventh(self) -> int:
        return self._find((10, 11, 9), self.root)

    @property
    def is_minor(self) -> bool:
        return (self.root + 3) % 12 in self.pcs and (self.root + 4) % 12 not in self.pcs


@lru_cache(maxsize=2048)
def _of_symbol(symbol: str, previous: tuple[int, ...] | None) -> Chord:
    chord = parse_chord(symbol)
    pitches = voice_chord(chord, *CHORD_REGISTER, previous)
    return Chord(chord.symbol, chord.root, chord.bass, tuple(sorted(set(chord.pitch_classes))), tuple(pitches))


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of the situation. `index` is 0-based; `start` is its first beat."""

    index: int
    start: float
    section: int  # index of the section this bar belongs to
    kind: str  # the section's kind: verse, chorus, bridge …
    bar_in_section: int
    bars_in_section: int
    energy: float  # 0..1
    chord: Chord
    next_chord: Chord
    roles: frozenset[str]
    section_end: bool = False  # the last bar of a section that another section follows
    next_kind: str | None = None
    transition: str = "cut"
    section_energy: float = 0.5
    name: str = ""  # the section's name ("Chorus 2")
    repeat: int = 0  # how many sections of this kind came before (0 the first time)
    final: bool = False  # the song's last bar
    kick: tuple[tuple[int, int], ...] | None = None  # the drummer's kicks (step, velocity), when heard

    @property
    def bar_in_phrase(self) -> int:
        return self.bar_in_section % 4

    @property
    def pre_drop(self) -> bool:
        """The last bar of a build into a drop or chorus: kick and bass hold their breath
        for its second half so the arrival hits harder."""
        return self.kind == "build" and self.section_end and self.next_kind in ("drop", "chorus", "hook")

    @property
    def chord_changes(self) -> bool:
        return self.next_chord.symbol != self.chord.symbol


@dataclass(frozen=True, slots=True)
class Idiom:
    """A genre's habits as data the generators read: the drum family, bass, comping and
    lead styles, its swing (fraction of the swing unit: 0 straight … 0.33 triplets), the
    creativity dials (0–1) and how electronic it is."""

    name: str = "generic"
    drum_family: str = "rock_backbeat"
    bass_style: str = "root_fifth"
    comp_style: str = "sustained"
    lead_style: str = "lyrical"
    swing: float = 0.0
    harmonic: float = 0.5
    rhythmic: float = 0.5
    electronic: float = 0.0
    kit: str = ""  # the genre whose own kit the drummer plays within the drum family (`genre_kits`)
    touches: tuple[str, ...] = ()  # what named instruments add on top (a music box lead, a güiro line)


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything a part is played against. `groove` is the band's shared groove
    choice (a number the drummer and the bassist both read, so the bass locks to the
    kick the drummer really plays); `diatonic_only` asks for scale tones only (the
    jam's validator checks every pitched note against the scale)."""

    tonic: int
    mode: str
    scale: tuple[int, ...]
    tempo: float
    beats_per_bar: float
    steps: int  # sixteenths per bar
    bars: tuple[Bar, ...]
    idiom: Idiom = Idiom()
    groove: int = 0
    constraints: frozenset[str] = frozenset()
    named_roles: frozenset[str] = frozenset()
    diatonic_only: bool = False
    pulse: float = 1.0  # beats per counting unit of the metre: 1 in x/4, 0.5 in x/8
    textures: tuple[str, ...] = ()  # sounds around the music the texture role plays (rain, vinyl)
    looping: bool = False  # a loop that repeats (the jam): its first bar follows its last
    mood_density: float = 0.0  # the density knob's delta the prompt's mood words turned (`density.steady`)

    def is_active(self, role: str, bar: Bar) -> bool:
        return active_in(role, bar.roles, self.named_roles)

    def active(self, role: str) -> list[Bar]:
        """The bars `role` plays in."""
        return [b for b in self.bars if self.is_active(role, b)]

    @property
    def length(self) -> float:
        return len(self.bars) * self.beats_per_bar


def active_in(role: str, roles: frozenset[str] | list[str], named: frozenset[str]) -> bool:
    """Whether `role` plays in a section with `roles`; extra roles the arrangement
    does not name follow their parent role (`ROLE_PARENT`)."""
    if role in roles:
        return True
    if role in named:
        return False
    parent = ROLE_PARENT.get(role)
    return parent is not None and parent in roles


def pitch_near(pc: int, center: int, low: int = 0, high: int = 127) -> int:
    """The MIDI note of pitch class `pc` closest to `center`, kept within low..high."""
    p = center + ((pc - center) % 12)
    if p - center > 6:
        p -= 12
    while p < low:
        p += 12
    while p > high:
        p -= 12
    return p

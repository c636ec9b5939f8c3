"""The bar-by-bar view every part generator works from.

`PartContext` flattens the intent, harmony plan and arrangement into one
tuple of `Bar`s (start beat, section, energy, the chord sounding and the
next one, which roles play, whether a section change follows) plus the
genre's traits, scale and groove. Generators loop over it; nothing here is
random.
"""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.compose.lexicon import GenreTraits, primary_genre
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan, ProgressionChord
from bandstand.compose.models.intent import Intent
from bandstand.compose.parts.groove import GrooveTemplate, Humanizer, groove

# Extra roles follow the activity of the core role they belong with when the
# arrangement does not name them itself.
ROLE_PARENT: dict[str, str] = {
    "arp": "chords", "percussion": "drums", "counter_melody": "lead", "sub_bass": "bass",
}


# How loosely each role plays against the groove's timing and velocity spread
# (drums define the pocket; sustained parts barely move).
ROLE_FEEL: dict[str, float] = {
    "drums": 1.0, "percussion": 1.0, "bass": 0.6, "sub_bass": 0.4, "chords": 0.5, "arp": 0.4,
    "lead": 0.7, "counter_melody": 0.7, "pad": 0.3,
}


@dataclass(frozen=True, slots=True)
class ChordSpan:
    """The chord sounding in a bar, as the generators need it."""

    symbol: str
    root: int
    bass: int
    pcs: tuple[int, ...]
    pitches: tuple[int, ...]
    tension: float

    @classmethod
    def of(cls, chord: ProgressionChord) -> ChordSpan:
        return cls(chord.symbol, chord.root, chord.bass, tuple(chord.pitch_classes),
                   tuple(chord.pitches), chord.tension)

    @property
    def third(self) -> int:
        """The chord's third as a pitch class (major or minor, whichever it has)."""
        for iv in (4, 3, 5, 2):
            if (self.root + iv) % 12 in self.pcs:
                return (self.root + iv) % 12
        return self.root

    @property
    def fifth(self) -> int:
        for iv in (7, 6, 8):
            if (self.root + iv) % 12 in self.pcs:
                return (self.root + iv) % 12
        return (self.root + 7) % 12

    @property
    def seventh(self) -> int:
        for iv in (10, 11, 9):
            if (self.root + iv) % 12 in self.pcs:
                return (self.root + iv) % 12
        return (self.root + 12) % 12


@dataclass(frozen=True, slots=True)
class Bar:
    index: int  # 0-based
    start: float  # beat
    section: int  # index into the arrangement's sections
    kind: str
    bar_in_section: int
    bars_in_section: int
    energy: float
    chord: ChordSpan
    next_chord: ChordSpan
    roles: frozenset[str]
    section_end: bool  # the last bar of a section that another section follows
    next_kind: str | None
    transition: str
    section_energy: float = 0.5  # the section's energy (bar energies ramp between sections)

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
class PartContext:
    traits: GenreTraits
    tempo: float
    beats_per_bar: float
    steps: int  # sixteenths per bar
    key_pc: int
    scale: tuple[int, ...]
    bars: tuple[Bar, ...]
    swing: float
    groove: GrooveTemplate
    harmonic_dial: float
    rhythmic_dial: float
    only_kick: bool
    constraints: frozenset[str]
    program_overrides: tuple[tuple[str, int], ...]
    named_roles: frozenset[str]

    def is_active(self, role: str, bar: Bar) -> bool:
        return active_in(role, bar.roles, self.named_roles)

    def active_bars(self, role: str) -> list[Bar]:
        return [b for b in self.bars if self.is_active(role, b)]

    def humanizer(self, role: str) -> Humanizer:
        """The role's humanizer: the groove's spread scaled by how loose the role plays."""
        return Humanizer(self.groove, self.swing, self.tempo, ROLE_FEEL.get(role, 0.7), self.beats_per_bar)

    def program(self, role: str, default: int) -> int:
        for r, p in self.program_overrides:
            if r == role:
                return p
        return self.traits.program(role, default)


def active_in(role: str, roles: frozenset[str] | list[str], named: frozenset[str]) -> bool:
    """Whether `role` plays in a section with `roles`; extra roles the arrangement
    does not name follow their parent role (`ROLE_PARENT`)."""
    if role in roles:
        return True
    if role in named:
        return False
    parent = ROLE_PARENT.get(role)
    return parent is not None and parent in roles


def build_context(intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> PartContext:
    traits = primary_genre(intent)
    num, den = intent.time_signature
    beats_per_bar = num * 4.0 / den
    steps = max(1, round(beats_per_bar * 4))
    chords = [ChordSpan.of(c) for c in harmony.chords]
    sections = arrangement.sections
    bar_chord: list[ChordSpan] = []
    for sec in sections:
        for i in range(sec.bars):
            idx = sec.chord_indices[i] if i < len(sec.chord_indices) else i
            bar_chord.append(chords[idx % len(chords)])
    total = len(bar_chord)
    energies = list(arrangement.bar_energy) + [sections[-1].energy] * max(0, total - len(arrangement.bar_energy))
    bars: list[Bar] = []
    n = 0
    for si, sec in enumerate(sections):
        nxt = sections[si + 1] if si + 1 < len(sections) else None
        roles = frozenset(sec.roles)
        for i in range(sec.bars):
            last = i == sec.bars - 1
            bars.append(Bar(
                index=n, start=n * beats_per_bar, section=si, kind=sec.kind, bar_in_section=i,
                bars_in_section=sec.bars, energy=float(energies[n]), chord=bar_chord[n],
                next_chord=bar_chord[n + 1] if n + 1 < total else bar_chord[0], roles=roles,
                section_end=last and nxt is not None, next_kind=nxt.kind if nxt is not None else None,
                transition=sec.transition, section_energy=sec.energy,
            ))
            n += 1
    dna_swing = intent.genre_dna.swing if intent.genre_dna is not None else traits.swing
    return PartContext(
        traits=traits, tempo=intent.tempo, beats_per_bar=beats_per_bar, steps=steps,
        key_pc=harmony.scale_pitch_classes[0] if harmony.scale_pitch_classes else 0,
        scale=tuple(sorted(harmony.scale_pitch_classes)), bars=tuple(bars),
        swing=0.0 if intent.has_constraint("no_swing") else max(0.0, min(0.33, dna_swing)),
        groove=groove(traits.drum_family),
        harmonic_dial=intent.creativity_dials.harmonic, rhythmic_dial=intent.creativity_dials.rhythmic,
        only_kick=intent.has_constraint("only_kick"),
        constraints=frozenset(c.kind for c in intent.constraints),
        program_overrides=tuple((r.role, r.program) for r in intent.instrument_requests if r.program is not None),
        named_roles=frozenset(arrangement.all_roles()),
    )


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

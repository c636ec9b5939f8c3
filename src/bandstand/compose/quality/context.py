"""What the quality figures read a song against: its metre and length, the
declared scale, the chord of every bar, the planned energy of every bar, the
sections (with the roles each asks for), whether the idiom wants the bass
locked to the kick and how much colour the harmony asks for (its dial). Built from compose's plans (`from_plans`) or, for
reference music that has no plans (a Bach chorale), from the song alone
(`from_song`: the key the theory's key finder hears, no chords, no energy)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.errors import TheoryError
from bandstand.score import Song
from bandstand.score.metre_map import MetreMap
from bandstand.theory import detect_key

__all__ = ["BASS_ROLES", "SectionSpan", "SongContext", "from_plans", "from_song"]

BASS_ROLES = frozenset({"bass", "sub_bass"})
# Bass styles that play around the kick rather than with it: lock is not asked of them.
AROUND_THE_KICK = frozenset({"offbeat", "tumbao", "walking"})


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """One section: its first bar (0-based), its length in bars and the roles it asks for."""

    start: int
    bars: int
    roles: frozenset[str]


@dataclass(frozen=True, slots=True)
class SongContext:
    """The song's frame (see the module docstring). `chords` and `energy` hold one entry per
    bar, or are empty when the music has no plan."""

    beats_per_bar: float
    bars: int
    tonic_pc: int
    minor: bool
    scale: frozenset[int]
    chords: tuple[frozenset[int], ...] = ()
    energy: tuple[float, ...] = ()
    sections: tuple[SectionSpan, ...] = ()
    wants_lock: bool = False
    colour: float = 0.0  # the harmonic dial: how far the plan asks the notes to leave the key
    # a song whose metre changes: the beat every bar starts at, and the end (bars + 1 entries)
    bar_starts: tuple[float, ...] = ()

    def bar_of(self, beat: float) -> int:
        """The 0-based bar a beat falls in (a 32nd early counts as the next bar)."""
        if self.bar_starts:
            return min(self.bars - 1, max(0, bisect_right(self.bar_starts, beat + 0.125) - 1))
        return min(self.bars - 1, max(0, int((beat + 0.125) // self.beats_per_bar)))

    def start_of(self, bar: int) -> float:
        """The beat 0-based `bar` starts at."""
        return self.bar_starts[bar] if self.bar_starts else bar * self.beats_per_bar

    def length_of(self, bar: int) -> float:
        """How many beats 0-based `bar` lasts."""
        return self.bar_starts[bar + 1] - self.bar_starts[bar] if self.bar_starts else self.beats_per_bar


def from_plans(beats_per_bar: float, harmony: HarmonyPlan, arrangement: ArrangementPlan,
               bass_style: str | None = None, metres: MetreMap | None = None) -> SongContext:
    """The frame compose planned (a song of `beats_per_bar` beats a bar, or of the bars of
    `metres` when its metre changes)."""
    bars = arrangement.total_bars
    starts = tuple(metres.start(b + 1) for b in range(bars + 1)) if metres is not None and not metres.uniform else ()
    chords = harmony.chords
    per_bar = tuple(frozenset(chords[arrangement.chord_index_at(b + 1) % len(chords)].pitch_classes)
                    for b in range(bars)) if chords else ()
    scale = harmony.scale_pitch_classes
    minor = len(scale) > 2 and (scale[2] - scale[0]) % 12 == 3
    sections = tuple(SectionSpan(s.start_bar - 1, s.bars, frozenset(s.roles)) for s in arrangement.sections)
    return SongContext(beats_per_bar, bars, scale[0] if scale else 0, minor, frozenset(scale), per_bar,
                       tuple(arrangement.bar_energy[:bars]), sections,
                       wants_lock=bass_style is not None and bass_style not in AROUND_THE_KICK,
                       colour=harmony.harmonic_dial, bar_starts=starts)


def from_song(song: Song) -> SongContext:
    """The frame of music without a plan: the key the theory's key finder hears, one section
    in which every role present plays."""
    pitched = [n for t in song.tracks if not t.is_drum for n in t.notes]
    bars = max(1, song.length_bars)
    try:
        key = detect_key(pitched).key
    except TheoryError:
        return SongContext(song.beats_per_bar, bars, 0, False, frozenset(range(12)))
    roles = frozenset(t.role for t in song.tracks if t.notes)
    starts = tuple(song.bar_to_beat(b + 1) for b in range(bars + 1)) if song.metre_changes else ()
    return SongContext(song.beats_per_bar, bars, key.tonic_pc, key.is_minor, frozenset(key.scale.pitch_classes),
                       sections=(SectionSpan(0, bars, roles),), bar_starts=starts)

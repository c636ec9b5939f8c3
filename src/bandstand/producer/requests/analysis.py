"""What a project sounds like, in figures: the key heard (`bandstand.theory.detect_key`,
the key finder the compose gate listens with), the chords of each section as its bars
play them (the chord the song's key map plans for a bar, named as planned, when the bar's
notes play it; else read from the notes, spelled in the bar's key),
and per section how many notes, how loud, how high, which parts play and how
often the harmony moves. Questions ("what key is this in?", "why does the
bridge feel flat?") are answered from these figures (`producer.requests.ask`), and a
language model gets them as its context.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bandstand.errors import TheoryError
from bandstand.score import TempoChange
from bandstand.score.tempo_map import seconds_between, segments
from bandstand.studio import Project
from bandstand.theory import Key, detect_key, parse_key, spell_root

__all__ = ["Analysis", "PartFigures", "SectionFigures", "analyse", "key_heard"]

_TRIADS = (("", (0, 4, 7)), ("m", (0, 3, 7)))
HARMONY_ROLES = ("chords", "pad", "bass", "keys", "arp")


@dataclass(frozen=True, slots=True)
class PartFigures:
    name: str
    role: str
    notes: int
    muted: bool
    volume: float


@dataclass(frozen=True, slots=True)
class SectionFigures:
    """One section in figures: notes per bar, mean velocity (1–127), mean pitch of the pitched
    parts (MIDI), the parts that play, its chords and chord changes per bar."""

    name: str
    start_bar: int
    bars: int
    energy: float
    notes_per_bar: float
    velocity: float
    pitch: float | None
    parts: tuple[str, ...]
    chords: tuple[str, ...]
    chord_changes_per_bar: float
    tempos: tuple[float, ...] = ()  # the tempo map's tempos in it, in order (BPM)
    seconds: float = 0.0  # how long it lasts, following the tempo map
    metres: tuple[str, ...] = ()  # the metre map's time signatures in it, in order ("6/8")


@dataclass(frozen=True, slots=True)
class Analysis:
    name: str
    tempo: float
    key: str | None
    key_heard: str | None
    key_confidence: float
    time_signature: str
    bars: int
    parts: tuple[PartFigures, ...]
    sections: tuple[SectionFigures, ...] = field(default_factory=tuple)
    key_changes: tuple[tuple[int, str], ...] = ()  # (bar, key) after the opening key: the key map
    tempo_changes: tuple[tuple[float, float], ...] = ()  # (bar, BPM) after the opening tempo: the tempo map
    seconds: float = 0.0  # how long the song lasts, following the tempo map
    metre_changes: tuple[tuple[int, str], ...] = ()  # (bar, time signature) after the opening one: the metre map

    def key_at(self, bar: int) -> str | None:
        """The declared key of 1-based `bar` (the key map's)."""
        key = self.key
        for at, there in self.key_changes:
            if at <= bar:
                key = there
        return key

    def section(self, words: str) -> SectionFigures | None:
        """The section a question names ("the bridge", "chorus 2", "verse"): exact name, then
        the first whose name starts with the word."""
        low = words.lower()
        for s in sorted(self.sections, key=lambda s: -len(s.name)):
            if s.name.lower() in low:
                return s
        for s in self.sections:
            kind = s.name.lower().split()[0].replace("-", "")
            if kind and kind in low.replace("-", ""):
                return s
        return None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def key_heard(notes: Sequence[tuple[int, float, float]] | Sequence[tuple[int, float]]) -> tuple[Key | None, float]:
    """The key the compose gate hears in (MIDI pitch, duration, onset) triples — or (pitch, duration)
    pairs, without the bass at the ends — and its correlation (None, 0.0 without pitched notes)."""
    if sum(n[1] for n in notes) <= 0:
        return None, 0.0
    estimate = detect_key(notes)
    return estimate.key, round(estimate.correlation, 3)


def _chord(weights: Sequence[float], key: Key | None) -> str | None:
    if sum(weights) <= 0:
        return None
    best, score = None, 0.0
    for root in range(12):
        for suffix, shape in _TRIADS:
            s = sum(weights[(root + i) % 12] for i in shape) - 0.5 * sum(
                weights[(root + i) % 12] for i in range(12) if i not in shape)
            if s > score:
                best, score = spell_root(root, key) + suffix, s
    return best


def _dedupe(seq: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(seq))


def _planned_chords(project: Project) -> list[tuple[str, frozenset[int]]]:
    """(symbol, pitch classes) of the chord the recipe's key map plans for every bar, bar 1
    first (none without a recipe)."""
    if not project.provenance.recipe:
        return []
    from pydantic import ValidationError

    from bandstand.compose.api import Recipe, bar_chords

    try:
        recipe = Recipe.model_validate(project.provenance.recipe)
    except ValidationError:
        return []
    return [(c.symbol, frozenset(c.pitch_classes)) for c in bar_chords(recipe)]


PLAYED = 0.6
"""The share of a bar's harmony (note length by pitch class) that must be the planned chord's
tones for the bar to be said to play it; a bar that plays something else is read from its notes."""


def _bar_chord(weights: Sequence[float], planned: tuple[str, frozenset[int]] | None, key: Key | None) -> str | None:
    """The chord a bar plays: the planned one when its notes play it, else the one its notes make."""
    total = sum(weights)
    if total <= 0:
        return None
    if planned is not None and sum(weights[pc] for pc in planned[1]) >= PLAYED * total:
        return planned[0]
    return _chord(weights, key)


def _key_at(project: Project, beat: float, opening: Key | None) -> Key | None:
    """The declared key at `beat` (the key map's), for spelling."""
    key = opening
    for change in sorted(project.key_changes, key=lambda c: c.beat):
        if change.beat > beat + 1e-9:
            break
        key = _declared(change.key) or key
    return key


def _declared(key: str | None) -> Key | None:
    try:
        return parse_key(key) if key else None
    except TheoryError:
        return None


def analyse(project: Project) -> Analysis:
    """The figures of the module docstring for `project` (muted tracks are not heard)."""
    heard = [t for t in project.tracks if not t.mute]
    notes = [(t, r.start_beat + n.start, n) for t in heard for r in t.regions for n in r.notes]
    total_bars = max([sum(s.bars for s in project.sections)]
                     + [project.beat_to_bar(b + n.duration) for _, b, n in notes] + [1])
    sections = list(project.sections) or []
    if not sections:
        from bandstand.studio.model import Section

        sections = [Section(name="Song", start_bar=1, bars=total_bars)]
    tonal, confidence = key_heard([(n.pitch, n.duration, b) for t, b, n in notes if not t.is_drum])
    spelling = _declared(project.key) or tonal
    tempo_changes = [TempoChange(c.beat, c.bpm) for c in project.tempo_changes]
    planned = _planned_chords(project)
    figures = []
    for s in sections:
        lo, hi = project.bar_to_beat(s.start_bar), project.bar_to_beat(s.start_bar + s.bars)
        inside = [(t, b, n) for t, b, n in notes if lo <= b < hi]
        pitched = [n.pitch for t, _, n in inside if not t.is_drum]
        per_bar = []  # what each bar plays (the plan's name for it when its notes play it)
        for bar in range(s.bars):
            weights = [0.0] * 12
            a, b = project.bar_to_beat(s.start_bar + bar), project.bar_to_beat(s.start_bar + bar + 1)
            for t, start, n in inside:
                if not t.is_drum and (t.role in HARMONY_ROLES or not any(
                        x.role in HARMONY_ROLES for x in heard)) and start < b and start + n.duration > a:
                    weights[n.pitch % 12] += min(b, start + n.duration) - max(a, start)
            index = s.start_bar - 1 + bar
            chord = _bar_chord(weights, planned[index] if index < len(planned) else None,
                               _key_at(project, a, spelling))
            if chord:
                per_bar.append(chord)
        changes = sum(1 for x, y in itertools.pairwise(per_bar) if x != y)
        figures.append(SectionFigures(
            name=s.name, start_bar=s.start_bar, bars=s.bars, energy=round(s.energy, 2),
            notes_per_bar=round(len(inside) / s.bars, 1),
            velocity=round(sum(n.velocity for _, _, n in inside) / len(inside), 1) if inside else 0.0,
            pitch=round(sum(pitched) / len(pitched), 1) if pitched else None,
            parts=_dedupe(t.name for t, _, _ in inside), chords=_dedupe(per_bar),
            chord_changes_per_bar=round(changes / s.bars, 2),
            tempos=tuple(dict.fromkeys(bpm for _, _, bpm in segments(project.tempo, tempo_changes, lo, hi))),
            seconds=round(seconds_between(project.tempo, tempo_changes, lo, hi), 2),
            metres=tuple(dict.fromkeys(str(project.metre_at(bar)) for bar in range(s.start_bar, s.start_bar + s.bars)))))
    ts = project.time_signature
    parts = tuple(PartFigures(t.name, t.role, t.note_count, t.mute, t.volume) for t in project.tracks)
    return Analysis(name=project.name or project.provenance.prompt or "the song", tempo=project.tempo,
                    key=project.key, key_heard=tonal.name if tonal else None, key_confidence=confidence,
                    time_signature=f"{ts.numerator}/{ts.denominator}", bars=total_bars, parts=parts,
                    sections=tuple(figures),
                    key_changes=tuple((int(_bar(project, c.beat)), c.key) for c in project.key_changes),
                    tempo_changes=tuple((_bar(project, c.beat, 2), c.bpm) for c in tempo_changes),
                    seconds=round(seconds_between(project.tempo, tempo_changes, 0.0,
                                                  project.bar_to_beat(total_bars + 1)), 2),
                    metre_changes=tuple((c.bar, str(c.time_signature)) for c in project.metre_changes))


def _bar(project: Project, beat: float, digits: int = 0) -> float:
    """The 1-based bar of `beat` (a fraction of a bar with `digits`), following the metre map."""
    if not project.metre_changes:
        bpb = project.beats_per_bar
        return round(beat / bpb + 1, 2) if digits else round(beat / bpb) + 1
    bar = project.beat_to_bar(beat + 1e-6)
    start = project.bar_to_beat(bar)
    into = (beat - start) / project.metre_at(bar).beats_per_bar
    return round(bar + into, digits) if digits else bar + round(into)

"""What a project sounds like, in figures: the key heard (pitch classes against
the Krumhansl–Kessler profiles), the chords of each section (the song's
harmony plan when bandstand wrote it, else read bar by bar from the notes),
and per section how many notes, how loud, how high, which parts play and how
often the harmony moves. Questions ("what key is this in?", "why does the
bridge feel flat?") are answered from these figures (`producer.ask`), and a
language model gets them as its context.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bandstand.studio import Project

__all__ = ["PITCH_NAMES", "Analysis", "PartFigures", "SectionFigures", "analyse", "estimate_key"]

PITCH_NAMES = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
_MAJOR = (6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88)
_MINOR = (6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17)
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


def _correlation(a: Sequence[float], b: Sequence[float]) -> float:
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    da = sum((x - ma) ** 2 for x in a) ** 0.5
    db = sum((y - mb) ** 2 for y in b) ** 0.5
    return num / (da * db) if da and db else 0.0


def estimate_key(weights: Sequence[float]) -> tuple[str | None, float]:
    """The key whose profile best matches duration-weighted pitch classes, and the correlation."""
    if sum(weights) <= 0:
        return None, 0.0
    best, score = None, -2.0
    for tonic in range(12):
        rotated = [weights[(tonic + i) % 12] for i in range(12)]
        for mode, profile in (("major", _MAJOR), ("minor", _MINOR)):
            r = _correlation(rotated, profile)
            if r > score:
                best, score = f"{PITCH_NAMES[tonic]} {mode}", r
    return best, round(score, 3)


def _chord(weights: Sequence[float]) -> str | None:
    if sum(weights) <= 0:
        return None
    best, score = None, 0.0
    for root in range(12):
        for suffix, shape in _TRIADS:
            s = sum(weights[(root + i) % 12] for i in shape) - 0.5 * sum(
                weights[(root + i) % 12] for i in range(12) if i not in shape)
            if s > score:
                best, score = PITCH_NAMES[root] + suffix, s
    return best


def _dedupe(seq: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(seq))


def _planned_chords(project: Project) -> dict[tuple[str, int], tuple[list[str], int]]:
    """(section name, start bar) → (chord per bar, changes) from the recipe's harmony plan."""
    recipe = project.provenance.recipe or {}
    try:
        chords = recipe["harmony"]["chords"]
        sections = recipe["arrangement"]["sections"]
        out = {}
        for s in sections:
            symbols = [str(chords[i]["symbol"]) for i in s["chord_indices"]]
            changes = sum(1 for a, b in itertools.pairwise(symbols) if a != b)
            out[(str(s["name"]), int(s["start_bar"]))] = (symbols, changes)
        return out
    except (KeyError, IndexError, TypeError, ValueError):
        return {}


def analyse(project: Project) -> Analysis:
    """The figures of the module docstring for `project` (muted tracks are not heard)."""
    bpb = project.beats_per_bar
    heard = [t for t in project.tracks if not t.mute]
    notes = [(t, r.start_beat + n.start, n) for t in heard for r in t.regions for n in r.notes]
    total_bars = max([sum(s.bars for s in project.sections)]
                     + [int((b + n.duration) // bpb) + 1 for _, b, n in notes] + [1])
    sections = list(project.sections) or []
    if not sections:
        from bandstand.studio.model import Section

        sections = [Section(name="Song", start_bar=1, bars=total_bars)]
    key_weights = [0.0] * 12
    for t, _, n in notes:
        if not t.is_drum:
            key_weights[n.pitch % 12] += n.duration
    key_heard, confidence = estimate_key(key_weights)
    planned = _planned_chords(project)
    figures = []
    for s in sections:
        lo, hi = (s.start_bar - 1) * bpb, (s.start_bar - 1 + s.bars) * bpb
        inside = [(t, b, n) for t, b, n in notes if lo <= b < hi]
        pitched = [n.pitch for t, _, n in inside if not t.is_drum]
        plan = planned.get((s.name, s.start_bar))
        if plan is not None:
            per_bar, changes = plan
        else:
            per_bar = []
            for bar in range(s.bars):
                weights = [0.0] * 12
                a, b = lo + bar * bpb, lo + (bar + 1) * bpb
                for t, start, n in inside:
                    if not t.is_drum and (t.role in HARMONY_ROLES or not any(
                            x.role in HARMONY_ROLES for x in heard)) and start < b and start + n.duration > a:
                        weights[n.pitch % 12] += min(b, start + n.duration) - max(a, start)
                chord = _chord(weights)
                if chord:
                    per_bar.append(chord)
            changes = sum(1 for x, y in itertools.pairwise(per_bar) if x != y)
        figures.append(SectionFigures(
            name=s.name, start_bar=s.start_bar, bars=s.bars, energy=round(s.energy, 2),
            notes_per_bar=round(len(inside) / s.bars, 1),
            velocity=round(sum(n.velocity for _, _, n in inside) / len(inside), 1) if inside else 0.0,
            pitch=round(sum(pitched) / len(pitched), 1) if pitched else None,
            parts=_dedupe(t.name for t, _, _ in inside), chords=_dedupe(per_bar),
            chord_changes_per_bar=round(changes / s.bars, 2)))
    ts = project.time_signature
    parts = tuple(PartFigures(t.name, t.role, t.note_count, t.mute, t.volume) for t in project.tracks)
    return Analysis(name=project.name or project.provenance.prompt or "the song", tempo=project.tempo,
                    key=project.key, key_heard=key_heard, key_confidence=confidence,
                    time_signature=f"{ts.numerator}/{ts.denominator}", bars=total_bars, parts=parts,
                    sections=tuple(figures))

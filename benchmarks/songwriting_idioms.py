"""The idiom checks of the songwriting benchmark, each measured on a song read
back from its MIDI file (`Heard`): swing, a four-on-the-floor bass that avoids
the kick, metal, punk, waltz, ambient, cinematic builds, a lead motif that
returns and develops, choruses that repeat with variation, no semitone clash
above a held chord tone on strong beats, and the 12-bar blues form.

Each check returns True/False, or None when the song has nothing to measure."""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Note = tuple[float, float, int, int]  # start beat, duration, pitch, velocity
KICKS = frozenset({35, 36})
TAMBOURINE = 54
HITS = frozenset({35, 36, 41, 43, 45, 49, 52, 55, 57})
PEAK_NAMES = re.compile(r"(?i)^(chorus|hook|drop|coro|swell|refrain)")


@dataclass
class Part:
    name: str
    role: str
    program: int
    drum: bool
    notes: list[Note]


@dataclass
class Heard:
    tempo: float
    num: int
    den: int
    parts: list[Part]
    markers: list[tuple[float, str]]
    tonic: int
    mode: str
    summary: str = ""

    @property
    def bpb(self) -> float:
        return self.num * 4 / self.den

    @property
    def total_beats(self) -> float:
        return max((n[0] + n[1] for p in self.parts for n in p.notes), default=0.0)

    def role(self, *roles: str) -> list[Note]:
        return sorted(n for p in self.parts if p.role in roles for n in p.notes)

    def sections(self) -> list[tuple[str, float, float]]:
        bounds = [*self.markers, (self.total_beats, "")]
        return [(name, a, b) for (a, name), (b, _) in itertools.pairwise(bounds)]


def pitched(parts: Iterable[Part]) -> list[Note]:
    return [n for p in parts if not p.drum for n in p.notes]


def chord_track(h: Heard) -> Part | None:
    return next((p for p in h.parts if p.role == "chords"), None) or next((p for p in h.parts if p.role == "pad"), None)


def jaccard(a: set[Any], b: set[Any]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _bar(h: Heard, t: float) -> int:
    return int((t + 0.1) // h.bpb)


def _groups(notes: list[Note], tol: float = 0.06) -> list[list[Note]]:
    groups: list[list[Note]] = []
    for n in sorted(notes):
        if groups and n[0] - groups[-1][0][0] <= tol:
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups


def _power_share(h: Heard) -> float:
    part = chord_track(h)
    if part is None:
        return 0.0
    groups = [g for g in _groups(part.notes) if len(g) >= 2]
    if not groups:
        return 0.0
    power = 0
    for g in groups:
        low = min(n[2] for n in g) % 12
        if {n[2] % 12 for n in g} == {low, (low + 7) % 12}:
            power += 1
    return power / len(groups)


def swing(h: Heard) -> bool | None:
    """Off-beat eighths of the drums land at ≥ 0.55 of the beat (median)."""
    pos = [n[0] % 1.0 for n in h.role("drums", "percussion") if 0.4 <= n[0] % 1.0 <= 0.72]
    return statistics.median(pos) >= 0.55 if len(pos) >= 8 else None


def four_floor_bass(h: Heard) -> bool | None:
    kicks = [n[0] for n in h.role("drums") if n[2] in KICKS]
    floor_bars = set()
    by_bar: dict[int, set[int]] = {}
    for t in kicks:
        if abs(t - round(t)) <= 0.07:
            by_bar.setdefault(_bar(h, t), set()).add(round(t) % int(h.bpb))
    floor_bars = {b for b, beats in by_bar.items() if len(beats) >= 4}
    if len(floor_bars) < 4:
        return False
    bass = [n[0] for n in h.role("bass", "sub_bass") if _bar(h, n[0]) in floor_bars]
    if not bass:
        return None
    on_kick = sum(1 for t in bass if any(abs(t - k) <= 0.125 for k in kicks))
    return on_kick / len(bass) <= 0.35


def metal(h: Heard) -> bool:
    kicks = sorted({round(n[0] * 4) for n in h.role("drums") if n[2] in KICKS})
    kick_set = set(kicks)
    double = any(all(k + i in kick_set for i in range(4)) for k in kicks)
    part = chord_track(h)
    short = part is not None and statistics.median(n[1] for n in part.notes) <= 0.5
    no_tambourine = not any(n[2] == TAMBOURINE for n in h.role("drums", "percussion"))
    return double and short and _power_share(h) >= 0.6 and no_tambourine


def punk(h: Heard) -> bool:
    bass = h.role("bass", "sub_bass")
    bars: dict[int, set[int]] = {}
    for n in bass:
        bars.setdefault(_bar(h, n[0]), set()).add(round((n[0] % h.bpb) * 2))
    driving = sum(1 for steps in bars.values() if len(steps) >= 7) / max(1, len(bars))
    return 160 <= h.tempo <= 200 and driving >= 0.6 and _power_share(h) >= 0.6


def waltz(h: Heard) -> bool:
    if (h.num, h.den) != (3, 4):
        return False
    bass_bars: dict[int, set[int]] = {}
    for n in h.role("bass", "sub_bass"):
        if abs(n[0] - round(n[0])) <= 0.08:
            bass_bars.setdefault(_bar(h, n[0]), set()).add(round(n[0]) % 3)
    oom = sum(1 for beats in bass_bars.values() if 0 in beats) / max(1, len(bass_bars))
    part = chord_track(h)
    chord_bars: dict[int, set[int]] = {}
    for n in part.notes if part else []:
        if abs(n[0] - round(n[0])) <= 0.08:
            chord_bars.setdefault(_bar(h, n[0]), set()).add(round(n[0]) % 3)
    pah = sum(1 for beats in chord_bars.values() if {1, 2} <= beats) / max(1, len(chord_bars))
    return oom >= 0.8 and pah >= 0.6


def ambient(h: Heard) -> bool:
    per_bar: dict[int, int] = {}
    for n in h.role("drums"):
        if n[2] in KICKS:
            per_bar[_bar(h, n[0])] = per_bar.get(_bar(h, n[0]), 0) + 1
    bars = max(1, int(h.total_beats // h.bpb))
    return sum(1 for c in per_bar.values() if c >= 2) / bars <= 0.1


def _figure(h: Heard, notes: list[Note]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    notes = sorted(notes)
    return (tuple(round(((n[0] + 0.1) % h.bpb - 0.1) * 4) for n in notes),  # a note played early is still on 1
            tuple(b[2] - a[2] for a, b in itertools.pairwise(notes)))


def _bars_of(h: Heard, notes: list[Note]) -> dict[int, list[Note]]:
    out: dict[int, list[Note]] = {}
    for n in notes:
        out.setdefault(_bar(h, n[0]), []).append(n)
    return out


def cinematic(h: Heard) -> bool:
    ostinato = False
    for p in h.parts:
        if p.drum:
            continue
        bars = _bars_of(h, p.notes)
        figures = [(b, _figure(h, bars[b])) for b in sorted(bars) if len(bars[b]) >= 4]
        run = 1
        for (b0, f0), (b1, f1) in itertools.pairwise(figures):
            run = run + 1 if b1 == b0 + 1 and f1 == f0 else 1
            ostinato = ostinato or run >= 4
    starts = [a for _, a, _ in h.sections()[1:]]
    drums = h.role("drums", "percussion")
    timpani = [n for p in h.parts if p.program == 47 for n in p.notes]
    hit = sum(1 for s in starts if any(abs(n[0] - s) <= 0.1 and n[2] in HITS for n in drums)
              or any(abs(n[0] - s) <= 0.1 for n in timpani))
    hits = bool(starts) and hit >= 0.5 * len(starts)
    loud = [0.0] * (int(h.total_beats // h.bpb) + 1)
    for p in h.parts:
        for n in p.notes:
            loud[_bar(h, n[0]) if _bar(h, n[0]) < len(loud) else -1] += n[3] / 127
    rising = any(all(loud[i + k] <= loud[i + k + 1] + 1e-9 for k in range(3)) and loud[i + 3] >= 1.3 * loud[i] > 0
                 for i in range(len(loud) - 3))
    part = chord_track(h)
    groups = _groups(part.notes) if part else []
    jazzy = sum(1 for g in groups if len({n[2] % 12 for n in g}) >= 4) / max(1, len(groups))
    return ostinato and hits and rising and jazzy <= 0.3


def motif(h: Heard) -> bool | None:
    """The lead's first figure (rhythm + intervals, any transposition) returns at least twice,
    and it is also developed (same rhythm with other intervals, or the intervals re-timed)."""
    lead = h.role("lead")
    if not lead:
        return None
    bars = _bars_of(h, lead)
    figures = [_figure(h, bars[b]) for b in sorted(bars) if len(bars[b]) >= 3]
    if len(figures) < 3:
        return False
    first = figures[0]
    returns = sum(1 for f in figures[1:] if f == first)
    develops = sum(1 for f in figures[1:] if f != first and (f[0] == first[0] or f[1] == first[1]))
    return returns >= 2 and develops >= 1


def chorus_variation(h: Heard) -> bool | None:
    """Two choruses (hooks, drops) share most of their lead but not all of it."""
    peaks = [(a, b) for name, a, b in h.sections() if PEAK_NAMES.match(name.strip())]
    if len(peaks) < 2:
        return None
    notes = h.role("lead") or pitched(h.parts)

    def cells(a: float, b: float) -> set[tuple[int, int]]:
        return {(round((n[0] - a) * 4), n[2]) for n in notes if a - 0.1 <= n[0] < b - 0.1}
    x, y = cells(*peaks[0]), cells(*peaks[-1])
    if not x or not y:
        return None
    return 0.3 <= jaccard(x, y) <= 0.9


def no_clash(h: Heard) -> bool | None:
    lead = h.role("lead")
    held = h.role("chords", "pad")
    strong = (0.0, h.bpb / 2) if h.bpb >= 4 else (0.0,)
    notes = [n for n in lead if any(abs((n[0] % h.bpb) - s) <= 0.08 for s in strong)]
    if not notes or not held:
        return None
    clashes = 0
    for t, _, pitch, _ in notes:
        if any(c[0] < t - 0.1 and c[0] + c[1] > t + 0.05 and c[2] % 12 == (pitch - 1) % 12 for c in held):
            clashes += 1
    return clashes / len(notes) <= 0.03


def twelve_bar(h: Heard) -> bool:
    """The first verse (or the first section after the intro) runs I I I I IV IV I I V IV I V:
    the bass's first note of bars 1, 5 and 9 is the tonic, the fourth and the fifth."""
    body = [(a, b) for name, a, b in h.sections() if not re.match(r"(?i)intro", name.strip())]
    if not body:
        return False
    start = int(body[0][0] // h.bpb)
    first: dict[int, int] = {}
    for n in h.role("bass", "sub_bass"):
        first.setdefault(_bar(h, n[0]), n[2] % 12)
    want = {0: 0, 4: 5, 8: 7}
    return all(first.get(start + k) == (h.tonic + v) % 12 for k, v in want.items())


IDIOMS: dict[str, Callable[[Heard], bool | None]] = {
    "swing": swing, "four_floor_bass": four_floor_bass, "metal": metal, "punk": punk, "waltz": waltz,
    "ambient": ambient, "cinematic": cinematic, "motif": motif, "chorus_variation": chorus_variation,
    "no_clash": no_clash, "twelve_bar": twelve_bar,
}

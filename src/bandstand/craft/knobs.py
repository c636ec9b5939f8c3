"""What the style knobs do, in one place: the base style a role starts from
(the idiom's swing, its dials as syncopation and complexity), the feel a
phrase carries to its writers, and the small transformations several roles
share — register moved by octaves, note lengths by articulation, notes added
or thinned by density, velocity and voicing by brightness.

Each generator reads the resolved `Style` of every bar it plays; a knob at its
middle (0.5) leaves the part as the idiom plays it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from bandstand.craft.groove import groove
from bandstand.craft.phrase import Feel
from bandstand.craft.situation import ROLE_FEEL, Situation
from bandstand.craft.style import Style

__all__ = ["RHYTHM_ROLES", "SWING_FULL", "bar_rng", "base_style", "feel_of", "octaves", "sustain"]

SWING_FULL = 0.33  # the swing knob at 1 is a triplet shuffle: a third of the swing unit
RHYTHM_ROLES = frozenset({"drums", "percussion"})
UNSWUNG_ROLES = frozenset({"pad", "texture"})  # sustained parts do not swing


def bar_rng(seed: int, bar: int) -> random.Random:
    """The random source of one bar of a part: every bar draws its own, so a change
    scoped to some bars (an override, a section) leaves the other bars as they were."""
    return random.Random(seed * 1_000_003 + bar)


def base_style(s: Situation, role: str) -> Style:
    """The style `role` plays with before anyone turns a knob: the idiom's swing; its
    rhythmic dial as syncopation; its rhythmic (drums) or harmonic (pitched) dial as
    complexity."""
    idiom = s.idiom
    swing = 0.0 if "no_swing" in s.constraints else min(1.0, max(0.0, idiom.swing / SWING_FULL))
    complexity = idiom.rhythmic if role in RHYTHM_ROLES else idiom.harmonic
    return Style(syncopation=idiom.rhythmic, swing=swing, complexity=complexity)


def feel_of(s: Situation, styles: Sequence[Style], role: str, *, by_key: bool = False, lay_back: str = "",
            swing: bool = True) -> Feel:
    """The feel a phrase of `role` carries: its groove template, each bar's swing and time
    feel, how loosely the role plays."""
    swung = swing and role not in UNSWUNG_ROLES
    return Feel(groove=s.idiom.drum_family,
                swing=tuple(st.swing * SWING_FULL for st in styles) if swung else (),
                swing_unit=groove(s.idiom.drum_family).swing_unit,
                time_feel=tuple(st.time_feel for st in styles), looseness=ROLE_FEEL.get(role, 0.7),
                by_key=by_key, lay_back=lay_back)


def octaves(style: Style) -> int:
    """Octaves the register knob moves a part: one from 0.7 (or 0.3), two at the ends."""
    return math.floor((style.register - 0.5) * 2.5 + 0.5)


def sustain(style: Style) -> float:
    """How much of its written length a note sounds: 1 at the middle, shorter when
    staccato (0.45 at 0), longer when legato (up to 1.55 at 1, capped by the caller)."""
    return 0.45 + 1.1 * style.articulation


Raw = tuple[float, float, int, int]  # start beat, length in beats, pitch, velocity
SPLIT_MIN = 0.34  # beats: a hit this long or longer can be split in two by density


def _groups(notes: list[Raw]) -> list[list[Raw]]:
    """Notes struck together (the same start) as one hit."""
    out: list[list[Raw]] = []
    for n in sorted(notes):
        if out and abs(out[-1][0][0] - n[0]) < 1e-6:
            out[-1].append(n)
        else:
            out.append([n])
    return out


def densify(notes: list[Raw], density: float, bar_end: float) -> list[Raw]:
    """A bar's notes with more or fewer hits. Above the middle, hits are added until
    there are 1 + 2 × (density − 0.5) times as many: the longest hit is split in two
    (the same notes struck again on the sixteenth half-way, a little softer), or, when
    every hit is already short, the longest rest is filled with the hit before it.
    Below the middle the softest off-beat hits go (the first hit stays) and the hit
    before rings on in their place."""
    if density == 0.5 or not notes:
        return notes
    hits = _groups(notes)
    if density > 0.5:
        target = round(len(hits) * (1 + 2 * (density - 0.5)) + 0.49)
        while len(hits) < target and _add_hit(hits, bar_end):
            pass
        return [n for h in hits for n in h]
    keep = max(1, round(len(hits) * (1 - 1.2 * (0.5 - density))))
    while len(hits) > keep:
        i = min(range(1, len(hits)), key=lambda k: (hits[k][0][0] % 1.0 == 0.0, hits[k][0][3], -k))
        gone = hits.pop(i)
        prev = hits[i - 1]
        end = gone[0][0] + gone[0][1]
        hits[i - 1] = [(t, max(d, end - t), p, v) for t, d, p, v in prev]
    return [n for h in hits for n in h]


def _add_hit(hits: list[list[Raw]], bar_end: float) -> bool:
    """One more hit in the bar (see `densify`); False when there is no room left."""
    i = max(range(len(hits)), key=lambda k: (hits[k][0][1], -k))
    length = hits[i][0][1]
    if length >= SPLIT_MIN - 1e-9:
        half = max(0.25, math.floor(length / 2 * 4 + 0.5) / 4)
        first = [(t, half, p, v) for t, _, p, v in hits[i]]
        second = [(t + half, d - half, p, max(1, v - 8)) for t, d, p, v in hits[i]]
        hits[i:i + 1] = [first, second]
        return True
    best, room = -1, 0.0
    for k, hit in enumerate(hits):
        end = max(t + d for t, d, _, _ in hit)
        nxt = hits[k + 1][0][0] if k + 1 < len(hits) else bar_end
        at = math.ceil(end * 4 - 1e-6) / 4
        if nxt - at > room + 1e-9:
            best, room = k, nxt - at
    if best < 0 or room < 0.25 - 1e-9:
        return False
    end = max(t + d for t, d, _, _ in hits[best])
    at = math.ceil(end * 4 - 1e-6) / 4
    length = min(hits[best][0][1], room)
    hits.insert(best + 1, [(at, length, p, max(1, v - 8)) for _, _, p, v in hits[best]])
    return True


def root_position(pitches: Sequence[int], root: int) -> tuple[int, ...]:
    """The chord re-voiced with its root at the bottom (the song's last chord): the lowest
    root at or below the voicing's lowest note, the other tones above it."""
    low = min(pitches)
    bottom = low - (low - root) % 12
    rest = sorted({p if p > bottom else p + 12 for p in pitches if p % 12 != root % 12})
    return (bottom, *rest)


def fold(pitch: int, low: int, high: int) -> int:
    """`pitch` moved by octaves into low..high (when the range is an octave or more)."""
    while pitch < low:
        pitch += 12
    while pitch > high and pitch - 12 >= low:
        pitch -= 12
    return pitch


BRIGHT_VOICING = 0.2  # brightness this far from the middle re-voices chords (top opened up, or closed down)


def brighten(notes: list[Raw], brightness: float, low: int, high: int) -> list[Raw]:
    """A bar's pitched notes played brighter or darker: struck harder or softer (velocity
    × 0.75..1.25, which most instruments answer with a brighter or duller tone), and, at
    least `BRIGHT_VOICING` from the middle, each chord of three or more notes re-voiced —
    brighter lifts its second-lowest note an octave over the top (the bottom stays, the
    voicing opens upward), darker drops its top note an octave into the middle (a voicing
    closer than an octave goes down whole) — within low..high. At the middle nothing
    changes."""
    if brightness == 0.5 or not notes:
        return notes
    scale = 0.75 + 0.5 * brightness
    out: list[Raw] = []
    for hit in _groups(notes):
        pitches = sorted({p for _, _, p, _ in hit})
        move: dict[int, int] = {}
        if len(pitches) >= 3 and brightness >= 0.5 + BRIGHT_VOICING and pitches[1] + 12 <= high \
                and pitches[1] + 12 not in pitches:
            move[pitches[1]] = pitches[1] + 12
        elif len(pitches) >= 3 and brightness <= 0.5 - BRIGHT_VOICING:
            if pitches[-1] - 12 > pitches[0] and pitches[-1] - 12 >= low and pitches[-1] - 12 not in pitches:
                move[pitches[-1]] = pitches[-1] - 12
            elif pitches[0] - 12 >= low:  # a close voicing: the whole chord an octave down
                move = {p: p - 12 for p in pitches}
        out += [(t, d, move.get(p, p), max(1, min(127, round(v * scale)))) for t, d, p, v in hit]
    return out


def reshape(notes: list[Raw], style: Style, low: int, high: int, bar_end: float) -> list[Raw]:
    """A bar's pitched notes turned by density, brightness (velocity and voicing, see
    `brighten`), register (octaves, kept in low..high moved by the same octaves) and
    articulation (lengths, never past `bar_end`)."""
    notes = brighten(densify(notes, style.density, bar_end), style.brightness, low, high)
    shift = 12 * octaves(style)
    hold = sustain(style)
    if not shift and hold == 1.0:
        return notes
    lo, hi = low + shift, high + shift
    return [(t, max(0.05, min(d * hold, bar_end - t)) if hold != 1.0 else d, fold(p + shift, lo, hi), v)
            for t, d, p, v in notes]

"""Non-chord tones, placed and resolved the way a songwriter does: a suspension
(the previous bar's note held into a new chord it does not belong to, then
resolved down by step), an appoggiatura (the scale step above a chord tone on a
strong beat, leaning into it; neither a semitone above a chord tone, where it
would grate against the comping), an anticipation (the next chord's tone sounded on
the last weak off-beat before it arrives), and in the inner voices of the
comping the 4–3 suspension (the chord's third replaced by the fourth the
previous chord held, resolving in the middle of the bar).

How often depends on the genre's harmonic dial (`Idiom.harmonic`): a hymn or a
pop hook leans rarely, jazz and neo-soul often. Nothing here is random except
through the `random.Random` handed in (a bar's own generator), so a seed gives
the same ornaments."""

from __future__ import annotations

import random

from bandstand.craft.situation import Bar

__all__ = ["comp_suspension_chance", "lead_ornament_chance", "ornament_line", "suspension_lift"]

Line = list[tuple[float, float, int]]  # (onset beat in bar, length beats, pitch)


def lead_ornament_chance(harmonic: float) -> float:
    """The chance that a developing bar of the melody (a sequence, a variation, a cadence)
    carries one non-chord tone on a strong beat or an anticipation: about one such bar in
    two at a pop dial (0.2), seven in ten in jazz (0.75) — where a leaning note fits at all
    (most bars offer none that resolves without grating)."""
    return 0.4 + 0.4 * max(0.0, min(1.0, harmonic))


def comp_suspension_chance(harmonic: float) -> float:
    """The chance that a chord change that can take one (the previous chord holds the new
    one's fourth) is comped with a prepared 4–3 suspension: one in five at a pop dial (0.2),
    nearly two in five in jazz (0.75)."""
    return 0.14 + 0.32 * max(0.0, min(1.0, harmonic))


def _step(ladder: list[int], pitch: int, direction: int) -> int | None:
    """The scale step above (`direction` 1) or below (-1) `pitch` on `ladder`."""
    if direction > 0:
        return next((p for p in ladder if p > pitch), None)
    return next((p for p in reversed(ladder) if p < pitch), None)


def _rubs(bar: Bar, pitch: int) -> bool:
    """A non-chord tone a semitone above a tone of the chord the comping holds grates rather
    than leans (the lead keeps clear of that rub on strong beats)."""
    return (pitch - 1) % 12 in bar.chord.pcs


def _halves(length: float) -> tuple[float, float]:
    first = max(0.25, round(length / 2 * 4) / 4)
    return first, length - first


def _suspension(bar: Bar, line: Line, previous: int | None, ladder: list[int]) -> Line | None:
    if previous is None or not line or line[0][0] > 1e-6 or line[0][1] < 0.5:
        return None
    if previous % 12 in bar.chord.pcs or _rubs(bar, previous):
        return None
    resolution = _step(ladder, previous, -1)
    if resolution is None or resolution % 12 not in bar.chord.pcs:
        return None
    held, rest = _halves(line[0][1])
    return [(0.0, held, previous), (held, rest, resolution), *line[1:]]


def _appoggiatura(bar: Bar, line: Line, ladder: list[int], beats: float, rng: random.Random) -> Line | None:
    strong = [i for i, (onset, length, pitch) in enumerate(line)
              if length >= 1.0 and pitch % 12 in bar.chord.pcs
              and any(abs(onset - b) < 1e-6 for b in (0.0, beats / 2))]
    if not strong:
        return None
    i = rng.choice(strong)
    onset, length, pitch = line[i]
    upper = _step(ladder, pitch, 1)
    if upper is None or upper % 12 in bar.chord.pcs or _rubs(bar, upper):
        return None
    lean, rest = _halves(length)
    return [*line[:i], (onset, lean, upper), (onset + lean, rest, pitch), *line[i + 1:]]


def _anticipation(bar: Bar, line: Line, beats: float) -> Line | None:
    if not line or not bar.chord_changes:
        return None
    onset, length, pitch = line[-1]
    if onset < beats - 1.0 or abs(onset - round(onset)) < 1e-6 or length > 1.0:
        return None  # only a short note on the last off-beat anticipates
    target = next((pitch + d for d in (0, -1, 1, -2, 2) if (pitch + d) % 12 in bar.next_chord.pcs), None)
    if target is None or target == pitch:
        return None
    return [*line[:-1], (onset, length, target)]


def ornament_line(bar: Bar, line: Line, previous: int | None, ladder: list[int], beats: float,
                  rng: random.Random, chance: float) -> Line:
    """`line` (one bar of a melody, strong beats on chord tones) with at most one idiomatic
    non-chord tone, with probability `chance`; `previous` is the melody's last pitch before
    the bar (a suspension holds it), `ladder` the scale tones of its register."""
    if bar.final or not line or rng.random() >= chance:
        return line
    kinds = ["suspension", "appoggiatura", "anticipation"]
    rng.shuffle(kinds)
    for kind in kinds:
        if kind == "suspension":
            out = _suspension(bar, line, previous, ladder)
        elif kind == "appoggiatura":
            out = _appoggiatura(bar, line, ladder, beats, rng)
        else:
            out = _anticipation(bar, line, beats)
        if out is not None:
            return out
    return line


def suspension_lift(bar: Bar, previous_pcs: tuple[int, ...], scale: tuple[int, ...]) -> int | None:
    """How far the chord's third moves up to the fourth above the root (1 or 2 semitones) for a
    prepared 4–3 suspension: only when the previous chord held that fourth, the fourth is in the
    scale and not already a chord tone; None when the chord cannot take one."""
    root, third = bar.chord.root, bar.chord.third
    fourth = (root + 5) % 12
    if (third - root) % 12 not in (3, 4) or fourth not in previous_pcs or fourth not in scale \
            or fourth in bar.chord.pcs:
        return None
    return (fourth - third) % 12

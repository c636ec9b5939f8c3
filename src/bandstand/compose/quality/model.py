"""The quality model: each figure (`quality.figures`) mapped onto 0..1
against its calibrated reference range (`quality.ranges`), by which way is
better for it:

- "higher" (key clarity, in-scale and chord-tone rates, groove consistency,
  lock, bass coverage, density following energy): 1.0 at the range's top,
  0.9 at its median, 0.6 at its bottom, falling to 0 three half-widths
  below it;
- "lower" (the declared key's rank): the mirror image;
- "within" (notes per bar, section contrast, the melody's steps, range,
  turns and motif recurrence): 1.0 at the median, 0.75 at the range's
  edges, 0 four half-widths away; the stems' loudness against the mix and
  their spectral balance (`quality.audio`), each against its role's range.

A plan that asks for colour (the harmonic dial: borrowed chords, extensions,
substitutions) asks the notes to leave the key: the bottom of the range of
the key figures (in-scale rate, key clarity, chord tones) is lowered by
`COLOUR_SLACK` times the dial, as stage 7's in-scale rate always expected.

So a figure keeps telling takes apart inside the range (no saturation at
"good enough") and a song far outside what reference music does scores near
0. Each figure belongs to one of the four axes of stage 7.
"""

from __future__ import annotations

from collections.abc import Mapping

from bandstand.compose.models.quality import FigureScore
from bandstand.compose.quality.ranges import RANGES

__all__ = ["COLOUR_SLACK", "DIRECTION", "FIGURE_AXIS", "MIN_HALF_WIDTH", "figure_key", "rate", "rate_one", "take_score"]

# Which way is better, by figure (a per-role figure "in_scale.bass" is looked up as "in_scale").
DIRECTION: dict[str, str] = {
    "key_clarity": "higher", "key_rank": "lower", "in_scale": "higher", "chord_tones": "higher",
    "groove_consistency": "higher", "kick_bass_lock": "higher", "density_energy": "higher",
    "bass_coverage": "higher", "notes_per_bar": "within", "section_contrast": "within",
    "step_share": "within", "melodic_range": "within", "direction_changes": "within",
    "motif_recurrence": "within", "stem_loudness": "within", "low_share": "within", "brightness": "within",
}
FIGURE_AXIS: dict[str, str] = {
    "key_clarity": "harmony", "key_rank": "harmony", "in_scale": "harmony", "chord_tones": "harmony",
    "groove_consistency": "rhythm", "kick_bass_lock": "rhythm",
    "density_energy": "arrangement", "bass_coverage": "arrangement", "notes_per_bar": "arrangement",
    "section_contrast": "arrangement", "motif_recurrence": "arrangement",
    "step_share": "vibe", "melodic_range": "vibe", "direction_changes": "vibe",
    # measured on the rendered stems, after the gate: published, not gated
    "stem_loudness": "mix", "low_share": "mix", "brightness": "mix",
}
# The least half-width a range is given (in the figure's own unit), so a range the reference
# music fills with one value (every chorale's bass covers every bar) still grades a miss.
MIN_HALF_WIDTH: dict[str, float] = {
    "key_clarity": 0.06, "key_rank": 1.5, "in_scale": 0.08, "chord_tones": 0.15, "groove_consistency": 0.1,
    "kick_bass_lock": 0.15, "density_energy": 0.2, "bass_coverage": 0.1, "notes_per_bar": 4.0,
    "section_contrast": 0.12, "step_share": 0.08, "melodic_range": 3.0, "direction_changes": 0.08,
    "motif_recurrence": 0.08, "stem_loudness": 1.5, "low_share": 0.08, "brightness": 0.4,
}


# How far the bottom of a key figure's range moves down at a harmonic dial of 1.
COLOUR_SLACK: dict[str, float] = {"in_scale": 0.45, "key_clarity": 0.5, "chord_tones": 0.3}


def figure_key(name: str) -> str:
    """The table key of a figure: "chord_tones.bass" → "chord_tones"."""
    return name.split(".", 1)[0]


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def rate_one(name: str, value: float, low: float, median: float, high: float) -> float:
    """`value` of figure `name` on 0..1 against the range (see the module docstring)."""
    key = figure_key(name)
    way = DIRECTION[key]
    floor = MIN_HALF_WIDTH[key]
    below, above = max(median - low, floor), max(high - median, floor)
    if way == "lower":  # mirror onto "higher"
        value, low, median, high = -value, -high, -median, -low
        below, above = above, below
        way = "higher"
    if way == "higher":
        if value >= high:
            return 1.0
        if value >= median:
            return _clamp(0.9 + 0.1 * (value - median) / above)
        edge = median - below
        if value >= edge:
            return 0.6 + 0.3 * (value - edge) / below
        return _clamp(0.6 - 0.6 * (edge - value) / (3.0 * below))
    z = (value - median) / (below if value < median else above)
    z = abs(z)
    return _clamp(1.0 - 0.25 * z * z) if z <= 1.0 else _clamp(0.75 - 0.25 * (z - 1.0))


def rate(figures: Mapping[str, float | None], colour: float = 0.0) -> dict[str, FigureScore]:
    """Every measured figure with a calibrated range, rated (figures without one are left out);
    `colour` is the harmonic dial of the song's plan (0 for music without one)."""
    out: dict[str, FigureScore] = {}
    for name, value in sorted(figures.items()):
        entry = RANGES.get(name) or RANGES.get(figure_key(name))  # a range of its own (per role), else its kind's
        if value is None or entry is None or figure_key(name) not in DIRECTION:
            continue
        low, median, high, sources = entry
        low = round(low - COLOUR_SLACK.get(figure_key(name), 0.0) * colour, 4)
        out[name] = FigureScore(value=round(value, 4), low=low, median=median, high=high,
                                score=round(rate_one(name, value, low, median, high), 4),
                                axis=FIGURE_AXIS[figure_key(name)], sources=list(sources))
    return out


def take_score(figures: Mapping[str, float | None], colour: float = 0.0) -> float:
    """One number a take is ranked by: the mean of its rated figures, less a quarter of how far
    the weakest falls below the mean (0 when nothing could be rated)."""
    rated = [f.score for f in rate(figures, colour).values()]
    if not rated:
        return 0.0
    mean = sum(rated) / len(rated)
    return round(mean - 0.25 * (mean - min(rated)), 4)

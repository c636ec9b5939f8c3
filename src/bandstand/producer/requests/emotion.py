"""The emotion of a request: five numbers in 0..1 — energy, valence (sad → happy),
tension, intimacy (big room → close and personal) and motion (still → moving) —
derived for every request, structured or in words, from the mood lexicon
compose reads prompts with (`compose.lexicon.moods`), the words a structured
prompt gives (Energy, Vibe, Style) and its tempo.

The generators hear it as style knobs (`knobs()`: denser and brighter for
energy, brighter and higher for valence, more colourful for tension, sparser
and more legato for intimacy, more syncopated for motion), turned on every part
the request writes, so a "tender, intimate" bass plays fewer, longer, lower
notes than an "angry, driving" one from the same seed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bandstand.compose.api import MOOD_BY_LABEL, MOODS
from bandstand.craft.style import StyleOverride

__all__ = ["AXES", "MOOD_EMOTION", "NEUTRAL", "Emotion", "derive_emotion"]

AXES = ("energy", "valence", "tension", "intimacy", "motion")
_FEEL: dict[str, tuple[float, float, float, float]] = {
    "dark": (0.2, 0.7, 0.4, 0.5), "late-night": (0.35, 0.45, 0.75, 0.4),
    "warm": (0.65, 0.25, 0.8, 0.4), "happy": (0.9, 0.2, 0.4, 0.7),
    "sad": (0.1, 0.45, 0.75, 0.3), "chill": (0.6, 0.2, 0.65, 0.35),
    "experimental": (0.5, 0.75, 0.4, 0.6), "energetic": (0.7, 0.5, 0.2, 0.9),
    "aggressive": (0.2, 0.85, 0.15, 0.85), "angry": (0.1, 0.9, 0.2, 0.9), "dreamy": (0.6, 0.3, 0.7, 0.35),
    "epic": (0.6, 0.6, 0.1, 0.7), "romantic": (0.7, 0.35, 0.9, 0.45),
    "nostalgic": (0.45, 0.4, 0.7, 0.45), "mysterious": (0.3, 0.75, 0.55, 0.45),
    "groovy": (0.7, 0.4, 0.45, 0.9), "spacey": (0.55, 0.5, 0.4, 0.45),
    "hypnotic": (0.5, 0.5, 0.45, 0.75), "rainy": (0.3, 0.4, 0.75, 0.35),
    "summer": (0.85, 0.2, 0.4, 0.75), "dusty": (0.45, 0.4, 0.6, 0.55),
    "spiritual": (0.75, 0.35, 0.6, 0.5), "meditative": (0.55, 0.15, 0.75, 0.15),
    "minimal": (0.5, 0.3, 0.6, 0.4), "mechanical": (0.45, 0.45, 0.2, 0.7),
    "lullaby": (0.7, 0.1, 0.9, 0.2), "complex": (0.5, 0.75, 0.45, 0.6),
    "funereal": (0.1, 0.5, 0.7, 0.1), "morning": (0.75, 0.2, 0.65, 0.45),
    "celebration": (0.95, 0.2, 0.35, 0.85),
}
"""Mood label → (valence, tension, intimacy, motion); its energy is the mood's own
(`compose.lexicon.moods`), the one the compose pipeline plays it at."""
MOOD_EMOTION: dict[str, tuple[float, float, float, float, float]] = {
    label: (MOOD_BY_LABEL[label].energy, *feel) for label, feel in _FEEL.items()}
"""Mood label → (energy, valence, tension, intimacy, motion)."""
KNOB_WEIGHTS: dict[str, dict[str, float]] = {
    "density": {"energy": 0.5, "motion": 0.3, "intimacy": -0.35},
    "brightness": {"valence": 0.5, "energy": 0.15},
    "complexity": {"tension": 0.45},
    "syncopation": {"motion": 0.4, "tension": 0.1},
    "articulation": {"intimacy": 0.4, "energy": -0.25},
    "register": {"valence": 0.2, "intimacy": -0.2},
}
"""Style knob → how far each axis (away from 0.5) turns it."""


@dataclass(frozen=True, slots=True)
class Emotion:
    energy: float = 0.5
    valence: float = 0.5
    tension: float = 0.5
    intimacy: float = 0.5
    motion: float = 0.5
    moods: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, float]:
        return {axis: round(getattr(self, axis), 3) for axis in AXES}

    @property
    def neutral(self) -> bool:
        return all(abs(getattr(self, a) - 0.5) < 0.02 for a in AXES)

    def knobs(self) -> dict[str, float]:
        """Knob deltas (−1..1) the generators turn for this emotion (see `KNOB_WEIGHTS`)."""
        out = {}
        for knob, weights in KNOB_WEIGHTS.items():
            delta = sum(w * (getattr(self, axis) - 0.5) * 2 for axis, w in weights.items())
            if abs(delta) >= 0.02:
                out[knob] = round(max(-1.0, min(1.0, delta)), 3)
        return out

    def override(self, role: str = "*") -> StyleOverride | None:
        """The knobs as a style override for `role` (None when the emotion is neutral)."""
        knobs = self.knobs()
        return StyleOverride(role=role, knobs=knobs) if knobs else None

    def describe(self) -> str:
        words = {"energy": ("calm", "energetic"), "valence": ("dark", "bright"), "tension": ("relaxed", "tense"),
                 "intimacy": ("big", "intimate"), "motion": ("still", "moving")}
        said = [words[a][1] if getattr(self, a) > 0.5 else words[a][0] for a in AXES if abs(getattr(self, a) - 0.5) >= 0.1]
        return ", ".join(said) or "neutral"


NEUTRAL = Emotion()


def _moods(text: str) -> list[str]:
    low = f" {text.lower()} "
    found = []
    for mood in MOODS:
        if any(re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", low) for w in mood.words):
            found.append(mood.label)
    return found


def derive_emotion(text: str, *, energy: float | None = None, tempo: float | None = None,
                   extra: Mapping[str, float] | None = None) -> Emotion:
    """The emotion of a request: the moods its words name (averaged), then an explicit
    `energy` (it wins for that axis), then the tempo nudging motion (fast moves, slow rests)."""
    moods = _moods(text) if text else []
    values = [MOOD_EMOTION[m] for m in moods if m in MOOD_EMOTION]
    axes = dict.fromkeys(AXES, 0.5)
    if values:
        for i, axis in enumerate(AXES):
            axes[axis] = sum(v[i] for v in values) / len(values)
    if energy is not None:
        axes["energy"] = max(0.0, min(1.0, energy))
    if tempo is not None:
        axes["motion"] = max(0.0, min(1.0, axes["motion"] + (tempo - 110.0) / 200.0))
    for axis, value in (extra or {}).items():
        if axis in axes:
            axes[axis] = max(0.0, min(1.0, value))
    return Emotion(**{a: round(v, 3) for a, v in axes.items()}, moods=tuple(moods))

"""Effects a part gets when the request names none (spec studio §5): drums and bass
a compressor; pads, leads and keys a send to the shared Reverb bus; rock and
metal put distortion on the lead; lo-fi a low-pass filter on the drums and a
chorus on the keys; jazz sends to a small room instead of the hall. A
structured prompt's constraint `no_effects` turns all of it off. Reverb is never
an insert: it always goes through a bus the parts share.

`infer_effects(role, style)` gives the effects as data (`Fx`); the planner
turns them into tool calls and plan steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["BUSES", "ROLE_EFFECTS", "STYLE_EFFECTS", "Fx", "infer_effects", "normalise_effect"]


@dataclass(frozen=True, slots=True)
class Fx:
    """An insert effect (`bus` None) or a send to a bus at `level`."""

    type: str
    params: dict[str, float | str] = field(default_factory=dict)
    bus: str | None = None
    level: float = 0.25

    @property
    def words(self) -> str:
        return f"a send to the {self.bus} bus" if self.bus else self.type


BUSES: dict[str, tuple[dict[str, float | str], str]] = {
    "Reverb": ({}, "the shared Reverb bus"),
    "Room": ({"room_size": 0.2, "damping": 0.6, "wet": 1.0, "pre_delay_ms": 8.0}, "a small room, as jazz is played in"),
}
"""Bus name → the reverb it carries (its parameters; {} = the studio's default) and what it is."""
_COMP_DRUMS: dict[str, float | str] = {"threshold_db": -16.0, "ratio": 4.0, "attack_ms": 8.0, "release_ms": 90.0}
_COMP_BASS: dict[str, float | str] = {"threshold_db": -20.0, "ratio": 4.0, "attack_ms": 12.0, "release_ms": 140.0}
ROLE_EFFECTS: dict[str, tuple[Fx, ...]] = {
    "drums": (Fx("compressor", _COMP_DRUMS),), "percussion": (Fx("compressor", _COMP_DRUMS),),
    "bass": (Fx("compressor", _COMP_BASS),), "sub_bass": (Fx("compressor", _COMP_BASS),),
    "pad": (Fx("reverb", bus="Reverb", level=0.35),), "lead": (Fx("reverb", bus="Reverb", level=0.25),),
    "chords": (Fx("reverb", bus="Reverb", level=0.2),), "arp": (Fx("reverb", bus="Reverb", level=0.25),),
    "counter_melody": (Fx("reverb", bus="Reverb", level=0.2),),
}
"""Role → the effects it gets in any style."""
STYLE_EFFECTS: tuple[tuple[re.Pattern[str], str, Fx], ...] = (
    (re.compile(r"\bmetal\b", re.I), "lead", Fx("distortion", {"drive_db": 30.0, "mix": 1.0})),
    (re.compile(r"\b(?:rock|punk|grunge)\b", re.I), "lead", Fx("distortion", {"drive_db": 18.0, "mix": 0.8})),
    (re.compile(r"\blo-?fi\b", re.I), "drums", Fx("filter", {"kind": "lowpass", "cutoff_hz": 3500.0, "resonance": 0.1})),
    (re.compile(r"\blo-?fi\b", re.I), "chords", Fx("chorus", {"rate_hz": 0.6, "depth": 0.3, "mix": 0.4})),
)
"""(style words, role, effect): what a style adds to a role."""
_JAZZ = re.compile(r"\b(?:jazz|bebop|swing|bossa)\b", re.I)
_ALIASES = {"verb": "reverb", "echo": "delay", "compression": "compressor", "comp": "compressor", "drive": "overdrive",
            "fuzz": "distortion", "lowpass": "filter", "low-pass": "filter", "equaliser": "eq", "equalizer": "eq"}


def normalise_effect(word: str) -> str:
    """An effect word as the studio names the type ("echo" → delay)."""
    low = word.strip().lower()
    return _ALIASES.get(low, low)


def infer_effects(role: str, style: str = "") -> tuple[Fx, ...]:
    """The effects `role` gets in `style` (see the module docstring)."""
    out = list(ROLE_EFFECTS.get(role, ()))
    for regex, target, fx in STYLE_EFFECTS:
        if target == role and regex.search(style) and all(f.type != fx.type for f in out):
            out.append(fx)
    if _JAZZ.search(style):
        out = [Fx(f.type, f.params, "Room", f.level) if f.bus == "Reverb" else f for f in out]
    return tuple(out)

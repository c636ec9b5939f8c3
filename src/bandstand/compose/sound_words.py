"""Sound words in a prompt → effect presets on the parts that carry them.

"Distorted", "tape-saturated", "dub echoes", "muffled", "phased", "flanged",
"tremolo", "a chorus effect" and "drenched in reverb" name sounds, not notes:
each row of `FX_WORDS` says which words, which roles get the effect, and its
parameters (the types and ranges of `score.mix.EFFECTS`). An effect a part
already has from its genre (the lead's echo, the 808's drive) takes the
word's parameters instead of being doubled. Reverb words make the shared
reverb bus larger and the sends to it stronger. Constraints win: "no delay"
keeps echo words out, "no reverb" the reverb words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from bandstand.compose.models.sound import Effect

__all__ = ["FX_WORDS", "REVERB_WORDS", "FxWord", "reverb_words", "word_effects"]


@dataclass(frozen=True, slots=True)
class FxWord:
    """Words (a regex), the roles they reach, the effect and its parameters, and why."""

    pattern: re.Pattern[str]
    roles: tuple[str, ...]
    type: str
    params: MappingProxyType[str, float | str]
    reason: str
    unless: str = ""  # a constraint that keeps the effect out


def _w(words: str, roles: tuple[str, ...], kind: str, params: dict[str, float | str], reason: str,
       unless: str = "") -> FxWord:
    return FxWord(re.compile(rf"\b(?:{words})\b", re.IGNORECASE), roles, kind, MappingProxyType(params), reason,
                  unless)


PITCHED = ("chords", "pad", "lead", "arp", "counter_melody")
FX_WORDS: tuple[FxWord, ...] = (
    _w(r"distort\w*|fuzz(?:y|ed)?|gritty|crunchy|overdriven", ("lead", "chords"), "distortion",
       {"drive_db": 20.0, "mix": 0.7}, "distorted, as the prompt asks"),
    _w(r"tape|saturat\w*|analog(?:ue)? warmth", ("chords", "pad", "bass"), "overdrive",
       {"drive": 0.3, "tone": 0.4, "mix": 0.5}, "tape saturation, as the prompt asks"),
    _w(r"dub|echo(?:es|ey|ing)?|delays|delayed", ("lead", "chords", "arp"), "delay",
       {"time_beats": 0.75, "feedback": 0.5, "mix": 0.3}, "dub echoes: dotted eighths with a long tail",
       unless="no_delay"),
    _w(r"muffled|underwater|telephone", (*PITCHED, "drums"), "filter",
       {"kind": "lowpass", "cutoff_hz": 2500.0, "resonance": 0.1}, "muffled, as if heard through a wall"),
    _w(r"chorus effect|chorused|chorus pedal|shimmer(?:y|ing)?", ("pad", "chords"), "chorus",
       {"rate_hz": 0.8, "depth": 0.35, "mix": 0.5}, "a wide, shimmering chorus"),
    _w(r"phas(?:er|ed|ing|ey)", ("chords", "pad", "lead"), "phaser",
       {"rate_hz": 0.4, "depth": 0.6, "feedback": 0.4, "mix": 0.5}, "a slow phaser sweep"),
    _w(r"flang(?:er|ed|ing)", ("chords", "lead"), "flanger",
       {"rate_hz": 0.25, "depth": 0.6, "feedback": 0.5, "mix": 0.5}, "a jet-plane flanger"),
    _w(r"tremolo|pulsing", ("chords", "pad"), "tremolo", {"rate_hz": 4.0, "depth": 0.4}, "a pulsing tremolo"),
)
REVERB_WORDS = re.compile(r"\b(?:drenched|washed[- ]out|cavernous|cathedral|lots of reverb|huge reverb"
                          r"|reverb[- ]heavy|(?:big|long|massive) reverb)\b", re.IGNORECASE)


def word_effects(role: str, prompt: str, chain: list[Effect], constraints: set[str]) -> list[Effect]:
    """`chain` with the effects the prompt's sound words give `role` (see the module docstring)."""
    out = list(chain)
    for row in FX_WORDS:
        if role not in row.roles or (row.unless and row.unless in constraints) or not row.pattern.search(prompt):
            continue
        effect = Effect(type=row.type, params=dict(row.params), reason=row.reason)
        same = next((i for i, e in enumerate(out) if e.type == row.type), None)
        if same is None:
            out.append(effect)
        else:
            out[same] = effect
    return out


def reverb_words(prompt: str, constraints: set[str]) -> dict[str, Any] | None:
    """The reverb bus and sends the prompt's reverb words ask for (None: none asked)."""
    if "no_reverb" in constraints or not REVERB_WORDS.search(prompt):
        return None
    return {"room_size": 0.9, "damping": 0.35, "send_scale": 1.6, "reason": "a long, wide hall, as the prompt asks"}

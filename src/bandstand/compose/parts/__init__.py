"""Stage 4 — parts: compose's adapter over the musical core (`bandstand.craft`).

`generate_part(role, intent, harmony, arrangement, seed, style_overrides=())`
builds the song's `Situation`, resolves the role's style bar by bar (the
genre's base style turned by every `StyleOverride` in force there), lets the
craft play the role and writes the phrase as a humanized score `Track` with
its statistics. Core roles are drums, bass, chords, lead and pad; arp,
percussion, counter_melody and sub_bass play when asked for. Each part has
its own seed, so regenerating one part never changes another.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bandstand.compose.lexicon import primary_genre
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult, PartStats
from bandstand.compose.parts.context import build_situation
from bandstand.craft import (
    ROLES,
    Phrase,
    Situation,
    Style,
    StyleOverride,
    base_style,
    play,
    resolve,
    to_track,
)
from bandstand.craft.bends import BENT_LEADS, idiomatic_bends
from bandstand.craft.groove import groove
from bandstand.craft.intro import rising_intro
from bandstand.craft.roles import DEFAULT_PROGRAMS
from bandstand.errors import InvalidInput
from bandstand.score import PitchBend, Track

__all__ = [
    "CORE_ROLES",
    "DEFAULT_PROGRAMS",
    "ROLES",
    "TRACK_NAMES",
    "build_situation",
    "generate_part",
    "program_for",
    "styles_for",
]

CORE_ROLES: tuple[str, ...] = ("drums", "bass", "chords", "lead", "pad")
TRACK_NAMES: dict[str, str] = {"sub_bass": "Sub Bass", "counter_melody": "Counter Melody"}
KEYS_PROGRAMS = frozenset(range(0, 8))  # pianos and electric pianos use the sustain pedal
SUSTAIN = 64


def styles_for(role: str, s: Situation, overrides: Sequence[StyleOverride]) -> tuple[Style, ...]:
    """The resolved style of `role` in every bar: its base style turned by the overrides
    in force there (scoped by role, section name or kind, and 1-based bars)."""
    base = base_style(s, role)
    if not overrides:
        return (base,) * len(s.bars)
    return tuple(resolve(base, overrides, role, b.name, b.kind, b.index + 1) for b in s.bars)


def program_for(intent: Intent, role: str) -> int:
    """The GM program part `role` plays with: the instrument the prompt asked for, else the genre's."""
    return _program(intent, role)


def _program(intent: Intent, role: str) -> int:
    for req in intent.instrument_requests:
        if req.role == role and req.program is not None:
            return req.program

    return primary_genre(intent).program(role, DEFAULT_PROGRAMS[role])


def _stats(track: Track, phrase: Phrase, s: Situation, bars: int) -> PartStats:
    notes = track.notes
    vels = [n.velocity for n in notes]
    pitches = [n.pitch for n in notes]
    mean = sum(vels) / len(vels) if vels else 0.0
    sd = (sum((v - mean) ** 2 for v in vels) / len(vels)) ** 0.5 if vels else 0.0
    tpl = groove(phrase.feel.groove)
    looseness = phrase.feel.looseness
    swing = 0.0 if "no_swing" in s.constraints else s.idiom.swing
    return PartStats(
        track_id=f"{phrase.role}-1", role=phrase.role, program=track.program, is_drum=track.is_drum,
        style=phrase.style, note_count=len(notes), notes_per_bar=round(len(notes) / max(1, bars), 3),
        pitch_range=(min(pitches), max(pitches)) if pitches else (0, 0),
        velocity_mean=round(mean, 2), velocity_sd=round(sd, 2),
        control_count=len(track.controls), pitch_bend_count=len(track.pitch_bends),
        humanization={"timing_ms": round(tpl.timing_ms * looseness, 2),
                      "velocity_sd": round(tpl.velocity_spread * looseness, 2), "amount": looseness},
        groove=tpl.name, swing=round(min(0.5, swing), 3),
    )


def generate_part(role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan,
                  seed: int, style_overrides: Sequence[StyleOverride] = ()) -> PartResult:
    """Generate the part for `role`; the same inputs, seed and overrides give the same part."""
    if role not in ROLES:
        raise InvalidInput(f"unknown part role '{role}'; use one of: {', '.join(ROLES)}", role=role)
    s = build_situation(intent, harmony, arrangement)
    rng = random.Random(intent.take(seed))  # the moods' own take on the part
    words = [StyleOverride(role="*", knobs=intent.style)] if intent.style else []
    phrase = play(role, s, rng, styles_for(role, s, [*words, *style_overrides]))
    program = _program(intent, role)
    track = to_track(phrase, name=TRACK_NAMES.get(role, role.replace("_", " ").title()), program=program,
                     tempo=s.tempo, rng=rng)
    track.notes = rising_intro(track.notes, s)  # after the humanizing, which moves velocities
    if program not in KEYS_PROGRAMS:
        track.controls = [c for c in track.controls if c.control != SUSTAIN]
    genre = primary_genre(intent).name
    if role == "lead" and genre in BENT_LEADS and not track.pitch_bends:  # bent as played: on the humanized notes
        track.pitch_bends = [PitchBend(beat, value) for beat, value in
                             idiomatic_bends([(n.start, n.duration, n.pitch) for n in track.notes], role, genre)]
    return PartResult(track=track, stats=_stats(track, phrase, s, len(s.active(role))))


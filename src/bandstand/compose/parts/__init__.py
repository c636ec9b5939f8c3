"""Stage 4 — parts: one generator per role, each a pure function of the
intent, harmony plan, arrangement and a seed.

`generate_part(role, intent, harmony, arrangement, seed)` returns the part's
`Track` and its statistics. Core roles are drums, bass, chords, lead and
pad; arp, percussion, counter_melody and sub_bass play when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from operator import attrgetter

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult, PartStats
from bandstand.compose.parts.bass import generate_bass
from bandstand.compose.parts.chords import generate_chords
from bandstand.compose.parts.context import PartContext, build_context
from bandstand.compose.parts.drums import generate_drums
from bandstand.compose.parts.lead import generate_lead
from bandstand.compose.parts.pad import generate_pad, generate_percussion
from bandstand.errors import InvalidInput
from bandstand.score import Note, Track

__all__ = ["CORE_ROLES", "DEFAULT_PROGRAMS", "ROLES", "PartContext", "build_context", "generate_part"]

Generator = Callable[[PartContext, random.Random, int], tuple[Track, str]]


def _arp(ctx: PartContext, rng: random.Random, program: int) -> tuple[Track, str]:
    track, _ = generate_chords(ctx, rng, program, role="arp", style="arpeggiated")
    return track, "arpeggiated"


GENERATORS: dict[str, Generator] = {
    "drums": generate_drums,
    "bass": generate_bass,
    "chords": generate_chords,
    "lead": generate_lead,
    "pad": generate_pad,
    "arp": _arp,
    "percussion": generate_percussion,
    "counter_melody": lambda ctx, rng, program: generate_lead(ctx, rng, program, role="counter_melody"),
    "sub_bass": lambda ctx, rng, program: generate_bass(ctx, rng, program, role="sub_bass"),
}
ROLES: tuple[str, ...] = tuple(GENERATORS)
CORE_ROLES: tuple[str, ...] = ("drums", "bass", "chords", "lead", "pad")
# GM programs (0-based) for roles a genre's instrumentation does not name.
DEFAULT_PROGRAMS: dict[str, int] = {
    "drums": 0, "bass": 33, "chords": 0, "lead": 80, "pad": 89,
    "arp": 81, "percussion": 0, "counter_melody": 71, "sub_bass": 38,
}


def _stats(track: Track, role: str, style: str, ctx: PartContext, bars: int) -> PartStats:
    notes = track.notes
    vels = [n.velocity for n in notes]
    pitches = [n.pitch for n in notes]
    mean = sum(vels) / len(vels) if vels else 0.0
    sd = (sum((v - mean) ** 2 for v in vels) / len(vels)) ** 0.5 if vels else 0.0
    feel = ctx.humanizer(role)
    tpl = feel.template
    return PartStats(
        track_id=f"{role}-1", role=role, program=track.program, is_drum=track.is_drum, style=style,
        note_count=len(notes), notes_per_bar=round(len(notes) / max(1, bars), 3),
        pitch_range=(min(pitches), max(pitches)) if pitches else (0, 0),
        velocity_mean=round(mean, 2), velocity_sd=round(sd, 2),
        control_count=len(track.controls), pitch_bend_count=len(track.pitch_bends),
        humanization={"timing_ms": round(tpl.timing_ms * feel.amount, 2),
                      "velocity_sd": round(tpl.velocity_spread * feel.amount, 2), "amount": feel.amount},
        groove=tpl.name, swing=round(ctx.swing, 3),
    )


_START = attrgetter("start", "pitch")


def untangle(notes: list[Note]) -> list[Note]:
    """Cut each note where the next note of the same pitch starts (a key cannot be
    struck while it is still held: MIDI readers would pair the note-offs wrongly)."""
    out: list[Note] = []
    last: dict[int, int] = {}  # pitch → index in out of its latest note
    for n in sorted(notes, key=_START):
        i = last.get(n.pitch)
        if i is not None:
            prev = out[i]
            if prev.start + prev.duration > n.start - 0.01:
                if n.start - prev.start < 0.02:  # the same strike twice: keep the longer
                    if n.duration > prev.duration:
                        out[i] = n
                    continue
                out[i] = Note(prev.start, n.start - prev.start - 0.01, prev.pitch, prev.velocity)
        last[n.pitch] = len(out)
        out.append(n)
    return out


def generate_part(role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan,
                  seed: int) -> PartResult:
    """Generate the part for `role`; the same inputs and seed give the same part."""
    gen = GENERATORS.get(role)
    if gen is None:
        raise InvalidInput(f"unknown part role '{role}'; use one of: {', '.join(ROLES)}", role=role)
    ctx = build_context(intent, harmony, arrangement)
    program = ctx.program(role, DEFAULT_PROGRAMS[role])
    track, style = gen(ctx, random.Random(seed), program)
    if not track.is_drum:
        track.notes = untangle(track.notes)
    track.sort()
    active = len(ctx.active_bars(role))
    return PartResult(track=track, stats=_stats(track, role, style, ctx, active))

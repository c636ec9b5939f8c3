"""The built-in musicians of a team: the craft's generators, one section at a time.

An instrument's plan (`PartPlan`) is the style of every bar — the genre's
base style turned by the prompt's words and by any style words the seat
chose per section — with the part's program and its seed (derived as
compose derives it). Writing a section plays the role over the song's
situation with every other section silent for it, so each bar draws from the
same per-bar random source it would in a whole-part run: the same contract
and seed always give the same notes. A bass given the drums' `DrumSignal`
plays against the kicks the drummer really played in that section
(`Bar.kick`) instead of the kick grid it would expect.

Notes come back relative to the section's first beat, ready for one region.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bandstand.compose.api import KEYS_PROGRAMS, styles_for
from bandstand.craft import Situation, Style, StyleOverride, play, to_track
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.coordinator import SongSetup, track_name
from bandstand.producer.teams.signals import DrumSignal
from bandstand.score import ControlChange, Note, PitchBend

__all__ = ["KICK_LOCKED", "PartPlan", "SectionPart", "plan_part", "section_situation", "write_section"]

KICK_LOCKED: frozenset[str] = frozenset({"bass", "sub_bass"})
"""Roles that lock to the drums' kick, so their sections wait for the drums' signal."""
SUSTAIN = 64
EDGE = 1e-6


@dataclass(frozen=True, slots=True)
class PartPlan:
    """How an instrument will play its part: the style of every bar, its sound, its seed, the
    words it chose per section (name → words) and who made the plan."""

    role: str
    program: int
    part_seed: int
    styles: tuple[Style, ...]
    words: tuple[tuple[str, str], ...] = ()
    summary: str = ""
    musician: str = "builtin"


@dataclass(frozen=True, slots=True)
class SectionPart:
    """What a section agent wrote: notes, controllers and bends relative to the section's start."""

    notes: tuple[Note, ...]
    controls: tuple[ControlChange, ...] = ()
    bends: tuple[PitchBend, ...] = ()
    style: str = ""
    locked_to: str = ""  # "drums" when the bass played against the drums' kicks


def word_overrides(role: str, words: Sequence[tuple[str, str]]) -> list[StyleOverride]:
    """Style words per section ("Chorus 1" → "busier, brighter") as overrides for that section."""
    from bandstand.producer.composing.compose import style_words

    out: list[StyleOverride] = []
    for section, text in words:
        overrides, _ = style_words(role, text)
        out += [o.model_copy(update={"sections": (section,)}) for o in overrides]
    return out


def plan_part(setup: SongSetup, contract: InstrumentContract, words: Sequence[tuple[str, str]] = (),
              musician: str = "builtin") -> PartPlan:
    """The instrument's plan (see the module docstring)."""
    role = contract.role
    intent = setup.intent
    prompt_words = [StyleOverride(role="*", knobs=intent.style)] if intent.style else []
    overrides = [*prompt_words, *setup.recipe.style_overrides, *word_overrides(role, words)]
    styles = styles_for(role, setup.situation, overrides)
    program = contract.drum_kit if contract.drum_kit is not None else contract.program
    said = "; ".join(f"{s}: {w}" for s, w in words)
    summary = f"{track_name(role)}: {len(contract.sections)} sections" + (f" ({said})" if said else "")
    return PartPlan(role=role, program=program or 0, part_seed=contract.part_seed, styles=styles,
                    words=tuple(words), summary=summary, musician=musician)


def section_situation(situation: Situation, section: int, signal: DrumSignal | None = None) -> Situation:
    """The song's situation with only `section` played (other bars silent for every role);
    with a drum signal, the section's bars carry the kicks the drums played."""
    first = next((b.index for b in situation.bars if b.section == section), 0)
    bars = []
    for b in situation.bars:
        if b.section != section:
            bars.append(replace(b, roles=frozenset()))
        elif signal is not None:
            bars.append(replace(b, kick=signal.bar_kicks(b.index - first)))
        else:
            bars.append(b)
    return replace(situation, bars=tuple(bars))


def write_section(setup: SongSetup, plan: PartPlan, contract: SectionContract,
                  signal: DrumSignal | None = None) -> SectionPart:
    """The notes of `plan`'s role in the contract's section (see the module docstring)."""
    role = contract.role
    shape = contract.section
    locked = signal is not None and role in KICK_LOCKED
    sit = section_situation(setup.situation, shape.index, signal if locked else None)
    rng = random.Random(plan.part_seed)
    phrase = play(role, sit, rng, plan.styles)
    track = to_track(phrase, name=track_name(role), program=plan.program, tempo=sit.tempo, rng=rng)
    lo, hi = shape.start_beat, shape.start_beat + shape.beats
    first = shape.index == min((s.index for s in setup.contract.sections if role in s.roles), default=-1)

    def at(t: float) -> float:
        return min(max(t, lo), hi - EDGE) - lo

    def inside(t: float) -> bool:  # the part's first section also keeps what comes before it (RPN set-up)
        return t < hi and (first or t >= lo)

    notes = tuple(sorted((replace(n, start=at(n.start)) for n in track.notes), key=lambda n: (n.start, n.pitch)))
    controls = tuple(replace(c, time=at(c.time)) for c in track.controls if inside(c.time)
                     and not (c.control == SUSTAIN and plan.program not in KEYS_PROGRAMS))
    bends = tuple(replace(b, time=at(b.time)) for b in track.pitch_bends if inside(b.time))
    return SectionPart(notes=notes, controls=controls, bends=bends, style=phrase.style,
                       locked_to="drums" if locked else "")

"""The coordinator: sets a song up for the team without any language model.

It runs the compose graph's plan nodes (intent, harmony, arrangement) with
the seeds compose derives, so a prompt and seed give the team the same key,
tempo, form and sections the plain pipeline would; picks each part's sound
(the sound node's plan) and colour; lays the project out — tempo, key,
metre, sections, one track per part — and seals the `SongContract` with the
tracks' server-issued ids. It writes nothing: the runner commits the setup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bandstand.compose.api import (
    DEFAULT_PROGRAMS,
    GENERATOR,
    PLAN_OPTIONS,
    TRACK_NAMES,
    ArrangementPlan,
    HarmonyPlan,
    Intent,
    Recipe,
    SoundPlan,
    build_situation,
    part_seed,
    plan,
    primary_genre,
    role_order,
)
from bandstand.craft import Situation
from bandstand.errors import InvalidInput
from bandstand.producer.sessions.tool_context import tool_context
from bandstand.producer.teams.contracts import SectionShape, SongContract, TrackShape
from bandstand.studio import Project, Provenance, Section, TimeSignature
from bandstand.studio.ids import IdIssuer
from bandstand.studio.tools import ToolCall, run_batch

__all__ = ["COLOURS", "DRUM_ROLES", "PLAN_OPTIONS", "Planned", "SongSetup", "plan_setup", "plan_song", "setup_calls",
           "setup_project", "track_name"]

COLOURS: dict[str, str] = {
    "drums": "#e05252", "percussion": "#e0894f", "bass": "#4f7fe0", "sub_bass": "#3b5fb0",
    "chords": "#e0c34f", "arp": "#c9e04f", "pad": "#8a5fe0", "lead": "#4fe08a", "counter_melody": "#4fd1e0",
    "texture": "#9a9a9a", "fx": "#e04fb4",
}
"""The colour of each role's track (the studio page shows them)."""
DRUM_ROLES: frozenset[str] = frozenset({"drums", "percussion", "texture"})
"""Roles the craft plays on the drum channel (their track has a drum kit, not a program)."""


def track_name(role: str) -> str:
    return TRACK_NAMES.get(role, role.replace("_", " ").title())


@dataclass(frozen=True, slots=True)
class SongSetup:
    """What the coordinator decided: the plans, the craft's situation, every part's program,
    the sound plan, the project laid out (no notes yet), its recipe and the sealed contract."""

    prompt: str
    seed: int
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    sound: SoundPlan
    situation: Situation
    roles: tuple[str, ...]
    programs: Mapping[str, int]
    project: Project
    recipe: Recipe
    contract: SongContract

    def part_seed(self, role: str) -> int:
        """The part's seed, derived as compose derives it (parts node, keyed by role)."""
        return part_seed(self.seed, role)


def plan_song(prompt: str, seed: int, options: Mapping[str, Any]) -> tuple[Intent, HarmonyPlan, ArrangementPlan]:
    """The intent, harmony and arrangement plans, from compose's own plan nodes and seeds."""
    intent, harmony, arrangement = plan(prompt, seed, options)
    return intent, harmony, arrangement


def _sections(arrangement: ArrangementPlan, bpb: float) -> tuple[SectionShape, ...]:
    return tuple(SectionShape(index=i, name=s.name, kind=s.kind, start_bar=s.start_bar, bars=s.bars,
                              start_beat=(s.start_bar - 1) * bpb, beats=s.bars * bpb, energy=s.energy,
                              roles=tuple(s.roles))
                 for i, s in enumerate(arrangement.sections))


def setup_calls(roles: tuple[str, ...], programs: Mapping[str, int], drums: frozenset[str]) -> list[ToolCall]:
    """The studio tool calls that make the tracks: one `add_midi_track` per part."""
    calls = []
    for role in roles:
        sound = {"drum_kit": programs[role]} if role in drums else {"gm_program": programs[role]}
        calls.append(ToolCall(name="add_midi_track", args={"name": track_name(role), "role": role,
                                                          "colour": COLOURS.get(role, "#808080"), **sound}))
    return calls


@dataclass(frozen=True, slots=True)
class Planned:
    """The song planned, before its tracks exist: `blank` is the project without tracks and
    `calls` the tool calls that add them; `seal(project)` makes the `SongSetup`."""

    prompt: str
    seed: int
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    sound: SoundPlan
    situation: Situation
    roles: tuple[str, ...]
    programs: Mapping[str, int]
    sections: tuple[SectionShape, ...]
    blank: Project
    calls: tuple[ToolCall, ...]
    recipe: Recipe

    def seal(self, project: Project, session: str = "") -> SongSetup:
        """The setup with the project whose tracks the calls made, and the song contract sealed
        over their ids and bound to `session` (the session folder's name)."""
        tracks = tuple(TrackShape(track_id=t.id, role=t.role, program=t.program, drum_kit=t.drum_kit, name=t.name,
                                  colour=t.colour) for t in project.tracks)
        ts = project.time_signature
        contract = SongContract.seal(seed=self.seed, session=session, tempo=self.intent.tempo, key=self.harmony.key,
                                     mode=self.harmony.mode, time_signature=(ts.numerator, ts.denominator),
                                     beats_per_bar=ts.beats_per_bar, total_bars=self.arrangement.total_bars,
                                     sections=self.sections, tracks=tracks, title=project.name, prompt=self.prompt)
        return SongSetup(prompt=self.prompt, seed=self.seed, intent=self.intent, harmony=self.harmony,
                         arrangement=self.arrangement, sound=self.sound, situation=self.situation, roles=self.roles,
                         programs=self.programs, project=project, recipe=self.recipe, contract=contract)


def plan_setup(prompt: str, seed: int, options: Mapping[str, Any], ids: IdIssuer) -> Planned:
    """Plan the song (see the module docstring); nothing is written and no track exists yet."""
    from bandstand.compose.api import build_sound

    intent, harmony, arrangement = plan_song(prompt, seed, options)
    roles = tuple(sorted(arrangement.all_roles(), key=role_order))
    if not roles:
        raise InvalidInput("the arrangement has no parts to play; name some with --parts")
    programs = {r: _program(intent, r, DEFAULT_PROGRAMS) for r in roles}
    num, den = intent.time_signature
    ts = TimeSignature(numerator=num, denominator=den)
    sections = _sections(arrangement, ts.beats_per_bar)
    recipe = Recipe(prompt=prompt, seed=seed, parts_asked=list(options.get("parts") or []) or None, intent=intent,
                    harmony=harmony, arrangement=arrangement, sound=build_sound(intent, programs),
                    form=options.get("form"), parts={r: track_name(r) for r in roles},
                    generator=f"{GENERATOR}; agent team")
    assert recipe.sound is not None
    blank = Project(id=ids.new(), name=prompt.strip()[:80] or intent.summary, tempo=intent.tempo,
                    key=f"{harmony.key} {harmony.mode}", time_signature=ts,
                    sections=tuple(Section(name=s.name, start_bar=s.start_bar, bars=s.bars, energy=s.energy)
                                   for s in sections),
                    provenance=Provenance(prompt=prompt, seeds={"song": seed}, generator=recipe.generator,
                                          recipe=recipe.model_dump(mode="json")))
    calls = setup_calls(roles, programs, frozenset(r for r in roles if r in DRUM_ROLES))
    return Planned(prompt=prompt, seed=seed, intent=intent, harmony=harmony, arrangement=arrangement,
                   sound=recipe.sound, situation=build_situation(intent, harmony, arrangement), roles=roles,
                   programs=programs, sections=sections, blank=blank, calls=tuple(calls), recipe=recipe)


def setup_project(prompt: str, seed: int, options: Mapping[str, Any], ids: IdIssuer, session: str = "") -> SongSetup:
    """Plan the song and make its tracks in one go (no events: the runner makes them one by one),
    its contract bound to `session`."""
    planned = plan_setup(prompt, seed, options, ids)
    return planned.seal(run_batch(planned.blank, planned.calls, ctx=tool_context(ids), mode="composing").project,
                        session)


def _program(intent: Intent, role: str, defaults: Mapping[str, int]) -> int:
    """The part's GM program as compose's part node picks it (an instrument the prompt asked
    for, else the genre's, else the role's default)."""
    for req in intent.instrument_requests:
        if req.role == role and req.program is not None:
            return int(req.program)

    return int(primary_genre(intent).program(role, defaults[role]))

"""Plans (spec studio §5): what a request will do, in steps a musician reads —
`Create Bass track`, `Add content to Bass`, `Add effects to Bass`, `Set tempo to
96 BPM`, `Set up shared Reverb bus` — announced before the first tool when the
request needs two or more tool calls. Steps are setup first (tempo, key, buses),
then track by track (a track's steps together); a step that would change
nothing (the tempo is already 96) is dropped.

A `Step` carries the tool calls it makes (the studio's tools, validated by
`run_batch` when they run); a call may name a result of an earlier step of the
same plan (`"@<step id>.<field>"`, e.g. the region a generate step made).
`editing_plan` turns the mixer's edits and the song's tempo, key and level
edits into a plan against a project; the composing plans are in
`producer.composing.compose_plan`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bandstand.craft.edits import Edit, KeyEdit, MixEdit, TempoEdit, TransposeEdit
from bandstand.craft.mixer_edits import (
    AddTrackEdit,
    EffectEdit,
    MixerEdit,
    MuteEdit,
    PanEdit,
    QuantizeEdit,
    RenameEdit,
    SwingEdit,
    TrackSoloEdit,
    TransportEdit,
    VolumeEdit,
)
from bandstand.errors import InvalidInput, TheoryError
from bandstand.producer.requests.effects import BUSES
from bandstand.protocol.studio import Plan as PlanEvent
from bandstand.protocol.studio import PlanStep, PlanSummary
from bandstand.studio import Project
from bandstand.studio.model import Track
from bandstand.theory import ROOT_NAMES, pitch_class

__all__ = ["GRID_NAMES", "PRONOUNS", "Call", "Plan", "Step", "bus_steps", "editing_plan", "find_tracks", "order_steps",
           "transport_summary"]

PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "this track", "that track", "that part",
                      "this part", "it all"})
GRID_NAMES = {"1/8": "32nds", "1/6": "16th triplets", "1/4": "16ths", "1/3": "8th triplets", "1/2": "8ths",
              "1": "quarter notes", "2": "half notes", "4": "whole bars"}
StepKind = Literal["tools", "generate"]


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call of a step: the tool and its arguments (names, not ids, where they can be)."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    step_id: str
    label: str
    phase: str
    calls: tuple[Call, ...] = ()
    track: str | None = None
    kind: StepKind = "tools"
    role: str | None = None  # the part a generate step writes

    def event(self) -> PlanStep:
        return PlanStep(step_id=self.step_id, label=self.label, tool_name=self.calls[0].name if self.calls else None,
                        track_name=self.track, phase=self.phase)


@dataclass(frozen=True, slots=True)
class Plan:
    title: str
    steps: tuple[Step, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def calls(self) -> int:
        return sum(len(s.calls) for s in self.steps)

    @property
    def announced(self) -> bool:
        """A plan is announced when the request needs two or more tool calls (or steps)."""
        return self.calls >= 2 or len(self.steps) >= 2

    def event(self, plan_id: str) -> PlanEvent:
        return PlanEvent(plan_id=plan_id, title=self.title, steps=[s.event() for s in self.steps])

    def summary(self, plan_id: str) -> PlanSummary:
        """The `planSummary` that follows the plan: its steps counted, by phase, and its tracks."""
        phases: dict[str, int] = {}
        for step in self.steps:
            phases[step.phase] = phases.get(step.phase, 0) + 1
        tracks = list(dict.fromkeys(s.track for s in self.steps if s.track))
        return PlanSummary(plan_id=plan_id, total_steps=len(self.steps), phases=phases, tracks=tracks)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "notes": list(self.notes),
                "steps": [{"stepId": s.step_id, "label": s.label, "phase": s.phase, "trackName": s.track,
                           "tools": [{"name": c.name, "args": c.args} for c in s.calls]} for s in self.steps]}


def order_steps(steps: Sequence[Step], track_order: Sequence[str] = ()) -> tuple[Step, ...]:
    """Setup first, then track by track (the project's order, new tracks after), each track's
    steps together in the order they were asked; ids renumbered s1, s2, …"""
    setup = [s for s in steps if s.track is None]
    order = {name.casefold(): i for i, name in enumerate(track_order)}
    tracks: list[str] = []
    for s in steps:
        if s.track is not None and s.track.casefold() not in {t.casefold() for t in tracks}:
            tracks.append(s.track)
    first_said = {t: i for i, t in enumerate(tracks)}
    tracks.sort(key=lambda t: order.get(t.casefold(), len(order) + first_said[t]))
    grouped = [s for t in tracks for s in steps if s.track is not None and s.track.casefold() == t.casefold()]
    return tuple(replace(s, step_id=f"s{i}") for i, s in enumerate([*setup, *grouped], start=1))


def find_tracks(project: Project, part: str, role: str | None, focus: Sequence[str] = ()) -> list[Track]:
    """The tracks a request means by `part` ("the drums", "lead synth", "it"): a pronoun is what
    the conversation was about (`focus`, track names or roles); then the track of that name;
    a name inside the words; then the tracks playing `role`. Empty when nothing fits."""
    words = part.strip().casefold()
    if words in PRONOUNS:
        wanted = {f.casefold() for f in focus}
        return [t for t in project.tracks if t.name.casefold() in wanted or t.role.casefold() in wanted]
    exact = [t for t in project.tracks if t.name.casefold() == words]
    if exact:
        return exact
    inside = [t for t in project.tracks if re.search(r"\b" + re.escape(t.name.casefold()) + r"\b", words)]
    if len(inside) == 1:
        return inside
    if role:
        playing = [t for t in project.tracks if t.role.casefold() == role.casefold()]
        if playing:
            return playing
    return inside


def bus_steps(project: Project, bus: str) -> list[Step]:
    """`Set up shared Reverb bus` when the project has no bus of that name (else nothing)."""
    if any(b.name.casefold() == bus.casefold() for b in project.buses):
        return []
    params, _ = BUSES.get(bus, ({}, ""))
    calls = [Call("ensure_bus", {"name": bus})]
    if params:
        calls.append(Call("add_insert_effect", {"bus": bus, "type": "reverb", "params": dict(params)}))
    return [Step("", f"Set up shared {bus} bus", "mixing", tuple(calls))]


def _percent(value: float) -> str:
    return f"{round(value * 100):d}%"


def _pan_words(pan: float) -> str:
    if abs(pan - 0.5) < 0.005:
        return "centre"
    side = "left" if pan < 0.5 else "right"
    return f"{_percent(abs(pan - 0.5) * 2)} {side}"


def _regions(track: Track) -> list[str]:
    return [r.id for r in track.regions if r.notes]


def _track_steps(project: Project, edit: MixerEdit | MixEdit, track: Track) -> list[Step]:
    """The steps one edit of one track takes (none when it would change nothing)."""
    name = track.name
    if isinstance(edit, MuteEdit):
        if track.mute == edit.muted:
            return []
        return [Step("", f"{'Mute' if edit.muted else 'Unmute'} {name}", "mixing",
                     (Call("mute_track", {"track": name, "muted": edit.muted}),), name)]
    if isinstance(edit, TrackSoloEdit):
        if track.solo == edit.solo:
            return []
        return [Step("", f"{'Solo' if edit.solo else 'Unsolo'} {name}", "mixing",
                     (Call("solo_track", {"track": name, "solo": edit.solo}),), name)]
    if isinstance(edit, VolumeEdit | MixEdit):
        if isinstance(edit, MixEdit):
            volume, label = track.volume * edit.volume, f"Turn {name} {'up' if edit.volume > 1 else 'down'}"
        elif edit.level is not None:
            volume, label = edit.level, f"Set {name} volume to {_percent(edit.level)}"
        else:
            db = edit.db or 0.0
            volume, label = track.volume * 10 ** (db / 20), f"Turn {name} {'up' if db > 0 else 'down'} {abs(db):g} dB"
        volume = round(min(1.5, max(0.0, volume)), 4)
        if abs(volume - track.volume) < 1e-4:
            return []
        return [Step("", label, "mixing", (Call("set_track_volume", {"track": name, "volume": volume}),), name)]
    if isinstance(edit, PanEdit):
        if abs(track.pan - edit.pan) < 1e-4:
            return []
        return [Step("", f"Pan {name} {_pan_words(edit.pan)}", "mixing",
                     (Call("set_track_pan", {"track": name, "pan": edit.pan}),), name)]
    if isinstance(edit, EffectEdit):
        if edit.effect == "reverb":
            return _reverb_steps(project, edit, track)
        if any(e.type == edit.effect for e in track.inserts):
            return []
        return [Step("", f"Add {edit.effect} to {name}", "soundDesign",
                     (Call("add_insert_effect", {"track": name, "type": edit.effect}),), name)]
    if isinstance(edit, QuantizeEdit):
        calls = tuple(Call("quantize_notes", {"region": r, "grid": edit.grid, "strength": edit.strength})
                      for r in _regions(track))
        strength = "" if edit.strength >= 1 else f" ({_percent(edit.strength)})"
        return [Step("", f"Quantize {name} to {GRID_NAMES.get(edit.grid, edit.grid)}{strength}", "arrangement",
                     calls, name)] if calls else []
    if isinstance(edit, SwingEdit):
        calls = tuple(Call("apply_swing", {"region": r, "amount": edit.amount, "grid": edit.grid})
                      for r in _regions(track))
        return [Step("", f"Swing {name} {_percent(edit.amount)}", "arrangement", calls, name)] if calls else []
    if isinstance(edit, RenameEdit):
        if track.name == edit.name:
            return []
        return [Step("", f"Rename {name} to {edit.name}", "setup",
                     (Call("set_track_name", {"track": name, "name": edit.name}),), name)]
    return []


REVERB_SEND = 0.3
"""The send level a track gets when reverb is added (or made "more" from nothing)."""
_SEND_LABELS = {"add": "Add reverb to {name}", "more": "More reverb on {name} ({old} → {new})",
                "less": "Less reverb on {name} ({old} → {new})", "none": "Take the reverb off {name}"}


def _reverb_steps(project: Project, edit: EffectEdit, track: Track) -> list[Step]:
    """Reverb is a send to the shared Reverb bus: "add" sets it to `REVERB_SEND`, "more" raises
    it by half (at least to `REVERB_SEND`), "less" halves it, "none" closes it — no step when
    the send would not change (less or none of a reverb the track does not have)."""
    bus = "Reverb"
    bus_ids = {b.id for b in project.buses if b.name.casefold() == bus.casefold()}
    old = max((s.level for s in track.sends if s.bus_id in bus_ids), default=0.0)
    new = {"add": max(old, REVERB_SEND), "more": min(1.0, max(REVERB_SEND, old * 1.5)),
           "less": old * 0.5, "none": 0.0}[edit.amount]
    new = round(new, 3)
    if abs(new - old) < 1e-3:
        return []
    label = _SEND_LABELS[edit.amount].format(name=track.name, old=_percent(old), new=_percent(new))
    calls = (Call("add_send", {"track": track.name, "bus": bus, "level": new}),)
    return [*bus_steps(project, bus), Step("", label, "mixing", calls, track.name)]


def _unresolved(edit: MixerEdit | MixEdit, part: str) -> Step:
    """A step for a track the project does not have: its tool call names the words as said, so
    the studio refuses it with the names it has ("no track 'kazoo'; did you mean …?")."""
    name = part[:50] or "track"
    calls: dict[type[Any], tuple[str, str, dict[str, Any]]] = {
        MuteEdit: ("Mute", "mute_track", {"muted": getattr(edit, "muted", True)}),
        TrackSoloEdit: ("Solo", "solo_track", {"solo": getattr(edit, "solo", True)}),
        VolumeEdit: ("Set the level of", "set_track_volume", {"volume": getattr(edit, "level", None) or 1.0}),
        MixEdit: ("Set the level of", "set_track_volume", {"volume": 1.0}),
        PanEdit: ("Pan", "set_track_pan", {"pan": getattr(edit, "pan", 0.5)}),
        EffectEdit: (f"Add {getattr(edit, 'effect', 'an effect')} to", "add_insert_effect",
                     {"type": getattr(edit, "effect", "eq")}),
        RenameEdit: ("Rename", "set_track_name", {"name": getattr(edit, "name", name)}),
        QuantizeEdit: ("Quantize", "quantize_notes", {}), SwingEdit: ("Swing", "apply_swing", {"amount": 0.5}),
    }
    verb, tool, args = calls[type(edit)]
    target = {"region": name} if tool in ("quantize_notes", "apply_swing") else {"track": name}
    if tool == "quantize_notes":
        args = {"grid": getattr(edit, "grid", "1/4")}
    return Step("", f"{verb} {name}", "mixing", (Call(tool, {**target, **args}),), name)


def _pc(tonic: str) -> int:
    """The pitch class of a tonic name (C for one that names none)."""
    try:
        return pitch_class(tonic)
    except TheoryError:
        return 0


def _key_steps(project: Project, edit: KeyEdit | TransposeEdit) -> list[Step]:
    tonic, _, mode = (project.key or "C major").partition(" ")
    mode = mode or "major"
    now = _pc(tonic)
    if isinstance(edit, TransposeEdit):
        shift = edit.semitones
        new_tonic = ROOT_NAMES[(now + shift) % 12]
    else:
        new_tonic = edit.tonic
        shift = (_pc(edit.tonic) - now) % 12
        shift = shift - 12 if shift > 6 else shift
    new_key = f"{new_tonic} {mode}"
    if shift == 0 and (project.key or "").casefold() == new_key.casefold():
        return []
    steps = [Step("", f"Set key to {new_key}", "setup", (Call("set_key", {"key": new_key}),))]
    if shift:
        for track in project.tracks:
            if track.is_drum or not _regions(track):
                continue
            calls = tuple(Call("transpose_notes", {"region": r, "semitones": shift}) for r in _regions(track))
            word = "up" if shift > 0 else "down"
            steps.append(Step("", f"Transpose {track.name} {word} {abs(shift)} semitone{'s' * (abs(shift) != 1)}",
                              "arrangement", calls, track.name))
    return steps


def _tempo_steps(project: Project, edit: TempoEdit) -> list[Step]:
    from bandstand.producer.requests.tempo_plan import tempo_calls

    return [Step("", what, "setup", (Call("set_tempo", args),)) for what, args in tempo_calls(project, edit)]


def _add_track(edit: AddTrackEdit) -> Step:
    sound = {"drum_kit": 0} if edit.drums else {"gm_program": edit.program if edit.program is not None else 0}
    args: dict[str, Any] = {"name": edit.name, **sound}
    if edit.role:
        args["role"] = edit.role
    return Step("", f"Create {edit.name} track", "setup", (Call("add_midi_track", args),), edit.name)


def editing_plan(project: Project, edits: Sequence[Edit], mixer: Sequence[MixerEdit],
                 focus: Sequence[str] = ()) -> Plan:
    """The plan of an EDITING request on `project` (see the module docstring)."""
    steps: list[Step] = []
    for edit in edits:
        if isinstance(edit, TempoEdit):
            steps += _tempo_steps(project, edit)
        elif isinstance(edit, KeyEdit | TransposeEdit):
            steps += _key_steps(project, edit)
        elif isinstance(edit, MixEdit):
            for track in find_tracks(project, edit.role, edit.role, focus):
                steps += _track_steps(project, edit, track)
    for m in mixer:
        if isinstance(m, AddTrackEdit):
            steps.append(_add_track(m))
        elif not isinstance(m, TransportEdit):
            if m.part.casefold() in PRONOUNS and not focus:
                raise InvalidInput(f"'{m.part}': which track? name it (the tracks are "
                                   f"{', '.join(t.name for t in project.tracks) or 'none yet'})", field="prompt")
            tracks = find_tracks(project, m.part, m.role, focus)
            if not tracks:
                steps.append(_unresolved(m, m.part))
            for track in tracks:
                steps += _track_steps(project, m, track)
    seen: set[tuple[str, str | None]] = set()
    unique = [s for s in steps if not ((s.label, s.track) in seen or seen.add((s.label, s.track)))]  # type: ignore[func-returns-value]
    ordered = order_steps(unique, [t.name for t in project.tracks])
    things = [{"set_tempo": "the tempo", "set_key": "the key"}.get(s.calls[0].name, "the buses") for s in ordered
              if s.track is None and s.calls]
    things += [s.track for s in ordered if s.track]
    names = list(dict.fromkeys(things))
    shown = names[:4] if len(names) <= 4 else [*names[:3], "more"]
    title = "Changing " + (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]) \
        if names else "Setting up the song"
    key = next((s.calls[0].args["key"] for s in ordered if s.calls and s.calls[0].name == "set_key"), None)
    if key:
        title = f"Moving the song to {key}"
    return Plan(title, ordered)


def transport_summary(project: Project | None, edits: Sequence[MixerEdit]) -> str:
    """What the player is asked to do, in words ("Play from Chorus 1 (bar 21)")."""
    out = []
    for e in edits:
        if not isinstance(e, TransportEdit):
            continue
        where = ""
        if e.section and project is not None:
            hit = next((s for s in project.sections if s.name.casefold().startswith(e.section)), None)
            where = f" {'the ' if e.action != 'play' else 'from '}{hit.name} (bar {hit.start_bar})" if hit else \
                f" the {e.section}"
        elif e.bar:
            where = f" {'from ' if e.action == 'play' else ''}bar {e.bar}"
        verb = {"play": "Play", "stop": "Stop", "loop": "Loop", "seek": "Go to"}[e.action]
        out.append(f"{verb}{where}".strip())
    return "; ".join(out) or "Nothing to play"

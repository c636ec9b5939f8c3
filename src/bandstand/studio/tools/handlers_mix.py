"""Handlers of the sound-design and mixing phases: insert effects (checked by
`score.EFFECTS`), volume, pan, mute, solo, buses, sends and automation."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bandstand.errors import InvalidInput
from bandstand.score import Effect
from bandstand.studio.model import (
    AutomationLaneSpec,
    AutomationPointSpec,
    BusSpec,
    EffectSpec,
    Project,
    SendSpec,
)
from bandstand.studio.tools import params as P
from bandstand.studio.tools.handlers_setup import touch
from bandstand.studio.tools.registry import ToolContext
from bandstand.studio.tools.resolve import find_bus, find_track

__all__ = ["add_automation", "add_insert_effect", "add_send", "ensure_bus", "mute_track", "set_track_pan",
           "set_track_volume", "solo_track"]

Result = tuple[Project, dict[str, Any]]
REVERB_BUS = "Reverb"


def add_insert_effect(ctx: ToolContext, project: Project, p: P.AddInsertEffect) -> Result:
    effect = Effect(p.type, dict(p.params))  # the one table checks every parameter, with suggestions
    spec = EffectSpec(id=ctx.ids.new(), type=effect.type, params=dict(effect.params))
    if p.bus is not None:
        bus = find_bus(project, p.bus)
        changed = bus.model_copy(update={"inserts": (*bus.inserts, spec)})
        buses = tuple(changed if b.id == bus.id else b for b in project.buses)
        return project.model_copy(update={"buses": buses}), {"effect_id": spec.id, "bus_id": bus.id}
    track = find_track(project, p.track or "")
    return touch(project, track, inserts=(*track.inserts, spec)), {"effect_id": spec.id, "track_id": track.id}


def set_track_volume(ctx: ToolContext, project: Project, p: P.SetTrackVolume) -> Result:
    return touch(project, find_track(project, p.track), volume=p.volume), {}


def set_track_pan(ctx: ToolContext, project: Project, p: P.SetTrackPan) -> Result:
    return touch(project, find_track(project, p.track), pan=p.pan), {}


def mute_track(ctx: ToolContext, project: Project, p: P.MuteTrack) -> Result:
    return touch(project, find_track(project, p.track), mute=p.muted), {}


def solo_track(ctx: ToolContext, project: Project, p: P.SoloTrack) -> Result:
    return touch(project, find_track(project, p.track), solo=p.solo), {}


def ensure_bus(ctx: ToolContext, project: Project, p: P.EnsureBus) -> Result:
    name = p.name.strip()
    for b in project.buses:
        if b.name.casefold() == name.casefold():
            return project, {"bus_id": b.id, "created": False}
    inserts = (EffectSpec(id=ctx.ids.new(), type="reverb"),) if name.casefold() == REVERB_BUS.casefold() else ()
    bus = BusSpec(id=ctx.ids.new(), name=name, inserts=inserts)
    return project.model_copy(update={"buses": (*project.buses, bus)}), {"bus_id": bus.id, "created": True}


def add_send(ctx: ToolContext, project: Project, p: P.AddSend) -> Result:
    track = find_track(project, p.track)
    bus = find_bus(project, p.bus)
    sends = (*(s for s in track.sends if s.bus_id != bus.id), SendSpec(bus_id=bus.id, level=p.level))
    return touch(project, track, sends=sends), {"bus_id": bus.id}


def add_automation(ctx: ToolContext, project: Project, p: P.AddAutomation) -> Result:
    track = find_track(project, p.track)
    old = next((lane for lane in track.automation if lane.parameter == p.parameter), None)
    points = {pt.beat: pt for pt in (old.points if old else ())}
    for pt in p.points:
        points[pt.beat] = AutomationPointSpec(beat=pt.beat, value=pt.value, curve=pt.curve)
    try:
        lane = AutomationLaneSpec(parameter=p.parameter, points=tuple(points[b] for b in sorted(points)))
    except ValidationError as exc:
        raise InvalidInput(exc.errors()[0]["msg"].removeprefix("Value error, "), field="points") from None
    lanes = (*(x for x in track.automation if x.parameter != p.parameter), lane)
    return touch(project, track, automation=lanes), {"points": len(lane.points)}

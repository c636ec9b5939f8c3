"""The team's final mix pass: levels, pans, insert effects, sends and buses.

The mixer reads the song's sound plan (compose's sound node: a level in dB,
a pan, an insert chain and sends for every part, and the shared buses) and
says it as studio tool calls — `ensure_bus`, `add_insert_effect`,
`set_track_volume`, `set_track_pan`, `add_send` — so the mix is part of the
variation and every change is heard in the render. Buses come first (a send
needs its bus); the shared Reverb bus brings its own reverb, so the plan's
reverb on it is not added twice.
"""

from __future__ import annotations

from bandstand.compose.api import SoundPlan
from bandstand.studio import Project
from bandstand.studio.tools import ToolCall

__all__ = ["REVERB_BUS", "mix_calls"]

REVERB_BUS = "Reverb"


def _db_to_volume(level_db: float) -> float:
    return round(min(1.5, 10 ** (level_db / 20)), 4)


def mix_calls(sound: SoundPlan, project: Project) -> list[ToolCall]:
    """The tool calls that give `project`'s tracks (by role) and buses the plan's mix."""
    calls: list[ToolCall] = []
    for bus in sound.buses:
        calls.append(ToolCall(name="ensure_bus", args={"name": bus.name}))
        for effect in bus.effects:
            if bus.name.casefold() == REVERB_BUS.casefold() and effect.type == "reverb":
                continue  # the shared Reverb bus is made with its reverb
            calls.append(ToolCall(name="add_insert_effect",
                                  args={"bus": bus.name, "type": effect.type, "params": dict(effect.params)}))
    for track in project.tracks:
        part = sound.for_role(track.role)
        if part is None:
            continue
        calls.append(ToolCall(name="set_track_volume", args={"track": track.id, "volume": _db_to_volume(part.level_db)}))
        calls.append(ToolCall(name="set_track_pan", args={"track": track.id, "pan": round(part.pan, 4)}))
        calls += [ToolCall(name="add_insert_effect", args={"track": track.id, "type": e.type, "params": dict(e.params)})
                  for e in part.effects]
        calls += [ToolCall(name="add_send", args={"track": track.id, "bus": s.bus, "level": round(s.level, 4)})
                  for s in part.sends]
    return calls

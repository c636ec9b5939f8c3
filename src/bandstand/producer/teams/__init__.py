"""Agent teams: composing a song with many musicians (spec studio §8).

A coordinator sets the song up without any language model (the compose
graph's intent, harmony and arrangement nodes: tempo, key, form, sections,
tracks, colours); one agent per instrument plans its part; one agent per
section per instrument writes it; a mixer sets the mix. Frozen contracts
with lineage fingerprints carry the structure down; the drums of each
section signal the bass of that section; deadlines flow down; failures stay
with the agent that failed; the result is a variation to review.

- `runner` — `run_team`, `compose_team`, `TeamOptions`, `TeamOutcome` (the use case).
- `contracts` — `SongContract`, `InstrumentContract`, `SectionContract`, `reconcile`.
- `coordinator`, `builtin`, `seats`, `agents`, `mixing` — who does what.
- `signals` — `DrumSignal`, `LocalSignals`; `safety` — `Deadline`, `guarded`; `stream` — the events.
- `team_compose` — composing with a team as the use case every client calls (options, run
  log, the render after an accepted take); `team_band` — the jam's built-in musicians as a
  team; `team_runs` — team files, runs and their logs as the clients reach them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bandstand.producer.teams.contracts import (
        InstrumentContract,
        SectionContract,
        SectionShape,
        SongContract,
        TrackShape,
        reconcile,
    )
    from bandstand.producer.teams.runner import TeamOptions, TeamOutcome, compose_team, run_team
    from bandstand.producer.teams.signals import DrumSignal, LocalSignals, SignalKey

# Read on first use (PEP 562): importing one module of the package (`team_compose`'s checks, run
# by every plain compose) must not load the runner, the agents and the studio tools behind it.
_HOME = {
    **dict.fromkeys(("InstrumentContract", "SectionContract", "SectionShape", "SongContract", "TrackShape",
                     "reconcile"), "contracts"),
    **dict.fromkeys(("TeamOptions", "TeamOutcome", "compose_team", "run_team"), "runner"),
    **dict.fromkeys(("DrumSignal", "LocalSignals", "SignalKey"), "signals"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "DrumSignal",
    "InstrumentContract",
    "LocalSignals",
    "SectionContract",
    "SectionShape",
    "SignalKey",
    "SongContract",
    "TeamOptions",
    "TeamOutcome",
    "TrackShape",
    "compose_team",
    "reconcile",
    "run_team",
]

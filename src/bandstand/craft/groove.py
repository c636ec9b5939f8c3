"""Groove templates and humanization (what `to_track` applies to a phrase).

A groove template says how a drum family feels: which subdivision swings
(sixteenths for house and garage; eighths for boom-bap, jazz and shuffles),
how loosely each role sits (timing spread in milliseconds), how much the
velocity breathes, and which roles lean behind the beat (the lazy snare of
boom-bap and neo-soul) or push ahead of it (a live drummer's hats and ride: the
kick sits on the grid, the snare a hair late, the hand on the cymbals a hair early).
A drummer's kit is looser than a drum machine's: in the families a person plays
(backbeats, boom-bap, funk, shuffles, metal, punk) the drum part has its own wider
spread (`kit`: 4–11 ms, velocity 8–11) while the band's other parts keep the
template's; the machines keep 2–4 ms. The swing amount comes from the genre's traits.

Swing moves every off-beat of the swing unit later by ``swing × unit`` beats:
0.33 is a triplet feel, 0 is straight.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bandstand.craft.phrase import Feel
from bandstand.score import Note


@dataclass(frozen=True, slots=True)
class GrooveTemplate:
    name: str
    swing_unit: float  # beats: 0.25 (16ths) or 0.5 (8ths)
    timing_ms: float  # standard deviation of the timing spread
    velocity_spread: int  # standard deviation of the velocity spread
    lay_back_ms: dict[str, float]  # per role (or drum note as str) lean behind the beat
    kit: tuple[float, int] | None = None  # the drum part's own (timing ms, velocity spread) where a person plays it


GROOVES: dict[str, GrooveTemplate] = {
    "boom_bap": GrooveTemplate("boom_bap", 0.5, 7.0, 7, {"38": 12.0, "42": -4.0, "bass": 6.0}, kit=(11.0, 10)),
    "trap": GrooveTemplate("trap", 0.25, 2.0, 5, {}),
    "four_on_floor": GrooveTemplate("four_on_floor", 0.25, 2.5, 5, {}),
    "two_step": GrooveTemplate("two_step", 0.25, 4.0, 8, {"38": 4.0}),
    "breakbeat": GrooveTemplate("breakbeat", 0.25, 4.0, 8, {}),
    "dnb": GrooveTemplate("dnb", 0.25, 2.5, 7, {}),
    "jazz_ride": GrooveTemplate("jazz_ride", 0.5, 9.0, 9, {"bass": -3.0, "chords": 8.0}),
    "rock_backbeat": GrooveTemplate("rock_backbeat", 0.25, 6.0, 7, {"38": 4.0, "42": -3.0, "46": -3.0}, kit=(9.0, 10)),
    "dembow": GrooveTemplate("dembow", 0.25, 3.0, 6, {}),
    "afrobeat": GrooveTemplate("afrobeat", 0.25, 6.0, 8, {"37": 5.0}),
    "bossa": GrooveTemplate("bossa", 0.25, 6.0, 7, {}),
    "funk": GrooveTemplate("funk", 0.25, 4.0, 9, {"38": 3.0, "42": -3.0}, kit=(6.0, 11)),
    "shuffle": GrooveTemplate("shuffle", 0.5, 7.0, 8, {"38": 6.0, "51": -3.0}, kit=(10.0, 10)),
    "one_drop": GrooveTemplate("one_drop", 0.5, 6.0, 7, {"37": 8.0, "bass": 8.0}),
    "halftime": GrooveTemplate("halftime", 0.25, 4.0, 6, {"38": 6.0, "42": -3.0}, kit=(7.0, 9)),
    "garage_halftime": GrooveTemplate("garage_halftime", 0.25, 5.0, 9, {"38": 8.0, "37": 4.0}),
    "ambient": GrooveTemplate("ambient", 0.25, 10.0, 6, {}),
    "metal": GrooveTemplate("metal", 0.25, 2.5, 6, {"42": -2.0, "51": -2.0}, kit=(4.0, 8)),
    "punk": GrooveTemplate("punk", 0.25, 4.0, 7, {"42": -3.0, "51": -3.0}, kit=(6.0, 9)),
    "synthpop": GrooveTemplate("synthpop", 0.25, 2.0, 4, {}),
    "waltz": GrooveTemplate("waltz", 0.5, 8.0, 8, {"bass": 4.0}),
    "cinematic": GrooveTemplate("cinematic", 0.25, 6.0, 8, {}),
    "jam": GrooveTemplate("jam", 0.5, 0.0, 0, {}),
}


def groove(drum_family: str) -> GrooveTemplate:
    """The groove template of a drum family (a straight rock feel when unknown)."""
    return GROOVES.get(drum_family, GROOVES["rock_backbeat"])


def swing_time(beat: float, swing: float, unit: float, bar: float = 4.0) -> float:
    """`beat` moved by swing: off-beats of `unit` (counted from the start of its
    `bar`, so odd meters such as 7/8 swing the same in every bar) are delayed by
    `swing × unit`."""
    if swing <= 0.0:
        return beat
    pos = (beat % bar) / unit
    index = round(pos)
    if abs(pos - index) > 1e-6 or index % 2 == 0:
        return beat
    return beat + swing * unit


def humanize(events: Sequence[tuple[float, float, int, int]], feel: Feel, tempo: float, bar: float,
             rng: random.Random, lay_back: str) -> list[Note]:
    """Swung, humanized `Note`s from grid events (order kept): off-beats of the swing
    unit move late by each bar's swing, every note leans by its lay-back (looked up by
    drum key when `feel.by_key`, else by `lay_back`, a role) and spreads by the groove's
    timing and velocity spread scaled by the feel's looseness."""
    if not events:
        return []
    tpl = groove(feel.groove)
    def beats(ms: float) -> float:
        return ms / 1000.0 * tempo / 60.0

    timing_ms, velocity_spread = tpl.kit if feel.by_key and tpl.kit else (tpl.timing_ms, tpl.velocity_spread)
    spread = beats(timing_ms) * feel.looseness
    vel_sd = velocity_spread * feel.looseness
    unit = feel.swing_unit
    table = np.array(events, dtype=np.float64)
    starts, pitches = table[:, 0], table[:, 2].astype(np.int64)
    if any(feel.swing):  # off-beats of the swing unit, counted within the bar
        bars = np.clip((starts // bar).astype(np.int64), 0, None)
        amounts = np.array([feel.swing_at(b) for b in range(int(bars.max()) + 1)])[bars]
        pos = np.mod(starts, bar) / unit
        index = np.rint(pos)
        starts = starts + ((np.abs(pos - index) <= 1e-6) & (index % 2 == 1)) * amounts * unit
    if feel.by_key:
        lays = {int(k): beats(v) for k, v in tpl.lay_back_ms.items() if k.isdigit()}
        starts = starts + np.array([lays.get(p, 0.0) for p in pitches.tolist()])
    else:
        starts = starts + beats(tpl.lay_back_ms.get(lay_back, 0.0))
    # each bar draws its own spread, so a change in one bar leaves the others' feel alone
    seed = rng.getrandbits(64)
    bar_of = np.clip((table[:, 0] // bar).astype(np.int64), 0, None)
    jitter = np.zeros(len(events))
    wobble = np.zeros(len(events))
    for b in sorted(set(bar_of.tolist())):  # np.unique's order; np.unique would load numpy.ma
        where = np.nonzero(bar_of == b)[0]
        gen = np.random.default_rng([seed, b])
        jitter[where] = gen.normal(0.0, 1.0, len(where))
        wobble[where] = gen.normal(0.0, 1.0, len(where))
    if spread:
        starts = starts + np.clip(jitter * spread, -2.5 * spread, 2.5 * spread)
    vels = table[:, 3]
    if vel_sd:
        vels = vels + np.rint(wobble * vel_sd)
    starts = np.maximum(starts, 0.0).tolist()
    velocities = np.clip(vels, 1, 127).astype(np.int64).tolist()
    return [Note(t, d, p, v) for t, d, p, v in
            zip(starts, table[:, 1].tolist(), pitches.tolist(), velocities, strict=True)]

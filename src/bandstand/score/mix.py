"""The mix of a song: per-track volume, pan, mute/solo, insert effects, sends to
buses and automation, and the buses themselves. Pure values — what the render
hears, what a studio project edits and what the MIDI/notes export describes.

Effects are one table (`EFFECTS`): each type names its parameters with range,
default and unit. Everything that speaks about an effect — the studio tool
that adds one, the renderer that applies it, the producer notes that list it —
reads this table, so a parameter exists in exactly one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bandstand.errors import InvalidInput

VOLUME_MAX = 1.5  # linear gain; 1.0 is unity
CURVES: tuple[str, ...] = ("linear", "smooth", "step", "exp", "log")


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One effect parameter: numeric within `low..high`, or one of `choices`."""

    default: float | str
    low: float = 0.0
    high: float = 1.0
    unit: str = ""
    choices: tuple[str, ...] = ()
    doc: str = ""

    def check(self, effect: str, name: str, value: float | str) -> float | str:
        """The value, checked (numbers as float); one clear error otherwise."""
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise InvalidInput(f"{effect} {name} {value!r} is not one of: {', '.join(self.choices)}",
                                   field=name)
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidInput(f"{effect} {name} must be a number in {self.low:g}..{self.high:g}{self.unit}",
                               field=name)
        if not self.low <= value <= self.high:
            raise InvalidInput(f"{effect} {name} {value:g} is out of range; use {self.low:g}..{self.high:g}"
                               f"{' ' + self.unit if self.unit else ''}", field=name)
        return float(value)


def _p(default: float | str, low: float = 0.0, high: float = 1.0, unit: str = "", doc: str = "",
       choices: tuple[str, ...] = ()) -> ParamSpec:
    return ParamSpec(default, low, high, unit, choices, doc)


# type → parameter → spec. Order of the parameters is the order docs and schemas show them.
EFFECTS: Mapping[str, Mapping[str, ParamSpec]] = MappingProxyType({
    "reverb": MappingProxyType({
        "room_size": _p(0.5, doc="size of the room, 0 small .. 1 hall"),
        "damping": _p(0.5, doc="high-frequency damping of the tail"),
        "wet": _p(0.3, doc="level of the reverberated signal"),
        "pre_delay_ms": _p(0.0, 0.0, 200.0, "ms", "delay before the tail starts"),
    }),
    "delay": MappingProxyType({
        "time_beats": _p(0.75, 1 / 16, 4.0, "beats", "delay time in beats (tempo-synced)"),
        "feedback": _p(0.3, 0.0, 0.95, doc="how much of each echo feeds the next"),
        "mix": _p(0.25, doc="wet level"),
    }),
    "compressor": MappingProxyType({
        "threshold_db": _p(-18.0, -60.0, 0.0, "dB"),
        "ratio": _p(3.0, 1.0, 20.0, ":1"),
        "attack_ms": _p(10.0, 0.1, 200.0, "ms"),
        "release_ms": _p(120.0, 5.0, 2000.0, "ms"),
        "makeup_db": _p(0.0, 0.0, 24.0, "dB"),
    }),
    "eq": MappingProxyType({
        "low_cut_hz": _p(20.0, 20.0, 1000.0, "Hz", "high-pass below this"),
        "low_gain_db": _p(0.0, -18.0, 18.0, "dB", "low shelf at 120 Hz"),
        "mid_freq_hz": _p(1000.0, 100.0, 8000.0, "Hz"),
        "mid_gain_db": _p(0.0, -18.0, 18.0, "dB"),
        "high_gain_db": _p(0.0, -18.0, 18.0, "dB", "high shelf at 8 kHz"),
        "high_cut_hz": _p(20000.0, 1000.0, 20000.0, "Hz", "low-pass above this"),
    }),
    "distortion": MappingProxyType({
        "drive_db": _p(18.0, 0.0, 48.0, "dB"),
        "mix": _p(1.0),
    }),
    "overdrive": MappingProxyType({
        "drive": _p(0.5),
        "tone": _p(0.5, doc="0 dark .. 1 bright"),
        "mix": _p(1.0),
    }),
    "filter": MappingProxyType({
        "kind": _p("lowpass", choices=("lowpass", "highpass", "bandpass")),
        "cutoff_hz": _p(1200.0, 20.0, 20000.0, "Hz"),
        "resonance": _p(0.2),
    }),
    "chorus": MappingProxyType({
        "rate_hz": _p(1.0, 0.05, 10.0, "Hz"),
        "depth": _p(0.25),
        "mix": _p(0.5),
    }),
    "tremolo": MappingProxyType({
        "rate_hz": _p(5.0, 0.1, 20.0, "Hz"),
        "depth": _p(0.5),
    }),
    "phaser": MappingProxyType({
        "rate_hz": _p(0.5, 0.05, 10.0, "Hz"),
        "depth": _p(0.5),
        "feedback": _p(0.3, 0.0, 0.95),
        "mix": _p(0.5),
    }),
    "flanger": MappingProxyType({
        "rate_hz": _p(0.3, 0.05, 10.0, "Hz"),
        "depth": _p(0.5),
        "feedback": _p(0.5, 0.0, 0.95),
        "mix": _p(0.5),
    }),
    "limiter": MappingProxyType({
        "threshold_db": _p(-1.0, -24.0, 0.0, "dB"),
        "release_ms": _p(100.0, 1.0, 1000.0, "ms"),
    }),
})
EFFECT_TYPES: tuple[str, ...] = tuple(EFFECTS)


def _suggest(word: str, options: tuple[str, ...]) -> str:
    import difflib

    close = difflib.get_close_matches(word, options, n=1)
    return f"; did you mean '{close[0]}'?" if close else f"; use one of: {', '.join(options)}"


@dataclass(frozen=True, slots=True)
class Effect:
    """One insert effect: a type from `EFFECTS` and its parameters (missing ones take
    their defaults). `bypass` keeps it in the chain without hearing it."""

    type: str
    params: Mapping[str, float | str] = field(default_factory=lambda: MappingProxyType({}))
    bypass: bool = False

    def __post_init__(self) -> None:
        specs = EFFECTS.get(self.type)
        if specs is None:
            raise InvalidInput(f"unknown effect type '{self.type}'{_suggest(self.type, EFFECT_TYPES)}",
                               field="type")
        full: dict[str, float | str] = {}
        for name, value in self.params.items():
            spec = specs.get(name)
            if spec is None:
                raise InvalidInput(f"{self.type} has no parameter '{name}'{_suggest(name, tuple(specs))}",
                                   field=name)
            full[name] = spec.check(self.type, name, value)
        for name, spec in specs.items():
            full.setdefault(name, spec.default)
        object.__setattr__(self, "params", MappingProxyType({n: full[n] for n in specs}))

    def num(self, name: str) -> float:
        """A numeric parameter as float."""
        value = self.params[name]
        if isinstance(value, str):
            raise TypeError(f"{self.type}.{name} is a choice, not a number")
        return float(value)


@dataclass(frozen=True, slots=True)
class Send:
    """A post-insert send of a track to a bus (by the bus's name), `level` 0..1."""

    bus: str
    level: float = 0.25

    def __post_init__(self) -> None:
        if not 0.0 <= self.level <= 1.0:
            raise InvalidInput(f"send level {self.level} to '{self.bus}' is out of range; use 0..1", field="level")


@dataclass(frozen=True, slots=True)
class AutomationPoint:
    """A value at `beat`; `curve` shapes the way from this point to the next."""

    beat: float
    value: float
    curve: str = "linear"

    def __post_init__(self) -> None:
        if not self.beat >= 0.0:
            raise InvalidInput(f"automation point at beat {self.beat} is negative", field="beat")
        if self.curve not in CURVES:
            raise InvalidInput(f"automation curve '{self.curve}'{_suggest(self.curve, CURVES)}", field="curve")


def automation_parameters() -> tuple[str, ...]:
    """What a lane may automate: volume, pan, or `<effect type>.<parameter>` of a numeric
    parameter (it drives the first insert of that type on the track)."""
    names = ["volume", "pan"]
    for etype, specs in EFFECTS.items():
        names += [f"{etype}.{p}" for p, s in specs.items() if not s.choices]
    return tuple(names)


def parameter_range(parameter: str) -> tuple[float, float]:
    """The value range of an automatable parameter."""
    if parameter == "volume":
        return 0.0, VOLUME_MAX
    if parameter == "pan":
        return 0.0, 1.0
    etype, _, pname = parameter.partition(".")
    spec = EFFECTS.get(etype, {}).get(pname)
    if spec is None or spec.choices:
        raise InvalidInput(f"cannot automate '{parameter}'{_suggest(parameter, automation_parameters())}",
                           field="parameter")
    return spec.low, spec.high


@dataclass(frozen=True, slots=True)
class AutomationLane:
    """Points over time for one parameter, sorted by beat; values within the parameter's range."""

    parameter: str
    points: tuple[AutomationPoint, ...] = ()

    def __post_init__(self) -> None:
        low, high = parameter_range(self.parameter)
        for p in self.points:
            if not low <= p.value <= high:
                raise InvalidInput(f"{self.parameter} automation value {p.value:g} at beat {p.beat:g} is out of "
                                   f"range; use {low:g}..{high:g}", field="value")
        object.__setattr__(self, "points", tuple(sorted(self.points, key=lambda p: p.beat)))

    def value_at(self, beat: float) -> float | None:
        """The automated value at `beat` (None before the first point)."""
        pts = self.points
        if not pts or beat < pts[0].beat:
            return None
        prev = pts[0]
        for nxt in pts[1:]:
            if nxt.beat > beat:
                return _interpolate(prev, nxt, beat)
            prev = nxt
        return prev.value


def _interpolate(a: AutomationPoint, b: AutomationPoint, beat: float) -> float:
    span = b.beat - a.beat
    t = 0.0 if span <= 0 else (beat - a.beat) / span
    if a.curve == "step":
        t = 0.0
    elif a.curve == "smooth":
        t = t * t * (3 - 2 * t)
    elif a.curve == "exp":
        t = t * t
    elif a.curve == "log":
        t = math.sqrt(t)
    return a.value + (b.value - a.value) * t


@dataclass(frozen=True, slots=True)
class TrackMix:
    """How a track sits in the mix. `volume` is linear gain 0..1.5 (1 = unity), `pan` 0..1
    (0.5 centre); inserts run in order, then the sends tap the result."""

    volume: float = 1.0
    pan: float = 0.5
    mute: bool = False
    solo: bool = False
    inserts: tuple[Effect, ...] = ()
    sends: tuple[Send, ...] = ()
    automation: tuple[AutomationLane, ...] = ()

    def __post_init__(self) -> None:
        if not 0.0 <= self.volume <= VOLUME_MAX:
            raise InvalidInput(f"volume {self.volume} is out of range; use 0..{VOLUME_MAX:g} (1 = unity)",
                               field="volume")
        if not 0.0 <= self.pan <= 1.0:
            raise InvalidInput(f"pan {self.pan} is out of range; use 0 (left) .. 1 (right), 0.5 centre",
                               field="pan")


@dataclass(frozen=True, slots=True)
class Bus:
    """A mix bus (e.g. the shared "Reverb"): its insert chain and return level."""

    name: str
    inserts: tuple[Effect, ...] = ()
    volume: float = 1.0

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise InvalidInput("a bus needs a name", field="name")
        if not 0.0 <= self.volume <= VOLUME_MAX:
            raise InvalidInput(f"bus '{self.name}' volume {self.volume} is out of range; use 0..{VOLUME_MAX:g}",
                               field="volume")


def audible(mixes: list[TrackMix]) -> list[bool]:
    """Which tracks are heard: any solo silences every track that is not soloed; mute always wins."""
    any_solo = any(m.solo for m in mixes)
    return [not m.mute and (m.solo or not any_solo) for m in mixes]

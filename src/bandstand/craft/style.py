"""Style: the knobs a musician turns — how dense, how high, how syncopated,
how swung, how complex, how legato, how bright a part is played, and its time
feel (half, normal or double time). Words turn knobs ("busier" raises
density, "darker" lowers brightness, "half-time" halves the feel), in compose,
in the studio's iteration and in the jam alike.

`Style` is the resolved value a generator reads. `StyleOverride` is a change
asked for by a person or an agent: knob deltas for one role, optionally limited
to some sections or bars; it is saved with a project, so it is pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The knobs, each in 0..1 (0.5 is the genre's default feel unless a genre says otherwise).
KNOBS: tuple[str, ...] = (
    "density",       # how many notes: 0 sparse .. 1 busy
    "register",      # where it sits: 0 low .. 1 high (0.5 the role's home register)
    "syncopation",   # 0 on the beat .. 1 pushed off it
    "swing",         # 0 straight .. 1 a full triplet shuffle
    "complexity",    # harmonic/melodic adventure: 0 plain .. 1 colourful
    "articulation",  # 0 staccato .. 1 legato
    "brightness",    # 0 dark (low voicings, closed filters) .. 1 bright
)
TIME_FEELS: tuple[float, ...] = (0.5, 1.0, 2.0)


def _clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


@dataclass(frozen=True, slots=True)
class Style:
    """The resolved knobs of one part (every knob 0..1) and its time feel (0.5, 1 or 2)."""

    density: float = 0.5
    register: float = 0.5
    syncopation: float = 0.5
    swing: float = 0.0
    complexity: float = 0.5
    articulation: float = 0.5
    brightness: float = 0.5
    time_feel: float = 1.0

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name == "time_feel":
                continue
            v = getattr(self, f.name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"style knob {f.name}={v} is outside 0..1")
        if self.time_feel not in TIME_FEELS:
            raise ValueError(f"time feel {self.time_feel} is not one of {TIME_FEELS}")

    def turned(self, deltas: Mapping[str, float], time_feel: float | None = None) -> Style:
        """A new style with each knob moved by its delta (clamped to 0..1)."""
        changes: dict[str, float] = {}
        for name, delta in deltas.items():
            if name not in KNOBS:
                raise ValueError(f"unknown style knob '{name}'; knobs are {', '.join(KNOBS)}")
            changes[name] = _clamp(getattr(self, name) + delta)
        if time_feel is not None:
            changes["time_feel"] = time_feel
        return replace(self, **changes)


class StyleOverride(BaseModel):
    """A requested change of style for one role ("*" for every role): knob deltas
    (-1..1), an optional time feel, limited to `sections` (names or kinds, matched
    case-insensitively; empty = everywhere) and/or a 1-based inclusive `bars` range."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str = Field(min_length=1, max_length=40)
    knobs: dict[str, float] = Field(default_factory=dict)
    time_feel: float | None = None
    sections: tuple[str, ...] = ()
    bars: tuple[int, int] | None = None

    @field_validator("knobs")
    @classmethod
    def _known_knobs(cls, value: dict[str, float]) -> dict[str, float]:
        for name, delta in value.items():
            if name not in KNOBS:
                raise ValueError(f"unknown style knob '{name}'; knobs are {', '.join(KNOBS)}")
            if not -1.0 <= delta <= 1.0:
                raise ValueError(f"knob delta {name}={delta} is outside -1..1")
        return value

    @field_validator("time_feel")
    @classmethod
    def _known_feel(cls, value: float | None) -> float | None:
        if value is not None and value not in TIME_FEELS:
            raise ValueError(f"time feel {value} is not one of {TIME_FEELS}")
        return value

    @field_validator("bars")
    @classmethod
    def _bar_range(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and not 1 <= value[0] <= value[1]:
            raise ValueError(f"bars {value[0]}-{value[1]} is not a 1-based range")
        return value

    def applies(self, role: str, section_name: str, section_kind: str, bar: int) -> bool:
        """Whether this override is in force for `role` in the given section and 1-based bar."""
        if self.role not in ("*", role):
            return False
        if self.sections:
            wanted = {s.lower() for s in self.sections}
            if section_name.lower() not in wanted and section_kind.lower() not in wanted:
                return False
        return not (self.bars is not None and not self.bars[0] <= bar <= self.bars[1])


def resolve(base: Style, overrides: Iterable[StyleOverride], role: str, section_name: str = "",
            section_kind: str = "", bar: int = 1) -> Style:
    """`base` turned by every override that applies here, in order."""
    style = base
    for o in overrides:
        if o.applies(role, section_name, section_kind, bar):
            style = style.turned(o.knobs, o.time_feel)
    return style

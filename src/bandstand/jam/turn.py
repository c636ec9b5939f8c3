"""A member's turn: what it receives and what it answers.

`TurnInput` is the structured form (algorithmic members read it directly);
`render_turn_text` is the same information as the text LLM members get, in the
format of the spec. `JamReply` is the one JSON object a member answers with.
`Style` is what the boss has asked of one member (density, time feel, swing,
drop out, solo); the engine keeps it per member and updates it from directives.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from bandstand.jam.context import MusicalContext


class JamReply(BaseModel):
    """A member's answer: its new pattern and what it thinks."""

    pattern: str = Field(min_length=1, max_length=4000)
    thoughts: str = Field(default="", max_length=600)
    reaction: str = Field(default="", max_length=600)
    comply_with_boss: bool = True

    _schema: ClassVar[dict[str, Any] | None] = None

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema, built once: the session asks for it on every turn and pydantic
        rebuilds it each time (milliseconds per member per round)."""
        if args or kwargs:
            return super().model_json_schema(*args, **kwargs)
        if cls._schema is None:
            cls._schema = super().model_json_schema()
        return copy.deepcopy(cls._schema)


SOLO_ROUNDS = 4
"""A solo lasts this many rounds, then the soloist comes back to its part (the boss saying
"solo" again gives it as many more; "drop out" ends it at once)."""

REPEAT_ROUNDS = 3
"""A member says no line again that it said in its last this-many rounds."""


class Style(BaseModel):
    """How the boss wants one member to play, accumulated from directives."""

    density: int = Field(default=0, ge=-2, le=2)
    time: float = 1.0  # 0.5 half time, 1 normal, 2 double time
    swing: bool = False
    out: bool = False
    solo: bool = False
    solo_until: int = 0  # the last round of a solo (SOLO_ROUNDS from the round it was asked for)
    since: int = 0  # the round of the last key or style change: a rewrite starts there

    def apply(self, intents: frozenset[str], round_: int) -> Style:
        """The style after a directive's intents (unchanged when there are none)."""
        if not intents:
            return self
        data = self.model_dump()
        table = {
            "simpler": lambda d: d.update(density=max(-2, d["density"] - 1)),
            "busier": lambda d: d.update(density=min(2, d["density"] + 1)),
            "double_time": lambda d: d.update(time=min(2.0, d["time"] * 2)),
            "half_time": lambda d: d.update(time=max(0.5, d["time"] / 2)),
            "swing": lambda d: d.update(swing=True),
            "straight": lambda d: d.update(swing=False),
            "drop_out": lambda d: d.update(out=True, solo=False),
            "come_back": lambda d: d.update(out=False),
            "solo": lambda d: d.update(solo=True, out=False, solo_until=round_ + SOLO_ROUNDS - 1),
        }
        for intent in sorted(intents):
            table[intent](data)
        if data != self.model_dump():
            data["since"] = round_
        return Style.model_validate(data)

    def solo_over(self, round_: int) -> bool:
        """Whether a solo has had its rounds by `round_` (the soloist comes back then)."""
        return self.solo and round_ > self.solo_until

    def end_solo(self, round_: int) -> Style:
        """The style with the solo over from `round_` on (a rewrite starts there)."""
        return self.model_copy(update={"solo": False, "solo_until": 0, "since": round_})


class BandMate(BaseModel):
    """Another member as seen from inside a turn."""

    name: str
    emoji: str
    role: str
    thoughts: str = ""
    pattern: str = ""
    status: str = "idle"
    solo: bool = False
    out: bool = False


class TurnInput(BaseModel):
    """Everything a member sees when it is asked to play."""

    round: int
    member: str
    role: str
    context: MusicalContext
    band: list[BandMate]
    directive: str | None = None
    directive_to_you: bool = False
    understood: bool = True  # the directive asked something playable (False: words the band cannot act on)
    intents: list[str] = Field(default_factory=list)
    energy_delta: int = 0
    key_changed: bool = False
    context_changed: list[str] = Field(default_factory=list)  # what the boss changed this round
    style: Style = Field(default_factory=Style)
    last_pattern: str | None = None
    rejected: str | None = None  # the pattern of this member's last reply, when it was not accepted
    rejected_because: str | None = None  # why (notes named, as the boss would say them)
    boss_code: str | None = None  # the boss's pattern for this member's part, until it asks for something else
    solo_ended: bool = False  # this member's solo had its rounds: it comes back to its part now
    recent_lines: list[str] = Field(default_factory=list)  # what it said in its last REPEAT_ROUNDS rounds

    def others(self) -> list[BandMate]:
        """The band without this member (the band list includes everyone, as in the text)."""
        return [m for m in self.band if m.name != self.member]


def render_turn_text(turn: TurnInput) -> str:
    """The turn as text, exactly in the spec's layout."""
    ctx = turn.context
    lines = [
        f"ROUND {turn.round} — JAM CONTEXT",
        f"Key: {ctx.key} | Scale: {' '.join(ctx.scale)} | BPM: {ctx.bpm:g} | Time: {ctx.time_signature} | Energy: {ctx.energy}/10",
        f"Chords: {' '.join(ctx.chords)}",
        "BAND:",
    ]
    for mate in turn.band:
        pattern = mate.pattern or "silence"
        lines.append(f'{mate.emoji} {mate.name} ({mate.role}): "{mate.thoughts}" | {pattern}')
    if turn.directive and turn.directive_to_you:
        lines.append(f"BOSS SAYS TO YOU: {turn.directive}")
    elif turn.directive:
        lines.append(f"BOSS SAYS: {turn.directive}")
    else:
        lines.append("No directives — free jam.")
    lines.append(f"YOUR LAST PATTERN: {turn.last_pattern}" if turn.last_pattern else "YOUR LAST PATTERN: None yet — this is your first round.")
    if turn.rejected:
        lines.append(f"YOUR LAST REPLY WAS REJECTED: {turn.rejected_because} — it was: {turn.rejected}")
        lines.append("Fix that in this reply; the band kept playing your last good pattern.")
    return "\n".join(lines)

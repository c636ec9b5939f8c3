"""Boss directives: routing by @mention, and the meaning of the words.

`parse_directive` turns what the boss typed into a `Directive`: who it goes to
(leading `@NAME` mentions, by member name, role or alias, case-insensitive —
no mention means everyone) and what it asks. The words are read by the one
request parser (`bandstand.craft.requests`), the same one the studio's
`bandstand edit` uses, so "simpler", "double time", "switch to D major" or
"more energy" mean the same thing in a jam and in a song. The directive keeps
the typed edits (`edits`) and the jam's view of them: context changes (key,
chords, tempo, time signature, energy) and style intents (simpler, busier,
double or half time, swing, straight, drop out, come back, solo).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from bandstand.craft.edits import (
    Edit,
    EnergyEdit,
    KeyEdit,
    MetreEdit,
    ModeEdit,
    PresenceEdit,
    ProgressionEdit,
    SoloEdit,
    StyleEdit,
    TempoEdit,
)
from bandstand.craft.requests import parse_request
from bandstand.errors import InvalidInput
from bandstand.jam.persona import Persona

_MENTIONS = re.compile(r"^\s*((?:@[\w-]+[\s,:;&]*(?:and\s+)?)+)")
_MENTION = re.compile(r"@([\w-]+)")
# The jam's style intents, read off the edits' knobs and feels.
FEEL_INTENTS: dict[float, str] = {2.0: "double_time", 0.5: "half_time"}
# Words about loudness: besides the energy they move, they scale the addressed members'
# volume, so "quieter" is quieter even when the energy is already at its floor.
VOLUME_WORDS: dict[str, float] = {
    "quieter": 0.8, "softer": 0.8, "turn it down": 0.8, "turn down": 0.8, "less loud": 0.8,
    "louder": 1.25, "turn it up": 1.25, "turn up": 1.25,
}
_VOLUME = re.compile(r"\b(" + "|".join(sorted(map(re.escape, VOLUME_WORDS), key=len, reverse=True)) + r")\b", re.I)


@dataclass(frozen=True, slots=True)
class Directive:
    """What the boss asked, parsed."""

    text: str
    body: str
    to: tuple[str, ...] = ()  # member names; empty = broadcast to every active member
    key: tuple[str, str | None] | None = None  # (tonic lower-case like "f#", mode or None to keep it)
    mode: str | None = None  # a new mode on the same tonic ("switch to dorian")
    chords: tuple[str, ...] | None = None
    bpm: float | None = None
    bpm_delta: float = 0.0
    time_signature: tuple[int, int] | None = None
    energy: int | None = None
    energy_delta: int = 0
    intents: frozenset[str] = field(default_factory=frozenset)
    volume: float | None = None  # a factor for the addressed members' volume ("quieter": 0.8)
    edits: tuple[Edit, ...] = ()  # the typed edits the words became (knobs for musicians that read them)

    @property
    def broadcast(self) -> bool:
        return not self.to

    @property
    def changes_context(self) -> bool:
        return bool(
            self.key or self.mode or self.chords or self.bpm is not None or self.bpm_delta or self.time_signature
            or self.energy is not None or self.energy_delta
        )

    def addressed_to(self, name: str) -> bool:
        return self.broadcast or name in self.to


def resolve_mention(handle: str, members: Iterable[Persona]) -> str:
    """The member name an @handle refers to (name, role or alias, case-insensitive)."""
    wanted = handle.lower()
    for persona in members:
        if wanted in persona.handles():
            return persona.name
    raise InvalidInput(f"no band member answers to @{handle}; try @NAME, a role (@drums) or an alias")


def _intents(edits: Iterable[Edit]) -> frozenset[str]:
    out: set[str] = set()
    for edit in edits:
        if isinstance(edit, StyleEdit):
            knobs = edit.override.knobs
            if knobs.get("density", 0) > 0:
                out.add("busier")
            elif knobs.get("density", 0) < 0:
                out.add("simpler")
            if knobs.get("swing", 0) > 0:
                out.add("swing")
            elif knobs.get("swing", 0) < 0:
                out.add("straight")
            if edit.override.time_feel in FEEL_INTENTS:
                out.add(FEEL_INTENTS[edit.override.time_feel])
        elif isinstance(edit, PresenceEdit):
            out.add("come_back" if edit.present else "drop_out")
        elif isinstance(edit, SoloEdit):
            out.add("solo")
    if "come_back" in out:
        out.discard("drop_out")
    return frozenset(out)


def parse_directive(text: str, members: Iterable[Persona]) -> Directive:
    """Parse a boss directive; raises `InvalidInput` for an empty text or an unknown @mention.
    Words the parser does not know are not an error: members still read the text."""
    members = list(members)
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("a directive needs some words: e.g. 'more energy' or '@BEAT double time'")
    to: list[str] = []
    body = stripped
    lead = _MENTIONS.match(stripped)
    if lead:
        for handle in _MENTION.findall(lead.group(1)):
            name = resolve_mention(handle, members)
            if name not in to:
                to.append(name)
        body = stripped[lead.end():].strip()
    edits = parse_request(body).edits if body else ()
    key = next((e for e in edits if isinstance(e, KeyEdit)), None)
    mode = next((e for e in edits if isinstance(e, ModeEdit)), None)
    chords = next((e for e in edits if isinstance(e, ProgressionEdit)), None)
    tempo = next((e for e in edits if isinstance(e, TempoEdit)), None)
    metre = next((e for e in edits if isinstance(e, MetreEdit)), None)
    energy = next((e for e in edits if isinstance(e, EnergyEdit)), None)
    return Directive(
        text=stripped,
        body=body,
        to=tuple(to),
        key=(key.tonic.lower(), key.mode) if key else None,
        mode=mode.mode if mode and not key else None,
        chords=chords.chords if chords else None,
        bpm=tempo.bpm if tempo else None,
        bpm_delta=tempo.delta if tempo and tempo.bpm is None else 0.0,
        time_signature=(metre.numerator, metre.denominator) if metre else None,
        energy=energy.level if energy else None,
        energy_delta=energy.delta if energy and energy.level is None else 0,
        intents=_intents(edits),
        volume=VOLUME_WORDS[found.group(1).lower()] if (found := _VOLUME.search(body)) else None,
        edits=tuple(edits),
    )

"""Boss directives: routing by @mention and the meaning of the words, in code.

`parse_directive` turns what the boss typed into a `Directive`: who it goes to
(leading `@NAME` mentions, by member name, role or alias, case-insensitive —
no mention means everyone), the context changes it asks for (key, chords,
tempo, time signature, energy) and the style intents (simpler, busier, double
or half time, swing, straight, drop out, come back, solo). Everything is table
driven; no model is asked what the boss meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from bandstand.errors import InvalidInput
from bandstand.jam.persona import Persona

# intent → phrases (regular expressions, matched case-insensitively on word boundaries)
INTENTS: dict[str, tuple[str, ...]] = {
    "simpler": (r"simpl(?:er|ify|e)", r"less busy", r"fewer notes", r"strip (?:it )?(?:back|down)", r"sparser", r"thin (?:it )?out", r"minimal"),
    "busier": (r"busier", r"more notes", r"more complex", r"fill (?:it )?(?:up|out)", r"denser", r"more going on", r"go wild"),
    "double_time": (r"double[- ]time", r"twice as fast"),
    "half_time": (r"half[- ]time", r"half as fast"),
    "swing": (r"swing(?:y|ing)?", r"shuffle"),
    "straight": (r"straight(?:en)?", r"no swing", r"un-?swing"),
    "drop_out": (r"drop out", r"lay out", r"sit (?:this one )?out", r"take a break", r"stop playing", r"go quiet", r"tacet"),
    "come_back": (r"come back", r"back in", r"rejoin", r"play again", r"you'?re back"),
    "solo": (r"(?:take a |go for a |play a )?solo",),
}
_INTENT_RES = {name: re.compile(r"\b(?:" + "|".join(p) + r")\b", re.I) for name, p in INTENTS.items()}

# energy words → delta (checked in order; the first match wins)
ENERGY_WORDS: tuple[tuple[str, int], ...] = (
    (r"(?:much|way|a lot) more energy|go crazy|explode", 3),
    (r"more energy|energy up|pump it( up)?|hype|intens(?:e|ify)|harder|louder|build( it)? up|turn it up|more power|more drive|lift it", 2),
    (r"a (?:bit|little) more energy|push (?:it|a bit)", 1),
    (r"(?:much|way|a lot) less energy|almost silent", -3),
    (r"less energy|energy down|calm(?: it)? down|chill(?: out)?|softer|quieter|mellow|gentle|relax|bring it down|cool it|turn it down", -2),
)
_ENERGY_RES = tuple((re.compile(r"\b(?:" + p + r")\b", re.I), d) for p, d in ENERGY_WORDS)
# any number is read and then clamped to 1-10 (and BPM to 40-240): "energy 999" means flat out, not "ignore me"
_ENERGY_ABS = re.compile(r"\benergy\s*(?:to|at|=|:)?\s*(\d{1,6})(?:\s*/\s*10)?\b", re.I)

_MODES = {
    "major": "major", "maj": "major", "ionian": "major",
    "minor": "minor", "min": "minor", "m": "minor", "aeolian": "minor",
    "dorian": "dorian", "phrygian": "phrygian", "lydian": "lydian",
    "mixolydian": "mixolydian", "locrian": "locrian",
}
_MODE_ALT = "|".join(sorted(_MODES, key=len, reverse=True))
_KEY_TRIGGER = re.compile(
    r"\b(?:switch|change|move|go|modulate|key|transpose|shift)(?:\s+(?:the\s+)?key)?\s*(?:to|of|into|:)?\s*"
    r"([A-Ga-g])\s*([#b♯♭]|sharp|flat)?[\s-]*(" + _MODE_ALT + r")?\b",
    re.I,
)
_KEY_BARE = re.compile(r"(?<![\w#])([A-G])([#b♯♭]?)\s+((?i:major|minor|dorian|phrygian|lydian|mixolydian|locrian))\b")
_MODE_ONLY = re.compile(
    r"\b(?:switch|change|go|move|modulate)\s+(?:it\s+)?(?:to|into)\s+(?:the\s+)?"
    r"(major|minor|dorian|phrygian|lydian|mixolydian|locrian|aeolian|ionian)\b(?:\s+mode)?",
    re.I,
)
_KEY_IN = re.compile(r"\bin\s+([A-G])([#b♯♭]?)\s*(" + _MODE_ALT + r")?\b")

_CHORDS = re.compile(r"\b(?:chords?|progression|changes)\s*(?:to|:|=|are|is)?\s*((?:[A-G][#b♯♭]?[\w#°ø+/()-]*[\s,|–-]*)+)", re.I)
_BPM = re.compile(r"\b(\d{1,6})\s*bpm\b|\b(?:tempo|bpm)\s*(?:to|at|of|=|:)?\s*(\d{1,6})\b", re.I)
_TEMPO_WORDS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(?:faster|speed (?:it )?up|pick up the tempo|up ?tempo)\b", re.I), 10.0),
    (re.compile(r"\b(?:slower|slow (?:it )?down|drag it|down ?tempo)\b", re.I), -10.0),
)
_TIME_SIG = re.compile(r"\b([2-9]|1[0-5])\s*/\s*(4|8)\b(?:\s*time)?")
_MENTIONS = re.compile(r"^\s*((?:@[\w-]+[\s,:;&]*(?:and\s+)?)+)")
_MENTION = re.compile(r"@([\w-]+)")


@dataclass(frozen=True, slots=True)
class Directive:
    """What the boss asked, parsed."""

    text: str
    body: str
    to: tuple[str, ...] = ()  # member names; empty = broadcast to every active member
    key: tuple[str, str] | None = None  # (tonic, mode), tonic lower-case like "f#"
    mode: str | None = None  # a new mode on the same tonic ("switch to dorian")
    chords: tuple[str, ...] | None = None
    bpm: float | None = None
    bpm_delta: float = 0.0
    time_signature: tuple[int, int] | None = None
    energy: int | None = None
    energy_delta: int = 0
    intents: frozenset[str] = field(default_factory=frozenset)

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


def _tonic(letter: str, accidental: str | None) -> str:
    acc = (accidental or "").lower()
    acc = {"♯": "#", "sharp": "#", "♭": "b", "flat": "b"}.get(acc, acc)
    return letter.lower() + acc


def _key(text: str) -> tuple[str, str] | None:
    for regex in (_KEY_TRIGGER, _KEY_BARE, _KEY_IN):
        match = regex.search(text)
        if match and (regex is not _KEY_TRIGGER or match.group(3) or match.group(2) or match.group(1).isupper()):
            mode = _MODES.get((match.group(3) or "major").lower(), "major")
            if match.group(3) == "M":
                mode = "major"
            return _tonic(match.group(1), match.group(2)), mode
    return None


def _mode_only(text: str) -> str | None:
    match = _MODE_ONLY.search(text)
    return _MODES[match.group(1).lower()] if match else None


def _chords(text: str) -> tuple[str, ...] | None:
    match = _CHORDS.search(text)
    if not match:
        return None
    symbols = [s for s in re.split(r"[\s,|–]+|(?<=\w)-(?=[A-G])", match.group(1)) if s]
    symbols = [s.replace("♯", "#").replace("♭", "b") for s in symbols if re.match(r"^[A-G]", s)]
    return tuple(symbols) or None


def parse_directive(text: str, members: Iterable[Persona]) -> Directive:
    """Parse a boss directive; raises `InvalidInput` for an empty text or an unknown @mention."""
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
    intents = frozenset(name for name, regex in _INTENT_RES.items() if regex.search(body))
    if "come_back" in intents:
        intents -= {"drop_out"}
    energy_abs = _ENERGY_ABS.search(body)
    energy_delta = next((d for regex, d in _ENERGY_RES if regex.search(body)), 0)
    bpm_match = _BPM.search(body)
    bpm = float(bpm_match.group(1) or bpm_match.group(2)) if bpm_match else None
    bpm_delta = 0.0 if bpm else next((d for regex, d in _TEMPO_WORDS if regex.search(body)), 0.0)
    sig = _TIME_SIG.search(body)
    return Directive(
        text=stripped,
        body=body,
        to=tuple(to),
        key=(key := _key(body)),
        mode=None if key else _mode_only(body),
        chords=_chords(body),
        bpm=bpm,
        bpm_delta=bpm_delta,
        time_signature=(int(sig.group(1)), int(sig.group(2))) if sig else None,
        energy=int(energy_abs.group(1)) if energy_abs else None,
        energy_delta=0 if energy_abs else energy_delta,
        intents=intents,
    )

"""Personas: who a band member is, read from a markdown file with front matter.

The front matter holds the fields the engine uses (name, emoji, role, aliases,
ego, stubbornness %, taste, catchphrases, register, sound palette, colour); the
markdown body is the character sketch that LLM members get as system prompt.
The front matter is a flat `key: value` list; values in `[...]` are lists.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.errors import InvalidInput

ROLES = ("drums", "bass", "melody", "fx")
DEFAULT_BAND = ("BEAT", "GROOVE", "ARIA", "GLITCH")
ROLE_COLOURS = {"drums": "#e5484d", "bass": "#3e8ed0", "melody": "#8e4ec6", "fx": "#30a46c"}


class Persona(BaseModel):
    """One band member's character."""

    model_config = ConfigDict(populate_by_name=True)

    name: str = Field(min_length=1, max_length=24)
    emoji: str = "🎵"
    role: str
    aliases: list[str] = Field(default_factory=list)
    ego: str = "medium"
    stubbornness: int = Field(default=50, ge=0, le=100)
    taste: str = ""
    catchphrases: list[str] = Field(default_factory=list)
    pitch_range: str = Field(default="", alias="register")
    palette: list[str] = Field(default_factory=list)
    colour: str = ""
    backend: str = ""  # this member's own backend (algorithmic, openai, …); empty: the band's
    body: str = ""

    def handles(self) -> set[str]:
        """Every lower-case name this member answers to in an @mention."""
        return {h.lower() for h in (self.name, self.role, *self.aliases)}

    def system_prompt(self) -> str:
        """The persona as an LLM system prompt, with the reply contract."""
        phrases = "; ".join(f'"{c}"' for c in self.catchphrases)
        return (
            f"{self.body.strip()}\n\nYou are {self.emoji} {self.name}, the {self.role} player of a live band."
            f" Ego: {self.ego}. Stubbornness: {self.stubbornness}%. Taste: {self.taste}."
            f" Catchphrases: {phrases}. Register: {self.pitch_range}. Sounds: {', '.join(self.palette)}.\n"
            "Each turn you get the jam context and answer with exactly one JSON object: "
            '{"pattern": "<Strudel pattern code>", "thoughts": "...", "reaction": "...", '
            '"comply_with_boss": true|false}. "silence" is a valid pattern. Your pattern must stay in '
            "the key and scale, follow the chords, tempo and energy, whatever your opinion."
        )


_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?(.*)\Z", re.S)


def _value(raw: str) -> object:
    raw = raw.strip()
    if raw.startswith("["):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return [item.strip().strip("\"'") for item in raw.strip("[]").split(",") if item.strip()]
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw


def parse_persona(text: str, *, source: str = "persona") -> Persona:
    """Parse a persona file's text; raises `InvalidInput` naming the source and field."""
    match = _FRONT.match(text.lstrip("\ufeff"))
    if match is None:
        raise InvalidInput(f"{source}: a persona file starts with front matter between '---' lines")
    fields: dict[str, object] = {"body": match.group(2)}
    for number, line in enumerate(match.group(1).splitlines(), start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, raw = line.partition(":")
        if not sep:
            raise InvalidInput(f"{source}:{number}: expected 'key: value', got {line.strip()!r}")
        fields[key.strip()] = _value(raw)
    role = str(fields.get("role", "")).lower()
    fields["role"] = role
    if not fields.get("colour"):
        fields["colour"] = ROLE_COLOURS.get(role, "#888888")
    try:
        return Persona.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"{source}: field {where}: {first['msg']}") from exc


def load_persona(path: str | Path) -> Persona:
    """Read a persona from a markdown file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read persona file {p}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"persona file {p} is not UTF-8 text (byte {exc.start}); save it as UTF-8 markdown") from exc
    return parse_persona(text, source=str(p))


def builtin_personas() -> dict[str, Persona]:
    """The personas shipped with bandstand, by upper-case name."""
    folder = resources.files("bandstand.jam") / "personas"
    out: dict[str, Persona] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".md"):
            persona = parse_persona(entry.read_text(encoding="utf-8"), source=entry.name)
            out[persona.name.upper()] = persona
    return out


def resolve_members(names: list[str] | None, extra: list[Persona] | None = None) -> list[Persona]:
    """Pick members by name (case-insensitive) from the built-in and extra personas."""
    known = builtin_personas()
    for persona in extra or []:
        known[persona.name.upper()] = persona
    wanted = [n.strip() for n in (names or [*DEFAULT_BAND, *(p.name for p in extra or [])]) if n.strip()]
    chosen: list[Persona] = []
    for name in wanted:
        found = known.get(name.upper())
        if found is None:
            raise InvalidInput(
                f"unknown band member {name!r}; known: {', '.join(sorted(known))} (or add a persona file)"
            )
        if found in chosen and names:
            raise InvalidInput(f"{found.name} named more than once; name each member once")
        if found not in chosen:
            chosen.append(found)
    if not chosen:
        raise InvalidInput("a jam needs at least one member")
    return chosen

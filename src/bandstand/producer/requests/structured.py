"""Structured prompts (spec studio §5): a request that says exactly what it wants.

    BANDSTAND PROMPT          (or MAESTRO PROMPT, STORI PROMPT: Maestro's headers)
    Mode: compose
    Style: funk
    Tempo: 96
    Key: E minor
    Roles: [drums, bass, keys]
    Bars: 16
    Energy: high
    Effects:
      drums: compressor
      keys: [chorus, reverb]
    Automation:
      - track: keys
        parameter: volume
        points: [[0, 0.3], [32, 0.9]]

The first line is the header; the rest is YAML read with the safe loader, in
`Key: value` fields: Mode (compose | edit | ask), Request, Style, Key, Tempo,
Roles, Bars, Section, Position, Energy, Vibe, Constraints, Target, the blocks
Effects, MidiExpressiveness and Automation, whose entries each become one tool
call and one visible plan step, and Maestro's dimension blocks Harmony,
Melody, Rhythm, Dynamics, Humanization, Orchestration, Texture and Form (kept
as written here; `producer.requests.structured_words` reads them into the request
parser's words). Field names are read without regard to case. A field nobody
knows is a warning naming it (with the closest known field), never a refusal
of the whole prompt; a value of the wrong kind or YAML that does not parse is
one `InvalidInput` naming the line or the field; the text is budgeted (size,
depth, entries) before and after parsing.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bandstand.errors import InvalidInput
from bandstand.score import TEMPO_RANGE

__all__ = ["DIMENSIONS", "HEADER", "HEADERS", "MAX_DEPTH", "MAX_ENTRIES", "MAX_TEXT", "AutomationEntry", "EffectEntry", "ExpressionEntry",
           "StructuredPrompt", "is_structured", "parse_structured"]

HEADER = "BANDSTAND PROMPT"
HEADERS = (HEADER, "MAESTRO PROMPT", "STORI PROMPT")
"""The header lines a structured prompt may start with (Maestro's and Stori's are read the same)."""
DIMENSIONS = ("harmony", "melody", "rhythm", "dynamics", "humanization", "orchestration", "texture", "form")
"""Maestro's dimension blocks, as field names (lower case)."""
MAX_TEXT = 16_384
MAX_DEPTH = 5
MAX_ENTRIES = 64
_FIELDS = {"mode": "mode", "request": "request", "style": "style", "key": "key", "tempo": "tempo", "roles": "roles",
           "bars": "bars", "section": "section", "position": "position", "energy": "energy", "vibe": "vibe",
           "constraints": "constraints", "effects": "effects", "midiexpressiveness": "expressiveness",
           "automation": "automation", "target": "target", **{d: d for d in DIMENSIONS}}
"""Field name as written (lower case, no spaces) → the model's field."""
ENERGY_WORDS = {"very low": 0.1, "low": 0.25, "medium": 0.5, "mid": 0.5, "moderate": 0.5, "high": 0.75,
                "very high": 0.9, "max": 1.0, "maximum": 1.0, "min": 0.0, "minimum": 0.0}
CC_NAMES = {"modulation": 1, "mod": 1, "mod wheel": 1, "breath": 2, "volume": 7, "pan": 10, "expression": 11,
            "sustain": 64, "resonance": 71, "brightness": 74, "cutoff": 74, "filter": 74}


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class EffectEntry(_Entry):
    """An effect on a track ("reverb" goes to the shared Reverb bus as a send)."""

    track: str = Field(min_length=1, max_length=60)
    type: str = Field(min_length=1, max_length=30)
    params: dict[str, float | str] = Field(default_factory=dict, max_length=16)
    level: float | None = Field(default=None, ge=0, le=1, description="send level, for reverb")


class ExpressionEntry(_Entry):
    """A controller ramp on a track's part: cc (a number or a name), pitch bend or aftertouch,
    from `start` to `end` (0–127; bend −8192..8191) over its bars (or `points` [[beat, value]…])."""

    track: str = Field(min_length=1, max_length=60)
    cc: int | str | None = None
    pitch_bend: bool = False
    aftertouch: bool = False
    start: float | None = Field(default=None, alias="from")
    end: float | None = Field(default=None, alias="to")
    points: list[tuple[float, float]] | None = Field(default=None, max_length=256)

    @field_validator("cc")
    @classmethod
    def _cc(cls, value: int | str | None) -> int | str | None:
        if isinstance(value, str) and value.strip().lower() not in CC_NAMES and not value.strip().isdigit():
            raise ValueError(f"cc '{value}' is not a controller; use a number 0-127 or one of "
                             f"{', '.join(sorted(CC_NAMES))}")
        return value

    @property
    def controller(self) -> int | None:
        if self.cc is None:
            return None
        if isinstance(self.cc, int):
            return self.cc
        word = self.cc.strip().lower()
        return int(word) if word.isdigit() else CC_NAMES[word]


class AutomationEntry(_Entry):
    """A parameter of a track moving over time: `points` [[beat, value]…], or `from`/`to`
    across the song (or the section)."""

    track: str = Field(min_length=1, max_length=60)
    parameter: str = Field(min_length=1, max_length=60)
    start: float | None = Field(default=None, alias="from")
    end: float | None = Field(default=None, alias="to")
    points: list[tuple[float, float]] | None = Field(default=None, max_length=256)
    curve: Literal["linear", "smooth", "step", "exp", "log"] = "linear"


class StructuredPrompt(BaseModel):
    """A structured prompt, read (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["compose", "edit", "ask"]
    request: str | None = Field(default=None, max_length=500)
    style: str | None = Field(default=None, max_length=200)
    key: str | None = Field(default=None, max_length=40)
    tempo: float | None = Field(default=None, ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1])
    roles: list[str] = Field(default_factory=list, max_length=12)
    bars: int | None = Field(default=None, ge=1, le=512)
    section: str | None = Field(default=None, max_length=60)
    position: str | None = Field(default=None, max_length=60)
    energy: float | None = Field(default=None, ge=0, le=1)
    vibe: str | None = Field(default=None, max_length=300)
    constraints: list[str] = Field(default_factory=list, max_length=MAX_ENTRIES)
    effects: list[EffectEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)
    expressiveness: list[ExpressionEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)
    automation: list[AutomationEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)
    target: Any = None
    harmony: Any = None
    melody: Any = None
    rhythm: Any = None
    dynamics: Any = None
    humanization: Any = None
    orchestration: Any = None
    texture: Any = None
    form: Any = None
    warnings: tuple[str, ...] = ()

    @property
    def dimensions(self) -> dict[str, Any]:
        """The dimension blocks given (name → value as written), in the order of `DIMENSIONS`."""
        return {d: getattr(self, d) for d in DIMENSIONS if getattr(self, d) not in (None, "", [], {})}

    @property
    def has_blocks(self) -> bool:
        """Whether it asks for tool calls of its own (Tempo, Effects, MidiExpressiveness, Automation)."""
        return bool(self.tempo or self.effects or self.expressiveness or self.automation)

    @property
    def complete(self) -> bool:
        """Style, Tempo, Roles and Bars all given: the plan needs nobody's reading."""
        return bool(self.style and self.tempo and self.roles and self.bars)

    @property
    def no_effects(self) -> bool:
        return any(c.replace(" ", "_").replace("-", "_").lower() == "no_effects" for c in self.constraints)

    def text(self) -> str:
        """The prompt in words (what the mood lexicon and the rules read)."""
        words = [self.request, self.style, self.vibe, self.key, *self.roles]
        return ", ".join(w for w in words if w)


def _header(line: str) -> str | None:
    """The header `line` is (spaces and case aside), or None."""
    words = " ".join(line.split()).upper()
    return words if words in HEADERS else None


def is_structured(text: str) -> bool:
    return isinstance(text, str) and any(text.lstrip()[:40].upper().startswith(h) for h in HEADERS)


class _Loader(yaml.SafeLoader):  # type: ignore[misc]
    """The safe loader without anchors and aliases (no shared or self-referencing values)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise InvalidInput(f"the structured prompt uses an alias (*) at line {mark.line + 2}; write the value out")
        return super().compose_node(parent, index)


def _depth(value: Any, level: int = 0) -> int:
    """How deep `value` nests (counting stops past `MAX_DEPTH`)."""
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([level + 1, *(_depth(v, level + 1) for v in value.values())])
    if isinstance(value, list):
        return max([level + 1, *(_depth(v, level + 1) for v in value)])
    return level


def _list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return value
    raise InvalidInput(f"{name}: give a list (or words separated by commas)", field=name)


def _effects(value: Any) -> list[dict[str, Any]]:
    """`{track: effect | [effects] | {type, …}}` or `[{track, type, …}]` → entries."""
    if isinstance(value, list):
        if any(not isinstance(v, dict) for v in value):
            raise InvalidInput("Effects: each entry of the list is a mapping such as '- track: bass' with "
                               "'type: compressor'", field="Effects")
        return [_effect_entry(v) for v in value]
    if not isinstance(value, dict):
        raise InvalidInput("Effects: give a track: effect mapping, e.g. 'drums: compressor'", field="Effects")
    out: list[dict[str, Any]] = []
    for track, spec in value.items():
        for one in spec if isinstance(spec, list) else [spec]:
            out.append(_effect_entry({"track": str(track), **(one if isinstance(one, dict) else {"type": str(one)})}))
    return out


def _effect_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """An effect's parameters may sit beside its type ({type: delay, time_beats: 0.5})."""
    known = {"track", "type", "params", "level"}
    params = {k: v for k, v in entry.items() if k not in known}
    if not params:
        return entry
    found = entry.get("params")
    given: dict[str, Any] = found if isinstance(found, dict) else {}
    return {**{k: v for k, v in entry.items() if k in known}, "params": {**params, **given}}


def _energy(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None if value is None else (0.75 if value else 0.25)
    if isinstance(value, int | float):
        number = float(value)
        return number / 10 if 1 < number <= 10 else number
    word = str(value).strip().lower()
    if word in ENERGY_WORDS:
        return ENERGY_WORDS[word]
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:/\s*10|%)?", word)
    if m:
        number = float(m.group(1))
        return number / 100 if word.endswith("%") else number / 10 if "/" in word or number > 1 else number
    raise InvalidInput(f"Energy: '{value}' is not an energy; use low, medium, high, 0-1 or 1-10", field="Energy")


def _fields(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The known fields by the model's names, and a warning for each field nobody knows."""
    if len(data) > MAX_ENTRIES:
        raise InvalidInput(f"the structured prompt has {len(data)} fields; at most {MAX_ENTRIES} (one per line: "
                           "Mode, Request, Style, … and the blocks)")
    out: dict[str, Any] = {}
    warnings: list[str] = []
    for raw, value in data.items():
        name = re.sub(r"[\s_-]", "", str(raw)).lower()
        field = _FIELDS.get(name)
        if field is None:
            close = difflib.get_close_matches(name, list(_FIELDS), n=1, cutoff=0.6)
            hint = f"; did you mean '{_title(close[0])}'?" if close else \
                f"; the fields are {', '.join(_title(k) for k in _FIELDS)}"
            warnings.append(f"unknown block '{str(raw)[:40]}' in the structured prompt was ignored{hint}")
            continue
        out[field] = value
    return out, warnings


def _title(name: str) -> str:
    return {"midiexpressiveness": "MidiExpressiveness"}.get(name, name.title())


def parse_structured(text: str) -> StructuredPrompt:
    """Read a structured prompt (see the module docstring)."""
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"a structured prompt is at most {MAX_TEXT} characters; this one has {len(text)}")
    body = text.lstrip()
    first, _, rest = body.partition("\n")
    if _header(first) is None:
        raise InvalidInput(f"a structured prompt starts with the line '{HEADER}' (or MAESTRO PROMPT, STORI PROMPT) "
                           "alone")
    try:
        data = yaml.load(rest, Loader=_Loader) if rest.strip() else None  # _Loader is a SafeLoader
    except yaml.MarkedYAMLError as exc:
        line = (exc.problem_mark.line + 2) if exc.problem_mark is not None else "?"
        raise InvalidInput(f"the structured prompt is not valid YAML at line {line}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise InvalidInput(f"the structured prompt is not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise InvalidInput("a structured prompt has 'Field: value' lines after its header, e.g. 'Mode: compose'")
    if _depth(data) > MAX_DEPTH:
        raise InvalidInput(f"the structured prompt nests deeper than {MAX_DEPTH} levels")
    fields, warnings = _fields(data)
    fields["warnings"] = tuple(warnings)
    if "mode" not in fields:
        raise InvalidInput("the structured prompt has no Mode: say 'Mode: compose', 'Mode: edit' or 'Mode: ask'",
                           field="Mode")
    fields["mode"] = str(fields["mode"]).strip().lower()
    for name in ("roles", "constraints"):
        fields[name] = [str(v) for v in _list(fields.get(name), _title(name))]
    for block in ("expressiveness", "automation"):
        fields[block] = _list(fields.get(block), block)
        if any(not isinstance(v, dict) for v in fields[block]):
            raise InvalidInput(f"{_title(block) if block != 'expressiveness' else 'MidiExpressiveness'}: each "
                               "entry is a mapping such as '- track: lead'", field=block)
    fields["effects"] = _effects(fields["effects"]) if fields.get("effects") is not None else []
    fields["energy"] = _energy(fields.get("energy"))
    for name, unit in (("tempo", "bpm"), ("bars", "bars?")):
        value = fields.get(name)
        if isinstance(value, str) and (m := re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:" + unit + r")?\s*", value, re.I)):
            fields[name] = float(m.group(1)) if name == "tempo" else int(float(m.group(1)))
    for name in ("request", "style", "key", "section", "position", "vibe"):
        if fields.get(name) is not None:
            fields[name] = str(fields[name])
    try:
        return StructuredPrompt.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(_title(str(p)) if i == 0 else str(p) for i, p in enumerate(err["loc"]))
        where = where.replace("Expressiveness", "MidiExpressiveness")
        raise InvalidInput(f"{where}: {err['msg'].removeprefix('Value error, ')}", field=where) from None

"""A structured edit prompt read into the request parser's words, so `Mode: edit`
goes through the same router as the same words typed plainly.

`Request` and `Vibe` are words already. Maestro's dimension blocks (Harmony,
Melody, Rhythm, Dynamics, Humanization, Orchestration, Texture, Form) are read
entry by entry through one table of value words → phrases the parser knows
("Rhythm: {swing: more}" → "more swing", "Harmony: {progression: Am F C G}"
→ "progression Am F C G"); a key naming a part or a section scopes its
phrase ("Dynamics: {chorus: louder}" → "louder in the chorus"). `Target`
scopes the whole request to tracks, sections or bars, resolved against the
song's own tracks and sections (a name the song lacks is one line naming
what is there). What a block says that no table reads is a warning naming the
block, never a refusal of the prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bandstand.errors import InvalidInput
from bandstand.producer.requests.structured import StructuredPrompt
from bandstand.studio import Project

__all__ = ["BLOCK_SUBJECT", "DYNAMICS_PHRASES", "VALUE_PHRASES", "ComposeReading", "EditWords", "compose_reading", "edit_words"]

BLOCK_SUBJECT: dict[str, str] = {"harmony": "chords", "melody": "lead", "rhythm": "drums", "dynamics": "",
                                 "humanization": "", "orchestration": "", "texture": "", "form": ""}
"""The part a dimension block's words are about when its entry names none ("" = every part)."""

VALUE_PHRASES: tuple[tuple[str, str], ...] = (
    (r"jazz\w*|rich\w*|extended|sevenths?|complex\w*|colou?rful|lush", "richer {subject}"),
    (r"simpl\w*|sparse\w*|minimal|thin\w*|fewer|less busy|stripped", "simpler {subject}"),
    (r"bus(?:y|ier)|dense\w*|dens\w*|more notes|fuller|full|thick\w*", "busier {subject}"),
    (r"high\w*|up(?:per)?|soar\w*", "higher {subject}"),
    (r"low\w*|down|deep\w*", "lower {subject}"),
    (r"dark\w*|moody|sombre|somber", "darker {subject}"),
    (r"bright\w*|airy|sparkl\w*", "brighter {subject}"),
    (r"straight\w*|(?:no|less|off|none)\s+swing\w*|quantized", "less swing"),
    (r"swing\w*|swung|shuffle\w*", "more swing"),
    (r"syncopat\w*|off-?beat\w*", "more syncopation"),
    (r"half[- ]time", "half-time feel"),
    (r"double[- ]time", "double-time {subject}"),
    (r"tight\w*|staccato|short\w*|punch\w*|crisp", "more staccato"),
    (r"loose\w*|legato|long\w*|smooth\w*|human\w*|relaxed|laid[- ]back", "more legato"),
    (r"loud\w*|build\w*|crescendo|intense|big\w*|forte|more energy|energetic", "more energy"),
    (r"quiet\w*|soft\w*|calm\w*|decrescendo|piano|pp|gentle|less energy", "less energy"),
    (r"new|fresh|different|another|change", "new chord progression"),
)
"""Value words → a phrase the request parser reads (first match wins; {subject} is the part)."""
DYNAMICS_PHRASES: tuple[tuple[str, str], ...] = (
    (r"high\w*|loud\w*|build\w*|crescendo|intense|big\w*|forte|ff|f|up|more", "more energy"),
    (r"low\w*|quiet\w*|soft\w*|calm\w*|decrescendo|piano|pp|p|gentle|down|less", "less energy"),
)
"""Dynamics reads "high" and "low" as levels, before the table above (where they mean register)."""

_CHORDS = re.compile(r"^\s*(?:[A-G][#b]?(?:m|maj|min|dim|aug|sus)?\d*(?:/[A-G][#b]?)?[\s,|-]+){1,15}"
                     r"[A-G][#b]?(?:m|maj|min|dim|aug|sus)?\d*(?:/[A-G][#b]?)?\s*$")
_BARS = re.compile(r"^\s*(?:bars?\s*)?(\d{1,4})\s*(?:-|–|to|\.\.)\s*(\d{1,4})\s*$", re.I)


@dataclass(frozen=True, slots=True)
class EditWords:
    """What a structured edit says in words, the parts `Target` aims it at, and what could not be read."""

    text: str
    roles: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def _items(value: Any) -> list[tuple[str, str]]:
    """A block's entries as (key, value words): a mapping's pairs, a list's items, a string's clauses."""
    if isinstance(value, dict):
        out: list[tuple[str, str]] = []
        for key, val in value.items():
            vals = val if isinstance(val, list) else [val]
            out += [(str(key).strip().lower(), _word(v)) for v in vals]
        return out
    if isinstance(value, list):
        return [pair for v in value for pair in (_items(v) if isinstance(v, dict) else [("", _word(v))])]
    return [("", part.strip()) for part in re.split(r"[;,\n]|\band\b", _word(value)) if part.strip()]


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "more" if value else "less"
    if isinstance(value, dict | list):
        return " ".join(_word(v) for v in (value.values() if isinstance(value, dict) else value))
    return " ".join(str(value).split())[:200]


def _section_names(project: Project | None) -> list[str]:
    return list(dict.fromkeys(s.name.casefold() for s in project.sections)) if project is not None else []


def _scope_words(key: str, project: Project | None) -> tuple[str, str]:
    """(subject part, scope phrase) a block entry's key gives: a part ("bass"), a section ("chorus")."""
    from bandstand.craft.requests import ROLE_WORDS

    if not key:
        return "", ""
    for role, words in ROLE_WORDS.items():
        if key in words or key == role:
            return key, ""
    sections = _section_names(project)
    if key in sections or any(key == name.rstrip("0123456789 ") for name in sections):
        return "", f" in the {key}"
    return "", ""


def _orchestration(key: str, value: str, project: Project | None) -> list[str]:
    """Instruments: 'add: strings', 'remove: pad', 'lead: saxophone' (a swap), or a list (add what is missing)."""
    have = {t.name.casefold() for t in project.tracks} if project is not None else set()
    names = [v.strip() for v in re.split(r",|\band\b", value) if v.strip()]
    if key in ("add", "with", "instruments", "include", ""):
        return [f"add {n}" for n in names if n.casefold() not in have]
    if key in ("remove", "drop", "without", "mute"):
        return [f"remove the {n}" for n in names]
    return [f"swap the {key} for a {n}" for n in names]


def _phrases(block: str, value: Any, project: Project | None) -> tuple[list[str], list[str]]:
    """The parser's phrases for one dimension block, and a warning per entry nobody reads."""
    phrases: list[str] = []
    warnings: list[str] = []
    title = block.title()
    for key, words in _items(value):
        if not words:
            continue
        if block == "orchestration":
            phrases += _orchestration(key, words, project)
            continue
        if block == "harmony" and (key in ("progression", "chords", "") and _CHORDS.match(words)):
            phrases.append("progression " + " ".join(re.split(r"[\s,|-]+", words.strip())))
            continue
        if block == "harmony" and key in ("key", "tonic"):
            phrases.append(f"change the key to {words}")
            continue
        if block == "harmony" and key == "mode":
            phrases.append(f"switch to {words}")
            continue
        part, scope = _scope_words(key, project)
        subject = part or BLOCK_SUBJECT.get(block, "")
        low = f"{words} {key}".lower() if not (part or scope) else words.lower()
        table = (*DYNAMICS_PHRASES, *VALUE_PHRASES) if block == "dynamics" else VALUE_PHRASES
        found = next((template for pattern, template in table if re.search(rf"\b(?:{pattern})\b", low)), None)
        if found is None or (found == "new chord progression" and block != "harmony"):
            said = ((key + ": ") if key else "") + words
            warnings.append(f"{title}: '{said[:80]}' was not read; say e.g. 'busier', 'simpler', 'darker', "
                            "'more swing', 'louder'")
            continue
        phrases.append((found.format(subject=subject or "").strip() + scope).strip())
    return phrases, warnings


def _target(value: Any, project: Project | None) -> tuple[list[str], str]:
    """`Target` → (the track names it aims at, the scope words for sections or bars)."""
    if value is None:
        return [], ""
    if isinstance(value, dict):
        entries = {str(k).strip().lower().rstrip("s"): v for k, v in value.items()}
    else:
        entries = {"": value}
    tracks: list[str] = []
    sections: list[str] = []
    bars = ""
    names = {t.name.casefold(): t.name for t in project.tracks} if project is not None else {}
    roles = {t.role: t.name for t in project.tracks} if project is not None else {}
    known = _section_names(project)
    for kind, raw in entries.items():
        for item in raw if isinstance(raw, list) else re.split(r",|\band\b", _word(raw)):
            word = " ".join(str(item).split()).casefold().removeprefix("the ")
            if not word:
                continue
            if kind in ("bar", "") and (m := _BARS.match(word)):
                bars = f" in bars {m.group(1)}-{m.group(2)}"
            elif kind in ("track", "part", "instrument", "") and (word in names or word in roles):
                tracks.append(names.get(word) or roles[word])
            elif kind in ("section", "") and (word in known or word.rstrip("0123456789 ") in known):
                sections.append(word)
            elif kind in ("track", "part", "instrument"):
                raise InvalidInput(f"Target: no track '{item}' in this song; its tracks are "
                                   f"{', '.join(names.values()) or 'none'}", field="Target")
            else:
                raise InvalidInput(f"Target: no section, track or bars '{item}' in this song; its sections are "
                                   f"{', '.join(known) or 'none'}, its tracks {', '.join(names.values()) or 'none'}"
                                   ", bars are 'bars 9-16'", field="Target")
    scope = f" in the {' and '.join(dict.fromkeys(sections))}" if sections else ""
    return tracks, scope + bars


def _position_scope(prompt: StructuredPrompt, project: Project) -> str:
    """`Position` on an edit: the bars it names, as scope words ("in bars 17-24")."""
    from bandstand.producer.requests.position import place

    where = place(project, prompt.position or "", prompt.bars)
    bars = where.bars or next((s.bars for s in project.sections if s.start_bar == where.first_bar), None)
    if bars is None:
        return ""
    return f" in bars {where.first_bar}-{where.first_bar + bars - 1}"


def edit_words(prompt: StructuredPrompt, project: Project | None) -> EditWords:
    """The words a `Mode: edit` prompt says (see the module docstring)."""
    tracks, scope = _target(prompt.target, project)
    if prompt.position and project is not None and not scope:
        scope = _position_scope(prompt, project)
    phrases: list[str] = []
    warnings: list[str] = list(prompt.warnings)
    if prompt.request:
        phrases.append(prompt.request.strip().rstrip("."))
    if prompt.key:  # the song's facts asked of an edit, in the words that change them
        phrases.append(f"change the key to {prompt.key.strip()}")
    if prompt.style:
        phrases.append(f"make it {prompt.style.strip()}")
    if prompt.energy is not None:
        phrases.append(f"energy {max(1, round(prompt.energy * 10))}/10")
    if prompt.vibe:
        vibe = prompt.vibe.strip().rstrip(".")
        phrases.append(vibe if re.match(r"(?i)(?:make|more|less|a bit)\b", vibe) else f"make it {vibe}")
    for block, value in prompt.dimensions.items():
        if block == "form":
            warnings.append("Form: not applied with other changes (it moves every part): send it in a Mode: edit "
                            "prompt of its own")
            continue
        said, unread = _phrases(block, value, project)
        phrases += said
        warnings += unread
    if scope:
        phrases = [p if re.search(r"\b(?:in|during)\s+(?:the\s+)?\w+\s*$|\bbars?\s+\d", p) else p + scope
                   for p in phrases]
    roles = tuple(dict.fromkeys(t.role for t in (project.tracks if project else ()) if t.name in tracks))
    return EditWords(" and ".join(phrases), roles, tuple(warnings))


@dataclass(frozen=True, slots=True)
class ComposeReading:
    """What a `Mode: compose` prompt's dimension blocks add to the song: how the parts play
    (style overrides), parts named by Orchestration, an energy from Dynamics, a key from
    Harmony, and what could not be read."""

    overrides: tuple[Any, ...] = ()
    roles: tuple[str, ...] = ()
    energy: float | None = None
    key: str | None = None
    warnings: tuple[str, ...] = ()


def compose_reading(prompt: StructuredPrompt) -> ComposeReading:
    """The dimension blocks of a new composition, read with the request parser's tables."""
    from bandstand.craft.edits import EnergyEdit, StyleEdit
    from bandstand.craft.requests import parse_request
    from bandstand.producer.requests.iteration import vocabulary

    warnings: list[str] = []
    roles: list[str] = []
    key: str | None = None
    phrases: list[str] = []
    for block, value in prompt.dimensions.items():
        if block == "form":  # the song's sections (`structured_form`, read by `spec_from_structured`)
            continue
        if block == "orchestration":
            roles += [v for k, v in _items(value) if k in ("", "add", "with", "instruments", "include") for v in
                      (x.strip() for x in re.split(r",|\band\b", v)) if v]
            continue
        if block == "harmony":
            for k, v in _items(value):
                if k in ("key", "tonic"):
                    key = v
        said, unread = _phrases(block, value, None)
        phrases += [p for p in said if not p.startswith(("change the key", "progression", "new chord"))]
        warnings += unread
    overrides: list[Any] = []
    energy: float | None = None
    if phrases:
        request = parse_request(" and ".join(phrases), vocabulary(), studio=True)
        overrides = [e.override for e in request.edits if isinstance(e, StyleEdit)]
        moves = [e.delta for e in request.edits if isinstance(e, EnergyEdit) and not e.sections and e.delta]
        energy = (0.75 if sum(moves) > 0 else 0.25) if moves else None
    return ComposeReading(tuple(overrides), tuple(dict.fromkeys(roles)), energy, key, tuple(warnings))

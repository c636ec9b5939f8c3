"""Specialists: who in the studio handles a request — harmony, rhythm, sound or mix, with the
composer as the catch-all (spec studio, Maestro's domain agents).

Which one is decided from what the request parser read, by tables: each kind of edit and
each style knob belongs to one specialist ("make the chords jazzier" turns the chords'
complexity: harmony; "tighter groove": rhythm; "drums too loud": mix). The sound
specialist also reads tone words the parser leaves alone ("warmer bass sound", "a
brighter snare tone") into the insert effects that make them, as EDITING steps. The
plan and the stream's `state` name the specialist that handled the request.

With a language model configured, a request the tables do not read goes to the model:
the classifier names the specialist, and that specialist is a `Brief` — its own prompt
and the subset of the studio's tools it may call (`BRIEFS`; the composer gets every tool
of the mode). A call outside the subset is refused ("there is no tool …"), like any bad call.
Offline (and for everything the tables read) the rule-based specialists above answer.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bandstand.craft.edits import Request, StyleEdit
from bandstand.studio import Project

__all__ = ["BRIEFS", "EDIT_SPECIALIST", "KNOB_SPECIALIST", "MIXER_SPECIALIST", "SPECIALISTS", "TONE", "Brief",
           "ToneChange", "specialist_for", "tone_changes"]

SPECIALISTS: tuple[str, ...] = ("harmony", "rhythm", "sound", "mix", "composer")
EDIT_SPECIALIST: dict[str, str] = {
    "progression": "harmony", "key": "harmony", "mode": "harmony", "transpose": "harmony",
    "tempo": "rhythm", "metre": "rhythm", "instrument": "sound", "mix": "mix", "solo": "mix",
}
"""An edit's kind → its specialist (the rest are the composer's)."""
KNOB_SPECIALIST: dict[str, str] = {
    "complexity": "harmony", "swing": "rhythm", "syncopation": "rhythm", "articulation": "rhythm",
    "brightness": "sound",
}
"""A style knob → its specialist (density and register are the composer's, but a drum part's density is rhythm)."""
MIXER_SPECIALIST: dict[str, str] = {
    "effect": "sound", "volume": "mix", "pan": "mix", "mute": "mix", "track_solo": "mix", "rename": "mix",
    "quantize": "rhythm", "swing": "rhythm", "transport": "mix",
}
"""A mixer edit's kind → its specialist."""
RHYTHM_ROLES = frozenset({"drums", "percussion"})


@dataclass(frozen=True, slots=True)
class Brief:
    """An LLM specialist: who it is (`prompt`, its system prompt) and the studio tools it may call
    (`tools`; None: every tool the execution mode allows)."""

    name: str
    prompt: str
    tools: tuple[str, ...] | None


_HOW = (" Name tracks, regions and buses by their names or ids exactly as the project lists them (you may call "
        "several tools at once). When a tool answers with an error, read it and call the tool again correctly. "
        "When done, say in one sentence what you changed.")
BRIEFS: dict[str, Brief] = {
    "harmony": Brief("harmony", "You are the harmony specialist of a music studio: chords, progression, key, mode "
                     "and the pitches of the notes. Change only what the person asks about the harmony." + _HOW,
                     ("read_project", "set_key", "transpose_notes", "update_notes", "remove_notes", "clear_notes")),
    "rhythm": Brief("rhythm", "You are the rhythm specialist of a music studio: groove, feel, swing, timing, "
                    "tempo and metre. Change only what the person asks about the rhythm." + _HOW,
                    ("read_project", "set_tempo", "set_time_signature", "quantize_notes", "apply_swing",
                     "move_region", "duplicate_region", "update_notes")),
    "sound": Brief("sound", "You are the sound designer of a music studio: instruments, tone and effects. Change "
                   "only the sound of the parts the person names." + _HOW,
                   ("read_project", "set_midi_program", "add_insert_effect", "ensure_bus", "add_send", "add_midi_cc",
                    "add_pitch_bend")),
    "mix": Brief("mix", "You are the mix engineer of a music studio: levels, panning, mutes, solos, sends and "
                 "automation. Change only the balance the person asks about." + _HOW,
                 ("read_project", "set_track_volume", "set_track_pan", "mute_track", "solo_track", "ensure_bus",
                  "add_send", "add_automation")),
    "composer": Brief("composer", "You are the engineer of a music studio. The person asks for a change to their "
                      "song; make it with the tools." + _HOW, None),
}
"""Each specialist as a language model sees it: its prompt and its tool subset."""


@dataclass(frozen=True, slots=True)
class ToneChange:
    """An insert effect that gives a part the tone asked for."""

    track: str
    word: str
    effect: str
    params: dict[str, float | str]


TONE: tuple[tuple[str, str, dict[str, float | str]], ...] = (
    (r"warm(?:er)?|mellow(?:er)?|soft(?:er)?|round(?:er)?", "eq", {"low_gain_db": 3.0, "high_gain_db": -4.0}),
    (r"bright(?:er)?|crisp(?:er)?|clear(?:er)?|airy|airier", "eq", {"high_gain_db": 4.0}),
    (r"dark(?:er)?|dull(?:er)?|muffled", "filter", {"kind": "lowpass", "cutoff_hz": 2500.0}),
    (r"thin(?:ner)?|lighter", "eq", {"low_cut_hz": 150.0}),
    (r"fat(?:ter)?|full(?:er)?|thick(?:er)?|bigger", "eq", {"low_gain_db": 4.0}),
    (r"gritt?y|grittier|dirt(?:y|ier)|crunch(?:y|ier)|edg(?:y|ier)", "overdrive", {"drive": 0.4, "tone": 0.5}),
)
"""Tone words → the insert effect (and its parameters) that makes the sound so."""
_TONE = re.compile(r"\b(?P<word>" + "|".join(p for p, _, _ in TONE) + r")\b(?P<between>[\w\s'-]{0,30}?)"
                   r"\b(?:sound|tone|timbre)s?\b", re.I)


def tone_changes(text: str, project: Project | None) -> list[ToneChange]:
    """The tone a request asks of a part ("warmer bass sound"), as insert effects on its track."""
    if project is None:
        return []
    out: list[ToneChange] = []
    for m in _TONE.finditer(text):
        said = f"{m.group('between')}".strip().lower().removeprefix("the ").strip()
        track = next((t for t in project.tracks if t.name.casefold() == said or t.role == said), None)
        if track is None:
            continue
        word = m.group("word").lower()
        effect, params = next((e, p) for pattern, e, p in TONE if re.fullmatch(pattern, word))
        out.append(ToneChange(track.name, word, effect, dict(params)))
    return out


def _of_edit(edit: Any) -> str:
    if isinstance(edit, StyleEdit):
        role = edit.override.role
        knobs = [KNOB_SPECIALIST.get(k) or ("rhythm" if role in RHYTHM_ROLES else None) for k in edit.override.knobs]
        found = [k for k in knobs if k]
        if edit.override.time_feel is not None:
            found.append("rhythm")
        return Counter(found).most_common(1)[0][0] if found else "composer"
    return EDIT_SPECIALIST.get(str(getattr(edit, "kind", "")), "composer")


def specialist_for(request: Request | None, tone: bool = False) -> str:
    """Who handles `request` (see the module docstring): the specialist most of its edits
    belong to, the composer when none does."""
    if tone:
        return "sound"
    if request is None:
        return "composer"
    said = [_of_edit(e) for e in request.edits] + [MIXER_SPECIALIST.get(str(m.kind), "mix") for m in request.mixer]
    ranked = Counter(s for s in said if s != "composer").most_common(1)
    return ranked[0][0] if ranked else "composer"

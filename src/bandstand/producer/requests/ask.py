"""Questions about a project, answered from its figures (no model needed): the key
("what key is this in?"), the chords of a section ("which chords are in the
chorus?"), the tempo, the metre ("what metre is the bridge in?"), the form, the
instruments, the mix, and why a section feels flat (its energy, density,
loudness, parts and harmonic movement against the rest of the song, with what
to say to lift it).

`is_question` tells a question from a request ("can you mute the drums?" is a
request); `answer(project, question)` gives the reasoning (the figures looked
at, in words) and the answer. The MCP server's `ask` tool and the studio
stream's REASONING mode call these; with a language model the same figures are
its context (`analysis_context`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bandstand.craft._request_words import SECTION_WORDS
from bandstand.producer.requests.analysis import Analysis, SectionFigures, analyse
from bandstand.studio import Project

__all__ = ["TOPICS", "Answer", "analysis_context", "answer", "is_question"]

_ASKING = re.compile(
    r"^(?:what|which|why|how|who|where|when|is|are|does|do|did|was|were|has|have|tell me|explain|describe|"
    r"show me|analy[sz]e|list|name)\b", re.I)
_ASKING_FOR_A_CHANGE = re.compile(
    r"^(?:(?:can|could|would|will) you|please|how about|what about|what if|why not|let'?s|i want|i'?d like)\b", re.I)


def is_question(text: str) -> bool:
    """A question about the song (not a request phrased politely as one)."""
    words = " ".join(text.split())
    if _ASKING_FOR_A_CHANGE.match(words):
        return False
    return words.endswith("?") or bool(_ASKING.match(words))


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer: its topic, the figures looked at (in words) and the answer itself."""

    topic: str
    reasoning: tuple[str, ...]
    content: str
    figures: dict[str, Any] = field(default_factory=dict)


def _bars(s: SectionFigures) -> str:
    return f"bars {s.start_bar}–{s.start_bar + s.bars - 1}"


def _describe(s: SectionFigures) -> str:
    parts = ", ".join(s.parts) or "nothing"
    chords = " ".join(s.chords) or "no chords"
    return (f"{s.name} ({_bars(s)}): {s.notes_per_bar:g} notes a bar, velocity {s.velocity:g}, "
            f"{len(s.parts)} parts ({parts}), chords {chords} ({s.chord_changes_per_bar:g} changes a bar)")


def _key(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    heard = f"the notes sound most like {a.key_heard} (match {a.key_confidence:.2f})" if a.key_heard else \
        "there are no pitched notes to hear a key in"
    reasoning = [f"The project says its key is {a.key or 'not set'}", f"Pitch classes weighted by duration: {heard}"]
    if a.key and a.key_heard and a.key.split()[0].lower() == a.key_heard.split()[0].lower():
        text = f"It is in {a.key}: the project says so and the notes agree ({a.key_heard} is the closest key profile)."
    elif a.key and a.key_heard:
        text = (f"The project is marked {a.key}, but the notes lean towards {a.key_heard} (the relative key, "
                f"or borrowed colour, can do that); the tonic you hear most is {a.key_heard.split()[0]}.")
    else:
        text = f"It is in {a.key or a.key_heard or 'no clear key yet'}."
    if a.key_changes:  # the key map: where the key moves, and the key of the section asked about
        moves = ", ".join(f"{key} from bar {bar}" for bar, key in a.key_changes)
        reasoning.append(f"The key map: {a.key} from bar 1, {moves}")
        text = f"It opens in {a.key}; the key moves: {moves}."
        if s is not None:
            keys = list(dict.fromkeys(k for b in range(s.start_bar, s.start_bar + s.bars) if (k := a.key_at(b))))
            text = f"The {s.name} ({_bars(s)}) is in {' then '.join(keys)}. {text}"
    return reasoning, text


def _chords(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    if s is not None:
        chords = " – ".join(s.chords) or "no chords (nothing pitched plays there)"
        return [_describe(s)], f"The {s.name} ({_bars(s)}) plays {chords}."
    lines = [f"{x.name}: {' – '.join(x.chords) or '—'}" for x in a.sections]
    return [_describe(x) for x in a.sections], "Chords by section: " + "; ".join(lines) + "."


def _clock(seconds: float) -> str:
    """`seconds` as m:ss."""
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _bpm(tempos: Sequence[float]) -> str:
    return " then ".join(f"{t:g}" for t in tempos) + " BPM"


def _tempo(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    moves = ", ".join(f"{bpm:g} BPM from bar {bar:g}" for bar, bpm in a.tempo_changes)
    reasoning = [f"Tempo {a.tempo:g} BPM in {a.time_signature}, {a.bars} bars"]
    if moves:  # the tempo map: where the tempo moves
        reasoning.append(f"The tempo map: {a.tempo:g} BPM from bar 1, {moves}")
    if s is not None:  # "what tempo is the bridge?", "how long is the bridge?": the section's own
        tempos = s.tempos or (a.tempo,)
        return ([_describe(s), *reasoning],
                f"The {s.name} ({_bars(s)}) is {s.bars} bars at {_bpm(tempos)} in "
                f"{' then '.join(s.metres or (a.time_signature,))}: "
                f"about {_clock(s.seconds)}.")
    if moves:
        return reasoning, (f"It opens at {a.tempo:g} BPM in {a.time_signature}; the tempo moves: {moves}. "
                           f"{a.bars} bars last about {_clock(a.seconds)}.")
    return reasoning, f"{a.tempo:g} BPM in {a.time_signature}: {a.bars} bars last about {_clock(a.seconds)}."


def _metre(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    moves = ", ".join(f"{ts} from bar {bar}" for bar, ts in a.metre_changes)
    reasoning = [f"The song opens in {a.time_signature}" + (f"; the metre map: {moves}" if moves else "")]
    if s is not None:  # "what metre is the bridge in?": the section's own, from the map
        metres = s.metres or (a.time_signature,)
        return reasoning, f"The {s.name} ({_bars(s)}) is in {' then '.join(metres)}."
    if moves:
        return reasoning, f"It opens in {a.time_signature}; the metre changes: {moves}."
    return reasoning, f"The whole song is in {a.time_signature}."


def _form(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    form = " → ".join(f"{x.name} ({x.bars})" for x in a.sections)
    return [_describe(x) for x in a.sections], f"{a.bars} bars: {form}."


def _parts(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    if s is not None:
        return [_describe(s)], f"In the {s.name}: {', '.join(s.parts) or 'nothing plays'}."
    each = ", ".join(f"{p.name} ({p.role or 'part'}, {p.notes} notes{', muted' if p.muted else ''})" for p in a.parts)
    return [f"{len(a.parts)} tracks"], f"{len(a.parts)} tracks: {each or 'none yet'}."


def _mix(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    loudest = sorted(a.parts, key=lambda p: -p.volume)
    each = ", ".join(f"{p.name} {p.volume:.2f}{' (muted)' if p.muted else ''}" for p in loudest)
    return [f"Track volumes (1 is unity): {each}"], f"Levels, loudest first: {each or 'no tracks'}."


def _flat(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    if s is None:
        s = min(a.sections, key=lambda x: (x.notes_per_bar * x.velocity, x.start_bar), default=None)
        if s is None:
            return [], "There is nothing in the song yet to judge."
    others = [x for x in a.sections if x is not s and x.notes_per_bar > 0]
    if not others:
        return [_describe(s)], f"The {s.name} is the whole song; there is nothing to compare it with."

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    rest = {"notes": mean([x.notes_per_bar for x in others]), "velocity": mean([x.velocity for x in others]),
            "parts": mean([len(x.parts) for x in others]), "moves": mean([x.chord_changes_per_bar for x in others]),
            "energy": mean([x.energy for x in others])}
    reasons, fixes = [], []
    if s.energy < rest["energy"] - 0.1:
        reasons.append(f"it is planned at energy {s.energy:g} against {rest['energy']:.2f} elsewhere")
        fixes.append(f"more energy in the {s.name.split()[0].lower()}")
    if s.notes_per_bar < 0.8 * rest["notes"]:
        reasons.append(f"{s.notes_per_bar:g} notes a bar against {rest['notes']:.1f} in the rest of the song")
        fixes.append(f"busier in the {s.name.split()[0].lower()}")
    if s.velocity < rest["velocity"] - 6:
        reasons.append(f"it is played softer (velocity {s.velocity:g} against {rest['velocity']:.0f})")
    if len(s.parts) < rest["parts"] - 0.5:
        missing = sorted({p for x in others for p in x.parts} - set(s.parts))
        reasons.append(f"{len(s.parts)} parts play against {rest['parts']:.1f} elsewhere"
                       + (f" (no {', '.join(missing)})" if missing else ""))
        if missing:
            fixes.append(f"add {missing[0].lower()} to the {s.name.split()[0].lower()}")
    if s.chord_changes_per_bar < 0.6 * rest["moves"] or (len(s.chords) <= 1 and s.bars >= 4):
        reasons.append(f"its harmony hardly moves ({' '.join(s.chords) or 'no chords'}, "
                       f"{s.chord_changes_per_bar:g} changes a bar against {rest['moves']:.2f})")
        fixes.append("new chord progression")
    reasoning = [_describe(s), f"The rest of the song: {rest['notes']:.1f} notes a bar, velocity {rest['velocity']:.0f}, "
                 f"{rest['parts']:.1f} parts, {rest['moves']:.2f} chord changes a bar, energy {rest['energy']:.2f}"]
    if not reasons:
        return reasoning, (f"By the figures the {s.name} is not flatter than the rest ({_describe(s)}); if it still "
                           "feels flat, try 'brighter' or 'more syncopated' there.")
    advice = "; ".join(f"'{f}'" for f in dict.fromkeys(fixes)) or "'more energy'"
    return reasoning, f"The {s.name} ({_bars(s)}) feels flat because " + "; ".join(reasons) + f". To lift it, try {advice}."


def _overview(a: Analysis, s: SectionFigures | None) -> tuple[list[str], str]:
    if s is not None:
        return [_describe(s)], _describe(s) + "."
    parts = ", ".join(p.name for p in a.parts) or "no tracks yet"
    return [f"{len(a.sections)} sections, {len(a.parts)} tracks"], (
        f"{a.name}: {a.tempo:g} BPM, {a.key or a.key_heard or 'no key'}, {a.time_signature}, {a.bars} bars; {parts}.")


Topic = Callable[[Analysis, SectionFigures | None], tuple[list[str], str]]
TOPICS: tuple[tuple[str, re.Pattern[str], Topic], ...] = (
    ("flat", re.compile(r"\b(?:flat|boring|dull|lifeless|weak|thin|dead|static|samey|drags?|lacks?|missing|"
                        r"doesn'?t (?:work|hit|land)|too quiet|energy)\b", re.I), _flat),
    ("chords", re.compile(r"\b(?:chords?|progressions?|harmon(?:y|ies)|changes)\b", re.I), _chords),
    ("key", re.compile(r"\b(?:key|scale|tonality|tonic|mode)\b", re.I), _key),
    ("metre", re.compile(r"\b(?:metre|meter|time signature|time-signature|beats (?:per|a|in a) bar|"
                         r"what time is)\b", re.I), _metre),
    ("tempo", re.compile(r"\b(?:tempo|bpm|how fast|how slow|speed|how long)\b", re.I), _tempo),
    ("form", re.compile(r"\b(?:sections?|structure|form|bars|arrangement)\b", re.I), _form),
    ("parts", re.compile(r"\b(?:instruments?|tracks?|parts|who plays|playing|sounds?)\b", re.I), _parts),
    ("mix", re.compile(r"\b(?:loud|quiet|volume|levels?|mix|pan)\b", re.I), _mix),
)
"""Topic → the words that ask about it → how it is answered (first match wins)."""


def _missing_section(figures: Analysis, question: str) -> str | None:
    """The kind of section a question names that the song does not have ("the bridge" in a
    song of verses and choruses), so the answer says so before it answers about the song."""
    low = question.lower()
    return next((kind for kind, words in SECTION_WORDS.items()
                 if any(re.search(r"\b" + re.escape(w.removeprefix("the ")) + r"\b", low) for w in words)), None)


def analysis_context(project: Project) -> dict[str, Any]:
    """The figures a language model answers from."""
    return analyse(project).to_json()


def answer(project: Project, question: str) -> Answer:
    """Answer `question` from the project's figures (see the module docstring)."""
    figures = analyse(project)
    section = figures.section(question)
    topic, fn = next(((name, fn) for name, regex, fn in TOPICS if regex.search(question)), ("overview", _overview))
    reasoning, content = fn(figures, section)
    missing = _missing_section(figures, question) if section is None else None
    if missing:
        names = ", ".join(x.name for x in figures.sections)
        content = f"This song has no {missing} (its sections are {names}). " + content
    return Answer(topic=topic, reasoning=tuple(reasoning), content=content,
                  figures={"section": section.name if section else None, "key": figures.key,
                           "keyHeard": figures.key_heard, "tempo": figures.tempo, "bars": figures.bars})

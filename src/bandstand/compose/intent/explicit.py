"""Explicit parameters, constraints and structure hints read from a prompt with patterns.

Each finder returns what it found and the character spans it used, so the
lexicon scan that runs afterwards does not read "no drums except kick" as a
request for drums.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from bandstand.craft.requests import BPM, BPM_RANGE
from bandstand.score import TEMPO_RANGE

MODES = ("major", "minor", "dorian", "phrygian", "lydian", "mixolydian", "aeolian", "locrian", "ionian",
         "harmonic minor", "melodic minor")
_MODE_WORDS = {"m": "minor", "min": "minor", "minor": "minor", "maj": "major", "major": "major",
               "aeolian": "minor", "ionian": "major"}
_MODE_RE = "|".join(sorted((m for m in (*MODES, *_MODE_WORDS)), key=len, reverse=True))
_ACC = r"(?:[#♯b♭]|[\s-]?sharp|[\s-]?flat)"
_ACC_NORMAL = {"#": "#", "♯": "#", "b": "b", "♭": "b", "sharp": "#", "-sharp": "#", "flat": "b", "-flat": "b"}

CONSTRAINTS: tuple[tuple[str, str], ...] = (
    (r"\bno drums? (?:except|but|other than|apart from|besides|save) (?:for )?(?:the |a )?kicks?(?: drums?)?", "only_kick"),
    (r"\b(?:only|just) (?:the |a )?kicks?(?: drums?)?\b|\bkick[- ]only\b", "only_kick"),
    (r"\b(?:no|without) (?:any )?(?:drums?|percussion|beat)\b|\bdrumless\b|\bbeatless\b", "no_drums"),
    (r"\b(?:no|without) (?:any )?(?:reverb|verb)\b|\bbone[- ]dry\b", "no_reverb"),
    (r"\b(?:no|without) (?:a |any )?(?:chorus|choruses|hook)\b", "no_chorus"),
    (r"\b(?:no|without) (?:any )?bass(?:line|lines)?\b", "no_bass"),
    (r"\b(?:no|without) (?:any )?(?:lead|melody|melodies|topline)\b", "no_lead"),
    (r"\b(?:no|without) (?:any )?pads?\b", "no_pad"),
    (r"\b(?:no|without) (?:any )?(?:chords|keys|piano)\b", "no_chords"),
    (r"\b(?:no|without) (?:any )?(?:hi-?hats?|hats)\b", "no_hihats"),
    (r"\b(?:no|without) (?:any )?808s?\b", "no_808"),
    (r"\b(?:no|without) (?:any )?(?:delay|echo)\b", "no_delay"),
    (r"\b(?:no|without) (?:any )?(?:vocals?|singing|vocal chops)\b|\binstrumental only\b", "no_vocals"),
    (r"\b(?:no|without) (?:any )?swing\b|\bstraight (?:eighths|16ths|sixteenths|feel|time)\b|\bquantized\b", "no_swing"),
    (r"\b(?:no|without) (?:any |a )?drops?\b", "no_drop"),
    (r"\b(?:no|without) (?:an? )?intro\b", "no_intro"),
)

# Constraints that are also structure hints (the arrangement reads hints).
CONSTRAINT_HINTS = {"no_chorus": "no chorus", "no_drop": "no drop", "no_intro": "no intro"}

# Words that ask for odd metres without naming one ("odd time signatures", "in odd meters"): the
# song changes metre between its sections, as a prog epic does (`section_metres`).
ODD_METRE_WORDS = (r"\b(?:odd|irregular|asymmetric(?:al)?|unusual|complex|shifting|changing)[- ]"
                   r"(?:time[- ]signatures?|met(?:re|er)s?|time[- ]feels?)\b|\bodd[- ](?:time|metered)\b")
ODD_METRES: tuple[tuple[int, int], ...] = ((7, 8), (5, 4))
"""The odd metres prog and math rock live in: the seed makes one the song's home (its verses)."""
RELEASE_METRE = (4, 4)
"""The even metre an odd-metre song releases into (a chorus, or a bridge, in four)."""
HOME_SECTIONS = ("intro", "verse", "head", "loop", "outro")
"""The section kinds in the home metre; the lift (chorus, hook, drop, prechorus) takes one of the
others and the departures (bridge, solo, break, build) the last one."""
LIFT_SECTIONS = ("chorus", "hook", "drop", "prechorus")
DEPARTURE_SECTIONS = ("bridge", "solo", "break", "build")


def section_metres(seed: int) -> tuple[tuple[int, int], dict[str, tuple[int, int]]]:
    """The home metre and the metre of every section kind of a song in odd metres, by the seed:
    verses in one odd metre, the lift in 4/4 or the other odd metre, the departures in the third
    (verse 7/8, chorus 4/4, bridge 5/4 — or verse 5/4, chorus 7/8, bridge 4/4)."""
    rng = random.Random(f"metre:{seed}")
    home = ODD_METRES[rng.randrange(len(ODD_METRES))]
    others = [RELEASE_METRE, *(m for m in ODD_METRES if m != home)]
    lift = others.pop(rng.randrange(len(others)))
    away = others[0]
    out = dict.fromkeys(HOME_SECTIONS, home) | dict.fromkeys(LIFT_SECTIONS, lift)
    return home, out | dict.fromkeys(DEPARTURE_SECTIONS, away)

STRUCTURE_HINTS: tuple[tuple[str, str], ...] = (
    (r"\b(?:4|four)[- ]?on[- ]?(?:the[- ])?floor\b|\b4otf\b", "four-on-the-floor"),
    (r"\bhalf[- ]?time\b", "half-time"),
    (r"\bdouble[- ]?time\b", "double-time"),
    (r"\bloop[- ]?based\b|\blooped\b|\blooping\b|\bone[- ]loop\b|\bloop that\b", "loop-based"),
    (r"\b(?:long|extended|slow[- ]building|slow) intro\b", "long intro"),
    (r"\bshort intro\b", "short intro"),
    (r"\b(?:long|extended) outro\b", "long outro"),
    (r"\bbuild[- ]?ups?\b|\bbuilds? up\b|\bbuilding\b", "build"),
    (r"\bbreak[- ]?downs?\b", "breakdown"),
    (r"\bfade[- ]?out\b|\bfades? out\b|\bfading out\b", "fade out"),
    (r"\bwith a bridge\b|\ba bridge\b", "bridge"),
    (r"\b(?:big |huge |massive |hard )?drops?\b", "drop"),
    (r"\bverse[- ]chorus\b|\bsong structure\b|\bproper song\b", "verse-chorus"),
)


FORM_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bloops?\b(?![- ]?pedals?)", "loop-based"),
    (r"\banthems?\b|\banthemic\b", "anthem"),
    (r"\bintro[- ]only\b|\b(?:just|only) (?:an |the )?intro\b|\bnothing but (?:an |the )?intro\b", "intro only"),
)
"""Form words: a loop (not a loop pedal) is a loop form; an anthem has its big chorus once more
(after a build); an intro-only piece is the intro and nothing else. Read without taking the words
(they still say what kind of thing is wanted: an anthem with no genre named is EDM)."""


@dataclass(slots=True)
class Explicit:
    """What the patterns found, with the spans they consumed."""

    bpm: float | None = None
    bpm_out_of_range: float | None = None
    tempo_bias: int = 0
    tempo_words: list[tuple[str, int]] = field(default_factory=list)  # (word, its pull) as written
    root: str | None = None
    mode: str | None = None
    unknown_key: str | None = None
    bars: tuple[int, int] | None = None
    minutes: float | None = None
    bad_bars: int | None = None
    time_signature: tuple[int, int] | None = None
    odd_metre: bool = False  # "odd time signatures": a metre that is not 2, 3 or 4 beats, chosen by the seed
    constraints: list[tuple[str, str]] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)


def normalize_root(letter: str, accidental: str | None) -> str:
    """'e', 'flat' → 'Eb'."""
    acc = _ACC_NORMAL.get((accidental or "").strip(" -").lower(), "")
    return letter.upper() + acc


def _take(text: str, ex: Explicit, pattern: str, flags: int = re.IGNORECASE) -> list[re.Match[str]]:
    found = []
    for m in re.finditer(pattern, text, flags):
        if any(a < m.end() and m.start() < b for a, b in ex.spans):
            continue
        ex.spans.append((m.start(), m.end()))
        found.append(m)
    return found


def _tempo(text: str, ex: Explicit) -> None:
    for m in _take(text, ex, BPM_RANGE.pattern):
        ex.bpm = (float(m.group(1)) + float(m.group(2))) / 2
    for m in _take(text, ex, BPM.pattern):
        value = float(m.group(1) or m.group(2))
        if TEMPO_RANGE[0] <= value <= TEMPO_RANGE[1]:
            ex.bpm = value
        else:
            ex.bpm_out_of_range = value
    for m in _take(text, ex, r"(?:^|,)\s*(\d{2,3})\s*(?=,|$)|\bat (\d{2,3})\b(?!\s*(?:bars?|measures?|%|min|sec|s\b|am\b|pm\b|[:.]))"):
        value = float(m.group(1) or m.group(2))
        if ex.bpm is None and 50 <= value <= 220:
            ex.bpm = value
    # A tempo word moves the genre's tempo to the end of its range it names (±2: the ends); a
    # ballad is slow whatever the genre (it sits at the bottom of the range, or below a fast one).
    words = ((r"\bballads?\b", -3),  # below the range: a jazz ballad at 75, not at jazz's 100–200
             (r"\b(?:slow|slower|slowed|sluggish|crawling|very slow)\b", -2),
             (r"\b(?:fast|faster|uptempo|up-tempo|quick|rapid|frantic|speedy|breakneck)\b", 2))
    for pattern, bias in words:
        free = [m for m in re.finditer(pattern, text, re.IGNORECASE)
                if not any(m.start() >= a and m.end() <= b for a, b in ex.spans)]
        if free:
            ex.tempo_bias += bias
            ex.tempo_words.append((free[0].group(0), bias))
    ex.tempo_words.sort(key=lambda wb: text.lower().find(wb[0].lower()))  # as the prompt says them


def _key(text: str, ex: Explicit) -> None:
    mode_group = rf"(?:\s*(?P<mode>{_MODE_RE})\b)?"
    patterns = (
        (rf"\bkey(?:\s+of|\s+in|\s*[:=])?\s+(?P<root>[A-Ga-g])(?P<acc>{_ACC})?(?:\s*(?P<mode>{_MODE_RE}))?\b", re.IGNORECASE),
        (rf"\b(?P<root>[A-G])(?P<acc>{_ACC})?\s*(?P<mode>minor|major|min|maj|dorian|phrygian|lydian|mixolydian|aeolian|locrian|ionian|harmonic minor|melodic minor)\b", 0),
        (r"(?<![\w#])(?P<root>[A-G])(?P<acc>[#♯b♭]?)(?P<mode>m|min|maj)\b", 0),
        (rf"\b(?:in|on)\s+(?P<root>[A-G])(?P<acc>[#♯b♭])?{mode_group}(?=[\s,.;!?]|$)", 0),
    )
    for pattern, flags in patterns:
        for m in _take(text, ex, pattern, flags):
            if ex.root is not None:
                continue
            ex.root = normalize_root(m.group("root"), m.group("acc"))
            mode = (m.group("mode") or "").lower()
            if mode:
                ex.mode = _MODE_WORDS.get(mode, mode)
    for m in _take(text, ex, rf"\bkey(?:\s+of|\s+in|\s*[:=])\s*([A-Za-z][\w#♯♭-]*(?:\s+(?:{_MODE_RE})\b)?)",
                   re.IGNORECASE):
        if ex.root is None:
            ex.unknown_key = m.group(1)
    # a letter that names no note ("in H# minor"): a warning naming it, never a silent choice
    for m in _take(text, ex, r"(?<![\w#])([H-Z][#♯b♭]?\s*(?:minor|major|min|maj))\b"):
        if ex.root is None and ex.unknown_key is None:
            ex.unknown_key = m.group(1)
    if ex.mode is None:
        mode_only = (rf"\b(?:in\s+(?:a\s+|the\s+)?)?(?P<mode>{_MODE_RE})\s+(?:key|mode|scale|tonality)\b"
                     r"|\bin\s+(?P<mode2>dorian|phrygian|lydian|mixolydian|locrian)\b")
        for m in _take(text, ex, mode_only):
            word = (m.group("mode") or m.group("mode2") or "").lower()
            ex.mode = _MODE_WORDS.get(word, word)


def _length(text: str, ex: Explicit) -> None:
    for m in _take(text, ex, r"\b(\d{1,7})\s*(?:-|–|to)\s*(\d{1,7})[- ]?bars?\b"):
        lo, hi = sorted((int(m.group(1)), int(m.group(2))))
        if lo >= 4 and hi <= 512:
            ex.bars = (lo, hi)
        else:
            ex.bad_bars = hi
    for m in _take(text, ex, r"\b(\d{1,7})[- ]?(?:bars?|measures?)\b(?![- ]*blues)"):  # a 12-bar blues is a form
        n = int(m.group(1))
        if 4 <= n <= 512:
            ex.bars = (n, n)
        else:
            ex.bad_bars = n
    for m in _take(text, ex, r"\b(\d{1,2}(?:\.\d+)?)[- ]?(?:minutes?|mins?)\b"):
        ex.minutes = float(m.group(1))
    for m in _take(text, ex, r"\b(\d{2,3})[- ]?(?:seconds?|secs?)\b"):
        ex.minutes = int(m.group(1)) / 60
    if ex.bars is None and ex.minutes is None:
        if _take(text, ex, r"\b(?:short|quick|brief|tiny|little)\b(?! intro)"):
            ex.bars = (16, 32)
        elif _take(text, ex, r"\b(?:long|extended|epic[- ]length|full[- ]length)\b(?! (?:intro|outro))"):
            ex.bars = (96, 128)


def _time_signature(text: str, ex: Explicit) -> None:
    for m in _take(text, ex, r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])"):
        num, den = int(m.group(1)), int(m.group(2))
        if 1 <= num <= 15 and den in (2, 4, 8, 16):
            ex.time_signature = (num, den)
    if ex.time_signature is None and _take(text, ex, r"\bin three\b|\btriple meter\b"):
        ex.time_signature = (3, 4)
    if ex.time_signature is None and _take(text, ex, ODD_METRE_WORDS):
        ex.odd_metre = True


def find_explicit(text: str, reserved: list[tuple[int, int]] | None = None) -> Explicit:
    """Read explicit tempo, key, mode, length, meter, constraints and hints from `text`,
    leaving the `reserved` spans (artist names) alone."""
    ex = Explicit(spans=list(reserved or []))
    reserved_count = len(ex.spans)
    for pattern, kind in CONSTRAINTS:
        for m in _take(text, ex, pattern):
            ex.constraints.append((kind, m.group(0)))
            hint = CONSTRAINT_HINTS.get(kind)
            if hint and hint not in ex.hints:
                ex.hints.append(hint)
    _tempo(text, ex)
    _time_signature(text, ex)
    _key(text, ex)
    for pattern, hint in STRUCTURE_HINTS:
        for m in _take(text, ex, pattern):
            if hint == "drop" and m.group(0).lower().startswith("drop"):
                at = re.match(r"\s*(?:at|on|in)\s+bar\s+(\d+)", text[m.end():], re.IGNORECASE)
                if at:
                    hint = f"drop at bar {at.group(1)}"
                    ex.spans.append((m.end(), m.end() + at.end()))
            if hint not in ex.hints:
                ex.hints.append(hint)
    for pattern, hint in FORM_WORDS:
        if hint not in ex.hints and any(not any(a < m.end() and m.start() < b for a, b in ex.spans)
                                        for m in re.finditer(pattern, text, re.IGNORECASE)):
            ex.hints.append(hint)
    _length(text, ex)
    del ex.spans[:reserved_count]
    return ex

"""The word tables of the request parser: parts, sections, knob words, energy,
tempo, presence, mix and praise words, the key/tempo/metre/chord patterns, the
examples offered when a request is not understood, and the caller's
`Vocabulary` (instruments, genres) compiled into patterns. Data only; the
rules that read them are in `_request_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_CHARS = 500


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Words the caller teaches the parser: instruments (word → role, GM program or None)
    and genre names. The studio passes compose's lexicons; the jam passes none."""

    instruments: tuple[tuple[str, str, int | None], ...] = ()
    genres: tuple[str, ...] = ()


ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "drums": ("drums", "drum", "drum kit", "drum part", "beat", "kit"),
    "bass": ("bass", "bassline", "bass line", "bass part", "low end"),
    "sub_bass": ("sub bass", "sub-bass", "sub", "808", "808s"),
    "chords": ("chords", "chord part", "keys", "comping"),
    "lead": ("lead", "melody", "topline", "lead line"),
    "pad": ("pad", "pads"),
    "arp": ("arp", "arps", "arpeggio", "arpeggios"),
    "percussion": ("percussion", "perc", "shakers"),
    "counter_melody": ("counter melody", "countermelody", "counter-melody"),
}
# Section kinds; ambiguous words (the drop, the break) count only with "the" before them.
SECTION_WORDS: dict[str, tuple[str, ...]] = {
    "intro": ("intro",), "verse": ("verses", "verse"), "prechorus": ("pre-chorus", "prechorus", "pre chorus"),
    "chorus": ("choruses", "chorus", "refrain"), "bridge": ("bridge", "middle eight", "middle 8"),
    "outro": ("outro",), "drop": ("the drops", "the drop"), "build": ("the build-up", "the buildup", "the build"),
    "break": ("the breakdown", "breakdown", "the break"), "hook": ("the hooks", "the hook"), "head": ("the head",),
}
# Knob words → deltas (first match in each row's clause wins; rows are tried in order).
KNOB_WORDS: tuple[tuple[str, dict[str, float]], ...] = (
    (r"(?:much|way|a lot) busier|way more notes|lots more notes", {"density": 0.5}),
    (r"(?:a (?:little|bit|touch)|slightly) busier|a few more notes", {"density": 0.15}),
    (r"more complex", {"density": 0.3, "complexity": 0.3}),
    (r"busier|more notes|denser|fill (?:it )?(?:up|out)|more going on|go wild|more active|more movement"
     r"|too (?:sparse|simple|empty|bare)", {"density": 0.3}),
    (r"(?:much|way|a lot) simpler|way fewer notes", {"density": -0.5}),
    (r"(?:a (?:little|bit|touch)|slightly) (?:simpler|less busy)", {"density": -0.15}),
    (r"simpl(?:er|ify|e)|less busy|fewer notes|strip (?:it )?(?:back|down)|sparser|thin (?:it )?out|minimal"
     r"|too busy|too (?:much going on|many notes)", {"density": -0.3}),
    (r"darker|moodier|sadder|gloomier|murkier|less bright|too bright|duller", {"brightness": -0.3}),
    (r"brighter|happier|shinier|sparkl(?:y|ier)|airier|too dark|less dark", {"brightness": 0.3}),
    (r"more syncopat\w*|funkier|more off-?beat|syncopate(?: it)?", {"syncopation": 0.3}),
    (r"less syncopat\w*|more on the beat|squarer", {"syncopation": -0.3}),
    (r"straight(?:en(?: it)?(?: out)?)?|no swing|un-?swing|less swing", {"swing": -1.0}),
    (r"swing(?:y|ing)?|shuffle|swung|more swing", {"swing": 0.5}),
    (r"higher(?! energy| tempo)|up an octave|higher register", {"register": 0.3}),
    (r"(?<!the )lower(?! the| energy| tempo)|down an octave|lower register", {"register": -0.3}),
    (r"more legato|smoother|longer notes|more sustain(?:ed)?", {"articulation": 0.3}),
    (r"more staccato|choppier|shorter notes|punchier|tighter", {"articulation": -0.3}),
    (r"more adventurous|more interesting|jazzier|more colou?rful|richer|more tension|weirder",
     {"complexity": 0.3}),
    (r"plainer|less adventurous|more basic|less jazzy|less weird", {"complexity": -0.3}),
)
# Time feel words → the feel (StyleOverride.time_feel).
FEEL_WORDS: tuple[tuple[str, float], ...] = (
    (r"double[- ]time|twice as fast", 2.0),
    (r"half[- ]time|half as fast", 0.5),
    (r"(?:normal|regular|straight) time|back to (?:normal|regular) time", 1.0),
)
# Energy words → steps of a tenth (checked in order; the first match wins).
ENERGY_WORDS: tuple[tuple[str, int], ...] = (
    (r"(?:much|way|a lot) more energy|go crazy|explode|way bigger|much bigger", 3),
    (r"more energy|energy up|pump it(?: up)?|hype|intens(?:e|ify)|harder|louder|build(?: it)? up|turn it up"
     r"|more power|more drive|lift it|bigger|more intense", 2),
    (r"a (?:bit|little) more energy|push (?:it|a bit)", 1),
    (r"(?:much|way|a lot) less energy|almost silent", -3),
    (r"less energy|energy down|calm(?: it)? down|chill(?: out)?|softer|quieter|mellow|gentle|relax"
     r"|bring it down|cool it|turn it down|smaller|less intense", -2),
)
# Tempo words → a change in BPM.
TEMPO_WORDS: tuple[tuple[str, float], ...] = (
    (r"(?:much|way|a lot) faster", 20.0),
    (r"faster|speed(?:\s+it)?\s+up|pick up the tempo|up ?tempo", 10.0),
    (r"(?:much|way|a lot) slower", -20.0),
    (r"slower|slow(?:\s+it)?\s+down|drag it|down ?tempo", -10.0),
)
# Tempo words → a factor of the tempo ("half time" is a feel, see FEEL_WORDS: the tempo stays).
TEMPO_FACTORS: tuple[tuple[str, float], ...] = (
    (r"half (?:the )?(?:tempo|speed)|half[- ]speed", 0.5),
    (r"double (?:the )?(?:tempo|speed)|double[- ]speed|twice the (?:tempo|speed)", 2.0),
)
DRUM_PIECE_WORDS: tuple[tuple[str, str], ...] = (
    (r"hi-?hats?|hi hats?|hihats?|hats", "hats"), (r"kick drums?|kicks?|bass drums?", "kick"),
    (r"snares?|claps?|rimshots?|side ?sticks?", "snare"), (r"cymbals?|crash(?:es)?|rides?", "cymbals"),
    (r"toms?|tom-?toms?", "toms"), (r"shakers?|congas?|bongos?|tambourines?|cowbells?", "percussion"),
)
"""Words for the pieces of a drum kit (`score.DRUM_PIECES`)."""
PRESENCE_WORDS: tuple[tuple[str, bool], ...] = (
    (r"come back|back in|rejoin|play again|you'?re back|bring (?:it|them|him|her) back", True),
    (r"drop out|lay out|sit (?:this one )?out|take a break|stop playing|go quiet|tacet", False),
)
MIX_WORDS: tuple[tuple[str, float], ...] = (
    (r"(?:much|way|a lot) louder", 1.6), (r"(?:much|way|a lot) (?:quieter|softer)", 0.6),
    (r"(?:way|much|far) too loud", 0.6), (r"(?:way|much|far) too (?:quiet|soft)", 1.6),
    (r"(?:a (?:bit|little) )?too loud|(?:is|are) (?:a (?:bit|little) )?(?:loud|overpowering|drowning)", 0.8),
    (r"(?:a (?:bit|little) )?too (?:quiet|soft)|(?:can'?t|cannot) hear|buried|lost in the mix", 1.25),
    (r"(?:a (?:bit|little) )?louder|up in the mix|turn(?:ed)? up", 1.25),
    (r"(?:a (?:bit|little) )?(?:quieter|softer)|down in the mix|turn(?:ed)? down", 0.8),
    (r"(?:turn|bring|pull)\s+(?:[\w'-]+\s+){0,4}?(?:down|back)\b", 0.8),
    (r"(?:turn|bring|push)\s+(?:[\w'-]+\s+){0,4}?up\b", 1.25),
)
PRAISE = re.compile(
    r"^(?:(?:that'?s|this is|it'?s|sounds|that sounds|it sounds)\s+)?(?:(?:so|really|very|pretty|just)\s+)?"
    r"(?:nice|great|good|perfect|awesome|amazing|beautiful|lovely|cool|sick|fire|dope|brilliant|excellent"
    r"|fantastic|wonderful|gorgeous|sweet|love (?:it|this|that)|i love (?:it|this|that)|yes+|yeah|wow"
    r"|well done|good job|nailed it|thanks?|thank you|👍|🔥|❤️)(?:\s+(?:now|already|as it is))?$")
_MODES = {
    "major": "major", "maj": "major", "ionian": "major", "minor": "minor", "min": "minor", "m": "minor",
    "aeolian": "minor", "dorian": "dorian", "phrygian": "phrygian", "lydian": "lydian",
    "mixolydian": "mixolydian", "locrian": "locrian",
}
_MODE_ALT = "|".join(sorted(_MODES, key=len, reverse=True))
_KEY_TRIGGER = re.compile(
    r"\b(?:switch|change|move|go|modulate|key|transpose|shift)(?:\s+(?:the\s+)?key)?\s*(?:to|of|into|:)?\s*"
    r"([A-Ga-g])\s*([#b♯♭]|sharp|flat)?[\s-]*(" + _MODE_ALT + r")?\b", re.I)
_KEY_BARE = re.compile(r"(?<![\w#])([A-G])([#b♯♭]?)\s+((?i:major|minor|dorian|phrygian|lydian|mixolydian|locrian))\b")
_KEY_IN = re.compile(r"\bin\s+([A-G])([#b♯♭]?)\s*(" + _MODE_ALT + r")?\b")
_MODE_ONLY = re.compile(
    r"\b(?:(?:switch|change|go|move|modulate)\s+(?:it\s+)?(?:to|into)|make\s+it)\s+(?:the\s+)?"
    r"(major|minor|dorian|phrygian|lydian|mixolydian|locrian|aeolian|ionian)\b(?:\s+mode)?", re.I)
_TRANSPOSE = re.compile(
    r"\b(?:(?:transpose|move|shift|take|bring)\s+(?:it|the (?:song|track|tune)|everything)?\s*)?(up|down)\s+(?:by\s+)?"
    r"(a|an|one|two|three|four|five|\d{1,2})?\s*(semitones?|half[- ]steps?|whole[- ]steps?|tones?)\b", re.I)
_CHORDS = re.compile(
    r"\b(?:chords?|progression|changes)\s*(?:to|:|=|are|is)?\s*((?:[A-G][#b♯♭]?[\w#°ø+/()-]*[\s,|–-]*)+)", re.I)
BPM = re.compile(r"\b(\d{1,6}(?:\.\d+)?)\s*-?\s*(?:bpm|beats per minute|b\.p\.m\.?)"
                 r"|\b(?:tempo|bpm)\s*(?:to|of|at|=|:|is|around|~)?\s*(\d{1,6}(?:\.\d+)?)\b", re.I)
"""A tempo in words: "96 bpm", "96 beats per minute", "tempo 96", "bpm: 96.5" (the number is
group 1 or group 2). The one reading of a tempo: edit requests, prompts and compose requests."""
BPM_RANGE = re.compile(r"\b(\d{1,4}(?:\.\d+)?)\s*(?:-|–|to)\s*(\d{1,4}(?:\.\d+)?)\s*bpm\b", re.I)
"""A tempo range in words: "100-110 bpm", "90 to 100 BPM" (its ends are groups 1 and 2)."""
_TEMPO_TO = re.compile(r"\b(?:slow(?:\s+it)?\s+down|speed(?:\s+it)?\s+up|take it|bring it|set it)\s+(?:down\s+|up\s+)?"
                       r"to\s+(\d{1,6})\b", re.I)
_TEMPO_BY = re.compile(r"\b(faster|slower|speed(?:\s+it)?\s+up|slow(?:\s+it)?\s+down)\s+by\s+(\d{1,3})(?:\s*bpm)?\b", re.I)
_TIME_SIG = re.compile(r"\b([2-9]|1[0-5])\s*/\s*(4|8)\b(?:\s*time)?")
_WALTZ = re.compile(r"\b(?:waltz|in three)\b", re.I)
_ENERGY_ABS = re.compile(r"\benergy\s*(?:to|at|=|:)?\s*(\d{1,6})(?:\s*/\s*10)?\b", re.I)
_BARS = re.compile(r"\b(?:from\s+)?bars?\s+(\d{1,5})\s*(?:-|–|—|to|through|thru|until)\s*(?:bar\s+)?(\d{1,5})\b"
                   r"|\bbar\s+(\d{1,5})\b", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_CLAUSES = re.compile(r"[;!?]+|\.(?!\d)|,\s*(?:and\s+|then\s+|but\s+)?|\s+(?:and then|then|but|and also|also|and|plus)\s+",
                      re.I)
EXAMPLES: tuple[str, ...] = (
    "make the bass busier", "simpler drums", "darker", "brighter chords", "more energy in the chorus",
    "make the chorus bigger", "change the key to F# minor", "switch to dorian", "slow it down to 85",
    "faster", "in 6/8", "double-time drums in the bridge", "half-time feel", "add a string pad to the chorus",
    "swap the lead for a saxophone", "remove the pad", "regenerate the lead", "new chord progression",
    "try something different", "keep the drums", "the bass louder", "make it house",
)


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_ROLE_BY_WORD = {w: role for role, words in ROLE_WORDS.items() for w in words}
_SECTION_BY_WORD = {w: kind for kind, words in SECTION_WORDS.items() for w in words}
_SECTION_RE = re.compile(
    r"\b(?:(?:in|during|for|on|to|at|through|into|over)\s+)?(?:(?:the|every|each|all|both)\s+)?"
    r"(?:(?:first|second|third|last|final)\s+)?(" + _alternation(_SECTION_BY_WORD) + r")\b", re.I)


class _Words:
    """The vocabulary compiled into regular expressions (one per vocabulary, cached)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.instrument: dict[str, tuple[str, int | None]] = {}
        for word, role, program in vocabulary.instruments:
            w = word.lower()
            self.instrument.setdefault(w, (role, program))
            if w.endswith("s") and len(w) > 3 and w != "keys":  # "strings" → "string pad"; "keys" ≠ "key"
                self.instrument.setdefault(w[:-1], (role, program))
        things = {**{w: (r, None) for w, r in _ROLE_BY_WORD.items()}, **self.instrument}
        self.thing_by_word: dict[str, tuple[str, int | None]] = things
        alt = self.things = _alternation(things)  # every word of a part or an instrument, longest first
        self.thing = r"(?:(?:a|an|some|the|another|more)\s+)?((?:[\w-]+\s+)?(?:" + alt + r"))"
        self.instrument_alt = _alternation(self.instrument) if self.instrument else r"(?!x)x"
        self.genres = {g.lower(): g for g in vocabulary.genres}
        self.genre_alt = _alternation(self.genres) if self.genres else r"(?!x)x"


_COMPILED: dict[Vocabulary, _Words] = {}


def _words(vocabulary: Vocabulary) -> _Words:
    words = _COMPILED.get(vocabulary)
    if words is None:
        words = _COMPILED[vocabulary] = _Words(vocabulary)
    return words

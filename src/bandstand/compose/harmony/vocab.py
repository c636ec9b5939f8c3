"""Progression vocabularies per harmony family.

Each progression is a string of ``degree:quality`` tokens, one chord per bar.
The degree is a Roman numeral measured in semitones from the tonic (``bVI``
is a minor sixth above it, whatever the mode); its case only documents the
chord's quality, which the suffix after the colon spells exactly as a chord
symbol does (``m9``, ``maj7``, ``7sus4``, empty for a major triad). Major-ish
modes (major, lydian, mixolydian) use the ``major`` lists, the rest
``minor``.
"""

from __future__ import annotations

DEGREE_SEMITONES: dict[str, int] = {
    "I": 0, "#I": 1, "bII": 1, "II": 2, "#II": 3, "bIII": 3, "III": 4, "IV": 5, "#IV": 6, "bV": 6,
    "V": 7, "#V": 8, "bVI": 8, "VI": 9, "bVII": 10, "VII": 11,
}
MAJOR_MODES = frozenset({"major", "ionian", "lydian", "mixolydian", "lydian dominant", "major pentatonic"})

VOCAB: dict[str, dict[str, tuple[str, ...]]] = {
    "neosoul": {
        "major": ("IV:maj9 iii:m7 ii:m9 I:maj9", "I:maj9 vi:m9 ii:m11 V:7sus4",
                  "ii:m9 iii:m7 IV:maj9 V:9sus4", "I:maj7 iii:m7 vi:m9 IV:maj9"),
        "minor": ("i:m9 bVII:add9 bIII:maj9 iv:m7", "i:m11 iv:m9 bVII:9 bIII:maj7",
                  "i:m9 bVI:maj9 iv:m9 v:m7", "iv:m9 bVII:9 i:m9 bVI:maj7"),
    },
    "jazz": {
        "major": ("ii:m9 V:13 I:maj9 VI:7b9", "I:maj7 vi:m7 ii:m7 V:7", "iii:m7 VI:7 ii:m9 V:13",
                  "I:maj9 IV:maj7 iii:m7 VI:7 ii:m7 V:7 I:6 V:7"),
        "minor": ("ii:m7b5 V:7b9 i:m9 i:m6", "i:m7 iv:m7 ii:m7b5 V:7b9", "i:m9 bVI:maj7 ii:m7b5 V:7",
                  "i:m9 iv:m9 bVII:13 bIII:maj7"),
    },
    "trap": {
        "major": ("vi:m IV: I: V:", "vi:m iii:m IV: V:", "I: iii:m vi:m IV:"),
        "minor": ("i:m bVI: bIII: bVII:", "i:m iv:m bVI: V:", "i:m i:m bVI: V:", "i:m bVI: iv:m V:"),
    },
    "house": {
        "major": ("I:maj7 vi:m7 ii:m7 V:7sus4", "IV:maj7 V:sus4 iii:m7 vi:m9", "ii:m9 V:9sus4 I:maj9 vi:m7",
                  "I:maj9 iii:m7 IV:maj9 V:7sus4"),
        "minor": ("i:m7 bVII:add9 bVI:maj7 v:m7", "i:m9 iv:m7 bVII:7sus4 bIII:maj7", "i:m7 iv:m9 v:m7 i:m7"),
    },
    "pop": {
        "major": ("I: V: vi:m IV:", "vi:m IV: I: V:", "I: vi:m IV: V:", "IV: I: V: vi:m"),
        "minor": ("i:m bVI: bIII: bVII:", "i:m bVII: bVI: bVII:", "i:m iv:m bVI: bVII:", "i:m bIII: bVII: iv:m"),
    },
    "rock": {
        "major": ("I: bVII: IV: I:", "I: IV: V: V:", "vi:m IV: I: V:", "I: V: IV: I:"),
        "minor": ("i:m bVII: bVI: bVII:", "i:m bIII: bVII: IV:", "i:m bVI: bIII: bVII:", "i:m bVI: bVII: i:m"),
    },
    "lofi": {
        "major": ("ii:m9 V:9 I:maj7 vi:m7", "IV:maj7 iii:m7 vi:m9 I:maj7", "I:maj7 vi:m9 ii:m7 V:7",
                  "I:maj9 iii:m7 ii:m9 V:13"),
        "minor": ("i:m9 iv:m9 bVII:9 bIII:maj7", "ii:m7b5 V:7b9 i:m9 bVI:maj7", "i:m7 bVI:maj7 iv:m7 v:m7"),
    },
    "ambient": {
        "major": ("I:add9 IV:maj7 vi:m9 V:sus2", "I:maj7 II:add9 I:maj7 IV:maj7", "I:add9 iii:m7 IV:maj9 IV:maj9"),
        "minor": ("i:m9 bVI:maj7 bIII:add9 bVII:sus2", "i:m(add9) iv:m9 i:m(add9) bVI:maj9",
                  "i:m(add9) bVII:add9 bVI:maj7 bVII:sus2"),
    },
    "gospel": {
        "major": ("I:maj9 iii:m7 vi:m9 I:7 IV:maj9 #IV:dim7 ii:m9 V:13", "IV:maj9 iii:m7 ii:m9 I:maj9",
                  "I:maj7 VI:7 ii:m9 V:13sus4"),
        "minor": ("i:m9 iv:m9 bVII:13 bIII:maj9", "iv:m9 V:7b9 i:m9 bVI:maj7", "i:m9 bVI:maj9 bVII:13 i:m9"),
    },
    "blues": {  # the 12-bar: quick change (IV in bar 2) or not, the IV in bar 5 always
        "major": ("I:7 IV:7 I:7 I:7 IV:7 IV:7 I:7 I:7 V:7 IV:7 I:7 V:7",
                  "I:7 I:7 I:7 I:7 IV:7 IV:7 I:7 I:7 V:7 IV:7 I:7 V:7"),
        "minor": ("i:m7 iv:m7 i:m7 i:m7 iv:m7 iv:m7 i:m7 i:m7 bVI:7 V:7 i:m7 V:7",),
    },
    "latin": {
        "major": ("I:maj7 II:7 ii:m7 bII:7", "I:maj7 vi:m7 ii:m7 V:7", "I:6 ii:m7 V:7 I:6",
                  "I:maj7 #I:dim7 ii:m7 V:7"),
        "minor": ("i:m7 iv:m7 ii:m7b5 V:7b9", "i:m iv:m V:7 i:m", "i:m6 ii:m7b5 V:7 i:m6"),
    },
    "afrobeat": {
        "major": ("I:maj7 IV:maj7 vi:m7 V:", "I: IV: I: V:", "I:maj9 ii:m7 I:maj9 ii:m7"),
        "minor": ("i:m7 IV:9 i:m7 IV:9", "i:m7 bVII: bVI:maj7 bVII:", "i:m9 iv:m7 bVII:7 bIII:maj7"),
    },
    "edm": {
        "major": ("vi:m IV: I: V:", "I: V: vi:m IV:", "IV: V: vi:m I:"),
        "minor": ("i:m bVI: bIII: bVII:", "i:m bVII: bVI: bVII:", "i:m bVI: bVII:sus4 bVII:"),
    },
    "funk": {
        "major": ("I:9 IV:9 I:9 IV:9", "I:7 bVII: IV: I:7"),
        "minor": ("i:m7 IV:9 i:m7 IV:9", "i:m9 i:m9 bVII:9 IV:9", "i:m7 bIII:maj7 IV:7 i:m7"),
    },
    "techno": {  # one or two chords that evolve in sound, not in harmony
        "major": ("I:7sus4", "I:7sus4 I:7sus4 bVII:sus2 I:7sus4"),
        "minor": ("i:m7", "i:m9", "i:m(add9) i:m(add9) bVII:sus2 i:m(add9)"),
    },
    "cinematic": {  # plain triads that climb; the aeolian bVI–bVII–i
        "major": ("I: V: vi:m IV:", "I: iii:m IV: I:", "vi:m IV: I: V:"),
        "minor": ("i:m bVI: bIII: bVII:", "i:m iv:m bVI: V:", "i:m bVII: bVI: bVII:"),
    },
    "metal": {
        "major": ("I: bVII: IV: I:", "I: bIII: IV: I:"),
        "minor": ("i:m bVI: bVII: i:m", "i:m bII: i:m bVII:", "i:m bVII: bVI: V:"),
    },
    "punk": {
        "major": ("I: IV: V: IV:", "I: V: vi:m IV:", "I: IV: I: V:"),
        "minor": ("i:m bVI: bIII: bVII:", "i:m bVII: bVI: bVII:"),
    },
    "waltz": {
        "major": ("I: IV: V:7 I:", "I: vi:m ii:m V:7", "I: I: IV: V:7"),
        "minor": ("i:m iv:m V:7 i:m", "i:m bVI: iv:m V:7"),
    },
    "folk": {  # plain triads, the mixolydian bVII of a fiddle tune, the I–IV–I–V of a ballad
        "major": ("I: IV: I: V:", "I: bVII: IV: I:", "I: V: IV: I:", "I: vi:m IV: V:"),
        "minor": ("i:m bVII: i:m bVII:", "i:m bIII: bVII: i:m", "i:m iv:m bVII: i:m"),
    },
    "klezmer": {  # freygish over harmonic minor: the major chord on the fifth and its bII, the iv and back
        "major": ("I: bII: I: iv:m", "I: iv:m bII: I:"),
        "minor": ("i:m iv:m V:7 i:m", "V: bVI: V: iv:m", "i:m bVII: bVI: V:7"),
    },
    "andalusian": {  # the Andalusian cadence down to the phrygian-major fifth
        "major": ("I: bII: bIII: bII:", "I: bVII: bVI: bII:"),
        "minor": ("i:m bVII: bVI: V:", "i:m bVII: bVI: V:7", "iv:m bIII: bII: i:m"),
    },
    "baroque": {  # the circle of fifths and a cadence: Pachelbel, Vivaldi, a continuo's sequence
        "major": ("I: V: vi:m iii:m IV: I: IV: V:", "I: IV: vii:dim iii:m vi:m ii:m V:7 I:", "I: vi:m ii:m V:7"),
        "minor": ("i:m iv:m bVII: bIII: bVI: ii:dim V:7 i:m", "i:m iv:m V:7 i:m", "i:m bVI: iv:m V:7"),
    },
    "dnb": {
        "major": ("I:maj7 vi:m9 IV:maj7 V:sus4", "IV:maj9 V:9sus4 iii:m7 vi:m9"),
        "minor": ("i:m9 bVI:maj7 bVII:add9 v:m7", "i:m7 bIII:maj7 bVI:maj9 bVII:7sus4",
                  "i:m9 bVII:add9 bVI:maj7 bVII:add9"),
    },
}


# Modes whose own second degree is a half step above the tonic: only they loop on bII.
PHRYGIAN_MODES = frozenset({"phrygian", "phrygian dominant", "locrian"})


def progressions(family: str, mode: str) -> tuple[str, ...]:
    """The progressions of `family` for `mode` (falls back to the pop vocabulary). A minor
    key does not loop on the phrygian bII: that loop is heard in the key a fifth below."""
    table = VOCAB.get(family, VOCAB["pop"])
    found = table["major" if mode in MAJOR_MODES else "minor"]
    if mode in PHRYGIAN_MODES:
        return found
    return tuple(p for p in found if not any(t.startswith("bII:") for t in p.split())) or found


def parse_token(token: str) -> tuple[str, int, str]:
    """``"bVI:maj7"`` → (``"bVI"``, 8, ``"maj7"``): degree, semitones above the tonic, quality."""
    degree, _, quality = token.partition(":")
    numeral = degree[0] + degree[1:].upper() if degree[:1] in ("b", "#") else degree.upper()
    semis = DEGREE_SEMITONES[numeral]
    return degree, semis, quality

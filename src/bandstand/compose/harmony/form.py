"""Harmony over the form: each section function gets its own progression, and the
song its ending.

The verse plays the main loop. The chorus plays another progression of the
family (or the loop from another chord); a pre-chorus climbs to the dominant
(a half cadence that wants the chorus); a bridge departs — to IV, vi, the
relative key or a borrowed region — and comes back through the dominant.
Genre grammars replace this where the genre has its own: the 12-bar blues
(the IV in bar 5), jazz heads in AABA form over ii–V–Is, gospel walk-ups and
passing diminished chords, the one-chord techno loop that evolves instead,
the aeolian climb of film music.

Progressions are token strings as in `vocab` (``degree:quality``, one chord per
harmonic-rhythm unit); `ENDINGS` says how a family ends a song (an authentic
V–I, a plagal IV–I "amen", bVII–I, bVI–bVII–i, or the loop landing on its tonic).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from bandstand.compose.harmony.dial import Slot, numeral_case
from bandstand.compose.harmony.vocab import MAJOR_MODES, parse_token, progressions

__all__ = ["ENDINGS", "FUNCTIONS", "GRAMMAR_NAMES", "LANDS", "ending_slots", "landed", "section_slots"]

FUNCTIONS = ("verse", "chorus", "prechorus", "bridge")
Table = dict[str, dict[str, tuple[str, ...]]]

# Pre-choruses climb and stop on the dominant; bridges leave and come back through it.
PRECHORUS: Table = {
    "default": {"major": ("ii:m IV: V:sus4 V:", "IV: V: IV: V:", "vi:m IV: ii:m V:"),
                "minor": ("iv:m bVI: bVII: V:", "bVI: bVII: iv:m V:", "iv:m iv:m V: V:")},
    "gospel": {"major": ("ii:m9 V:13 ii:m9 V:13", "IV:maj9 #IV:dim7 ii:m9 V:13sus4"),
               "minor": ("iv:m9 V:7b9 iv:m9 V:7b9",)},
    "jazz": {"major": ("ii:m7 V:7 ii:m7 V:7",), "minor": ("ii:m7b5 V:7b9 ii:m7b5 V:7b9",)},
    "techno": {"major": ("I:7sus4",), "minor": ("i:m7",)},  # the build keeps the one chord: the sound moves
}
BRIDGE: Table = {
    "default": {"major": ("vi:m iii:m IV: V:", "IV: V: vi:m V:", "bVI: bVII: IV: V:"),
                "minor": ("bVI: bIII: bVII: V:", "iv:m bVII: bIII: V:", "iv:m bVI: bIII: V:")},
    "jazz": {"major": ("IV:maj7 iv:m7 iii:m7 VI:7 ii:m7 V:7 ii:m7 V:7",),
             "minor": ("iv:m7 bVII:7 bIII:maj7 bVI:maj7 ii:m7b5 V:7b9 ii:m7b5 V:7b9",)},
    "gospel": {"major": ("I:maj9 ii:m7 iii:m7 IV:maj9 #IV:dim7 V:13 ii:m9 V:13",),
               "minor": ("bVI:maj9 bVII:13 i:m9 iv:m9 V:7b9",)},
    "techno": {"major": ("bVII:sus2",), "minor": ("bVII:sus2",)},  # the loop's one other chord, if any
    "cinematic": {"major": ("vi:m IV: I: V:", "bVI: bVII: I: V:"), "minor": ("iv:m bVI: bVII: V:", "bVI: bIII: iv:m V:")},
    "blues": {"major": ("I:7 I:7 I:7 I:7 IV:7 IV:7 I:7 I:7 V:7 IV:7 I:7 V:7",),
              "minor": ("i:m7 i:m7 i:m7 i:m7 iv:m7 iv:m7 i:m7 i:m7 bVI:7 V:7 i:m7 V:7",)},
}
CHORUS: Table = {
    "gospel": {"major": ("IV:maj9 #IV:dim7 I:maj9 VI:7 ii:m9 V:13 I:maj9 I:7",),
               "minor": ("bVI:maj9 bVII:13 i:m9 iv:m9",)},
    "techno": {"major": ("I:7sus4",), "minor": ("i:m7",)},
    "cinematic": {"major": ("IV: V: vi:m IV:", "I: V: vi:m IV:"), "minor": ("bVI: bVII: i:m i:m", "bVI: bIII: bVII: i:m")},
    "metal": {"major": ("IV: V: I: I:",), "minor": ("bVI: bVII: i:m i:m", "bVI: bVII: i:m V:")},
    "punk": {"major": ("IV: I: V: V:", "I: V: vi:m IV:"), "minor": ("bVI: bVII: i:m i:m",)},
}
# Families whose sections end phrases with cadences (a half cadence before the chorus: the
# dominant's leading tone is what makes the key heard); one-chord techno and ambient drones
# keep their loop to the end of each section.
CADENCES = frozenset({"pop", "rock", "gospel", "neosoul", "latin", "jazz", "blues", "cinematic", "metal", "punk",
                      "waltz", "funk", "afrobeat", "trap", "lofi", "house", "edm", "dnb", "folk",
                      "klezmer", "andalusian", "baroque"})
# How a family ends a song: major-mode tokens, minor-mode tokens, and the name said in the notes.
ENDINGS: dict[str, tuple[str, str, str]] = {
    "default": ("V: I:", "V: i:m", "authentic cadence (V–I)"),
    "gospel": ("IV:maj9 I:maj9", "iv:m9 i:m9", "plagal 'amen' cadence (IV–I)"),
    "rock": ("bVII: I:", "bVII: i:m", "rock cadence (bVII–I)"),
    "metal": ("bVII: I:", "bVI: i:m", "aeolian cadence (bVI–i)"),
    "punk": ("V: I:", "bVII: i:m", "authentic cadence (V–I)"),
    "cinematic": ("IV: I:", "bVI: i:m", "aeolian cadence (bVI–i)"),
    "jazz": ("ii:m7 V:7 I:maj7", "ii:m7b5 V:7b9 i:m6", "ii–V–I"),
    "blues": ("I:7", "i:m7", "the tonic after the turnaround"),
    "trap": ("I:", "i:m", "the loop lands on its tonic"),
    "house": ("I:maj7", "i:m7", "the loop lands on its tonic"),
    "edm": ("I:", "i:m", "the loop lands on its tonic"),
    "techno": ("I:", "i:m7", "the loop lands on its tonic"),
    "dnb": ("I:maj7", "i:m9", "the loop lands on its tonic"),
    "lofi": ("V:7 I:maj7", "V:7 i:m9", "authentic cadence (V–I)"),
    "andalusian": ("bII: I:", "bVI: V:7 i:m", "Andalusian cadence (bVI–V–i)"),
    "baroque": ("IV: V:7 I:", "iv:m V:7 i:m", "perfect cadence (IV–V–I)"),
    "ambient": ("IV:maj7 I:add9", "bVI:maj7 i:m(add9)", "plagal drift home (IV–I)"),
}
# Families whose minor-key chorus lands: its loop's second pass ends on the tonic (the blues, jazz
# and gospel grammars, baroque's sequences, the Andalusian descent and one-chord loops keep their own).
LANDS = CADENCES - {"blues", "jazz", "gospel", "baroque", "andalusian"}
GRAMMAR_NAMES: dict[str, str] = {"blues": "12-bar blues", "jazz": "AABA head over ii–V–Is",
                                 "gospel": "gospel 2-5-1s and walk-ups", "techno": "one-chord loop"}


def _slots(text: str) -> list[Slot]:
    out = []
    for token in text.split():
        degree, semis, quality = parse_token(token)
        out.append(Slot(numeral_case(degree, quality), semis, quality))
    return out


def _pick(table: Table, family: str, mode: str, rng: random.Random) -> list[Slot]:
    rows = table.get(family) or table["default"]
    return _slots(rng.choice(rows["major" if mode in MAJOR_MODES else "minor"]))


def _colour_like(slots: list[Slot], verse: Sequence[Slot]) -> list[Slot]:
    """Generic triads take on the verse's colour: sevenths where most of the verse's chords
    have them (the dominant a dominant seventh, the others major or minor sevenths)."""
    if sum(1 for s in verse if any(ch.isdigit() for ch in s.quality)) * 2 < len(verse):
        return slots
    richer = {"": "maj7", "m": "m7"}
    return [replace(s, quality="7" if s.semis == 7 and s.quality == "" else richer.get(s.quality, s.quality))
            for s in slots]


def _differs(a: Sequence[Slot], b: Sequence[Slot]) -> bool:
    """Two progressions sound different when most of their chords (bar by bar) do."""
    n = max(len(a), len(b))
    same = sum(1 for i in range(n) if (a[i % len(a)].semis, a[i % len(a)].quality) ==
               (b[i % len(b)].semis, b[i % len(b)].quality))
    return same <= n // 2


def _chorus(family: str, mode: str, verse: list[Slot], rng: random.Random) -> list[Slot]:
    if family in CHORUS:
        return _pick(CHORUS, family, mode, rng)
    options = [p for p in progressions(family, mode) if _differs(_slots(p), verse)]
    if options:
        return _slots(rng.choice(options))
    k = 2 if len(verse) >= 4 else 1  # the loop from another chord: the chorus starts elsewhere
    return verse[k:] + verse[:k]


def _tonic_slot(slots: Sequence[Slot], mode: str) -> Slot:
    """The progression's own tonic chord, else a plain one in the mode."""
    found = next((s for s in slots if s.semis == 0), None)
    if found is not None:
        return found
    quality = "" if mode in MAJOR_MODES else "m"
    return Slot(numeral_case("I", quality), 0, quality)


def landed(slots: list[Slot], mode: str) -> list[Slot]:
    """`slots` played twice, the second pass landing on the tonic: the chord that leads back to
    the tonic round the loop comes a bar early and the last bar is the tonic (i–bVI–bIII–bVII
    becomes i–bVI–bIII–bVII | i–bVI–bVII–i). A minor loop that goes round evenly through bVI,
    bIII and bVII is as much the relative major's vi–IV–I–V; a phrase that ends at home says
    which it is. A loop that already ends on its tonic, or has fewer than three chords, is
    played as it is."""
    if len(slots) < 3 or slots[-1].semis == 0:
        return list(slots)
    tonic = _tonic_slot(slots, mode)
    approach = slots[-1]
    if slots[-3] == approach or slots[-2] == approach:  # i–bVII–bVI–bVII: land from the bVI
        second = [*slots[:-1], tonic]
    else:
        second = [*slots[:-2], approach, tonic]
    return [*slots, *second]


def section_slots(family: str, mode: str, verse: list[Slot], rng: random.Random) -> dict[str, list[Slot]]:
    """The slots of each section function (see `FUNCTIONS`), the verse's given. In a minor key
    the families in `LANDS` play the chorus's loop twice, landing on the tonic (the verse hands
    over to the chorus on the dominant, `cadence`, and lands there)."""
    if family == "blues":
        quick = [*verse[:1], *verse[4:5], *verse[2:]] if len(verse) == 12 else verse
        return {"verse": verse, "chorus": verse, "prechorus": verse, "bridge": quick, "intro": verse[-4:]}
    chorus = _chorus(family, mode, verse, rng) if family != "techno" else list(verse)
    pre = _colour_like(_pick(PRECHORUS, family, mode, rng), verse) if family != "techno" else list(verse)
    bridge = _colour_like(_pick(BRIDGE, family, mode, rng), verse)
    # the intro sets up the key on the tonic chord (the loop starts on it, or it is the home chord)
    tonic = next((sl for sl in verse if sl.semis == 0), verse[0])
    out = {"verse": verse, "chorus": chorus, "prechorus": pre, "bridge": bridge, "intro": [tonic]}
    if family in CADENCES:  # the dominant a phrase stops on before a chorus (with its leading tone)
        out["cadence"] = _colour_like(_slots("V:7" if family in ("jazz", "blues", "gospel") else "V:"), verse)
    if family in LANDS and mode not in MAJOR_MODES and len(chorus) <= 4:
        out["chorus"] = landed(chorus, mode)
    if family == "jazz":  # AABA over the loop (A) and the bridge (B)
        out["head"] = verse + verse + bridge[: len(verse)] + verse
        out["solo"] = out["head"]
    return out


def ending_slots(family: str, mode: str, verse: Sequence[Slot] = ()) -> tuple[list[Slot], str]:
    """The chords of the song's last bars and the name of that ending (a one-chord loop
    ends on its own chord)."""
    if family == "techno" and verse:
        return [next((s for s in verse if s.semis == 0), verse[0])], "the loop lands on its tonic"
    major, minor, name = ENDINGS.get(family) or ENDINGS["default"]
    return _slots(major if mode in MAJOR_MODES else minor), name

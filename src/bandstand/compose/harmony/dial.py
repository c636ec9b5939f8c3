"""The harmonic dial: how far a progression strays from its key.

    0     diatonic               chords re-spelled to the mode's own triads/sevenths
    0.25  borrowed               one chord from the parallel mode (iv, bVI, bVII / IV, V7)
    0.5   modal interchange      a colour from another mode (bII, II7, IV7, bIII) and richer extensions
    0.75  polytonal colour       upper-structure alterations (7#11, 13b9, maj7#11), tritone substitution
                                 (jazz: from 0.85, and its ii–V–I chains are never coloured over)
    0.9   free chromaticism      a chromatic mediant or a half-step approach chord

Each step includes the ones below it. Chords are worked on as
`Slot(degree, semitones, quality, colour)`; the caller spells and voices them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from bandstand.compose.harmony.vocab import MAJOR_MODES

POLY_DIAL = 0.75  # upper-structure alterations and tritone substitution from here
# Families that keep plain triads whatever the dial (their colour is elsewhere: sound, riffs, builds).
TRIAD_FAMILIES = frozenset({"trap", "cinematic", "metal", "punk"})
# Families whose ii–V–I cadences colour must not break → the dial their polytonal colour waits for.
KEEP_CADENCES: dict[str, float] = {"jazz": 0.85}


@dataclass(frozen=True, slots=True)
class Slot:
    degree: str
    semis: int  # root, semitones above the tonic
    quality: str
    colour: str = "diatonic"


SIMPLER: dict[str, str] = {
    "m9": "m7", "m11": "m7", "maj9": "maj7", "9": "7", "13": "7", "9sus4": "7sus4", "13sus4": "7sus4",
    "add9": "", "m(add9)": "m", "7b9": "7", "13b9": "7", "7#11": "7", "maj7#11": "maj7", "sus2": "",
    "6/9": "6", "m11b5": "m7b5",
}
RICHER: dict[str, str] = {"m7": "m9", "maj7": "maj9", "7": "9", "": "add9", "m": "m7", "6": "6/9"}
# The tone each richer quality adds, semitones above the root: a ninth, or a minor triad's seventh.
ADDED_TONE: dict[str, int] = {"m9": 2, "maj9": 2, "9": 2, "add9": 2, "m7": 10, "6/9": 2}
POLY: dict[str, str] = {"7": "7#11", "9": "13b9", "13": "13b9", "maj7": "maj7#11", "maj9": "maj7#11",
                        "m9": "m11", "7b9": "7alt", "7sus4": "7b9sus4"}
# Thirds/sevenths stacked from the scale → chord quality (intervals above the root).
STACKED: dict[tuple[int, ...], str] = {
    (4, 7): "", (3, 7): "m", (3, 6): "dim", (4, 8): "aug",
    (4, 7, 11): "maj7", (4, 7, 10): "7", (3, 7, 10): "m7", (3, 6, 10): "m7b5", (3, 6, 9): "dim7",
    (3, 7, 11): "mMaj7", (4, 8, 11): "maj7#5",
}
# Borrowed chords from the parallel mode, by the function of the slot they replace.
BORROW_MAJOR = (("iv", 5, "m7"), ("bVI", 8, "maj7"), ("bVII", 10, "7"), ("bIII", 3, "maj7"))
# (in minor only the dominant: the leading tone it brings is what makes the key heard as the
# key, where a dorian IV or a phrygian bII leans towards the key a fifth down; the dorian IV
# is left to the modal colour and to dorian keys, the phrygian bII to phrygian keys)
BORROW_MINOR = (("V", 7, "7"), ("V", 7, "7b9"))
BORROW_TRAP = (("V", 7, ""),)  # (the iv is trap's own chord already, and it pulls a fifth down)
MODAL_MAJOR = (("II", 2, "7"), ("bII", 1, "maj7"), ("bVII", 10, "9"), ("#IV", 6, "m7b5"))
MODAL_MINOR = (("VI", 9, "m7b5"), ("bVII", 10, "13"), ("IV", 5, "9"))


def _colourable(slots: list[Slot], protected: frozenset[int] = frozenset()) -> list[int]:
    """Positions a colour chord may take: not the opening chord nor the loop's only tonic, not a `protected` chord
    (a jazz ii–V–I), and not a dominant that resolves (the ii–V stays intact) unless
    nothing else is left."""
    tonics = [j for j, s in enumerate(slots) if s.semis == 0]
    only_tonic = set(tonics) if len(tonics) == 1 else set()  # the key's one tonic is never coloured away
    free = [j for j in range(1, len(slots)) if j not in protected and j not in only_tonic]
    if protected:
        return free
    keep = [j for j in free if slots[j].semis not in (0, 7)]
    if keep:
        return keep
    return [j for j in free if slots[j].semis != 0] or list(range(1, len(slots)))


def is_dominant(quality: str) -> bool:
    return quality[:1].isdigit() and not quality.startswith("6")


def two_five_ones(slots: list[Slot]) -> frozenset[int]:
    """Positions inside ii–V(–I) chains and V–I cadences, the bones of a jazz tune that
    colour must not break (the loop wraps: the last chord leads to the first)."""
    n = len(slots)
    keep: set[int] = set()
    for j in range(n):
        a, b = slots[j], slots[(j + 1) % n]
        if (b.semis - a.semis) % 12 != 5:
            continue
        if is_minorish(a.quality) and is_dominant(b.quality):
            keep |= {j, (j + 1) % n, (j + 2) % n}
        elif is_dominant(a.quality):
            keep |= {j, (j + 1) % n}
    return frozenset(keep)


def is_minorish(quality: str) -> bool:
    return (quality.startswith("m") and not quality.startswith("maj")) or quality.startswith("dim")


def numeral_case(degree: str, quality: str) -> str:
    """Upper-case numerals for major/dominant chords, lower-case for minor and diminished."""
    acc = degree[0] if degree[:1] in ("b", "#") else ""
    body = degree[len(acc):]
    return acc + (body.lower() if is_minorish(quality) else body.upper())


def diatonic_quality(semis: int, scale: tuple[int, ...], size: int) -> str | None:
    """The mode's own chord on a root `semis` above the tonic (triad when `size` is 3,
    seventh chord when 4), or None when the root is not in the scale."""
    if semis % 12 not in scale:
        return None
    ladder = sorted(scale)
    i = ladder.index(semis % 12)
    tones = []
    for k in range(1, size):
        pc = ladder[(i + 2 * k) % len(ladder)]
        tones.append((pc - semis) % 12)
    return STACKED.get(tuple(tones))


def diatonicize(slots: list[Slot], scale: tuple[int, ...], chord_pcs: list[frozenset[int]], simple: bool) -> list[Slot]:
    """Replace chords that leave the mode with the mode's own chord on the same root
    (or the nearest scale root), keeping sevenths where the original had them."""
    out = []
    for slot, pcs in zip(slots, chord_pcs, strict=True):
        if all(p in scale for p in pcs):
            out.append(slot)
            continue
        size = 3 if simple or slot.quality in ("", "m", "dim", "aug", "sus2", "sus4") else 4
        semis = slot.semis
        quality = diatonic_quality(semis, scale, size)
        if quality is None:
            semis = min(scale, key=lambda pc: (abs(pc - semis), pc))
            quality = diatonic_quality(semis, scale, size) or ""
        out.append(Slot(numeral_case(slot.degree, quality), semis, quality, "diatonic"))
    return out


def simplify(slots: list[Slot]) -> list[Slot]:
    """Extensions stripped to plain triads and sevenths (the bottom of the dial)."""
    return [replace(s, quality=SIMPLER.get(s.quality, s.quality)) for s in slots]


def richer(slot: Slot, scale: tuple[int, ...] | None = None) -> Slot:
    """`slot` with a richer extension (a seventh becomes a ninth …) when the tone it adds lies in
    `scale` (semitones above the tonic; any tone when None): a minor v's ninth (the major sixth
    of a minor key) or a iii's (the sharp fourth of a major one) would take the song into the
    mode next door, where the key is heard a fifth away."""
    quality = RICHER.get(slot.quality, slot.quality)
    added = ADDED_TONE.get(quality)
    if scale is not None and added is not None and (slot.semis + added) % 12 not in scale:
        return slot
    return replace(slot, quality=quality)


def apply_dial(slots: list[Slot], dial: float, mode: str, family: str, rng: random.Random,
               scale: tuple[int, ...] | None = None) -> list[Slot]:
    """The progression coloured by the harmonic dial (see the module docstring); `scale`, the
    key's scale in semitones above the tonic, keeps the richer extensions in the key."""
    out = list(slots)
    major = mode in MAJOR_MODES
    n = len(out)
    # jazz keeps its ii–V–Is whole; its upper-structure colour and tritone subs wait for a high dial
    protected = two_five_ones(out) if family in KEEP_CADENCES else frozenset()
    poly_at = KEEP_CADENCES.get(family, POLY_DIAL)
    if dial >= 0.25 and n >= 3 and _colourable(out, protected):
        i = rng.choice(_colourable(out, protected))
        pool = BORROW_TRAP if family == "trap" and not major else BORROW_MAJOR if major else BORROW_MINOR
        nxt = out[(i + 1) % n].semis
        # a borrowed dominant must not cadence into a chord other than the tonic: that
        # V–I would move the key there (F minor: Eb → Bb7 → Eb is heard in Eb major)
        fits = [o for o in pool if nxt == 0 or not (is_dominant(o[2]) and (nxt - o[1]) % 12 == 5)]
        degree, semis, quality = rng.choice(fits or pool)
        if family in TRIAD_FAMILIES:  # keep trap's dark triads, film music's and rock's plain ones
            quality = "m" if is_minorish(quality) else ""
        out[i] = Slot(degree, semis, quality, "borrowed")
    if dial >= 0.5 and n >= 3 and family not in TRIAD_FAMILIES:
        out = [richer(s, scale) if s.colour == "diatonic" else s for s in out]
        if protected:  # a jazz dominant that resolves down a fifth sings its 13th
            out = [replace(s, quality="13") if j in protected and s.quality in ("7", "9")
                   and (out[(j + 1) % n].semis - s.semis) % 12 == 5 else s for j, s in enumerate(out)]
        candidates = [j for j in _colourable(out, protected) if out[j].colour == "diatonic"]
        if candidates:
            j = rng.choice(candidates)
            taken = {out[k % n].semis for k in (j - 1, j + 1)}  # no colour chord twice in a row
            options = [o for o in (MODAL_MAJOR if major else MODAL_MINOR) if o[1] not in taken]
            degree, semis, quality = rng.choice(options)
            out[j] = Slot(degree, semis, quality, "modal")
    if dial >= poly_at and family not in TRIAD_FAMILIES:
        for j, s in enumerate(out):
            if s.semis == 7 and s.quality in ("7", "9", "13", "7b9") and family in ("jazz", "neosoul", "lofi", "gospel", "latin"):
                out[j] = Slot("bII", 1, "7#11" if s.quality == "7" else "9", "polytonal")  # tritone substitution
            elif s.quality in POLY and rng.random() < (0.85 if dial >= 0.9 else 0.5):
                out[j] = replace(s, quality=POLY[s.quality], colour="polytonal")
    if dial >= 0.9 and n >= 3 and _colourable(out, protected):
        plain = [k for k in _colourable(out, protected) if out[k].colour == "diatonic"]
        j = rng.choice(plain or _colourable(out, protected))
        if rng.random() < 0.5:  # chromatic mediant
            shift = rng.choice((4, 8, 3, 9))
            semis = (out[j - 1].semis + shift) % 12
            out[j] = Slot(_degree_name(semis), semis, "maj7", "chromatic")
        else:  # half-step approach into the next chord
            target = out[(j + 1) % n]
            semis = (target.semis + 1) % 12
            out[j] = Slot(_degree_name(semis), semis, "7" if not is_minorish(target.quality) else "m7", "chromatic")
    return [replace(s, degree=numeral_case(s.degree, s.quality)) for s in out]


_NAMES = ("I", "bII", "II", "bIII", "III", "IV", "#IV", "V", "bVI", "VI", "bVII", "VII")


def _degree_name(semis: int) -> str:
    return _NAMES[semis % 12]


def tension(slot: Slot) -> float:
    """0 = at rest on the tonic … 1 = maximal pull: function, dominant-ness, alterations, colour."""
    base = {0: 0.1, 1: 0.7, 2: 0.45, 3: 0.3, 4: 0.3, 5: 0.4, 6: 0.8, 7: 0.7, 8: 0.35, 9: 0.35,
            10: 0.5, 11: 0.75}[slot.semis % 12]
    q = slot.quality
    if ("7" in q or q in ("9", "13")) and not q.startswith(("maj", "m")):
        base += 0.12
    if any(a in q for a in ("b9", "#9", "#11", "b13", "alt", "dim", "b5")):
        base += 0.12
    base += {"diatonic": 0.0, "borrowed": 0.08, "modal": 0.12, "polytonal": 0.18, "chromatic": 0.22}[slot.colour]
    return round(min(1.0, base), 3)

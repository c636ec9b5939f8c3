"""Stage 2 — harmony: a chord progression fitted to the intent.

The genre's harmony family picks a progression from its vocabulary
(`vocab`), the harmonic dial colours it (`dial`: diatonic → borrowed →
modal interchange → polytonal colour → free chromaticism), the chords are
spelled in the key, parsed and voiced by `bandstand.theory` with minimal
motion from chord to chord. `progression_file` writes the plan as the
documented `main.progression` text.
"""

from __future__ import annotations

import random
from dataclasses import replace

from bandstand.compose.harmony.dial import (
    SIMPLER,
    Slot,
    apply_dial,
    diatonicize,
    is_dominant,
    numeral_case,
    simplify,
    tension,
)
from bandstand.compose.harmony.file import progression_file
from bandstand.compose.harmony.form import GRAMMAR_NAMES, ending_slots, section_slots
from bandstand.compose.harmony.vocab import MAJOR_MODES, parse_token, progressions
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.models.harmony import HarmonyPlan, ProgressionChord, SectionHarmony
from bandstand.compose.models.intent import Intent
from bandstand.errors import InvalidInput, TheoryError
from bandstand.theory import (
    Chord,
    Key,
    get_scale,
    parse_chord,
    parse_key,
    spell_root,
    voice_chord,
)

__all__ = ["CHORD_REGISTER", "build_harmony", "progression_file", "spell_slot"]

CHORD_REGISTER = (50, 74)  # D3..D5: where comping voicings live
# Bars per chord by family (the harmonic rhythm); families not listed change chord every bar.
HARMONIC_RHYTHM: dict[str, int] = {"ambient": 2, "cinematic": 2}
# Families whose bass line walks by step through inversions (Dbmaj7/F) once the dial allows colour.
INVERSION_FAMILIES = frozenset({"neosoul", "gospel", "pop", "lofi", "rock", "ambient"})
INVERSION_DIAL = 0.4
TONIC_UNDER_BVI = frozenset({"edm"})
"""Families whose minor loops hold the keynote in the bass under bVI (bVI/1, its third: a synthwave or
trance bassline pedals the tonic there). A minor loop whose bass goes round i, bVI, bIII and bVII evenly
is as much the relative major's vi–IV–I–V: music21 heard "dark synthwave in Eb minor" in Gb major."""


def tonic_under(chord: Chord, slot: Slot, key: Key) -> Chord:
    """A minor key's bVI over the keynote (its third: `TONIC_UNDER_BVI`); any other chord unchanged."""
    if not key.is_minor or slot.semis != 8 or chord.is_slash or key.tonic_pc not in chord.pitch_classes:
        return chord
    try:
        return parse_chord(f"{chord.symbol}/{spell_root(key.tonic_pc, key)}")
    except TheoryError:
        return chord


def smooth_bass(chord: Chord, previous_bass: int, key: Key) -> Chord:
    """`chord` in first inversion when its root would leap (a fourth or more) from the
    previous bass while its third lies a step or less away; else `chord` unchanged. A major
    key's leading tone is not held in the bass (a bar of it there, loop after loop, is the
    second degree of the relative minor, which the song is then heard in)."""
    leap = min((chord.root - previous_bass) % 12, (previous_bass - chord.root) % 12)
    if leap < 5 or chord.is_slash:
        return chord
    leading = (key.tonic_pc + 11) % 12 if not key.is_minor else None
    for iv in (3, 4):
        third = (chord.root + iv) % 12
        if third == leading:
            continue
        if third in chord.pitch_classes and min((third - previous_bass) % 12, (previous_bass - third) % 12) <= 2:
            try:
                return parse_chord(f"{chord.symbol}/{spell_root(third, key)}")
            except TheoryError:
                return chord
    return chord
# Modes a Key cannot hold are spelled with the nearest key mode.
_SPELLING_MODE: dict[str, str] = {"harmonic minor": "minor", "melodic minor": "minor",
                                  "phrygian dominant": "phrygian", "lydian dominant": "lydian",
                                  "minor pentatonic": "minor", "major pentatonic": "major",
                                  "blues": "minor", "major blues": "major"}


def _key_for(tonic: str, mode: str) -> Key:
    try:
        return parse_key(f"{tonic} {_SPELLING_MODE.get(mode, mode)}")
    except TheoryError:
        return parse_key(f"{tonic} {'major' if mode in MAJOR_MODES else 'minor'}")


def spell_slot(slot: Slot, key: Key) -> Chord:
    """The chord of `slot` spelled in `key`; a quality the chord grammar refuses is
    simplified step by step (13sus4 → 7sus4 → sus4) rather than dropped."""
    root = spell_root((key.tonic_pc + slot.semis) % 12, key)
    quality = slot.quality
    for _ in range(4):
        try:
            return parse_chord(root + quality)
        except TheoryError:
            quality = SIMPLER.get(quality, "m" if quality.startswith("m") and not quality.startswith("maj") else "")
    return parse_chord(root)


def _main_loop(intent: Intent, family: str, mode: str, rng: random.Random) -> list[Slot]:
    """The verse's loop from the family's vocabulary, opening on the tonic when it has none."""
    slots = []
    for token in rng.choice(progressions(family, mode)).split():
        degree, semis, quality = parse_token(token)
        slots.append(Slot(numeral_case(degree, quality), semis, quality))
    if all(sl.semis != 0 for sl in slots):  # a loop with no tonic loses the key: open on it
        first = slots[0].quality
        extended = any(ch.isdigit() for ch in first)
        quality = ("m7" if extended else "m") if mode not in MAJOR_MODES else ("maj7" if extended else "")
        slots[0] = Slot(numeral_case("I", quality), 0, quality)
    return slots


def _in_mode(slots: list[Slot], key: Key, scale_pcs: tuple[int, ...], mode: str, family: str,
             dial: float) -> list[Slot]:
    """Plain triads and sevenths at the bottom of the dial; a mode's own chords (dorian's IV,
    mixolydian's bVII …) in place of what leaves it, always at the bottom of the dial and for
    modal keys while the dial is low."""
    if dial < 0.15:
        slots = simplify(slots)
    if family != "blues" and (dial < 0.15 or (dial < 0.5 and mode not in ("major", "minor"))):
        tonic = key.tonic_pc
        rel_scale = tuple((p - tonic) % 12 for p in scale_pcs)
        rel = [frozenset((p - tonic) % 12 for p in spell_slot(s, key).pitch_classes) for s in slots]
        slots = diatonicize(slots, rel_scale, rel, simple=dial < 0.15)
    if family == "blues" and (key.tonic_pc + 10) % 12 not in scale_pcs:
        # a blues in a major key (a zydeco two-step, say) rests on the key's own tonic triad: a
        # tonic seventh's flat seventh, bar after bar, is the fourth of the key a fifth below
        slots = [replace(s, quality="", degree="I") if s.semis == 0 and is_dominant(s.quality) else s
                 for s in slots]
    return slots


class _Vocabulary:
    """The song's chords, each spelled, voiced (led from the chord before it in its
    progression) and listed once, in order of first appearance."""

    def __init__(self, key: Key, inversions: bool, rhythm: int, tonic_bass: bool = False) -> None:
        self.key, self.inversions, self.rhythm, self.tonic_bass = key, inversions, rhythm, tonic_bass
        self.scale = frozenset(key.scale.pitch_classes)
        self.chords: list[ProgressionChord] = []

    def add(self, slots: list[Slot], final: bool = False) -> list[int]:
        """The vocabulary indices of a progression (a `final` one ends in root position)."""
        low, high = CHORD_REGISTER
        previous: tuple[int, ...] | None = None
        bass: int | None = None
        out: list[int] = []
        for k, slot in enumerate(slots):
            chord = spell_slot(slot, self.key)
            if self.tonic_bass and not (final and k == len(slots) - 1):
                chord = tonic_under(chord, slot, self.key)
            if self.inversions and bass is not None and not (final and k == len(slots) - 1):
                chord = smooth_bass(chord, bass, self.key)
            pitches = voice_chord(chord, low, high, previous)
            known = next((i for i, c in enumerate(self.chords)
                          if c.symbol == chord.symbol and tuple(c.pitches) == pitches), None)
            if known is None:
                roman = _roman(slot) + ("/3" if chord.is_slash else "")
                self.chords.append(ProgressionChord(
                    symbol=chord.symbol, roman=roman, pitches=list(pitches), bars=self.rhythm,
                    tension=tension(slot), root=chord.root, bass=chord.bass,
                    pitch_classes=sorted(set(chord.pitch_classes)),
                    colour="borrowed" if slot.colour == "diatonic" and not set(chord.pitch_classes) <= self.scale
                    else slot.colour,
                ))
                known = len(self.chords) - 1
            previous = tuple(self.chords[known].pitches)
            bass = self.chords[known].bass
            out.append(known)
        return out


def build_harmony(intent: Intent, seed: int) -> HarmonyPlan:
    """The harmony of the whole form for `intent`: same intent and seed → same plan."""
    rng = random.Random(seed)
    traits = primary_genre(intent)
    mode = intent.mode.strip().lower()
    try:
        scale = get_scale(f"{intent.key} {mode}")
    except TheoryError as exc:
        raise InvalidInput(f"unknown key or mode '{intent.key} {intent.mode}': {exc.message}",
                           field="key") from None
    key = _key_for(scale.tonic, mode)
    family = traits.harmony_family
    dial = intent.creativity_dials.harmonic
    scale_pcs = tuple(scale.pitch_classes)
    verse = _in_mode(_main_loop(intent, family, mode, rng), key, scale_pcs, mode, family, dial)
    if family not in ("blues", "techno"):  # the blues keeps its twelve bars, techno its one or two chords
        verse = apply_dial(verse, dial, mode, family, rng, tuple((pc - key.tonic_pc) % 12 for pc in scale_pcs))
    form_rng = random.Random(rng.getrandbits(32))  # the other sections never shift the loop's choices
    functions = section_slots(family, mode, verse, form_rng)
    ending, ending_name = ending_slots(family, mode, verse)
    rhythm = HARMONIC_RHYTHM.get(family, 1)
    vocab = _Vocabulary(key, family in INVERSION_FAMILIES and dial >= INVERSION_DIAL, rhythm, family in TONIC_UNDER_BVI)
    loop = vocab.add(verse)
    sections = [SectionHarmony(function="verse", chords=[i for i in loop for _ in range(rhythm)])]
    for function, slots in functions.items():
        if function == "verse":
            continue
        indices = vocab.add(_in_mode(slots, key, scale_pcs, mode, family, dial))
        sections.append(SectionHarmony(function=function, chords=[i for i in indices for _ in range(rhythm)]))
    ending_idx = vocab.add(_in_mode(ending, key, scale_pcs, mode, family, dial), final=True)
    chords = vocab.chords
    summary = f"{scale.tonic} {mode} — " + " → ".join(chords[i].symbol for i in loop)
    chorus = next((s.chords for s in sections if s.function == "chorus"), None)
    if chorus and chorus != sections[0].chords:
        summary += " | chorus " + " → ".join(chords[i].symbol for i in chorus[::rhythm])
    return HarmonyPlan(key=scale.tonic, mode=mode, family=family, harmonic_dial=dial,
                       scale_pitch_classes=list(scale_pcs), chords=chords, summary=summary,
                       loop=loop,
                       sections=sections, ending=ending_idx, ending_name=ending_name,
                       grammar=GRAMMAR_NAMES.get(family, "verse–chorus"))


_FIGURES: dict[str, str] = {"m7b5": "ø7", "dim7": "°7", "dim": "°", "m": "", "maj7": "maj7", "": ""}


def _roman(slot: Slot) -> str:
    q = slot.quality
    if q in _FIGURES:
        return slot.degree + _FIGURES[q]
    if q.startswith("m") and not q.startswith("maj"):
        q = q[1:]
    return slot.degree + q

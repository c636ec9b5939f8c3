"""Compose's adapter to the musical core: the intent, harmony plan and
arrangement flattened into a `bandstand.craft.Situation` — one bar after
another with its section, energy, the chord sounding and the next one, who
plays — and the genre's traits as the craft's `Idiom`. Nothing here is random.
"""

from __future__ import annotations

from dataclasses import replace

from bandstand.compose.lexicon import GenreTraits, primary_genre
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan, ProgressionChord
from bandstand.compose.models.intent import Intent
from bandstand.craft import Bar, Chord, Idiom, Situation, active_in
from bandstand.craft.genre_kits import kit_for

__all__ = ["METRE_BARS", "METRE_GROOVES", "active_in", "build_situation", "chord_of", "fitting_idiom", "idiom_of"]

SWING_MAX = 0.33
METRE_GROOVES: dict[int, str] = {12: "waltz"}
"""Sixteenths per bar → the drum family whose grooves are written for a bar that long (a 3/4 or
6/8 bar): in bars put in another metre than the song's own (`METRE_BARS`), the drummer plays it
when the genre's own grooves do not fit the bar (a rock song with its bridge in 3/4), and the
genre's own otherwise (a jig's bars in 3/4). A song written in one metre throughout plays its
genre's grooves as they fit (a jazz song in 3/4 rides its jazz waltz)."""
METRE_BARS = "metre_bars"
"""The constraint kind of an intent written for bars in another metre than the song's own."""


def chord_of(chord: ProgressionChord) -> Chord:
    """A harmony plan's chord as the craft reads it."""
    return Chord(chord.symbol, chord.root, chord.bass, tuple(chord.pitch_classes), tuple(chord.pitches),
                 chord.tension)


def idiom_of(traits: GenreTraits, intent: Intent) -> Idiom:
    """The genre's traits (blended for the intent) as the craft's idiom."""
    swing = intent.genre_dna.swing if intent.genre_dna is not None else traits.swing
    return Idiom(
        name=traits.name, drum_family=traits.drum_family, bass_style=traits.bass_style,
        comp_style=traits.comp_style, lead_style=traits.lead_style, swing=max(0.0, min(SWING_MAX, swing)),
        harmonic=intent.creativity_dials.harmonic, rhythmic=intent.creativity_dials.rhythmic,
        electronic=traits.electronic, kit=traits.kit, touches=traits.touches,
    )


def _entries(kind: str, roles: list[str], bars: int, planned: dict[str, int]) -> dict[str, int]:
    """The bar of its section each role enters on: in an intro the parts come in one by one
    (the n-th of k voices at n/k of the way through; a texture is there from the start);
    elsewhere where the arrangement brings a part in later (`SectionPlan.entries`), everyone
    else from the section's first bar."""
    if kind != "intro":
        return dict(planned)
    voices = [r for r in roles if r != "texture"]
    return {r: (j * bars) // len(voices) for j, r in enumerate(voices)} | planned


def fitting_idiom(idiom: Idiom, steps: int) -> Idiom:
    """`idiom` with a drum family whose grooves fit a bar of `steps` sixteenths (`METRE_GROOVES`)."""
    other = METRE_GROOVES.get(steps)
    if other is None or other == idiom.drum_family:
        return idiom
    lengths = {len(p) for layer in kit_for(idiom.drum_family, idiom.kit).layers for p in layer.patterns}
    if all(n % steps == 0 or steps % n == 0 for n in lengths):
        return idiom
    return replace(idiom, drum_family=other, kit="")


def _idiom(traits: GenreTraits, intent: Intent, steps: int) -> Idiom:
    idiom = idiom_of(traits, intent)
    return fitting_idiom(idiom, steps) if any(c.kind == METRE_BARS for c in intent.constraints) else idiom


def build_situation(intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> Situation:
    """The song as one situation, bar by bar."""
    traits = primary_genre(intent)
    num, den = intent.time_signature
    beats_per_bar = num * 4.0 / den
    steps = max(1, round(beats_per_bar * 4))
    chords = [chord_of(c) for c in harmony.chords]
    sections = arrangement.sections
    bar_chord: list[Chord] = []
    for sec in sections:
        for i in range(sec.bars):
            idx = sec.chord_indices[i] if i < len(sec.chord_indices) else i
            bar_chord.append(chords[idx % len(chords)])
    total = len(bar_chord)
    energies = list(arrangement.bar_energy) + [sections[-1].energy] * max(0, total - len(arrangement.bar_energy))
    bars: list[Bar] = []
    seen: dict[str, int] = {}
    n = 0
    for si, sec in enumerate(sections):
        nxt = sections[si + 1] if si + 1 < len(sections) else None
        roles = frozenset(sec.roles)
        repeat = seen.get(sec.kind, 0)
        seen[sec.kind] = repeat + 1
        entries = _entries(sec.kind, sec.roles, sec.bars, sec.entries)
        for i in range(sec.bars):
            last = i == sec.bars - 1
            bars.append(Bar(
                index=n, start=n * beats_per_bar, section=si, kind=sec.kind, bar_in_section=i,
                bars_in_section=sec.bars, energy=float(energies[n]), chord=bar_chord[n],
                next_chord=bar_chord[n + 1] if n + 1 < total else bar_chord[0],
                roles=frozenset(r for r in roles if entries.get(r, 0) <= i),
                section_end=last and nxt is not None, next_kind=nxt.kind if nxt is not None else None,
                transition=sec.transition, section_energy=sec.energy, name=sec.name, repeat=repeat,
                final=n == total - 1,
            ))
            n += 1
    return Situation(
        tonic=harmony.scale_pitch_classes[0] if harmony.scale_pitch_classes else 0,
        mode=harmony.mode, scale=tuple(sorted(harmony.scale_pitch_classes)), tempo=intent.tempo,
        beats_per_bar=beats_per_bar, steps=steps, bars=tuple(bars), idiom=_idiom(traits, intent, steps),
        constraints=frozenset(c.kind for c in intent.constraints), named_roles=frozenset(arrangement.all_roles()),
        pulse=4.0 / den, groove=arrangement.groove, textures=tuple(intent.textures),
        mood_density=float(intent.style.get("density", 0.0)) if intent.style else 0.0,
    )

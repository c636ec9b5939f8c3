"""Hand-built intents and arrangements for the music tests (harmony, parts,
assembly, validation, musicality): explicit genre, tempo, key, dials and a
small form, so each test states exactly what it feeds the generators."""

from __future__ import annotations

from bandstand.compose.arrangement import chord_cycle
from bandstand.compose.lexicon import genre_traits
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.models.intent import (
    Constraint,
    CreativityDials,
    Duration,
    GenreDNA,
    Intent,
    KeyAnalysis,
    TempoAnalysis,
)

CORE = ["drums", "bass", "chords", "lead", "pad"]


def make_intent(genre: str | list[str], *, tempo: float | None = None, key: str | None = None,
                mode: str | None = None, harmonic: float | None = None, rhythmic: float | None = None,
                constraints: tuple[str, ...] = (), time_signature: tuple[int, int] = (4, 4)) -> Intent:
    genres = [genre] if isinstance(genre, str) else list(genre)
    traits = genre_traits(genres[0])
    bpm = tempo if tempo is not None else traits.default_tempo
    tonic = key or traits.keys[0]
    m = mode or traits.modes[0]
    h = traits.dials[0] if harmonic is None else harmonic
    r = traits.dials[1] if rhythmic is None else rhythmic
    return Intent(
        raw_prompt=f"{' '.join(genres)} at {bpm} bpm in {tonic} {m}",
        genre=[genre_traits(g).name for g in genres], tempo=bpm, key=tonic, mode=m,
        duration=Duration(min_bars=8, max_bars=128), time_signature=time_signature,
        constraints=[Constraint(kind=c, text=c) for c in constraints],
        tempo_analysis=TempoAnalysis(bpm=bpm, source="explicit", perceived_bpm=bpm, confidence=1.0, reasoning="test"),
        key_analysis=KeyAnalysis(root=tonic, mode=m, source="explicit", confidence=1.0, reasoning="test"),
        creativity_dials=CreativityDials(harmonic=h, rhythmic=r),
        genre_dna=GenreDNA(weights={traits.name: 1.0}, swing=traits.swing, tempo_center=bpm, harmonic=h,
                           rhythmic=r, energy=traits.energy, electronic=traits.electronic),
    )


# (name, kind, bars, energy, roles, transition)
POP_FORM = (
    ("Intro", "intro", 4, 0.2, ["pad", "chords"], "build"),
    ("Verse", "verse", 8, 0.5, ["drums", "bass", "chords", "pad"], "cut"),
    ("Chorus", "chorus", 8, 0.9, CORE, "fade"),
    ("Break", "break", 4, 0.3, ["pad", "chords"], "filter_sweep"),
    ("Chorus 2", "chorus", 8, 0.9, CORE, "cut"),
    ("Outro", "outro", 4, 0.2, ["pad", "drums"], "cut"),
)


def make_arrangement(chords: int | list[int], form: tuple[tuple[str, str, int, float, list[str], str], ...] = POP_FORM,
                     scale_to: int | None = None) -> ArrangementPlan:
    """Sections looping the progression (a chord count for one chord per bar, or the
    bars of each chord); energy ramps by ≤ 0.3 per bar.
    `scale_to` repeats the form's middle until the song has at least that many bars."""
    rows = list(form)
    if scale_to is not None:
        while sum(r[2] for r in rows) < scale_to:
            rows.insert(-1, rows[1 + (len(rows) % max(1, len(form) - 2))])
    cycle = chord_cycle([1] * chords if isinstance(chords, int) else chords)
    sections: list[SectionPlan] = []
    bar = 1
    for name, kind, bars, energy, roles, transition in rows:
        sections.append(SectionPlan.model_validate({
            "name": name, "kind": kind, "start_bar": bar, "bars": bars, "energy": energy, "roles": list(roles),
            "chord_indices": [cycle[i % len(cycle)] for i in range(bars)], "transition": transition}))
        bar += bars
    energies: list[float] = []
    for s in sections:
        for _ in range(s.bars):
            prev = energies[-1] if energies else s.energy
            energies.append(round(max(prev - 0.3, min(prev + 0.3, s.energy)), 3))
    return ArrangementPlan(form_name="test", total_bars=bar - 1, sections=sections, bar_energy=energies)

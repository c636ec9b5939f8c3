"""Stage 7 — validation: measure the assembled song and gate it.

Four axes, each combining measured numbers mapped onto 0–1 (half their mean,
half the weakest of them, so one bad number cannot hide behind good ones):

- harmony: in-scale rate (pitched notes whose pitch class is in the key's
  scale, judged against what the harmonic dial allows), in-harmony rate
  (in the scale or in the chord sounding in that bar), chord-tone rate on
  strong beats (bass and melody notes starting on beats 1 and 3), the key
  heard (the declared key, its relative or another mode of its scale must be
  what Krumhansl–Schmuckler hears: a song heard in another key cannot score
  1.00) and the ending (the last sonority's lowest note is the tonic);
- rhythm: kick/bass lock (kicks answered by a bass onset within a 32nd, or
  bass onsets that land on a kick, whichever is higher, against what the bass
  style aims for) and groove consistency (cosine between consecutive bars of a
  section, each bar a 16-step onset vector per drum voice group);
- arrangement: energy ↔ density correlation (Pearson, per bar, the plan's
  energy against notes started), section contrast (adjacent sections
  differing in density or roles) and section variety (two kinds of body
  section with harmonies of their own); the voicing variety (chords voiced
  more than one way) is reported alongside;
- vibe: fidelity to the intent — tempo, key (Krumhansl–Schmuckler on the
  pitched notes: where the intended key ranks among the 24, first or its
  relative counting fully, less expected as the harmonic dial rises), genre
  (kick and backbeat placement against the drum family's template, swing
  measured from the off-beats against the genre's, tempo inside the genre's
  range or its half/double).

Beside these, every axis takes in the calibrated figures of the quality model
(`bandstand.compose.quality`: key clarity, in-scale and chord-tone rates per
role, groove consistency, lock, section contrast, density against energy,
bass coverage, the melody's steps, range, turns and motif recurrence), each
rated against the range reference music and our own songs fill, so the axes
spread over real differences instead of saturating at 1.00; the figures are
published in the score with their ranges.

The gate passes when no axis is below 0.5 and the mean is at least 0.7;
otherwise it names the stage whose output the weakest number measures.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import fmean

from bandstand.compose.lexicon import GenreTraits, primary_genre
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.quality import AXES, GateResult, QualityScore
from bandstand.compose.quality import from_plans, measure, rate
from bandstand.compose.quality.context import BASS_ROLES, SongContext
from bandstand.compose.quality.figures import (
    TOL,
    cosine,
    groove_consistency,
    near,
    on_strong_beat,
    pearson,
)
from bandstand.compose.quality.model import figure_key
from bandstand.compose.writing import ends_on_tonic, key_heard, section_variety, voicing_variety
from bandstand.craft.genre_kits import kit_for
from bandstand.craft.groove import groove
from bandstand.craft.kit import CLAP, KICK, RIM, SNARE, kick_steps
from bandstand.errors import TheoryError
from bandstand.score import Note, Song
from bandstand.score.metre_map import MetreMap
from bandstand.theory import detect_key, get_scale

__all__ = ["AXIS_MIN", "FIGURE_STAGE", "MEAN_MIN", "METRIC_STAGE", "evaluate_quality", "gate", "stage_of"]

AXIS_MIN, MEAN_MIN = 0.5, 0.7
MELODIC_ROLES = frozenset({"bass", "lead", "counter_melody", "sub_bass"})
BACKBEAT = frozenset({SNARE, CLAP, RIM})
# What share of kick/bass lock each bass style aims for (tumbao and house bass play around the kick).
EXPECTED_LOCK: dict[str, float] = {"tumbao": 0.4, "synth_pulse": 0.5, "syncopated_funk": 0.7, "reggae": 0.7,
                                   "two_beat": 0.6}
# Which stage produced what a metric measures: the stage to regenerate when it fails.
# Bass styles that play around the kick rather than with it: scored on how rarely they hit it.
AVOIDS_KICK = frozenset({"offbeat"})
METRIC_STAGE: dict[str, int] = {
    "in_scale_rate": 2, "in_harmony_rate": 4, "chord_tone_rate_strong": 4, "key_heard": 2, "ends_on_tonic": 2,
    "kick_bass_lock": 4, "groove_consistency": 4,
    "energy_density_corr": 3, "section_contrast": 3, "section_variety": 2,
    "tempo_fidelity": 6, "key_fidelity": 2, "genre_fidelity": 4,
}
# The stage a calibrated figure blames (by its table key: "chord_tones.bass" → "chord_tones").
FIGURE_STAGE: dict[str, int] = {
    "key_clarity": 2, "key_rank": 2, "in_scale": 4, "chord_tones": 4, "groove_consistency": 4,
    "kick_bass_lock": 4, "density_energy": 3, "bass_coverage": 4, "notes_per_bar": 4, "section_contrast": 3,
    "step_share": 4, "melodic_range": 4, "direction_changes": 4, "motif_recurrence": 4,
}
BASS_PARTS = ("bass", "sub_bass")
MELODY_PARTS = ("lead", "counter_melody", "arp")
# The parts a failing number is about: a retry redraws them (with new seeds), not the whole band
# — redrawing the drums again and again cannot mend a bass line. A figure of one role group is
# about that group ("chord_tones.bass" → the bass); a number not listed is the stage's.
METRIC_PARTS: dict[str, tuple[str, ...]] = {
    "groove_consistency": ("drums", "percussion"), "genre_fidelity": ("drums", "percussion"),
    "kick_bass_lock": (*BASS_PARTS, "drums"), "bass_coverage": BASS_PARTS,
    "chord_tone_rate_strong": (*BASS_PARTS, *MELODY_PARTS), "in_harmony_rate": ("chords", *BASS_PARTS, *MELODY_PARTS),
    "step_share": MELODY_PARTS, "melodic_range": MELODY_PARTS, "direction_changes": MELODY_PARTS,
    "motif_recurrence": MELODY_PARTS,
}
GROUP_PARTS: dict[str, tuple[str, ...]] = {"bass": BASS_PARTS, "lead": MELODY_PARTS}
AXIS_METRICS: dict[str, tuple[str, ...]] = {
    "harmony": ("in_scale_rate", "in_harmony_rate", "chord_tone_rate_strong", "key_heard", "ends_on_tonic"),
    "rhythm": ("kick_bass_lock", "groove_consistency"),
    "arrangement": ("energy_density_corr", "section_contrast", "section_variety"),
    "vibe": ("tempo_fidelity", "key_fidelity", "genre_fidelity"),
}


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def _ramp(value: float, zero: float, full: float) -> float:
    """0 at `zero`, 1 at `full`, linear between."""
    return _clamp((value - zero) / (full - zero))




class _View:
    """The song cut into what the measures need: pitched notes, kicks, bass onsets, per-bar chords."""

    def __init__(self, song: Song, harmony: HarmonyPlan, arrangement: ArrangementPlan, frame: SongContext) -> None:
        self.bpb = song.beats_per_bar
        self.frame = frame  # where each bar starts (a song whose metre changes has bars of several lengths)
        self.bars = arrangement.total_bars
        self.pitched = [(t.role, n) for t in song.tracks if not t.is_drum for n in t.notes]
        # the groove is the drums' and the percussion's; a texture (rain, crackle) is not time
        self.drums = sorted((n for t in song.tracks if t.is_drum and t.role != "texture" for n in t.notes),
                            key=lambda n: n.start)
        self.kicks = [n.start for n in self.drums if n.pitch in (KICK, 35)]
        self.bass = sorted(n.start for t in song.tracks if t.role in BASS_ROLES for n in t.notes)
        chords = harmony.chords
        self.chord_pcs = [frozenset(chords[arrangement.chord_index_at(b + 1) % len(chords)].pitch_classes)
                          for b in range(self.bars)] if chords else [frozenset()] * self.bars
        self.all_notes = [n for t in song.tracks for n in t.notes]
        # density against energy is the layering's: one part alone keeps its idiom's density
        self.layered = sum(1 for t in song.tracks if t.notes) >= 2

    def bar_of(self, beat: float) -> int:
        if self.frame.bar_starts:
            return self.frame.bar_of(beat + TOL - 0.125)
        return min(self.bars - 1, max(0, int((beat + TOL) // self.bpb)))

    def in_bar(self, beat: float) -> tuple[float, float]:
        """(the beat's place in its bar, the bar's length)."""
        if not self.frame.bar_starts:
            return beat % self.bpb, self.bpb
        bar = self.frame.bar_of(beat)
        return beat - self.frame.start_of(bar), self.frame.length_of(bar)


def _harmony(v: _View, harmony: HarmonyPlan, m: dict[str, float | None], s: dict[str, float],
             notes_out: list[str]) -> None:
    scale = frozenset(harmony.scale_pitch_classes)
    notes = v.pitched
    if not notes:
        notes_out.append("harmony not measurable: no pitched notes (drums only)")
        m["in_scale_rate"] = m["in_harmony_rate"] = m["chord_tone_rate_strong"] = None
        s["in_scale_rate"] = s["in_harmony_rate"] = s["chord_tone_rate_strong"] = 1.0
        return
    in_scale = sum(1 for _, n in notes if n.pitch % 12 in scale) / len(notes)
    in_harm = sum(1 for _, n in notes if n.pitch % 12 in scale or n.pitch % 12 in v.chord_pcs[v.bar_of(n.start)])
    in_harm_rate = in_harm / len(notes)
    strong = [n for role, n in notes if role in MELODIC_ROLES and on_strong_beat(*v.in_bar(n.start))]
    ct = sum(1 for n in strong if n.pitch % 12 in v.chord_pcs[v.bar_of(n.start)]) / len(strong) if strong else None
    expected_scale = 0.95 - 0.45 * harmony.harmonic_dial  # colour chords are allowed to leave the scale
    m["in_scale_rate"], m["in_harmony_rate"], m["chord_tone_rate_strong"] = in_scale, in_harm_rate, ct
    s["in_scale_rate"] = _clamp(in_scale / expected_scale)
    s["in_harmony_rate"] = _ramp(in_harm_rate, 0.6, 0.92)
    s["chord_tone_rate_strong"] = 1.0 if ct is None else _ramp(ct, 0.3, 0.75)


def _writing(song: Song, harmony: HarmonyPlan, arrangement: ArrangementPlan, m: dict[str, float | None],
             s: dict[str, float], notes: list[str]) -> None:
    """How the song is written: the key heard against the declared one, the ending, the
    sections' own harmonies, the voicings (see `bandstand.compose.writing`)."""
    heard, rank = key_heard(song, harmony)
    m["key_heard"], m["key_heard_rank"] = heard, None if rank is None else float(rank)
    s["key_heard"] = 1.0 if heard is None else heard
    ending = ends_on_tonic(song, harmony)
    m["ends_on_tonic"] = ending
    s["ends_on_tonic"] = 1.0 if ending is None else 0.6 + 0.4 * ending
    if ending == 0.0:
        notes.append("the song does not end on its tonic in the bass")
    variety, kinds = section_variety(arrangement)
    m["section_variety"], m["section_harmonies"] = variety, float(kinds)
    s["section_variety"] = 1.0 if variety is None else 0.7 + 0.3 * variety
    m["voicing_variety"] = voicing_variety(song)




def _rhythm(v: _View, traits: GenreTraits, frame: SongContext, m: dict[str, float | None], s: dict[str, float],
            notes: list[str]) -> None:
    bass_bars = {v.bar_of(t) for t in v.bass}
    kick_bars = {v.bar_of(t) for t in v.kicks}
    both = bass_bars & kick_bars
    kicks = [t for t in v.kicks if v.bar_of(t) in both]
    bass = [t for t in v.bass if v.bar_of(t) in both]
    if kicks and bass:
        coverage = sum(1 for k in kicks if near(bass, k)) / len(kicks)
        precision = sum(1 for b in bass if near(v.kicks, b)) / len(bass)
        lock = max(coverage, precision)
        m["kick_bass_coverage"], m["kick_bass_precision"], m["kick_bass_lock"] = coverage, precision, lock
        if traits.bass_style in AVOIDS_KICK:  # four-on-the-floor: the bass is heard between the kicks
            s["kick_bass_lock"] = _ramp(1.0 - precision, 0.4, 0.65)
        else:
            s["kick_bass_lock"] = _clamp(lock / EXPECTED_LOCK.get(traits.bass_style, 0.8))
    else:
        m["kick_bass_lock"] = None
        s["kick_bass_lock"] = 1.0
        notes.append("kick/bass lock not measurable: no bar has both kick and bass")
    consistency = groove_consistency(v.drums, frame)  # the calibrated figure's own measure
    m["groove_consistency"] = consistency
    s["groove_consistency"] = 1.0 if consistency is None else _ramp(consistency, 0.55, 0.85)


def _arrangement(v: _View, arrangement: ArrangementPlan, m: dict[str, float | None], s: dict[str, float],
                 notes: list[str]) -> None:
    density = [0.0] * v.bars
    for n in v.all_notes:
        density[v.bar_of(n.start)] += 1.0
    # the final bar is left out: it is the ending's held chord, sparse by design whatever the
    # arc (a four-bar intro-only piece builds to it and would read as density against energy)
    energy = list(arrangement.bar_energy[: v.bars])[:-1]
    r = pearson(energy, density[: len(energy)]) if v.layered else None
    m["energy_density_corr"] = r
    if not v.layered:
        notes.append("energy/density correlation not measured: one part keeps its idiom's density")
    elif r is None:
        notes.append("energy/density correlation not measurable: energy or density is flat")
    s["energy_density_corr"] = 1.0 if r is None else _ramp(r, 0.0, 0.6)
    secs = arrangement.sections
    if len(secs) < 2:
        m["section_contrast"] = None
        s["section_contrast"] = 1.0
        notes.append("section contrast not measurable: one section")
        return
    per_sec = [fmean(density[sec.start_bar - 1: sec.start_bar - 1 + sec.bars]) for sec in secs]
    contrasts = []
    for i in range(len(secs) - 1):
        a, b = per_sec[i], per_sec[i + 1]
        dens = abs(a - b) / max(a, b, 1e-9)
        ra, rb = set(secs[i].roles), set(secs[i + 1].roles)
        roles = 1 - len(ra & rb) / max(1, len(ra | rb))
        contrasts.append(max(dens, roles))
    contrast = fmean(contrasts)
    m["section_contrast"] = contrast
    s["section_contrast"] = _ramp(contrast, 0.0, 0.2)


def _template(traits: GenreTraits, steps: int, notes: frozenset[int]) -> list[float]:
    fam = kit_for(traits.drum_family, traits.kit, steps)
    vec = [0.0] * steps
    if KICK in notes:
        for step, _ in kick_steps(fam, 0.9, 0, steps):
            vec[step] += 1.0
    for layer in fam.layers:
        if layer.note in notes and layer.note != KICK and layer.min_energy <= 0.9 < layer.max_energy:
            for step in range(steps):
                if layer.patterns[0][step % len(layer.patterns[0])] in "Xx":
                    vec[step] += 1.0
    return vec


def _vibe(v: _View, song: Song, intent: Intent, harmony: HarmonyPlan, traits: GenreTraits, steps: int,
          m: dict[str, float | None], s: dict[str, float], notes: list[str]) -> None:
    m["tempo"] = song.tempo
    s["tempo_fidelity"] = _clamp(1.0 - abs(song.tempo - intent.tempo) / (0.1 * intent.tempo))
    m["tempo_fidelity"] = s["tempo_fidelity"]
    key_score = 1.0
    pitched = [n for _, n in v.pitched]
    if pitched:
        try:
            est = detect_key(pitched)
            scale = get_scale(f"{harmony.key} {harmony.mode}")
            minor = len(scale.intervals) > 2 and scale.intervals[2] == 3
            keys = [k for k, _ in est.ranking]
            rank = next(i for i, k in enumerate(keys) if k.tonic_pc == scale.tonic_pc and k.is_minor == minor)
            top = keys[0]
            heard = 1.0 if rank == 0 else 0.9 if (rank <= 2 or set(top.scale.pitch_classes) == set(scale.pitch_classes)) \
                else max(0.0, 1.0 - rank / 12)
            # a high harmonic dial asks for colour that blurs the key: expect less
            expected = 1.0 - 1.2 * max(0.0, harmony.harmonic_dial - 0.5)
            key_score = _clamp(heard / expected)
            m["key_rank"], m["key_detected_confidence"] = float(rank), est.confidence
        except TheoryError as exc:
            notes.append(f"key not measurable: {exc.message}")
    m["key_fidelity"] = key_score
    s["key_fidelity"] = key_score
    parts: list[float] = []
    lo, hi = traits.tempo_range
    bpm = intent.tempo
    in_range = any(lo - 3 <= t <= hi + 3 for t in (bpm, bpm * 2, bpm / 2))
    parts.append(1.0 if in_range else 0.6)
    if v.drums:
        kick_vec, back_vec = [0.0] * steps, [0.0] * steps
        step_len = v.bpb / steps
        for n in v.drums:
            at, length = v.in_bar(n.start)
            if abs(length - v.bpb) > 1e-6:  # the template is the opening metre's: its bars alone are read
                continue
            pos = round(at / step_len) % steps
            if n.pitch in (KICK, 35):
                kick_vec[pos] += 1.0
            elif n.pitch in BACKBEAT and n.velocity >= 60:
                back_vec[pos] += 1.0
        kick_t, back_t = _template(traits, steps, frozenset({KICK})), _template(traits, steps, BACKBEAT)
        kick_sim = cosine(kick_vec, kick_t)
        back_sim = cosine(back_vec, back_t) if any(back_t) and any(back_vec) else kick_sim
        m["kick_template_similarity"], m["backbeat_template_similarity"] = kick_sim, back_sim
        if any(kick_t):  # an idiom with no kick pattern (film, ambient, classical percussion) has none to match
            parts += [_ramp(kick_sim, 0.3, 0.8), _ramp(back_sim, 0.3, 0.8)]
        swing = _measured_swing(v.drums, groove(traits.drum_family).swing_unit, v.in_bar)
        if swing is not None:
            m["swing_measured"] = swing
            parts.append(_clamp(1.0 - max(0.0, abs(swing - traits.swing) - 0.06) / 0.15))
    genre = fmean(parts)
    m["genre_fidelity"] = genre
    s["genre_fidelity"] = genre


def _measured_swing(drums: list[Note], unit: float, in_bar: Callable[[float], tuple[float, float]]) -> float | None:
    """Median delay of notes near the off-beats of `unit` (counted within each bar: `in_bar`
    gives a beat's place in its bar), as a fraction of `unit`."""
    delays = []
    for n in drums:
        pos = in_bar(n.start)[0] / unit
        k = math.floor(pos + 0.2)
        if k % 2 == 1 and -0.2 <= pos - k <= 0.45:
            delays.append(pos - k)
    if len(delays) < 8:
        return None
    delays.sort()
    return max(0.0, delays[len(delays) // 2])


def _combine(values: list[float]) -> float:
    """An axis: half the mean of its numbers, half the weakest, so one bad number cannot hide."""
    return 0.5 * fmean(values) + 0.5 * min(values)


def evaluate_quality(song: Song, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> QualityScore:
    """Measure `song` on the four axes (see the module docstring)."""
    traits = primary_genre(intent)
    steps = max(1, round(song.beats_per_bar * 4))
    frame = from_plans(song.beats_per_bar, harmony, arrangement, traits.bass_style, MetreMap.of_song(song))
    view = _View(song, harmony, arrangement, frame)
    if not view.all_notes:  # nothing was played: nothing passes
        return QualityScore(axes=dict.fromkeys(AXES, 0.0), metrics={k: None for ks in AXIS_METRICS.values() for k in ks},
                            metric_scores={k: 0.0 for ks in AXIS_METRICS.values() for k in ks},
                            notes=["the song has no notes"])
    metrics: dict[str, float | None] = {}
    scores: dict[str, float] = {}
    notes: list[str] = []
    _harmony(view, harmony, metrics, scores, notes)
    _writing(song, harmony, arrangement, metrics, scores, notes)
    _rhythm(view, traits, frame, metrics, scores, notes)
    _arrangement(view, arrangement, metrics, scores, notes)
    _vibe(view, song, intent, harmony, traits, steps, metrics, scores, notes)
    figures = rate(measure(song, frame), frame.colour)
    axes = {axis: round(_combine([scores[k] for k in AXIS_METRICS[axis]]
                                 + [f.score for f in figures.values() if f.axis == axis]), 4) for axis in AXES}
    clean = {k: (None if val is None else round(val, 4)) for k, val in metrics.items()}
    return QualityScore(axes=axes, metrics=clean, metric_scores={k: round(x, 4) for k, x in scores.items()},
                        notes=notes, figures=figures)


def gate(score: QualityScore) -> GateResult:
    """Pass when no axis is below 0.5 and the mean is at least 0.7; else name the stage to redo."""
    failing = [a for a in AXES if score.axes.get(a, 0.0) < AXIS_MIN]
    mean = score.mean
    if not failing and mean >= MEAN_MIN:
        return GateResult(passed=True, failing_axes=[], responsible_stage=0,
                          reason=f"all axes ≥ {AXIS_MIN}, mean {mean:.2f} ≥ {MEAN_MIN}")
    axis = min(failing or list(AXES), key=lambda a: score.axes.get(a, 0.0))
    rated = {k: score.metric_scores.get(k, 1.0) for k in AXIS_METRICS[axis]}
    rated.update({name: f.score for name, f in score.figures.items() if f.axis == axis})
    metric = min(rated, key=rated.__getitem__)  # the first of equals: the plan stage before the parts
    why = (f"{', '.join(failing)} below {AXIS_MIN}" if failing else f"mean {mean:.2f} below {MEAN_MIN}")
    stage = stage_of(metric)
    return GateResult(passed=False, failing_axes=failing, responsible_stage=stage,
                      reason=f"{why}; weakest: {metric} = {rated[metric]:.2f} (stage {stage})",
                      responsible_parts=list(parts_of(metric)) if stage == 4 else [],
                      weakest=_in_words(metric, score))


def parts_of(metric: str) -> tuple[str, ...]:
    """The roles a metric or a calibrated figure is about (empty: the whole stage's)."""
    key, _, group = metric.partition(".")
    if group:
        return GROUP_PARTS.get(group, (group,))
    return METRIC_PARTS.get(key, ())


def _in_words(metric: str, score: QualityScore) -> str:
    """'groove consistency 0.31 < 0.78' (a figure against its reference range), or the metric
    and its rating."""
    name = metric.replace("_", " ").replace(".", " of the ")
    figure = score.figures.get(metric)
    if figure is not None:
        side = f"< {figure.low:.2f}" if figure.value < figure.low else (
            f"> {figure.high:.2f}" if figure.value > figure.high else f"in {figure.low:.2f}–{figure.high:.2f}")
        return f"{name} {figure.value:.2f} {side}"
    value = score.metrics.get(metric)
    return f"{name} {value:.2f} (rated {score.metric_scores.get(metric, 0.0):.2f})" if value is not None \
        else f"{name} rated {score.metric_scores.get(metric, 0.0):.2f}"


def stage_of(metric: str) -> int:
    """The stage whose output a metric or a calibrated figure measures."""
    return METRIC_STAGE.get(metric) or FIGURE_STAGE[figure_key(metric)]

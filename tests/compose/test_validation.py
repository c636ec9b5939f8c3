"""Stage 7 — validation: each number measures what it claims (hand-built songs
with known answers, and real songs damaged in one respect at a time), and
the gate acts on the result and names the responsible stage."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bandstand.compose.assembly import assemble
from bandstand.compose.harmony import build_harmony
from bandstand.compose.models.quality import QualityScore
from bandstand.compose.parts import CORE_ROLES, generate_part
from bandstand.compose.validation import AXIS_METRICS, METRIC_STAGE, evaluate_quality, gate
from bandstand.score import Note, Song, Track

from .musicfix import make_arrangement, make_intent


def _full(genre: str, seed: int = 1, **kw):
    intent = make_intent(genre, **kw)
    harmony = build_harmony(intent, seed)
    plan = make_arrangement([c.bars for c in harmony.chords])
    tracks = [generate_part(r, intent, harmony, plan, seed * 10 + i).track for i, r in enumerate(CORE_ROLES)]
    return assemble(tracks, intent, harmony, plan), intent, harmony, plan


def _map(song: Song, role: str, fn) -> Song:
    tracks = []
    for t in song.tracks:
        if t.role == role or (role == "pitched" and not t.is_drum):
            t = Track(t.name, t.role, t.program, t.is_drum, t.channel, notes=[fn(n) for n in t.notes],
                      controls=list(t.controls), pitch_bends=list(t.pitch_bends))
        tracks.append(t)
    return Song(song.title, song.tempo, song.time_signature, song.key, list(song.sections), tracks)


def test_rates_on_a_hand_built_song():
    intent = make_intent("pop", key="C", mode="major", harmonic=0.0)
    harmony = build_harmony(intent, 0)
    plan = make_arrangement([c.bars for c in harmony.chords], form=(("A", "verse", 4, 0.5, ["bass", "lead"], "cut"),))
    chord0 = harmony.chords[0]
    root = 36 + chord0.root
    lead = [Note(0.0, 1.0, 60 + chord0.pitch_classes[0], 90),  # strong beat, chord tone
            Note(1.0, 1.0, 62, 90),                            # weak beat, in scale
            Note(2.0, 1.0, 61, 90),                            # strong beat, outside scale and chord
            Note(3.0, 1.0, 66, 90)]                            # weak beat, outside the C major scale
    song = Song("t", intent.tempo, key="C major", tracks=[
        Track("Bass", "bass", notes=[Note(0.0, 2.0, root, 100)]), Track("Lead", "lead", notes=lead)])
    q = evaluate_quality(song, intent, harmony, plan)
    assert q.metrics["in_scale_rate"] == pytest.approx(3 / 5, abs=1e-4)
    assert q.metrics["chord_tone_rate_strong"] == pytest.approx(2 / 3, abs=1e-4)  # bass + two lead notes on 1 and 3
    assert q.metrics["kick_bass_lock"] is None and q.notes  # no drums: said so, not invented


def test_good_songs_pass_across_genres():
    for genre in ("pop", "trap", "house", "jazz", "neo-soul", "rock", "afrobeat", "drum & bass", "reggae"):
        song, intent, harmony, plan = _full(genre)
        q = evaluate_quality(song, intent, harmony, plan)
        result = gate(q)
        assert result.passed, (genre, q.axes, result.reason)
        assert set(q.axes) == set(AXIS_METRICS)
        assert all(0.0 <= v <= 1.0 for v in q.axes.values())


def test_wrong_notes_sink_the_harmony_axis():
    song, intent, harmony, plan = _full("pop", harmonic=0.1)
    good = evaluate_quality(song, intent, harmony, plan)
    bad_song = _map(song, "pitched", lambda n: replace(n, pitch=n.pitch + 1))
    bad = evaluate_quality(bad_song, intent, harmony, plan)
    assert bad.metrics["in_scale_rate"] < good.metrics["in_scale_rate"] - 0.3
    assert bad.metrics["chord_tone_rate_strong"] < 0.3
    assert bad.axes["harmony"] < 0.5
    verdict = gate(bad)
    assert not verdict.passed and "harmony" in verdict.failing_axes
    assert verdict.responsible_stage in (2, 4)


def test_bass_off_the_kick_sinks_the_rhythm_axis():
    song, intent, harmony, plan = _full("rock")
    good = evaluate_quality(song, intent, harmony, plan)
    shifted = _map(song, "bass", lambda n: replace(n, start=n.start + 0.25))
    bad = evaluate_quality(shifted, intent, harmony, plan)
    assert good.metrics["kick_bass_lock"] > 0.9
    assert bad.metrics["kick_bass_lock"] < 0.35
    assert bad.axes["rhythm"] < good.axes["rhythm"] - 0.3


def test_random_drums_lose_groove_consistency_and_genre_fidelity():
    song, intent, harmony, plan = _full("house")
    rng = random.Random(0)
    scrambled = _map(song, "drums", lambda n: replace(n, start=int(n.start // 4) * 4 + rng.randrange(16) * 0.25))
    good = evaluate_quality(song, intent, harmony, plan)
    bad = evaluate_quality(scrambled, intent, harmony, plan)
    assert good.metrics["groove_consistency"] > 0.85
    assert bad.metrics["groove_consistency"] < good.metrics["groove_consistency"] - 0.2
    assert bad.metrics["kick_template_similarity"] < good.metrics["kick_template_similarity"] - 0.2


def test_energy_density_correlation_follows_the_plan():
    song, intent, harmony, plan = _full("pop")
    good = evaluate_quality(song, intent, harmony, plan)
    flipped = plan.model_copy(update={"bar_energy": [1.0 - e for e in plan.bar_energy]})
    bad = evaluate_quality(song, intent, harmony, flipped)
    assert good.metrics["energy_density_corr"] > 0.6
    assert bad.metrics["energy_density_corr"] < -0.6
    verdict = gate(bad)
    assert not verdict.passed and verdict.failing_axes == ["arrangement"] and verdict.responsible_stage == 3


def test_vibe_checks_tempo_key_and_genre():
    song, intent, harmony, plan = _full("house")
    good = evaluate_quality(song, intent, harmony, plan)
    slow = Song(song.title, intent.tempo * 0.8, song.time_signature, song.key, song.sections, song.tracks)
    assert evaluate_quality(slow, intent, harmony, plan).metrics["tempo_fidelity"] == 0.0
    far = build_harmony(make_intent("house", key="F#", mode="major"), 1)
    far = far.model_copy(update={"chords": harmony.chords})  # same chords, judged against F# major
    assert evaluate_quality(song, intent, far, plan).metrics["key_fidelity"] < good.metrics["key_fidelity"] - 0.3
    trap_intent = make_intent("trap", tempo=intent.tempo)
    as_trap = evaluate_quality(song, trap_intent, harmony, plan)
    assert as_trap.metrics["kick_template_similarity"] < good.metrics["kick_template_similarity"] - 0.2
    assert as_trap.axes["vibe"] < good.axes["vibe"]


def _score(**axes) -> QualityScore:
    scores = {m: axes.get(a, 0.9) for a, ms in AXIS_METRICS.items() for m in ms}
    return QualityScore(axes={a: axes.get(a, 0.9) for a in AXIS_METRICS}, metrics={}, metric_scores=scores)


def test_gate_thresholds_and_responsible_stage():
    assert gate(_score()).passed
    assert gate(_score(harmony=0.5, rhythm=0.7, arrangement=0.7, vibe=0.9)).passed  # mean 0.7, none < 0.5
    low = gate(_score(rhythm=0.4))
    assert not low.passed and low.failing_axes == ["rhythm"] and low.responsible_stage == 4
    mean = gate(_score(harmony=0.55, rhythm=0.6, arrangement=0.6, vibe=0.8))
    assert not mean.passed and mean.failing_axes == [] and "mean" in mean.reason
    assert mean.responsible_stage == METRIC_STAGE[AXIS_METRICS["harmony"][0]]
    s = _score(arrangement=0.3)
    s.metric_scores["section_contrast"] = 0.1
    assert gate(s).responsible_stage == 3


def test_an_empty_song_fails_every_axis():
    intent = make_intent("pop")
    harmony = build_harmony(intent, 0)
    plan = make_arrangement([c.bars for c in harmony.chords])
    q = evaluate_quality(Song("silence", intent.tempo, tracks=[Track("Lead", "lead")]), intent, harmony, plan)
    assert q.axes == dict.fromkeys(AXIS_METRICS, 0.0) and q.notes == ["the song has no notes"]
    verdict = gate(q)
    assert not verdict.passed and verdict.failing_axes == list(AXIS_METRICS)

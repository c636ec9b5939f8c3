"""`compose.quality`: figures that measure what they claim (hand-built lines with known
answers), ratings that spread over the reference range instead of saturating, a ranges table
calibrated on reference music, and — as a property over prompts and seeds — deliberately
broken songs (shuffled bars, wrong key, no bass) scoring clearly below the songs they were
broken from, with the gate failing them and passing the songs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.compose.api import Pipeline
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.quality import (
    DIRECTION,
    RANGES,
    from_plans,
    from_song,
    measure,
    rate,
    rate_one,
    take_score,
)
from bandstand.compose.quality.audio import AUDIO_FIGURES
from bandstand.compose.quality.broken import BREAKS
from bandstand.compose.quality.melody import melody_figures
from bandstand.compose.quality.model import figure_key
from bandstand.compose.validation import evaluate_quality, gate
from bandstand.score import Note, Song, Track


def test_every_figure_has_a_calibrated_range() -> None:
    kinds = {figure_key(name) for name in RANGES}
    assert set(DIRECTION) == kinds
    for kind in AUDIO_FIGURES:  # the stems' figures have a range per role
        assert {f"{kind}.{role}" for role in ("drums", "bass", "chords", "lead", "pad")} <= set(RANGES)
    for name, (low, median, high, sources) in RANGES.items():
        assert low <= median <= high, name
        assert set(sources) <= {"bach", "ours"} and sources, name
    # the figures a chorale can be measured on were calibrated on chorales too
    for name in ("key_clarity", "in_scale", "step_share", "melodic_range", "motif_recurrence", "notes_per_bar"):
        assert "bach" in RANGES[name][3]


def test_ratings_spread_instead_of_saturating() -> None:
    low, median, high, _ = RANGES["key_clarity"]
    rising = [rate_one("key_clarity", v, low, median, high) for v in (low - 0.2, low - 0.05, low, median, high)]
    assert rising == sorted(rising) and len(set(rising)) == 5 and rising[-1] == 1.0
    low, median, high, _ = RANGES["step_share"]
    inside = rate_one("step_share", median, low, median, high)
    assert inside == 1.0
    assert rate_one("step_share", high, low, median, high) < inside
    assert rate_one("step_share", low - 0.3, low, median, high) < rate_one("step_share", low, low, median, high)
    assert rate_one("key_rank", 0, 0.0, 0.0, 0.0) == 1.0 > rate_one("key_rank", 3, 0.0, 0.0, 0.0)


def _c_major_song(lead: list[int], bass: bool = True) -> Song:
    tracks = [Track("Lead", "lead", notes=[Note(float(i), 1.0, p, 90) for i, p in enumerate(lead)])]
    if bass:
        tracks.append(Track("Bass", "bass", notes=[Note(float(b * 4), 4.0, 36 + (0, 5, 7, 0)[b % 4], 90)
                                                   for b in range(len(lead) // 4)]))
    return Song("t", 100.0, tracks=tracks)


def test_figures_on_a_hand_built_song() -> None:
    line = [60, 62, 64, 65, 67, 65, 64, 62] * 4  # stepwise, a fifth wide, the same bar-pair four times
    song = _c_major_song(line)
    ctx = from_song(song)
    assert (ctx.tonic_pc, ctx.minor) == (0, False)
    figures = measure(song, ctx)
    assert figures["in_scale.lead"] == 1.0 and figures["in_scale.bass"] == 1.0
    assert figures["key_rank"] == 0.0
    assert figures["step_share"] == 1.0 and figures["melodic_range"] == 7.0
    assert figures["motif_recurrence"] == 1.0  # every cell of the line comes back
    assert figures["bass_coverage"] == 1.0
    assert measure(_c_major_song(line, bass=False), ctx)["bass_coverage"] == 0.0
    out_of_key = measure(_c_major_song([p + 1 for p in line]), ctx)
    assert out_of_key["in_scale.lead"] == 0.25 and (out_of_key["key_rank"] or 0) > 0  # only the F is in C
    leaps = melody_figures([Note(float(i), 1.0, 60 + (12 if i % 2 else 0) + i % 5, 90) for i in range(16)])
    assert leaps["step_share"] == 0.0 and (leaps["direction_changes"] or 0) > 0.9


def test_a_chorale_scores_inside_the_reference_range() -> None:
    """A Bach chorale read from music21's corpus rates well on what it can be measured on."""
    corpus = pytest.importorskip("music21.corpus")
    from music21 import note

    score = corpus.parse("bach/bwv66.6")
    tracks = [Track(p.partName or role, role, notes=[Note(float(n.getOffsetInHierarchy(p)), float(n.quarterLength),
                                                          n.pitch.midi, 80)
                                                     for n in p.recurse().getElementsByClass(note.Note)])
              for role, p in zip(("lead", "chords", "chords", "bass"), score.parts, strict=True)]
    song = Song("bwv66.6", 80.0, tracks=tracks)
    rated = rate(measure(song, from_song(song)))
    assert {"key_clarity", "in_scale.lead", "step_share", "melodic_range"} <= set(rated)
    assert take_score(measure(song, from_song(song))) > 0.7
    assert all(f.sources for f in rated.values())


PROMPTS = ("funk groove in E minor", "dark trap, 140 BPM, key of Am", "bossa nova for a rainy café")


@pytest.fixture(scope="module")
def songs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Song, object, object, object]]:
    out: Path = tmp_path_factory.mktemp("quality")
    made = []
    for prompt in PROMPTS:
        for seed in (1, 2):
            pipeline = Pipeline.create(prompt, seed=seed, bars=24, out_dir=str(out), render_audio=False,
                                       render_pianoroll=False, checkpoints=False)
            result = pipeline.run()
            art = pipeline.engine.artifacts
            assert result.song is not None
            made.append((result.song, art["intent"], art["harmony"], art["arrangement"]))
    return made


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_broken_songs_score_clearly_lower(songs: list[tuple[Song, object, object, object]], brk: str) -> None:
    for i, (song, intent, harmony, arrangement) in enumerate(songs):
        good = evaluate_quality(song, intent, harmony, arrangement)  # type: ignore[arg-type]
        bad = evaluate_quality(BREAKS[brk](song, i), intent, harmony, arrangement)  # type: ignore[arg-type]
        assert bad.mean < good.mean - 0.05, (brk, i, good.axes, bad.axes)
        assert gate(good).passed and not gate(bad).passed, (brk, i, bad.axes)
        ctx = from_plans(song.beats_per_bar, harmony, arrangement,  # type: ignore[arg-type]
                         primary_genre(intent).bass_style)  # type: ignore[arg-type]
        assert take_score(measure(BREAKS[brk](song, i), ctx), ctx.colour) < take_score(measure(song, ctx), ctx.colour) - 0.1


def test_figures_are_published_with_their_ranges(songs: list[tuple[Song, object, object, object]]) -> None:
    song, intent, harmony, arrangement = songs[0]
    score = evaluate_quality(song, intent, harmony, arrangement)  # type: ignore[arg-type]
    assert score.figures and all(f.low <= f.median <= f.high for f in score.figures.values())
    for name, f in score.figures.items():
        low, median, high = RANGES[figure_key(name)][:3]
        assert (f.median, f.high) == (median, high) and f.low <= low
        assert 0.0 <= f.score <= 1.0
    means = {round(evaluate_quality(*s).mean, 3) for s in songs}  # type: ignore[arg-type]
    assert len(means) > 1  # the songs do not all score alike


def test_spectral_balance_of_known_tones() -> None:
    import numpy as np

    from bandstand.compose.quality.audio import spectrum_figures

    rate_hz = 44100
    t = np.arange(rate_hz * 2) / rate_hz
    low = spectrum_figures(np.sin(2 * np.pi * 100 * t).astype(np.float32), rate_hz)
    high = spectrum_figures(np.sin(2 * np.pi * 1600 * t).astype(np.float32), rate_hz)
    assert low["low_share"] == pytest.approx(1.0, abs=0.01) and low["brightness"] == pytest.approx(0.0, abs=0.05)
    assert high["low_share"] == pytest.approx(0.0, abs=0.01) and high["brightness"] == pytest.approx(4.0, abs=0.05)
    assert spectrum_figures(np.zeros(rate_hz, dtype=np.float32), rate_hz) == {"low_share": None, "brightness": None}


def test_a_rendered_song_publishes_its_stems_figures(tmp_path: Path) -> None:
    """With the WAV rendered, the manifest's quality carries each stem's loudness against the mix
    and its spectral balance, each with its role's reference range."""
    import json

    from bandstand.compose import compose

    result = compose("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), render_pianoroll=False)
    audio = json.loads((result.session_dir / "manifest.json").read_text(encoding="utf-8"))["quality"]["audio"]
    for role in ("drums", "bass", "lead"):
        for kind in ("stem_loudness", "low_share", "brightness"):
            f = audio[f"{kind}.{role}"]
            assert f["low"] <= f["median"] <= f["high"] and 0.0 <= f["score"] <= 1.0 and f["axis"] == "mix"
    assert audio["low_share.bass"]["value"] > audio["low_share.lead"]["value"]  # the bass sits low, the lead does not
    assert audio["stem_loudness.bass"]["value"] < 0.0  # a stem is quieter than the mix it is part of


def test_the_closing_hit_is_not_the_groove() -> None:
    """A steady groove then the final kick and crash on the last bar's one: as steady as the
    groove alone; a last bar that keeps playing past its first beat is still compared."""
    from bandstand.compose.quality.context import SectionSpan, SongContext
    from bandstand.compose.quality.figures import groove_consistency
    from bandstand.score import Note

    ctx = SongContext(beats_per_bar=4, bars=4, tonic_pc=0, minor=False, scale=frozenset({0, 2, 4, 5, 7, 9, 11}),
                      sections=(SectionSpan(0, 4, frozenset({"drums"})),))
    groove = [Note(bar * 4 + beat, 0.25, pitch, 100) for bar in range(3) for beat, pitch in
              ((0, 36), (1, 38), (2, 36), (3, 38), *((b / 2, 42) for b in range(8)))]
    closing = [Note(12, 1, 36, 110), Note(12, 1, 49, 110)]
    assert groove_consistency(groove + closing, ctx) == pytest.approx(1.0)
    played_on = [*closing, Note(13, 0.25, 38, 100)]  # a hit past the one: a bar of its own, compared
    assert groove_consistency(groove + played_on, ctx) < 0.9


def test_a_two_bar_kick_figure_and_its_answer_are_a_groove_kept() -> None:
    """A kick alone ("no drums except kick") playing the kit's two-bar figure and its answer, as
    a loop repeats it, is a steady groove; bars that change every time are not."""
    from bandstand.compose.quality.context import SectionSpan, SongContext
    from bandstand.compose.quality.figures import groove_consistency
    from bandstand.score import Note

    ctx = SongContext(beats_per_bar=4, bars=8, tonic_pc=0, minor=False, scale=frozenset({0, 2, 4, 5, 7, 9, 11}),
                      sections=(SectionSpan(0, 8, frozenset({"drums"})),))
    figure, answer = (0, 10), (0, 7, 10)  # the lo-fi kit's "X.........x....." and "X......x..x....."
    loop = [Note(bar * 4 + step / 4, 0.25, 36, 100) for bar in range(8) for step in (figure, answer)[bar % 2]]
    kept = groove_consistency(loop, ctx)
    assert kept is not None and kept >= 0.9  # bar 1 differs from bar 0; every later bar repeats the one two before
    wandering = [Note(bar * 4 + step / 4, 0.25, 36, 100) for bar in range(8) for step in (0, 3 + bar, 13 - bar)]
    lost = groove_consistency(wandering, ctx)
    assert lost is not None and lost < 0.6

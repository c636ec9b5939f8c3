"""Synthesis per track in two processes: the split, determinism, and the same music as one synthesizer."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import RenderError
from bandstand.render import render_wav
from bandstand.render.sf2.table import font_table
from bandstand.render.soundfont import find_soundfont
from bandstand.render.synth import (
    SYNTH_GROUPS,
    TAIL_SECONDS,
    _events,
    _play,
    clock,
    default_workers,
    pitch_work,
    synth_items,
    synthesize,
    synthesize_tracks,
)
from bandstand.score import Note, Song, TempoChange, Track, assign_channels
from tests.midi.songs import demo_song

ROLES = ["drums", "bass", "chords", "lead", "pad", "fx", "keys"]


@st.composite
def songs(draw: st.DrawFn) -> Song:
    tracks = []
    for i in range(draw(st.integers(1, 7))):
        role = draw(st.sampled_from(ROLES))
        channel = draw(st.one_of(st.none(), st.integers(0, 15)))
        notes = [Note(draw(st.floats(0, 32)), draw(st.floats(0.1, 8)), 60, 90) for _ in range(draw(st.integers(0, 6)))]
        tracks.append(Track(f"t{i}", role, is_drum=role == "drums", channel=channel, notes=notes))
    return Song(tempo=draw(st.floats(40, 200)), tracks=tracks)


@settings(max_examples=200, deadline=None)
@given(st.floats(20, 300), st.lists(st.tuples(st.integers(0, 64), st.floats(20, 300)), max_size=6),
       st.lists(st.one_of(st.integers(0, 70).map(float), st.floats(0, 70)), min_size=1, max_size=20))
def test_clock_is_beats_to_seconds_to_the_bit(tempo: float, changes: list[tuple[int, float]],
                                              beats: list[float]) -> None:
    song = Song(tempo=tempo, tempo_changes=[TempoChange(float(b), bpm) for b, bpm in changes])
    seconds = clock(song)
    assert [seconds(b) for b in beats] == [song.beats_to_seconds(b) for b in beats]


@settings(max_examples=80, deadline=None)
@given(songs())
def test_items_play_every_note_once_and_split_only_a_dominant_track(song: Song) -> None:
    items = synth_items(song)
    channels = assign_channels(song)

    def key(t: Track, ch: int, n: Note) -> tuple[str, int, float, float, int]:
        return t.name, ch, n.start, n.duration, n.pitch

    played = sorted(key(t, ch, n) for _, (_, t, ch, pitches), _ in items for n in t.notes if n.pitch in pitches)
    assert played == sorted(key(t, ch, n) for t, ch in zip(song.tracks, channels, strict=True) for n in t.notes)
    rows = [row for row, _, _ in items]
    assert len(rows) == len(set(rows))  # one item per buffer row
    split = [part[0] for row, part, _ in items if row == len(song.tracks)]
    assert len(split) <= 1
    works = [w for _, _, w in items]
    assert works == sorted(works, reverse=True)  # heaviest first
    if split:
        whole = sum(pitch_work(song, [song.tracks[split[0]]], channels[split[0]] == 9).values())
        assert whole > sum(works) - whole  # only a track heavier than all the others is split
    assert synth_items(song) == items  # the plan depends on the song only


def test_tracks_stay_whole_unless_one_outweighs_the_rest() -> None:
    song = demo_song(4)
    items = synth_items(song)
    assert sorted(part[0] for _, part, _ in items) == list(range(len(song.tracks)))


def test_processes_do_not_change_a_bit(tmp_path: Path) -> None:
    song = demo_song(4, tempo=120.0)
    one = synthesize(song, workers=1)
    two = synthesize(song, workers=2)
    assert np.array_equal(one, two)
    a = render_wav(song, tmp_path / "a.wav", workers=2)
    b = render_wav(song, tmp_path / "b.wav", workers=2)
    c = render_wav(song, tmp_path / "c.wav", workers=1)
    assert a.read_bytes() == b.read_bytes() == c.read_bytes()


def test_groups_sound_like_one_synthesizer() -> None:
    # one synthesizer playing a whole track against the split: the same notes, instrument and level;
    # only where TinySoundFont updates its envelopes (every 64 samples from each render call) moves
    song = demo_song(4, tempo=120.0)
    split = synthesize_tracks(song)
    channels = assign_channels(song)
    for index, track in enumerate(song.tracks):
        whole = np.zeros((1, 2, split.shape[1]), dtype=np.float32)  # rows are channel-major
        _play([(_events(song, (0, track, channels[index], frozenset(range(128)))), 0, False)], whole, 44100,
              find_soundfont().read_bytes(), "sf2")
        rms = float(np.sqrt((whole.astype(np.float64) ** 2).mean()))
        error = float(np.sqrt(((split[index] - whole[0].T).astype(np.float64) ** 2).mean()))
        assert rms > 0.001, track.role
        assert error < 0.05 * rms, track.role


def test_each_track_has_its_own_buffer_and_left_out_tracks_are_silent() -> None:
    song = demo_song(2, tempo=120.0)
    tracks = synthesize_tracks(song, include=[i != 1 for i in range(len(song.tracks))])
    assert tracks.shape[0] == len(song.tracks)
    assert not tracks[1].any()
    assert all(tracks[i].any() for i in range(len(song.tracks)) if i != 1)
    assert np.array_equal(synthesize(song), synthesize_tracks(song).sum(axis=0, dtype=np.float32))


def test_slices_cover_every_frame() -> None:
    # a note sounding across the end of the song's last slice, and a length that is no multiple of a slice
    song = Song(tempo=60.0, tracks=[Track("Pad", "pad", program=89, notes=[Note(0.0, 1.37, 64, 100)])])
    audio = synthesize(song)
    assert len(audio) == int((1.37 + TAIL_SECONDS) * 44100)
    quarter = len(audio) // 16
    assert all(np.abs(audio[i * quarter : (i + 1) * quarter]).max() > 0 for i in range(4))


def test_an_empty_song_is_silence_of_the_tail() -> None:
    audio = synthesize(Song(tracks=[]))
    assert audio.shape == (int(TAIL_SECONDS * 44100), 2)
    assert not audio.any()


def test_one_cpu_means_one_synthesis_thread() -> None:
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from bandstand.render.synth import default_workers; print(default_workers())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1"
    assert default_workers() == min(SYNTH_GROUPS, len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_damaged_soundfont_is_one_clear_error(tmp_path: Path, workers: int) -> None:
    junk = tmp_path / "junk.sf2"
    junk.write_bytes(b"RIFF\x04\x00\x00\x00sfbk" + bytes(64))
    with pytest.raises(RenderError, match=r"cannot load SoundFont .*junk\.sf2"):
        render_wav(demo_song(2), tmp_path / "out.wav", soundfont=junk, workers=workers)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.sf2"]  # nothing half-written


def test_hi_hats_that_choke_each_other_share_a_synthesizer() -> None:
    hats = [Note(i / 2, 0.5, (42, 46, 44)[i % 3], 90) for i in range(48)]
    others = [Note(float(i), 1.0, pitch, 100) for i, pitch in enumerate([36, 38, 49, 51, 39, 45, 47, 50] * 3)]
    song = Song(tracks=[Track("Drums", "drums", is_drum=True, notes=hats + others)])
    items = synth_items(song)
    assert len(items) == 2  # the kit alone is all the work: it is split in two ...
    homes = [row for row, (_, _, _, pitches), _ in items if pitches & {42, 44, 46}]
    assert len(homes) == 1  # ... but the three hi-hats play on one synthesizer
    assert {42, 44, 46} <= next(p for row, (_, _, _, p), _ in items if row == homes[0])


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failure_on_one_synthesis_thread_stops_the_other_and_is_raised_once(workers: int) -> None:
    song = demo_song(8, tempo=120.0)
    asked: list[str] = []

    def failing() -> bool:  # the render's own question, asked by every synthesis thread between slices
        asked.append(threading.current_thread().name)
        if len(asked) == 12:
            raise ValueError("the caller broke")
        return False

    def synthesizing() -> set[str]:  # (another test's scratch may still be freed on a thread of its own)
        return {t.name for t in threading.enumerate() if t.name.startswith("bandstand-synth")}

    before = synthesizing()
    with pytest.raises(ValueError, match="the caller broke"):
        render_wav(song, Path(os.devnull), workers=workers, cancelled=failing)
    assert synthesizing() == before  # no synthesis thread left running
    assert len(asked) <= 12 + workers  # each thread stops at its next question


def test_a_track_sounds_the_same_whoever_plays_it_and_whatever_came_before() -> None:
    song = demo_song(4, tempo=120.0)
    table = font_table(find_soundfont().read_bytes())
    assert not any(row == len(song.tracks) for row, _, _ in synth_items(song, None, table))
    together = synthesize_tracks(song, workers=1)
    compared = 0
    for left_out in range(len(song.tracks)):  # each track played after other ones than before
        mask = [i != left_out for i in range(len(song.tracks))]
        # a track heavier than the rest together is dealt in two: it sums two synthesizers
        split = {part[0] for row, part, _ in synth_items(song, mask, table) if row == len(song.tracks)}
        without = synthesize_tracks(song, workers=1, include=mask)
        for i in range(len(song.tracks)):
            if i != left_out and i not in split:
                assert np.array_equal(without[i], together[i])
                compared += 1
    assert compared >= 2 * len(song.tracks)
    for _ in range(3):  # who takes which item from the queue changes run to run; the audio does not
        assert np.array_equal(synthesize_tracks(song, workers=2), together)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 200), st.integers(0, 127), st.integers(1, 127))
def test_a_notes_voices_are_its_keys_voices_at_its_velocity(preset: int, key: int, velocity: int) -> None:
    """`voices_of` (worked out once per key for all velocities, `key_voices`) is the regions the
    note plays, each worked out on its own: the same floats."""
    from bandstand.render.sf2 import layout as L
    from bandstand.render.sf2.table import voices_of

    table = font_table(find_soundfont().read_bytes())
    preset %= len(table.first) - 1
    rows = table.regions[table.first[preset] : table.first[preset + 1]]
    expected = []
    for row in rows:
        if row[L.R_LOKEY] <= key <= row[L.R_HIKEY] and row[L.R_LOVEL] <= velocity <= row[L.R_HIVEL]:
            release = row[L.R_AMPENV + 5] if row[L.R_AMPENV + 5] > 0 else 0.01
            looping = row[L.R_LOOP_MODE] != 0 and row[L.R_LOOP_START] < row[L.R_LOOP_END]
            rate = max(row[L.R_SAMPLE_RATE], 1.0) * np.exp2(
                np.clip(np.array([(key - row[L.R_KEYCENTER]) * row[L.R_KEYTRACK] / 1200.0]), -10.0, 10.0))[0]
            expected.append((float(release), np.inf if looping else float(max(row[L.R_END] - row[L.R_OFFSET], 0.0) / rate)))
    assert voices_of(table, preset, key, velocity) == tuple(expected)

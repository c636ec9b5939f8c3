"""The render's cache of finished tracks (`bandstand.render.trackcache`): a render through it
writes the same bytes as one without it — cold, after one track changed, back to a song it
held — and plays only the tracks it does not hold; the tracks it plays sound as in a full
render (a track that a render of it alone would split is played whole); a damaged entry is
played again, never an error; the keys follow what a track sounds like; the folder keeps its
budget."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

from bandstand.render import render_wav
from bandstand.render.audio import render_song, tail_seconds
from bandstand.render.master import Master
from bandstand.render.partial import Font, synthesize_some
from bandstand.render.synth import frames_for, synthesize_dry
from bandstand.render.trackcache import SUFFIX, TrackCache, track_keys
from bandstand.score import Note, Send, Song, audible
from tests.render.test_chain import mixed_song
from tests.render.test_scratch import one_part
from tests.studio.songs import small_song

SONGS = {"mixed": mixed_song, "small": small_song, "one part": lambda: one_part(8)}


def busier(song: Song, index: int) -> Song:
    """`song` with track `index` playing a note more in every second beat it plays."""
    track = song.tracks[index]
    notes = sorted([*track.notes, *(Note(n.start + 0.5, 0.2, n.pitch, 64) for n in track.notes[::2])],
                   key=lambda n: n.start)
    tracks = list(song.tracks)
    tracks[index] = dataclasses.replace(track, notes=notes)
    return dataclasses.replace(song, tracks=tracks)


def rendered(song: Song, folder: Path, cache: TrackCache | None) -> dict[str, bytes]:
    """The master and the stems of `song`, rendered into `folder`, by file."""
    render_wav(song, folder / "song.wav", stems_dir=folder / "stems", cache=cache,
               settings=Master(target_lufs=-10.0))
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.wav"))}


def heard_rows(song: Song) -> tuple[list[bool], int]:
    return audible([t.mix for t in song.tracks]), frames_for(song, 44100, tail_seconds(song))


@pytest.mark.parametrize("name", sorted(SONGS))
def test_a_render_through_the_cache_is_the_same_bytes(tmp_path: Path, name: str) -> None:
    song = SONGS[name]()
    cache = TrackCache(tmp_path / "cache")
    changed = busier(song, len(song.tracks) - 1)
    for step, (label, take) in enumerate([("cold", song), ("one changed", changed), ("back", song),
                                          ("again", changed)]):
        without = rendered(take, tmp_path / f"{step}-without", None)
        assert len(without) >= 2
        assert rendered(take, tmp_path / f"{step}-with", cache) == without, label
    assert len(list(cache.folder.glob(f"*{SUFFIX}"))) == len(song.tracks) + 1


def test_only_the_tracks_the_cache_does_not_hold_are_played(tmp_path: Path) -> None:
    song = mixed_song()
    cache = TrackCache(tmp_path / "cache")
    assert render_song(song, cache=cache).played == (0, 1, 2)
    again = render_song(song, cache=cache)
    assert again.played == () and again.reused == (0, 1, 2)
    assert render_song(busier(song, 2), cache=cache).played == (2,)
    # the sends feed the buses, which are mixed anew: no track is played again
    sends = dataclasses.replace(song, tracks=[dataclasses.replace(
        t, mix=dataclasses.replace(t.mix, sends=(Send("Reverb", 0.9),))) for t in song.tracks])
    assert render_song(sends, cache=cache).played == ()
    louder = dataclasses.replace(song, tracks=[song.tracks[0], dataclasses.replace(
        song.tracks[1], mix=dataclasses.replace(song.tracks[1].mix, volume=0.5)), song.tracks[2]])
    assert render_song(louder, cache=cache).played == (1,)
    assert render_song(dataclasses.replace(song, tempo=119.0), cache=cache).played == (0, 1, 2)


def test_the_tracks_played_sound_as_in_a_render_of_all_of_them() -> None:
    song = mixed_song()  # the keys are split in two halves; the lead, played alone, would be split too
    heard, frames = heard_rows(song)
    full = synthesize_dry(song, include=heard, tail=tail_seconds(song))
    alone = synthesize_dry(song, include=[False, False, True], tail=tail_seconds(song))
    assert not np.array_equal(alone.audio[2], full.audio[2])  # why `synthesize_some` exists
    font = Font.load()
    for index in range(len(song.tracks)):
        out = np.zeros((len(song.tracks) + 1, 2, frames), dtype=np.float32)
        spans = np.zeros((len(song.tracks) + 1, 2), dtype=np.int64)
        play = [i == index for i in range(len(song.tracks))]
        synthesize_some(song, font, out, spans, include=heard, play=play)
        assert np.array_equal(out[index], full.audio[index]) and tuple(spans[index]) == full.spans[index]
        assert not np.delete(out[: len(song.tracks)], index, axis=0).any()


def test_a_damaged_entry_is_played_again_not_an_error(tmp_path: Path) -> None:
    song = mixed_song()
    cache = TrackCache(tmp_path / "cache")
    first = rendered(song, tmp_path / "first", cache)
    heard, frames = heard_rows(song)
    keys = track_keys(song, heard, Font.load(), sample_rate=44100, frames=frames)
    flipped, short, header = (cache.path(keys[i]) for i in range(3))
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x40  # one bit of one sample
    flipped.write_bytes(bytes(data))
    with open(short, "r+b") as fh:
        fh.truncate(os.path.getsize(short) - 4)
    data = bytearray(header.read_bytes())
    data[0] ^= 0xFF  # the magic
    header.write_bytes(bytes(data))
    again = render_song(song, cache=cache)
    assert again.played == (0, 1, 2)
    assert rendered(song, tmp_path / "second", cache) == first
    assert render_song(song, cache=cache).played == ()  # the entries were written again, whole


def test_a_damaged_entry_leaves_the_row_as_it_found_it(tmp_path: Path) -> None:
    cache = TrackCache(tmp_path)
    row = np.arange(2 * 4096, dtype=np.float32).reshape(2, 4096)
    cache.store("ab" * 32, row, (1024, 3072))
    back = np.zeros_like(row)
    assert cache.load("ab" * 32, back) == (1024, 3072)
    assert np.array_equal(back[:, 1024:3072], row[:, 1024:3072]) and not back[:, :1024].any()
    path = cache.path("ab" * 32)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    back = np.zeros_like(row)
    assert cache.load("ab" * 32, back) is None and not back.any() and not path.exists()
    assert cache.load("cd" * 32, back) is None  # nothing kept
    cache.store("ab" * 32, row, (0, 4096))
    assert cache.load("ab" * 32, np.zeros((2, 2048), dtype=np.float32)) is None  # another length: another song


def test_trim_keeps_the_render_and_the_most_recently_used(tmp_path: Path) -> None:
    cache = TrackCache(tmp_path, budget=3.0)
    row = np.ones((2, 1000), dtype=np.float32)
    keys = [f"{n:064x}" for n in range(6)]
    for age, key in enumerate(keys):
        cache.store(key, row, (0, 1000))
        os.utime(cache.path(key), (1000.0 + age, 1000.0 + age))
    stale = tmp_path / ".0123.x.tmp"
    stale.write_bytes(b"left by a killed writer")
    os.utime(stale, (0.0, 0.0))
    young = tmp_path / ".4567.x.tmp"
    young.write_bytes(b"being written")
    removed = cache.trim([keys[0]])  # the render's own entry is the oldest: it stays
    assert {p.name for p in removed} == {cache.path(keys[n]).name for n in (1, 2, 3)} | {stale.name}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [young.name, *(cache.path(keys[n]).name for n in (0, 4, 5))])
    assert TrackCache(tmp_path / "none").trim(keys) == []

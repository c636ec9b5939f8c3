"""Deliberately broken songs, to show that the quality model tells them from
good ones: the bars of every part shuffled (the same seed shuffles every track
the same way, so the band stays together but the song loses its order), the
pitched parts moved into the wrong key (a tritone away from what the plans
declare), and the bass left out."""

from __future__ import annotations

import random
from dataclasses import replace

from bandstand.compose.quality.context import BASS_ROLES
from bandstand.score import Song, Track

__all__ = ["BREAKS", "no_bass", "shuffled_bars", "wrong_key"]


def _with_tracks(song: Song, tracks: list[Track]) -> Song:
    return replace(song, tracks=tracks)


def shuffled_bars(song: Song, seed: int = 0) -> Song:
    """Every bar moved to another place (one permutation for all tracks)."""
    bpb = song.beats_per_bar
    bars = max(1, song.length_bars)
    order = list(range(bars))
    random.Random(seed).shuffle(order)
    tracks = []
    for t in song.tracks:
        notes = []
        for n in t.notes:
            bar = min(bars - 1, int(n.start // bpb))
            notes.append(replace(n, start=order[bar] * bpb + (n.start - bar * bpb)))
        tracks.append(replace(t, notes=sorted(notes, key=lambda n: (n.start, n.pitch))))
    return _with_tracks(song, tracks)


def wrong_key(song: Song, seed: int = 0) -> Song:
    """The pitched parts a tritone up (down where that would leave MIDI's range)."""
    tracks = []
    for t in song.tracks:
        if t.is_drum:
            tracks.append(t)
            continue
        tracks.append(replace(t, notes=[replace(n, pitch=n.pitch + 6 if n.pitch + 6 <= 127 else n.pitch - 6)
                                        for n in t.notes]))
    return _with_tracks(song, tracks)


def no_bass(song: Song, seed: int = 0) -> Song:
    """The song with its bass tracks silent."""
    return _with_tracks(song, [replace(t, notes=[]) if t.role in BASS_ROLES else t for t in song.tracks])


BREAKS = {"shuffled_bars": shuffled_bars, "wrong_key": wrong_key, "no_bass": no_bass}

"""`bandstand pattern from-midi FILE.mid --track N` prints one track as Strudel code that our own
pattern engine plays back as the same notes: onsets, lengths, velocities and pitches (drum keys
as their Strudel name's key) — for every track of a composed song and of a file written with mido."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import mido
import pytest

from bandstand.cli import run
from bandstand.craft.to_strudel import drum_sound
from bandstand.patterns import evaluate, pattern_to_song
from bandstand.patterns.to_score import lookup_sound

from .midi_songs import four_part_song


def _tracks(path: Path) -> list[list[tuple[int, int, int, int]]]:
    """Per track with notes (in file order, one per channel): (onset tick, pitch, length, velocity), by mido."""
    midi = mido.MidiFile(path)
    out = []
    for track in midi.tracks:
        tick, open_notes, channels = 0, {}, {}
        for message in track:
            tick += message.time
            if message.type == "note_on" and message.velocity:
                open_notes.setdefault((message.channel, message.note), []).append((tick, message.velocity))
            elif message.type in ("note_off", "note_on"):
                start, velocity = open_notes[(message.channel, message.note)].pop(0)
                key = message.note
                if message.channel == 9:
                    sound = lookup_sound(drum_sound(key))
                    assert sound is not None
                    key = sound.number
                channels.setdefault(message.channel, []).append((start, key, tick - start, velocity))
        out += [sorted(notes) for _, notes in sorted(channels.items())]
    return out


def _played(code: str, bars: int, beats_per_bar: float) -> list[tuple[int, int, int, int]]:
    song = pattern_to_song(evaluate(code), cycles=bars, beats_per_cycle=int(beats_per_bar))
    return sorted((round(n.start * 480), n.pitch, round(n.duration * 480), n.velocity)
                  for t in song.tracks for n in t.notes)


@pytest.mark.parametrize("source", ["composed", "mido"])
def test_every_track_round_trips_through_the_pattern_engine(source: str, composed_copy: Callable[..., Path],
                                                            tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = (composed_copy("funk groove", 3, 8) / "midi" / "full-arrangement.mid" if source == "composed"
            else four_part_song(tmp_path / "mine.mid"))
    expected = _tracks(path)
    assert len(expected) >= 4
    for number, notes in enumerate(expected, 1):
        assert run(["pattern", "from-midi", str(path), "--track", str(number), "--json"]) == 0
        clip = json.loads(capsys.readouterr().out)
        assert _played(clip["code"], clip["bars"], clip["beats_per_bar"]) == notes, clip["name"]


def test_a_track_number_out_of_range_names_the_tracks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = four_part_song(tmp_path / "mine.mid")
    assert run(["pattern", "from-midi", str(path), "--track", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has 4 tracks with notes" in err and "2 Electric Bass (finger)" in err

"""A four-part MIDI file written with mido (not bandstand's writer), as someone's DAW would:
a conductor track (tempo 100, optionally a key signature and section markers), then drums on
channel 10, a single-line bass, block chords and a single-line lead in A minor (Am F G Em),
each on a track of its own with a GM program and no name. Bars 9 on play a busier second half."""

from __future__ import annotations

from pathlib import Path

import mido

BAR = 1920  # ticks at 480 a beat, 4/4
TEMPO = 100


def _track(channel: int, program: int, events: list[tuple[int, int, int, int]]) -> mido.MidiTrack:
    track = mido.MidiTrack()
    track.append(mido.Message("program_change", channel=channel, program=program, time=0))
    messages = []
    for start, length, pitch, velocity in events:
        messages.append((start, 1, mido.Message("note_on", channel=channel, note=pitch, velocity=velocity)))
        messages.append((start + length, 0, mido.Message("note_off", channel=channel, note=pitch, velocity=0)))
    now = 0
    for tick, _, message in sorted(messages, key=lambda m: (m[0], m[1])):
        track.append(message.copy(time=tick - now))
        now = tick
    return track


def four_part_song(path: Path, *, bars: int = 16, key_signature: str | None = None,
                   markers: tuple[tuple[int, str], ...] = ()) -> Path:
    """Write the song to `path`; `markers` are (1-based bar, text)."""
    midi = mido.MidiFile(ticks_per_beat=480)
    conductor = mido.MidiTrack()
    conductor.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(TEMPO), time=0))
    if key_signature:
        conductor.append(mido.MetaMessage("key_signature", key=key_signature, time=0))
    now = 0
    for bar, text in markers:
        conductor.append(mido.MetaMessage("marker", text=text, time=(bar - 1) * BAR - now))
        now = (bar - 1) * BAR
    midi.tracks.append(conductor)
    progression = [(45, 48, 52), (41, 45, 48), (43, 47, 50), (40, 43, 47)]
    drums, bass, chords, lead = [], [], [], []
    for b in range(bars):
        chord, busy = progression[b % 4], b >= 8
        for beat in range(4):
            drums.append((b * BAR + beat * 480, 120, 36 if beat % 2 == 0 else 38, 100))
            step = 120 if busy else 240
            drums += [(b * BAR + beat * 480 + e * step, 60, 42, 70) for e in range(480 // step)]
        bass += [(b * BAR, 900, chord[0] - 12, 96), (b * BAR + 960, 900, chord[0] - 12 + (7 if busy else 0), 90)]
        chords += [(b * BAR, 1800, p + 12, 70) for p in chord]
        tune = [81, 79, 76, 77] if busy else [69, 72, 76, 74]
        lead += [(b * BAR + i * 480, 400, tune[(i + b) % 4], 88) for i in range(4)]
    midi.tracks += [_track(9, 0, drums), _track(1, 33, bass), _track(2, 0, chords), _track(3, 80, lead)]
    midi.save(path)
    return path

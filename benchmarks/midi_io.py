"""MIDI write + read of a 100-bar, five-part song: bandstand.midi against mido
(and symusic, the C++ engine, for reference) in the same run, plus what a
file of ours keeps after a pass through symusic (why symusic is not our
writer: one track per program, channels by position, no aftertouch, no
separate conductor track). Prints JSON.

Budget: writing ≤ 20 ms. Each figure is the median of several runs."""

from __future__ import annotations

import io
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import mido
import symusic

from bandstand.midi import read_midi, song_to_midi_bytes
from bandstand.score import (
    ChannelAftertouch,
    ControlChange,
    Note,
    PitchBend,
    ProgramChange,
    Section,
    Song,
    Track,
    assign_channels,
)

BARS = 100
RUNS = 15
WRITE_BUDGET_MS = 20.0


def build_song(bars: int = BARS) -> Song:
    """Five busy parts: 16th hats + kick/snare, 8th bass, chord stabs, 16th lead, pad."""
    song = Song(title="bench", tempo=124.0, key="A minor", sections=[Section("all", 1, bars, 0.7)])
    drums, bass = Track("Drums", "drums", is_drum=True), Track("Bass", "bass", program=38)
    chords, lead, pad = Track("Keys", "chords", program=4), Track("Lead", "lead", program=81), Track("Pad", "pad", program=89)
    for bar in range(bars):
        b0 = bar * 4.0
        drums.notes += [Note(b0 + i / 4, 0.125, 42, 60 + (i % 4 == 0) * 40) for i in range(16)]
        drums.notes += [Note(b0 + i, 0.25, 36 if i % 2 == 0 else 38, 110) for i in range(4)]
        bass.notes += [Note(b0 + i / 2, 0.4, 33 + (i * 5) % 12, 100) for i in range(8)]
        chords.notes += [Note(b0 + beat, 0.5, 57 + p, 80) for beat in (0.5, 2.5) for p in (0, 3, 7, 10)]
        lead.notes += [Note(b0 + i / 4, 0.2, 69 + (i * 7) % 12, 90) for i in range(16)]
        pad.notes += [Note(b0, 4.0, 60 + p, 50) for p in (0, 7)]
        lead.controls += [ControlChange(b0 + i, 74, 40 + 20 * i) for i in range(4)]
        lead.pitch_bends += [PitchBend(b0 + 3.5, 1024), PitchBend(b0 + 3.75, 0)]
    song.tracks += [drums, bass, chords, lead, pad]
    return song


def mido_write(song: Song) -> bytes:
    """The same file built with mido messages (absolute ticks sorted, then deltas)."""
    midi = mido.MidiFile(type=1, ticks_per_beat=480)
    midi.tracks.append(mido.MidiTrack([mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(song.tempo))]))
    for track, ch in zip(song.tracks, assign_channels(song), strict=True):
        events: list[tuple[int, int, mido.Message]] = [(0, 0, mido.Message("program_change", channel=ch, program=track.program))]
        for n in track.notes:
            on = round(n.start * 480)
            events.append((on, 2, mido.Message("note_on", channel=ch, note=n.pitch, velocity=n.velocity)))
            events.append((on + round(n.duration * 480), 1, mido.Message("note_off", channel=ch, note=n.pitch, velocity=64)))
        for c in track.controls:
            events.append((round(c.time * 480), 0, mido.Message("control_change", channel=ch, control=c.control, value=c.value)))
        for b in track.pitch_bends:
            events.append((round(b.time * 480), 0, mido.Message("pitchwheel", channel=ch, pitch=b.value)))
        events.sort(key=lambda e: (e[0], e[1]))
        out, now = mido.MidiTrack([mido.MetaMessage("track_name", name=track.name)]), 0
        for tick, _, msg in events:
            out.append(msg.copy(time=tick - now))
            now = tick
        midi.tracks.append(out)
    buffer = io.BytesIO()
    midi.save(file=buffer)
    return buffer.getvalue()


def mido_read(data: bytes) -> int:
    """Parse with mido and pair notes (what a reader must do to get notes with durations)."""
    midi = mido.MidiFile(file=io.BytesIO(data))
    count = 0
    for track in midi.tracks:
        tick, open_notes = 0, {}
        for msg in track:
            tick += msg.time
            if msg.type == "note_on" and msg.velocity:
                open_notes.setdefault((msg.channel, msg.note), []).append(tick)
            elif msg.type in ("note_on", "note_off") and open_notes.get((msg.channel, msg.note)):
                open_notes[(msg.channel, msg.note)].pop(0)
                count += 1
    return count


def samples_ms(fn: Callable[[], Any], runs: int = RUNS, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Wall-clock (or, with `clock=time.process_time`, CPU) milliseconds of `runs` calls of `fn`."""
    fn()  # warm up
    samples = []
    for _ in range(runs):
        t0 = clock()
        fn()
        samples.append((clock() - t0) * 1000)
    return samples


def median_ms(fn: Callable[[], Any], runs: int = RUNS, clock: Callable[[], float] = time.perf_counter) -> float:
    return round(statistics.median(samples_ms(fn, runs, clock)), 3)


def symusic_layout_check(song: Song) -> dict[str, Any]:
    """Why symusic is not our writer: pass our file through symusic and look at what is left."""
    song.tracks[1].program_changes.append(ProgramChange(4.0, 39))
    song.tracks[3].aftertouch.append(ChannelAftertouch(1.0, 40))
    ours = song_to_midi_bytes(song)
    again = mido.MidiFile(file=io.BytesIO(symusic.Score.from_midi(ours).dumps_midi()))
    channels = [sorted({m.channel for m in t if not m.is_meta}) for t in again.tracks]
    types = {m.type for t in again.tracks for m in t}
    first = {m.type for m in again.tracks[0]}
    return {
        "part_tracks_expected": len(song.tracks),
        "part_tracks_after_symusic": sum(1 for c in channels if c),
        "channels_expected": assign_channels(song),
        "channels_after_symusic": [c[0] for c in channels if c],
        "conductor_track_kept": not ({"note_on"} & first),
        "aftertouch_kept": "aftertouch" in types,
    }


def main() -> int:
    song = build_song()
    ours = song_to_midi_bytes(song)
    theirs = mido_write(song)
    sym = symusic.Score.from_midi(ours)
    notes = sum(len(t.notes) for t in song.tracks)
    assert sum(len(t.notes) for t in read_midi(ours).tracks) == notes == mido_read(ours)
    result: dict[str, Any] = {
        "benchmark": "midi_io",
        "song": {"bars": BARS, "tracks": len(song.tracks), "notes": notes, "bytes": len(ours)},
        "runs": RUNS,
        "bandstand_write_ms": median_ms(lambda: song_to_midi_bytes(song)),
        "bandstand_write_best_ms": round(min(samples_ms(lambda: song_to_midi_bytes(song))), 3),
        # CPU time too: on a shared, loaded machine wall-clock time includes waiting for a CPU
        "bandstand_write_cpu_ms": median_ms(lambda: song_to_midi_bytes(song), clock=time.process_time),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "bandstand_read_ms": median_ms(lambda: read_midi(ours)),
        "mido_write_ms": median_ms(lambda: mido_write(song)),
        "mido_read_ms": median_ms(lambda: mido_read(theirs)),
        "symusic_write_ms": median_ms(sym.dumps_midi),
        "symusic_read_ms": median_ms(lambda: symusic.Score.from_midi(ours)),
    }
    ours_total = result["bandstand_write_ms"] + result["bandstand_read_ms"]
    mido_total = result["mido_write_ms"] + result["mido_read_ms"]
    result["bandstand_write_read_ms"] = round(ours_total, 3)
    result["mido_write_read_ms"] = round(mido_total, 3)
    result["speedup_vs_mido"] = round(mido_total / ours_total, 2)
    result["symusic_round_trip"] = symusic_layout_check(build_song(4))
    result["write_budget_ms"] = WRITE_BUDGET_MS
    result["write_within_budget"] = result["bandstand_write_ms"] <= WRITE_BUDGET_MS
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

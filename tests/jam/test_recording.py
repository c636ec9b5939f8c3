"""The recording: every cycle keeps the length it was played with, and the file's key and
metre are the ones the jam opened with (regression: a later 7/8 stretched the 4/4 bars,
and the file claimed the last key from beat 0)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bandstand.jam.headless import run_headless
from bandstand.jam.persona import resolve_members
from bandstand.midi import read_midi


def _record(tmp_path: Path, *directives: str) -> Path:
    out = tmp_path / "rec"
    asyncio.run(
        run_headless(resolve_members(["beat", "groove"]), directives=list(directives), cycles=8, out=out, wav=False, echo=lambda _: None)
    )
    return out / "jam.mid"


def test_a_metre_change_keeps_each_cycle_its_own_length(tmp_path: Path) -> None:
    song = read_midi(_record(tmp_path, "4:7/8"))
    # 4 bars of 4/4 (16 quarter beats) then 4 bars of 7/8 (3.5 each): 15 s at 120 BPM
    assert song.length_beats == 30.0 and song.duration_seconds == 15.0
    assert (song.time_signature.numerator, song.time_signature.denominator) == (4, 4)
    assert [(m.beat, m.text) for m in song.markers] == [(0.0, "round 1"), (16.0, "round 2: 7/8")]
    bass = next(t for t in song.tracks if t.name.startswith("GROOVE"))
    assert {0.0, 4.0, 8.0, 12.0} <= {n.start for n in bass.notes if n.start < 16}  # every bar struck on the one
    kicks = sorted({n.start for t in song.tracks if t.is_drum for n in t.notes if n.pitch == 36 and n.start >= 16})
    assert {16.0, 19.5, 23.0, 26.5} <= set(kicks)  # every 7/8 bar starts with its kick


def test_the_file_key_is_the_opening_key(tmp_path: Path) -> None:
    song = read_midi(_record(tmp_path, "4:switch to D major"))
    assert song.key == "C minor"
    assert [m.text for m in song.markers] == ["round 1", "round 2: D major"]


def _conductor(path: Path) -> list[tuple[int, object]]:
    """(absolute tick, meta message) of the conductor track, read by mido."""
    import mido

    tick, out = 0, []
    for message in mido.MidiFile(path).tracks[0]:
        tick += message.time
        out.append((tick, message))
    return out


def test_every_change_of_metre_and_key_is_signed_where_the_band_changed(tmp_path: Path) -> None:
    import mido

    path = tmp_path / "rec" / "jam.mid"
    out = tmp_path / "rec"
    asyncio.run(run_headless(resolve_members(["beat", "groove"]), cycles=12, out=out, wav=False, echo=lambda _: None,
                             directives=["3:7/8", "6:3/4 time, switch to D major", "9:4/4"]))
    meta = _conductor(path)
    metres = [(t, f"{m.numerator}/{m.denominator}") for t, m in meta if m.type == "time_signature"]
    keys = [(t, m.key) for t, m in meta if m.type == "key_signature"]
    # 3 bars of 4/4 (480 ticks a beat), 3 of 7/8, 3 of 3/4, 3 of 4/4
    assert metres == [(0, "4/4"), (3 * 1920, "7/8"), (3 * 1920 + 3 * 1680, "3/4"), (3 * 1920 + 3 * 1680 + 3 * 1440, "4/4")]
    assert keys == [(0, "Cm"), (3 * 1920 + 3 * 1680, "D")]
    # the bar lines a reader draws from those events: every cycle starts on one, with its kick
    bars, tick = [], 0
    for (start, metre), nxt in zip(metres, [*(t for t, _ in metres[1:]), None], strict=True):
        numerator, unit = map(int, metre.split("/"))
        length = numerator * 1920 // unit
        assert (nxt is None or (nxt - start) % length == 0), "a metre change in the middle of a bar"
        tick = start
        while tick < (nxt if nxt is not None else start + 3 * length):
            bars.append(tick)
            tick += length
    midi = mido.MidiFile(path)
    kicks, now = set(), 0
    drums = next(t for t in midi.tracks if t.name.startswith("BEAT"))
    for message in drums:
        now += message.time
        if message.type == "note_on" and message.velocity and message.note == 36:
            kicks.add(now)
    assert len(bars) == 12 and set(bars) <= kicks
    end = next(t for t, m in meta if m.type == "end_of_track")
    assert end >= bars[-1]

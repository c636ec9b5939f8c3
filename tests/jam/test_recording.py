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
    assert [n.start for n in bass.notes if n.start < 16] == [0.0, 4.0, 8.0, 12.0]  # one note a bar, on the bar
    kicks = sorted({n.start for t in song.tracks if t.is_drum for n in t.notes if n.pitch == 36 and n.start >= 16})
    assert {16.0, 19.5, 23.0, 26.5} <= set(kicks)  # every 7/8 bar starts with its kick


def test_the_file_key_is_the_opening_key(tmp_path: Path) -> None:
    song = read_midi(_record(tmp_path, "4:switch to D major"))
    assert song.key == "C minor"
    assert [m.text for m in song.markers] == ["round 1", "round 2: D major"]

"""Issue #30, salsa's coro–pregón: a salsa's montuno section alternates a fixed sung refrain (the
coro, two bars harmonised in thirds, the same notes every time) with the singer's answers (the
pregón, one voice, a new answer each time, developed from the coro's motif) over the montuno's vamp
(`craft.montuno`). Checked on the MIDI of composed salsas, read back with mido: the lead's bars in
the section marked "Montuno", their notes on the sixteenth grid (the players' timing aside)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import mido
import pytest

from bandstand.compose import compose
from bandstand.craft.montuno import CORO_PREGON, Turn, pregon, turn_of

Bar = tuple[tuple[float, int], ...]  # (onset in the bar on the sixteenth grid, pitch), sorted


def _montuno_bars(path: Path) -> list[Bar]:
    """The lead's notes bar by bar through the section marked "Montuno"."""
    midi = mido.MidiFile(path)
    ppq = midi.ticks_per_beat
    markers: list[tuple[int, str]] = []
    beats_per_bar = 4.0
    for track in midi.tracks:
        now = 0
        for msg in track:
            now += msg.time
            if msg.type == "marker":
                markers.append((now, msg.text))
            elif msg.type == "time_signature":
                beats_per_bar = msg.numerator * 4 / msg.denominator
    (start, _), (end, _) = next((m, n) for m, n in pairwise(markers) if m[1] == "Montuno")
    lead = next(t for t in midi.tracks if t.name == "Lead")
    onsets: list[tuple[float, int]] = []
    now = 0
    for msg in lead:
        now += msg.time
        if msg.type == "note_on" and msg.velocity > 0:
            onsets.append((round(now / ppq * 4) / 4, msg.note))  # on the grid: the humanised timing aside
    first, bars = start / ppq, round((end - start) / ppq / beats_per_bar)
    out: list[list[tuple[float, int]]] = [[] for _ in range(bars)]
    for beat, pitch in onsets:
        i = int((beat - first) // beats_per_bar)
        if 0 <= i < bars:
            out[i].append((round(beat - first - i * beats_per_bar, 2), pitch))
    return [tuple(sorted(b)) for b in out]


@pytest.mark.parametrize("seed", [1, 2, 5])  # seed 5's form is "a verse fewer": it keeps the montuno
def test_a_salsa_montuno_alternates_a_fixed_coro_with_a_new_pregon_each_time(tmp_path: Path, seed: int) -> None:
    result = compose("salsa with piano montuno", seed=seed, out_dir=str(tmp_path), render_audio=False,
                     render_pianoroll=False)
    bars = _montuno_bars(result.session_dir / "midi" / "full-arrangement.mid")
    length = CORO_PREGON["salsa"]["solo"]
    assert len(bars) >= 4 * length and all(bars), bars  # the lead sings the whole section
    turns = [turn_of("salsa", "solo", i) for i in range(len(bars))]
    coros = [tuple(bars[i:i + length]) for i in range(0, len(bars), 2 * length)]
    pregones = [tuple(bars[i:i + length]) for i in range(length, len(bars), 2 * length)]
    assert len(coros) >= 2 and len(pregones) >= 2
    assert all(c == coros[0] for c in coros), coros  # the coro comes back note for note
    assert len(set(pregones)) == len(pregones), pregones  # every answer is a new one
    assert not set(pregones) & set(coros)
    for i, bar in enumerate(bars):
        turn = turns[i]
        assert turn is not None
        onsets = [o for o, _ in bar]
        # the coro sings in two voices (thirds under the tune), the pregón alone
        assert (len(onsets) > len(set(onsets))) == turn.call, (i, bar)


def test_the_pregon_develops_the_motif_a_different_way_each_time() -> None:
    rhythm = ((0.0, 0.5), (0.5, 0.5), (1.0, 1.0), (2.5, 0.5), (3.0, 0.75))
    answer = ((0.0, 0.75), (0.75, 0.75), (1.5, 0.5), (2.0, 1.5))
    contour = (1, 2, -1, -2)
    answers = [pregon(rhythm, answer, contour, Turn(call=False, bar=0, length=2, answer=k)) for k in range(5)]
    assert len(set(answers)) == 5
    assert turn_of("salsa", "chorus", 0) is None and turn_of("rock", "solo", 0) is None

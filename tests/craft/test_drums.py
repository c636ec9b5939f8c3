"""The drummer keeps a section's figure (#30): a trap producer programs a one-bar hi-hat loop
with its roll in the same place every bar and turns it at the phrase's end, so the groove
gate's bar-to-bar consistency is met by the writer, not by retries."""

from __future__ import annotations

import pytest

from bandstand.compose import compose
from bandstand.compose.quality.ranges import RANGES

TRAP = "Trap beat, dark, 140 BPM, key of Am"
HATS = {42, 44, 46, 51}


def _song(prompt: str, seed: int, tmp_path):
    return compose(prompt, seed=seed, bars=16, out_dir=str(tmp_path), render_audio=False, render_pianoroll=False)


@pytest.mark.parametrize("seed", [5, 14])
def test_trap_seeds_that_changed_figure_every_bar_pass_the_groove_gate_first_time(seed, tmp_path):
    result = _song(TRAP, seed, tmp_path)
    assert result.status == "completed"
    assert not [h for h in result.song_state.history if h.action == "quality_regenerate"]
    low = RANGES["groove_consistency"][0]
    assert result.manifest["quality"]["figures"]["groove_consistency"]["value"] >= low


@pytest.mark.parametrize("seed", [5, 14])
def test_trap_hats_repeat_bar_to_bar_inside_a_phrase(seed, tmp_path):
    result = _song(TRAP, seed, tmp_path)
    drums = next(t for t in result.song.tracks if t.is_drum)
    grid: dict[int, set[int]] = {}
    for n in drums.notes:
        if n.pitch in HATS:
            bar, step = divmod(round(n.start * 4), 16)
            grid.setdefault(bar, set()).add(step)
    for sec in result.summary()["sections"]:
        first = sec["start_bar"] - 1
        if sec["bars"] >= 4 and sec["energy"] >= 0.45:  # the middle bars of a phrase: the loop as programmed
            assert grid.get(first + 1) == grid.get(first + 2), sec["name"]


@pytest.mark.parametrize("seed", [15, 29, 658415768])
def test_a_kick_alone_keeps_its_two_bar_figure_through_the_groove_gate(seed, tmp_path):
    """docs/compose.md's "no drums except kick" example: the kit's two-bar kick figure is all the
    drums play, and the gate hears it as the loop it is (these seeds' three takes each fell
    short when each bar was compared with the one before only)."""
    result = compose("Lo-fi piano with 808s, no drums except kick", seed=seed, bars=16, out_dir=str(tmp_path),
                     render_audio=False, render_pianoroll=False, parts=["drums", "chords", "lead", "sub_bass"])
    drums = next(t for t in result.song.tracks if t.is_drum)
    assert {n.pitch for n in drums.notes} == {36}
    assert result.status == "completed"

"""A lo-fi beat's kick is lazy (#30): the downbeat, then kicks late in the bar — the 'a' of two,
the 'and' of three — never square on beat three. A kick on one and three under a backbeat is
the rock and pop beat: seed 2 of "a chilled lo-fi beat to study to" played it and an audio
tagger heard pop, rock and 80s rather than chillout."""

from __future__ import annotations

import pytest

from bandstand.compose import compose
from bandstand.craft.genre_kits import kit_for
from bandstand.craft.kit import KICK, kick_steps

BEAT_THREE = 8  # the sixteenth step of beat three in a 4/4 bar


def test_the_lofi_kits_kick_figures_leave_beat_three_open():
    lofi = kit_for("boom_bap", "lo-fi", 16)
    assert lofi.name == "lo-fi"
    for groove in range(40):
        for bar in range(4):
            for energy in (0.2, 0.5, 0.8):
                steps = [s for s, _ in kick_steps(lofi, energy, bar, 16, groove=groove)]
                assert steps and steps[0] == 0, (groove, bar, energy)
                assert BEAT_THREE not in steps, (groove, bar, energy)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_lofi_songs_kick_stays_off_beat_three(seed, tmp_path):
    result = compose("a chilled lo-fi beat to study to", seed=seed, out_dir=str(tmp_path), render_audio=False,
                     render_pianoroll=False)
    drums = next(t for t in result.song.tracks if t.is_drum)
    kicks = [divmod(round(n.start * 4), 16) for n in drums.notes if n.pitch == KICK]
    on_three = [bar for bar, step in kicks if step == BEAT_THREE]
    # a fill may land on three; the groove does not
    assert len(on_three) <= len(kicks) // 20, (len(on_three), len(kicks))

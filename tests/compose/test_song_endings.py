"""Songs end with a bottom: the bass plays the final cadence and its last note is the
tonic, whatever the genre's outro leaves out around it (issue #30)."""

from __future__ import annotations

import pytest

from bandstand.theory import pitch_class

from .heard import heard

GENRES = ["trap", "lo-fi", "house", "techno", "jazz", "bossa nova", "salsa", "reggae", "funk", "rock",
          "metal", "blues", "country", "ambient", "cinematic", "classical", "synthwave", "amapiano", "tango",
          "bluegrass", "polka", "cumbia", "grime", "flamenco"]


@pytest.mark.parametrize("genre", GENRES)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_bass_plays_the_last_bar_and_ends_on_the_tonic(genre, seed):
    h = heard(genre, seed)
    bass = h.notes("bass", "sub bass")
    last_bar = h.plan.total_bars - 1
    assert any(h.bar(n[0]) == last_bar for n in bass), f"{genre}: no bass in the last bar"
    assert "bass" in h.plan.sections[-1].roles
    assert bass[-1][2] % 12 == pitch_class(h.intent.key), (genre, h.intent.key, bass[-1][2])

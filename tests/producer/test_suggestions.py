"""The first requests the studio offers for a song (issue #25's suggestion chips): drawn from its
parts and sections (the studio page's test asks one through a real server)."""

from __future__ import annotations

from dataclasses import replace

from bandstand import score
from bandstand.producer.requests.suggestions import suggestions
from bandstand.studio import SeededIds, from_song
from tests.studio.songs import small_song


def test_the_suggestions_fit_the_songs_parts_and_sections() -> None:
    project = from_song(small_song(), ids=SeededIds(1))
    assert suggestions(project) == ["make the bass busier", "darker chords in the chorus",
                                    "add a string pad to the chorus", "try something different"]
    plain = from_song(replace(small_song(), sections=[score.Section("A", 1, 16, 0.5)],
                              tracks=[t for t in small_song().tracks if t.role == "drums"]), ids=SeededIds(1))
    assert suggestions(plain) == ["make the drums busier", "try something different"]
    assert len(suggestions(project, limit=2)) == 2

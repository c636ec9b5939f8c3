"""An audition says what it renders while it runs (issue 26: `audition` ran 294 s with nothing on
screen): each side, the bars it covers, and what the render does — the callback
`bandstand audition` draws as its status line."""

from __future__ import annotations

from pathlib import Path

from bandstand import score
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio import Provenance, SeededIds, merge_song, to_song

from ..studio.songs import small_song


def test_an_audition_tells_which_side_and_bars_it_renders(tmp_path: Path) -> None:
    session = create_from_song(tmp_path / "s", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                               ids=SeededIds(5))
    song = to_song(session.head)
    bass = song.track("bass")
    bass.notes += [score.Note(n.start + 1.75, 0.25, n.pitch, 70) for n in bass.notes if 16 <= n.start < 32]
    bass.sort()
    variation = session.propose(merge_song(session.head, song, ids=SeededIds(9)), request="busier", author="test")
    said: list[str] = []
    result = session.audition(variation.id, progress=said.append)
    assert result.bars == (4, 9)
    for side in ("A (base, bars 4–9)", "B (proposal, bars 4–9)"):
        mine = [m.removeprefix(f"{side}: ") for m in said if m.startswith(f"{side}: ")]
        assert mine[0] == "drawing the piano roll" and mine[-1].startswith("writing the WAV"), said
        assert any(m.startswith("played ") for m in mine)
    assert said.index("B (proposal, bars 4–9): drawing the piano roll") > max(
        i for i, m in enumerate(said) if m.startswith("A (base"))
    said.clear()
    session.audition(variation.id, progress=said.append)
    assert said == []  # made already: nothing rendered, nothing said

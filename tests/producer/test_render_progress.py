"""A session's render says what it does while it runs (`ensure_audio(progress)`): how many
parts the render cache holds and how many it plays, each part as it is played, then mixing,
mastering and writing — what `bandstand render SESSION`, `play` and `--audio` show."""

from __future__ import annotations

from pathlib import Path

from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance

from ..studio.songs import small_song


def test_a_render_tells_what_it_plays_and_what_the_cache_held(tmp_path: Path) -> None:
    session = create_from_song(tmp_path / "s", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                               ids=SeededIds(3))
    said: list[str] = []
    session.ensure_audio(said.append)
    assert said[0] == "0 parts unchanged (from the render cache), 3 to play"
    played = [m for m in said if m.startswith("played ")]
    assert [m.split(" (")[0] for m in played] == [f"played {k} of 3 parts" for k in (1, 2, 3)]
    assert {m.split(" (")[1].rstrip(")") for m in played} == {"Drums", "Bass", "Chords"}
    assert said[-3:] == ["mixing (sends and buses)", "mastering", "writing the WAV and 3 stems"]

    session.apply_tools([{"name": "set_track_volume", "args": {"track": "Bass", "volume": 0.5}}], author="test")
    said.clear()
    session.ensure_audio(said.append)
    assert said == ["2 parts unchanged (from the render cache), 1 to play", "played 1 of 1 parts (Bass)",
                    "mixing (sends and buses)", "mastering", "writing the WAV and 3 stems"]
    said.clear()
    session.ensure_audio(said.append)
    assert said == []  # the WAV shows HEAD: nothing to render, nothing said

"""SoundFont lookup order and the error that names $BANDSTAND_SOUNDFONT."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.errors import SoundFontNotFound
from bandstand.render import ENV_VAR, find_soundfont
from bandstand.render.soundfont import DEBIAN_FLUIDR3, default_candidates


def test_environment_variable_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sf2 = tmp_path / "mine.sf2"
    sf2.write_bytes(b"RIFF\x04\x00\x00\x00sfbk")
    monkeypatch.setenv(ENV_VAR, str(sf2))
    assert find_soundfont() == sf2


def test_environment_variable_to_a_file_that_is_not_a_soundfont(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "notes.txt"
    fake.write_text("hello")
    monkeypatch.setenv(ENV_VAR, str(fake))
    with pytest.raises(SoundFontNotFound, match="not a SoundFont"):
        find_soundfont()


def test_environment_variable_to_a_missing_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "gone.sf2"))
    with pytest.raises(SoundFontNotFound, match=r"\$BANDSTAND_SOUNDFONT points to .*gone.sf2"):
        find_soundfont()


def test_defaults_are_debian_then_pretty_midi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    candidates = default_candidates()
    assert candidates[0] == DEBIAN_FLUIDR3
    assert candidates[1].name == "TimGM6mb.sf2" and candidates[1].parent.name == "pretty_midi"
    assert find_soundfont() == next(c for c in candidates if c.is_file())


def test_nothing_found_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(SoundFontNotFound, match=r"set \$BANDSTAND_SOUNDFONT"):
        find_soundfont([tmp_path / "a.sf2", tmp_path / "b.sf2"])


def test_render_exports_are_pinned() -> None:
    import bandstand.render as render

    assert set(render.__all__) == {
        "ENV_VAR", "PROCESSORS", "ROLE_COLOURS", "TAIL_SECONDS", "Master", "Rendered", "find_soundfont",
        "render_pianoroll", "render_song", "render_wav", "role_colour", "stem_names", "title_line", "write_stems",
        "TrackCache", "warm",
    }
    assert all(hasattr(render, name) for name in render.__all__)

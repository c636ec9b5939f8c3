"""The piano roll: expected size, a colour per role, titles that say tempo and key."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bandstand.render import ROLE_COLOURS, render_pianoroll, title_line
from bandstand.score import Marker, MetreChange, Note, Song, TempoChange, TimeSignature, Track
from tests.midi.songs import demo_song


def colours(path: Path) -> set[tuple[int, int, int]]:
    with Image.open(path) as image:
        return {c for _, c in image.convert("RGB").getcolors(maxcolors=1 << 20) or []}


def test_demo_roll_has_every_role_colour(tmp_path: Path) -> None:
    song = demo_song(8)
    song.markers.append(Marker(10.0, "fill"))
    path = render_pianoroll(song, tmp_path / "roll.png")
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1600, 900)
    seen = colours(path)
    for role in ("drums", "bass", "chords", "lead", "pad"):
        assert ROLE_COLOURS[role] in seen, role  # loudest notes and the lane stripe use the full colour


@settings(max_examples=15, deadline=None)
@given(st.integers(200, 1200), st.integers(150, 800))
def test_requested_size(tmp_path_factory, width: int, height: int) -> None:
    path = render_pianoroll(demo_song(2), tmp_path_factory.mktemp("roll") / "r.png", width=width, height=height)
    with Image.open(path) as image:
        assert image.size == (width, height)


def test_empty_song_still_draws(tmp_path: Path) -> None:
    path = render_pianoroll(Song(title="Nothing"), tmp_path / "empty.png", width=400, height=200)
    with Image.open(path) as image:
        assert image.size == (400, 200)


def test_title_line() -> None:
    assert title_line(demo_song(8)) == "Demo | 96 BPM · C minor · 4/4 · 8 bars"
    song = Song(tempo=90, tempo_changes=[TempoChange(4.0, 120.0)],
                tracks=[Track("x", "lead", notes=[Note(0.0, 5.0, 60, 90)])])
    assert title_line(song) == "Untitled | 90-120 BPM · key unknown · 4/4 · 2 bars"


def test_title_line_says_where_the_other_metres_are() -> None:
    song = demo_song(12)
    song.metre_changes = [MetreChange(5, TimeSignature(3, 4)), MetreChange(7, TimeSignature(4, 4)),
                          MetreChange(10, TimeSignature(3, 4))]
    # the 48 beats counted in the map's bars: 4 of 4/4, 2 of 3/4, 3 of 4/4, then 3/4 to the end
    assert title_line(song).endswith("· 4/4 (3/4 in bars 5-6, 10-14) · 14 bars"), title_line(song)


def test_every_character_drawn_has_a_glyph_in_the_bundled_font() -> None:
    """Titles, section, track and marker names go through `_drawable`: what comes out never draws
    as the font's empty box (an excerpt's "Song — bars 17–24", "Ab → F♯")."""
    from PIL import ImageFont

    from bandstand.render.pianoroll import _drawable

    font = ImageFont.load_default(size=20)
    box = bytes(font.getmask("\uffff"))
    text = _drawable("Late Night — bars 17–24 | Ab2 → F♯3, B♭ −3 dB… ‘it’s’ · “ok”")
    assert text.startswith("Late Night - bars 17-24 | Ab2 -> F#3, Bb -3 dB")
    assert [ch for ch in set(text) if ch != " " and bytes(font.getmask(ch)) == box] == []


def test_an_excerpt_numbers_its_bars_as_the_song_does(tmp_path: Path) -> None:
    from bandstand.render.pianoroll import pianoroll_png

    song = demo_song(8)
    assert pianoroll_png(song, 800, 400, first_bar=17) != pianoroll_png(song, 800, 400)
    assert pianoroll_png(song, 800, 400, first_bar=1) == pianoroll_png(song, 800, 400)

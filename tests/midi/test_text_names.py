"""Names in MIDI files: mido (like most readers and DAWs) decodes MIDI text as latin-1, so a
name written in UTF-8 read "Burial â\\x80\\x94 late-night". Names are written in latin-1 with what
it lacks spelled in ASCII; bandstand's own reader gets the exact names back."""

from __future__ import annotations

import io

import mido
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.midi import midi_bytes_to_song, song_to_midi_bytes
from bandstand.score import Marker, Note, Section, Song, Track


def song(title: str, track: str, section: str, marker: str) -> Song:
    return Song(title=title, tracks=[Track(name=track, role="lead", notes=[Note(0, 1, 60, 90)])],
                sections=[Section(section, 1, 4, 0.5)], markers=[Marker(2.0, marker)])


def mido_texts(data: bytes) -> list[str]:
    midi = mido.MidiFile(file=io.BytesIO(data))
    names = [t.name for t in midi.tracks]
    markers = [m.text for m in midi.tracks[0] if m.type == "marker"]
    return names + markers


def test_a_dash_reads_as_a_dash_in_mido_and_exactly_in_bandstand() -> None:
    data = song_to_midi_bytes(song("Burial — late-night · café", "Lead — Rhodes", "Drop — 2", "ça — va ♯"))
    assert mido_texts(data) == ["Burial - late-night · café", "Lead - Rhodes", "Drop - 2", "ça - va #"]
    back = midi_bytes_to_song(data)
    assert back.title == "Burial — late-night · café" and back.tracks[0].name == "Lead — Rhodes"
    assert [s.name for s in back.sections] == ["Drop — 2"] and [m.text for m in back.markers] == ["ça — va ♯"]


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=24)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT, TEXT, TEXT)
def test_any_name_reads_back_exactly_and_mido_never_sees_utf8_bytes(title: str, track: str, section: str,
                                                                     marker: str) -> None:
    data = song_to_midi_bytes(song(title, track, section, marker))
    for original, shown in zip((title, track, section, marker), mido_texts(data), strict=True):
        if all(ord(c) < 256 for c in original):
            assert shown == original  # "café" was "cafÃ©"
        else:  # spelled, never UTF-8 bytes seen as latin-1 ("â\x80\x94")
            assert not any(0x80 <= ord(c) < 0xA0 for c in shown if c not in original)
            assert not any(c in "ÃÂâ" for c in shown if c not in original)
    back = midi_bytes_to_song(data)
    assert (back.title, back.tracks[0].name) == (title, track)
    assert [s.name for s in back.sections] == [section]
    assert [m.text for m in back.markers] == [marker]


def test_a_name_that_is_another_names_spelling_stays_itself() -> None:
    # "Ʊ" is written as "?": a section really called "?" is not "Ʊ" (hypothesis found this)
    for names in [("0", "Ʊ", "?", "0"), ("0", "0", "?", "Ʊ"), ("?", "Ʊ", "Ʋ", "?")]:
        back = midi_bytes_to_song(song_to_midi_bytes(song(*names)))
        assert (back.title, back.tracks[0].name, back.sections[0].name, [m.text for m in back.markers]) == (
            names[0], names[1], names[2], [names[3]])

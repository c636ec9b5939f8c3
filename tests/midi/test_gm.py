"""General MIDI tables and key signatures."""

from __future__ import annotations

import pytest

import bandstand.midi as midi
from bandstand.errors import InvalidInput
from bandstand.midi import (
    GM_DRUMS,
    GM_PROGRAMS,
    STRUDEL_SOUNDFONTS,
    key_name,
    key_signature,
    program_by_name,
    program_by_soundfont,
)


def test_public_exports_are_pinned() -> None:
    assert set(midi.__all__) == {
        "DRUM_KITS", "GM_DRUMS", "GM_PROGRAMS", "MIDI_LIMITS", "PPQ", "STRUDEL_SOUNDFONTS", "DrumMap", "KeySignature", "MidiLimits", "beats_to_ticks", "drum_kit_of_bank", "guess_role", "guess_roles",
        "key_name", "key_signature", "midi_bytes_to_song", "program_by_name", "program_by_soundfont", "read_midi",
        "song_to_midi_bytes", "write_midi",
    }


def test_program_table() -> None:
    assert len(GM_PROGRAMS) == len(set(GM_PROGRAMS)) == 128
    assert (GM_PROGRAMS[0], GM_PROGRAMS[33], GM_PROGRAMS[81], GM_PROGRAMS[127]) == (
        "Acoustic Grand Piano", "Electric Bass (finger)", "Lead 2 (sawtooth)", "Gunshot")


@pytest.mark.parametrize(
    ("name", "number"),
    [("Acoustic Grand Piano", 0), ("fretless bass", 35), ("ELECTRIC BASS (FINGER)", 33),
     ("electric bass finger", 33), ("strings", 48), ("pad", 89), ("harp", 46), ("Lead 2 (sawtooth)", 81)],
)
def test_program_by_name(name: str, number: int) -> None:
    assert program_by_name(name) == number


def test_strudel_soundfont_names() -> None:
    # @strudel/soundfonts 1.2.6 (gm.mjs) names 125 soundfonts: the four grand pianos share gm_piano
    assert len(STRUDEL_SOUNDFONTS) == 128 and len(set(STRUDEL_SOUNDFONTS)) == 125
    assert (STRUDEL_SOUNDFONTS[0], STRUDEL_SOUNDFONTS[3], STRUDEL_SOUNDFONTS[4], STRUDEL_SOUNDFONTS[33],
            STRUDEL_SOUNDFONTS[87], STRUDEL_SOUNDFONTS[90], STRUDEL_SOUNDFONTS[103], STRUDEL_SOUNDFONTS[124]) == (
        "gm_piano", "gm_piano", "gm_epiano1", "gm_electric_bass_finger", "gm_lead_8_bass_lead", "gm_pad_poly",
        "gm_fx_sci_fi", "gm_telephone")
    assert all(program_by_soundfont(name) == n for n, name in enumerate(STRUDEL_SOUNDFONTS) if n > 3)
    assert program_by_soundfont("gm_piano") == 0 and program_by_soundfont("gm_pad_warm") == 89
    assert program_by_soundfont("piano") is None


def test_unknown_program_suggests_one() -> None:
    with pytest.raises(InvalidInput, match="did you mean 'Trumpet'"):
        program_by_name("trumpett")
    with pytest.raises(InvalidInput, match="empty"):
        program_by_name("  ")


def test_drum_map_both_ways() -> None:
    assert GM_DRUMS[36] == "Bass Drum 1" and GM_DRUMS["Bass Drum 1"] == 36
    assert GM_DRUMS["closed hi-hat"] == 42 and GM_DRUMS["hh"] == 42 and GM_DRUMS["sd"] == 38
    assert all(GM_DRUMS[GM_DRUMS[note]] == note for note in GM_DRUMS)
    assert len(GM_DRUMS) == 47 and min(GM_DRUMS) == 35 and max(GM_DRUMS) == 81
    assert GM_DRUMS.name(90) == "Drum 90"
    with pytest.raises(InvalidInput, match="unknown General MIDI drum 'kik'"):
        GM_DRUMS["kik"]


@pytest.mark.parametrize(
    ("key", "sharps", "minor", "name"),
    [("C major", 0, False, "C major"), ("C minor", -3, True, "C minor"), ("Eb major", -3, False, "Eb major"),
     ("f# minor", 3, True, "F# minor"), ("Cb major", -7, False, "Cb major"), ("A# minor", 7, True, "A# minor"),
     ("Cm", -3, True, "C minor"), ("CM", 0, False, "C major"), ("Bb", -2, False, "Bb major")],
)
def test_key_signatures(key: str, sharps: int, minor: bool, name: str) -> None:
    sig = key_signature(key)
    assert sig is not None and (sig.sharps, sig.minor, sig.name) == (sharps, minor, name)
    assert key_name(sharps, minor) == name


@pytest.mark.parametrize("key", ["D dorian", "G# major", "H minor", ""])
def test_keys_without_a_signature(key: str) -> None:
    assert key_signature(key) is None

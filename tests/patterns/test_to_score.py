"""Events → score → MIDI, read back with mido (an independent reader)."""

from __future__ import annotations

from pathlib import Path

import mido
import pytest

from bandstand.errors import InvalidInput
from bandstand.midi import write_midi
from bandstand.patterns import evaluate
from bandstand.patterns.to_score import lookup_sound, pattern_to_song, value_pitch, value_velocity

PPQ = 480


def read_notes(path: Path) -> list[tuple[int, int, int, int, int]]:
    """(start tick, channel, pitch, velocity, duration ticks) of every note in the file."""
    mid = mido.MidiFile(path)
    out = []
    for track in mid.tracks:
        now = 0
        open_notes: dict[tuple[int, int], tuple[int, int]] = {}
        for msg in track:
            now += msg.time
            if msg.type == "note_on" and msg.velocity > 0:
                open_notes[(msg.channel, msg.note)] = (now, msg.velocity)
            elif msg.type in ("note_off", "note_on"):
                start, velocity = open_notes.pop((msg.channel, msg.note))
                out.append((start, msg.channel, msg.note, velocity, now - start))
    return sorted(out)


def programs(path: Path) -> dict[int, int]:
    return {
        msg.channel: msg.program
        for track in mido.MidiFile(path).tracks
        for msg in track
        if msg.type == "program_change"
    }


def test_drums_land_on_the_drum_channel_with_gm_keys(tmp_path: Path) -> None:
    code = "stack(s('bd').fast(2), s('sd').late(1/4), s('hh').fast(4).gain(0.5))"
    song = pattern_to_song(evaluate(code), 1, bpm=120)
    path = write_midi(song, tmp_path / "drums.mid")
    notes = read_notes(path)
    assert [(t, ch, p) for t, ch, p, _, _ in notes if p == 36] == [(0, 9, 36), (960, 9, 36)]
    assert [(t, p) for t, _, p, _, _ in notes if p == 38] == [(480, 38)]
    hats = [n for n in notes if n[2] == 42]
    assert [n[0] for n in hats] == [0, 480, 960, 1440]
    assert {n[3] for n in hats} == {round(127 * 0.5 * 0.9)}
    tempo = [m.tempo for t in mido.MidiFile(path).tracks for m in t if m.type == "set_tempo"]
    assert tempo == [500000]


def test_pitched_notes_programs_and_legato(tmp_path: Path) -> None:
    code = "note(seq('c3', 'eb4', 64, 'f#2')).s('sawtooth').legato(0.5).velocity(0.5)"
    song = pattern_to_song(evaluate(code), 2, bpm=90, beats_per_cycle=4)
    assert song.tempo == 90
    path = write_midi(song, tmp_path / "lead.mid")
    notes = read_notes(path)
    assert [n[2] for n in notes] == [48, 63, 64, 42] * 2
    assert [n[0] for n in notes[:4]] == [0, 480, 960, 1440]
    assert {n[4] for n in notes} == {240}
    assert {n[3] for n in notes} == {round(127 * 0.5)}
    channel = notes[0][1]
    assert channel != 9
    assert programs(path)[channel] == 81  # Lead 2 (sawtooth)


def test_each_sound_gets_its_own_track_and_unknown_sounds_play_piano() -> None:
    song = pattern_to_song(
        evaluate("stack(note(60).s('piano'), note(62).s('gm_acoustic_bass'), note(64).s('zzz'))"), 1
    )
    tracks = {t.name: t for t in song.tracks}
    assert tracks["piano"].program == 0
    assert tracks["gm_acoustic_bass"].program == 32
    assert tracks["zzz"].program == 0
    assert [n.pitch for n in tracks["gm_acoustic_bass"].notes] == [62]


def test_pitch_defaults_and_range() -> None:
    song = pattern_to_song(evaluate("stack(s('triangle'), note(200), freq(440).s('sine'))"), 1)
    pitches = sorted(n.pitch for t in song.tracks for n in t.notes)
    assert pitches == [36, 69]  # superdough's default note; 440 Hz is A4; note 200 is left out


def test_only_onsets_become_notes_and_start_shifts_time() -> None:
    pat = evaluate("s('bd').late(1/2)")
    song = pattern_to_song(pat, 2, start=1)
    assert [n.start for n in song.tracks[0].notes] == [2.0, 6.0]
    assert all(n.duration == 4.0 for n in song.tracks[0].notes)


def test_bad_arguments() -> None:
    with pytest.raises(InvalidInput):
        pattern_to_song(evaluate("s('bd')"), 0)
    with pytest.raises(InvalidInput):
        pattern_to_song(evaluate("s('bd')"), 1, beats_per_cycle=0)


@pytest.mark.parametrize(
    ("name", "kind", "number"),
    [
        ("bd", "drum", 36),
        ("sd", "drum", 38),
        ("hh", "drum", 42),
        ("oh", "drum", 46),
        ("cp", "drum", 39),
        ("rim", "drum", 37),
        ("lt", "drum", 45),
        ("mt", "drum", 47),
        ("ht", "drum", 50),
        ("cr", "drum", 49),
        ("rd", "drum", 51),
        ("cb", "drum", 56),
        ("RolandTR909_bd", "drum", 36),
        ("sawtooth", "synth", 81),
        ("square", "synth", 80),
        ("piano", "instrument", 0),
        ("gm_electric_guitar_clean", "instrument", 27),
        ("gm_epiano2", "instrument", 5),  # Strudel's soundfont names, by their GM table
        ("gm_pad_warm", "instrument", 89),
        ("gm_fx_sci_fi", "instrument", 103),
        ("bass1", "instrument", 33),
        ("recorder_alto", "instrument", 74),
        ("organ_4inch", "instrument", 16),
        ("misc", "drum", 75),
    ],
)
def test_sound_table(name: str, kind: str, number: int) -> None:
    sound = lookup_sound(name)
    assert sound is not None
    assert (sound.kind, sound.number) == (kind, number)


def test_unknown_sounds_and_value_helpers() -> None:
    assert lookup_sound("nonsense") is None
    assert lookup_sound("bd2") is None  # drums have no numbered variants: s("bd:2") picks a sample
    assert lookup_sound("x_nonsense") is None
    assert lookup_sound("gm_nonsense_thing") is None
    assert value_pitch({"note": "a4"}) == 69
    assert value_pitch({"s": "bd"}) is None
    assert value_pitch("c3") == 48
    assert value_pitch("bd") is None
    assert value_velocity({"gain": 5}) == 127
    assert value_velocity({}) == round(127 * 0.9)


def test_n_with_scale_becomes_notes() -> None:
    song = pattern_to_song(evaluate('n("0 2 4 7").scale("C:minor").s("piano")'), 1)
    assert [n.pitch for n in song.tracks[0].notes] == [48, 51, 55, 60]
    song = pattern_to_song(evaluate('n("0 1").scale("A4:major").s("piano")'), 1)
    assert [n.pitch for n in song.tracks[0].notes] == [69, 71]


def test_a_drum_machine_bank_plays_its_own_kit(tmp_path: Path) -> None:
    """`.bank(...)` picks the drum kit (a program on the SoundFont's drum bank), in the MIDI file
    and in the WAV; an unknown bank plays the standard kit."""
    import numpy as np

    from bandstand.render import render_song

    code = 'stack(s("bd*2 sd").bank("RolandTR808"), s("bd*2 sd").bank("tr909"), s("bd*2 sd"), s("hh*4").bank("Nope"))'
    song = pattern_to_song(evaluate(code), 1, bpm=120)
    kits = {t.name: (t.is_drum, t.program, len(t.notes)) for t in song.tracks}
    assert kits == {"drums-tr-808": (True, 25, 3), "drums-electronic": (True, 24, 3), "drums": (True, 0, 7)}
    path = write_midi(song, tmp_path / "kits.mid")
    changes = sorted(
        (msg.channel, msg.program) for track in mido.MidiFile(path).tracks for msg in track if msg.type == "program_change"
    )
    assert changes == [(9, 0), (9, 24), (9, 25)]
    rendered = render_song(song, stems=True)
    stems = {name: np.asarray(audio) for name, audio in rendered.stems.items() if name in kits}
    assert set(stems) == set(kits)
    standard = stems["drums"]
    # the same hits, another kit: each machine sounds unlike the standard kit and unlike the other
    for name in ("drums-tr-808", "drums-electronic"):
        assert np.abs(stems[name]).max() > 0.01
        n = min(len(standard.ravel()), len(stems[name].ravel()))
        assert not np.allclose(stems[name].ravel()[:n], standard.ravel()[:n], atol=1e-3), name
    n = min(stems["drums-tr-808"].size, stems["drums-electronic"].size)
    assert not np.allclose(stems["drums-tr-808"].ravel()[:n], stems["drums-electronic"].ravel()[:n], atol=1e-3)

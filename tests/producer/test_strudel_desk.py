"""The Strudel assistant's desk: code runs as Strudel runs it and is checked in the desk's key;
a mistake leaves what played; the band writes code from words in the desk's key; the reference
comes from the registry itself."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput, PatternError
from bandstand.patterns.methods import get_registry
from bandstand.producer.live.strudel_desk import PatternDesk, reference
from bandstand.theory import parse_key


def test_code_plays_as_a_program_with_its_tempo_and_is_checked_in_the_key() -> None:
    desk = PatternDesk()
    played = desk.execute('setcpm(30)\n$: s("bd*4, hh*8").bank("tr808")\n$: note("c3 eb3 g3").s("sawtooth")')
    assert played.playing and played.cps == 0.5 and played.bpm == 120
    assert played.events_per_cycle == 15 and played.sounds == ["bd", "hh", "sawtooth"]
    assert played.in_key == 1.0 and (played.lowest_note, played.highest_note) == (48, 55)
    with pytest.raises(PatternError, match="expected"):
        desk.execute('note("c3 e3").fast(')
    assert desk.playing == played  # a mistake leaves what played
    assert desk.stop() == played.model_copy(update={"playing": False})
    assert desk.playing is None and desk.stop() is None


def test_the_context_is_one_key_one_tempo_range() -> None:
    desk = PatternDesk()
    context = desk.update_context(key="F#m", tempo=10_000)
    assert (context.tonic, context.mode, context.bpm) == ("F#", "minor", 300)
    assert desk.update_context(beats_per_bar=3).key == "F# minor"
    with pytest.raises(InvalidInput, match="key"):
        desk.update_context(key="H# minor")
    with pytest.raises(InvalidInput, match="out of range"):
        desk.update_context(beats_per_bar=40)
    assert desk.execute('s("bd")').bpm == 300  # without setcpm, the desk's tempo


@pytest.mark.parametrize(("words", "sound"), [("a dreamy melody", None), ("four on the floor with open hats", "bd"),
                                                ("a bassline", None)])
def test_the_band_writes_code_for_words_in_the_desks_key(words: str, sound: str | None) -> None:
    desk = PatternDesk()
    desk.update_context(key="D dorian", tempo=100)
    played = desk.write(words)
    assert played.playing and played.code and played.bpm == 100
    if sound is not None:
        assert sound in played.sounds
    else:  # pitched: every note in D dorian
        scale = set(parse_key("D dorian").scale.pitch_classes)
        assert played.in_key == 1.0 and played.lowest_note is not None and played.lowest_note % 12 in scale
    with pytest.raises(InvalidInput, match="say what to play"):
        desk.write("  ")


def test_a_preview_is_a_wav_of_what_plays(tmp_path: Path) -> None:
    desk = PatternDesk()
    with pytest.raises(InvalidInput, match="nothing is playing"):
        desk.preview(tmp_path)
    desk.execute('note("c3 eb3 g3 bb3").s("piano")')
    played = desk.preview(tmp_path, cycles=2)
    with wave.open(str(played.preview)) as wav:
        assert wav.getnchannels() == 2 and wav.getnframes() >= 2 * 44100  # two bars at 120 BPM, and the tail
    assert desk.playing is not None and desk.playing.preview == played.preview


def test_the_reference_is_the_registry() -> None:
    whole = reference()
    names = {entry.name for _, entry in get_registry().items()}
    assert all(f"`{name}`" in whole for name in names)  # every function the engine has, once
    assert whole.startswith("# Strudel in bandstand")
    echo = reference("echo")
    assert "`echo`" in echo and "`echoWith` (also echowith, stutWith, stutwith)" in echo and "`fast`" not in echo
    with pytest.raises(InvalidInput, match="no function matches"):
        reference("zzzz-not-a-function")

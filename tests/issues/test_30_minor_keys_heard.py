"""Issue #30, songs that establish their key: a song in a minor key is heard in that key — not in
its relative major — by a key finder we did not write (music21's default, Aarden–Essen), on the
MIDI file compose writes, read back with mido.

Where both finders heard the relative major, the music was ambiguous: a minor loop that goes round
evenly through i, bVI, bIII and bVII is as much the relative major's vi–IV–I–V; a metal chorus
(bVI–bVII–bVI–V) that never reached i, played three times; techno's i minor seventh, which is the
relative major's sixth chord note for note. The chorus now lands on i (its second pass), metal's
chorus climbs to i, and techno holds a minor ninth. The cases are the ones
`benchmarks/key_agreement.py` listed (heard in the relative major before), and a few more minor
prompts."""

from __future__ import annotations

from pathlib import Path

import mido
import pytest

from bandstand.compose import compose
from bandstand.compose.harmony.form import _slots, landed
from bandstand.compose.harmony.vocab import parse_token
from bandstand.theory import parse_key

CASES = [("heavy metal track in E minor", 1), ("heavy metal track in E minor", 2), ("minimal techno", 2),
         ("uplifting trance anthem", 2), ("8-bit video game theme", 2), ("dark synthwave in Eb minor", 2),
         ("late-night r&b in Bb minor", 2), ("trap beat in G minor", 1), ("cinematic score in D minor", 2),
         ("uk drill beat", 2), ("lo-fi hip hop in C minor", 1)]


def _pitched_notes(path: Path) -> list[tuple[float, float, int]]:
    """(onset, length, pitch) in beats of every pitched note (no drums, no texture track)."""
    mid = mido.MidiFile(str(path))
    tpb = mid.ticks_per_beat
    out: list[tuple[float, float, int]] = []
    for track in mid.tracks:
        now, name, held = 0, "", {}
        for msg in track:
            now += msg.time
            if msg.type == "track_name":
                name = msg.name.lower()
            elif msg.type == "note_on" and msg.velocity > 0 and msg.channel != 9:
                held.setdefault(msg.note, []).append(now)
            elif msg.type in ("note_on", "note_off") and held.get(msg.note):
                start = held[msg.note].pop(0)
                if "texture" not in name:
                    out.append((start / tpb, (now - start) / tpb, msg.note))
    return out


@pytest.mark.parametrize(("prompt", "seed"), CASES)
def test_music21_hears_the_declared_minor_key(prompt: str, seed: int, tmp_path: Path) -> None:
    music21 = pytest.importorskip("music21")
    result = compose(prompt, seed=seed, out_dir=str(tmp_path), render_audio=False, render_pianoroll=False)
    assert result.song is not None and result.song.key
    tonic_name, _, mode = result.song.key.partition(" ")
    assert mode.strip().lower() == "minor", result.song.key
    stream = music21.stream.Stream()
    for onset, length, pitch in _pitched_notes(result.session_dir / "midi" / "full-arrangement.mid"):
        stream.insert(onset, music21.note.Note(pitch, quarterLength=max(0.0625, round(length * 16) / 16)))
    found = stream.analyze("key")
    assert (found.tonic.pitchClass, found.mode) == (parse_key(f"{tonic_name} minor").tonic_pc, "minor"), \
        (found.name, result.song.key)


def _degrees(text: str) -> list[int]:
    return [parse_token(t)[1] for t in text.split()]


@pytest.mark.parametrize(("loop", "second"), [
    ("i:m bVI: bIII: bVII:", "i:m bVI: bVII: i:m"),  # the approach chord comes a bar early
    ("i:m bVII: bVI: bVII:", "i:m bVII: bVI: i:m"),  # its approach is already there: land from the bVI
    ("bVI: bVII: i:m V:", "bVI: bVII: V: i:m"),
    ("i:m iv:m bVI: V:", "i:m iv:m V: i:m"),
])
def test_a_minor_chorus_lands_on_its_tonic_in_its_second_pass(loop: str, second: str) -> None:
    played = landed(_slots(loop), "minor")
    assert [s.semis for s in played] == _degrees(loop) + _degrees(second)
    assert landed(_slots("bVI: bVII: i:m i:m"), "minor") == _slots("bVI: bVII: i:m i:m")  # already home

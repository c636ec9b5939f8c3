"""Reading files we did not write: other resolutions, format 0, running status,
unnamed tracks, and files that are not MIDI at all."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import mido
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import MidiFileError
from bandstand.midi import MidiLimits, read_midi, song_to_midi_bytes
from bandstand.score import ControlChange, Note, PitchBend
from tests.midi.songs import demo_song


def mido_bytes(midi: mido.MidiFile) -> bytes:
    buffer = io.BytesIO()
    midi.save(file=buffer)
    return buffer.getvalue()


def test_960_ppq_file_is_rescaled_to_beats() -> None:
    midi = mido.MidiFile(type=1, ticks_per_beat=960)
    conductor = mido.MidiTrack([mido.MetaMessage("set_tempo", tempo=500000, time=0),
                                mido.MetaMessage("time_signature", numerator=3, denominator=4, time=0),
                                mido.MetaMessage("key_signature", key="Bb", time=0),
                                mido.MetaMessage("marker", text="B", time=2880)])
    part = mido.MidiTrack([
        mido.MetaMessage("track_name", name="Fretless", time=0),
        mido.Message("program_change", channel=1, program=35, time=0),
        mido.Message("note_on", channel=1, note=40, velocity=90, time=480),   # beat 0.5
        mido.Message("control_change", channel=1, control=1, value=64, time=240),
        mido.Message("note_off", channel=1, note=40, velocity=0, time=1200),  # 1.5 beats long
        mido.Message("pitchwheel", channel=1, pitch=-4096, time=960),
    ])
    midi.tracks += [conductor, part]
    song = read_midi(mido_bytes(midi))
    assert song.tempo == 120.0 and str(song.time_signature) == "3/4" and song.key == "Bb major"
    assert [(m.beat, m.text) for m in song.markers] == [(3.0, "B")]
    (track,) = song.tracks
    assert (track.name, track.role, track.program, track.channel) == ("Fretless", "bass", 35, 1)
    assert track.notes == [Note(0.5, 1.5, 40, 90)]
    assert track.controls == [ControlChange(0.75, 1, 64)]
    assert track.pitch_bends == [PitchBend(3.0, -4096)]


@settings(deadline=None)
@given(st.integers(1, 4000), st.lists(st.tuples(st.integers(0, 5000), st.integers(1, 5000)), max_size=10))
def test_any_ppq_reads_to_the_same_beats(ppq: int, spans: list[tuple[int, int]]) -> None:
    midi = mido.MidiFile(type=1, ticks_per_beat=ppq)
    events = []
    for i, (start, length) in enumerate(spans):
        events += [(start, "note_on", 40 + i), (start + length, "note_off", 40 + i)]
    events.sort(key=lambda e: (e[0], e[1] == "note_on"))
    track, now = mido.MidiTrack(), 0
    for tick, kind, pitch in events:
        track.append(mido.Message(kind, note=pitch, velocity=80 if kind == "note_on" else 0, time=tick - now))
        now = tick
    midi.tracks.append(track)
    notes = read_midi(mido_bytes(midi), MidiLimits(seconds=1e9)).tracks[0].notes if spans else []  # not the limits
    want = sorted(((s / ppq, length / ppq, 40 + i) for i, (s, length) in enumerate(spans)), key=lambda n: (n[0], n[2]))
    assert [(n.start, n.duration, n.pitch) for n in notes] == want


def test_format_0_with_running_status_is_split_by_channel() -> None:
    # note-on C4 on channel 0, running-status note-on E4, then drums on channel 9
    body = bytes([0x00, 0x90, 60, 100, 0x00, 64, 100, 0x83, 0x60, 60, 0, 0x00, 64, 0,
                  0x00, 0x99, 36, 110, 0x60, 0x89, 36, 0, 0x00, 0xFF, 0x2F, 0x00])
    data = b"MThd" + (6).to_bytes(4, "big") + bytes([0, 0, 0, 1, 0x01, 0xE0])
    data += b"MTrk" + len(body).to_bytes(4, "big") + body
    song = read_midi(data)
    assert song.title == ""
    assert [(t.name, t.role, t.channel, t.is_drum) for t in song.tracks] == [
        ("Acoustic Grand Piano", "chords", 0, False), ("Drums", "drums", 9, True),
    ]
    assert song.tracks[0].notes == [Note(0.0, 1.0, 60, 100), Note(0.0, 1.0, 64, 100)]
    assert song.tracks[1].notes == [Note(1.0, 0.2, 36, 110)]


@pytest.mark.parametrize(
    ("name", "channel", "program", "role"),
    [("Kick & Snare", 0, 0, "drums"), ("Sub Bass", 5, 38, "bass"), ("", 9, 0, "drums"),
     ("", 6, 89, "pad"), ("", 6, 81, "lead"), ("", 2, 0, "chords"), ("", 6, 33, "bass"),
     ("Strings", 7, 48, "pad"), ("", 6, 120, "fx")],
)
def test_roles_are_guessed(name: str, channel: int, program: int, role: str) -> None:
    midi = mido.MidiFile(type=1)
    track = mido.MidiTrack()
    if name:
        track.append(mido.MetaMessage("track_name", name=name))
    track += [mido.Message("program_change", channel=channel, program=program),
              mido.Message("note_on", channel=channel, note=50, velocity=99),
              mido.Message("note_off", channel=channel, note=50, time=100)]
    midi.tracks += [mido.MidiTrack(), track]
    assert read_midi(mido_bytes(midi)).tracks[0].role == role


def test_notes_never_released_end_with_their_track() -> None:
    midi = mido.MidiFile(type=1)
    midi.tracks.append(mido.MidiTrack([mido.Message("note_on", note=60, velocity=80),
                                       mido.MetaMessage("end_of_track", time=960)]))
    assert read_midi(mido_bytes(midi)).tracks[0].notes == [Note(0.0, 2.0, 60, 80)]


GOOD = song_to_midi_bytes(demo_song())


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "MThd"),
        (b"RIFF....WAVEfmt ", "MThd"),
        (GOOD[:200], "truncated|middle of an event"),
        (GOOD[:14], "promises"),
        (b"MThd" + (6).to_bytes(4, "big") + bytes([0, 1, 0, 0, 0xE7, 0x28]), "SMPTE"),
        # 0 ticks per beat is damage, not SMPTE (it used to be reported as SMPTE)
        (b"MThd" + (6).to_bytes(4, "big") + bytes([0, 1, 0, 0, 0, 0]), "0 ticks per beat"),
        (b"MThd" + (6).to_bytes(4, "big") + bytes([0, 7, 0, 0, 1, 0xE0]), "format 7"),
        (b"MThd" + (6).to_bytes(4, "big") + bytes([0, 0, 0, 1, 1, 0xE0]) + b"MTrk\x00\x00\x00\x02\x00\x40",
         "running status"),
    ],
)
def test_corrupt_files_raise_a_clear_error(data: bytes, why: str) -> None:
    with pytest.raises(MidiFileError, match=why):
        read_midi(data)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(MidiFileError, match="no such file"):
        read_midi(tmp_path / "nope.mid")
    with pytest.raises(MidiFileError, match="folder"):
        read_midi(tmp_path)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_files_raise_midi_file_error_or_read(data: st.DataObject) -> None:
    """Flip, drop or cut bytes of a good file: the reader returns a Song or says the file is bad."""
    raw = bytearray(GOOD)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "drop", "cut"]))
        if action == "flip":
            raw[at] = data.draw(st.integers(0, 255))
        elif action == "drop":
            del raw[at]
        else:
            del raw[at:]
        if not raw:
            break
    with contextlib.suppress(MidiFileError):
        read_midi(bytes(raw))


def test_an_empty_path_says_so() -> None:
    # it said ". is a folder, not a MIDI file"
    with pytest.raises(MidiFileError, match="the path is empty"):
        read_midi("")

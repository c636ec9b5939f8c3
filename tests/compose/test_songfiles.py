"""A session's files from a Song: the presets the notes name are the programs in the MIDI
files, the mix is in the full MIDI as CC7/CC10 and in the notes, the lead sheet opens in
music21, and the stems are written."""

from __future__ import annotations

import re
import wave
from pathlib import Path

import mido
import pytest

from bandstand.compose import compose
from bandstand.compose.songfiles import mix_controls, write_song_outputs
from bandstand.compose.sound import PRESET_PROGRAMS
from bandstand.midi import GM_PROGRAMS, read_midi
from bandstand.score import AutomationLane, AutomationPoint, Note, Section, Song, Track, TrackMix

FAST = {"render_audio": False, "render_pianoroll": False}


def _programs(path: Path) -> dict[str, int]:
    out = {}
    for track in mido.MidiFile(str(path)).tracks:
        name = next((m.name for m in track if m.type == "track_name"), "")
        prog = next((m.program for m in track if m.type == "program_change"), None)
        if prog is not None:
            out[name] = prog
    return out


@pytest.mark.parametrize("prompt", ["deep house", "neo soul ballad", "trap, 140 bpm", "bossa nova with nylon guitar",
                                    "jazz trio", "ambient"])
def test_every_preset_named_in_the_notes_is_the_gm_program_in_the_file(tmp_path: Path, prompt: str) -> None:
    r = compose(prompt, seed=2, bars=8, out_dir=str(tmp_path), **FAST)
    page = (r.session_dir / "notes" / "preset-assignments.md").read_text(encoding="utf-8")
    rows = [line.split(" | ") for line in page.splitlines() if line.startswith("| ") and "---" not in line][1:]
    programs = _programs(r.session_dir / "midi" / "full-arrangement.mid")
    assert len(rows) == len(r.song.tracks)  # type: ignore[union-attr]
    for row in rows:
        name, role, preset = row[0].strip("| "), row[1], row[3]
        if role in ("drums", "percussion"):
            continue
        expected = PRESET_PROGRAMS.get(preset)
        if expected is None:
            assert preset.startswith("GM ")
            expected = GM_PROGRAMS.index(preset.removeprefix("GM "))
        assert programs[name] == expected, (name, preset)


def test_the_mix_is_written_as_controllers_and_notes(tmp_path: Path) -> None:
    r = compose("deep house", seed=3, bars=8, out_dir=str(tmp_path), **FAST)
    full = mido.MidiFile(str(r.session_dir / "midi" / "full-arrangement.mid"))
    pans = [m.value for t in full.tracks for m in t if m.type == "control_change" and m.control == 10]
    volumes = [m.value for t in full.tracks for m in t if m.type == "control_change" and m.control == 7]
    assert pans and volumes and len(set(volumes)) > 1
    mixpage = (r.session_dir / "notes" / "mix.md").read_text(encoding="utf-8")
    producer = (r.session_dir / "notes" / "producer-notes.md").read_text(encoding="utf-8")
    assert re.search(r"level [+−]\d+\.\d dB, pan (C|[LR]\d+)", producer)
    assert "LUFS" in mixpage and "Reverb" in mixpage
    assert r.manifest is not None and r.manifest["master"]["target_lufs"] == -11.0  # deep house
    assert all("level_db" in p and "pan" in p for p in r.manifest["parts"])


def test_mix_controls_map_volume_pan_and_their_automation() -> None:
    lane = AutomationLane("pan", (AutomationPoint(0.0, 0.0), AutomationPoint(2.0, 1.0)))
    track = Track("Keys", "chords", notes=[Note(0, 1, 60, 90)], mix=TrackMix(volume=0.25, pan=0.5, automation=(lane,)))
    out = mix_controls(track)
    assert [(c.time, c.value) for c in out.controls if c.control == 7] == [(0.0, 64)]  # √0.25 · 127
    pans = [(c.time, c.value) for c in out.controls if c.control == 10]
    assert pans[-1] == (2.0, 127) and (1.0, 64) in pans


def test_the_lead_sheet_reads_back_in_music21(tmp_path: Path) -> None:
    music21 = pytest.importorskip("music21")
    lead = Track("Lead", "lead", program=73, notes=[Note(b * 4.0 + i, 0.9 if i != 3 else 2.5, 72 + i, 90)
                                                    for b in range(4) for i in range(4)])
    chords = Track("Chords", "chords", program=0, notes=[Note(b * 4.0, 4.0, p, 70) for b in range(4)
                                                         for p in ((60, 64, 67), (57, 60, 64))[b % 2]])
    song = Song(title="Sheet", tempo=96.0, key="C major", tracks=[lead, chords],
                sections=[Section("verse", 1, 2), Section("chorus", 3, 2)])
    out = write_song_outputs(tmp_path, song, **FAST)
    assert "notes/lead-sheet.musicxml" in [f.path for f in out.files]
    score = music21.converter.parse(str(tmp_path / "notes" / "lead-sheet.musicxml"))
    part = score.parts[0]
    assert len(part.getElementsByClass("Measure")) == song.length_bars == 5  # the last note rings into bar 5
    flat = score.flatten()
    assert [c.figure for c in flat.getElementsByClass("ChordSymbol")] == ["C", "Am", "C", "Am"]
    assert [m.content for m in flat.getElementsByClass("RehearsalMark")] == ["verse", "chorus"]
    notes = [n for n in flat.getElementsByClass("Note")]
    assert [n.pitch.midi for n in notes if not (n.tie and n.tie.type in ("stop", "continue"))] == \
        [72 + i for _ in range(4) for i in range(4)]
    assert flat.getElementsByClass("TimeSignature")[0].ratioString == "4/4"
    assert flat.getElementsByClass("MetronomeMark")[0].number == 96


def test_audio_and_stems_are_written_and_the_top_files_follow_the_song(tmp_path: Path) -> None:
    r = compose("lofi hip hop", seed=5, bars=4, out_dir=str(tmp_path), render_pianoroll=False)
    assert r.status == "completed", r.state.error
    stems = sorted(p.name for p in (r.session_dir / "audio" / "stems").glob("*.wav"))
    assert "bus-reverb.wav" in stems and len(stems) == len(r.song.tracks) + 1  # type: ignore[union-attr]
    with wave.open(str(r.session_dir / "audio" / "stems" / stems[0])) as w:
        assert w.getnchannels() == 2 and w.getnframes() > 0
    song = read_midi(r.session_dir / "midi" / "full-arrangement.mid")
    song.tracks = song.tracks[:2]
    again = write_song_outputs(r.session_dir, song, render_pianoroll=False)
    assert len(list((r.session_dir / "audio" / "stems").glob("*.wav"))) <= 3  # stale stems are gone
    assert not again.degraded


def test_the_session_keeps_its_mixed_song_and_export_renders_the_same_wav(tmp_path: Path) -> None:
    from bandstand.compose.songjson import read_session_song, song_from_json, song_to_json
    from bandstand.producer.sessions.export import export_session

    r = compose("deep house", seed=6, bars=4, out_dir=str(tmp_path), render_pianoroll=False)
    song = read_session_song(r.session_dir)
    assert song is not None and song.buses and any(t.mix.inserts for t in song.tracks)
    again = song_from_json(song_to_json(song))
    assert [t.mix for t in again.tracks] == [t.mix for t in song.tracks] and again.buses == song.buses
    assert [t.notes for t in again.tracks] == [t.notes for t in song.tracks]
    wav = export_session(r.session_dir, "wav", tmp_path / "x").files[0]
    assert wav.read_bytes() == (r.session_dir / "audio" / "full-arrangement.wav").read_bytes()


def test_a_part_has_one_name_for_its_midi_file_and_its_stem(tmp_path: Path) -> None:
    """Two pads, one named "String Pad", and a track without a name: the MIDI files and the stems
    carry the same names (pad, string-pad, lead; a second "Pad" is pad-2), never pad-2.mid beside
    string-pad.wav."""
    tracks = [Track("Pad", "pad", 89, notes=[Note(0.0, 4.0, 60, 80)]),
              Track("String Pad", "pad", 48, notes=[Note(0.0, 4.0, 64, 80)]),
              Track("Pad", "pad", 90, notes=[Note(4.0, 4.0, 67, 80)]),
              Track("", "lead", 80, notes=[Note(0.0, 1.0, 72, 90)])]
    song = Song(title="Names", tempo=120, tracks=tracks)
    write_song_outputs(tmp_path, song, render_pianoroll=False)
    midi = sorted(p.stem for p in (tmp_path / "midi").glob("*.mid") if p.stem != "full-arrangement")
    stems = sorted(p.stem for p in (tmp_path / "audio" / "stems").glob("*.wav") if not p.stem.startswith("bus-"))
    assert midi == stems == ["lead", "pad", "pad-2", "string-pad"]
    assert _programs(tmp_path / "midi" / "string-pad.mid") == {"String Pad": 48}


def test_the_audio_figures_are_the_written_files_figures_and_only_asked_for_they_are_taken(tmp_path: Path) -> None:
    """The manifest's audio figures come from the meters the render took while it wrote the
    files: the same figures as reading the session's files back; a render nobody asked figures
    of (the studio's) measures nothing."""
    from bandstand.compose.output import _audio_quality
    from bandstand.compose.songfiles import write_audio

    r = compose("lofi hip hop", seed=5, bars=4, out_dir=str(tmp_path), render_pianoroll=False)
    assert r.status == "completed", r.state.error
    assert r.manifest is not None
    audio = r.manifest["quality"]["audio"]
    assert {"stem_loudness.drums", "low_share.bass", "brightness.lead"} <= set(audio)
    assert audio == _audio_quality(r.session_dir, r.manifest["parts"], {})  # read back from the files
    song = read_midi(r.session_dir / "midi" / "full-arrangement.mid")
    assert write_audio(tmp_path / "studio", song).meters == {}
    measured = write_audio(tmp_path / "measured", song, measure=True).meters
    stems = {p for p in (tmp_path / "measured" / "audio" / "stems").glob("*.wav") if not p.name.startswith("bus-")}
    assert len(stems) == len(song.tracks) and set(measured) == {tmp_path / "measured" / "audio" / "full-arrangement.wav",
                                                                *stems}

"""`bandstand import FILE.mid`: someone's own four-part MIDI file (written with mido) becomes a
studio project — roles guessed from what the tracks play, the key found (or read), the tempo
read, sections from repetition (or markers) — and the studio directs it as a composed song:
"make the bass busier" is a variation of the bass alone, accept makes revision 2, undo goes back."""

from __future__ import annotations

import json
from pathlib import Path

import mido
import pytest

from bandstand.cli import run
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import to_song

from .midi_songs import TEMPO, four_part_song


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert run(["import", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _notes(path: Path) -> list[tuple[int, int]]:
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for message in track:
            tick += message.time
            if message.type == "note_on" and message.velocity:
                out.append((tick, message.note))
    return sorted(out)


def test_a_four_part_file_becomes_a_project_the_studio_directs(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = four_part_song(tmp_path / "my song.mid")
    made = _import(capsys, str(source), "--out", str(tmp_path / "projects"))
    root = Path(str(made["path"]))
    assert root.parent == tmp_path / "projects" and made["revision"] == 1
    assert [p["role"] for p in made["parts"]] == ["drums", "bass", "chords", "lead"]  # type: ignore[union-attr,index]
    assert made["key"] in ("A minor", "C major") and made["key_source"] == "detected"  # Am F G Em: either reading
    assert made["tempo"] == pytest.approx(TEMPO)
    # bars 9-16 play busier drums and another tune: two sections found by repetition
    assert made["sections_source"] == "repetition"
    assert [(s["name"], s["start_bar"], s["bars"]) for s in made["sections"]] == [  # type: ignore[union-attr,index]
        ("verse", 1, 8), ("chorus", 9, 8)]
    head = open_project(root).head
    assert to_song(head).title == "my song"
    assert _notes(root / "midi" / "full-arrangement.mid") == _notes(source)  # every note, where it was

    assert run(["edit", str(root), "make the bass busier", "--json"]) == 0
    edit = json.loads(capsys.readouterr().out)
    assert edit["kind"] == "variation" and edit["affected_parts"] == ["bass"]
    assert set(edit["preserved_parts"]) == {"drums", "chords", "lead"}
    assert run(["accept", str(root), edit["variation_id"], "--json"]) == 0
    capsys.readouterr()
    after = to_song(open_project(root).head)
    before = to_song(head)
    assert len(after.track("bass").notes) > len(before.track("bass").notes)
    for role in ("drums", "chords", "lead"):
        assert after.track(role).notes == before.track(role).notes
    assert open_project(root).revision == 2
    assert run(["undo", str(root)]) == 0
    assert to_song(open_project(root).head).track("bass").notes == before.track("bass").notes


def test_the_files_key_signature_and_markers_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = four_part_song(tmp_path / "marked.mid", key_signature="Em", markers=((1, "Intro"), (5, "Verse"),
                                                                                  (13, "Outro")))
    made = _import(capsys, str(source), "--name", "Night drive", "--out", str(tmp_path / "p"))
    assert (made["key"], made["key_source"]) == ("E minor", "file")
    assert made["sections_source"] == "markers"
    assert [(s["name"], s["start_bar"], s["bars"]) for s in made["sections"]] == [  # type: ignore[union-attr,index]
        ("Intro", 1, 4), ("Verse", 5, 8), ("Outro", 13, 4)]
    assert to_song(open_project(Path(str(made["path"]))).head).title == "Night drive"


@pytest.mark.parametrize(("content", "says"), [
    (b"MThd\x00\x00\x00\x06\x00\x01\x00\x01\x01\xe0MTrk\x7f\xff\xff\xff", "not a readable MIDI file"),
    (b"hello, not midi", "not a readable MIDI file"),
])
def test_a_hostile_or_broken_file_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         content: bytes, says: str) -> None:
    bad = tmp_path / "bad.mid"
    bad.write_bytes(content)
    assert run(["import", str(bad), "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err and "bad.mid" in err and "Traceback" not in err
    assert not (tmp_path / "p").exists() or not any((tmp_path / "p").iterdir())


def test_a_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.mid"
    with big.open("wb") as f:
        f.truncate((16 << 20) + 1)
    assert run(["import", str(big)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "over bandstand's limits" in err and "16 MiB" in err


def test_a_file_without_notes_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.mid"
    midi = mido.MidiFile()
    midi.tracks.append(mido.MidiTrack([mido.MetaMessage("set_tempo", tempo=500000, time=0)]))
    midi.save(empty)
    assert run(["import", str(empty), "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no notes" in err


def test_a_format_0_waltz_of_two_unnamed_channels_is_two_parts_the_studio_tells_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waltz = mido.MidiFile(type=0, ticks_per_beat=96)
    track = mido.MidiTrack()
    track += [mido.MetaMessage("time_signature", numerator=3, denominator=4, time=0),
              mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(140), time=0)]
    for bar in range(12):
        for beat in range(3):
            track += [mido.Message("note_on", channel=0, note=40 + bar % 3, velocity=90, time=0),
                      mido.Message("note_on", channel=1, note=64, velocity=80, time=0),
                      mido.Message("note_on", channel=1, note=67 + beat, velocity=80, time=0),
                      mido.Message("note_off", channel=0, note=40 + bar % 3, velocity=0, time=90),
                      mido.Message("note_off", channel=1, note=64, velocity=0, time=0),
                      mido.Message("note_off", channel=1, note=67 + beat, velocity=0, time=0),
                      mido.MetaMessage("text", text="", time=6)]
    waltz.tracks.append(track)
    waltz.save(tmp_path / "waltz.mid")
    made = _import(capsys, str(tmp_path / "waltz.mid"), "--out", str(tmp_path / "p"))
    # both channels play program 0 and have no name: the parts still get names of their own
    assert made["parts"] == [{"name": "Acoustic Grand Piano", "role": "bass"},
                             {"name": "Acoustic Grand Piano 2", "role": "chords"}]
    assert made["tempo"] == pytest.approx(140)
    assert run(["edit", str(made["path"]), "make the bass busier", "--json"]) == 0
    edit = json.loads(capsys.readouterr().out)
    assert edit["affected_parts"] == ["bass"] and edit["preserved_parts"] == ["chords"]


def test_drums_alone_have_no_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    beat = mido.MidiFile()
    track = mido.MidiTrack()
    for i in range(16):
        track += [mido.Message("note_on", channel=9, note=36, velocity=100, time=0 if i == 0 else 360),
                  mido.Message("note_off", channel=9, note=36, velocity=0, time=120)]
    beat.tracks.append(track)
    beat.save(tmp_path / "beat.mid")
    made = _import(capsys, str(tmp_path / "beat.mid"), "--out", str(tmp_path / "p"))
    assert (made["key"], made["key_source"]) == (None, "none")
    assert made["parts"] == [{"name": "Drums", "role": "drums"}]


def test_an_out_that_is_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "taken").write_text("x")
    assert run(["import", str(four_part_song(tmp_path / "s.mid")), "--out", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is a file; give a folder" in err

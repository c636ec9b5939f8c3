"""A jam becomes a song: a headless jam's --out folder is a studio project (a section per round),
and `bandstand jam-to-song` arranges it (intro, the rounds as sections, an ending) into a song
project `bandstand edit` directs — every file read back with mido."""

from __future__ import annotations

import json
from pathlib import Path

import mido
import pytest

from bandstand.cli import run
from bandstand.producer.jams.jam_song import NAMES, Jam, Round, arrange, jam_to_song
from bandstand.producer.sessions.projects import open_project
from bandstand.score import Note, Song, Track
from bandstand.studio import to_song

DIRECTIVES = ["4:more energy", "8:@BEAT simpler", "12:7/8"]


@pytest.fixture(scope="module")
def jam_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("jam") / "jam-out"
    argv = ["jam", "--headless", "--cycles", "16", "--no-wav", "--out", str(out)]
    assert run([*argv, *(x for d in DIRECTIVES for x in ("-d", d))]) == 0
    return out


def _notes(path: Path) -> list[tuple[int, int]]:
    """(absolute tick, pitch) of every note-on in a MIDI file, read by mido."""
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for message in track:
            tick += message.time
            if message.type == "note_on" and message.velocity:
                out.append((tick, message.note))
    return sorted(out)


def _signatures(path: Path) -> list[tuple[int, int, int]]:
    """(absolute tick, numerator, denominator) of every time signature of a MIDI file, read by mido."""
    out, tick = [], 0
    for message in mido.MidiFile(path).tracks[0]:
        tick += message.time
        if message.type == "time_signature":
            out.append((tick, message.numerator, message.denominator))
    return out


def test_the_out_folder_is_the_jam_as_played_with_a_section_per_round(jam_dir: Path) -> None:
    session = open_project(jam_dir)
    head = session.head
    assert session.revision == 1 and [h.entry.author for h in session.history()] == ["jam"]
    assert [s.name for s in head.sections] == ["round 1", "round 2", "round 3", "round 4"]
    assert [(s.start_bar, s.bars) for s in head.sections] == [(1, 4), (5, 4), (9, 4), (13, 4)]
    # round 4 was played in 7/8: the project's metre map, and the file's time signatures, say so
    assert [(c.bar, str(c.time_signature)) for c in head.metre_changes] == [(13, "7/8")]
    # a round's energy (1-10) is read as the musicians played it: 1 is 0, 10 is 1 (round 1 at the
    # jam's opening 5 is 4/9, not 5/10)
    assert head.sections[0].energy == pytest.approx(4 / 9)
    song = to_song(head)
    assert {t.name for t in song.tracks} >= {"BEAT drums", "GROOVE sawtooth"}
    played = _notes(jam_dir / "jam.mid")
    assert _notes(jam_dir / "midi" / "full-arrangement.mid") == played  # bar for bar what the band played
    assert _signatures(jam_dir / "midi" / "full-arrangement.mid") == [(0, 4, 4), (12 * 1920, 7, 8)]


def test_jam_to_song_arranges_the_rounds_with_an_intro_and_an_ending(jam_dir: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "song"
    assert run(["jam-to-song", str(jam_dir), "--out", str(out), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    # the opening round, then two that sound alike (more energy; the same with a simpler kit): a
    # verse and a chorus; round 4, in 7/8, a bridge; the chorus again; between the rhythm
    # section's intro and the ending
    assert made["form"] == ["intro", "verse", "chorus", "bridge", "chorus", "outro"]
    assert made["left_out"] == []
    head = open_project(out).head
    sections = {s.name: s for s in head.sections}
    assert [s.name for s in head.sections] == made["form"]
    assert all(s.bars in (2, 4, 8, 16) for s in head.sections)
    song = to_song(head)
    bar = song.beats_per_bar
    # the bridge keeps the jam's 7/8, and the chorus after it is in 4/4 again: the time signatures
    # stand at the bars the sections start, the bars after the bridge where 7/8 bars put them
    bridge = sections["bridge"]
    assert [(c.bar, str(c.time_signature)) for c in head.metre_changes] == [(bridge.start_bar, "7/8"),
                                                                            (bridge.end_bar, "4/4")]
    at = (bridge.start_bar - 1) * 4 * 480
    assert _signatures(out / "midi" / "full-arrangement.mid") == [(0, 4, 4), (at, 7, 8),
                                                                   (at + bridge.bars * 7 * 240, 4, 4)]

    def playing(section: str) -> set[str]:
        s = sections[section]
        first, last = song.bar_to_beat(s.start_bar), song.bar_to_beat(s.end_bar)
        return {t.role for t in song.tracks if any(first <= n.start < last for n in t.notes)}

    assert {"drums", "bass"} <= playing("intro") <= {"drums", "bass", "percussion"}  # the rhythm section sets it up
    assert {"lead", "fx"} <= playing("verse")
    assert sections["chorus"].bars == 8  # two rounds of 4 bars in a row are one section
    outro = sections["outro"]
    last_bar = song.bar_to_beat(outro.start_bar + outro.bars - 1)
    final = [n for t in song.tracks for n in t.notes if n.start >= last_bar]
    assert final and all(n.start == last_bar for n in final)  # the last bar is one struck chord
    assert any(n.duration == bar for n in final)  # held
    ticks = [t for t, _ in _notes(out / "midi" / "full-arrangement.mid")]
    assert max(ticks) == last_bar * 480


def test_the_song_is_directed_by_words(jam_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "song"
    jam_to_song(jam_dir, out)
    assert run(["edit", str(out), "make the bass busier"]) == 0
    assert "Accept with" in capsys.readouterr().out
    assert run(["accept", str(out), "--no-audio"]) == 0
    session = open_project(out)
    assert session.revision == 2
    bass = [t for t in to_song(session.head).tracks if t.role == "bass"]
    before = [t for t in to_song(session.project(1)).tracks if t.role == "bass"]
    assert len(bass[0].notes) > len(before[0].notes)


def test_a_folder_without_a_jam_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["jam-to-song", str(tmp_path)]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "holds no jam recording" in line and "--headless --out" in line


def _round(number: int, pitches: list[int]) -> Round:
    """A one-bar round of one track playing `pitches` on the beats."""
    return Round(number, f"round {number}", 5, "4/4", ((tuple(Note(float(i), 1.0, p, 90) for i, p in enumerate(pitches)),),))


def test_rounds_that_sound_alike_are_one_section_and_there_are_at_most_four() -> None:
    riffs = {"a": [60, 62, 63, 65], "b": [67, 70, 72, 74], "c": [48, 48, 55, 55], "d": [84, 79, 77, 75],
             "e": [41, 43, 44, 46]}
    order = ["a", "a", "b", "a", "c", "d", "e"]
    song = Song(tracks=[Track("ARIA sawtooth", "lead")])
    jam = Jam(song, tuple(_round(i + 1, riffs[k]) for i, k in enumerate(order)))
    _, form = arrange(jam)
    body = list(form[1:-1])
    assert form[0] == "intro" and form[-1] == "outro"
    # a a → one verse; b; a again is the verse; c, d new; e, a fifth idea, joins the section nearest it
    assert body[:5] == ["verse", "chorus", "verse", "bridge", "breakdown"]
    assert set(body) <= set(NAMES)


def test_the_song_keeps_the_jams_metre_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "jam"
    assert run(["jam", "--headless", "--cycles", "16", "--no-wav", "--no-autopilot", "--out", str(out),
                "-d", "4:3/4 time"]) == 0
    capsys.readouterr()
    assert run(["jam-to-song", str(out), "--out", str(tmp_path / "song"), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["left_out"] == []  # the 4/4 round and the 3/4 rounds after it, all kept
    head = open_project(tmp_path / "song").head
    song = to_song(head)
    assert (song.time_signature.numerator, song.time_signature.denominator) == (4, 4)  # as the jam opened
    moved = next(s for s in head.sections if str(head.metre_at(s.start_bar)) == "3/4")  # where it moved to 3/4
    assert head.sections.index(moved) >= 1 and str(head.metre_at(1)) == "4/4"  # 4/4 before it
    signatures = _signatures(tmp_path / "song" / "midi" / "full-arrangement.mid")
    assert signatures[:2] == [(0, 4, 4), ((moved.start_bar - 1) * 4 * 480, 3, 4)]
    # every section marker stands on a bar line of the map (a 3/4 bar is 1440 ticks)
    bars = [0]
    for b in range(1, song.length_bars + 1):
        bars.append(bars[-1] + round(song.metre_at(b).beats_per_bar * 480))
    markers, tick = [], 0
    for message in mido.MidiFile(tmp_path / "song" / "midi" / "full-arrangement.mid").tracks[0]:
        tick += message.time
        if message.type == "marker":
            markers.append(tick)
    assert markers and all(t in bars for t in markers)

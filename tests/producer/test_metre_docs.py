"""docs/studio.md's metre map and half time, through real `bandstand` processes: the page's example
runs as written (the whole page runs in tests/studio/test_docs.py; this checks what it shows),
then mido reads every file — the time signatures at the ticks where the metre changes, the
section markers on the map's bar lines, the parts written in 3/4 in the 3/4 bars, the verse
after the chorus moved bar for bar, the half-time verse's backbeat on 3 with the tempo left as it
was, the lead sheet's measures — and undo and redo bring back each file byte for byte."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import mido
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "studio.md"
TEXT = DOC.read_text(encoding="utf-8")
MINE = TEXT[TEXT.index("### The metre map, and half time"):]
BLOCK = re.findall(r"```bash\n(.*?)```", MINE[:MINE.index("\n## ")], re.S)
SNARES = frozenset({38, 40})


def _bandstand(cwd: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "bandstand", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _meta(path: Path) -> tuple[list[tuple[int, int, int]], list[tuple[int, str]], list[int]]:
    """(tick, numerator, denominator) of every time signature, (tick, text) of every marker and
    the tempo events' ticks of a MIDI file, read by mido."""
    signatures, markers, tempos, tick = [], [], [], 0
    for message in mido.MidiFile(path).tracks[0]:
        tick += message.time
        if message.type == "time_signature":
            signatures.append((tick, message.numerator, message.denominator))
        elif message.type == "marker":
            markers.append((tick, message.text))
        elif message.type == "set_tempo":
            tempos.append(tick)
    return signatures, markers, tempos


def _onsets(path: Path, *, accents: bool = False) -> list[tuple[int, int]]:
    """(absolute tick, pitch) of every note-on (with `accents`, of velocity 80 or more)."""
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for message in track:
            tick += message.time
            if message.type == "note_on" and message.velocity >= (80 if accents else 1):
                out.append((tick, message.note))
    return sorted(out)


def _files(session: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((session / "midi").glob("*.mid"))}


@pytest.mark.slow
def test_a_chorus_in_three_and_a_half_time_verse(tmp_path: Path) -> None:
    assert len(BLOCK) == 1
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", BLOCK[0]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    (session,) = (tmp_path / "metre").glob("session-*")
    proposal = json.loads((tmp_path / "chorus-in-three.json").read_text(encoding="utf-8"))
    assert proposal["changed"][0] == "metre" and proposal["cost"] == "expensive"
    assert "3/4 from bar 13" in proposal["diff"]["song"]
    assert (tmp_path / "chorus-metre.txt").read_text(encoding="utf-8").startswith(
        "The Chorus 1 (bars 13–16) is in 3/4.")
    manifest = json.loads((session / "manifest.json").read_text(encoding="utf-8"))
    chorus = [s for s in manifest["sections"] if s["name"].startswith("Chorus")]
    three = {b for s in chorus for b in range(s["start_bar"], s["start_bar"] + s["bars"])}
    assert {c["time_signature"] for c in manifest["metre_changes"]} == {"3/4", "4/4"}

    # the bar lines of the map: a 3/4 bar is 1440 ticks, a 4/4 bar 1920
    lines = [0]
    for bar in range(1, manifest["total_bars"] + 1):
        lines.append(lines[-1] + (1440 if bar in three else 1920))
    full = session / "midi" / "full-arrangement.mid"
    signatures, markers, tempos = _meta(full)
    expected = [(0, 4, 4)]
    for bar in range(2, manifest["total_bars"] + 1):
        if (bar in three) != (bar - 1 in three):
            expected.append((lines[bar - 1], *((3, 4) if bar in three else (4, 4))))
    assert signatures == expected
    starts = {s["name"]: lines[s["start_bar"] - 1] for s in manifest["sections"]}
    assert markers == sorted((tick, name) for name, tick in starts.items())
    assert tempos == [0]  # a metre is not a tempo, nor is half time

    # every part writes the 3/4 bars in 3/4: nothing starts past a chorus bar's third beat
    for path in (session / "midi").glob("*.mid"):
        if path.name == "full-arrangement.mid":
            continue
        for tick, _ in _onsets(path):  # a note played a hair early belongs to the bar it leads into
            bar = max(b for b in range(1, len(lines)) if lines[b - 1] <= tick + 30)
            if bar in three:
                assert tick - lines[bar - 1] < 1440 - 30, (path.name, bar)

    # the verses at half time: the snare's backbeat (its accents, not the ghost notes) on 3, never
    # on 2 or 4 (their last bar is a fill)
    drums = _onsets(session / "midi" / "drums.mid", accents=True)
    verses = [s for s in manifest["sections"] if s["name"].startswith("Verse")]
    assert verses
    for verse in verses:
        for bar in range(verse["start_bar"], verse["start_bar"] + verse["bars"] - 1):
            at = lines[bar - 1]
            snare = {round((tick - at) / 480 * 4) / 4 for tick, note in drums
                     if note in SNARES and at - 20 <= tick < at + 1920 - 20}
            assert 2.0 in snare and 1.0 not in snare and 3.0 not in snare, (bar, snare)

    # the lead sheet's measures: a time signature where the metre changes, each bar as long as its metre
    sheet = ET.parse(session / "notes" / "lead-sheet.musicxml").getroot()
    measures = sheet.findall("part/measure")
    assert len(measures) == manifest["total_bars"]
    for number, measure in enumerate(measures, start=1):
        time = measure.find("attributes/time")
        if number == 1 or (number in three) != (number - 1 in three):
            assert time is not None and time.findtext("beats") == ("3" if number in three else "4"), number
        else:
            assert time is None, number
        length = sum(int(n.findtext("duration") or 0) for n in measure.findall("note") if n.find("chord") is None)
        assert length == (12 if number in three else 16), number  # sixteenths

    # undo and redo bring back each revision's files byte for byte
    head = _files(session)
    _bandstand(tmp_path, "undo", str(session), "--no-audio")
    before_feel = _files(session)
    assert before_feel != head and _meta(session / "midi" / "full-arrangement.mid")[0] == signatures
    _bandstand(tmp_path, "undo", str(session), "--no-audio")
    assert _meta(session / "midi" / "full-arrangement.mid")[0] == [(0, 4, 4)]
    _bandstand(tmp_path, "redo", str(session), "--no-audio")
    assert _files(session) == before_feel
    _bandstand(tmp_path, "redo", str(session), "--no-audio")
    assert _files(session) == head

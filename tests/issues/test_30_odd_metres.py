"""Issue #30, odd metres per section: "odd time signatures" gives a form whose sections carry
metres of their own (the seed's: verse 7/8, chorus 4/4, bridge 5/4 …), and every layer that
reads bars honours them — the parts are written bar by bar in their section's metre, the MIDI
file has a time signature at every change (read back with mido, an independent reader, and
with `midi.read_midi`), the manifest, the arrangement map and the lead sheet carry the map."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import mido
import pytest

from bandstand.compose.api import compose
from bandstand.compose.intent import decompose
from bandstand.midi import read_midi

PROMPT = "progressive rock epic with odd time signatures"
EARLY = 0.06  # beats: a humanized downbeat played a hair early belongs to the next bar


def _metres_by_mido(path: Path) -> tuple[int, list[tuple[int, int, int]]]:
    """(PPQ, [(tick, numerator, denominator)]) of the file's time signatures."""
    mid = mido.MidiFile(str(path))
    found = []
    for track in mid.tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "time_signature":
                found.append((tick, msg.numerator, msg.denominator))
    return mid.ticks_per_beat, sorted(set(found))


def _notes_by_mido(path: Path) -> dict[str, list[int]]:
    """Note-on ticks per track name."""
    out: dict[str, list[int]] = {}
    for track in mido.MidiFile(str(path)).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "note_on" and msg.velocity > 0:
                out.setdefault(track.name, []).append(tick)
    return out


def _bar_starts(ppq: int, metres: list[tuple[int, int, int]], end: int) -> list[int]:
    starts, tick = [], 0
    while tick <= end:
        num, den = next((n, d) for t, n, d in reversed(metres) if t <= tick)
        starts.append(tick)
        tick += num * ppq * 4 // den
    return starts


def test_odd_time_signatures_give_each_section_kind_a_metre_by_the_seed() -> None:
    """The verses in one odd metre, the lift and the departures in the others (4/4 among them),
    so a song has at least two metres; a metre written out wins for the whole song."""
    homes = set()
    for seed in range(12):
        intent = decompose(PROMPT, seed=seed)
        assert intent.time_signature in {(7, 8), (5, 4)}
        homes.add(intent.time_signature)
        by_kind = intent.section_metres
        assert by_kind["verse"] == intent.time_signature == by_kind["intro"]
        assert len({by_kind["verse"], by_kind["chorus"], by_kind["bridge"]}) == 3
        assert set(by_kind.values()) == {(7, 8), (5, 4), (4, 4)}
    assert homes == {(7, 8), (5, 4)}
    written = decompose("prog in 7/8 with odd time signatures", seed=1)
    assert written.time_signature == (7, 8) and written.section_metres == {}
    assert decompose("a progressive rock epic", seed=1).section_metres == {}


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
def test_every_section_s_notes_fit_its_own_metre_and_the_midi_carries_the_changes(seed: int, tmp_path: Path) -> None:
    result = compose(PROMPT, seed=seed, bars=48, render_audio=False, render_pianoroll=False, out_dir=str(tmp_path))
    root = Path(result.session_dir)
    manifest = json.loads((root / "manifest.json").read_text())
    changes = manifest["metre_changes"]
    assert changes, "the song changes metre"
    sections = manifest["sections"]
    assert {s["time_signature"] for s in sections} == {manifest["time_signature"], *(c["time_signature"] for c in changes)}
    full = root / "midi" / "full-arrangement.mid"
    ppq, metres = _metres_by_mido(full)
    assert [f"{n}/{d}" for _, n, d in metres] == [manifest["time_signature"], *(c["time_signature"] for c in changes)]
    total = manifest["total_bars"]
    notes = _notes_by_mido(full)
    end = max(t for ticks in notes.values() for t in ticks)
    starts = _bar_starts(ppq, metres, max(end, 1) + 8 * ppq)
    # a change sits on a bar line of the map, at the bar the manifest names
    for (tick, _, _), change in zip(metres[1:], changes, strict=True):
        assert tick == starts[change["bar"] - 1]
    for section in sections:
        first, last = section["start_bar"], section["start_bar"] + section["bars"] - 1
        num, den = map(int, section["time_signature"].split("/"))
        for bar in range(first, last + 1):
            assert starts[bar] - starts[bar - 1] == num * ppq * 4 // den, (section, bar)
    # the drums play a groove of the section's own bar length: bar after bar of a section, the
    # drums strike the same places of the bar (a groove in another metre would drift across it)
    drums = sorted(notes["Drums"])
    assert max(drums) < starts[total]
    sixteenth = ppq // 4
    for section in sections:
        first, last = section["start_bar"], section["start_bar"] + section["bars"] - 1
        places = [{round((t - starts[b - 1]) / sixteenth) for t in drums if starts[b - 1] - EARLY * ppq <= t
                   < starts[b] - EARLY * ppq} for b in range(first, last + 1)]
        pairs = [(a, b) for a, b in itertools.pairwise(places) if a and b]
        if len(pairs) >= 3:
            same = sum(len(a & b) / len(a | b) for a, b in pairs) / len(pairs)
            assert same >= 0.5, (section, same)
    # the song read back by our own reader keeps the map
    song = read_midi(full)
    assert [(c.bar, str(c.time_signature)) for c in song.metre_changes] == [(c["bar"], c["time_signature"])
                                                                              for c in changes]
    assert song.length_bars == total
    # the part files carry it too, and the lead sheet measures each bar in its metre
    assert _metres_by_mido(root / "midi" / "bass.mid")[1] == metres
    sheet = (root / "notes" / "lead-sheet.musicxml").read_text()
    assert sheet.count("<time>") == len(metres)
    assert "| metre |" in (root / "notes" / "arrangement-map.md").read_text()


def test_each_part_is_written_in_its_section_s_metre(tmp_path: Path) -> None:
    """A 4/4 section's bars hold four beats of bass and comping, a 7/8 one's three and a half:
    the notes of each bar start inside it and the bass ends its bars' notes by the bar line."""
    result = compose(PROMPT, seed=7, bars=48, render_audio=False, render_pianoroll=False, checkpoints=False,
                     out_dir=str(tmp_path))
    song = result.song
    assert song is not None and song.metre_changes
    by_length: dict[float, int] = {}
    for track in song.tracks:
        if track.is_drum:
            continue
        for n in track.notes:
            bar = song.beat_to_bar(n.start + EARLY)
            start = song.bar_to_beat(bar)
            length = song.metre_at(bar).beats_per_bar
            assert start - EARLY <= n.start < start + length, (track.name, n, bar)
            by_length[length] = by_length.get(length, 0) + 1
    assert len(by_length) >= 2, by_length


def test_the_compose_cli_round_trips_through_import(tmp_path: Path) -> None:
    """`bandstand compose` of the prompt, then `bandstand import` of its MIDI: the project keeps
    the metre map."""
    env_python = sys.executable
    out = tmp_path / "out"
    subprocess.run([env_python, "-m", "bandstand", "compose", PROMPT, "--seed", "7", "--bars", "32", "--no-audio",
                    "--out", str(out)], check=True, capture_output=True, text=True)
    session = next(out.glob("session-*"))
    manifest = json.loads((session / "manifest.json").read_text())
    assert manifest["metre_changes"] and all("time_signature" in s for s in manifest["sections"])
    done = subprocess.run([env_python, "-m", "bandstand", "import", str(session / "midi" / "full-arrangement.mid"),
                           "--out", str(tmp_path / "projects"), "--json"], check=True, capture_output=True, text=True)
    imported = json.loads(done.stdout)
    folder = Path(imported["path"])
    again = json.loads((folder / "manifest.json").read_text())
    assert again["time_signature"] == manifest["time_signature"]
    assert again["metre_changes"] == manifest["metre_changes"]

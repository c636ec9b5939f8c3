"""Issue 26 (and issue 25's "Keep this loses key and tempo changes"): a jam that moved from C minor
to D major and later to 96 BPM became a song "in C minor, 120 BPM" with no changes, its members'
sound changes became second tracks (`bass-2`), and "make the bass busier" wrote the whole bass in
C minor, playing through bars where it had been silent. Now `jam-to-song` keeps the jam's key and
tempo map, one track per member (a sound change is a program change), and an edit writes each bar
in its own key, only where the part played — through real `bandstand` processes, read with mido."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mido
import pytest

from bandstand.theory import parse_key

BAR = 4 * 480
MEMBERS = ("BEAT", "GROOVE", "ARIA", "GLITCH")
DIRECTIVES = ("4:switch to D major", "8:@GROOVE drop out", "14:@GROOVE come back", "16:set the tempo to 96")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def song(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("journey")
    _run("jam", "--headless", "--cycles", "20", "--no-wav", "--no-autopilot", "--out", str(root / "jam"),
         *(x for d in DIRECTIVES for x in ("-d", d)))
    made = json.loads(_run("jam-to-song", str(root / "jam"), "--out", str(root / "song"), "--json").stdout)
    assert made["left_out"] == []
    return root / "song"


def _meta(path: Path, kind: str) -> list[tuple[int, mido.MetaMessage]]:
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == kind:
                out.append((tick, msg))
    return sorted(out, key=lambda e: e[0])


def _bass(path: Path) -> dict[int, list[int]]:
    """Bar (1-based) → the pitches GROOVE plays there."""
    (track,) = [t for t in mido.MidiFile(path).tracks if t.name == "GROOVE"]
    out: dict[int, list[int]] = {}
    tick = 0
    for msg in track:
        tick += msg.time
        if msg.type == "note_on" and msg.velocity:
            out.setdefault(tick // BAR + 1, []).append(msg.note)
    return out


def _in(pitches: list[int], key: str) -> float:
    scale = set(parse_key(key).scale.pitch_classes)
    return sum(p % 12 in scale for p in pitches) / len(pitches)


def test_the_kept_song_has_the_jams_key_and_tempo_map_and_one_track_per_member(song: Path) -> None:
    full = song / "midi" / "full-arrangement.mid"
    keys = [(tick // BAR + 1, msg.key) for tick, msg in _meta(full, "key_signature")]
    assert keys[0] == (1, "Cm") and "D" in [k for _, k in keys[1:]], keys
    tempos = [round(mido.tempo2bpm(msg.tempo)) for _, msg in _meta(full, "set_tempo")]
    assert tempos[0] == 120 and 96 in tempos, tempos
    names = [t.name for t in mido.MidiFile(full).tracks[1:]]
    pitched = [n for n in names if not n.endswith(" drums")]
    assert sorted(pitched) == sorted(set(pitched)) and {n.split(" ")[0] for n in pitched} <= set(MEMBERS), names
    assert not any(n.endswith(("-2", " 2")) for n in names), names
    (groove,) = [t for t in mido.MidiFile(full).tracks if t.name == "GROOVE"]
    assert len({m.program for m in groove if m.type == "program_change"}) >= 2  # its sound change, in its track


def test_a_busier_bass_keeps_each_bars_key_and_its_silences(song: Path) -> None:
    full = song / "midi" / "full-arrangement.mid"
    changes = [(tick // BAR + 1, msg.key) for tick, msg in _meta(full, "key_signature")]

    def key_of(bar: int) -> str:
        name = [k for b, k in changes if b <= bar][-1]
        return f"{name[:-1]} minor" if name.endswith("m") else f"{name} major"

    before = _bass(full)
    tempo_map = [(tick, msg.tempo) for tick, msg in _meta(full, "set_tempo")]
    assert len(tempo_map) >= 2 and all(tick % BAR == 0 for tick, _ in tempo_map), tempo_map  # on bar lines
    assert len(before) < max(before)  # the bass sat out some bars of the jam
    edit = json.loads(_run("edit", str(song), "make the bass busier", "--json").stdout)
    _run("accept", str(song), edit["variation_id"], "--no-audio")
    after = _bass(full)
    assert [(tick, msg.tempo) for tick, msg in _meta(full, "set_tempo")] == tempo_map  # the edit keeps the jam's map
    assert sum(map(len, after.values())) > sum(map(len, before.values()))
    assert set(after) <= set(before)  # not one bar where the bass was silent
    for key in {key_of(bar) for bar in after}:
        pitches = [p for bar, ps in after.items() if key_of(bar) == key for p in ps]
        assert _in(pitches, key) >= 0.9, key

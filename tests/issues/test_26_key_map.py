"""Issue 26: a key change accepted in some phrases set the whole song's key and recipe to the new
key; later edits rewrote the bass in the new key under chords still in the old one, and `ask`
listed the new key's chords for every section. Now the song carries a key map: a partial accept
moves it only in the bars accepted, every later regeneration writes each bar in its own key, the
MIDI files carry a key signature where the key changes, and `ask` names what each section plays —
through real `bandstand` processes, the files read back with mido."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import mido
import pytest

from bandstand.theory import parse_key

BPB_TICKS = 4 * 480
CHORUS = (13, 16)  # chorus 1 of this song: the bars whose key change is accepted


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=600)


def _json(*args: str) -> Any:
    done = _run(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _key_signatures(path: Path) -> list[tuple[int, str]]:
    """(bar, key) of every key signature in the file."""
    out = []
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "key_signature":
                out.append((tick // BPB_TICKS + 1, msg.key))
    return sorted(out)


def _notes_by_bar(path: Path) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for track in mido.MidiFile(path).tracks:
        tick = 0
        for msg in track:
            tick += msg.time
            if msg.type == "note_on" and msg.velocity > 0:
                out.setdefault(tick // BPB_TICKS + 1, []).append(msg.note)
    return out


def _in_key(pitches: list[int], key: str) -> float:
    scale = set(parse_key(key).scale.pitch_classes)
    return sum(p % 12 in scale for p in pitches) / len(pitches)


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bb")
    made = _run("compose", "pop song in Bb major", "--seed", "3", "--bars", "32", "--no-audio", "--out", str(out))
    assert made.returncode == 0, made.stderr
    (root,) = [p for p in out.iterdir() if (p / "manifest.json").is_file()]
    return root


def _copy(composed: Path, tmp_path: Path) -> Path:
    root = tmp_path / composed.name
    shutil.copytree(composed, root)
    return root


def test_a_key_change_accepted_in_the_chorus_only_moves_the_chorus(composed: Path, tmp_path: Path) -> None:
    root = _copy(composed, tmp_path)

    change = _json("edit", str(root), "change the key to F# minor")
    chosen = [p["id"] for p in change["phrases"] if p["part"] == "Chords" and tuple(p["bars"]) == CHORUS]
    assert chosen, change["phrases"]
    _json("accept", str(root), change["variation_id"], "--phrases", ",".join(chosen))

    # the map moved only where it was accepted: Bb, F# minor in the chorus, Bb again
    assert _key_signatures(root / "midi" / "full-arrangement.mid") == [(1, "Bb"), (13, "F#m"), (17, "Bb")]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["key"] == "Bb major"
    assert manifest["key_changes"] == [{"bar": 13, "key": "F# minor"}, {"bar": 17, "key": "Bb major"}]
    # the chorus took every part's bars with it (the bass is not left in Bb under F# minor chords)
    bass = _notes_by_bar(root / "midi" / "bass.mid")
    assert _in_key([p for bar in range(13, 17) for p in bass.get(bar, [])], "F# minor") >= 0.9

    busier = _json("edit", str(root), "make the bass busier")
    _json("accept", str(root), busier["variation_id"])
    bass = _notes_by_bar(root / "midi" / "bass.mid")
    inside = [p for bar, ps in bass.items() if CHORUS[0] <= bar <= CHORUS[1] for p in ps]
    outside = [p for bar, ps in bass.items() if not CHORUS[0] <= bar <= CHORUS[1] for p in ps]
    assert _in_key(inside, "F# minor") >= 0.9 and _in_key(outside, "Bb major") >= 0.9
    chords = _notes_by_bar(root / "midi" / "chords.mid")
    assert _in_key([p for bar in range(17, 33) for p in chords.get(bar, [])], "Bb major") >= 0.9
    assert _key_signatures(root / "midi" / "full-arrangement.mid") == [(1, "Bb"), (13, "F#m"), (17, "Bb")]

    first = _json("ask", str(root), "which chords are in chorus 1?")["answer"]
    second = _json("ask", str(root), "which chords are in chorus 2?")["answer"]
    assert "F#m" in first and "Bb" not in first, first
    assert "F#m" not in second and "Bb" in second, second
    key = _json("ask", str(root), "what key is chorus 1 in?")["answer"]
    assert key.startswith("The Chorus 1 (bars 13–16) is in F# minor.") and "F# minor from bar 13" in key, key


def test_a_key_change_said_for_the_chorus_moves_the_choruses_only(composed: Path, tmp_path: Path) -> None:
    root = _copy(composed, tmp_path)
    change = _json("edit", str(root), "change the key to F# minor in the chorus")
    assert change["edits"][0]["sections"] == ["chorus"]  # the scope is read, not dropped
    _json("accept", str(root), change["variation_id"])
    keys = [(1, "Bb"), (13, "F#m"), (17, "Bb"), (21, "F#m"), (29, "Bb")]  # choruses: bars 13–16 and 21–28
    assert _key_signatures(root / "midi" / "full-arrangement.mid") == keys
    chords = _notes_by_bar(root / "midi" / "chords.mid")
    for first, last, key in ((1, 12, "Bb major"), (13, 16, "F# minor"), (17, 20, "Bb major"), (21, 28, "F# minor")):
        assert _in_key([p for bar in range(first, last + 1) for p in chords.get(bar, [])], key) >= 0.9, key

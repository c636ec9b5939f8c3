"""`bandstand jam --headless` as a real process: the chat, and the recording read back
by independent readers (mido for MIDI, the wave module for audio)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from pathlib import Path

import mido
import pytest

pytestmark = pytest.mark.e2e

C_MINOR = {0, 2, 3, 5, 7, 8, 10}
D_MAJOR = {2, 4, 6, 7, 9, 11, 1}


def jam(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bandstand", "jam", "--headless", *args],
        capture_output=True, text=True, timeout=240, cwd=cwd,
    )


def pitched_notes(path: Path) -> list[tuple[float, int]]:
    """(beat, MIDI note) of every pitched note (drum channel 10 excluded)."""
    midi = mido.MidiFile(path)
    out = []
    for track in midi.tracks:
        ticks = 0
        for msg in track:
            ticks += msg.time
            if msg.type == "note_on" and msg.velocity > 0 and msg.channel != 9:
                out.append((ticks / midi.ticks_per_beat, msg.note))
    return out


def test_headless_jam_records_midi_wav_transcript_and_rounds(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    done = jam("--cycles", "8", "--directive", "4:Switch to D major, more energy!", "--directive", "6:@BEAT half time", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    chat = done.stdout
    assert "🎤 BOSS: Switch to D major, more energy!" in chat and "🎤 BOSS → BEAT: @BEAT half time" in chat
    assert "context: D major" in chat and f"recorded 8 cycles, 3 rounds → {out}" in chat
    assert {p.name for p in out.iterdir()} == {"jam.mid", "jam.wav", "transcript.md", "rounds.jsonl",  # the recording
                                               "manifest.json", "revisions", "midi", "notes", "images"}  # the project

    notes = pitched_notes(out / "jam.mid")
    before = {n % 12 for beat, n in notes if beat < 16}
    after = {n % 12 for beat, n in notes if beat >= 16}
    assert before and before <= C_MINOR
    assert after and after <= D_MAJOR
    midi = mido.MidiFile(out / "jam.mid")
    markers = [m.text for t in midi.tracks for m in t if m.type == "marker"]
    # the file's key is the opening key; the round that changed it says so in its marker
    assert markers == ["round 1", "round 2: D major", "round 3"]
    assert midi.tracks[0] and any(m.type == "key_signature" and m.key == "Cm" for m in midi.tracks[0])
    assert any(t.name.startswith("BEAT") for t in midi.tracks) and any(t.name.startswith("GROOVE") for t in midi.tracks)

    with wave.open(str(out / "jam.wav")) as audio:
        seconds = audio.getnframes() / audio.getframerate()
    assert 16 <= seconds <= 24  # 8 bars at 120 BPM, plus the release tail

    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert rounds[1]["context"]["key"] == "D major" and rounds[1]["context"]["energy"] == 7
    assert set(rounds[2]["members"]) == {"BEAT", "GROOVE", "ARIA", "GLITCH"}
    # BEAT's new kick brings the bass along in the same round (the band listens within it)
    assert [n for n, m in rounds[2]["members"].items() if m["asked"]] == ["BEAT", "GROOVE"]
    assert rounds[2]["members"]["BEAT"]["pattern"] in rounds[2]["combined"]
    transcript = (out / "transcript.md").read_text()
    assert transcript.startswith("# bandstand jam") and "## Round 3" in transcript and "**BOSS (to BEAT):** @BEAT half time" in transcript


def test_headless_json_output_and_members(tmp_path: Path) -> None:
    done = jam("--members", "beat,groove", "--cycles", "4", "--no-wav", "--json", "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["cycles"] == 4 and summary["events"] > 0
    assert {m["member"] for m in lines if m["type"] == "agent_thought"} == {"BEAT", "GROOVE"}
    assert "wav" not in summary["files"]


def test_user_mistakes_are_one_line_with_exit_2(tmp_path: Path) -> None:
    for args, needle in (
        (["--members", "beat,tuba"], "unknown band member 'tuba'"),
        (["--directive", "@KAZOO louder"], "@KAZOO"),
        (["--backend", "telepathy"], "unknown backend 'telepathy'"),
    ):
        done = jam(*args, "--cycles", "2", "--no-wav", "--out", str(tmp_path / "x"), cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and needle in done.stderr and done.stderr.startswith("bandstand: error: ")


def test_headless_jam_with_llm_members_over_an_openai_compatible_server(tmp_path: Path) -> None:
    from tests.peers.openai_server import OpenAIServer

    patterns = {
        "drums": 's("bd ~ sd ~, hh*8")',
        "bass": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")',
    }

    def reply(user: str, system: str, n: int) -> str:
        role = next(r for r in patterns if f"the {r} player" in system)
        assert user.startswith("ROUND ") and "JAM CONTEXT" in user
        pattern = patterns[role] if "more energy" not in user else patterns[role] + ".gain(0.9)"
        return json.dumps({"pattern": pattern, "thoughts": f"{role} here", "reaction": "ok", "comply_with_boss": True})

    with OpenAIServer() as server:
        server.reply_for = reply
        done = subprocess.run(
            [sys.executable, "-m", "bandstand", "jam", "--headless", "--members", "beat,groove", "--backend", "openai",
             "--base-url", server.url + "/v1", "--model", "local", "--cycles", "4", "--no-wav",
             "--directive", "2:more energy", "--out", str(tmp_path / "llm")],
            capture_output=True, text=True, timeout=240, cwd=tmp_path,
            env={**os.environ, "OPENAI_API_KEY": "test-key"},
        )
        assert done.returncode == 0, done.stderr
        systems = {r["body"]["messages"][0]["content"] for r in server.requests}
        # each member's session lasts the whole jam: its second turn carries the first one
        longest = max(len(r["body"]["messages"]) for r in server.requests)
    assert any("You are BEAT" in s for s in systems) and any("You are GROOVE" in s for s in systems)
    assert longest >= 4  # system, first turn, first reply, second turn
    rounds = [json.loads(line) for line in (tmp_path / "llm" / "rounds.jsonl").read_text().splitlines()]
    assert rounds[0]["members"]["BEAT"]["pattern"] == patterns["drums"]
    assert rounds[1]["members"]["GROOVE"]["pattern"] == patterns["bass"] + ".gain(0.9)"
    assert "drums here" in done.stdout

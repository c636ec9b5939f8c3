"""The studio commands as a person types them (real processes): tool, variations, accept
(all or some phrases), discard, undo, redo, history and audition, with one-line errors and
exit 2 for every mistake, and --json where the issue asks for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand import score
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.studio import Provenance, SeededIds, merge_song, to_song

from ..producer.conftest import snapshot
from ..studio.songs import small_song

COMMANDS = ["tool", "variations", "audition", "accept", "discard", "undo", "redo", "history"]


def bandstand(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, input=stdin,
                          timeout=120, check=False, env=env)


@pytest.fixture
def session(tmp_path: Path) -> ProjectSession:
    return create_from_song(tmp_path / "session", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                            ids=SeededIds(3))


def busier(session: ProjectSession) -> str:
    song = to_song(session.head)
    bass = song.track("bass")
    bass.notes += [score.Note(n.start + 1.75, 0.25, n.pitch, 70) for n in bass.notes]
    bass.sort()
    return session.propose(merge_song(session.head, song), request="make the bass busier", intent="busier bass",
                           author="test").id


def fails(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bandstand: error: ") and message in lines[0], proc.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_help_explains_with_examples(command: str) -> None:
    proc = bandstand(command, "--help")
    assert proc.returncode == 0 and "Examples:" in proc.stdout
    assert all(f"bandstand {command}" in line for line in proc.stdout.split("Examples:")[1].splitlines()
               if line.strip())


def test_tool_applies_directly_and_undo_takes_it_back(session: ProjectSession) -> None:
    root = str(session.session_dir)
    before = snapshot(session.session_dir, skip=("revisions",))
    proc = bandstand("tool", root, "set_track_volume", "--args", '{"track": "bass", "volume": 0.7}', "--no-audio")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["revision 2: set_track_volume", "  Bass volume: 1 → 0.7"]
    proc = bandstand("tool", root, "ensure_bus", "--args", "-", "--no-audio", "--json", stdin='{"name": "Echo"}')
    out = json.loads(proc.stdout)
    assert out["revision"] == 3 and out["results"][0]["result"]["created"] is True
    assert {"id": out["results"][0]["result"]["bus_id"], "name": "Echo"} in out["results"][0]["entities"]["buses"]
    assert json.loads(bandstand("tool", root, "read_project", "--json").stdout)["changed"] is False
    assert bandstand("undo", root, "--steps", "2", "--no-audio").stdout.strip() == \
        "undid 2 changes: now at revision 1 (small)"
    assert snapshot(session.session_dir, skip=("revisions",)) == before
    assert bandstand("redo", root, "--no-audio", "--json").returncode == 0
    rows = json.loads(bandstand("history", root, "--json").stdout)
    assert [(r["revision"], r["kind"], r["undone"], r["head"]) for r in rows] == [
        (1, "compose", False, False), (2, "tools", False, True), (3, "tools", True, False)]


@pytest.mark.parametrize(("args", "message"), [
    (["set_track_volume", "--args", '{"track": "bas", "volume": 0.5}'], "no track 'bas'; did you mean 'Bass'?"),
    (["set_tempo", "--args", '{"tempo": 500}'], "tempo 500 is out of range"),
    (["set_tempo", "--args", "{tempo: 90}"], "--args is not JSON"),
    (["set_tempo", "--args", "[90]"], "--args must be a JSON object"),
    (["set_tempoo", "--args", '{"tempo": 90}'], "did you mean 'set_tempo'?"),
    (["add_notes", "--args", '{"region": "Bass/Verse", "_noteCount": 4}'],
     "add_notes(region, notes=[{pitch, start, duration, velocity}, …])"),
])
def test_tool_mistakes_are_one_line(session: ProjectSession, args: list[str], message: str) -> None:
    before = snapshot(session.session_dir)
    fails(bandstand("tool", str(session.session_dir), *args), message)
    assert snapshot(session.session_dir) == before


def test_tool_list(session: ProjectSession) -> None:
    listed = bandstand("tool", "--list").stdout
    assert "mixing       set_track_volume(track, volume)" in listed
    schemas = json.loads(bandstand("tool", "--list", "--json").stdout)
    assert len(schemas) == 32 and schemas[0]["name"] == "read_project"


def test_variations_accept_and_the_conflicts(session: ProjectSession) -> None:
    root = str(session.session_dir)
    first, second = busier(session), busier(session)
    listed = json.loads(bandstand("variations", root, "--json").stdout)
    assert [v["variation_id"] for v in listed] == [first, second]
    assert listed[0]["diff"]["bass"].startswith("24 → 48 notes, same roots")
    assert listed[0]["phrases"][0] | {"id": "x", "track_id": "x", "region_id": "x"} == {
        "id": "x", "part": "Bass", "track_id": "x", "region_id": "x", "region": "Verse", "bars": [5, 8],
        "label": "Bass · bars 5–8", "tags": ["added", "denser"], "added": 8, "removed": 0, "modified": 0,
        "cc": 0, "pitch_bends": 0, "aftertouch": 0}
    text = bandstand("variations", root).stdout
    assert f"{first[:8]}  ready" in text and "bass: 24 → 48 notes" in text
    phrase = listed[0]["phrases"][0]["id"]
    fails(bandstand("accept", root, first, "--phrases", "nope"), f"phrase id 'nope' is not one of its phrases in "
                                                                 f"variation {first}")
    fails(bandstand("accept", root, "zzzz"), "'zzzz' is not a variation of this session")
    fails(bandstand("accept", root, first[:6] + "q"), "did you mean")
    proc = bandstand("accept", root, first[:8], "--phrases", phrase[:8], "--no-audio", "--json")
    assert proc.returncode == 0, proc.stderr
    accepted = json.loads(proc.stdout)
    assert accepted["revision"] == 2 and accepted["summary"] == "accepted 1 of 3 phrases"
    assert accepted["audio"]["current"] is False
    fails(bandstand("accept", root, first), f"cannot accept variation {first}: it is already committed (revision 2)")
    fails(bandstand("accept", root, second), "was made against revision 1, but the project is now at revision 2")
    assert "(made on r1, HEAD is r2)" in bandstand("variations", root).stdout
    assert bandstand("discard", root, second).stdout.strip() == f"variation {second[:8]} discarded"
    assert json.loads(bandstand("discard", root, second, "--json").stdout)["state"] == "discarded"
    fails(bandstand("accept", root), "no variation is waiting")


def test_undo_redo_and_history_mistakes(session: ProjectSession) -> None:
    root = str(session.session_dir)
    fails(bandstand("undo", root), "nothing to undo: revision 1 is the first take")
    fails(bandstand("redo", root), "nothing to redo")
    fails(bandstand("undo", root, "--steps", "0"), "--steps")
    fails(bandstand("history", root + "-missing"), "does not exist")


def test_accept_leaves_the_wav_to_the_listener_and_audition_gives_a_and_b(session: ProjectSession) -> None:
    root = session.session_dir
    vid = busier(session)
    proc = bandstand("audition", str(root), "--json")
    assert proc.returncode == 0, proc.stderr
    heard = json.loads(proc.stdout)
    assert heard["variation_id"] == vid and heard["bars"] == [4, 16]
    for key in ("base_wav", "proposal_wav", "base_pianoroll", "proposal_pianoroll"):
        assert Path(heard[key]).stat().st_size > 1000
    assert Path(heard["base_wav"]).read_bytes() != Path(heard["proposal_wav"]).read_bytes()
    proc = bandstand("accept", str(root))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == f"audio: not rendered yet (bandstand render {root}, or --audio)"
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["revision"] == 2 and manifest["audio"]["stale"] is True
    proc = bandstand("render", str(root))  # someone listens
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"audio       {root / 'audio' / 'full-arrangement.wav'}  (revision 2)"
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["audio"] == {"file": "audio/full-arrangement.wav", "revision": 2, "stale": False}
    wav = (root / "audio" / "full-arrangement.wav").read_bytes()
    proc = bandstand("undo", str(root), "--audio", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["audio"]["current"] is True
    assert (root / "audio" / "full-arrangement.wav").read_bytes() != wav
    assert bandstand("redo", str(root), "--audio").returncode == 0
    assert (root / "audio" / "full-arrangement.wav").read_bytes() == wav  # the same song renders the same bytes
    assert bandstand("render", str(root), "--wav", "x.wav").returncode == 2  # a session's WAV has its place


def test_changes_are_printed_in_words_not_as_python_values() -> None:
    from types import SimpleNamespace

    from bandstand.cli._sessions import change_lines
    from bandstand.studio.changes import Change

    entry = SimpleNamespace(changes=[
        Change(path="tracks/t1/volume", label="Bass volume", before=1.0, after=0.7),
        Change(path="tracks/t1/muted", label="Bass muted", before=False, after=True),
        Change(path="tracks/t1/name", label="Bass name", before="Bass", after="Sub"),
        Change(path="provenance", label="provenance", before={"fields": ["recipe"]},
               after={"fields": ["recipe"], "recipe": ["style_overrides", "tempo"]})])
    assert change_lines(entry) == ["  Bass volume: 1 → 0.7", "  Bass muted: off → on", "  Bass name: Bass → Sub",
                               "  recipe: style overrides, tempo changed"]

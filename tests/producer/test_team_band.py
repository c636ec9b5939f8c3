"""The example band (examples/band.toml): built-in musicians write a groove as a team, offline,
and the answer is pattern code that plays the brief's key."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from bandstand.agents.config import load_config
from bandstand.cli import run
from bandstand.patterns import evaluate
from bandstand.runtime import read_log
from bandstand.runtime.team import Team
from bandstand.runtime.teamfile import load_team
from bandstand.theory import note_to_midi, parse_key

BAND = Path(__file__).resolve().parents[2] / "examples" / "band.toml"


def pitch_classes(code: str, cycles: int = 4) -> set[int]:
    """The pitch classes the pattern plays over `cycles` cycles (pitched events only)."""
    found = set()
    for hap in evaluate(code).query_arc(Fraction(0), Fraction(cycles)):
        value = hap.value if isinstance(hap.value, dict) else {}
        note = value.get("note")
        if isinstance(note, int | float):
            found.add(round(note) % 12)
        elif isinstance(note, str):
            found.add(note_to_midi(note) % 12)
    return found


@pytest.mark.parametrize(("brief", "key"), [("a late-night groove in A minor at 84 bpm", "A minor"),
                                             ("a bossa nova in D major, busier", "D major")])
def test_the_band_writes_a_groove_in_the_key_of_the_brief(tmp_path: Path, monkeypatch, capsys, brief: str,
                                                          key: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["team", "run", str(BAND), "--prompt", brief, "--runs-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    answer = out.split("\n\n", 1)[1].splitlines()
    code = next(line for line in answer if line.startswith("stack("))
    assert [line.split(":")[0] for line in answer[:3]] == ["drums", "bass", "keys"]
    played = pitch_classes(code)
    assert len(played) >= 3  # bass and keys play notes, not just drums
    assert played <= set(parse_key(key).scale.pitch_classes)
    # the bass and the keys heard the drums: their task carried the drummer's pattern
    run_dir = next((tmp_path / "runs").iterdir())
    tasks = [e["task"] for e in read_log(run_dir / "team.jsonl") if e["type"] == "delegated" and e["to"] == "bass"]
    drums = json.loads(tasks[0])["band"][0]
    assert drums["name"] == "drums" and drums["pattern"] in code


async def test_same_brief_same_groove(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    answers = []
    for n in range(2):
        result = await Team(load_team(BAND), load_config(env={}), log_dir=tmp_path / str(n)).run("a waltz in E minor")
        assert result.done and result.rounds == 3
        answers.append(result.answer)
    assert answers[0] == answers[1]

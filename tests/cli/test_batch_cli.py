"""`bandstand batch`, `bandstand worker` and `bandstand compose --team` as a user meets them:
the table or the JSON, one-line mistakes with exit 2, the team's lines on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bandstand.cli import run


def test_batch_composes_a_file_of_prompts_and_keeps_them_on_a_second_run(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    prompts = tmp_path / "p.txt"
    prompts.write_text('funk groove in E minor\n{"prompt": "dark trap", "seed": 9}\n')
    args = ["batch", str(prompts), "--workers", "2", "--bars", "8", "--out", str(tmp_path / "songs"), "--json"]
    assert run(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["status"] for s in data["songs"]] == ["composed", "composed"]
    assert [s["seed"] for s in data["songs"]] == [0, 9] and len(data["batch"]) == 12
    assert run(args) == 0
    assert [s["status"] for s in json.loads(capsys.readouterr().out)["songs"]] == ["kept", "kept"]
    assert run(args[:-1]) == 0
    assert "002-dark-trap" in capsys.readouterr().out


def test_batch_through_a_sqlite_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = tmp_path / "p.txt"
    prompts.write_text("synthwave night drive\njazz ballad\n")
    assert run(["batch", str(prompts), "--board", str(tmp_path / "board.db"), "--workers", "1", "--bars", "8",
                "--out", str(tmp_path / "songs"), "--heartbeat", "0.2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["board"] is True and [s["status"] for s in data["songs"]] == ["composed", "composed"]
    assert {s["worker"].rsplit("-", 1)[1] for s in data["songs"]} == {"w1"}
    assert run(["batch", str(prompts), "--board", str(tmp_path / "board.db"), "--workers", "1", "--bars", "8",
                "--out", str(tmp_path / "songs")]) == 0  # the same batch: found done on the board, its songs here
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == ["kept: 001-synthwave-night-drive", "kept: 002-jazz-ballad"]


@pytest.mark.parametrize(("args", "message"), [
    (["batch", "{dir}/missing.txt"], "no prompts file"),
    (["batch", "{dir}/empty.txt"], "no prompts"),
    (["batch", "{dir}/empty.txt", "--workers", "0"], "no prompts"),
    (["batch", "{dir}/one.txt", "--workers", "0"], "--workers 0 needs --board"),
    (["batch", "{dir}/one.txt", "--board", "mysql://x"], "unknown board URL"),
    (["worker", "--board", "mysql://x"], "unknown board URL"),
    (["compose", "funk", "--team", "--approve", "harmony"], "--approve, --skip and --intent-backend"),
    (["compose", "funk", "--accept"], "--accept and --config go with --team"),
    (["compose", "funk", "--team", "--team-file", "{dir}/missing.toml"], "cannot read team file"),
])
def test_mistakes_are_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.txt").write_text("# nothing\n")
    (tmp_path / "one.txt").write_text("funk\n")
    assert run([a.replace("{dir}", str(tmp_path)) for a in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_compose_team_says_who_did_what_and_leaves_a_variation(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    assert run(["compose", "funk groove in E minor", "--team", "--seed", "7", "--bars", "16", "--no-audio",
                "--out", str(tmp_path), "-y"]) == 0
    captured = capsys.readouterr()
    assert "♪ A band of 4" in captured.err and "✓ bass/Verse: Bass for Verse:" in captured.err  # funk: no pad
    assert "locked to the drums" in captured.err and "variation " in captured.err
    assert "waiting for review" in captured.out and "bandstand accept" in captured.out
    log = Path(next(line for line in captured.out.splitlines() if line.startswith("log: "))[5:])
    events = [json.loads(line) for line in log.read_text().splitlines()]  # the team's stream, for the log view
    assert log.parent == tmp_path / "runs" and events[-1]["type"] == "complete"
    assert {e["session"] for e in events} >= {"team", "coordinator", "mixer"} and all("ts" in e for e in events)
    session = next(p for p in tmp_path.iterdir() if p.name != "runs")
    assert run(["accept", str(session), "--no-audio", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["revision"] == 2


def test_compose_team_json_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    assert run(["compose", "dark trap", "--team", "--seed", "3", "--bars", "8", "--no-audio", "--accept",
                "--out", str(tmp_path), "--json", "-y"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] is True and data["revision"] == 2 and data["sections"]
    assert all(s["status"] == "written" for s in data["sections"])

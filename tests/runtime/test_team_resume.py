"""`bandstand team resume RUN_DIR`: a team run stopped mid-round continues from its logs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from bandstand.agents.config import load_config
from bandstand.cli import run
from bandstand.runtime import read_log
from bandstand.runtime.resume import INTERRUPTED, resume_point
from bandstand.runtime.team import Team
from bandstand.runtime.teamfile import parse_team

ROOT = Path(__file__).resolve().parents[2]
BAND = (ROOT / "examples" / "band.toml").read_text().replace(
    "bandstand.producer.teams.team_band:musician", "tests.runtime.team_responders:stuck_when_told"
).replace('name = "late-night-band"', 'name = "resumed"')


def stopped_run(tmp_path: Path) -> Path:
    """A real `team run` process, stopped by SIGTERM while the bass is stuck in its first task."""
    team_file = tmp_path / "band.toml"
    team_file.write_text(BAND)
    cli = subprocess.Popen(
        [sys.executable, "-m", "bandstand", "team", "run", str(team_file), "--prompt",
         "a late-night groove in A minor at 84 bpm", "--runs-dir", str(tmp_path / "runs")],
        cwd=ROOT, env={**os.environ, "TEAM_TEST_STUCK": "bass"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert cli.stdout is not None
    for line in cli.stdout:  # the keys answered; the bass never will
        if "teammate_result from_member=keys ok=true" in line:
            break
    cli.send_signal(signal.SIGTERM)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 130, err
    assert "team_ended reason=stopped" in out
    return next((tmp_path / "runs").iterdir())


def test_a_stopped_run_continues_where_it_stopped(tmp_path: Path, monkeypatch, capsys) -> None:
    run_dir = stopped_run(tmp_path)
    plan = resume_point(run_dir)
    assert plan.done is None and plan.spec.name == "resumed" and plan.resume.round == 2
    # the leader gets what it was waiting for: the keys' part, and the bass cut off
    outcome = {r["from"]: (r["ok"], r["result"]) for r in plan.resume.message["results"]}  # type: ignore[index]
    assert outcome["bass"] == (False, INTERRUPTED) and outcome["keys"][0] is True
    assert [m.role for m in plan.resume.histories["producer"]] == ["user", "assistant"] * 2
    assert len(plan.resume.histories["drums"]) == 2 and plan.resume.histories["bass"] == []  # it never answered

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TEAM_TEST_STUCK", raising=False)
    assert run(["team", "resume", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "[team:resumed] team_resumed round=2" in out
    assert "delegated round=2 to=bass" in out  # the cut-off part is given out again …
    assert "to=drums" not in out and "to=keys" not in out  # … and nothing else
    answer = out.split("\n\n", 1)[1].splitlines()
    assert [line.split(":")[0] for line in answer[:3]] == ["drums", "keys", "bass"]
    assert answer[3].startswith("stack(") and answer[4] == f"log: {run_dir}"
    team_events = [e["type"] for e in read_log(run_dir / "team.jsonl")]
    assert team_events.count("team_started") == 1 and team_events.count("team_resumed") == 1
    assert [e["reason"] for e in read_log(run_dir / "team.jsonl") if e["type"] == "team_ended"] == ["stopped", "done"]

    # done is done: a second resume only says so
    assert run(["team", "resume", str(run_dir)]) == 0
    again = capsys.readouterr().out
    assert "already done" in again and again.splitlines()[:4] == answer[:4]


def test_resume_mistakes_exit_2(tmp_path: Path, capsys) -> None:
    assert run(["team", "resume", str(tmp_path / "nowhere")]) == 2
    assert "not a team run folder" in capsys.readouterr().err
    old = tmp_path / "old"
    old.mkdir()
    (old / "team.jsonl").write_text(json.dumps({"type": "team_started", "prompt": "p", "ts": 1}) + "\n")
    assert run(["team", "resume", str(old)]) == 2
    assert "--team-file" in capsys.readouterr().err


CLAUDE_TEAM = """
name = "native"
mode = "claude-code"
leader = "producer"
[limits]
max_turns = {max_turns}
turn_timeout = 30
[members.producer]
persona = "You are the producer."
[members.bass]
persona = "You are GROOVE, the bassist."
[members.drums]
persona = "You are BEAT, the drummer."
"""


async def test_a_claude_code_team_continues_with_its_teammates_results(
    tmp_path: Path, monkeypatch, claude_bin: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(env={"BANDSTAND_CLAUDE_BIN": str(claude_bin), "BANDSTAND_PID_DIR": str(tmp_path / "pids")})
    run_dir = tmp_path / "run"
    first = await Team(parse_team(CLAUDE_TEAM.format(max_turns=1)), config, log_dir=run_dir).run(
        "[[team:bass,drums]] a groove in A minor")
    assert first.reason == "max_turns"  # the teammates answered; the leader has not read them yet
    bigger = parse_team(CLAUDE_TEAM.format(max_turns=3))
    plan = resume_point(run_dir, bigger)
    assert plan.resume.round == 1
    assert sorted(r["from"] for r in plan.resume.message["results"]) == ["bass", "drums"]  # type: ignore[index]
    team = Team(plan.spec, config, log_dir=run_dir, histories=plan.resume.histories)
    result = await team.run(plan.resume.prompt, plan.resume)
    assert result.done and result.rounds == 2
    reply = json.loads(result.answer)
    # a new leader process heard the conversation so far, then the results
    assert "[[team:bass,drums]] a groove in A minor" in reply["echo"]
    assert "bass (You are GROOVE, the bassist.): a groove in A minor" in reply["echo"]
    assert list((tmp_path / "pids").glob("*.json")) == []

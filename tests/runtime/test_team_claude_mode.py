"""The team mode ``claude-code``: one leader `claude` process starts its own teammates (the CLI's
subagents) and gets their results across turns; their events are attributed per teammate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from bandstand.agents.config import load_config
from bandstand.errors import ConfigError
from bandstand.runtime import read_log
from bandstand.runtime.team import Team
from bandstand.runtime.teamfile import parse_team
from tests.peers.claude import fake_claude_bin, marked, process_exists, wait_gone

NATIVE = """
name = "native"
mode = "claude-code"
leader = "producer"
[limits]
max_turns = 4
turn_timeout = 30
[members.producer]
persona = "You are the producer."
[members.bass]
persona = "You are GROOVE, the bassist."
model = "claude-haiku-4-5"
[members.drums]
persona = "You are BEAT, the drummer."
"""


async def test_the_leader_starts_its_teammates_and_reads_their_results_next_turn(
    tmp_path: Path, monkeypatch, claude_bin: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(env={"BANDSTAND_CLAUDE_BIN": str(claude_bin), "BANDSTAND_PID_DIR": str(tmp_path / "pids")})
    team = Team(parse_team(NATIVE), config, log_dir=tmp_path / "run")
    assert list(team.sessions) == ["producer"]  # the teammates live inside the leader's process
    events: list[dict] = []
    team.add_listener(events.append)
    result = await team.run("[[team:bass,drums]] a groove in A minor")
    assert result.done and result.rounds == 2
    assert sorted((r["from"], r["ok"]) for r in result.results) == [("bass", True), ("drums", True)]
    # the leader's second turn was the teammates' results; its answer (the fake echoes) holds them
    leader_inputs = [e["input"] for e in events if e["type"] == "turn_started"]
    assert leader_inputs[0] == "[[team:bass,drums]] a groove in A minor"
    assert {r["from"] for r in json.loads(leader_inputs[1])["results"]} == {"bass", "drums"}
    assert "bass (You are GROOVE, the bassist.): a groove in A minor" in json.loads(result.answer)["echo"]
    # attributed per teammate in the stream …
    for agent in ("bass", "drums"):
        mine = [e["type"] for e in events if e.get("agent") == agent]
        assert mine[0] == "teammate_started" and mine[-1] == "teammate_finished" and "teammate_text" in mine
        assert all(e["session"] == "producer" for e in events if e.get("agent") == agent)
    assert sorted(e["to"] for e in events if e["type"] == "delegated") == ["bass", "drums"]
    assert sorted(e["from_member"] for e in events if e["type"] == "teammate_result") == ["bass", "drums"]
    # … and in the logs
    leader_log = next((tmp_path / "run").glob("producer-*.jsonl"))
    logged = [(e["type"], e.get("agent")) for e in read_log(leader_log) if "agent" in e]
    assert ("teammate_text", "bass") in logged and ("teammate_finished", "drums") in logged
    team_log = read_log(tmp_path / "run" / "team.jsonl")
    assert team_log[0]["mode"] == "claude-code" and team_log[-1]["reason"] == "done"
    pids = {e["meta"]["pid"] for e in events if e["type"] == "turn_completed"}
    assert len(pids) == 1 and not any(process_exists(p) for p in pids)
    assert list((tmp_path / "pids").glob("*.json")) == []


def test_cli_prints_each_teammate_under_its_leader(tmp_path: Path, claude_bin: Path) -> None:
    team_file = tmp_path / "native.toml"
    team_file.write_text(NATIVE)
    env = {**os.environ, "BANDSTAND_CLAUDE_BIN": str(claude_bin), "BANDSTAND_PID_DIR": str(tmp_path / "pids")}
    done = subprocess.run(
        [sys.executable, "-m", "bandstand", "team", "run", str(team_file), "--prompt",
         "[[team:bass]] a walking bass line", "--runs-dir", str(tmp_path / "runs")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "[team:native] delegated round=0 to=bass task=bass: a walking bass line" in lines
    assert any(line.startswith("[producer/bass] teammate_finished status=completed summary=bass (") for line in lines)
    assert any(line.startswith("[team:native] teammate_result from_member=bass ok=true") for line in lines)
    assert "[team:native] team_ended reason=done rounds=2 cost_usd=0.002" in lines
    assert list((tmp_path / "pids").glob("*.json")) == []


@pytest.mark.parametrize(("member", "match"), [
    ('[members.bass]\nbackend = "openai"\n', r"members.bass: in mode \"claude-code\" teammates are the leader's subagents"),
    ('[members.bass]\nresponder = "echo"\n', "remove its backend/responder"),
])
def test_claude_code_mode_mistakes(member: str, match: str) -> None:
    text = f'mode = "claude-code"\nleader = "lead"\n[members.lead]\n{member}'
    with pytest.raises(ConfigError, match=match):
        parse_team(text)
    with pytest.raises(ConfigError, match=r"members.lead: in mode \"claude-code\" the leader is a claude-code process"):
        parse_team('mode = "claude-code"\nleader = "lead"\n[members.lead]\nbackend = "anthropic"\n')
    with pytest.raises(ConfigError, match="mode: Input should be 'delegate' or 'claude-code'"):
        parse_team('mode = "claude"\nleader = "lead"\n[members.lead]\n')


async def test_a_teammate_that_never_finishes_costs_the_leader_its_turns_not_the_machine(
    tmp_path: Path, monkeypatch, claude_bin: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    mark = uuid.uuid4().hex
    marked_bin = fake_claude_bin(tmp_path / "marked", env={"FAKE_CLAUDE_MARK": mark})
    config = load_config(env={"BANDSTAND_CLAUDE_BIN": str(marked_bin), "BANDSTAND_PID_DIR": str(tmp_path / "pids")})
    text = NATIVE.replace("turn_timeout = 30", "turn_timeout = 1").replace(
        'persona = "You are BEAT, the drummer."', 'persona = "[[hang]] You are BEAT, the drummer."')
    team = Team(parse_team(text), config, log_dir=tmp_path / "run")
    events: list[dict] = []
    team.add_listener(events.append)
    result = await team.run("[[team:bass,drums]] a groove")
    assert result.reason == "leader_failed" and "took longer than 1" in result.answer
    assert [e["reason"] for e in events if e["type"] == "turn_failed"] == ["timeout", "timeout"]
    # each timed-out turn ended with its process (the hanging teammate inside it went too) and a new
    # one, hearing the conversation so far, took the next turn
    assert [e["type"] for e in events].count("backend_restarted") == 1
    assert wait_gone(marked(mark)) == []
    assert list((tmp_path / "pids").glob("*.json")) == []

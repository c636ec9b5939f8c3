"""Teams: delegation and routing in code, parallel teammates, results as the leader's next turn, limits."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.agents import AlgorithmicBackend, TurnRequest
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.config import load_config
from bandstand.cli import run
from bandstand.errors import ConfigError
from bandstand.runtime import read_log
from bandstand.runtime.team import Team
from bandstand.runtime.teamfile import load_team, parse_team
from tests.peers.claude import process_exists

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "team.toml"

SPEC = """
name = "t"
leader = "lead"
[limits]
max_turns = {max_turns}
max_seconds = {max_seconds}
turn_timeout = 5
{extra}
[members.lead]
persona = "lead"
[members.a]
persona = "A"
[members.b]
persona = "B"
"""


def spec(max_turns: int = 4, max_seconds: float = 30, extra: str = ""):
    return parse_team(SPEC.format(max_turns=max_turns, max_seconds=max_seconds, extra=extra))


def leader_script(*rounds: list[tuple[str, str]], answer: str = "finished"):
    """A leader that delegates round by round, then finishes with its last results."""

    def respond(req: TurnRequest) -> dict:
        data = req.data or {}
        step = sum(1 for m in req.history if m.role == "assistant")
        if step < len(rounds):
            return {
                "delegate": [{"to": to, "task": task} for to, task in rounds[step]],
                "done": False,
            }
        results = data.get("results", [])
        return {"done": True, "answer": answer + ": " + " | ".join(r["result"] for r in results)}

    return respond


def worker(req: TurnRequest) -> str:
    return f"{req.name} did {req.text} (task {len(req.history) // 2 + 1})"


async def test_example_team_runs_offline(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./bandstand.toml
    team = Team(load_team(EXAMPLE), load_config(env={}), log_dir=tmp_path)
    events: list[dict] = []
    team.add_listener(events.append)
    result = await team.run("a late-night groove in A minor")
    assert result.done and result.rounds == 2
    assert result.answer.splitlines() == [
        f"{m}: {m}: a late-night groove in A minor" for m in ("drums", "bass", "keys")
    ]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "team_started" and kinds[-1] == "team_ended"
    assert kinds.count("delegated") == 3 and kinds.count("teammate_result") == 3
    # results arrive as the leader's next turn
    leader_inputs = [
        e["input"] for e in events if e["type"] == "turn_started" and e["session"] == "producer"
    ]
    assert json.loads(leader_inputs[1])["results"][0]["from"] == "drums"
    logs = sorted(p.name.split("-")[0] for p in tmp_path.glob("*.jsonl"))
    assert logs == ["bass", "drums", "keys", "producer", "team.jsonl"]
    assert read_log(tmp_path / "team.jsonl")[-1]["reason"] == "done"


async def test_teammates_remember_across_rounds() -> None:
    lead = leader_script([("a", "intro"), ("b", "intro")], [("a", "verse")])
    backends = {
        "lead": AlgorithmicBackend(lead),
        "a": AlgorithmicBackend(worker),
        "b": AlgorithmicBackend(worker),
    }
    result = await Team(spec(), backends=backends).run("song")
    assert result.done
    assert result.answer == "finished: a did verse (task 2)"
    assert [r["result"] for r in result.results][:2] == [
        "a did intro (task 1)",
        "b did intro (task 1)",
    ]


async def test_parallel_round_meets_at_a_barrier() -> None:
    barrier = asyncio.Barrier(2)

    async def meeting(req: TurnRequest) -> str:
        async with asyncio.timeout(5):
            await barrier.wait()
        return worker(req)

    lead = leader_script([("a", "x"), ("b", "y")])
    backends = {
        "lead": AlgorithmicBackend(lead),
        "a": AlgorithmicBackend(meeting),
        "b": AlgorithmicBackend(meeting),
    }
    result = await Team(spec(), backends=backends).run("go")
    assert result.done and result.answer == "finished: a did x (task 1) | b did y (task 1)"


async def test_unknown_and_failing_teammates_are_reported_not_fatal() -> None:
    def broken(req: TurnRequest) -> str:
        raise RuntimeError("amp on fire")

    lead = leader_script([("a", "x"), ("nobody", "y"), ("b", "z")])
    backends = {
        "lead": AlgorithmicBackend(lead),
        "a": AlgorithmicBackend(worker),
        "b": AlgorithmicBackend(broken),
    }
    result = await Team(spec(), backends=backends).run("go")
    assert result.done
    by = {r["from"]: r for r in result.results}
    assert (
        by["a"]["ok"]
        and not by["nobody"]["ok"]
        and "no teammate named 'nobody'" in by["nobody"]["result"]
    )
    assert not by["b"]["ok"] and "amp on fire" in by["b"]["result"]


async def test_turn_limit() -> None:
    def busy(req: TurnRequest) -> dict:
        return {"delegate": [{"to": "a", "task": "again"}]}

    backends = {
        "lead": AlgorithmicBackend(busy),
        "a": AlgorithmicBackend(worker),
        "b": AlgorithmicBackend(worker),
    }
    result = await Team(spec(max_turns=3), backends=backends).run("go")
    assert (result.reason, result.rounds, len(result.results)) == ("max_turns", 3, 3)


async def test_time_limit() -> None:
    async def stuck(req: TurnRequest) -> str:
        await asyncio.Event().wait()
        return "never"

    lead = leader_script([("a", "x")])
    backends = {
        "lead": AlgorithmicBackend(lead),
        "a": AlgorithmicBackend(stuck),
        "b": AlgorithmicBackend(worker),
    }
    result = await Team(spec(max_seconds=0.3), backends=backends).run("go")
    assert result.reason == "timeout"


async def test_leader_that_never_answers_valid_json_fails_the_run() -> None:
    backends = {
        "lead": AlgorithmicBackend(lambda req: "I would rather not."),
        "a": AlgorithmicBackend(worker),
        "b": AlgorithmicBackend(worker),
    }
    events: list[dict] = []
    team = Team(spec(), backends=backends)
    team.add_listener(events.append)
    result = await team.run("go")
    assert result.reason == "leader_failed"
    assert sum(e["type"] == "leader_invalid" for e in events) == 2


async def test_claude_team_budget_and_no_process_left(tmp_path, monkeypatch, claude_bin) -> None:
    monkeypatch.chdir(tmp_path)
    text = SPEC.format(max_turns=10, max_seconds=60, extra="max_cost_usd = 0.0025")
    text = text.replace('persona = "A"', 'persona = "A"\nbackend = "claude-code"')
    text = text.replace('persona = "B"', 'persona = "B"\nbackend = "claude-code"')
    config = load_config(
        env={"BANDSTAND_CLAUDE_BIN": str(claude_bin), "BANDSTAND_PID_DIR": str(tmp_path / "pids")}
    )
    config.claude_code.pid_dir = str(tmp_path / "pids")

    def busy(req: TurnRequest) -> dict:
        return {"delegate": [{"to": "a", "task": "riff"}, {"to": "b", "task": "fill"}]}

    team = Team(parse_team(text), config, backends={"lead": AlgorithmicBackend(busy)})
    pids: set[int] = set()
    team.add_listener(
        lambda e: (
            pids.add(e["meta"]["pid"])
            if e["type"] == "turn_completed" and "pid" in e["meta"]
            else None
        )
    )
    result = await team.run("go")
    # each fake turn costs $0.001: two teammates, two rounds → over $0.0025 before round three
    assert result.reason == "budget" and result.cost_usd == pytest.approx(0.004)
    assert isinstance(team.sessions["a"].backend, ClaudeCodeBackend)
    assert len(pids) == 2 and not any(process_exists(p) for p in pids)
    assert list((tmp_path / "pids").glob("*.json")) == []


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('leader = "x"\n[members.a]\npersona = "p"\n', "leader 'x' is not one of the members"),
        ('leader = "a"\n[members.a]\npersonna = "p"\n', "members.a.personna"),
        ('leader = "a"\n[members.a]\n[limits]\nmax_turns = 0\n', "limits.max_turns"),
        ('name = "x/../../y"\nleader = "a"\n[members.a]\n', r"name: use 1-64 letters, digits"),
        ('name = ".hidden"\nleader = "a"\n[members.a]\n', r"name: use 1-64"),
        ('name = ""\nleader = "a"\n[members.a]\n', r"name: use 1-64"),
        ('leader = "a"\n[members.a]\n[limits]\nmax_seconds = 1e999\n', r"limits.max_seconds: Input should be a finite number"),
        ('leader = "x"\n[members.a]\n', r": leader 'x'"),  # no "Value error," noise
    ],
)
def test_bad_team_files(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_team(text)


def test_cli_team_run(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        run(
            [
                "team",
                "run",
                str(EXAMPLE),
                "--prompt",
                "bossa nova",
                "--runs-dir",
                str(tmp_path / "runs"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "[team:late-night] team_started" in out
        and "[team:late-night] team_ended reason=done" in out
    )
    assert "drums: drums: bossa nova" in out
    assert (
        run(
            [
                "team",
                "run",
                str(EXAMPLE),
                "--prompt",
                "x",
                "--json",
                "--runs-dir",
                str(tmp_path / "runs"),
            ]
        )
        == 0
    )
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[-1]["type"] == "team_ended" and events[-1]["reason"] == "done"


def test_cli_team_mistakes_exit_2(tmp_path, capsys) -> None:
    assert run(["team", "run", str(tmp_path / "missing.toml"), "--prompt", "x"]) == 2
    assert "cannot read team file" in capsys.readouterr().err
    assert run(["team", "run", str(EXAMPLE), "--prompt", "  "]) == 2
    assert "prompt is empty" in capsys.readouterr().err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cli_signal_stops_the_team_and_its_processes(tmp_path, claude_bin, sig) -> None:
    team_file = tmp_path / "team.toml"
    team_file.write_text(
        'name = "stuck"\nleader = "lead"\n[members.lead]\nbackend = "algorithmic"\nresponder = "delegating_leader"\n'
        '[members.a]\nbackend = "claude-code"\n[members.b]\nbackend = "claude-code"\n'
    )
    pid_dir = tmp_path / "pids"
    env = {**os.environ, "BANDSTAND_CLAUDE_BIN": str(claude_bin), "BANDSTAND_PID_DIR": str(pid_dir)}
    cmd = [
        sys.executable,
        "-m",
        "bandstand",
        "team",
        "run",
        str(team_file),
        "--prompt",
        "[[hang_hard]] play",
    ]
    cli = subprocess.Popen(
        [*cmd, "--runs-dir", str(tmp_path / "runs")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert cli.stdout is not None
    started = 0
    for line in cli.stdout:  # wait until both teammates are inside their hanging turn
        started += "] turn_started turn=0 input=[[hang_hard]]" in line
        if started == 2:
            break
    children = [int(p.stem) for p in pid_dir.glob("*.json")]
    assert len(children) == 2 and all(process_exists(p) for p in children)
    cli.send_signal(sig)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 130, err
    assert "interrupted" in err
    assert "team_ended reason=stopped" in out
    assert not any(process_exists(p) for p in children)
    assert list(pid_dir.glob("*.json")) == []


async def test_max_parallel_bounds_teammates_at_work() -> None:
    busy: list[str] = []
    peak = 0

    async def counted(req: TurnRequest) -> str:
        nonlocal peak
        busy.append(req.name)
        peak = max(peak, len(busy))
        await asyncio.sleep(0.01)
        busy.remove(req.name)
        return worker(req)

    text = (
        SPEC.format(max_turns=4, max_seconds=30, extra="max_parallel = 1")
        + '[members.c]\npersona = "C"\n'
    )
    lead = leader_script([("a", "x"), ("b", "y"), ("c", "z")])
    backends = {"lead": AlgorithmicBackend(lead), **{m: AlgorithmicBackend(counted) for m in "abc"}}
    result = await Team(parse_team(text), backends=backends).run("go")
    assert result.done and len(result.results) == 3 and peak == 1


def test_cli_team_with_an_openai_compatible_member(tmp_path, openai_server) -> None:
    team_file = tmp_path / "team.toml"
    team_file.write_text(
        'name = "mixed"\nleader = "lead"\n[members.lead]\nbackend = "algorithmic"\nresponder = "delegating_leader"\n'
        '[members.bass]\npersona = "You play bass."\nbackend = "openai"\nmodel = "local-model"\n'
    )
    env = {**os.environ, "OPENAI_BASE_URL": openai_server.url + "/v1", "OPENAI_API_KEY": "test-key"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bandstand",
            "team",
            "run",
            str(team_file),
            "--prompt",
            "walk it",
            "--json",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    answer = events[-1]["answer"]
    assert events[-1]["type"] == "team_ended" and answer.startswith("bass: ")
    assert json.loads(answer.removeprefix("bass: "))["system"] == "You play bass."
    assert openai_server.requests[0]["body"]["model"] == "local-model"
    assert any(e["type"] == "text_delta" and e["session"] == "bass" for e in events)
    assert list((tmp_path / "runs").glob("team-mixed-*/bass-*.jsonl"))


async def test_members_that_cannot_start(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(env={"BANDSTAND_CLAUDE_BIN": str(tmp_path / "no-such-claude")})
    text = SPEC.format(max_turns=4, max_seconds=30, extra="").replace(
        'persona = "B"', 'persona = "B"\nbackend = "claude-code"'
    )
    lead = leader_script([("a", "x"), ("b", "y")])
    result = await Team(
        parse_team(text),
        config,
        backends={"lead": AlgorithmicBackend(lead), "a": AlgorithmicBackend(worker)},
    ).run("go")
    by = {r["from"]: r for r in result.results}
    assert (
        result.done
        and by["a"]["ok"]
        and not by["b"]["ok"]
        and "BANDSTAND_CLAUDE_BIN" in by["b"]["result"]
    )
    leaderless = text.replace(
        '[members.lead]\npersona = "lead"',
        '[members.lead]\npersona = "lead"\nbackend = "claude-code"',
    )
    result = await Team(parse_team(leaderless), config).run("go")
    assert result.reason == "leader_failed" and "could not start" in result.answer


def test_cli_team_file_not_utf8_and_bad_runs_dir_exit_2(tmp_path, capsys) -> None:
    bad = tmp_path / "team.toml"
    bad.write_bytes(b"\xff\xfe" + EXAMPLE.read_bytes())
    assert run(["team", "run", str(bad), "--prompt", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not UTF-8" in err and "internal error" not in err
    blocker = tmp_path / "taken.txt"
    blocker.write_text("x")
    assert run(["team", "run", str(EXAMPLE), "--prompt", "x", "--runs-dir", str(blocker / "runs")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no member started
    assert "cannot create the log folder" in captured.err and "--runs-dir" in captured.err


def test_team_name_cannot_put_the_log_outside_runs_dir() -> None:
    with pytest.raises(ConfigError, match="name"):
        parse_team('name = "../escape"\nleader = "a"\n[members.a]\n')

"""Model-backed sessions make their own board writes through the board tools: a local OpenAI- or
Anthropic-speaking server (a real HTTP peer, `tests.peers.board_model`) plays every session — the
conductor in the launcher, each musician in its own process — and a 3-task board completes. Every
musician write on the board is one of the sessions' tool calls (their event logs show the calls);
a model that reports on a task it never claimed gets a tool error and nothing changes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bandstand.board import Board
from tests.peers.board_model import BoardAnthropic, BoardOpenAI

from .launching import run_launch

#: board message types a musician's tool writes, per tool
WRITES = {"submit_work": "result", "request_review": "review_request", "report_completion": "completion",
          "resume": "resumption", "complete": "completion_ack", "handoff": "handoff", "report_error": "error"}
CONDUCTOR_WRITES = {"approve": "approval", "reject": "rejection", "propose_fix": "fix_proposal",
                    "request_exit": "exit_request"}


def _server_env(kind: str, url: str) -> dict[str, str]:
    if kind == "openai":
        return {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "test-key", "BANDSTAND_OPENAI_MODEL": "local"}
    return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test-key", "BANDSTAND_ANTHROPIC_MODEL": "local"}


def _tool_calls(workdir: Path) -> list[dict[str, Any]]:
    """Every tool call the sessions made, from their event logs: {session, name, arguments, error}."""
    calls = []
    for log in sorted((workdir / "temp" / "sessions").glob("*.jsonl")):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            for call in event.get("tool_calls") or []:
                calls.append({"log": log.name, **call})
    return calls


def _launch(kind: str, board_url: str, workdir: Path, tasks: str, musicians: str = "2") -> dict[str, Any]:
    server = BoardOpenAI() if kind == "openai" else BoardAnthropic()
    with server:
        _, outcome = run_launch(board_url, workdir, "--musicians", musicians, "--backend", kind, "--tasks", tasks,
                                timeout=60, **_server_env(kind, server.url))
    return outcome


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_model_sessions_complete_a_board_through_tools(kind: str, tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    url = f"sqlite:///{tmp_path / 'board.db'}"
    outcome = _launch(kind, url, tmp_path, "3")
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {f"task-0{k}": "complete" for k in (1, 2, 3)}
    for task_id in outcome["tasks"]:  # the answer the model submitted, naming the skill it was given
        answer = (tmp_path / "output" / "board" / task_id / "answer.md").read_text()
        assert answer.startswith(f"Did the work for {task_id}:") and skill("musician").splitlines()[0] in answer
    calls = _tool_calls(tmp_path)
    assert not [c for c in calls if c["error"]]
    with Board.open(url, workdir=tmp_path) as board:
        thread = [m for m in board.messages_since(0) if m.task_id != "task-00"]
    musicians = {m.from_session for m in thread if m.message_type in WRITES.values()}
    assert musicians and all(s.startswith("musician-") for s in musicians)
    # each musician write on the board is one tool call of a musician session, and the other way round
    made = Counter(WRITES[c["name"]] for c in calls if c["name"] in WRITES and c["log"].startswith("musician-"))
    written = Counter(m.message_type for m in thread if m.message_type in WRITES.values())
    assert made == written and written["completion_ack"] == 3 and written["review_request"] == 3
    # the verdicts are the conductor session's tool calls
    verdicts = Counter(CONDUCTOR_WRITES[c["name"]] for c in calls
                       if c["name"] in CONDUCTOR_WRITES and c["log"].startswith("conductor-"))
    assert verdicts == Counter(m.message_type for m in thread if m.message_type in CONDUCTOR_WRITES.values())
    assert verdicts["approval"] == 6


def test_a_report_on_a_task_never_claimed_is_a_tool_error(tmp_path: Path) -> None:
    """The rogue musician reports completion of task-02 first (a task it never claimed): the call comes
    back as an error result, task-02 is untouched by it, and the board still completes."""
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("[[rogue]] write a bass line\nwrite a drum groove\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    outcome = _launch("openai", url, tmp_path, str(tasks), musicians="1")
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {"task-01": "complete", "task-02": "complete"}
    refused = [c for c in _tool_calls(tmp_path) if c["name"] == "report_completion"
               and c["arguments"]["task_id"] == "task-02" and c["log"].startswith("musician-")]
    assert len(refused) == 2  # the rogue one, and task-02's own report later
    logs = [json.loads(line) for log in sorted((tmp_path / "temp" / "sessions").glob("musician-*.jsonl"))
            for line in log.read_text().splitlines()]
    errors = [r for e in logs for r in e.get("tool_results") or [] if r["is_error"]]
    assert len(errors) == 1
    assert errors[0]["content"].startswith("error: report_completion: task-02 is not claimed yet (state watching)")
    with Board.open(url, workdir=tmp_path) as board:
        kinds = [m.message_type for m in board.messages_since(0, task_id="task-02")]
        assert board.task("task-02").worked_by == "musician-task-02"
    assert kinds.count("completion") == 1 and kinds[-1] == "completion_ack"


def test_model_sessions_complete_a_board_on_postgres(tmp_path: Path) -> None:
    from tests.board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database

    if not PG_URL:
        _pg_missing()
    url = fresh_pg_database()
    try:
        outcome = _launch("anthropic", url, tmp_path, "3")
        assert {s["state"] for s in outcome["tasks"].values()} == {"complete"}
        with Board.open(url, workdir=tmp_path) as board:
            assert Counter(m.message_type for m in board.messages_since(0))["completion_ack"] == 3
    finally:
        drop_pg_database(url)


def test_a_session_that_leaves_its_task_open_is_recovered_as_stale(tmp_path: Path) -> None:
    """The first session claims its task and then stops calling tools: it is reminded twice, closed, its
    task goes stale, the conductor hands it over (crash recovery) and a new session completes it as -S2."""
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("[[stall]] write a bass line\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    outcome = _launch("openai", url, tmp_path, str(tasks), musicians="1")
    assert outcome["tasks"]["task-01"]["state"] == "complete"
    with Board.open(url, workdir=tmp_path) as board:
        task = board.task("task-01")
        thread = board.messages_since(0, task_id="task-01")
    assert task.worked_by == "musician-task-01-S2"
    kinds = [m.message_type for m in thread]
    assert kinds[:2] == ["instruction", "fix_proposal"] and kinds[-1] == "completion_ack"
    assert next(m for m in thread if m.message_type == "fix_proposal").message.startswith("crash recovery:")
    claims = [c for c in _tool_calls(tmp_path) if c["name"] == "claim_task"]
    assert len(claims) == 2  # the stalled session's and its successor's


def test_the_conductor_session_answers_an_error_report_with_a_fix(tmp_path: Path) -> None:
    """The musician session reports an error right after its claim; the conductor session proposes a fix
    (its own tool call); the musician redoes the work and the task completes."""
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("[[fail]] write a bass line\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    outcome = _launch("anthropic", url, tmp_path, str(tasks), musicians="1")
    assert outcome["tasks"]["task-01"]["state"] == "complete"
    with Board.open(url, workdir=tmp_path) as board:
        thread = board.messages_since(0, task_id="task-01")
    kinds = [m.message_type for m in thread]
    assert kinds[:3] == ["instruction", "error", "fix_proposal"] and kinds[-1] == "completion_ack"
    assert next(m for m in thread if m.message_type == "fix_proposal").message == "try it again"
    fixes = [c for c in _tool_calls(tmp_path) if c["name"] == "propose_fix" and c["log"].startswith("conductor-")]
    assert len(fixes) == 1 and fixes[0]["arguments"] == {"task_id": "task-01", "reason": "try it again"}

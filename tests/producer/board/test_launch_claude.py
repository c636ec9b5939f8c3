"""With the fake `claude` (a real process speaking stream-json), every session gets its skill as its
system prompt, the launch prompt as its first message and the board tools through the CLI's MCP
bridge (``--mcp-config`` + ``--allowedTools``); the scripted model behind it (`board_policy`) calls
them, and its calls move the tasks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bandstand.board import Board
from tests.peers.claude import fake_claude_bin

from .launching import env, launch_cmd, run_launch

BOARD_TOOLS = {"claim_task", "submit_work", "request_review", "wait_for_review", "complete", "handoff"}


def _lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip().startswith("{")]


def test_claude_sessions_get_the_board_tools_and_their_calls_move_the_tasks(tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    log = tmp_path / "claude.log"
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("# the band's work\nwrite a walking bass for a jazz blues in F\n"
                     "write a drum groove for a bossa nova\nwrite a pad for an ambient intro\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    _, outcome = run_launch(
        url, tmp_path, "--musicians", "2", "--backend", "claude-code", "--tasks", str(tasks), timeout=90,
        BANDSTAND_CLAUDE_BIN=str(fake_claude_bin(tmp_path / "bin")), FAKE_CLAUDE_LOG=str(log),
        FAKE_CLAUDE_POLICY="board_policy")
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {
        "task-01": "complete", "task-02": "complete", "task-03": "complete"}
    for task_id, words in (("task-01", "walking bass"), ("task-02", "drum groove"), ("task-03", "ambient intro")):
        answer = (tmp_path / "output" / "board" / task_id / "answer.md").read_text()
        assert words in answer and skill("musician").splitlines()[0] in answer  # the skill was its system prompt
    said = _lines(log)
    # the MCP bridge reached every process: the host listed the board tools to the CLI
    listed = [{t["name"] for t in ((m.get("response") or {}).get("response") or {}).get("mcp_response", {})
               .get("result", {}).get("tools", [])} for m in said if m.get("type") == "control_response"]
    assert any(names >= BOARD_TOOLS for names in listed)
    assert any({"approve", "reject", "request_exit"} <= names for names in listed)
    # the launch prompt was each session's first message, and it names the tools
    firsts = [m["message"]["content"] for m in said if m.get("type") == "user"]
    assert [text for text in firsts if "a conductor on the bandstand board" in text]
    musician = [text for text in firsts if "You are a musician of this launch, a musician" in text]
    assert len(musician) >= 3 and all("claim_task" in text for text in musician)
    with Board.open(url, workdir=tmp_path) as board:
        thread = board.messages_since(0)
    notes = [m.message for m in thread if m.message_type == "approval"]
    assert len(notes) == 6 and set(notes) == {"heard it: approved"}
    assert sorted(m.task_id for m in thread if m.message_type == "completion_ack") == ["task-01", "task-02", "task-03"]


def test_an_empty_answer_is_rejected_then_handed_off(tmp_path: Path) -> None:
    """A musician whose model submits nothing: the conductor's model rejects it three times; a fourth
    rejection is refused by the board tools, so it asks for an exit; the musician hands off; the launch
    says so and exits 1."""
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("[[empty]] write a bass line\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--backend", "claude-code", "--tasks",
                                     str(tasks)),
                          env=env(BANDSTAND_CLAUDE_BIN=str(fake_claude_bin(tmp_path / "bin")),
                                  FAKE_CLAUDE_POLICY="board_policy"),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "bandstand: 1 of 1 tasks did not complete: task-01 exited (see 'bandstand board messages --task TASK')")
    assert json.loads(done.stdout)["tasks"]["task-01"]["state"] == "exited"
    with Board.open(url, workdir=tmp_path) as board:
        thread = board.messages_since(0, task_id="task-01")
    kinds = [m.message_type for m in thread]
    assert kinds.count("rejection") == 3 and kinds.count("review_request") == 4
    assert kinds[-2:] == ["exit_request", "handoff"]
    assert {m.message for m in thread if m.message_type == "rejection"} == {"the answer is empty"}
    assert "the conductor asked for an exit" in (tmp_path / "temp" / "task-01-HANDOFF").read_text()

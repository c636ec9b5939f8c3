"""With the fake `claude` (a real process speaking stream-json), the skill text reaches each
session as its system prompt and the launch prompt as its first message."""

from __future__ import annotations

import json
from pathlib import Path

from bandstand.board import Board
from tests.peers.claude import fake_claude_bin

from .launching import run_launch

MUSICIAN_REPLY = "Wrote the bass line; the musician skill is in my system prompt."
CONDUCTOR_REPLY = {"verdict": "approve", "note": "the conductor skill is in my system prompt"}


def test_the_launch_prompt_and_skills_reach_every_session(tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    musician_line = skill("musician").splitlines()[0]
    conductor_line = skill("conductor").splitlines()[0]
    log = tmp_path / "claude.log"
    claude = fake_claude_bin(tmp_path / "bin")
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("# the band's work\nwrite a walking bass for a jazz blues in F\n"
                     "write a drum groove for a bossa nova\nwrite a pad for an ambient intro\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    _, outcome = run_launch(
        url, tmp_path, "--musicians", "2", "--backend", "claude-code", "--tasks", str(tasks),
        BANDSTAND_CLAUDE_BIN=str(claude), FAKE_CLAUDE_LOG=str(log),
        FAKE_CLAUDE_PERSONAS=json.dumps({musician_line: MUSICIAN_REPLY, conductor_line: json.dumps(CONDUCTOR_REPLY)}))
    assert {t: s["state"] for t, s in outcome["tasks"].items()} == {
        "task-01": "complete", "task-02": "complete", "task-03": "complete"}
    # the musician skill was each musician session's system prompt: the fake answered as told
    for task_id in outcome["tasks"]:
        assert (tmp_path / "output" / "board" / task_id / "answer.md").read_text() == MUSICIAN_REPLY + "\n"
    with Board.open(url, workdir=tmp_path) as board:
        notes = [m.message for m in board.messages_since(0) if m.message_type == "approval"]
    assert len(notes) == 6 and set(notes) == {CONDUCTOR_REPLY["note"]}
    # and the launch prompt was each session's first message
    said = [json.loads(line)["message"]["content"] for line in log.read_text().splitlines()
            if line.strip().startswith("{") and json.loads(line).get("type") == "user"]
    firsts = [text for text in said if text.startswith("You are ")]
    conductor = [text for text in firsts if "a conductor on the bandstand board" in text]
    assert len(conductor) == 1 and "- task-02: write a drum groove for a bossa nova" in conductor[0]
    for task_id, words in (("task-01", "walking bass"), ("task-02", "drum groove"), ("task-03", "ambient intro")):
        mine = [text for text in firsts if f"You are musician-{task_id}, a musician" in text]
        assert len(mine) == 1, (task_id, firsts)
        assert f"Task: {task_id}" in mine[0] and words in mine[0]


def test_an_empty_answer_is_rejected_then_handed_off(tmp_path: Path) -> None:
    """A musician whose session answers nothing: the conductor rejects the result three times, then
    asks for an exit; the musician writes its HANDOFF and exits; the launch says so and exits 1."""
    import subprocess

    from bandstand.board.skilltext import skill

    from .launching import env, launch_cmd

    claude = fake_claude_bin(tmp_path / "bin")
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("write a bass line\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    personas = {skill("musician").splitlines()[0]: " ", skill("conductor").splitlines()[0]: json.dumps(CONDUCTOR_REPLY)}
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--backend", "claude-code", "--tasks",
                                     str(tasks)),
                          env=env(BANDSTAND_CLAUDE_BIN=str(claude), FAKE_CLAUDE_PERSONAS=json.dumps(personas)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "bandstand: 1 of 1 tasks did not complete: task-01 exited (see 'bandstand board messages --task TASK')")
    assert json.loads(done.stdout)["tasks"]["task-01"]["state"] == "exited"
    with Board.open(url, workdir=tmp_path) as board:
        kinds = [m.message_type for m in board.messages_since(0, task_id="task-01")]
        rejections = [m.message for m in board.messages_since(0, task_id="task-01") if m.message_type == "rejection"]
    assert kinds.count("rejection") == 3 and kinds.count("review_request") == 4
    assert kinds[-2:] == ["exit_request", "handoff"]
    assert set(rejections) == {"the answer is empty"}
    assert "the conductor asked for an exit" in (tmp_path / "temp" / "task-01-HANDOFF").read_text()

"""The board tools (`board.tools.BoardToolbox`): the protocol worked end to end through tool calls,
and every call the state machine, the fencing or the schema refuses is an error answer that writes
nothing — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from bandstand.board import Board, State
from bandstand.board.tools import CONDUCTOR_TOOLS, MUSICIAN_TOOLS, BoardToolbox


def _setup(board: Board, *task_ids: str, phase: str = "launch") -> None:
    for task_id in task_ids:
        board.create_task(task_id, phase=phase)
        board.instruct(task_id, f"write the part of {task_id}", conductor_session="conductor-1")


def _snapshot(board: Board) -> tuple[Any, ...]:
    return (tuple((t.task_id, t.state, t.session_id, t.worked_by) for t in board.tasks()),
            len(board.messages_since(0)))


def _ok(answer: Any) -> dict[str, Any]:
    assert not answer.is_error, answer.content
    data: dict[str, Any] = json.loads(answer.content)
    return data


def _tools(board: Board, tmp_path: Path) -> tuple[BoardToolbox, BoardToolbox]:
    musician = BoardToolbox(board, "m-1", "musician", workdir=tmp_path, phase="launch", poll=0.02,
                            submit=lambda task_id, answer: json.dumps({"task_id": task_id, "answer": answer}))
    conductor = BoardToolbox(board, "conductor-1", "conductor", workdir=tmp_path, phase="launch", poll=0.02)
    return musician, conductor


def test_the_schemas_are_what_a_model_is_offered() -> None:
    for tools in (MUSICIAN_TOOLS, CONDUCTOR_TOOLS):
        for name, tool in tools.items():
            schema = tool.args.model_json_schema()
            assert schema["type"] == "object" and schema.get("additionalProperties") is False, name
            assert "session_id" not in schema.get("properties", {})  # the session is the toolbox's


def test_a_task_worked_to_complete_through_the_tools(board: Board, tmp_path: Path) -> None:
    _setup(board, "task-01")
    musician, conductor = _tools(board, tmp_path)
    claimed = _ok(musician.call("claim_task", {}))
    assert claimed["task_id"] == "task-01" and claimed["instruction"] == "write the part of task-01"
    _ok(musician.call("log_status", {"task_id": "task-01", "line": "step 1 started", "context_usage": 12}))
    _ok(musician.call("submit_work", {"task_id": "task-01", "answer": "a bass line"}))
    review = {"task_id": "task-01", "summary": "bass written", "checkpoint": 1, "checkpoints_total": 2,
              "context_usage": 14}
    assert _ok(musician.call("request_review", review))["state"] == "needs_review"
    waited = _ok(musician.call("wait_for_review", {"task_id": "task-01", "timeout_seconds": 0.1}))
    assert waited["waiting"] is True and waited["state"] == "needs_review"
    assert _ok(conductor.call("approve", {"task_id": "task-01", "note": "good"}))["state"] == "review_approved"
    waited = _ok(musician.call("wait_for_review", {"task_id": "task-01"}))
    assert waited == {"task_id": "task-01", "state": "review_approved", "conductor_said": "good",
                      "message_type": "approval"}
    _ok(musician.call("resume", {"task_id": "task-01"}))
    _ok(musician.call("report_completion", {**review, "checkpoint": 2, "summary": "verified"}))

    def approve_soon() -> None:
        _ok(conductor.call("approve", {"task_id": "task-01", "note": "ship it"}))

    later = threading.Timer(0.2, approve_soon)
    later.start()
    assert _ok(musician.call("wait_for_review", {"task_id": "task-01", "timeout_seconds": 30}))["state"] \
        == "review_approved"
    later.join()
    _ok(musician.call("resume", {"task_id": "task-01"}))
    assert _ok(musician.call("complete", {"task_id": "task-01"}))["state"] == "complete"
    kinds = [m.message_type for m in board.messages_since(0, task_id="task-01")]
    assert kinds == ["instruction", "result", "review_request", "approval", "resumption", "completion", "approval",
                     "resumption", "completion_ack"]
    assert "step 1 started [ctx: 12%]" in (tmp_path / "temp" / "task-01-status").read_text()
    assert musician.calls[-1] == ("complete", False)


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("report_completion", {"task_id": "task-02", "summary": "done", "checkpoint": 2, "checkpoints_total": 2,
                           "context_usage": 10}, "task-02 is not claimed yet (state watching)"),
    ("complete", {"task_id": "task-01"}, "task-01 can only complete after the conductor approved"),
    ("resume", {"task_id": "task-01"}, "working"),
    ("claim_task", {"task_id": "task-02"}, "you hold task-01 already"),
    ("claim_task", {}, "you hold task-01 already"),
    ("submit_work", {"task_id": "task-02", "answer": "x"}, "only the holding session submits"),
    ("handoff", {"task_id": "task-02", "reason": "tired", "context_usage": 10}, "held by nobody, not you"),
    ("request_review", {"task_id": "task-01", "summary": "s", "checkpoint": 1, "checkpoints_total": 2,
                        "context_usage": 90}, "context threshold comes before a checkpoint"),
    ("request_review", {"task_id": "task-01", "summary": "s", "checkpoint": 0, "checkpoints_total": 2,
                        "context_usage": 9}, "checkpoint: Input should be greater than or equal to 1"),
    ("heartbeat", {"task_id": "task-01", "session_id": "someone-else"}, "session_id: Extra inputs"),
    ("approve", {"task_id": "task-01"}, "there is no musician tool 'approve'"),
])
def test_a_refused_call_is_an_error_answer_that_writes_nothing(board: Board, tmp_path: Path, name: str,
                                                               arguments: dict[str, Any], says: str) -> None:
    _setup(board, "task-01", "task-02")
    musician, _ = _tools(board, tmp_path)
    _ok(musician.call("claim_task", {"task_id": "task-01"}))
    before = _snapshot(board)
    answer = musician.call(name, arguments)
    assert answer.is_error and answer.content.startswith(f"error: {name}") and says in answer.content, answer
    assert "\n" not in answer.content
    assert _snapshot(board) == before
    assert not (tmp_path / "temp" / "task-02-HANDOFF").exists()


def test_claims_stay_in_the_launch_and_never_write_a_fallback_for_a_held_task(board: Board, tmp_path: Path) -> None:
    _setup(board, "task-01")
    _setup(board, "task-09", phase="batch")
    musician, _ = _tools(board, tmp_path)
    rival = BoardToolbox(board, "m-2", "musician", workdir=tmp_path, phase="launch")
    _ok(rival.call("claim_task", {}))
    before = _snapshot(board)
    for arguments, says in (({"task_id": "task-09"}, "not a task of this launch"),
                            ({"task_id": "task-01"}, "task-01 is working (held by musician-task-01)"),
                            ({}, "no task is left to claim")):
        answer = musician.call("claim_task", arguments)
        assert answer.is_error and says in answer.content, answer
    assert _snapshot(board) == before


def test_the_conductor_tools_follow_the_protocol(board: Board, tmp_path: Path) -> None:
    _setup(board, "task-01")
    musician, conductor = _tools(board, tmp_path)
    listed = _ok(conductor.call("list_tasks", {}))["tasks"]
    assert listed == [{"task_id": "task-01", "state": "watching", "worked_by": None}]
    _ok(musician.call("claim_task", {}))
    before = _snapshot(board)
    answer = conductor.call("approve", {"task_id": "task-01"})
    assert answer.is_error and "working" in answer.content and "review_approved" in answer.content
    stranger = BoardToolbox(board, "not-the-conductor", "conductor", workdir=tmp_path)
    assert stranger.call("request_exit", {"task_id": "task-01", "reason": "stop"}).is_error
    assert _snapshot(board) == before
    review = {"task_id": "task-01", "summary": "s", "checkpoint": 1, "checkpoints_total": 2, "context_usage": 9}
    _ok(musician.call("request_review", review))
    for _ in range(3):
        _ok(conductor.call("reject", {"task_id": "task-01", "reason": "too busy"}))
        _ok(musician.call("request_review", review))  # review_failed → needs_review: resubmitted
    answer = conductor.call("reject", {"task_id": "task-01", "reason": "still too busy"})
    assert answer.is_error and "rejected 3 times already: call request_exit instead" in answer.content
    assert _ok(conductor.call("request_exit", {"task_id": "task-01", "reason": "hand off"}))["state"] \
        == "exit_requested"
    checked = BoardToolbox(board, "conductor-1", "conductor", workdir=tmp_path,
                           review_problems=lambda task_id: [f"{task_id}: the answer is empty"])
    _setup(board, "task-02")
    board.claim("task-02", "m-3")
    board.move("task-02", "m-3", State.NEEDS_REVIEW, message_type="review_request", message="look")
    answer = checked.call("approve", {"task_id": "task-02"})
    assert answer.is_error and "found problems (task-02: the answer is empty): reject it" in answer.content
    assert str(board.task("task-02").state) == "needs_review"


def test_a_completion_report_waits_for_the_gates_on_the_tasks_tests(tmp_path: Path) -> None:
    """A task naming tests: the completion report is refused until the coverage and flaky gates passed on
    those tests in this session; a failing gate says why (and keeps refusing)."""
    from tests.producer.board.test_launch_gates import _project

    _project(tmp_path, covered=False)
    with Board.open(f"sqlite:///{tmp_path / 'board.db'}", workdir=tmp_path) as board:
        board.init("conductor-1")
        _setup(board, "task-01")
        tests, sources = ("checks/test_calc.py",), ("calc",)
        musician = BoardToolbox(board, "m-1", "musician", workdir=tmp_path, phase="launch", heartbeat=0.05,
                                gates_for=lambda task_id: (tests, sources))
        _ok(musician.call("claim_task", {}))
        report = {"task_id": "task-01", "summary": "done", "checkpoint": 2, "checkpoints_total": 2,
                  "context_usage": 20}
        before = _snapshot(board)
        refused = musician.call("report_completion", report)
        assert refused.is_error and "pass the coverage and the flaky gate on them first (run_check)" in refused.content
        flaky = _ok(musician.call("run_check", {"task_id": "task-01", "check": "flaky", "tests": list(tests)}))
        assert flaky["code"] == 0
        coverage = _ok(musician.call("run_check", {"task_id": "task-01", "check": "coverage", "tests": list(tests),
                                                   "sources": list(sources)}))
        assert coverage["code"] == 1 and "(gate 80%)" in coverage["report"]
        refused = musician.call("report_completion", report)
        assert refused.is_error and "pass the coverage gate on them first" in refused.content
        assert _snapshot(board)[0] == before[0]  # the task did not move
        (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\ndef scale(values, k):\n"
                                          "    return [v * k for v in values]\n")
        assert _ok(musician.call("run_check", {"task_id": "task-01", "check": "coverage", "tests": list(tests),
                                               "sources": list(sources)}))["code"] == 0
        assert _ok(musician.call("report_completion", report))["state"] == "needs_review"


def test_a_task_gets_three_fixes_then_an_exit(board: Board, tmp_path: Path) -> None:
    _setup(board, "task-01")
    musician, conductor = _tools(board, tmp_path)
    _ok(musician.call("claim_task", {}))
    failure = {"task_id": "task-01", "error": "it broke", "context_usage": 10}
    for _ in range(3):
        _ok(musician.call("report_error", failure))
        _ok(conductor.call("propose_fix", {"task_id": "task-01", "reason": "try again"}))
        _ok(musician.call("submit_work", {"task_id": "task-01", "answer": "again"}))  # allowed in fix_proposed
        board.move("task-01", "m-1", State.NEEDS_REVIEW, message_type="review_request", message="redone")
        _ok(conductor.call("approve", {"task_id": "task-01"}))
        _ok(musician.call("resume", {"task_id": "task-01"}))
    _ok(musician.call("report_error", failure))
    refused = conductor.call("propose_fix", {"task_id": "task-01", "reason": "once more"})
    assert refused.is_error and "reported 4 errors, more than the 3 fixes a task gets: call request_exit" \
        in refused.content
    assert _ok(conductor.call("request_exit", {"task_id": "task-01", "reason": "hand off"}))["state"] \
        == "exit_requested"

"""`bandstand board` through the CLI entry point: exit codes, JSON, hooks, mistakes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bandstand.cli import run


@pytest.fixture
def bb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setenv("BANDSTAND_BOARD", f"sqlite:///{tmp_path / 'board.db'}")
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)

    def call(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = run(["board", "--workdir", str(tmp_path), *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


def test_a_task_through_the_cli(bb) -> None:
    assert bb("init", "-s", "cond")[0] == 0
    assert bb("create", "task-01")[0] == 0
    code, out, _ = bb("claim", "task-01", "-s", "m1")
    assert code == 0 and "musician-task-01" in out
    code, out, _ = bb("claim", "task-01", "-s", "m2")
    assert code == 1 and "fallback-m2" in out
    code, out, _ = bb("--json", "show", "task-01")
    assert json.loads(out)["state"] == "working"
    code, _, _ = bb("request-review", "task-01", "-s", "m1", "--smoothness", "7", "--checkpoint", "1/2",
                    "--context", "35", "--summary", "half", "--output", "src/x.py:modified")
    assert code == 0
    code, out, _ = bb("--json", "messages", "--task", "task-01")
    assert "src/x.py (modified)" in json.loads(out)[-1]["message"]
    assert bb("approve", "task-01", "-s", "cond", "--note", "fine")[0] == 0
    code, _, err = bb("complete", "task-01", "-s", "m1")
    assert code == 1 and "review_approved to complete" in err


def test_checks_exit_codes(bb) -> None:
    bb("init", "-s", "cond")
    bb("create", "task-01")
    bb("claim", "task-01", "-s", "m1")
    assert bb("check-state", "task-01", "m1")[0] == 0
    assert bb("check-state", "task-01", "m9")[0] == 1
    assert bb("check-temp", "task-01")[0] == 1
    bb("status", "task-01", "step 1 started", "--ctx", "20")
    bb("deviation", "task-01", "Low", "small rename")
    assert bb("check-temp", "task-01")[0] == 0
    assert bb("check-headroom", "task-01")[0] == 0
    bb("status", "task-01", "step 2 started", "--ctx", "80")
    code, out, _ = bb("check-headroom", "task-01")
    assert code == 2 and "20% → 80%" in out


def test_hooks(bb) -> None:
    code, out, _ = bb("hook", "session-start", stdin='{"session_id": "s-42"}')
    assert code == 0 and json.loads(out)["hookSpecificOutput"]["additionalContext"] == "CLAUDE_SESSION_ID=s-42"
    bb("init", "-s", "cond")
    bb("create", "task-01")
    bb("claim", "task-01", "-s", "m1")
    code, out, _ = bb("hook", "stop", stdin='{"session_id": "m1", "stop_hook_active": false}')
    assert json.loads(out)["decision"] == "block"
    code, out, err = bb("hook", "stop", stdin="not json")
    assert code == 2 and "JSON" in err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("show", "task-77"), "no task 'task-77'"),
        (("create", "build"), "task ids look like"),
        (("claim", "task-01"), "--session"),
        (("--board", "mysql://x", "list"), "unknown board URL"),
        (("request-review", "task-01", "-s", "m", "--smoothness", "3", "--checkpoint", "one",
          "--context", "3", "--summary", "x"), "--checkpoint takes n/m"),
        (("status", "task-01", "x", "--ctx", "9999"), "--ctx"),
        (("status", "task-01", "x", "--ctx", "-5"), "--ctx"),
        (("status", "task-01", "  "), "needs some text"),
        (("deviation", "task-01", "Low", ""), "needs some text"),
        (("--stale-after", "-5", "list"), "--stale-after"),
        (("wait", "task-01", "--kind", "nope", "-s", "m"), "--kind is pause or background"),
        (("messages", "--since", "99999999999999999999"), "--since"),  # was an internal OverflowError
        (("messages", "--since", "-1"), "--since"),
        (("wait", "task-01", "--poll", "0", "-s", "m"), "--poll"),
        (("wait", "task-01", "--timeout", "-1", "-s", "m"), "--timeout"),
        (("--board", "postgresql://nobody@127.0.0.1:1/x", "list"), "cannot connect to the board"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(bb, args: tuple[str, ...], needle: str) -> None:
    code, _, err = bb(*args)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1


def test_empty_instructions_and_feedback_are_refused(bb) -> None:
    assert bb("init", "-s", "cond")[0] == 0
    assert bb("create", "task-01")[0] == 0
    for args in (("instruct", "task-01", " "), ("reject", "task-01", "--feedback", ""), ("propose-fix", "task-01", "--fix", "")):
        code, _, err = bb(*args, "-s", "cond")
        assert code == 2 and ("empty" in err or "needs feedback" in err)
        assert len(err.strip().splitlines()) == 1
    code, out, _ = bb("--json", "messages", "--task", "task-01")
    assert json.loads(out) == []


def test_a_board_file_that_is_not_sqlite_is_one_line(bb, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_text("garbage, not a database\n")
    code, _, err = bb("--board", f"sqlite:///{corrupt}", "list")
    assert code == 2 and f"{corrupt} is not a board" in err and "internal error" not in err
    assert corrupt.read_text() == "garbage, not a database\n"
    code, _, err = bb("--board", f"sqlite:///{corrupt}/sub/board.db", "list")
    assert code == 2 and f"{corrupt} is a file, not a folder" in err


def test_status_text_stays_on_one_line(bb, tmp_path: Path) -> None:
    assert bb("status", "task-01", "two\nlines", "--ctx", "12")[0] == 0
    (line,) = (tmp_path / "temp" / "task-01-status").read_text().splitlines()
    assert line.endswith(" two lines [ctx: 12%]")


def test_the_examples_in_board_help_run(bb) -> None:
    import shlex

    code, text, _ = bb("--help")
    assert code == 0 and "Examples" in text
    lines = [line.strip() for line in text.split("Examples", 1)[1].splitlines() if line.strip().startswith("bandstand board ")]
    assert len(lines) >= 6
    for line in lines:
        code, _, err = bb(*shlex.split(line)[2:])
        assert code == 0, (line, err)
    code, out, _ = bb("--json", "show", "task-01")
    assert json.loads(out)["state"] == "review_approved"

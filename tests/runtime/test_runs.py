"""Runs read back for the log view: listed newest first, replayed, followed as the
logs grow (a torn line waits for its end, a new member's log joins), within budgets."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bandstand.errors import NotFound
from bandstand.runtime.runs import RunBudget, RunFollower, list_runs, run_path


def line(session: str, seq: int, ts: float, **fields: Any) -> str:
    return json.dumps({"type": "turn_started", "session": session, "seq": seq, "ts": ts, **fields}) + "\n"


def test_runs_are_listed_newest_first(tmp_path: Path) -> None:
    team = tmp_path / "team-a"
    team.mkdir()
    (team / "team.jsonl").write_text(line("team:a", 1, 1.0))
    (team / "bass-1.jsonl").write_text(line("bass", 1, 2.0))
    (team / "notes.txt").write_text("not a log")
    single = tmp_path / "aria-2.jsonl"
    single.write_text(line("aria", 1, 3.0))
    composing = tmp_path / "compose-team-20260101-000000-000001.jsonl"  # bandstand compose --team
    composing.write_text(line("coordinator", 1, 4.0))
    (tmp_path / "empty").mkdir()
    os.utime(single, (1000, 1000))
    os.utime(composing, (500, 500))
    found = list_runs(tmp_path)
    assert [(r.name, r.kind, r.logs) for r in found] == [("team-a", "team", 2), ("aria-2.jsonl", "session", 1),
                                                        (composing.name, "team", 1)]
    assert list_runs(tmp_path / "missing") == []
    assert [r.name for r in list_runs(tmp_path, RunBudget(runs=1))] == ["team-a"]


@pytest.mark.parametrize("name", ["..", "../etc", "a/b", "", "missing", "x" * 300])
def test_only_runs_under_the_root_are_named(tmp_path: Path, name: str) -> None:
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(NotFound):
        run_path(tmp_path, name)
    with pytest.raises(NotFound):
        run_path(tmp_path, "notes.txt")


def test_a_run_is_followed_as_it_grows(tmp_path: Path) -> None:
    run = tmp_path / "team-b"
    run.mkdir()
    team = run / "team.jsonl"
    team.write_text(line("team:b", 1, 1.0) + line("team:b", 2, 3.0))
    follower = RunFollower(run)
    assert [e["seq"] for e in follower.read()] == [1, 2]
    assert follower.read() == []
    bass = run / "bass-1.jsonl"
    bass.write_text(line("bass", 1, 2.0) + line("bass", 2, 4.0)[:-10])  # the second line is being written
    with team.open("a") as fh:
        fh.write(line("team:b", 3, 5.0))
    assert [(e["session"], e["seq"]) for e in follower.read()] == [("bass", 1), ("team:b", 3)]  # by time
    with bass.open("a") as fh:
        fh.write(line("bass", 2, 4.0)[-10:])
    assert [(e["session"], e["seq"]) for e in follower.read()] == [("bass", 2)]
    assert not follower.truncated and follower.skipped == 0
    replay = RunFollower(run).read()  # a replay reads the same events in time order
    assert [e["ts"] for e in replay] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_budgets_bound_what_is_read(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    big = json.dumps({"type": "text_delta", "session": "x", "seq": 2, "ts": 2.0, "text": "y" * 5000}) + "\n"
    log.write_text(line("x", 1, 1.0) + big + "not json\n" + line("x", 3, 3.0))
    follower = RunFollower(log, RunBudget(line_bytes=1000))
    assert [e["seq"] for e in follower.read()] == [1, 3] and follower.skipped == 2
    capped = RunFollower(log, RunBudget(bytes=200, line_bytes=100_000))
    assert [e["seq"] for e in capped.read()] == [1]
    assert capped.truncated and capped.read() == [] and capped.read_bytes <= 200


def test_a_read_with_max_bytes_takes_whole_lines_and_leaves_the_rest_pending(tmp_path: Path) -> None:
    run = tmp_path / "team"
    run.mkdir()
    lines = [json.dumps({"type": "x", "seq": i, "ts": float(i), "text": "y" * 900}) + "\n" for i in range(40)]
    (run / "team.jsonl").write_text("".join(lines[:20]))
    (run / "bass-1.jsonl").write_text("".join(lines[20:]))
    budget = RunBudget(line_bytes=1024)
    follower = RunFollower(run, budget)
    seen: list[int] = []
    reads = 0
    while True:
        batch = follower.read(max_bytes=4096)
        reads += 1
        assert sum(len(json.dumps(e)) + 1 for e in batch) <= 4096
        seen += [e["seq"] for e in batch]
        if not follower.pending:
            break
    assert sorted(seen) == list(range(40)) and reads >= 10 and not follower.truncated
    assert follower.read(max_bytes=4096) == [] and follower.pending == 0
    with pytest.raises(ValueError, match="cannot hold one event of 1024 bytes"):
        follower.read(max_bytes=1024)

"""The session log view's routes: runs listed and replayed, followed live over SSE
through a real `bandstand serve` (a line appended to a log arrives as an event),
and the board read (never created) — all behind the server's token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from bandstand.board import Board
from bandstand.jam.persona import resolve_members
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from tests.server.jam_process import bandstand_server

TOKEN = "t" * 32


def event(session: str, seq: int, ts: float, kind: str = "turn_started", **fields: object) -> str:
    return json.dumps({"type": kind, "session": session, "seq": seq, "ts": ts, **fields}) + "\n"


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "team-late-night-1"
    run.mkdir(parents=True)
    (run / "team.jsonl").write_text(event("team:late-night", 1, 1.0, "team_started", leader="producer",
                                          teammates=["bass"]))
    (run / "bass-1.jsonl").write_text(event("bass", 1, 2.0, turn=0, input="a bass line"))
    return tmp_path / "runs"


@pytest.fixture
def client(tmp_path: Path, runs: Path) -> Iterator[TestClient]:
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), runs_dir=runs,
                     board_url=f"sqlite:///{tmp_path / 'board.db'}")
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as found:
        yield found


def test_runs_are_listed_and_replayed(client: TestClient) -> None:
    listed = client.get("/api/v1/runs").json()
    assert [(r["name"], r["kind"], r["logs"]) for r in listed["runs"]] == [("team-late-night-1", "team", 2)]
    replay = client.get("/api/v1/runs/team-late-night-1").json()
    assert [e["type"] for e in replay["events"]] == ["team_started", "turn_started"]
    assert (replay["kind"], replay["truncated"], replay["skipped"]) == ("team", False, 0)
    assert client.get("/api/v1/runs/..%2F..%2Fetc").status_code == 404
    assert client.get("/api/v1/runs/nope").json()["detail"].startswith("no run named 'nope'")
    assert client.get("/api/v1/runs", headers={"authorization": "Bearer wrong-token-wrong-token"}).status_code == 401


def test_the_board_is_read_and_never_created(client: TestClient, tmp_path: Path) -> None:
    missing = client.get("/api/v1/board")
    assert missing.status_code == 404 and "there is no board" in missing.json()["detail"]
    assert not (tmp_path / "board.db").exists()
    with Board.open(f"sqlite:///{tmp_path / 'board.db'}") as board:
        board.init("conductor")
        board.create_task("task-01")
        board.instruct("task-01", "write the bass", conductor_session="conductor")
    shown = client.get("/api/v1/board").json()
    assert [(t["task_id"], t["state"]) for t in shown["tasks"]] == [("task-00", "working"), ("task-01", "watching")]
    assert [m["message"] for m in shown["messages"]] == ["write the bass"]


def test_a_run_is_followed_live_over_sse(tmp_path: Path, runs: Path) -> None:
    with bandstand_server("serve", "--runs-dir", str(runs)) as served, httpx.Client(
            base_url=served.base, headers=served.headers, timeout=30) as http, \
            http.stream("GET", "api/v1/runs/team-late-night-1/stream") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        batches = []
        lines = stream.iter_lines()
        for text in lines:
            if text.startswith("data: "):
                batches.append(json.loads(text[6:]))
                if len(batches) == 1:  # everything so far; then a teammate writes on
                    with (runs / "team-late-night-1" / "bass-1.jsonl").open("a") as fh:
                        fh.write(event("bass", 2, 3.0, "turn_completed", turn=0, reply="C2 G2"))
                else:
                    break
        assert [e["seq"] for e in batches[0]["events"]] == [1, 1]
        assert [(e["session"], e["type"]) for e in batches[1]["events"]] == [("bass", "turn_completed")]

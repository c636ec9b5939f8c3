"""`--backend openai` against a local OpenAI-compatible server (a real HTTP peer): every session —
the conductor in the launcher, each musician in its own process — sends its skill as the system
message and its launch prompt as the first user message; the answers become the tasks' results."""

from __future__ import annotations

import json
from pathlib import Path

from tests.peers.openai_server import OpenAIServer

from .launching import run_launch


def test_an_openai_compatible_server_runs_the_board(tmp_path: Path) -> None:
    from bandstand.board.skilltext import skill

    with OpenAIServer() as server:
        url = f"sqlite:///{tmp_path / 'board.db'}"
        _, outcome = run_launch(url, tmp_path, "--musicians", "2", "--backend", "openai", "--tasks", "2",
                                OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY="test-key",
                                BANDSTAND_OPENAI_MODEL="local")
        bodies = [r["body"] for r in server.requests if r["path"].endswith("/chat/completions")]
    assert {t["state"] for t in outcome["tasks"].values()} == {"complete"}
    for task_id in ("task-01", "task-02"):
        answer = json.loads((tmp_path / "output" / "board" / task_id / "answer.md").read_text())
        assert answer["system"] == skill("musician")
        assert answer["echo"].startswith(f"You are musician-{task_id}, a musician on the bandstand board")
    systems = [m["content"] for b in bodies for m in b["messages"] if m["role"] == "system"]
    assert skill("conductor") in systems and skill("musician") in systems

"""Sessions listed one way: the CLI (`bandstand sessions list --json`, a real process),
HTTP (`GET /api/v1/projects`), MCP (the `list_projects` tool and the projects resource)
and `App.sessions` show the same rows with the same fields — the songs a client can open,
newest change first; the CLI adds the unfinished runs (a paused one here)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient

from bandstand.compose.api import Pipeline
from bandstand.jam.persona import resolve_members
from bandstand.producer import App
from bandstand.producer.sessions.studio import Studio
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig

TOKEN = "t" * 32
FIELDS = {"projectId", "path", "name", "prompt", "status", "complete", "genre", "key", "tempo", "timeSignature",
          "bars", "tracks", "revision", "createdAt", "updatedAt"}


def by_cli(root: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "bandstand", "sessions", "list", "--out", str(root), "--json"],
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def by_http(root: Path) -> list[dict[str, Any]]:
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), studio=Studio(root))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as client:
        rows: list[dict[str, Any]] = client.get("/api/v1/projects").json()["projects"]
    return rows


def by_mcp(root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")
    from mcp import Client

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    server = build_server(Band(Library(root, folders=True)))

    async def ask() -> tuple[Any, Any]:
        async with Client(server) as client:
            tool = await client.call_tool("list_projects", {})
            resource = await client.read_resource("bandstand://projects")
            return tool.structured_content, json.loads(resource.contents[0].text)

    tool, resource = anyio.run(ask)
    assert tool["root"] == resource["root"] == str(root)
    return tool["projects"], resource["projects"]


def test_every_client_lists_the_same_rows(composed: Callable[..., Path], tmp_path: Path) -> None:
    root = tmp_path / "songs"
    root.mkdir()
    song = composed("funk groove", 3, 16)
    shutil.copytree(song, root / song.name)
    revised = App(root).session(song.name)
    revised.apply_tools([{"name": "set_tempo", "args": {"tempo": 97}}], author="test")
    paused = Pipeline.create("bossa nova", seed=1, bars=8, out_dir=str(root), approval_gates=["harmony"],
                             render_audio=False, render_pianoroll=False).run()
    assert paused.status == "paused"

    listed = [s.wire() for s in App(root).sessions()]
    assert [r["projectId"] for r in listed] == [song.name]
    [row] = listed
    assert set(row) == FIELDS
    assert (row["revision"], row["tempo"], row["status"], row["complete"]) == (2, 97, "completed", True)
    assert "Bass" in row["tracks"] and row["genre"]

    cli = by_cli(root)
    assert [r["projectId"] for r in cli] == [paused.state.session_id, song.name]
    assert cli[1] == row and set(cli[0]) == FIELDS
    assert (cli[0]["status"], cli[0]["complete"], cli[0]["revision"]) == ("paused", False, None)
    assert by_http(root) == listed
    tool, resource = by_mcp(root)
    assert tool == resource == listed

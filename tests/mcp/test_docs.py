"""docs/mcp.md runs: the client configs start a server that lists the tools, the worked
session prints what the page says (over stdio, then over HTTP against a real `bandstand
serve`), and what `bandstand serve` prints about MCP is what the page shows."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.server.jam_process import bandstand_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == kind]


def test_the_doc_has_its_examples() -> None:
    assert [b.strip() for b in blocks("console")] == ["$ scripts/setup mcp"]
    assert len(blocks("json")) == 3 and len(blocks("python")) == 2 and len(blocks("text")) == 3
    # the install line installs the extra that holds the SDK
    requires = metadata.requires("bandstand") or []
    assert any(r.startswith("mcp") and 'extra == "mcp"' in r for r in requires)
    assert "mcp" in Path(__file__).resolve().parents[2].joinpath("scripts", "test").read_text()


@pytest.mark.parametrize("index", [0, 1])
async def test_the_stdio_configs_start_a_server(index: int, tmp_path: Path) -> None:
    config = json.loads(blocks("json")[index])["mcpServers"]["bandstand"]
    assert config["command"].endswith("/bin/bandstand") and config.get("type", "stdio") == "stdio"
    args = list(config["args"])
    args[args.index("--out") + 1] = str(tmp_path / "songs")
    # the command as installed here (the page's path is an example of one)
    server = StdioServerParameters(command=sys.executable, args=["-m", "bandstand", *args])
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"compose", "edit", "accept_variation", "set_track_volume"} <= names


def run_block(code: str) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    return printed.getvalue()


def test_the_worked_session_prints_what_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert run_block(blocks("python")[0]) == blocks("text")[1]
    [song] = (tmp_path / "songs").iterdir()
    assert (song / "export" / "full-arrangement.mid").is_file()


def test_the_http_session_and_what_serve_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    http = json.loads(blocks("json")[2])["mcpServers"]["bandstand"]
    shown = blocks("text")[0].splitlines()
    with bandstand_server("serve", "--out", str(tmp_path)) as served:
        assert served.proc.stdout is not None
        line = served.proc.stdout.readline()
        assert line.split(":", 1)[0] == shown[2].split(":", 1)[0] == "MCP"
        assert line.split()[1] == served.base + "mcp" and line.split()[2:] == shown[2].split()[2:]
        assert http["url"].endswith("/mcp") and http["headers"]["Authorization"].startswith("Bearer ")
        monkeypatch.setenv("URL", served.base.rstrip("/"))
        monkeypatch.setenv("TOKEN", served.token)
        assert run_block(blocks("python")[1]) == blocks("text")[2]

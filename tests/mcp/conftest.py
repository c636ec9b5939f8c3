"""An MCP server over a folder of sessions, talked to by the official SDK's client in
process (the transports have their own tests under tests/e2e), and a composed song to
copy into it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")

from bandstand.mcp import Band, BandstandServer, build_server
from bandstand.mcp.jam_tools import own_jam
from bandstand.producer.sessions.library import Library


@pytest.fixture(scope="session")
def composed_song(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 16-bar funk groove (seed 3), composed once per run, without audio: copy it before use."""
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("mcp-composed")
    result = compose_song("funk groove in E minor", seed=3, bars=16, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return result.session_dir


@pytest.fixture(autouse=True)
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's runs folder (a team's run log goes there, as the log view reads it)."""
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    return folder


@pytest.fixture
def song(composed_song: Path, root: Path) -> str:
    """This test's own copy of the composed song, in the server's folder: its id."""
    shutil.copytree(composed_song, root / composed_song.name)
    return composed_song.name


@pytest.fixture
def band(root: Path) -> Band:
    """What the server serves: any folder by path."""
    return Band(Library(root, folders=True))


@pytest.fixture
def server(band: Band) -> BandstandServer:
    """The stdio server's setup, with a jam of its own."""
    return build_server(band, lifespan=own_jam(band))


@pytest.fixture
def call(server: BandstandServer) -> Callable[..., Any]:
    """`await call(name, **arguments)` → the CallToolResult, through a fresh in-process client."""
    from mcp import Client

    async def run(name: str, progress: Any = None, **arguments: Any) -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, arguments, progress_callback=progress)
    return run

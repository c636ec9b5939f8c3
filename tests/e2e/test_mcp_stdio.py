"""`bandstand mcp` as a real process, driven by the official SDK's client over stdio:
the tools match the registry, a song's whole life (compose → edit → accept → undo → redo
→ export, the files read back by mido), resources, one-line mistakes, a cancel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")

from mcp import Client, StdioServerParameters

from tests.e2e import mcp_flow

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def bandstand_mcp(out: Path) -> Client:
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "bandstand", "mcp", "--out", str(out)]))


async def test_a_song_from_compose_to_export_over_stdio(tmp_path: Path) -> None:
    out = tmp_path / "songs"
    async with bandstand_mcp(out) as client:
        await mcp_flow.tools_match_the_registry(client)
        song = await mcp_flow.compose_edit_accept_undo_export(client, out)
        await mcp_flow.resources_read_back(client, song, out)
        await mcp_flow.mistakes_are_one_line_and_the_server_goes_on(client, song)
        await mcp_flow.ask_and_jam(client, song)


async def test_a_cancel_over_stdio_stops_the_work(tmp_path: Path) -> None:
    out = tmp_path / "songs"
    async with bandstand_mcp(out) as client:
        await mcp_flow.a_cancelled_compose_stops(client, out)

"""The MCP server at /mcp on a real `bandstand serve`, driven by the official SDK's client
over streamable HTTP with the server's token: the same song's life as over stdio, a
cancel, and the server's access rules (token, Origin, Host) on /mcp."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.e2e import mcp_flow
from tests.server.jam_process import Served, bandstand_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}


@pytest.fixture(scope="module")
def songs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("served-songs")


@pytest.fixture(scope="module")
def served(songs: Path) -> Iterator[Served]:
    with bandstand_server("serve", "--members", "beat,groove", "--out", str(songs)) as found:
        yield found


@contextlib.asynccontextmanager
async def mcp_client(served: Served, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client on /mcp, sending the token as `bandstand serve` printed it."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token or served.token}"}, timeout=120) as http, \
            Client(streamable_http_client(served.base + "mcp", http_client=http)) as client:
        yield client


async def test_a_song_from_compose_to_export_over_http(served: Served, songs: Path) -> None:
    async with mcp_client(served) as client:
        await mcp_flow.tools_match_the_registry(client)
        song = await mcp_flow.compose_edit_accept_undo_export(client, songs)
        await mcp_flow.resources_read_back(client, song, songs)
        await mcp_flow.mistakes_are_one_line_and_the_server_goes_on(client, song)
        await mcp_flow.ask_and_jam(client, song)
        outside = await client.call_tool("export", {"project": song, "format": "png", "out": "/tmp"})
        assert outside.is_error and outside.content[0].text.startswith("out '/tmp' is outside the project")


async def test_the_studio_tools_are_those_of_tools_json(served: Served) -> None:
    """What /api/v1/protocol/tools.json tells HTTP clients and what /mcp offers MCP clients are
    the same tools: names, descriptions and parameters (MCP adds `project`)."""
    document = httpx.get(served.base + "api/v1/protocol/tools.json", headers=served.headers).json()["tools"]
    async with mcp_client(served) as client:
        offered = {t.name: t for t in (await client.list_tools()).tools}
    assert [t["name"] for t in document] == [name for name in offered if name in {t["name"] for t in document}]
    for tool in document:
        mcp_tool = offered[tool["name"]]
        assert mcp_tool.description == tool["description"]
        schema = dict(mcp_tool.input_schema)
        assert schema["properties"].pop("project")["type"] == "string"
        assert schema["properties"] == tool["parameters"].get("properties", {})
        assert schema["required"] == ["project", *tool["parameters"].get("required", [])]


async def test_the_jam_tools_drive_the_jam_the_page_plays(served: Served) -> None:
    async with mcp_client(served) as client:
        assert not (await client.call_tool("jam_start", {"members": ["BEAT"]})).is_error
        page = httpx.get(served.base + "api/v1/jam/state", headers=served.headers).json()
        assert page["running"] is True
        httpx.post(served.base + "api/v1/jam/stop", headers=served.headers)
        assert (await client.call_tool("jam_state", {})).structured_content["running"] is False


async def test_a_cancel_over_http_stops_the_work(served: Served, songs: Path) -> None:
    async with mcp_client(served) as client:
        await mcp_flow.a_cancelled_compose_stops(client, songs)


def post(served: Served, headers: dict[str, str], path: str = "mcp") -> Any:
    return httpx.post(served.base + path, json=INITIALIZE, headers={
        "accept": "application/json, text/event-stream", **headers})


def test_mcp_answers_at_its_own_path_with_the_token(served: Served) -> None:
    answer = post(served, served.headers)
    assert answer.status_code == 200, answer.text  # no redirect to /mcp/
    assert '"serverInfo"' in answer.text and '"bandstand"' in answer.text


@pytest.mark.parametrize("auth", [{}, {"authorization": "Bearer wrong-token-wrong-token"}])
def test_mcp_needs_the_token(served: Served, auth: dict[str, str]) -> None:
    answer = post(served, auth)
    assert answer.status_code == 401 and "access token" in answer.json()["detail"]


def test_mcp_refuses_a_foreign_origin_or_host_even_with_the_token(served: Served) -> None:
    answer = post(served, {**served.headers, "origin": "https://evil.example"})
    assert answer.status_code == 403 and "not accepted" in answer.json()["detail"]
    port = served.base.rsplit(":", 1)[1].strip("/")
    answer = post(served, {**served.headers, "host": f"evil.example:{port}"})
    assert answer.status_code == 403 and "does not answer to Host" in answer.json()["detail"]


async def test_the_sdk_client_with_a_wrong_token_gets_nothing(served: Served) -> None:
    with pytest.raises(ExceptionGroup) as caught:  # the client's task groups carry the refusal out
        async with mcp_client(served, token="not-the-token-not-the-token") as client:
            await client.list_tools()
    assert caught.group_contains(MCPError, depth=2)

"""The branch tools through the official MCP client: make a branch, change it, check out
main, merge disjoint changes, the graph — and a bad name, a self-merge and clashing changes
refused with the CLI's one line, nothing changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bandstand.mcp import BandstandServer
from bandstand.producer.sessions.projects import open_project


@pytest.fixture
def call(server: BandstandServer) -> Callable[..., Any]:
    """`await call(tool, {arguments})` (the conftest's takes them as keywords, and these tools have a `name`)."""
    from mcp import Client

    async def run(tool: str, arguments: dict[str, Any]) -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)
    return run


async def test_branch_checkout_merge_and_the_graph(call: Callable[..., Any], song: str, root: Path) -> None:
    made = await call("create_branch", {"project": song, "name": "soft"})
    assert not made.is_error and made.structured_content["current"] == "soft"
    changed = await call("set_track_volume", {"project": song, "track": "bass", "volume": 0.25})
    assert not changed.is_error and changed.structured_content["revision"] == 2
    back = await call("checkout", {"project": song, "target": "main"})
    assert back.structured_content == {"project": song, "branch": "main", "revision": 1}
    assert {t.name: t.volume for t in open_project(root / song).head.tracks}["Bass"] != 0.25
    await call("set_track_pan", {"project": song, "track": "drums", "pan": 0.2})
    merged = await call("merge_branch", {"project": song, "branch": "soft"})
    assert not merged.is_error, merged.content[0].text
    assert (merged.structured_content["revision"], merged.structured_content["merged"]) == (4, 2)
    head = {t.name: t for t in open_project(root / song).head.tracks}
    assert (head["Bass"].volume, head["Drums"].pan) == (0.25, 0.2)
    listed = (await call("list_branches", {"project": song})).structured_content
    assert [(g["graph"], g["revision"]) for g in listed["graph"]][:3] == [("*", 4), ("|\\", None), ("* |", 3)]


async def test_mistakes_are_the_cli_line_and_change_nothing(call: Callable[..., Any], song: str, root: Path) -> None:
    await call("create_branch", {"project": song, "name": "a"})
    await call("set_track_volume", {"project": song, "track": "bass", "volume": 0.25})
    await call("checkout", {"project": song, "target": "main"})
    await call("set_track_volume", {"project": song, "track": "bass", "volume": 0.5})
    head = (root / song / "revisions" / "HEAD.json").read_bytes()
    for name, arguments, words in (
            ("create_branch", {"name": "x/y"}, "has '/' or '..'"),
            ("merge_branch", {"branch": "main"}, "cannot merge branch 'main' into itself"),
            ("merge_branch", {"branch": "zz"}, "there is no branch 'zz'"),
            ("merge_branch", {"branch": "a"}, "both branches changed Bass volume"),
            ("checkout", {"target": ".."}, "has '/' or '..'")):
        answer = await call(name, {"project": song, **arguments})
        assert answer.is_error and words in answer.content[0].text, answer.content[0].text
        assert "\n" not in answer.content[0].text.strip()
    assert (root / song / "revisions" / "HEAD.json").read_bytes() == head

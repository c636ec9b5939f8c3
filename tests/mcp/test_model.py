"""With a language model configured (a local OpenAI-compatible peer, real HTTP), `ask`
answers in the model's words and `edit` lets the model read what the rules do not know —
the same engine `bandstand ask` and `bandstand edit --backend` run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.mcp import Band, build_server
from bandstand.producer.sessions.library import Library
from bandstand.producer.sessions.projects import open_project
from tests.peers.studio_model import ANSWER, StudioModel


@pytest.fixture
def peer() -> Iterator[StudioModel]:
    with StudioModel() as server:
        yield server


async def test_ask_and_edit_use_the_model(peer: StudioModel, root: Path, song: str) -> None:
    backend = OpenAIBackend(base_url=peer.url + "/v1", api_key="test-key", model="local", backoff=0.001)
    async with Client(build_server(Band(Library(root, folders=True), backend=backend))) as client:
        said = await client.call_tool("ask", {"project": song, "question": "why does the bridge feel flat?"})
        assert not said.is_error, said.content[0].text
        assert said.structured_content["answer"] == ANSWER
        # words the rules do not read (they read "let it glow" as a mood, every part, as HTTP does): the
        # model routes them (COMPOSING) and reads them into typed edits, as the studio stream does
        made = await client.call_tool("edit", {"project": song, "request": "give it that sunset feel"})
        assert not made.is_error, made.content[0].text
        proposal = made.structured_content
        assert proposal["kind"] == "variation" and proposal["affected_parts"] == ["bass"]  # the model's edit
    assert open_project(root / song).revision == 1  # a variation: nothing changes before accept
    asked = [json.dumps(r["body"]) for r in peer.requests]
    assert any("propose_edits" in body and "give it that sunset feel" in body for body in asked)

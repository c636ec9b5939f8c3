"""Reading a request with a language model: a local OpenAI-compatible server (real HTTP
on 127.0.0.1) plays a model that reads free text into edits — calling the offered
`propose_edits` tool, or, as a model without tools does, answering in JSON mode; the
rule tables correct what it gets wrong, and a useless or missing reply leaves the rules'
reading."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.craft.edits import KeyEdit, StyleEdit, TempoEdit
from bandstand.errors import InvalidInput
from bandstand.producer.requests.iteration import edit, read
from tests.peers.openai_server import OpenAIServer

READINGS = {  # what our "model" answers for a request it is sent (anything else: no edits)
    "give the low end more bounce": [{"kind": "style", "override": {"role": "bass", "knobs": {"density": 0.3,
                                                                                          "syncopation": 0.2}}}],
    "switch to F# minor and give the low end more bounce": [
        {"kind": "key", "tonic": "F", "mode": "major"},  # wrong: the rules read F# minor
        {"kind": "style", "override": {"role": "bass", "knobs": {"density": 0.3}}},
        {"kind": "style", "override": {"role": "kazoo", "knobs": {"density": 2}}},  # dropped: not valid
    ],
    "make it feel like a late night drive": [{"kind": "tempo", "delta": -8},
                                              {"kind": "style", "override": {"role": "*",
                                                                            "knobs": {"brightness": -0.3}}}],
}


def _request(user: str) -> str:
    return user.splitlines()[0].removeprefix("Request: ").strip()


def model(user: str, system: str, n: int) -> str:
    """The model without tools: JSON in the text."""
    return json.dumps({"edits": READINGS.get(_request(user), [])})


class ToolModel(OpenAIServer):
    """The model with tools: it calls the one tool it is offered, with the edits it read."""

    def tool_reply(self, body: dict[str, Any], user: str) -> tuple[str, list[dict[str, Any]]] | None:
        tools = body.get("tools") or []
        if not tools:
            return None
        function = tools[0]["function"]
        assert "edits" in function["parameters"]["properties"]  # the typed edit schema is the tool's
        arguments = json.dumps({"edits": READINGS.get(_request(user), [])})
        return "", [{"id": "call_0001", "type": "function", "function": {"name": function["name"],
                                                                         "arguments": arguments}}]


@pytest.fixture(params=["tools", "json"])
def backend(request: pytest.FixtureRequest) -> Iterator[OpenAIBackend]:
    server = ToolModel() if request.param == "tools" else OpenAIServer()
    with server:
        if request.param == "json":  # the tool model says nothing in its text: only its call counts
            server.reply_for = model
        yield OpenAIBackend(base_url=server.url + "/v1", api_key="test-key", model="local", backoff=0.001)


def test_the_model_reads_what_the_rules_do_not_know(backend: OpenAIBackend) -> None:
    assert read("give the low end more bounce").edits == ()  # the rules alone do not understand it
    edits = read("give the low end more bounce", backend).edits
    assert len(edits) == 1 and isinstance(edits[0], StyleEdit) and edits[0].override.role == "bass"


def test_the_tables_correct_the_model(backend: OpenAIBackend) -> None:
    edits = read("switch to F# minor and give the low end more bounce", backend).edits
    assert [e for e in edits if isinstance(e, KeyEdit)] == [KeyEdit(tonic="F#", mode="minor")]
    styles = [e for e in edits if isinstance(e, StyleEdit)]
    assert [s.override.role for s in styles] == ["bass"]  # the kazoo did not validate


def test_a_model_edit_becomes_a_variation(backend: OpenAIBackend, composed_copy: Callable[..., Path]) -> None:
    root = composed_copy("funk groove", 3, 32)
    outcome = edit(root, "make it feel like a late night drive", backend=backend)
    assert outcome.variation is not None and any(isinstance(e, TempoEdit) for e in outcome.edits)
    assert "tempo" in outcome.radius.changed  # type: ignore[union-attr]


def test_an_unreachable_model_leaves_the_rules(composed_copy: Callable[..., Path]) -> None:
    gone = OpenAIBackend(base_url="http://127.0.0.1:9/v1", api_key="test-key", retries=1, backoff=0.001,
                         request_timeout=2)
    assert read("make the bass busier", gone).understood
    with pytest.raises(InvalidInput, match="not understood"):
        edit(composed_copy(), "give the low end more bounce", backend=gone)

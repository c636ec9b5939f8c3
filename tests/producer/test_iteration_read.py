"""Reading a request with a language model: a local OpenAI-compatible server (real HTTP
on 127.0.0.1, JSON mode) plays a model that reads free text into edits; the rule tables
correct what it gets wrong, and a useless or missing reply leaves the rules' reading."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.craft.edits import KeyEdit, StyleEdit, TempoEdit
from bandstand.errors import InvalidInput
from bandstand.producer.iteration import edit, read
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


def model(user: str, system: str, n: int) -> str:
    text = user.splitlines()[0].removeprefix("Request: ").strip()  # the backend appends the schema
    assert '"kind"' in user  # the model is shown the typed edit schema
    return json.dumps({"edits": READINGS.get(text, [])})


@pytest.fixture
def backend() -> Iterator[OpenAIBackend]:
    with OpenAIServer() as server:
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

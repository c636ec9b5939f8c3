"""The anthropic and openai backends against local HTTP peers (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel

from bandstand.agents.anthropic_backend import AnthropicBackend
from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.agents.remote import import_client
from bandstand.errors import BackendUnavailable, CircuitOpen, TurnFailed, TurnTimeout
from bandstand.runtime import Session, SessionLimits, SessionState
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.openai_server import OpenAIServer


class Echo(BaseModel):
    echo: str


KINDS = ["openai-stream", "openai-plain", "anthropic-stream", "anthropic-plain"]


@pytest.fixture(params=KINDS)
async def peer(
    request, openai_server: OpenAIServer, anthropic_server: AnthropicServer
) -> AsyncIterator[tuple]:
    kind, mode = request.param.split("-")
    common = {
        "api_key": "test-key",
        "stream": mode == "stream",
        "backoff": 0.001,
        "breaker_threshold": 2,
    }
    if kind == "openai":
        backend = OpenAIBackend(base_url=openai_server.url + "/v1", model="local-model", **common)
        server = openai_server
    else:
        backend = AnthropicBackend(
            base_url=anthropic_server.url, model="claude-haiku-4-5", **common
        )
        server = anthropic_server
    yield backend, server
    await backend.aclose()


async def test_multi_turn_history_and_persona(peer) -> None:
    backend, _server = peer
    events: list[dict] = []
    async with Session(backend, persona="You are GROOVE.") as session:
        session.add_listener(events.append)
        first = json.loads((await session.send("one")).text)
        second = json.loads((await session.send("two")).text)
    assert first["echo"] == "one" and first["system"] == "You are GROOVE."
    # the whole conversation is sent each turn
    assert second["messages"] == first["messages"] + 2
    deltas = [e for e in events if e["type"] == "text_delta"]
    if backend.stream:
        assert len(deltas) > 2  # streamed in pieces
    assert "".join(e["text"] for e in deltas if e["turn"] == 1) == json.dumps(second)


async def test_json_reply_is_requested_and_validated(peer) -> None:
    backend, server = peer
    async with Session(backend) as session:
        verdict = await session.ask("hello", Echo, fallback=Echo(echo="fallback"))
    assert verdict.status == "ok" and verdict.value.echo.startswith("hello")
    body = server.requests[-1]["body"]
    if isinstance(backend, OpenAIBackend):
        assert body["response_format"] == {"type": "json_object"}
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "reply"}
        assert body["tools"][0]["input_schema"]["required"] == ["echo"]
        assert verdict.turn is not None and verdict.turn.structured["echo"] == "hello"


async def test_retry_after_transient_failures(peer) -> None:
    backend, server = peer
    async with Session(backend) as session:
        reply = json.loads((await session.send("[[flaky:2]] try")).text)
    assert reply["echo"] == "[[flaky:2]] try"
    assert len(server.requests) == 3


async def test_bad_request_is_not_retried(peer) -> None:
    backend, server = peer
    async with Session(backend) as session:
        with pytest.raises(TurnFailed, match="HTTP 400") as info:
            await session.send("[[status:400]]")
    assert not info.value.retryable and len(server.requests) == 1


async def test_breaker_opens_after_repeated_server_errors(peer) -> None:
    backend, server = peer
    async with Session(backend, limits=SessionLimits(max_consecutive_failures=10)) as session:
        for _ in range(2):
            with pytest.raises(TurnFailed, match="HTTP 503"):
                await session.send("[[status:503]]")
        sent = len(server.requests)
        with pytest.raises(CircuitOpen):
            await session.send("fine")
        assert len(server.requests) == sent  # refused without calling out
    assert sent == 2 * backend.retries


async def test_hang_times_out_then_next_turn_works(peer) -> None:
    backend, _server = peer
    async with Session(backend, limits=SessionLimits(turn_timeout=30)) as session:
        with pytest.raises(TurnTimeout):
            await session.send("[[hang]]", timeout=0.3)
        assert json.loads((await session.send("after")).text)["echo"] == "after"
        assert session.state is SessionState.WAITING


async def test_wrong_key_says_so(peer) -> None:
    backend, _server = peer
    backend.api_key = "wrong"
    async with Session(backend) as session:
        with pytest.raises(TurnFailed, match="check the API key"):
            await session.send("x")


async def test_dropped_stream_is_retried_then_fails(openai_server: OpenAIServer) -> None:
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key", backoff=0.001)
    async with Session(backend) as session:
        with pytest.raises(TurnFailed) as info:
            await session.send("[[drop]] long reply please")
    assert info.value.retryable and len(openai_server.requests) == backend.retries
    await backend.aclose()


async def test_openai_json_mode_auto_falls_back(openai_server: OpenAIServer) -> None:
    openai_server.json_mode = False
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key")
    async with Session(backend) as session:
        first = await session.ask("a", Echo, fallback=Echo(echo="fb"))
        second = await session.ask("b", Echo, fallback=Echo(echo="fb"))
    assert first.status == second.status == "ok"
    formats = ["response_format" in r["body"] for r in openai_server.requests]
    assert formats == [True, False, False]  # refused once, then not asked again
    await backend.aclose()


async def test_anthropic_prompt_caching_and_cost(anthropic_server: AnthropicServer) -> None:
    backend = AnthropicBackend(
        base_url=anthropic_server.url, api_key="test-key", model="claude-haiku-4-5"
    )
    persona = "You are ARIA, who plays the melody over the band. " * 4
    async with Session(backend, persona=persona) as session:
        first = await session.send("one")
        second = await session.send("two")
    assert first.usage.cache_write_tokens > 0 and first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens
    assert anthropic_server.requests[0]["body"]["system"][0]["cache_control"] == {
        "type": "ephemeral"
    }
    # haiku list price: $1/MTok in, $5 out, $0.10 cache read, $1.25 cache write
    u = second.usage
    expected = (u.input_tokens * 1 + u.output_tokens * 5 + u.cache_read_tokens * 0.1) / 1e6
    assert u.cost_usd == pytest.approx(expected)
    assert session.cost_usd == pytest.approx(first.usage.cost_usd + second.usage.cost_usd)
    await backend.aclose()


async def test_short_persona_is_not_cached(anthropic_server: AnthropicServer) -> None:
    backend = AnthropicBackend(base_url=anthropic_server.url, api_key="test-key")
    async with Session(backend, persona="Hi.") as session:
        await session.send("one")
        second = await session.send("two")
    assert second.usage.cache_read_tokens == 0 and second.usage.cache_write_tokens == 0
    await backend.aclose()


async def test_budget_ends_the_session(anthropic_server: AnthropicServer) -> None:
    backend = AnthropicBackend(
        base_url=anthropic_server.url, api_key="test-key", price=[10000.0, 10000.0]
    )
    session = Session(backend, limits=SessionLimits(budget_usd=0.05))
    await session.send("expensive")
    await session.wait()
    assert session.state is SessionState.COMPLETED and session.end_reason == "budget"
    await backend.aclose()


async def test_sixteen_http_sessions_one_failing(openai_server: OpenAIServer) -> None:
    backend = OpenAIBackend(base_url=openai_server.url + "/v1", api_key="test-key", backoff=0.001)
    sessions = [Session(backend, name=f"s{i}") for i in range(16)]

    async def play(i: int, session: Session) -> list[str]:
        out = []
        for t in range(3):
            try:
                text = "[[status:400]]" if i == 3 else f"s{i} t{t}"
                out.append(json.loads((await session.send(text)).text)["echo"])
            except TurnFailed:
                out.append("failed")
        return out

    results = await asyncio.gather(*(play(i, s) for i, s in enumerate(sessions)))
    await asyncio.gather(*(s.stop() for s in sessions))
    for i, res in enumerate(results):
        assert res == (["failed"] * 3 if i == 3 else [f"s{i} t{t}" for t in range(3)])
    assert backend.breaker.state == "closed"
    await backend.aclose()


def test_missing_client_library_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(BackendUnavailable, match=r"pip install -e '\.\[llm\]'"):
        OpenAIBackend().client()
    with pytest.raises(BackendUnavailable, match="no_such_client"):
        import_client("no_such_client", "test")


async def test_anthropic_dropped_stream_is_retried_then_fails(
    anthropic_server: AnthropicServer,
) -> None:
    backend = AnthropicBackend(base_url=anthropic_server.url, api_key="test-key", backoff=0.001)
    async with Session(backend) as session:
        with pytest.raises(TurnFailed, match="stream ended") as info:
            await session.send("[[drop]] long reply please")
    assert info.value.retryable and len(anthropic_server.requests) == backend.retries
    await backend.aclose()


@pytest.mark.parametrize("stream", [True, False])
async def test_anthropic_structured_outputs(
    anthropic_server: AnthropicServer, stream: bool
) -> None:
    backend = AnthropicBackend(
        base_url=anthropic_server.url, api_key="test-key", json_via="output_config", stream=stream
    )
    async with Session(backend) as session:
        verdict = await session.ask("[[say]] plain words", Echo, fallback=Echo(echo="fallback"))
    body = anthropic_server.requests[0]["body"]
    assert body["output_config"]["format"]["schema"]["required"] == ["echo"] and "tools" not in body
    # the server returns JSON that lacks `echo`: repaired on the second turn
    assert verdict.status == "repaired" and verdict.value.echo.startswith(
        "Your last reply was not valid"
    )
    await backend.aclose()

"""The studio's model paths against the Anthropic Messages peer (streamed and
plain; real HTTP) and a `claude` process (the fake CLI speaking Claude Code's
stream-json and its SDK MCP bridge): the model gets the EDITING tools from the
registry, calls several in one turn, gets each result back; every call is
validated before it touches the project — a made-up id is a `toolError` (the
Anthropic model reads it and fixes the call; the CLI's model does not retry, so
the request fails and nothing changes); three failed calls stop; a question is
answered in the model's words. (The OpenAI wire: test_stream_model.py.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bandstand.agents import ClaudeCodeBackend, ProcessRegistry
from bandstand.agents.anthropic_backend import AnthropicBackend
from bandstand.producer.sessions.studio import Studio, Timeouts
from tests.peers.claude import fake_claude_bin
from tests.peers.studio_model import ANSWER, PERSONA_REPLIES, StudioAnthropic
from tests.producer.streams import one, run, studio_with, types


class Peer:
    """A studio with a model backend, and what the model was offered."""

    def __init__(self, kind: str, studio: Studio, project: str, offered: Callable[[], set[str]]) -> None:
        self.kind, self.studio, self.project, self.offered = kind, studio, project, offered


@pytest.fixture(params=["anthropic-stream", "anthropic-plain", "claude-code"])
def peer(request: pytest.FixtureRequest, composed: Callable[..., Path], tmp_path: Path) -> Iterator[Peer]:
    st, pid = studio_with(composed, tmp_path)
    st.timeouts = Timeouts(request=60, generator=30, model_turn=20)
    if request.param.startswith("anthropic"):
        with StudioAnthropic() as server:
            st.backend = AnthropicBackend(base_url=server.url, api_key="test-key", model="claude-haiku-4-5",
                                          stream=request.param.endswith("stream"), backoff=0.001)
            yield Peer("anthropic", st, pid, lambda: {t["name"] for r in server.requests
                                                      for t in r["body"].get("tools") or []})
        return
    log = tmp_path / "stdin.jsonl"
    binary = fake_claude_bin(tmp_path / "bin", env={"FAKE_CLAUDE_LOG": str(log),
                                                    "FAKE_CLAUDE_PERSONAS": json.dumps(PERSONA_REPLIES)})
    st.backend = ClaudeCodeBackend(bin=str(binary), registry=ProcessRegistry(tmp_path / "pids"), init_timeout=10,
                                   term_grace=0.5)

    def listed() -> set[str]:  # the tools the CLI listed from the host's MCP bridge
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        answers = [m["response"]["response"].get("mcp_response", {}) for m in lines
                   if m.get("type") == "control_response"]
        return {t["name"] for a in answers for t in (a.get("result") or {}).get("tools", [])}

    try:
        yield Peer("claude-code", st, pid, listed)
    finally:
        st.backend.registry.reap_own()
        assert st.backend.registry.entries() == []  # no claude process is left running


def calls(*items: tuple[str, dict[str, Any]], retry: bool = False) -> str:
    script = json.dumps([{"name": n, "arguments": a} for n, a in items])
    return f"[[calls]] {script}" + (" [[retry]]" if retry else "")


def test_the_model_calls_several_tools_and_a_made_up_id_is_refused(peer: Peer) -> None:
    st, pid = peer.studio, peer.project
    events = run(st, calls(("set_track_volume", {"track": "trk_made_up_0001", "volume": 0.5}),
                           ("mute_track", {"track": "Drums"}), retry=True), pid)
    state = events[0]
    assert (state["state"], state["executionMode"]) == ("EDITING", "apply") and state["intent"].startswith("llm.")
    assert [s["toolName"] for s in one(events, "plan")["steps"]] == ["set_track_volume", "mute_track"]
    error = one(events, "toolError")
    assert error["stepId"] == "s1" and "no track 'trk_made_up_0001'" in error["error"]
    offered = peer.offered()
    assert {"set_track_volume", "mute_track"} <= offered and "generate_part" not in offered
    if peer.kind == "anthropic":  # it reads the error and calls the tool again on a real track
        applied = [(e["name"], e["stepId"]) for e in events if e["type"] == "toolCall"]
        assert applied == [("mute_track", "s2"), ("set_track_volume", "s1")]
        assert events[-1]["success"] is True and events[-1]["revision"] == 2
        assert next(t for t in st.library.session(pid).head.tracks if t.name == "Drums").mute
    else:  # the CLI's model answers the results without trying again: all or nothing
        updates = {e["stepId"]: e["status"] for e in events if e["type"] == "planStepUpdate"}
        assert updates == {"s1": "failed", "s2": "completed"}
        assert types(events)[-2:] == ["error", "complete"] and "nothing was changed" in events[-1]["error"]
        assert st.library.session(pid).revision == 1


def test_three_failed_calls_stop_and_nothing_changes(peer: Peer) -> None:
    st, pid = peer.studio, peer.project
    events = run(st, calls(*[("set_track_pan", {"track": f"ghost-{i}", "pan": 0.2}) for i in range(4)]), pid)
    assert len([e for e in events if e["type"] == "toolError"]) == 3
    updates = {e["stepId"]: e["status"] for e in events if e["type"] == "planStepUpdate"}
    assert updates == {"s1": "failed", "s2": "failed", "s3": "failed", "s4": "skipped"}
    assert "stopped after 3 failed tool calls" in events[-1]["error"]
    assert st.library.session(pid).revision == 1


def test_a_question_is_answered_in_the_models_words(peer: Peer) -> None:
    events = run(peer.studio, "why does the bridge feel flat?", peer.project)
    assert types(events)[:2] == ["state", "reasoning"] and events[-1]["success"] is True
    assert "".join(e["content"] for e in events if e["type"] == "content") == ANSWER

"""With a language model configured (a local OpenAI-compatible peer, real HTTP):
what the rules do not route, the model classifies; EDITING runs as real tool
calling — the model gets the EDITING tools, every call is validated before it
touches the project, a made-up id is a `toolError` the model reads and fixes,
three failed calls stop the retries and nothing changes —; REASONING streams the
model's words as `content`; COMPOSING reads the model's typed edits."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.producer.sessions.studio import Studio, Timeouts
from tests.peers.studio_model import ANSWER, StudioModel
from tests.producer.streams import one, run, studio_with, types


@pytest.fixture
def peer() -> Iterator[StudioModel]:
    with StudioModel() as server:
        yield server


@pytest.fixture
def studio(composed: Callable[..., Path], tmp_path: Path, peer: StudioModel) -> tuple[Studio, str]:
    st, pid = studio_with(composed, tmp_path)
    st.backend = OpenAIBackend(base_url=peer.url + "/v1", api_key="test-key", model="local", backoff=0.001)
    st.timeouts = Timeouts(request=60, generator=30, model_turn=20)
    return st, pid


def calls(*items: tuple[str, dict[str, object]], retry: bool = False) -> str:
    script = json.dumps([{"name": n, "arguments": a} for n, a in items])
    return f"[[calls]] {script}" + (" [[retry]]" if retry else "")


def test_the_model_edits_with_tools_and_fixes_a_made_up_id(studio: tuple[Studio, str], peer: StudioModel) -> None:
    st, pid = studio
    prompt = calls(("set_track_volume", {"track": "trk_made_up_0001", "volume": 0.5}),
                   ("mute_track", {"track": "Drums"}), retry=True)
    events = run(st, prompt, pid)
    state = events[0]
    assert (state["state"], state["executionMode"]) == ("EDITING", "apply") and state["intent"].startswith("llm.")
    assert [s["toolName"] for s in one(events, "plan")["steps"]] == ["set_track_volume", "mute_track"]
    error = one(events, "toolError")
    assert "trk_made_up_0001" in error["error"] and error["stepId"] == "s1"
    applied = [(e["name"], e["stepId"]) for e in events if e["type"] == "toolCall"]
    assert applied == [("mute_track", "s2"), ("set_track_volume", "s1")]
    assert events[-1]["success"] is True and events[-1]["revision"] == 2
    head = st.library.session(pid).head
    assert next(t for t in head.tracks if t.name == "Drums").mute
    offered = {t["function"]["name"] for t in peer.requests[-1]["body"]["tools"]}
    assert "generate_part" not in offered and {"set_track_volume", "mute_track"} <= offered
    answered = [m for m in peer.requests[-2]["body"]["messages"] if m["role"] == "tool"]
    assert answered and answered[0]["content"].startswith("error: no track 'trk_made_up_0001'")


def test_three_failed_calls_stop_and_nothing_changes(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    bad = [("set_track_pan", {"track": f"ghost-{i}", "pan": 0.2}) for i in range(4)]
    events = run(st, calls(*bad, retry=True), pid)
    assert len([e for e in events if e["type"] == "toolError"]) == 3
    updates = {e["stepId"]: e["status"] for e in events if e["type"] == "planStepUpdate"}
    assert updates == {"s1": "failed", "s2": "failed", "s3": "failed", "s4": "skipped"}
    assert types(events)[-2:] == ["error", "complete"] and "stopped after 3 failed tool calls" in events[-1]["error"]
    assert st.library.session(pid).revision == 1


def test_a_question_streams_the_models_answer(studio: tuple[Studio, str], peer: StudioModel) -> None:
    st, pid = studio
    events = run(st, "why does the bridge feel flat?", pid)
    assert types(events)[:2] == ["state", "reasoning"] and types(events)[-1] == "complete"
    pieces = [e["content"] for e in events if e["type"] == "content"]
    assert len(pieces) > 1 and "".join(pieces) == ANSWER
    sent = peer.requests[-1]["body"]["messages"][-1]["content"]
    assert "notes_per_bar" in sent and "chord_changes_per_bar" in sent  # the figures are its context


def test_a_request_the_rules_do_not_know_is_composed_from_the_models_reading(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "give the low end a rolling feel", pid)
    assert events[0]["state"] == "COMPOSING" and one(events, "generatorComplete")["role"] == "bass"
    assert events[-1]["variationId"] == one(events, "meta")["variationId"]

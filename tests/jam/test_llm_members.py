"""LLM members through the local OpenAI-compatible peer: told why a pattern was rejected (notes
named), and a member whose turns timed out keeps its conversation."""

from __future__ import annotations

import json
import threading

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.jam.engine import JamEngine, algorithmic_backend
from bandstand.jam.persona import resolve_members
from tests.jam.helpers import Recorder

GOOD = {"pattern": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")', "thoughts": "Roots.", "reaction": "Hi BEAT.", "comply_with_boss": True}
CHROMATIC = 'note("c2 c#2 e2 f#2 b1").s("sawtooth")'


def _engine(server, timeout: float, rec: Recorder) -> JamEngine:
    backend = OpenAIBackend(base_url=server.url + "/v1", api_key="test-key", model="local", retries=1)
    return JamEngine(resolve_members(["BEAT", "GROOVE"]), emitter=rec.emitter, turn_timeout=timeout,
                     backend=lambda p, s: backend if p.name == "GROOVE" else algorithmic_backend(p, s))


def _last_turn(server) -> str:
    return server.requests[-1]["body"]["messages"][-1]["content"]


async def test_a_rejected_member_is_told_why_in_its_next_turn(openai_server) -> None:
    replies = [GOOD, {**GOOD, "pattern": CHROMATIC}]
    openai_server.reply_for = lambda user, system, n: json.dumps(replies.pop(0) if replies else GOOD)
    rec = Recorder()
    engine = _engine(openai_server, 10, rec)
    await engine.start()
    try:
        await engine.directive("@GROOVE go chromatic")
        groove = engine.members["GROOVE"]
        assert groove.status == "error" and groove.pattern == GOOD["pattern"]
        note = rec.of("agent_thought")[-1]["note"]
        assert "B, C#, E, F#" in note and "MIDI" not in note  # the chat names the notes too
        await engine.directive("@GROOVE try again")
        turn = _last_turn(openai_server)
        assert "YOUR LAST REPLY WAS REJECTED: " in turn and "(B, C#, E, F#)" in turn and CHROMATIC in turn
        assert "MIDI" not in turn
        await engine.directive("@GROOVE simpler")  # told once: the accepted reply clears it
        assert "REJECTED" not in _last_turn(openai_server)
    finally:
        await engine.stop()


async def test_a_member_that_timed_out_keeps_its_memory(openai_server) -> None:
    hang = threading.Event()
    release = threading.Event()

    def reply(user: str, system: str, n: int) -> str:
        if hang.is_set():
            release.wait(120)  # the model does not answer in time (released when the test ends)
        return json.dumps(GOOD)

    openai_server.reply_for = reply
    rec = Recorder()
    engine = _engine(openai_server, 2, rec)
    await engine.start()
    try:
        groove = engine.members["GROOVE"]
        hang.set()
        for _ in range(3):  # three timeouts in a row end a session
            await engine.directive("@GROOVE simpler")
            assert groove.status == "timeout" and groove.pattern == GOOD["pattern"]
        assert groove.session.ended
        hang.clear()
        await engine.directive("@GROOVE busier")
        assert groove.status == "idle" and not groove.session.ended
        messages = openai_server.requests[-1]["body"]["messages"]
        said = [m["content"] for m in messages if m["role"] == "user"]
        assert said[0].startswith("ROUND 1 — JAM CONTEXT") and "BOSS SAYS TO YOU: busier" in said[-1]
        assert any(m["role"] == "assistant" and "Roots." in m["content"] for m in messages)
    finally:
        release.set()
        await engine.stop()

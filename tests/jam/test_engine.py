"""The jam engine with real sessions: routing, context, validation, fallback, stop."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.errors import InvalidInput
from bandstand.jam.context import MusicalContext
from bandstand.jam.engine import JamEngine, algorithmic_backend
from bandstand.jam.persona import resolve_members
from bandstand.runtime import SessionState
from tests.jam.helpers import Recorder, pitch_classes
from tests.peers.claude import children_of

D_MAJOR = {2, 4, 6, 7, 9, 11, 1}


def band() -> list:
    return resolve_members(None)


async def started(recorder: Recorder | None = None, **kwargs) -> JamEngine:
    engine = JamEngine(band(), emitter=(recorder or Recorder()).emitter, **kwargs)
    await engine.start()
    return engine


async def test_start_plays_a_first_round_with_every_member() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        assert engine.round == 1
        assert [m["member"] for m in rec.of("agent_thought")] == ["BEAT", "GROOVE", "ARIA", "GLITCH"]
        assert all(m.status == "idle" and m.pattern != "silence" for m in engine.members.values())
        assert engine.composition.code.startswith("stack(")
        assert [name for name, _ in engine.composition.layers] == ["BEAT", "GROOVE", "ARIA", "GLITCH"]
        assert rec.messages[0]["type"] == "jam_state_update" and rec.messages[0]["running"] is True
    finally:
        await engine.stop()


async def test_a_mention_asks_only_that_member() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        turns_before = {n: m.session.turns for n, m in engine.members.items()}
        rec.clear()
        record = await engine.directive("@ARIA simpler")
        assert [m["member"] for m in rec.of("agent_thought")] == ["ARIA"]
        assert {n for n, m in record.members.items() if m["asked"]} == {"ARIA"}
        turns_after = {n: m.session.turns for n, m in engine.members.items()}
        assert turns_after == {**turns_before, "ARIA": turns_before["ARIA"] + 1}
        assert rec.of("boss_directive_echo")[0]["to"] == ["ARIA"]
    finally:
        await engine.stop()


async def test_a_broadcast_reaches_every_member() -> None:
    rec = Recorder()
    engine = await started(rec)
    try:
        rec.clear()
        before = engine.context.energy
        await engine.directive("more energy")
        assert sorted(m["member"] for m in rec.of("agent_thought")) == ["ARIA", "BEAT", "GLITCH", "GROOVE"]
        assert engine.context.energy == before + 2
        assert rec.of("musical_context_update")[0]["changed"] == ["energy"]
    finally:
        await engine.stop()


@pytest.mark.parametrize("text", ["switch to D major", "@BEAT switch to D major"])
async def test_switching_key_puts_every_pitched_note_of_every_pattern_in_the_key(text: str) -> None:
    engine = await started()
    try:
        await engine.directive(text)
        assert engine.context.key == "D major"
        pitched = {name: pitch_classes(m.pattern) for name, m in engine.members.items()}
        assert pitched["GROOVE"] and pitched["ARIA"] and pitched["GLITCH"]
        for name, pcs in pitched.items():
            assert pcs <= D_MAJOR, (name, engine.members[name].pattern)
        assert pitch_classes(engine.composition.code) <= D_MAJOR
    finally:
        await engine.stop()


async def test_unknown_mentions_and_directives_before_start_are_user_errors() -> None:
    engine = JamEngine(band())
    with pytest.raises(InvalidInput, match="start the jam"):
        await engine.directive("more energy")
    await engine.start()
    try:
        with pytest.raises(InvalidInput, match="@KAZOO"):
            await engine.directive("@KAZOO go")
    finally:
        await engine.stop()


async def test_mute_and_solo_shape_the_combined_pattern() -> None:
    engine = await started()
    try:
        engine.set_mute("beat", True)
        assert [n for n, _ in engine.composition.layers] == ["GROOVE", "ARIA", "GLITCH"]
        engine.set_solo("ARIA", True)
        assert engine.composition.code == engine.members["ARIA"].pattern
        engine.set_solo("ARIA", False)
        engine.set_mute("beat", False)
        await engine.directive("@GLITCH @ARIA @GROOVE drop out")
        assert engine.composition.code == engine.members["BEAT"].pattern
        await engine.directive("@BEAT drop out")
        assert engine.composition.code == "silence"
    finally:
        await engine.stop()


def _llm_band(server, timeout: float) -> tuple[list, object]:
    personas = resolve_members(["BEAT", "GROOVE"])
    backend = OpenAIBackend(base_url=server.url + "/v1", api_key="test-key", model="local", retries=1)

    def factory(persona, seed):
        return backend if persona.name == "GROOVE" else algorithmic_backend(persona, seed)

    return personas, factory


GOOD = {"pattern": 'note("<c2 ab1 eb2 bb1>").s("sawtooth")', "thoughts": "Roots.", "reaction": "Hi BEAT.", "comply_with_boss": True}


async def test_an_invalid_pattern_keeps_the_last_good_one(openai_server) -> None:
    replies = [GOOD, {**GOOD, "pattern": 'note("c2 e2 f#2 c#2").s("sawtooth")', "thoughts": "Chromatic!"}]
    openai_server.reply_for = lambda user, system, n: json.dumps(replies.pop(0) if replies else GOOD)
    personas, factory = _llm_band(openai_server, 5)
    rec = Recorder()
    engine = JamEngine(personas, backend=factory, emitter=rec.emitter, turn_timeout=10)
    await engine.start()
    try:
        groove = engine.members["GROOVE"]
        assert groove.llm and groove.pattern == GOOD["pattern"] and groove.status == "idle"
        system = openai_server.requests[0]["body"]["messages"][0]["content"]
        assert system.startswith("You are GROOVE") and "PATTERN LANGUAGE (Strudel)" in system
        turn_text = openai_server.requests[0]["body"]["messages"][-1]["content"]
        assert turn_text.startswith("ROUND 1 — JAM CONTEXT\nKey: C minor | Scale: c d eb f g ab bb")
        assert "YOUR LAST PATTERN: None yet — this is your first round." in turn_text
        rec.clear()
        await engine.directive("@GROOVE go chromatic")
        assert groove.status == "error" and groove.using_fallback
        assert groove.pattern == GOOD["pattern"] and groove.fallback_pattern == GOOD["pattern"]
        thought = rec.of("agent_thought")[0]
        assert thought["note"].startswith("[invalid pattern — playing last known pattern]")
        assert "BOSS SAYS TO YOU: go chromatic" in openai_server.requests[-1]["body"]["messages"][-1]["content"]
        assert GOOD["pattern"] in engine.composition.code
    finally:
        await engine.stop()


async def test_a_timeout_keeps_the_last_good_pattern(openai_server) -> None:
    calls = []
    release = threading.Event()

    def reply(user: str, system: str, n: int) -> str:
        calls.append(user)
        if len(calls) > 1:
            release.wait(120)  # the model never answers in time (released when the test ends)
        return json.dumps(GOOD)

    openai_server.reply_for = reply
    personas, factory = _llm_band(openai_server, 0)
    rec = Recorder()
    # a timeout generous enough for the turns that answer, even on a loaded machine
    engine = JamEngine(personas, backend=factory, emitter=rec.emitter, turn_timeout=3)
    await engine.start()
    try:
        rec.clear()
        await engine.directive("simpler")
        groove = engine.members["GROOVE"]
        assert groove.status == "timeout" and groove.pattern == GOOD["pattern"]
        notes = {m["member"]: m["note"] for m in rec.of("agent_thought")}
        assert notes["GROOVE"] == "[timed out — playing last known pattern]"
        assert notes["BEAT"] == "" and engine.members["BEAT"].status == "idle"
    finally:
        release.set()
        await engine.stop()


def fake_claudes() -> list[int]:
    """This test process's children that are fake `claude` CLIs (other suites may have
    children of their own)."""
    found = []
    for pid in children_of(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"fake_claude" in cmdline:
            found.append(pid)
    return found


async def test_stop_leaves_no_sessions_or_processes(claude_backend) -> None:
    def factory(persona, seed):
        return claude_backend if persona.name == "GLITCH" else algorithmic_backend(persona, seed)

    engine = JamEngine(band(), backend=factory, turn_timeout=10)
    await engine.start()
    sessions = [m.session for m in engine.members.values()]
    assert fake_claudes(), "the fake claude process should be running"
    # the fake CLI answers with an echo, not a JamReply: repaired once, then the fallback
    assert engine.members["GLITCH"].status == "error"
    await engine.stop()
    assert all(m.session is None for m in engine.members.values())
    assert all(s.state == SessionState.STOPPED for s in sessions)
    assert fake_claudes() == []
    await engine.stop()  # idempotent


async def test_rounds_are_recorded_with_context_patterns_and_words() -> None:
    engine = JamEngine(band(), context=MusicalContext(energy=3))
    await engine.start()
    try:
        await engine.directive("Switch to D major, more energy!")
        first, second = engine.rounds
        assert first.context["key"] == "C minor" and second.context["key"] == "D major"
        assert second.directive == "Switch to D major, more energy!"
        beat = second.members["BEAT"]
        assert beat["asked"] and beat["thoughts"] and beat["status"] == "idle"
    finally:
        await engine.stop()

"""Fault tests: real `claude` processes (the fake CLI) under sessions."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.errors import AgentError, TurnFailed, TurnTimeout
from bandstand.runtime import Session, SessionLimits, SessionState, history_from_log
from tests.peers.claude import children_of, process_exists


class Echo(BaseModel):
    echo: str
    turn: int


def conv_pid(session: Session) -> int:
    pid = session._conv.pid  # the live process behind the session
    assert pid is not None
    return pid


async def test_hang_times_out_and_the_session_recovers(claude_backend: ClaudeCodeBackend) -> None:
    events: list[dict] = []
    async with Session(claude_backend, limits=SessionLimits(turn_timeout=30)) as session:
        session.add_listener(events.append)
        first = conv_pid(session)
        with pytest.raises(TurnTimeout):
            await session.send("[[hang]] wait", timeout=0.3)
        # the interrupt ended the turn: same process, conversation intact
        reply = json.loads((await session.send("next")).text)
        assert conv_pid(session) == first
        assert reply["seen"] == ["[[hang]] wait", "next"]
    assert [e["reason"] for e in events if e["type"] == "turn_failed"] == ["timeout"]


async def test_hard_hang_is_killed_and_restarted_with_the_conversation(
    claude_backend: ClaudeCodeBackend,
) -> None:
    async with Session(claude_backend, limits=SessionLimits(turn_timeout=30)) as session:
        await session.send("remember the riff")
        first = conv_pid(session)
        with pytest.raises(TurnTimeout):
            await session.send("[[hang_hard]]", timeout=0.3)
        # the sender hears of the timeout at once: the interrupt (2 s grace, then SIGTERM) runs behind it
        assert process_exists(first)
        reply = json.loads((await session.send("go on")).text)  # waits for the interrupt, then restarts
        assert not process_exists(first)  # interrupt ignored, SIGTERM ignored → SIGKILL
        assert conv_pid(session) != first
        assert "remember the riff" in reply["echo"] and reply["echo"].endswith("go on")


async def test_crash_mid_turn_fails_the_turn_then_continues(
    claude_backend: ClaudeCodeBackend,
) -> None:
    events: list[dict] = []
    async with Session(claude_backend, limits=SessionLimits(turn_timeout=10)) as session:
        session.add_listener(events.append)
        await session.send("verse in A minor")
        first = conv_pid(session)
        with pytest.raises(TurnFailed, match="exited mid-turn"):
            await session.send("[[crash]]")
        assert session.state is SessionState.WAITING
        reply = json.loads((await session.send("now the chorus")).text)
        assert conv_pid(session) != first
        assert "verse in A minor" in reply["echo"] and "now the chorus" in reply["echo"]
        assert [m.content for m in session.history][-1] == json.dumps(reply)
    kinds = [e["type"] for e in events]
    assert "turn_failed" in kinds and "backend_restarted" in kinds
    assert kinds.index("turn_failed") < kinds.index("backend_restarted")


async def test_stop_while_processing_leaves_no_process(claude_backend: ClaudeCodeBackend) -> None:
    session = Session(claude_backend, limits=SessionLimits(turn_timeout=None))
    await session.start()
    pid = conv_pid(session)
    spawned = json.loads((await session.send("[[spawn_child]] with a helper")).text)
    grandchild = int(spawned["echo"].rsplit("child=", 1)[1])
    assert process_exists(grandchild)
    turn = asyncio.ensure_future(session.send("[[hang_hard]]"))
    while session.state is not SessionState.PROCESSING:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    await session.stop()
    with pytest.raises(AgentError):
        await turn
    assert session.state is SessionState.STOPPED
    assert not process_exists(pid) and not process_exists(grandchild)
    assert children_of(pid) == []
    assert claude_backend.registry.entries() == []


async def test_sixteen_sessions_one_failing(claude_backend: ClaudeCodeBackend) -> None:
    sessions = [
        Session(claude_backend, name=f"m{i}", limits=SessionLimits(turn_timeout=20))
        for i in range(16)
    ]
    await asyncio.gather(*(s.start() for s in sessions))

    async def play(i: int, session: Session) -> list[str]:
        out = []
        for t in range(3):
            text = "[[crash]]" if i == 5 else f"m{i} t{t}"
            try:
                out.append(json.loads((await session.send(text)).text)["echo"])
            except TurnFailed:
                out.append("failed")
        return out

    try:
        results = await asyncio.gather(*(play(i, s) for i, s in enumerate(sessions)))
    finally:
        pids = [s._conv.pid for s in sessions if s._conv is not None and s._conv.pid]
        await asyncio.gather(*(s.stop() for s in sessions))
    for i, res in enumerate(results):
        assert res == (["failed"] * 3 if i == 5 else [f"m{i} t{t}" for t in range(3)])
    assert sessions[5].end_reason == "too_many_failures"
    assert not any(process_exists(p) for p in pids)
    assert claude_backend.registry.entries() == []


async def test_malformed_reply_repair_then_fallback(claude_backend: ClaudeCodeBackend) -> None:
    async with Session(claude_backend, limits=SessionLimits(turn_timeout=10)) as session:
        fixed = await session.ask(
            "[[say]] sorry, no JSON today", Echo, fallback=Echo(echo="fallback", turn=-1)
        )
        # the repair turn is answered with the default JSON reply, which validates
        assert fixed.status == "repaired" and "not valid" in fixed.value.echo
        bad = await session.ask(
            "[[is_error]] boom", Echo, fallback=lambda err: Echo(echo=err, turn=-1)
        )
        assert bad.fallback and bad.reason == "failed" and "is_error" in bad.value.echo
        ok = await session.ask("fine", Echo, fallback=Echo(echo="fallback", turn=-1))
        assert ok.status == "ok" and ok.value.echo.startswith("fine")


FAULTS = [
    "",
    "[[crash]]",
    "[[is_error]]",
    "[[hang]]",
    "[[malformed]]",
    "[[tool]]",
    "[[null_structured]]",
]


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(FAULTS), min_size=2, max_size=7))
def test_random_fault_sequences_keep_the_session_usable(
    claude_backend: ClaudeCodeBackend, faults: list[str]
) -> None:
    claude_backend.breaker_threshold = 100  # this property is about recovery, not about the breaker

    async def scenario() -> None:
        session = Session(
            claude_backend, limits=SessionLimits(turn_timeout=20, max_consecutive_failures=100)
        )
        pids: set[int] = set()
        try:
            # after a crash the next turn first replays the conversation (if there is one),
            # so its switch no longer leads the message: predict what each turn really does
            effective, replay, remembered = [], False, False
            for fault in faults:
                effective.append("" if replay else fault)
                ok = effective[-1] in ("", "[[malformed]]", "[[tool]]", "[[null_structured]]")
                remembered = remembered or ok
                replay = effective[-1] == "[[crash]]" and remembered
            sends = [
                asyncio.ensure_future(
                    session.send(f"{fault} step {i}", timeout=0.3 if does == "[[hang]]" else 20)
                )
                for i, (fault, does) in enumerate(zip(faults, effective, strict=True))
            ]
            outcomes = await asyncio.gather(*sends, return_exceptions=True)
            for does, outcome in zip(effective, outcomes, strict=True):
                ok = does in ("", "[[malformed]]", "[[tool]]", "[[null_structured]]")
                assert (
                    not isinstance(outcome, BaseException)
                    if ok
                    else isinstance(outcome, TurnFailed | TurnTimeout)
                )
            last = json.loads((await session.send("final", timeout=20)).text)
            assert last["echo"].endswith("final")
            pids.add(conv_pid(session))
        finally:
            await session.stop()
        assert not any(process_exists(p) for p in pids)
        assert claude_backend.registry.entries() == []

    asyncio.run(scenario())


async def test_a_session_resumed_from_its_log_continues(
    claude_backend: ClaudeCodeBackend, tmp_path
) -> None:
    async with Session(claude_backend, name="ARIA", log_dir=tmp_path) as first:
        await first.send("the hook is E G A")
        await first.send("[[say]] noted: E G A")
    history = history_from_log(first.log_path)
    assert [m.content for m in history] == [m.content for m in first.history]
    async with Session(claude_backend, name="ARIA", history=history) as resumed:
        reply = json.loads((await resumed.send("play the hook")).text)
    # a new process: it hears the conversation so far, then the new message
    assert reply["turn"] == 1
    assert "the hook is E G A" in reply["echo"] and "noted: E G A" in reply["echo"]
    assert reply["echo"].endswith("play the hook")

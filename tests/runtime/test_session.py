"""Session lifecycle with the offline backend: turns, queueing, timeouts, stop, limits, ask."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from bandstand.agents import AlgorithmicBackend, TurnRequest
from bandstand.errors import AgentError, TurnFailed, TurnTimeout
from bandstand.runtime import Session, SessionLimits, SessionState, history_from_log, read_log


class Reply(BaseModel):
    pattern: str
    thoughts: str = ""


def echo(req: TurnRequest) -> dict:
    return {
        "pattern": f"echo {req.text}",
        "turn": req.turn,
        "history": len(req.history),
        "seed": req.seed,
    }


async def test_turns_carry_history_and_seed(tmp_path) -> None:
    async with Session(AlgorithmicBackend(echo), name="BEAT", seed=7, log_dir=tmp_path) as session:
        first = await session.send("one")
        second = await session.send({"directive": "two"})
        assert first.structured == {"pattern": "echo one", "turn": 0, "history": 0, "seed": 7}
        assert second.structured["history"] == 2 and second.structured["turn"] == 1
        assert session.state is SessionState.WAITING
    assert session.state is SessionState.STOPPED
    assert [m.content for m in history_from_log(session.log_path)] == [
        m.content for m in session.history
    ]


async def test_same_seed_same_replies() -> None:
    async def run(seed: int) -> list[str]:
        async with Session(AlgorithmicBackend(echo), seed=seed) as session:
            return [(await session.send(t)).text for t in ("a", "b", "c")]

    assert await run(3) == await run(3)
    assert await run(3) != await run(4)


async def test_queued_inputs_run_in_order_never_interleaved() -> None:
    active: list[int] = []
    order: list[str] = []

    async def slow(req: TurnRequest) -> str:
        active.append(1)
        assert len(active) == 1, "two turns ran at once"
        await asyncio.sleep(0.001)
        order.append(req.text)
        active.pop()
        return req.text.upper()

    async with Session(AlgorithmicBackend(slow)) as session:
        results = await asyncio.gather(*(session.send(f"m{i}") for i in range(12)))
    assert order == [f"m{i}" for i in range(12)]
    assert [r.text for r in results] == [f"M{i}" for i in range(12)]
    assert [r.turn for r in results] == list(range(12))


def hanging_responder() -> tuple[AlgorithmicBackend, asyncio.Event]:
    never = asyncio.Event()

    async def respond(req: TurnRequest) -> str:
        if "hang" in req.text:
            await never.wait()
        return f"ok {req.text}"

    return AlgorithmicBackend(respond), never


async def test_turn_timeout_then_recovers() -> None:
    backend, _ = hanging_responder()
    events: list[dict] = []
    async with Session(backend, limits=SessionLimits(turn_timeout=30)) as session:
        session.add_listener(events.append)
        with pytest.raises(TurnTimeout):
            await session.send("hang", timeout=0.05)
        assert session.state is SessionState.WAITING
        assert (await session.send("after")).text == "ok after"
    failed = [e for e in events if e["type"] == "turn_failed"]
    assert failed and failed[0]["reason"] == "timeout"


async def test_stop_while_processing_fails_the_turn_and_queue() -> None:
    backend, _ = hanging_responder()
    session = Session(backend, limits=SessionLimits(turn_timeout=None))
    await session.start()
    running = asyncio.ensure_future(session.send("hang"))
    queued = asyncio.ensure_future(session.send("next"))
    while session.state is not SessionState.PROCESSING:
        await asyncio.sleep(0)
    await asyncio.gather(session.stop(), session.stop())
    for fut in (running, queued):
        with pytest.raises(AgentError):
            await fut
    assert session.state is SessionState.STOPPED
    with pytest.raises(AgentError):
        await session.send("too late")
    await session.stop()


async def test_stop_before_start_and_events_end() -> None:
    session = Session(AlgorithmicBackend(echo))
    await session.stop()
    assert session.state is SessionState.STOPPED
    assert [e async for e in session.events()] == []


async def test_subscriber_sees_ordered_events_until_end() -> None:
    session = Session(AlgorithmicBackend(echo), name="ARIA")
    await session.start()
    seen: list[dict] = []

    async def consume() -> None:
        async for event in session.events():
            seen.append(event)

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(0)
    await session.send("x")
    await session.close()
    await consumer
    kinds = [e["type"] for e in seen]
    assert kinds[:3] == ["state_changed", "turn_started", "text_delta"]
    assert kinds[-1] == "session_ended" and seen[-1]["state"] == "completed"
    seqs = [e["seq"] for e in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(e["session"] == "ARIA" for e in seen)


async def test_max_turns_completes_the_session() -> None:
    session = Session(AlgorithmicBackend(echo), limits=SessionLimits(max_turns=2))
    await session.send("a")
    await session.send("b")
    await session.wait()
    assert session.state is SessionState.COMPLETED and session.end_reason == "max_turns"
    with pytest.raises(AgentError):
        await session.send("c")


async def test_consecutive_failures_fail_the_session() -> None:
    def broken(req: TurnRequest) -> str:
        raise RuntimeError("responder bug")

    session = Session(AlgorithmicBackend(broken), limits=SessionLimits(max_consecutive_failures=2))
    for _ in range(2):
        with pytest.raises(TurnFailed, match="responder bug"):
            await session.send("x")
    await session.wait()
    assert session.state is SessionState.FAILED and session.end_reason == "too_many_failures"


async def test_session_timeout() -> None:
    backend, _ = hanging_responder()
    session = Session(backend, limits=SessionLimits(turn_timeout=None, session_timeout=0.05))
    with pytest.raises(AgentError):
        await session.send("hang")
    assert session.state is SessionState.TIMED_OUT


async def test_ask_ok_repaired_fallback() -> None:
    replies = {
        "good": ['{"pattern": "bd*4"}'],
        "fixable": ["no idea", 'Sure: ```json\n{"pattern": "hh*8"}\n```'],
        "hopeless": ["nope", '{"thoughts": "still no pattern"}'],
    }
    counters: dict[str, int] = {}

    def respond(req: TurnRequest) -> str:
        key = req.text if req.text in replies else last[0]
        last[0] = key
        i = counters.get(key, 0)
        counters[key] = i + 1
        return replies[key][min(i, len(replies[key]) - 1)]

    last = ["good"]
    events: list[dict] = []
    async with Session(AlgorithmicBackend(respond)) as session:
        session.add_listener(events.append)
        ok = await session.ask("good", Reply, fallback=Reply(pattern="~"))
        fixed = await session.ask("fixable", Reply, fallback=Reply(pattern="~"))
        bad = await session.ask(
            "hopeless", Reply, fallback=lambda err: Reply(pattern="~", thoughts=err)
        )
    assert (ok.status, ok.value.pattern) == ("ok", "bd*4")
    assert (fixed.status, fixed.value.pattern) == ("repaired", "hh*8")
    assert bad.fallback and bad.reason == "invalid" and bad.value.pattern == "~"
    assert "pattern" in bad.value.thoughts
    actions = [e["action"] for e in events if e["type"] == "reply_invalid"]
    assert actions == ["repair", "repair", "fallback"]


async def test_ask_falls_back_on_timeout_and_after_end() -> None:
    backend, _ = hanging_responder()
    session = Session(backend, limits=SessionLimits(turn_timeout=30))
    late = await session.ask("hang", Reply, fallback=Reply(pattern="last good"), timeout=0.05)
    assert late.fallback and late.reason == "timeout" and late.value.pattern == "last good"
    await session.stop()
    ended = await session.ask("x", Reply, fallback=Reply(pattern="last good"))
    assert ended.fallback and ended.reason == "ended"


async def test_sixteen_sessions_one_failing() -> None:
    def respond(req: TurnRequest) -> str:
        if req.name == "s7":
            raise RuntimeError("boom")
        return f"{req.name}:{req.turn}"

    sessions = [Session(AlgorithmicBackend(respond), name=f"s{i}") for i in range(16)]

    async def play(session: Session) -> list[str]:
        out = []
        for t in range(3):
            try:
                out.append((await session.send(f"t{t}")).text)
            except TurnFailed:
                out.append("failed")
        return out

    results = await asyncio.gather(*(play(s) for s in sessions))
    for i, res in enumerate(results):
        assert res == (["failed"] * 3 if i == 7 else [f"s{i}:{t}" for t in range(3)])
    assert sessions[7].state is SessionState.FAILED
    assert all(s.state is SessionState.WAITING for i, s in enumerate(sessions) if i != 7)
    await asyncio.gather(*(s.stop() for s in sessions))


async def test_listener_errors_do_not_stop_the_session(tmp_path) -> None:
    def bad_listener(event: dict) -> None:
        raise ValueError("listener bug")

    session = Session(AlgorithmicBackend(echo), log_dir=tmp_path)
    session.add_listener(bad_listener)
    assert (await session.send("x")).structured["pattern"] == "echo x"
    await session.stop()
    types = [e["type"] for e in read_log(session.log_path)]
    assert types[0] == "session_started" and types[-1] == "session_ended"

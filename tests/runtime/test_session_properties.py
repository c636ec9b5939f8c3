"""Properties of the session under random schedules: order, no interleaving, every sender answered, one end."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.agents import AlgorithmicBackend, TurnRequest
from bandstand.errors import AgentError, TurnTimeout
from bandstand.runtime import Session, SessionLimits, SessionState

turn_plans = st.lists(
    st.tuples(st.integers(0, 3), st.booleans()),  # (yields inside the turn, hangs until timeout)
    min_size=1,
    max_size=12,
)


async def scenario(plans: list[tuple[int, bool]], stop_after: int | None, gaps: list[int]) -> None:
    active = 0
    events: list[dict] = []

    async def respond(req: TurnRequest) -> str:
        nonlocal active
        active += 1
        assert active == 1, "turns interleaved"
        yields, hang = plans[int(req.text)]
        try:
            for _ in range(yields):
                await asyncio.sleep(0)
            if hang:
                await asyncio.Event().wait()
        finally:
            active -= 1
        return f"reply {req.text}"

    session = Session(
        AlgorithmicBackend(respond),
        limits=SessionLimits(max_consecutive_failures=100),
    )
    session.add_listener(events.append)
    sends = []
    for i in range(len(plans)):
        timeout = 0.02 if plans[i][1] else 30  # only a turn meant to hang gets a short timeout
        sends.append(asyncio.ensure_future(session.send(str(i), timeout=timeout)))
        for _ in range(gaps[i % len(gaps)]):
            await asyncio.sleep(0)
        if stop_after is not None and i == stop_after:
            await session.stop()
    outcomes = await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), 10)
    await session.stop()

    turns = []
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, AgentError), outcome
            if isinstance(outcome, TurnTimeout):
                assert plans[i][1]
        else:
            assert outcome.text == f"reply {i}" and not plans[i][1]
            turns.append(outcome.turn)
    assert turns == sorted(turns)
    assert session.state is SessionState.STOPPED
    kinds = [e["type"] for e in events]
    assert kinds.count("session_ended") == 1 and kinds[-1] == "session_ended"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    started = [e["turn"] for e in events if e["type"] == "turn_started"]
    assert started == list(range(len(started)))  # one turn at a time, in order


@settings(max_examples=60, deadline=None)
@given(
    turn_plans,
    st.one_of(st.none(), st.integers(0, 11)),
    st.lists(st.integers(0, 3), min_size=1, max_size=4),
)
def test_random_schedules(
    plans: list[tuple[int, bool]], stop_after: int | None, gaps: list[int]
) -> None:
    asyncio.run(scenario(plans, stop_after, gaps))

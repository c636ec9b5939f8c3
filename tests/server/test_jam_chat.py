"""A tab that connects later (a reload, a second tab) is sent the jam's chat so far:
thoughts, directives, context changes and code edits as they were sent, oldest first,
at most `CHAT_HISTORY` of them."""

from __future__ import annotations

import asyncio

from bandstand.jam.live import CHAT_HISTORY
from bandstand.jam.persona import resolve_members
from bandstand.protocol import BossDirective, OverrideCode, SetTempo, StartJam, StopJam
from bandstand.server.hub import JamHub


def drained(queue: asyncio.Queue) -> list[dict]:
    return [queue.get_nowait() for _ in range(queue.qsize())]


async def until_round(hub: JamHub, round_: int) -> None:
    for _ in range(1500):  # up to 30 s on a busy machine
        if hub.jam.engine.round >= round_ and not hub.jam.engine.round_running:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"round {round_} never ended")


async def test_a_new_tab_gets_the_chat_so_far() -> None:
    hub = JamHub(resolve_members(["beat", "groove"]), autopilot=False)
    first = hub.connect()
    try:
        empty = drained(first)
        assert [m["type"] for m in empty] == ["jam_state_update", "chat_history"] and empty[1]["messages"] == []
        await hub.handle(StartJam(members=None), first)
        await hub.handle(BossDirective(text="@GROOVE simpler"), first)
        await until_round(hub, 2)
        await hub.handle(SetTempo(bpm=100), first)
        await hub.handle(OverrideCode(member="BEAT", code='s("bd*4, hh*8")'), first)
        sent = [m for m in drained(first) if m["type"] in {"agent_thought", "boss_directive_echo", "musical_context_update", "code_override"}]

        late = hub.connect()
        state, history = late.get_nowait(), late.get_nowait()
        assert state["type"] == "jam_state_update" and history["type"] == "chat_history"
        assert history["messages"][1:len(sent) + 1] == sent  # the same messages, in the same order, with their seq
        kinds = [m["type"] for m in history["messages"]]
        assert kinds == ["jam_state_update", "agent_thought", "agent_thought", "boss_directive_echo", "agent_thought",
                         "musical_context_update", "code_override"]
        assert history["messages"][0]["running"] is True and "members" not in history["messages"][0]
        assert history["messages"][3]["text"] == "@GROOVE simpler"
        assert history["messages"][-1]["code"] == 's("bd*4, hh*8")'
        # the jam's stops and starts are in the chat too
        await hub.handle(StopJam(), first)
        assert hub.jam.chat[-1]["type"] == "jam_state_update" and hub.jam.chat[-1]["running"] is False
        await hub.handle(StartJam(members=None), first)
        restarted = hub.jam.chat_history().messages
        assert [m.get("running") for m in restarted if m["type"] == "jam_state_update"] == [True, False, True]
    finally:
        await hub.close()


async def test_the_history_is_bounded() -> None:
    hub = JamHub(resolve_members(["beat"]), autopilot=False)
    queue = hub.connect()
    try:
        await hub.handle(StartJam(members=None), queue)
        for i in range(CHAT_HISTORY):  # two chat messages each (the echo and BEAT's thought)
            await hub.jam.engine.directive(f"take {i}")
        history = hub.jam.chat_history().messages
        assert len(history) == CHAT_HISTORY
        assert history[-1]["type"] == "agent_thought" and history[-2]["text"] == f"take {CHAT_HISTORY - 1}"
        assert history[0]["type"] == "boss_directive_echo" and history[0]["text"] == f"take {CHAT_HISTORY // 2}"
    finally:
        await hub.close()


async def test_a_refused_edit_goes_to_its_sender_with_the_reason() -> None:
    hub = JamHub(resolve_members(["beat", "groove"]), autopilot=False)
    a, b = hub.connect(), hub.connect()
    try:
        await hub.handle(StartJam(members=None), a)
        drained(a), drained(b)
        await hub.handle(OverrideCode(member="GROOVE", code='note("c2 c#2 f#2 b2").s("sawtooth")'), a)
        errors = [m for m in drained(a) if m["type"] == "error"]
        assert len(errors) == 1 and "GROOVE's pattern was refused" in errors[0]["message"] and "C#, F#, B" in errors[0]["message"]
        assert not any(m["type"] in {"error", "code_override"} for m in drained(b))
        assert not any(m["type"] == "code_override" for m in hub.jam.chat)
    finally:
        await hub.close()

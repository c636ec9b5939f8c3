"""The hub's safety: start_jam is checked before the running jam is touched, a running jam is
restarted only on request, and a client that does not read is dropped instead of growing memory."""

from __future__ import annotations

import pytest

from bandstand.jam.persona import resolve_members
from bandstand.protocol import SetMute, StartJam
from bandstand.server.hub import JamHub
from tests.server.test_hub import drain


@pytest.fixture
async def hub():
    found = JamHub(resolve_members(["beat", "groove"]))
    try:
        yield found
    finally:
        await found.close()


def errors(messages: list[dict]) -> list[str]:
    return [m["message"] for m in messages if m["type"] == "error"]


async def test_an_unknown_member_leaves_the_running_jam_alone(hub: JamHub) -> None:
    client = hub.connect()
    await hub.handle(StartJam(), client)
    engine, played = hub.jam.engine, hub.jam.engine.round
    await drain(client)
    await hub.handle(StartJam(members=["BEAT", "TUBA"], restart=True), client)
    said = errors(await drain(client))
    assert len(said) == 1 and "unknown member(s) TUBA" in said[0] and "BEAT, GROOVE" in said[0]
    assert hub.jam.engine is engine and engine.running and engine.round == played  # not stopped, not restarted


async def test_a_running_jam_is_restarted_only_when_asked(hub: JamHub) -> None:
    client = hub.connect()
    await hub.handle(StartJam(members=["beat"]), client)
    first = hub.jam.engine
    await drain(client)
    await hub.handle(StartJam(), client)  # another client's careless start
    said = errors(await drain(client))
    assert len(said) == 1 and "already playing" in said[0] and "restart: true" in said[0]
    assert hub.jam.engine is first and first.running
    await hub.handle(StartJam(members=["groove"], restart=True), client)
    assert hub.jam.engine is not first and hub.jam.engine.running and not first.running
    assert [m.name for m in hub.jam.engine.active()] == ["GROOVE"]


async def test_a_member_named_twice_is_refused(hub: JamHub) -> None:
    client = hub.connect()
    await hub.handle(StartJam(members=["beat", "BEAT", "groove"]), client)
    said = errors(await drain(client))
    assert len(said) == 1 and "BEAT named more than once" in said[0]
    assert not hub.jam.running


async def test_a_client_that_does_not_read_is_dropped_and_holds_nothing() -> None:
    hub = JamHub(resolve_members(["beat", "groove"]), queue_size=32)
    reader, stalled = hub.connect(), hub.connect()
    try:
        await hub.handle(StartJam(), reader)
        for i in range(80):  # every change is broadcast; the stalled client never reads
            await hub.handle(SetMute(member="BEAT", muted=i % 2 == 0), reader)
            await drain(reader)
        assert hub.dropped(stalled) and stalled not in hub.clients
        assert stalled.qsize() == 1 and stalled.get_nowait() is None  # its backlog let go; its sender closes
        assert not hub.dropped(reader) and reader in hub.clients
        await hub.handle(SetMute(member="BEAT", muted=False), reader)
        assert [m["type"] for m in await drain(reader)] == ["jam_state_update"]
        assert stalled.empty()  # nothing more is queued for a dropped client
    finally:
        await hub.close()


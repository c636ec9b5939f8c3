"""The jam's use cases (what the server's jam routes and MCP's jam tools call):
make, start, direct, read, stop — mistakes raise, a running round is the jam's."""

from __future__ import annotations

import asyncio

import pytest

from bandstand.errors import Conflict, InvalidInput
from bandstand.producer.jams.jam import direct_jam, jam_state, new_jam, start_jam, stop_jam


async def test_a_jam_starts_takes_directives_and_stops() -> None:
    jam = new_jam(["beat", "groove"], seed=3)
    assert jam_state(jam)["running"] is False
    with pytest.raises(Conflict, match="start the jam"):
        direct_jam(jam, "more energy")
    started = await start_jam(jam, ["BEAT"])
    assert started["running"] is True and [m["name"] for m in started["members"] if m["active"]] == ["BEAT"]
    with pytest.raises(InvalidInput, match="@TUBA"):
        direct_jam(jam, "@TUBA play")
    assert direct_jam(jam, "more energy")["accepted"] == "more energy"
    for _ in range(200):
        if jam_state(jam)["context"]["energy"] != 5:
            break
        await asyncio.sleep(0.02)
    assert jam_state(jam)["context"]["energy"] == 7
    stopped = await stop_jam(jam)
    assert stopped["running"] is False and (await stop_jam(jam))["running"] is False

"""`bandstand jam --osc HOST:PORT` as a real server process: a jam started over HTTP plays
into a local OSC peer standing in for SuperDirt — `/dirt/play` bundles stamped on one grid
(cycle / cps from the jam's start, a cycle a bar at 120 BPM), sent ahead of their time, with
the band's sound names; stopping the jam stops the bundles."""

from __future__ import annotations

import time

import httpx
import pytest

from ..peers.osc_peer import OscPeer
from ..server.jam_process import jam_server

pytest.importorskip("pythonosc")


def test_a_served_jam_plays_into_superdirt() -> None:
    with OscPeer() as peer, jam_server("--members", "beat,groove", "--osc", peer.address, "--latency", "1.0",
                                       "--no-autopilot") as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=60) as client:
        assert peer.wait_for(1, timeout=1.0) == []  # nothing before the jam starts
        started = client.post("api/v1/jam/start", json={})
        assert started.status_code == 200, started.text
        got = peer.wait_for(40, timeout=90)
        assert client.post("api/v1/jam/stop").json()["running"] is False
        stopped = len(peer.wait_for(10**6, timeout=2.0))
        time.sleep(3.0)  # two cycles more: nothing more may come
        assert len(peer.bundles) == stopped
    assert len(got) >= 40 and {b.address for b in got} == {"/dirt/play"}
    assert {round(b.args["cps"], 6) for b in got} == {0.5}  # 4/4 at 120 BPM: a bar in 2 s
    origin = got[0].timestamp - got[0].args["cycle"] / 0.5
    for b in got:  # every stamp on the jam's grid: its start plus its place in cycles
        assert b.timestamp == pytest.approx(origin + b.args["cycle"] / 0.5, abs=1e-3)
    ahead = sum(b.arrived < b.timestamp for b in got)
    assert ahead >= 0.9 * len(got)  # sent ahead (a loop starved past the look-ahead sends a cycle late)
    assert {b.args["orbit"] for b in got} == {0, 1}  # BEAT and GROOVE each on an orbit
    assert any("note" in b.args for b in got) and any(b.args["s"] in {"bd", "sd", "hh"} for b in got)

"""The studio's transport drives the live outputs: a real `bandstand serve --osc` plays a song
into a local OSC peer (standing in for SuperDirt) when its transport says play — from the API
or `bandstand transport` in another process — loops a section round and round on one grid,
and stops sending when it says stop. A transport saved before the server started is not
replayed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bandstand.producer.live.transport import TransportCommand, command_transport
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio.ids import SeededIds
from bandstand.studio.model import Provenance

from ..peers.osc_peer import OscPeer
from ..server.jam_process import bandstand_server
from ..studio.songs import small_song

pytest.importorskip("pythonosc")

SONG = "session-20260101-b2c3d4"
TEMPO = 300.0
BAR = 4 * 60.0 / TEMPO  # 0.8 s


def test_the_transport_plays_loops_and_stops_the_live_outputs(tmp_path: Path) -> None:
    song = small_song()
    song.tempo = TEMPO
    session = create_from_song(tmp_path / "songs" / SONG, song, Provenance(prompt="small", seeds={"song": 1}),
                               ids=SeededIds(3))
    command_transport(session, TransportCommand(action="play"))  # saved before the server starts: not replayed
    with OscPeer() as peer, bandstand_server("serve", "--out", "songs", "--osc", peer.address, "--latency", "1.0",
                                             cwd=tmp_path) as served:
        url = f"{served.base}api/v1/projects/{SONG}/transport"

        def send(**body: object) -> None:
            assert httpx.post(url, json=body, headers=served.headers, timeout=60).status_code == 200

        time.sleep(1.0)
        assert peer.bundles == []
        send(action="stop")
        send(action="loop", section="chorus")  # stopped: nothing plays yet
        time.sleep(1.0)
        assert peer.bundles == []
        send(action="play")
        got = peer.wait_for(52 * 3, timeout=60)  # three times round the chorus (52 notes)
        send(action="stop")
        quiet = len(peer.wait_for(10**6, timeout=2.0))
        time.sleep(2.0)
        assert len(peer.bundles) == quiet  # stopped: nothing more

        cli = subprocess.run([sys.executable, "-m", "bandstand", "transport", str(tmp_path / "songs" / SONG),
                              "loop"], capture_output=True, text=True, timeout=120, check=False)
        assert cli.returncode == 0, cli.stderr
        played = subprocess.run([sys.executable, "-m", "bandstand", "transport", str(tmp_path / "songs" / SONG),
                                 "play", "--bar", "16"], capture_output=True, text=True, timeout=120, check=False)
        assert played.returncode == 0, played.stderr
        last = peer.wait_for(quiet + 13, timeout=60)[quiet:]  # bar 16: 8 drum hits, 2 bass notes, a chord

    assert len(got) >= 156 and all(12.0 <= b.args["cycle"] < 16.0 for b in got)  # only the chorus
    kicks = [b.timestamp for b in got if b.args["s"] == "bd"]
    assert len(kicks) >= 24
    origin = kicks[0]
    for i, at in enumerate(kicks[:24]):  # two kicks a bar, round the 4-bar loop on one grid
        assert at == pytest.approx(origin + i * BAR / 2, abs=2e-3)
    assert [b.args["cycle"] for b in last] == sorted(b.args["cycle"] for b in last)
    assert all(15.0 <= b.args["cycle"] < 16.0 for b in last) and len(last) == 13

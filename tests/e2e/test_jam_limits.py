"""The jam's limits through a real `bandstand jam` server and its WebSocket (#24):

- a pattern dense only in a late cycle (``<bd bd bd bd [bd*1024]>``: one kick for four cycles,
  1,024 in the fifth) is refused — validation checks every cycle of its period, not the first
  four — and no cycle the server sends holds more than the per-layer cap for any member;
- a pattern with an absurd legato (``note("60").legato(1000000)``) is accepted, and every
  recording file, and "Keep this", still exports: no note holds past the recording's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import mido
import pytest
import websockets

from bandstand.patterns.cycle_cap import MAX_EVENTS_PER_CYCLE
from tests.peers.openai_server import OpenAIServer
from tests.server.jam_process import Served, jam_server

pytestmark = pytest.mark.e2e

LATE_DENSE = 's("<bd bd bd bd [bd*1024]>")'
LEGATO = 'note("60").legato(1000000)'
GOOD = 'note("<c2 ab1 eb2 bb1>").s("sawtooth")'


def _reply(user: str, system: str, n: int) -> str:
    pattern = GOOD if system.startswith("You are GROOVE") else LATE_DENSE
    return json.dumps({"pattern": pattern, "thoughts": "Try this.", "reaction": "Sure.", "comply_with_boss": True})


@contextlib.contextmanager
def _llm_jam() -> Iterator[Served]:
    """BEAT and GROOVE played by the local OpenAI-compatible peer: BEAT answers LATE_DENSE."""
    with OpenAIServer() as peer:
        peer.reply_for = _reply
        args = ("--members", "beat,groove", "--backend", "openai", "--base-url", peer.url + "/v1", "--model", "local")
        with jam_server(*args, env={"OPENAI_API_KEY": "test-key"}) as served:
            yield served


async def _until(socket: Any, seen: list[dict[str, Any]], kind: str, predicate: Any = lambda m: True) -> dict[str, Any]:
    async with asyncio.timeout(90):
        while True:
            message = json.loads(await socket.recv())
            seen.append(message)
            if message["type"] == kind and predicate(message):
                return message


async def test_a_pattern_dense_only_in_a_late_cycle_is_refused_and_no_cycle_goes_over_the_cap() -> None:
    seen: list[dict[str, Any]] = []
    with _llm_jam() as served:
        async with websockets.connect(served.ws, additional_headers=served.headers, max_size=None) as socket:
            await _until(socket, seen, "jam_state_update")
            await socket.send(json.dumps({"type": "start_jam"}))
            await _until(socket, seen, "jam_state_update", lambda m: m["round"] == 1 and m["running"])
            await socket.send(json.dumps({"type": "set_tempo", "bpm": 240}))  # a cycle a second
            await _until(socket, seen, "events", lambda m: m["cycle"] >= 6)  # past cycle 4, and 5 of the period
            await socket.send(json.dumps({"type": "stop_jam"}))
            await _until(socket, seen, "jam_state_update", lambda m: not m["running"])
    beat = [m for m in seen if m["type"] == "agent_thought" and m["member"] == "BEAT"]
    assert beat and all(t["status"] == "error" and t["rejected"] == LATE_DENSE for t in beat)
    assert "1024 events in cycle 4" in beat[0]["note"], beat[0]["note"]
    cycles = [m for m in seen if m["type"] == "events"]
    assert max(m["cycle"] for m in cycles) >= 6
    for message in cycles:
        per_member = Counter(e["member"] for e in message["events"])
        assert max(per_member.values(), default=0) <= MAX_EVENTS_PER_CYCLE, (message["cycle"], per_member)


async def test_a_held_note_of_a_million_cycles_leaves_every_recording_file_exportable(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with jam_server("--members", "beat,groove", cwd=tmp_path) as served:
        async with websockets.connect(served.ws, additional_headers=served.headers, max_size=None) as socket:
            await _until(socket, seen, "jam_state_update")
            await socket.send(json.dumps({"type": "start_jam"}))
            await _until(socket, seen, "jam_state_update", lambda m: m["round"] == 1 and m["running"])
            await socket.send(json.dumps({"type": "set_tempo", "bpm": 240}))
            await socket.send(json.dumps({"type": "override_code", "member": "GROOVE", "code": LEGATO}))
            await _until(socket, seen, "code_override")
            held = await _until(socket, seen, "events", lambda m: any(e["member"] == "GROOVE" for e in m["events"]))
            await _until(socket, seen, "events", lambda m: m["cycle"] > held["cycle"])
            async with httpx.AsyncClient(base_url=served.base, headers=served.headers, timeout=120) as client:
                files = {name: await client.get(f"api/v1/jam/recordings/{name}")
                         for name in ("jam.mid", "jam.wav", "transcript.md", "rounds.jsonl")}
                kept = await client.post("api/v1/jam/keep", json={"title": "held"})
            await socket.send(json.dumps({"type": "stop_jam"}))
    assert {name: r.status_code for name, r in files.items()} == dict.fromkeys(files, 200), {
        name: r.text[:200] for name, r in files.items() if r.status_code != 200}
    assert kept.status_code == 200 and kept.json()["type"] == "jam_kept", kept.text[:300]
    assert files["transcript.md"].text.startswith("# bandstand jam") and json.loads(files["rounds.jsonl"].text.splitlines()[0])
    assert files["jam.wav"].content[:4] == b"RIFF"
    grooves = [e for m in seen if m["type"] == "events" for e in m["events"] if e["member"] == "GROOVE"]
    assert grooves and max(e["duration"] for e in grooves) <= 16  # held at most 16 cycles on the page too
    midi_path = tmp_path / "jam.mid"
    midi_path.write_bytes(files["jam.mid"].content)
    song = mido.MidiFile(midi_path)
    bar = 4 * song.ticks_per_beat  # a cycle of 4/4
    held: list[tuple[int, int]] = []  # (on, off) ticks of GROOVE's held note
    drums_end = 0
    for track in song.tracks:
        tick, on = 0, {}
        for message in track:
            tick += message.time
            if message.type == "note_on" and message.velocity:
                on[(message.channel, message.note)] = tick
            elif message.type in {"note_off", "note_on"} and (message.channel, message.note) in on:
                start = on.pop((message.channel, message.note))
                if message.channel == 9:
                    drums_end = max(drums_end, tick)
                elif message.note == 60:
                    held.append((start, tick))
    recording_end = -(-drums_end // bar) * bar  # BEAT plays every cycle: the end of its last cycle
    assert held and all(off - on <= 16 * bar and off <= recording_end for on, off in held), (held, recording_end)

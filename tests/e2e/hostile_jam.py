"""A real `bandstand jam` whose LLM members (the local OpenAI-compatible peer) answer with
hostile patterns, while a client keeps asking the server for `/api/v1/jam/state`.

Shared by the e2e test (does the server keep answering? is every hostile reply refused?)
and `benchmarks/jam_server.py` (how long does each answer take?)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from tests.peers.openai_server import OpenAIServer
from tests.server.jam_process import Served, jam_server

HOSTILE = (
    's("bd").fast(1000).fast(1000).fast(1000).fast(1000)',
    's("bd").fast("<1000000>").fast("<1000000>")',
)
"""Replies that once froze the server: each passes a naive density bound and validating it
ran for minutes on the event loop while memory grew past 1.7 GB."""
GOOD = 'note("<c2 ab1 eb2 bb1>").s("sawtooth")'


def peer_reply(user: str, system: str, n: int) -> str:
    """BEAT answers hostile patterns, in turn; GROOVE answers a good one."""
    if system.startswith("You are GROOVE"):
        pattern = GOOD
    else:
        pattern = HOSTILE[n // 2 % len(HOSTILE)]
    return json.dumps({"pattern": pattern, "thoughts": "Try this.", "reaction": "Sure.", "comply_with_boss": True})


@contextlib.contextmanager
def hostile_jam(turn_timeout: float = 30) -> Iterator[Served]:
    """The jam server with BEAT and GROOVE played by the local peer answering `peer_reply`."""
    with OpenAIServer() as peer:
        peer.reply_for = peer_reply
        args = ("--members", "beat,groove", "--backend", "openai", "--base-url", peer.url + "/v1", "--model", "local",
                "--turn-timeout", str(turn_timeout))
        with jam_server(*args, env={"OPENAI_API_KEY": "test-key"}) as served:
            yield served


@dataclass
class Watch:
    """What the watching client saw: each /api/v1/jam/state answer's status and seconds, and the
    jam's messages over the socket."""

    answers: list[tuple[int, float]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def thoughts(self, member: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "agent_thought" and m["member"] == member]


async def play(served: Served, *, rounds: int, client_timeout: float = 10.0) -> Watch:
    """Start the jam, give `rounds` directives (each round asks BEAT again), and ask for the
    state every 50 ms all the while; returns what was seen."""
    watch = Watch()
    done = asyncio.Event()

    async def poll() -> None:
        async with httpx.AsyncClient(base_url=served.base, headers=served.headers, timeout=client_timeout) as client:
            while not done.is_set():
                began = time.perf_counter()
                status = (await client.get("api/v1/jam/state")).status_code
                watch.answers.append((status, time.perf_counter() - began))
                await asyncio.sleep(0.05)

    async def until(socket: Any, kind: str, predicate: Any = lambda m: True) -> dict[str, Any]:
        while True:
            message = json.loads(await socket.recv())
            watch.messages.append(message)
            if message["type"] == kind and predicate(message):
                return message

    poller = asyncio.ensure_future(poll())
    try:
        async with websockets.connect(served.ws, additional_headers=served.headers, max_size=None) as socket:
            await until(socket, "jam_state_update")
            await socket.send(json.dumps({"type": "start_jam"}))
            await until(socket, "jam_state_update", lambda m: m["round"] == 1 and m["running"])
            for n in range(rounds):
                await socket.send(json.dumps({"type": "boss_directive", "text": f"@BEAT variation {n + 1}"}))
                await until(socket, "jam_state_update", lambda m, r=n + 2: m["round"] == r)
            cycle = (await until(socket, "events"))["cycle"]
            await until(socket, "events", lambda m: m["cycle"] > cycle)  # the clock still runs
            await socket.send(json.dumps({"type": "stop_jam"}))
            await until(socket, "jam_state_update", lambda m: not m["running"])
    finally:
        done.set()
        await poller
    return watch

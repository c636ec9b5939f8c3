"""One edit path: the same request on the same project makes the same variation, byte for
byte, whichever client sends it — the CLI (`bandstand edit`), HTTP (a real `bandstand
serve`, `POST /api/v1/stream`) and MCP (a real `bandstand mcp` over stdio, its `edit` tool).

The composed song is copied three times (one folder per client, same project id); each
client makes its variation in its own copy, and the variations' proposals are compared as
Standard MIDI Files. A request that mixes a producer idiom with a mixer word is the one
the clients used to read two ways (the CLI's own parser took "less reverb on the lead" for
"a simpler lead")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest

pytest.importorskip("mcp.server", reason="the mcp extra (scripts/test installs it)")

from mcp import Client, StdioServerParameters

from bandstand.midi import song_to_midi_bytes
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import to_song
from tests.e2e.sse import stream
from tests.server.jam_process import bandstand_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REQUESTS = ["make the drums simpler and less reverb on the lead", "make the bass busier", "darker chords",
            "make the bass busier and half the tempo in bars 5-8", "3/4 in bars 5-8"]
TEMPO_WORDS = REQUESTS[3]  # the tempo map moves in bars 5-8 only, in every client's variation


def bandstand(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, (args, proc.stdout[-2000:], proc.stderr[-2000:])
    return proc.stdout


def proposal_midi(folder: Path, variation_id: str) -> bytes:
    variation = open_project(folder).variation(variation_id)
    assert variation.proposal is not None and variation.state == "ready", variation
    return song_to_midi_bytes(to_song(variation.proposal))


def by_cli(folder: Path) -> list[str]:
    return [json.loads(bandstand("edit", str(folder), words, "--json"))["variation_id"] for words in REQUESTS]


def by_http(out: Path, project: str) -> list[str]:
    made = []
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=120) as client:
        for words in REQUESTS:
            read = stream(client, words, projectId=project)
            complete = read.events[-1]
            assert read.status == 200 and complete["type"] == "complete" and complete["success"], read
            made.append(str(complete["variationId"]))
    return made


def by_mcp(out: Path, project: str) -> list[str]:
    async def run() -> list[str]:
        made = []
        server = StdioServerParameters(command=sys.executable, args=["-m", "bandstand", "mcp", "--out", str(out)],
                                       env=dict(os.environ))  # the SDK passes only a few variables by default
        async with Client(server) as client:
            for words in REQUESTS:
                answer = await client.call_tool("edit", {"project": project, "request": words})
                assert not answer.is_error, answer.content[0].text
                made.append(str(answer.structured_content["variation_id"]))
        return made

    return anyio.run(run)


def test_the_cli_http_and_mcp_make_byte_identical_variations(tmp_path: Path) -> None:
    composed = json.loads(bandstand("compose", "funk groove in E minor", "--seed", "5", "--bars", "16",
                                    "--no-audio", "--out", str(tmp_path / "composed"), "--json"))
    song = Path(composed["session_dir"])
    copies = {client: tmp_path / client / song.name for client in ("cli", "http", "mcp")}
    for copy in copies.values():
        shutil.copytree(song, copy)
    made = {"cli": by_cli(copies["cli"]), "http": by_http(copies["http"].parent, song.name),
            "mcp": by_mcp(copies["mcp"].parent, song.name)}
    for i, words in enumerate(REQUESTS):
        midi = {client: proposal_midi(copies[client], made[client][i]) for client in copies}
        assert midi["cli"] == midi["http"] == midi["mcp"], (words, midi["cli"] == midi["http"], midi["cli"] == midi["mcp"])
        assert midi["cli"] != song_to_midi_bytes(to_song(open_project(copies["cli"]).head)), words
    head = to_song(open_project(copies["cli"]).head)
    tempo_words = to_song(open_project(copies["cli"]).variation(made["cli"][3]).proposal)  # type: ignore[arg-type]
    assert [(c.beat, c.bpm) for c in tempo_words.tempo_map()] == [(0.0, head.tempo), (16.0, head.tempo / 2),
                                                                  (32.0, head.tempo)]
    metre_words = to_song(open_project(copies["cli"]).variation(made["cli"][4]).proposal)  # type: ignore[arg-type]
    assert [(c.bar, str(c.time_signature)) for c in metre_words.metre_map()] == [(1, "4/4"), (5, "3/4"), (9, "4/4")]
    assert [metre_words.bar_to_beat(bar) for bar in (5, 9, 10)] == [16.0, 28.0, 32.0]

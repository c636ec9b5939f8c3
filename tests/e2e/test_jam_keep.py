""""Keep this" through a real `bandstand jam` server: the page's keep_jam message turns the jam
so far into an arranged song project among the server's projects, which the studio API opens
and `bandstand edit` directs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from bandstand.cli import run
from tests.server.jam_process import jam_server

pytestmark = pytest.mark.e2e


async def _until(socket: Any, kind: str, predicate: Any = lambda m: True) -> dict[str, Any]:
    async with asyncio.timeout(60):
        while True:
            message = json.loads(await socket.recv())
            if message["type"] == kind and predicate(message):
                return message


async def test_keep_this_makes_the_jam_a_song_project_the_studio_opens(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with jam_server("--members", "beat,groove,aria", cwd=tmp_path) as served:
        async with websockets.connect(served.ws, additional_headers=served.headers, max_size=None) as socket:
            await _until(socket, "jam_state_update")
            await socket.send(json.dumps({"type": "keep_jam"}))
            assert "nothing recorded yet" in (await _until(socket, "error"))["message"]
            await socket.send(json.dumps({"type": "start_jam"}))
            await _until(socket, "events", lambda m: m["cycle"] >= 1)
            await socket.send(json.dumps({"type": "boss_directive", "text": "more energy"}))
            await _until(socket, "jam_state_update", lambda m: m["round"] == 2)
            await _until(socket, "events")
            first = (await _until(socket, "events"))["cycle"]
            await _until(socket, "events", lambda m: m["cycle"] > first)  # round 2 has sounded
            await socket.send(json.dumps({"type": "keep_jam", "title": "Night jam"}))
            kept = await _until(socket, "jam_kept")
            await socket.send(json.dumps({"type": "stop_jam"}))
        assert kept["form"][0] == "intro" and kept["form"][-1] == "outro" and "verse" in kept["form"]
        async with httpx.AsyncClient(base_url=served.base, headers=served.headers, timeout=60) as client:
            listed = (await client.get("api/v1/projects")).json()
            assert kept["project"] in [p["projectId"] for p in listed["projects"]]
            project = (await client.get(f"api/v1/projects/{kept['project']}?notes=false")).json()["project"]
            assert [s["name"] for s in project["sections"]] == kept["form"] and project["name"] == "Night jam"
            again = await client.post("api/v1/jam/keep", json={})  # a script keeps the stopped jam too
            assert again.status_code == 200 and again.json()["type"] == "jam_kept"
            form = again.json()["form"]
            assert again.json()["project"] != kept["project"] and form[0] == "intro" and form[-1] == "outro"
    song = tmp_path / "output" / kept["project"]
    assert (song / "midi" / "full-arrangement.mid").is_file()
    assert (tmp_path / "output" / "jams" / kept["project"] / "jam.mid").is_file()  # the recording it was made from
    assert run(["edit", str(song), "make the drums simpler"]) == 0
    assert "Accept with" in capsys.readouterr().out

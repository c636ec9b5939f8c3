"""The jam server as a real process: the page, the protocol documents and the WebSocket protocol."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets

from tests.server.jam_process import Served, jam_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served() -> Any:
    with jam_server() as found:
        yield found


async def _until(socket: Any, predicate: Any, seen: list[dict[str, Any]], timeout: float = 30) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await socket.recv())
            seen.append(message)
            if predicate(message):
                return message


def test_the_page_and_the_protocol_are_served(served: Served) -> None:
    with httpx.Client(follow_redirects=True) as browser:  # opens the printed URL, then lives on its cookie
        page = browser.get(served.url)
        assert page.status_code == 200 and "bandstand" in page.text and "/static/app.js" in page.text
        assert served.token not in page.text and str(page.url) == served.base
        assert browser.get(served.base + "static/audio/index.js").status_code == 200
    events = httpx.get(served.base + "api/v1/protocol/events.json", headers=served.headers).json()
    jam = events["streams"]["jam"]
    assert "agent_thought" in jam["serverToClient"] and "boss_directive" in jam["clientToServer"]


async def test_a_jam_over_the_websocket(served: Served) -> None:
    seen: list[dict[str, Any]] = []
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        first = json.loads(await socket.recv())
        assert first["type"] == "jam_state_update" and first["running"] is False
        assert [m["name"] for m in first["members"]] == ["BEAT", "GROOVE", "ARIA", "GLITCH"]

        await socket.send(json.dumps({"type": "start_jam"}))
        thoughts: set[str] = set()
        await _until(socket, lambda m: m["type"] == "agent_thought" and (thoughts.add(m["member"]) or len(thoughts) == 4), seen)
        execute = await _until(socket, lambda m: m["type"] == "execute", seen)
        assert [layer["member"] for layer in execute["layers"]] == ["BEAT", "GROOVE", "ARIA", "GLITCH"]
        events = await _until(socket, lambda m: m["type"] == "events" and m["events"], seen)
        assert events["cycle_seconds"] == 2.0 and {e["member"] for e in events["events"]} >= {"BEAT", "GROOVE"}

        await socket.send(json.dumps({"type": "boss_directive", "text": "Switch to D major, more energy!"}))
        ctx = await _until(socket, lambda m: m["type"] == "musical_context_update", seen)
        assert ctx["context"]["key"] == "D major" and ctx["context"]["energy"] == 7
        await _until(socket, lambda m: m["type"] == "jam_state_update" and m["round"] == 2, seen)

        await socket.send(json.dumps({"type": "boss_directive", "text": "@TUBA play"}))
        error = await _until(socket, lambda m: m["type"] == "error", seen)
        assert "@TUBA" in error["message"]
        await socket.send(json.dumps({"type": "set_mute", "member": "BEAT", "muted": True}))
        muted = await _until(socket, lambda m: m["type"] == "jam_state_update" and m["members"][0]["muted"], seen)
        assert "BEAT" not in [layer["member"] for layer in muted["layers"]]
        await socket.send(json.dumps({"type": "nonsense"}))
        assert "unknown jam message type" in (await _until(socket, lambda m: m["type"] == "error", seen))["message"]

        await socket.send(json.dumps({"type": "stop_jam"}))
        await _until(socket, lambda m: m["type"] == "jam_state_update" and not m["running"], seen)
    sequence = [m["seq"] for m in seen if m["type"] != "error"]
    assert sequence == sorted(sequence)


async def test_the_last_jam_can_be_downloaded(served: Served, tmp_path) -> None:
    import mido

    seen: list[dict[str, Any]] = []
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await socket.recv()
        await socket.send(json.dumps({"type": "start_jam", "members": ["BEAT", "GROOVE"]}))
        await _until(socket, lambda m: m["type"] == "events" and m["cycle"] >= 1, seen)
        await socket.send(json.dumps({"type": "stop_jam"}))
        await _until(socket, lambda m: m["type"] == "jam_state_update" and not m["running"], seen)
    async with httpx.AsyncClient(base_url=served.base, timeout=120, headers=served.headers) as client:
        midi = await client.get("api/v1/jam/recordings/jam.mid")
        assert midi.status_code == 200 and midi.headers["content-type"] == "audio/midi"
        (tmp_path / "jam.mid").write_bytes(midi.content)
        names = {t.name.split()[0] for t in mido.MidiFile(tmp_path / "jam.mid").tracks if t.name}
        assert {"BEAT", "GROOVE"} <= names
        rounds = (await client.get("api/v1/jam/recordings/rounds.jsonl")).text.splitlines()
        assert json.loads(rounds[0])["round"] == 1 and set(json.loads(rounds[0])["members"]) == {"BEAT", "GROOVE"}
        wav = await client.get("api/v1/jam/recordings/jam.wav")
        assert wav.status_code == 200 and wav.content[:4] == b"RIFF"
        assert (await client.get("api/v1/jam/recordings/secrets.txt")).status_code == 404


async def test_a_frame_that_is_not_json_gets_an_error_and_the_socket_stays_open(served: Served) -> None:
    seen: list[dict[str, Any]] = []
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await _until(socket, lambda m: m["type"] == "jam_state_update", seen)
        for frame in ("not json", b"\x00\x01binary", ""):
            await socket.send(frame)
            error = await _until(socket, lambda m: m["type"] == "error", seen)
            assert "must be JSON text" in error["message"]
        # still talking: a well-formed mistake gets its own answer
        await socket.send(json.dumps({"type": "nope"}))
        error = await _until(socket, lambda m: m["type"] == "error", seen)
        assert "unknown jam message type 'nope'" in error["message"]


async def test_the_boss_controls_and_a_new_tab_gets_the_chat(served: Served) -> None:
    seen: list[dict[str, Any]] = []
    async with websockets.connect(served.ws, additional_headers=served.headers) as socket:
        await _until(socket, lambda m: m["type"] == "jam_state_update", seen)
        await socket.send(json.dumps({"type": "start_jam", "members": ["BEAT", "GROOVE"]}))
        loud = await _until(socket, lambda m: m["type"] == "events" and any(e["member"] == "GROOVE" for e in m["events"]), seen)

        await socket.send(json.dumps({"type": "set_volume", "member": "GROOVE", "volume": 0.5}))
        await _until(socket, lambda m: m["type"] == "execute" and ".mul(gain(0.5))" in m["code"], seen)
        quiet = await _until(socket, lambda m: m["type"] == "events" and any(e["member"] == "GROOVE" for e in m["events"]), seen)
        assert max(e["velocity"] for e in quiet["events"] if e["member"] == "GROOVE") < min(
            e["velocity"] for e in loud["events"] if e["member"] == "GROOVE")

        await socket.send(json.dumps({"type": "set_tempo", "bpm": 90}))
        context = await _until(socket, lambda m: m["type"] == "musical_context_update", seen)
        assert context["context"]["bpm"] == 90 and context["changed"] == ["bpm"]
        slower = await _until(socket, lambda m: m["type"] == "events" and m["cycle_seconds"] != 2.0, seen)
        assert slower["cycle_seconds"] == 4 * 60 / 90

        await socket.send(json.dumps({"type": "override_code", "member": "GROOVE", "code": 'note("c2 c#2 f#2 b2").s("sawtooth")'}))
        refused = await _until(socket, lambda m: m["type"] == "error", seen)
        assert "GROOVE's pattern was refused" in refused["message"] and "(C#, F#, B)" in refused["message"]
        code = 'note("c2 ~ g1 ~").s("sawtooth")'
        await socket.send(json.dumps({"type": "override_code", "member": "GROOVE", "code": code}))
        override = await _until(socket, lambda m: m["type"] == "code_override", seen)
        assert override["member"] == "GROOVE" and override["code"] == code
        state = await _until(socket, lambda m: m["type"] == "jam_state_update", seen)
        assert next(m for m in state["members"] if m["name"] == "GROOVE")["pattern"] == code

        await socket.send(json.dumps({"type": "set_energy", "level": 9}))
        echo = await _until(socket, lambda m: m["type"] == "boss_directive_echo", seen)
        assert echo["text"] == "energy 9/10"
        await _until(socket, lambda m: m["type"] == "jam_state_update" and m["context"]["energy"] == 9, seen)

        async with websockets.connect(served.ws, additional_headers=served.headers) as second:
            assert json.loads(await second.recv())["type"] == "jam_state_update"
            history = json.loads(await second.recv())
            assert history["type"] == "chat_history"
            kinds = [m["type"] for m in history["messages"]]
            assert "agent_thought" in kinds and "code_override" in kinds and "boss_directive_echo" in kinds
            assert [m for m in history["messages"] if m["type"] == "code_override"][-1]["code"] == code
            assert not any(m["type"] == "error" for m in history["messages"])  # errors were the sender's own

        await socket.send(json.dumps({"type": "stop_jam"}))
        await _until(socket, lambda m: m["type"] == "jam_state_update" and not m["running"], seen)


async def test_scripts_use_the_same_controls_over_http(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.base + "api/v1/jam/", headers=served.headers, timeout=60) as client:
        assert (await client.post("control", json={"type": "set_tempo", "bpm": 100})).status_code == 409  # not playing
        started = await client.post("start", json={"members": ["BEAT", "GROOVE"]})
        assert started.status_code == 200 and started.json()["running"] is True
        try:
            state = (await client.post("control", json={"type": "set_tempo", "bpm": 100})).json()
            assert state["context"]["bpm"] == 100
            state = (await client.post("control", json={"type": "set_volume", "member": "groove", "volume": 0.25})).json()
            assert next(m for m in state["members"] if m["name"] == "GROOVE")["volume"] == 0.25
            refused = await client.post("control", json={"type": "override_code", "member": "GROOVE",
                                                          "code": 'note("c2 c#2 f#2 b2").s("sawtooth")'})
            assert refused.status_code == 422 and "(C#, F#, B)" in refused.json()["detail"]
            code = 's("bd ~ sd ~")'
            state = (await client.post("control", json={"type": "override_code", "member": "BEAT", "code": code})).json()
            assert next(m for m in state["members"] if m["name"] == "BEAT")["pattern"] == code
            wrong = await client.post("control", json={"type": "stop_jam"})
            assert wrong.status_code == 422  # not a control: /stop stops
            assert (await client.post("control", json={"type": "set_tempo", "bpm": 500})).status_code == 422
        finally:
            await client.post("stop")

"""The Strudel assistant over MCP, through the SDK's client: write, play, check and stop code in
the server's musical context; the reference as a tool and a resource; mistakes are one line."""

from __future__ import annotations

from typing import Any

from mcp import Client

from bandstand.mcp.server import BandstandServer


async def test_an_mcp_client_writes_plays_and_stops_code(call: Any) -> None:
    context = await call("update_musical_context", key="Eb major", tempo=96)
    assert not context.is_error and context.structured_content["key"] == "Eb major"
    played = (await call("execute_pattern", code='n("0 2 4 <6 7>").scale("Eb3:major").s("piano")')).structured_content
    assert played["playing"] and played["bpm"] == 96 and played["in_key"] == 1.0 and played["sounds"] == ["piano"]
    written = (await call("write_pattern", words="a dreamy melody")).structured_content
    assert written["playing"] and written["code"] and written["in_key"] == 1.0
    stopped = (await call("stop_pattern")).structured_content
    assert stopped["stopped"]["code"] == written["code"] and stopped["stopped"]["playing"] is False
    assert (await call("stop_pattern")).structured_content == {"stopped": None}


async def test_a_preview_is_a_wav_in_the_servers_folder(call: Any, root: Any) -> None:
    played = (await call("execute_pattern", code='s("bd sd, hh*4")', preview=True, cycles=1)).structured_content
    preview = played["preview"]
    assert preview.startswith(str(root / "patterns")) and preview.endswith(".wav")
    assert (root / "patterns").is_dir() and any((root / "patterns").glob("*.wav"))


async def test_mistakes_are_one_line_and_a_caret_under_the_code(call: Any) -> None:
    for name, args, said in [("execute_pattern", {"code": 's("bd").fast('}, "expected"),
                             ("execute_pattern", {"code": 's("bd").nope()'}, "unknown method 'nope'"),
                             ("update_musical_context", {"key": "H# minor"}, "key"),
                             ("strudel_reference", {"query": "zzzz"}, "no function matches")]:
        refused = await call(name, **args)
        first, *drawn = refused.content[0].text.splitlines()
        assert refused.is_error and said in first, refused.content[0].text
        assert not drawn or (drawn[0] == args["code"] and drawn[1].strip() == "^")  # code errors point at the place


async def test_the_reference_is_a_tool_and_a_resource(call: Any, server: BandstandServer) -> None:
    found = (await call("strudel_reference", query="voicing")).structured_content["reference"]
    assert "`voicing`" in found
    async with Client(server) as client:
        text = (await client.read_resource("bandstand://strudel/reference")).contents[0].text
    assert text.startswith("# Strudel in bandstand") and "`fast`" in text

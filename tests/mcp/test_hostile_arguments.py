"""Hostile arguments over MCP (issue 24): ids and texts too long, NUL characters and
wrong-typed values are each refused with one line naming the argument — never an
"internal error", never taken ("yes" is not a boolean), and a megabyte id is refused
before any work (nothing is looked up, nothing echoed back)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from bandstand.mcp import BandstandServer
from bandstand.mcp.adapter import ARGUMENT_LIMITS

LONG = "x" * 5000
MEGA = "s" * 1_000_000


def cases(song: str) -> list[tuple[str, dict[str, Any], str]]:
    return [
        ("history", {"project": LONG}, "project is 5000 characters long; an id or folder name here is at most 255"),
        ("history", {"project": "a\x00b"}, "project contains a NUL character (\\x00): 'a?b'"),
        ("accept_variation", {"project": song, "variation_id": LONG}, "variation_id is 5000 characters long"),
        ("accept_variation", {"project": song, "variation_id": "\x00"}, "variation_id contains a NUL character"),
        ("accept_variation", {"project": song, "phrase_ids": [LONG]}, "phrase_ids[0] is 5000 characters long"),
        ("export", {"project": song, "format": "mid", "out": "a\x00"}, "out contains a NUL character"),
        ("export", {"project": song, "format": "mid", "out": LONG}, "out is 5000 characters long"),
        ("compose", {"prompt": "funk\x00", "bars": 8}, "prompt contains a NUL character"),
        ("edit", {"project": song, "request": "busier\x00"}, "request contains a NUL character"),
        ("ask", {"project": song, "question": "\x00"}, "question contains a NUL character"),
        ("jam_direct", {"text": "\x00"}, "text contains a NUL character"),
        ("set_track_volume", {"project": song, "track": "Bass\x00", "volume": 0.5}, "track contains a NUL character"),
        ("set_track_volume", {"project": song, "track": "x" * 20_000, "volume": 0.5},
         "track is 20000 characters long; a text here is at most 10000"),
        ("add_notes", {"project": song, "region": "Bass/Verse 1", "notes": [{"pitch": 60, "lyric": "\x00"}]},
         "notes[0].lyric contains a NUL character"),
        ("compose", {"prompt": "funk", "bars": 8, "audio": "yes"}, "audio: Input should be a valid boolean"),
        ("compose", {"prompt": "funk", "bars": 8, "team": 1}, "team: Input should be a valid boolean"),
        ("compose", {"prompt": "funk", "bars": "8"}, "bars: Input should be a valid integer"),
        ("compose", {"prompt": "funk", "bars": 8, "accept": "true"}, "accept: Input should be a valid boolean"),
        ("undo", {"project": song, "steps": "2"}, "steps: Input should be a valid integer"),
        ("mute_track", {"project": song, "track": "Bass", "muted": "yes"},
         "call 0 (mute_track): muted: Input should be a valid boolean"),
        ("solo_track", {"project": song, "track": "Bass", "solo": "no"}, "call 0 (solo_track): solo: Input should"),
        ("set_track_volume", {"project": song, "track": "Bass", "volume": "0.5"},
         "call 0 (set_track_volume): volume: Input should be a valid number"),
    ]


async def test_each_hostile_argument_is_one_line_naming_it(server: BandstandServer, song: str, root: Path) -> None:
    async with Client(server) as client:
        before = sorted(p.name for p in root.iterdir())
        for name, arguments, message in cases(song):
            answer = await client.call_tool(name, arguments)
            text = answer.content[0].text
            assert answer.is_error, (name, arguments)
            assert text.startswith(message), (name, text[:300])
            assert "internal error" not in text and "\n" not in text and len(text) < 400
        assert sorted(p.name for p in root.iterdir()) == before  # nothing composed, nothing written
        history = await client.call_tool("history", {"project": song})
        assert not history.is_error and len(history.structured_content["history"]) == 1  # nothing muted or moved


async def test_a_megabyte_id_is_refused_before_any_work(server: BandstandServer, song: str) -> None:
    async with Client(server) as client:
        for name, arguments in (("history", {"project": MEGA}), ("accept_variation", {"project": song, "variation_id": MEGA}),
                                ("mute_track", {"project": MEGA, "track": "Bass", "muted": True})):
            answer = await client.call_tool(name, arguments)
            text = answer.content[0].text
            assert answer.is_error and text.endswith("is 1000000 characters long; an id or folder name here is at most 255")
            assert len(text) < 200


async def test_arguments_over_the_size_limit_are_refused(server: BandstandServer, song: str) -> None:
    async with Client(server) as client:
        notes = [{"pitch": 60, "start": 0, "duration": 1, "velocity": 90}] * 30_000
        answer = await client.call_tool("add_notes", {"project": song, "region": "Bass/Verse 1", "notes": notes})
        assert answer.is_error
        assert answer.content[0].text.endswith(f"bytes of JSON; at most {ARGUMENT_LIMITS.bytes} are taken")
        deep: Any = "x"
        for _ in range(40):
            deep = [deep]
        answer = await client.call_tool("add_notes", {"project": song, "region": "Bass/Verse 1", "notes": deep})
        assert answer.is_error and f"is nested more than {ARGUMENT_LIMITS.depth} deep" in answer.content[0].text


async def test_right_types_still_work(server: BandstandServer, song: str) -> None:
    async with Client(server) as client:
        muted = await client.call_tool("mute_track", {"project": song, "track": "Bass", "muted": True})
        assert not muted.is_error and muted.structured_content["revision"] == 2
        volume = await client.call_tool("set_track_volume", {"project": song, "track": "Bass", "volume": 1})
        assert not volume.is_error  # an integer is a number
        undone = await client.call_tool("undo", {"project": song, "steps": 2})
        assert not undone.is_error

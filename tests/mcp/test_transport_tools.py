"""MCP `play`, `stop`, `set_playhead`, `loop_section`: each changes the song's saved transport
(what every studio page open on it follows) and answers the new state; a section the song does
not have and a bar past its end are one line, an error result."""

from __future__ import annotations

from typing import Any

from bandstand.producer.live.transport import transport_state


async def test_the_transport_tools_drive_the_songs_transport(call: Any, song: str, root: Any) -> None:
    played = await call("play", project=song, bar=3)
    assert not played.is_error, played.content[0].text
    assert played.structured_content["playing"] is True and played.structured_content["bar"] == 3
    looped = (await call("loop_section", project=song, section=_first_section(root / song))).structured_content
    loop = looped["loop"]
    assert loop["start_bar"] == 1 and looped["playing"]
    assert looped["bar"] == (3 if loop["end_bar"] > 3 else 1)  # a playhead outside the loop moves into it
    moved = (await call("set_playhead", project=song, bar=2.5)).structured_content
    assert moved["position"] == 6.0 and moved["playing"]
    stopped = (await call("stop", project=song)).structured_content
    assert stopped["playing"] is False and stopped["position"] == 6.0 and stopped["seq"] == 4
    unlooped = (await call("loop_section", project=song)).structured_content
    assert unlooped["loop"] is None
    saved = transport_state(root / song)
    assert saved.seq == 5 and not saved.playing and saved.loop is None

    for name, args, said in [("loop_section", {"section": "kazoo solo"}, "this song has no section 'kazoo solo'"),
                             ("play", {"bar": 999}, "bar 999 is past the song's end"),
                             ("set_playhead", {}, "set_playhead needs a bar")]:
        refused = await call(name, project=song, **args)
        assert refused.is_error and len(refused.content[0].text.splitlines()) == 1
        assert said in refused.content[0].text, refused.content[0].text
    assert transport_state(root / song).seq == 5  # a refused command changes nothing


def _first_section(session: Any) -> str:
    from bandstand.producer.sessions.projects import open_project

    return open_project(session).head.sections[0].name

"""The tool list: every studio tool of the registry under its own name, description and
schema (plus `project`), and the band's tools; a mistake in a call is answered with the
line the CLI prints for the same mistake, and the server goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from bandstand.cli import run
from bandstand.mcp import BandstandServer
from bandstand.mcp.band_tools import BAND_TOOLS
from bandstand.mcp.branch_tools import BRANCH_TOOLS
from bandstand.mcp.jam_tools import JAM_TOOLS
from bandstand.mcp.pattern_tools import PATTERN_TOOLS
from bandstand.mcp.transport_tools import TRANSPORT_TOOLS
from bandstand.studio.tools import TOOLS

BAND = ["compose", "edit", "list_variations", "accept_variation", "discard_variation", "undo", "redo", "history",
        "alternatives", "export", "import_midi", "list_projects"]
JAM = ["ask", "jam_start", "jam_direct", "jam_state", "jam_stop", "jam_keep"]
BRANCHES = ["list_branches", "create_branch", "checkout", "merge_branch"]
TRANSPORT = ["play", "stop", "set_playhead", "loop_section"]
PATTERNS = ["execute_pattern", "stop_pattern", "update_musical_context", "write_pattern", "strudel_reference"]


async def test_every_registry_tool_is_offered_with_its_schema_and_project(server: BandstandServer) -> None:
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert [t.name for t in BAND_TOOLS] == BAND
    assert set(tools) == {*BAND, *JAM, *BRANCHES, *TRANSPORT, *PATTERNS, *TOOLS.names()}
    assert [t.name for t in PATTERN_TOOLS] == PATTERNS
    assert [t.name for t in JAM_TOOLS] == JAM and [t.name for t in TRANSPORT_TOOLS] == TRANSPORT
    assert [t.name for t in BRANCH_TOOLS] == BRANCHES
    for tool in TOOLS:
        offered = tools[tool.name]
        registry = tool.schema()["parameters"]
        schema = dict(offered.input_schema)
        assert next(iter(schema["properties"])) == "project" and schema["required"][0] == "project"
        assert schema["properties"]["project"]["type"] == "string"
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k != "project"}
        schema["required"] = schema["required"][1:]
        if not registry.get("required"):
            assert schema.pop("required") == []
        assert schema == registry
        assert offered.description == tool.description
        assert offered.annotations is not None and offered.annotations.read_only_hint is tool.read_only


async def test_band_tools_describe_themselves_from_their_parameter_models(server: BandstandServer) -> None:
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    compose = tools["compose"].input_schema
    assert compose["required"] == ["prompt"] and {"bars", "seed", "parts", "audio"} <= set(compose["properties"])
    assert tools["export"].input_schema["properties"]["format"]["enum"] == [
        "musicxml", "stems", "mid", "wav", "png", "strudel"]
    for name in BAND[1:-1]:
        if name != "import_midi":  # makes a project: it takes a file
            assert tools[name].input_schema["required"][0] == "project", name
    assert tools["import_midi"].input_schema["required"] == ["file"]
    for tool in (*BAND_TOOLS, *JAM_TOOLS, *TRANSPORT_TOOLS):
        assert tools[tool.name].description == " ".join(tool.params.__doc__.split())
    assert tools["history"].annotations.read_only_hint and not tools["undo"].annotations.read_only_hint


def cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert run(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bandstand: error: ")
    return err.removeprefix("bandstand: error: ")


def tool_args(arguments: dict[str, Any]) -> str:
    import json

    return json.dumps(arguments)


@pytest.mark.parametrize(("tool", "arguments"), [
    ("set_track_volume", {"track": "bas", "volume": 0.7}),
    ("set_track_volume", {"track": "bass", "volume": 3}),
    ("set_track_volume", {"track": "bass", "volume": 0.5, "colour": "red"}),
    ("add_notes", {"region": "Bass/Verse 1", "_noteCount": 8}),
    ("add_insert_effect", {"track": "lead", "type": "reverbb"}),
    ("quantize_notes", {"region": "nowhere", "grid": 0.25}),
])
async def test_a_studio_tool_mistake_is_the_line_the_cli_prints(call: Any, song: str, root: Path, tool: str,
                                                                 arguments: dict[str, Any],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    answer = await call(tool, project=song, **arguments)
    assert answer.is_error and len(answer.content) == 1
    expected = cli_error(capsys, "tool", str(root / song), tool, "--args", tool_args(arguments), "--no-audio")
    assert answer.content[0].text == expected
    assert "Error executing tool" not in expected


@pytest.mark.parametrize(("tool", "arguments", "argv"), [
    ("edit", {"request": "blorp the flange"}, ["edit", "{song}", "blorp the flange"]),
    ("accept_variation", {"variation_id": "zzzz"}, ["accept", "{song}", "zzzz", "--no-audio"]),
    ("accept_variation", {}, ["accept", "{song}", "--no-audio"]),
    ("discard_variation", {"variation_id": "0000"}, ["discard", "{song}", "0000"]),
    ("undo", {}, ["undo", "{song}", "--no-audio"]),
    ("redo", {}, ["redo", "{song}", "--no-audio"]),
    ("alternatives", {"target": "bass", "count": 9}, ["alternatives", "{song}", "bass", "--count", "9"]),
    ("alternatives", {"target": "tuba"}, ["alternatives", "{song}", "tuba"]),
    ("export", {"format": "ogg"}, ["export", "{song}", "--format", "ogg"]),
])
async def test_a_band_tool_mistake_is_the_line_the_cli_prints(call: Any, song: str, root: Path, tool: str,
                                                              arguments: dict[str, Any], argv: list[str],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    answer = await call(tool, project=song, **arguments)
    assert answer.is_error
    assert answer.content[0].text == cli_error(capsys, *(a.format(song=root / song) for a in argv))


async def test_compose_mistakes_are_the_lines_the_cli_prints(call: Any, root: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    for arguments, argv in (({"prompt": "  "}, ["compose", "  "]),
                            ({"prompt": "house", "bars": 2}, ["compose", "house", "--bars", "2"]),
                            ({"prompt": "house", "parts": ["bass", "kazoo"]}, ["compose", "house", "--parts", "bass,kazoo"]),
                            ({"prompt": "house", "key": "H#"}, ["compose", "house", "--key", "H#"])):
        answer = await call("compose", **arguments)
        assert answer.is_error
        assert answer.content[0].text == cli_error(capsys, *argv, "--out", str(root), "--no-audio")
    assert list(root.iterdir()) == []  # nothing was written


@pytest.mark.parametrize(("arguments", "message"), [
    ({"project": "session-20260101-abcdef", "request": "busier"}, "no project 'session-20260101-abcdef' in "),
    ({"request": "busier"}, "project is missing; edit(project, request)"),
    ({"project": 7, "request": "busier"}, "project: Input should be a valid string"),
    ({"project": "x", "requets": "busier"}, "unknown parameter 'requets'; did you mean 'request'?"),
])
async def test_bad_arguments_are_one_line(call: Any, song: str, arguments: dict[str, Any], message: str) -> None:
    answer = await call("edit", **arguments)
    assert answer.is_error and answer.content[0].text.startswith(message)
    assert "\n" not in answer.content[0].text


async def test_unknown_ids_come_with_the_closest_ones(call: Any, song: str) -> None:
    typo = song[:-1] + ("0" if song[-1] != "0" else "1")
    answer = await call("history", project=typo)
    assert answer.is_error and answer.content[0].text.endswith(f"did you mean '{song}'?")
    made = await call("edit", project=song, request="make the bass busier")
    vid = made.structured_content["variation_id"]
    wrong = ("0" if vid[0] != "0" else "1") + vid[1:8]
    answer = await call("accept_variation", project=song, variation_id=wrong)
    assert answer.is_error and f"did you mean {vid[:8]}" in answer.content[0].text
    answer = await call("set_track_volum", project=song, track="bass", volume=1)
    assert answer.is_error and answer.content[0].text == "unknown tool 'set_track_volum'; did you mean 'set_track_volume'?"


async def test_the_server_goes_on_after_every_kind_of_mistake(server: BandstandServer, song: str) -> None:
    async with Client(server) as client:
        for name, arguments in (("nope", {}), ("edit", {"project": song}), ("set_tempo", {"project": song, "tempo": "x"}),
                                ("compose", {"prompt": 3}), ("undo", {"project": song, "steps": 0}),
                                ("add_notes", {"project": song, "region": "Bass/Verse 1", "notes": "all of them"})):
            assert (await client.call_tool(name, arguments)).is_error
        ok = await client.call_tool("set_tempo", {"project": song, "tempo": 100})
        assert not ok.is_error and ok.structured_content["revision"] == 2


async def test_edit_takes_the_mixers_words_as_one_revision_as_the_cli_does(call: Any, song: str, root: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import json

    done = await call("edit", project=song, request="less reverb on the lead")
    assert not done.is_error, done.content[0].text
    data = done.structured_content
    assert (data["kind"], data["revision"]) == ("revision", 2) and data["steps"] == ["Less reverb on Lead (25% → 12%)"]
    assert "midi/full-arrangement.mid" in [c.name for c in done.content[1:]]
    assert (await call("undo", project=song)).structured_content["revision"] == 1
    # (the CLI runs its own event loop: on a thread of its own, as in a shell)
    assert await anyio.to_thread.run_sync(run, ["edit", str(root / song), "less reverb on the lead", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert (cli["kind"], cli["steps"], cli["summary"]) == ("revision", data["steps"], data["summary"])


async def test_a_tool_added_to_the_registry_is_offered_and_runs_with_no_code_of_its_own(
        root: Path, song: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import Field

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library
    from bandstand.studio.tools import Tool, ToolParams

    class NudgeTempo(ToolParams):
        """Nudge the tempo up by a few beats per minute (a tool only this test knows)."""

        bpm: float = Field(ge=1, le=10, description="how many beats per minute faster")

    def nudge(ctx: Any, project: Any, p: NudgeTempo) -> Any:
        return project.model_copy(update={"tempo": project.tempo + p.bpm}), {"tempo": project.tempo + p.bpm}

    monkeypatch.setitem(TOOLS._tools, "nudge_tempo", Tool("nudge_tempo", "setup", NudgeTempo, nudge))
    async with Client(build_server(Band(Library(root, folders=True)))) as client:
        offered = {t.name: t for t in (await client.list_tools()).tools}["nudge_tempo"]
        assert offered.description == "Nudge the tempo up by a few beats per minute (a tool only this test knows)."
        assert offered.input_schema["required"] == ["project", "bpm"]
        assert offered.input_schema["properties"]["bpm"] == TOOLS.get("nudge_tempo").schema()["parameters"][
            "properties"]["bpm"]
        before = (await client.call_tool("read_project", {"project": song})).structured_content
        done = await client.call_tool("nudge_tempo", {"project": song, "bpm": 4})
        assert not done.is_error, done.content[0].text
        assert done.structured_content["revision"] == 2
        after = (await client.call_tool("read_project", {"project": song})).structured_content
        assert json_tempo(after) == json_tempo(before) + 4
        refused = await client.call_tool("nudge_tempo", {"project": song, "bpm": 40})
        assert refused.is_error and "bpm" in refused.content[0].text and "\n" not in refused.content[0].text
        assert (await client.call_tool("history", {"project": song})).structured_content["head"] == 2


def json_tempo(read: dict[str, Any]) -> float:
    """The tempo in what read_project answered."""
    found = [v for k, v in _walk(read) if k == "tempo"]
    assert found, read
    return float(found[0])


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)

"""Issue 27: a structured prompt's `Form:` sets a new song's sections (a dashed line of section
words, or a YAML list with bars), over a real `bandstand serve`: the variation is written
across exactly those sections, and a Form that does not read is refused in one line before
anything runs. In `Mode: edit` a Form reshapes the song as a variation where it can (a chorus
more, a section longer, one left out: every part moves with its bars) and answers in one line
where it cannot — over the API and MCP. And the branch tools over MCP: a name with `/` or `..`, or merging a branch
into itself, is one line as an MCP tool error, and nothing changes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bandstand.producer.sessions.projects import open_project
from tests.e2e.sse import stream
from tests.server.jam_process import bandstand_server

FORM_LINE = ("MAESTRO PROMPT\nMode: compose\nStyle: funk\nTempo: 100\nKey: E minor\nRoles: [drums, bass]\n"
             "Form: intro-verse-chorus-verse-chorus-bridge-chorus-outro\n")
FORM_LIST = ("BANDSTAND PROMPT\nMode: compose\nStyle: house\nTempo: 124\nRoles: [drums, bass, pad]\nBars: 16\n"
             "Form:\n  - intro: 8\n  - build: 4\n  - drop: 16\n  - {section: breakdown, bars: 6}\n  - drop: 8\n"
             "  - outro\n")


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("issue27-form-song")
    result = compose_song("funk groove in E minor", seed=3, bars=32, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return Path(result.session_dir)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, composed: Path) -> Iterator[tuple[httpx.Client, Path]]:
    out = tmp_path_factory.mktemp("issue27-form")
    shutil.copytree(composed, out / composed.name)
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=300) as client:
        yield client, out


def _committed_sections(client: httpx.Client, prompt: str) -> tuple[list[tuple[str, int, int]], dict]:
    read = stream(client, prompt)
    done = read.events[-1]
    assert done["success"] is True and done["variationId"], done
    assert client.post(f"api/v1/variations/{done['variationId']}/commit", json={}).status_code == 200
    project = client.get(f"api/v1/projects/{done['projectId']}").json()["project"]
    sections = [(s["name"], s["start_bar"], s["bars"]) for s in project["sections"]]
    return sections, {"project": project, "complete": done}


def _notes_by_bar(project: dict, role: str) -> set[int]:
    """The bars (1-based) in which the part of `role` has a note starting."""
    beats = project["time_signature"]["numerator"] * 4 / project["time_signature"]["denominator"]
    track = next(t for t in project["tracks"] if t["role"] == role)
    return {int((r["start_beat"] + n["start"]) // beats) + 1 for r in track["regions"] for n in r["notes"]}


def test_a_dashed_form_is_the_songs_sections(api: tuple[httpx.Client, Path]) -> None:
    client, _ = api
    sections, got = _committed_sections(client, FORM_LINE)
    assert [name.split(" ")[0] for name, _, _ in sections] == [
        "Intro", "Verse", "Chorus", "Verse", "Chorus", "Bridge", "Chorus", "Outro"]
    assert [bars for _, _, bars in sections] == [4, 8, 8, 8, 8, 8, 8, 4]
    assert [start for _, start, _ in sections] == [1, 5, 13, 21, 29, 37, 45, 53]
    drums = _notes_by_bar(got["project"], "drums")
    chorus_bars = {b for name, start, bars in sections if name.startswith("Chorus") for b in range(start, start + bars)}
    assert chorus_bars <= drums  # the drums play every bar of every chorus
    assert max(_notes_by_bar(got["project"], "bass")) <= 56 and not got["complete"]["warnings"]


def test_a_form_as_a_list_with_bars_wins_over_bars(api: tuple[httpx.Client, Path]) -> None:
    client, _ = api
    sections, got = _committed_sections(client, FORM_LIST)
    assert [(name.split(" ")[0], bars) for name, _, bars in sections] == [
        ("Intro", 8), ("Build", 4), ("Drop", 16), ("Break", 6), ("Drop", 8), ("Outro", 4)]
    assert any("Bars: 16 was not used: the Form's sections make 46 bars" in w for w in got["complete"]["warnings"])


@pytest.mark.parametrize(("form", "words"), [
    ("intro-chrous-outro", "Form: 'chrous' is not a section; did you mean 'chorus'?"),
    ("\n  - verse: 99", "Form: 'verse' has 99 bars; a section has 1 to 64"),
    ("\n  - {verse: 8, chorus: 8}", "is not a section; write '- verse: 8'"),
])
def test_a_form_that_does_not_read_is_one_line_and_nothing_is_made(api: tuple[httpx.Client, Path], form: str,
                                                                    words: str) -> None:
    client, out = api
    before = sorted(p.name for p in out.iterdir())
    refused = stream(client, f"MAESTRO PROMPT\nMode: compose\nStyle: funk\nForm: {form}\n")
    assert refused.status == 422 and words in str(refused.error) and "\n" not in str(refused.error), refused
    assert sorted(p.name for p in out.iterdir()) == before


# ----------------------------------------------------------------------------- Form in Mode: edit

SONG = [("Intro", 4), ("Verse 1", 4), ("Pre-Chorus", 4), ("Chorus 1", 4), ("Verse 2", 4), ("Chorus 2", 8),
        ("Outro", 4)]
"""The composed song's sections (funk groove in E minor, seed 3, 32 bars)."""


def _drums_in(project: dict, start_bar: int, bars: int) -> list[tuple[float, int]]:
    """The drum notes of bars start_bar … start_bar+bars-1, as (beat from the section's start, pitch)."""
    track = next(t for t in project["tracks"] if t["role"] == "drums")
    lo, hi = (start_bar - 1) * 4, (start_bar - 1 + bars) * 4
    return sorted((round(r["start_beat"] + n["start"] - lo, 4), n["pitch"]) for r in track["regions"]
                  for n in r["notes"] if lo <= r["start_beat"] + n["start"] < hi)


def test_an_edit_form_adds_a_chorus_and_lengthens_the_intro_as_a_variation(
        api: tuple[httpx.Client, Path], composed: Path) -> None:
    client, _ = api
    pid = composed.name
    before = client.get(f"api/v1/projects/{pid}").json()["project"]
    assert [(s["name"], s["bars"]) for s in before["sections"]] == SONG
    form = "MAESTRO PROMPT\nMode: edit\nForm: intro 8-verse-pre-chorus-chorus-verse-chorus-chorus-outro\n"
    preview = client.post("api/v1/preview", json={"prompt": form, "projectId": pid}).json()
    assert preview["intent"] == "compose.form" and preview["plan"]["title"].startswith("Reshaped into Intro 8 – ")
    assert "(32 → 44 bars)" in preview["plan"]["title"]
    read = stream(client, form, projectId=pid)
    done = read.events[-1]
    assert read.events[0]["state"] == "COMPOSING" and done["success"] is True and done["variationId"], done
    assert "meta" in read.types and "phrase" in read.types
    assert client.get(f"api/v1/projects/{pid}").json()["project"]["revision"] == before["revision"]  # nothing yet
    assert client.post(f"api/v1/variations/{done['variationId']}/commit", json={}).status_code == 200
    after = client.get(f"api/v1/projects/{pid}").json()["project"]
    assert [(s["name"], s["start_bar"], s["bars"]) for s in after["sections"]] == [
        ("Intro", 1, 8), ("Verse 1", 9, 4), ("Pre-Chorus", 13, 4), ("Chorus 1", 17, 4), ("Verse 2", 21, 4),
        ("Chorus 2", 25, 8), ("Chorus 3", 33, 8), ("Outro", 41, 4)]
    # the new chorus is the last one again, the verses kept their music, the intro plays twice
    assert _drums_in(after, 33, 8) == _drums_in(before, 21, 8) == _drums_in(after, 25, 8)
    assert _drums_in(after, 9, 4) == _drums_in(before, 5, 4)
    assert _drums_in(after, 5, 4) == _drums_in(before, 1, 4) == _drums_in(after, 1, 4)
    assert _drums_in(after, 41, 4) == _drums_in(before, 29, 4)
    # the recipe follows the form: a part written again spans the new 44 bars
    busier = stream(client, "make the bass busier", projectId=pid).events[-1]
    assert busier["success"] is True, busier
    assert client.post(f"api/v1/variations/{busier['variationId']}/commit", json={}).status_code == 200
    bass = _notes_by_bar(client.get(f"api/v1/projects/{pid}").json()["project"], "bass")
    assert 41 <= max(bass) <= 44


@pytest.mark.parametrize(("form", "words"), [
    ("intro-verse-pre-chorus-chorus-verse-chorus-outro", "Form: the song already has this form"),
    ("intro-verse-bridge-chorus-outro", "Form: the song has no bridge to build one from"),
])
def test_an_edit_form_it_cannot_honour_is_one_line_and_nothing_changes(
        api: tuple[httpx.Client, Path], composed: Path, form: str, words: str) -> None:
    client, _ = api
    pid = composed.name
    sections = [(s["name"], s["bars"]) for s in client.get(f"api/v1/projects/{pid}").json()["project"]["sections"]]
    said = "-".join(name.split(" ")[0].lower() for name, _ in sections)
    read = stream(client, f"MAESTRO PROMPT\nMode: edit\nForm: {said if 'already' in words else form}\n",
                  projectId=pid)
    assert read.types[-2:] == ["error", "complete"] and read.events[-1]["success"] is False
    assert read.events[-1]["error"].startswith(words) and "\n" not in read.events[-1]["error"]
    assert [(s["name"], s["bars"]) for s in client.get(f"api/v1/projects/{pid}").json()["project"]["sections"]] \
        == sections


def test_mcp_edit_reshapes_the_form_and_refuses_what_it_cannot(composed: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp.server", reason="the mcp extra")
    import anyio
    from mcp import Client

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    song = tmp_path / composed.name
    shutil.copytree(composed, song)
    server = build_server(Band(Library(tmp_path, folders=True)))

    async def calls() -> tuple[object, object]:
        async with Client(server) as client:
            cut = await client.call_tool("edit", {"project": song.name, "request":
                                                  "MAESTRO PROMPT\nMode: edit\nForm: intro-verse-chorus-outro\n"})
            lacking = await client.call_tool("edit", {"project": song.name, "request":
                                                      "MAESTRO PROMPT\nMode: edit\nForm: intro-solo-outro\n"})
            return cut, lacking

    cut, lacking = anyio.run(calls)
    assert not cut.is_error and cut.structured_content["kind"] == "variation"  # type: ignore[attr-defined]
    assert lacking.is_error and "Form: the song has no solo" in lacking.content[0].text  # type: ignore[attr-defined]
    assert open_project(song).head.revision == 1


# ----------------------------------------------------------------------------- branches over MCP


@pytest.fixture
def song(tmp_path: Path) -> Path:
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path / "sessions"
    result = compose_song("funk groove in E minor", seed=3, bars=8, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return Path(result.session_dir)


def test_mcp_bad_branch_names_and_a_merge_into_itself_are_one_line_each(song: Path) -> None:
    pytest.importorskip("mcp.server", reason="the mcp extra")
    import anyio
    from mcp import Client

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    server = build_server(Band(Library(song.parent, folders=True)))
    before = (open_project(song).head.revision, sorted(p.name for p in song.rglob("*")))

    async def calls() -> list[tuple[bool, str]]:
        out = []
        async with Client(server) as client:
            for tool, args in (("create_branch", {"name": "a/b"}), ("create_branch", {"name": "x..y"}),
                               ("merge_branch", {"branch": "main"})):
                answer = await client.call_tool(tool, {"project": song.name, **args})
                out.append((answer.is_error, answer.content[0].text))  # type: ignore[union-attr]
            listed = await client.call_tool("list_branches", {"project": song.name})
            out.append((listed.is_error, str(listed.structured_content)))
        return out

    slash, dots, itself, listed = anyio.run(calls)
    assert slash[0] and "has '/' or '..'" in slash[1] and "\n" not in slash[1]
    assert dots[0] and "has '/' or '..'" in dots[1]
    assert itself[0] and "cannot merge branch 'main' into itself" in itself[1] and "\n" not in itself[1]
    assert not listed[0] and "a/b" not in listed[1] and "x..y" not in listed[1]
    assert (open_project(song).head.revision, sorted(p.name for p in song.rglob("*"))) == before

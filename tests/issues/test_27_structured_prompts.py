"""Issue 27: a structured prompt with `Mode: edit` answered "Nothing to change" with success
and changed nothing, while the same words typed plainly worked. Its words now go through the
plain-text router (Request, Vibe, Maestro's dimension blocks, scoped by Target); a request
that changes nothing is an error saying why, with suggestions — over the CLI (a real
process), the API (a real `bandstand serve`) and MCP. Maestro's and Stori's headers are read,
and a block nobody knows is a warning naming it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.intent import route
from bandstand.producer.sessions.projects import open_project
from tests.e2e.sse import stream
from tests.server.jam_process import bandstand_server

BUSIER = "BANDSTAND PROMPT\nMode: edit\nRequest: make the bass busier\n"
DARKER = "MAESTRO PROMPT\nMode: edit\nVibe: darker\n"
NOTHING = "BANDSTAND PROMPT\nMode: edit\nRequest: xyzzy the flange\n"
RHYTHM = "STORI PROMPT\nMode: edit\nRhythm:\n  swing: more\nSparkle: lots\n"


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("issue27")
    result = compose_song("funk groove in E minor with a synth pad", seed=3, bars=16, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return result.session_dir


@pytest.fixture
def song(composed: Path, tmp_path: Path) -> Path:
    target = tmp_path / "sessions" / composed.name
    shutil.copytree(composed, target)
    return target


# ----------------------------------------------------------------------------- the router


@pytest.mark.parametrize(("prompt", "plain"), [
    (BUSIER, "make the bass busier"),
    (DARKER, "make it darker"),
    ("BANDSTAND PROMPT\nMode: edit\nRequest: mute the drums\n", "mute the drums"),
    ("BANDSTAND PROMPT\nMode: edit\nKey: G minor\n", "change the key to G minor"),
    ("BANDSTAND PROMPT\nMode: edit\nStyle: house\n", "make it house"),
    ("BANDSTAND PROMPT\nMode: edit\nEnergy: high\n", "energy 8/10"),
])
def test_a_structured_edit_reads_as_its_words_do(song: Path, prompt: str, plain: str) -> None:
    head = open_project(song).head
    structured, words = route(prompt, project=head), route(plain, project=head)
    assert structured.mode == words.mode and structured.request == words.request
    assert structured.structured is not None


def test_dimension_blocks_and_target_become_the_parsers_words(song: Path) -> None:
    head = open_project(song).head
    prompt = ("MAESTRO PROMPT\nMode: edit\nRhythm:\n  swing: more\nDynamics:\n  chorus: louder\n"
              "Melody: higher\nTarget:\n  tracks: [lead]\nWhatever: 3\n")
    routed = route(prompt, project=head)
    assert routed.mode == "COMPOSING" and routed.intent == "compose.edit"
    assert routed.text == "higher lead and more swing and more energy in the chorus"
    assert routed.request is not None
    roles = {getattr(e, "override", None).role for e in routed.request.edits if hasattr(e, "override")}
    assert roles == {"lead"}  # "more swing" (every part) aimed at the Target's track
    assert any("unknown block 'Whatever'" in w for w in routed.warnings)


def test_a_target_section_the_song_lacks_is_one_line_naming_those_it_has(song: Path) -> None:
    head = open_project(song).head
    with pytest.raises(InvalidInput) as caught:
        route("BANDSTAND PROMPT\nMode: edit\nRequest: busier drums\nTarget: bridge\n", project=head)
    sections = ", ".join(dict.fromkeys(s.name.casefold() for s in head.sections))
    assert "'bridge'" in str(caught.value) and sections in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(("where", "bars", "placed"), [
    ("before chorus", None, (5, 4, 0.0)),
    ("before the Chorus", 2, (7, 2, 0.0)),
    ("after chorus - 1 beat", None, (13, None, -1.0)),
    ("alongside verse", None, (5, 4, 0.0)),
    ("within chorus", 8, (9, 4, 0.0)),
    ("between intro and chorus", None, (5, 4, 0.0)),
    ("start + 1/2 beat", None, (1, None, 0.5)),
    ("end", None, (17, None, 0.0)),
])
def test_position_reads_maestros_grammar_against_the_songs_sections(song: Path, where: str, bars: int | None,
                                                                    placed: tuple[int, int | None, float]) -> None:
    from bandstand.producer.requests.position import place

    head = open_project(song).head
    assert [(s.name, s.start_bar, s.bars) for s in head.sections][:3] == [("Intro", 1, 4), ("Verse", 5, 4),
                                                                         ("Chorus", 9, 4)]
    found = place(head, where, bars)
    assert (found.first_bar, found.bars, found.offset_beats) == placed


@pytest.mark.parametrize(("where", "words"), [
    ("after bridge", "no section 'bridge' in this song; its sections are Intro, Verse, Chorus, Outro"),
    ("between chorus and intro", "nothing lies between"),
    ("sideways of the chorus", "is not a place; say 'bar 17'"),
    ("before intro", "only 0 bars before 'intro'"),
    ("start - 1 beat", "before the song does"),
])
def test_a_position_that_is_not_there_is_one_line(song: Path, where: str, words: str) -> None:
    prompt = f"BANDSTAND PROMPT\nMode: compose\nRoles: [lead]\nPosition: {where}\n"
    with pytest.raises(InvalidInput) as caught:
        route(prompt, project=open_project(song).head)
    assert words in str(caught.value) and "\n" not in str(caught.value)


# ----------------------------------------------------------------------------- the CLI, a real process


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=300)


def test_cli_a_structured_edit_proposes_what_the_words_say_and_nothing_is_an_error(song: Path) -> None:
    done = _cli("edit", str(song), BUSIER)
    assert done.returncode == 0, done.stderr
    assert "Variation" in done.stdout and "bass" in done.stdout
    swung = _cli("edit", str(song), RHYTHM)
    assert swung.returncode == 0 and "swing" in swung.stdout, swung.stderr
    refused = _cli("edit", str(song), NOTHING)
    assert refused.returncode == 2 and "not understood" in refused.stderr and "try e.g." in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    assert open_project(song).head.revision == 1


# ----------------------------------------------------------------------------- the API, a real server


@pytest.fixture(scope="module")
def api(composed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, str, Path]]:
    out = tmp_path_factory.mktemp("issue27-serve")
    shutil.copytree(composed, out / composed.name)
    with bandstand_server("serve", "--members", "beat", "--out", str(out)) as served, \
            httpx.Client(base_url=served.base, headers=served.headers, timeout=120) as client:
        yield client, composed.name, out


def test_api_a_structured_edit_is_a_variation_and_nothing_to_change_is_not_a_success(
        api: tuple[httpx.Client, str, Path]) -> None:
    client, project, out = api
    busier = stream(client, BUSIER, projectId=project)
    assert busier.status == 200 and busier.events[-1]["success"] is True, busier
    assert busier.events[0]["executionMode"] == "variation" and busier.events[-1]["variationId"]
    darker = stream(client, DARKER, projectId=project)
    assert darker.events[-1]["success"] is True and darker.events[-1]["variationId"], darker
    nothing = stream(client, NOTHING, projectId=project)
    assert nothing.status == 422 and "not understood" in str(nothing.error), nothing
    warned = stream(client, RHYTHM, projectId=project)
    assert warned.events[-1]["success"] is True and any("Sparkle" in w for w in warned.events[-1]["warnings"])
    client.post(f"api/v1/projects/{project}/undo")  # nothing was committed: HEAD stays at 1
    assert open_project(out / project).head.revision == 1


def test_api_position_places_new_parts_with_a_pickup_and_refuses_a_missing_section(
        api: tuple[httpx.Client, str, Path]) -> None:
    client, project, _ = api
    prompt = "MAESTRO PROMPT\nMode: compose\nRoles: [arp]\nBars: 4\nPosition: after chorus - 1 beat\n"
    placed = stream(client, prompt, projectId=project)
    assert placed.events[-1]["success"] is True, placed
    call = next(e for e in placed.events if e["type"] == "toolCall" and e["name"] == "generate_part")
    assert (call["params"]["start_bar"], call["params"]["offset_beats"]) == (13, -1.0)
    committed = client.post(f"api/v1/variations/{placed.events[-1]['variationId']}/commit", json={})
    assert committed.status_code == 200, committed.text
    tracks = client.get(f"api/v1/projects/{project}").json()["project"]["tracks"]
    [arp] = [t for t in tracks if t["role"] == "arp"]
    assert [r["start_beat"] for r in arp["regions"]] == [47.0]  # bar 13 is beat 48; the pickup is a beat before
    missing = stream(client, prompt.replace("chorus", "bridge"), projectId=project)
    assert missing.status == 422 and "no section 'bridge'" in str(missing.error)
    assert "Intro, Verse, Chorus, Outro" in str(missing.error)


BENDS = """BANDSTAND PROMPT
Mode: edit
MidiExpressiveness:
  - track: lead
    pitch_bend: true
  - track: bass
    pitch_bend: true
"""


def test_api_pitch_bend_true_writes_the_bends_a_lead_and_a_bass_play(api: tuple[httpx.Client, str, Path]) -> None:
    import io

    import mido

    client, project, _ = api
    bent = stream(client, BENDS, projectId=project)
    assert bent.events[-1]["success"] is True, bent
    steps = [s["label"] for s in bent.one("plan")["steps"]]
    assert steps == ["Add pitch bends to Bass", "Add pitch bends to Lead"]
    midi = client.get(f"api/v1/projects/{project}/export", params={"format": "mid"})
    assert midi.status_code == 200
    song = mido.MidiFile(file=io.BytesIO(midi.content))
    by_name = {next((m.name for m in t if m.type == "track_name"), ""): t for t in song.tracks}
    for name in ("Lead", "Bass"):
        bends = [m.pitch for m in by_name[name] if m.type == "pitchwheel"]
        assert any(b != 0 for b in bends), name
        assert all(-4096 <= b <= 4096 for b in bends), name  # within a semitone of true pitch
    at, wheel, onsets = 0, [], []
    for message in by_name["Lead"]:
        at += message.time
        if message.type == "pitchwheel":
            wheel.append((at, message.pitch))
        elif message.type == "note_on" and message.velocity:
            onsets.append(at)
    # every gesture is back at 0 before the next note's own begins; a lead's note starts in tune
    # or scooped from below, never above
    left = [next((v for t, v in reversed(wheel) if t < onset), 0) for onset in onsets]
    starts = [next((v for t, v in reversed(wheel) if t <= onset), 0) for onset in onsets]
    assert onsets and all(v == 0 for v in left) and all(v <= 0 for v in starts) and min(starts) < 0
    pad = stream(client, BENDS.replace("track: bass", "track: pad"), projectId=project)
    assert pad.events[-1]["success"] is False and "Pad plays pad, which is not bent" in pad.events[-1]["error"]


def test_api_an_edit_already_done_says_so_as_an_error(api: tuple[httpx.Client, str, Path]) -> None:
    client, project, _ = api
    prompt = "BANDSTAND PROMPT\nMode: edit\nRequest: take the reverb off the lead\n"
    first = stream(client, prompt, projectId=project)
    assert first.events[-1]["success"] is True and first.events[-1]["revision"] >= 2, first
    again = stream(client, prompt, projectId=project)
    assert again.types[-2:] == ["error", "complete"] and again.events[-1]["success"] is False
    assert "nothing to change" in again.events[-1]["error"] and "try e.g." in again.events[-1]["error"]
    assert again.events[-1]["revision"] == first.events[-1]["revision"]


MEGABYTE = "MAESTRO PROMPT\nMode: edit\nRequest: " + "busier " * 150_000
BLOCKS = "STORI PROMPT\nMode: edit\n" + "".join(f"Block{i}: {{swing: more}}\n" for i in range(10_000))
MANY = "STORI PROMPT\nMode: edit\n" + "".join(f"B{i}: 1\n" for i in range(100))


def test_api_hostile_prompts_are_one_line_each_and_nothing_changes(api: tuple[httpx.Client, str, Path]) -> None:
    client, project, out = api
    before = open_project(out / project).revision
    for prompt, words in ((MEGABYTE, "larger than 1048576 bytes"), (MEGABYTE[:100_000], "at most 16384 characters"),
                          (BLOCKS, "at most 16384 characters"), (MANY, "has 101 fields; at most 64")):
        refused = stream(client, prompt, projectId=project)
        assert refused.status in (413, 422) and refused.error is not None, refused
        assert words in str(refused.error) and "\n" not in str(refused.error)
    assert open_project(out / project).revision == before


# ----------------------------------------------------------------------------- MCP


def test_mcp_edit_reads_a_structured_prompt_and_refuses_what_changes_nothing(song: Path) -> None:
    pytest.importorskip("mcp.server", reason="the mcp extra")
    import anyio
    from mcp import Client

    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library

    server = build_server(Band(Library(song.parent, folders=True)))

    async def calls() -> tuple[object, object, object]:
        async with Client(server) as client:
            made = await client.call_tool("edit", {"project": song.name, "request": BUSIER})
            refused = await client.call_tool("edit", {"project": song.name, "request": NOTHING})
            huge = await client.call_tool("edit", {"project": song.name, "request": MEGABYTE})
            long = await client.call_tool("edit", {"project": song.name, "request": BLOCKS})
            assert long.is_error and "characters long; a text here is at most" in long.content[0].text
            return made, refused, huge

    made, refused, huge = anyio.run(calls)
    assert huge.is_error and "at most 1048576" in huge.content[0].text  # type: ignore[attr-defined]
    assert not made.is_error and made.structured_content["kind"] == "variation"  # type: ignore[attr-defined]
    assert refused.is_error and "not understood" in refused.content[0].text  # type: ignore[attr-defined]
    assert open_project(song).head.revision == 1


# ----------------------------------------------------------------------------- a Maestro client

MAESTRO_EVENTS = {"state", "reasoning", "content", "status", "plan", "planSummary", "planStepUpdate", "toolStart",
                  "toolCall", "toolError", "generatorStart", "generatorComplete", "meta", "phrase", "done",
                  "progress", "stallWarning", "budgetUpdate", "summary.final", "error", "complete"}
"""The event types a client written from Maestro's documented stream knows (it refuses any other)."""


class MaestroClient:
    """A small client written against Maestro's documented SSE events: it keeps the plan's step
    states, the tool calls, the variation's phrases and the final outcome, and knows nothing else."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def run(self, prompt: str, project: str | None = None) -> dict[str, Any]:
        steps: dict[str, str] = {}
        calls: list[str] = []
        phrases: list[str] = []
        body = {"prompt": prompt, **({"projectId": project} if project else {})}
        with self.client.stream("POST", "api/v1/stream", json=body, timeout=300) as answer:
            assert answer.status_code == 200, answer.read()
            for line in answer.iter_lines():
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[6:])
                kind = event["type"]
                assert kind in MAESTRO_EVENTS, f"a Maestro client does not know '{kind}'"
                if kind == "plan":
                    steps = {s["stepId"]: s["status"] for s in event["steps"]}
                elif kind == "planStepUpdate":
                    steps[event["stepId"]] = event["status"]
                elif kind == "toolCall":
                    calls.append(event["name"])
                elif kind == "phrase":
                    phrases.append(event["phraseId"])
                elif kind == "complete":
                    return {"complete": event, "steps": steps, "calls": calls, "phrases": phrases}
        raise AssertionError("the stream ended without complete")


def test_a_maestro_client_drives_a_compose_and_an_edit_without_changes(api: tuple[httpx.Client, str, Path]) -> None:
    client, _, _ = api
    maestro = MaestroClient(client)
    composed = maestro.run("MAESTRO PROMPT\nMode: compose\nStyle: funk\nTempo: 96\nKey: E minor\n"
                           "Roles: [drums, bass]\nBars: 8\n")
    done = composed["complete"]
    assert done["success"] is True and composed["phrases"] and "generate_part" in composed["calls"]
    assert set(composed["steps"].values()) == {"completed"}
    assert client.post(f"api/v1/variations/{done['variationId']}/commit", json={}).status_code == 200
    edited = maestro.run("MAESTRO PROMPT\nMode: edit\nRequest: make the bass busier\n", done["projectId"])
    assert edited["complete"]["success"] is True and edited["complete"]["variationId"] and edited["phrases"]
    mixed = maestro.run("mute the drums and pan the bass left", done["projectId"])
    assert mixed["complete"]["success"] is True and mixed["calls"] == ["mute_track", "set_track_pan"]

"""Around the stream: conversations (the next request sees the turns: "make it
darker" after "add a pad" means the pad; the conversation keeps its project),
preview (the plan, nothing written), cancellation (a cancelled request stops at
its next step, leaves nothing running and proposes nothing)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.producer.execution.running import Control
from bandstand.producer.requests.conversations import MAX_TURNS
from bandstand.producer.sessions.studio import Studio
from tests.producer.streams import one, run, studio_with


@pytest.fixture
def studio(composed: Callable[..., Path], tmp_path: Path) -> tuple[Studio, str]:
    return studio_with(composed, tmp_path)


def test_the_next_request_sees_the_conversation(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    conversation = st.conversations.create(pid).id
    first = run(st, "add a string pad to the chorus", conversation_id=conversation)
    assert first[0]["projectId"] == pid and first[0]["conversationId"] == conversation
    st.library.commit(first[-1]["variationId"])
    darker = run(st, "make it darker", conversation_id=conversation)
    assert {e["role"] for e in darker if e["type"] == "generatorStart"} == {"pad"}  # "it" is the pad
    second = run(st, "make it busier", conversation_id=conversation)
    meta = one(second, "meta")
    assert "pad" in meta["intent"] and "every part" not in meta["intent"]
    touched = {e["role"] for e in second if e["type"] == "generatorStart"}
    assert touched == {"pad"}
    turns = st.conversations.get(conversation).turns
    assert turns[0].text == "add a string pad to the chorus" and turns[1].focus == ["String Pad"]
    assert turns[-1].variation_id == second[-1]["variationId"]


def test_a_conversation_is_bounded(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    conversation = st.conversations.create(pid).id
    for _ in range(MAX_TURNS // 2 + 3):
        run(st, "what is the tempo?", conversation_id=conversation)
    assert len(st.conversations.get(conversation).turns) == MAX_TURNS


def test_preview_plans_without_doing(studio: tuple[Studio, str], tmp_path: Path) -> None:
    st, pid = studio
    shown = st.preview("mute the drums and set the tempo to 96", project_id=pid)
    assert shown["state"] == "EDITING" and shown["executionMode"] == "apply"
    assert [s["label"] for s in shown["plan"]["steps"]] == ["Set tempo to 96 BPM", "Mute Drums"]
    assert shown["plan"]["steps"][1]["tools"] == [{"name": "mute_track", "args": {"track": "Drums", "muted": True}}]
    fresh = st.preview("a jazz trio groove, 8 bars")
    assert fresh["newProject"] and fresh["plan"]["title"].startswith("Building a jazz")
    assert "Set up shared Room bus" in [s["label"] for s in fresh["plan"]["steps"]]
    rewrite = st.preview("make the bass busier", project_id=pid)
    assert [s["label"] for s in rewrite["plan"]["steps"]] == ["Rewrite Bass"]
    assert st.library.ids() == [pid] and st.library.session(pid).revision == 1


STRUCTURED_EDIT = """BANDSTAND PROMPT
Mode: edit
Effects:
  bass: compressor
MidiExpressiveness:
  - track: lead
    cc: modulation
    from: 0
    to: 100
Automation:
  - track: chords
    parameter: volume
    points: [[0, 0.3], [32, 0.9]]
"""


def test_a_structured_edits_blocks_are_steps_previewed_and_run(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    shown = [s["label"] for s in st.preview(STRUCTURED_EDIT, project_id=pid)["plan"]["steps"]]
    assert shown == ["Add compressor to Bass", "Automate Chords volume", "Add CC 1 to Lead"]  # in track order
    events = run(st, STRUCTURED_EDIT, pid)
    assert events[0]["state"] == "EDITING" and [s["label"] for s in one(events, "plan")["steps"]] == shown
    assert events[-1]["success"] is True and events[-1]["revision"] == 2
    head = {t.name: t for t in st.library.session(pid).head.tracks}
    assert [e.type for e in head["Bass"].inserts][-1] == "compressor"
    assert [lane.parameter for lane in head["Chords"].automation] == ["volume"]


def test_a_cancelled_request_stops_and_leaves_nothing_running(tmp_path: Path) -> None:
    studio = Studio(tmp_path)
    prepared = studio.prepare("BANDSTAND PROMPT\nMode: compose\nStyle: house\nTempo: 124\n"
                              "Roles: [drums, bass, chords, lead, pad, arp]\nBars: 256\n")
    events: list[dict[str, object]] = []
    control = Control(timeout=300)

    async def main() -> None:
        started = asyncio.Event()

        def sink(event: dict[str, object]) -> None:
            events.append(event)
            if event["type"] == "generatorStart":
                loop.call_soon_threadsafe(started.set)

        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(studio.stream(prepared, sink, control=control))
        await asyncio.wait_for(started.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    before = threading.active_count()
    asyncio.run(main())
    assert control.cancel.is_set() and studio.running == {}
    # the request's work has returned; its worker thread is back at the pool's queue a moment later
    deadline = time.monotonic() + 5
    while any(t.name.startswith("studio") and t.is_alive() and _busy(t) for t in threading.enumerate()):
        assert time.monotonic() < deadline, "a studio worker is still busy after the request was cancelled"
        time.sleep(0.01)
    starts = sum(1 for e in events if e["type"] == "generatorStart")
    assert starts < 6 and events[-1]["type"] == "complete" and events[-1]["success"] is False
    assert not any(e["type"] == "meta" for e in events)
    time.sleep(0.2)
    assert not studio.library.session(str(prepared.project_id)).variations()
    assert threading.active_count() <= before + 16


def _busy(thread: threading.Thread) -> bool:
    """A studio worker is idle when it waits for work in the pool's queue."""
    import sys
    import traceback

    frame = sys._current_frames().get(thread.ident or -1)
    return frame is not None and not any("_worker" in line.name and "queue" in (line.line or "")
                                         for line in traceback.extract_stack(frame)[-3:])


def test_a_team_can_take_a_new_song(tmp_path: Path) -> None:
    """The seam agent teams plug into: a new multi-part song goes to `studio.team`, which says
    its events between the stream's state and complete (here: the built-in musicians)."""
    from bandstand.producer.requests import modes

    studio = Studio(tmp_path)
    taken: list[str] = []

    async def team(job):  # type: ignore[no-untyped-def]
        taken.append(job.routed.intent)
        return await asyncio.to_thread(modes.compose, job)

    studio.team = team
    events = run(studio, "a funk groove at 100 bpm with drums and bass, 8 bars")
    assert taken == ["compose.new"] and events[-1]["success"] and events[-1]["variationId"]
    run(studio, "mute the drums", events[0]["projectId"])
    assert taken == ["compose.new"]  # only new songs go to the team

"""The studio stream in process, mode by mode (spec studio §6): the exact event
orders, a plan with a refused step (the rest skipped, nothing changed), no-op
steps dropped, the server choosing the execution mode, and every stream ending
with `complete`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput, NotFound
from bandstand.producer.sessions.studio import Studio
from tests.producer.streams import one, run, studio_with, types


@pytest.fixture
def studio(composed: Callable[..., Path], tmp_path: Path) -> tuple[Studio, str]:
    return studio_with(composed, tmp_path)


def test_a_question_is_answered_from_the_project(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "what key is this in?", pid)
    assert types(events) == ["state", "reasoning", "reasoning", "content", "complete"]
    state = events[0]
    assert (state["state"], state["executionMode"], state["intent"]) == ("REASONING", "none", "ask.key")
    assert "minor" in one(events, "content")["content"] or "major" in one(events, "content")["content"]
    assert events[-1]["success"] is True and events[-1]["revision"] == 1 and events[-1]["variationId"] is None


def test_an_edit_with_a_plan_applies_as_one_revision(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "mute the drums, set the tempo to 96 and pan the bass left", pid)
    step = ["planStepUpdate", "toolStart", "toolCall", "planStepUpdate", "progress"]
    assert types(events) == ["state", "plan", "planSummary", *step, *step, *step, "summary.final", "complete"]
    assert events[0]["executionMode"] == "apply"
    plan = one(events, "plan")
    assert [s["label"] for s in plan["steps"]] == ["Set tempo to 96 BPM", "Mute Drums", "Pan Bass 50% left"]
    updates = [(e["stepId"], e["status"]) for e in events if e["type"] == "planStepUpdate"]
    assert updates == [("s1", "active"), ("s1", "completed"), ("s2", "active"), ("s2", "completed"),
                       ("s3", "active"), ("s3", "completed")]
    assert events[-1]["revision"] == 2
    head = st.library.session(pid).head
    assert head.tempo == 96 and next(t for t in head.tracks if t.name == "Drums").mute
    again = run(st, "set the tempo to 96 and mute the drums", pid)  # nothing left to do: never a success
    assert types(again) == ["state", "error", "complete"] and again[-1]["revision"] == 2
    assert again[-1]["success"] is False and again[-1]["error"].startswith("nothing to change")


def test_one_tool_call_needs_no_plan(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "solo the bass", pid)
    assert types(events) == ["state", "toolStart", "toolCall", "summary.final", "complete"]
    assert one(events, "toolCall")["params"] == {"track": "Bass", "solo": True}


def test_a_refused_step_fails_the_plan_and_the_rest_is_skipped(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "set the tempo to 100, rename the bass to Drums and pan the keys left", pid)
    labels = [s["label"] for s in one(events, "plan")["steps"]]
    assert labels == ["Set tempo to 100 BPM", "Rename Bass to Drums", "Pan Chords 50% left"]
    updates = [(e["stepId"], e["status"]) for e in events if e["type"] == "planStepUpdate"]
    assert updates == [("s1", "active"), ("s1", "completed"), ("s2", "active"), ("s2", "failed"), ("s3", "skipped")]
    error = one(events, "toolError")
    assert error["name"] == "set_track_name" and "Drums" in error["error"]
    assert types(events)[-2:] == ["error", "complete"] and events[-1]["success"] is False
    assert "nothing was changed" in events[-1]["error"] and events[-1]["revision"] == 1
    assert st.library.session(pid).head.tempo != 100  # all or nothing
    unknown = run(st, "mute the kazoo", pid)
    assert "no track 'kazoo'" in one(unknown, "toolError")["error"] and "'Bass'" in unknown[-1]["error"]


def test_a_change_of_notes_is_a_variation(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "make the bass busier", pid)
    kinds = types(events)
    assert events[0]["executionMode"] == "variation" and events[0]["state"] == "COMPOSING"
    assert kinds[:4] == ["state", "status", "generatorStart", "generatorComplete"]
    assert one(events, "generatorComplete")["role"] == "bass" and one(events, "generatorComplete")["noteCount"] > 0
    meta, done = kinds.index("meta"), kinds.index("done")
    assert set(kinds[meta + 1:done]) == {"phrase"} and kinds[done:] == ["done", "summary.final", "complete"]
    assert one(events, "done")["phraseCount"] == done - meta - 1
    assert events[-1]["variationId"] == one(events, "meta")["variationId"] and events[-1]["revision"] == 1
    assert st.library.session(pid).revision == 1  # nothing changes before commit
    committed = st.library.commit(events[-1]["variationId"])
    assert committed["revision"] == 2


def test_praise_changes_nothing(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = run(st, "love it", pid)
    assert types(events) == ["state", "content", "complete"] and events[0]["intent"] == "praise"


def test_requests_that_cannot_run_are_refused_before_the_stream(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    with pytest.raises(InvalidInput, match="not understood"):
        st.prepare("blorp the flux capacitor", project_id=pid)
    with pytest.raises(InvalidInput, match="give projectId"):
        st.prepare("mute the drums")
    with pytest.raises(NotFound):
        st.prepare("mute the drums", project_id="session-20200101-000000")
    with pytest.raises(InvalidInput, match="Tempoo"):
        st.prepare("BANDSTAND PROMPT\nMode: edit\nTempoo: 90", project_id=pid)
    events = run(st, "mute it", pid)  # no conversation: 'it' is nothing yet
    assert types(events) == ["state", "error", "complete"] and "which track?" in events[-1]["error"]

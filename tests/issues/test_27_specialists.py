"""Issue 27: requests go to the specialist that handles them — "make the chords jazzier" to
harmony, "tighter groove" to rhythm, "warmer bass sound" to sound (an insert effect on the
Bass), "drums too loud" to mix — and the stream's `state` and plan say who handled it."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from bandstand.producer.sessions.studio import Studio


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("issue27-specialists")
    result = compose_song("funk groove in E minor with a synth pad", seed=3, bars=16, out_dir=str(out), render_audio=False).result
    assert result.status == "completed", result.state.error
    return result.session_dir


@pytest.fixture
def studio(composed: Path, tmp_path: Path) -> tuple[Studio, str]:
    shutil.copytree(composed, tmp_path / composed.name)
    return Studio(tmp_path), composed.name


def _run(studio: Studio, prompt: str, project_id: str) -> list[dict[str, Any]]:
    prepared = studio.prepare(prompt, project_id=project_id)
    events: list[dict[str, Any]] = []
    asyncio.run(studio.stream(prepared, events.append))
    return events


@pytest.mark.parametrize(("request_text", "specialist", "mode"), [
    ("make the chords jazzier", "harmony", "COMPOSING"),
    ("tighter groove", "rhythm", "COMPOSING"),
    ("drums too loud", "mix", "EDITING"),
    ("change the key to G minor", "harmony", "EDITING"),
    ("make the bass busier", "composer", "COMPOSING"),
])
def test_the_state_names_the_specialist(studio: tuple[Studio, str], request_text: str, specialist: str,
                                        mode: str) -> None:
    st, pid = studio
    events = _run(st, request_text, pid)
    assert (events[0]["specialist"], events[0]["state"]) == (specialist, mode)
    assert events[-1]["success"] is True or "\n" not in events[-1]["error"]  # (this song's chords are as rich as they go)


def test_a_warmer_bass_sound_is_the_sound_specialists_eq_on_the_bass(studio: tuple[Studio, str]) -> None:
    st, pid = studio
    events = _run(st, "warmer bass sound and mute the pad", pid)
    assert events[0]["specialist"] in ("sound", "mix") and events[-1]["success"] is True, events[-1]
    plan = next(e for e in events if e["type"] == "plan")
    labels = {s["label"]: s["agentId"] for s in plan["steps"]}
    assert "Warmer Bass sound (eq)" in labels and set(labels.values()) == {events[0]["specialist"]}
    head = st.library.session(pid).head
    bass = next(t for t in head.tracks if t.name == "Bass")
    eq = [e for e in bass.inserts if e.type == "eq"][-1]  # after the mixing desk's own eq
    assert eq.params["low_gain_db"] == 3.0 and eq.params["high_gain_db"] == -4.0
    alone = _run(st, "a brighter lead tone", pid)
    assert alone[0]["specialist"] == "sound" and alone[0]["state"] == "EDITING" and alone[-1]["success"] is True

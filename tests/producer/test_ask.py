"""Questions answered from the project's figures, offline: the key (declared and
heard), a section's chords, why a section feels flat (against the rest of the
song, with what to say to lift it), tempo, form, parts; a request phrased as a
question is not a question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.producer.analysis import analyse, estimate_key
from bandstand.producer.ask import answer, is_question
from bandstand.producer.projects import ProjectSession, open_project


@pytest.fixture(scope="module")
def song(composed: Callable[..., Path]) -> ProjectSession:
    return open_project(composed("funk groove in E minor", 3, 64))


@pytest.mark.parametrize(("text", "asking"), [
    ("what key is this in?", True), ("which chords are in the chorus", True), ("why does the bridge feel flat?", True),
    ("can you mute the drums?", False), ("please make it darker", False), ("how about more energy?", False),
    ("make the bass busier", False)])
def test_questions_are_told_from_requests(text: str, asking: bool) -> None:
    assert is_question(text) is asking


def test_the_key_is_the_declared_one_and_the_heard_one(song: ProjectSession) -> None:
    reply = answer(song.head, "what key is this in?")
    assert reply.topic == "key" and "E minor" in reply.content and reply.figures["keyHeard"] == "E minor"


def test_a_sections_chords_come_from_the_song(song: ProjectSession) -> None:
    reply = answer(song.head, "which chords are in the chorus?")
    figures = analyse(song.head)
    chorus = figures.section("chorus")
    assert chorus is not None and chorus.chords and all(c in reply.content for c in chorus.chords)


def test_why_the_bridge_feels_flat_names_figures_and_fixes(song: ProjectSession) -> None:
    reply = answer(song.head, "why does the bridge feel flat?")
    bridge = analyse(song.head).section("bridge")
    assert reply.topic == "flat" and bridge is not None and bridge.name in reply.content
    assert f"{bridge.notes_per_bar:g} notes a bar" in reply.content and "try '" in reply.content
    assert reply.reasoning[0].startswith(f"{bridge.name} (bars {bridge.start_bar}")


def test_the_intro_is_flatter_than_the_bridge(song: ProjectSession) -> None:
    intro = answer(song.head, "why does the intro feel so boring?").content
    assert "parts play" in intro and "busier in the intro" in intro


def test_a_project_without_a_plan_has_its_chords_read_from_the_notes(session: ProjectSession) -> None:
    figures = analyse(session.head)
    assert figures.sections and all(s.chords for s in figures.sections if s.notes_per_bar)
    assert answer(session.head, "what's the tempo?").content.startswith(f"{session.head.tempo:g} BPM")


def test_the_key_profile_reads_a_scale() -> None:
    c_major = [1.0 if pc in (0, 2, 4, 5, 7, 9, 11) else 0.0 for pc in range(12)]
    c_major[0] = c_major[7] = 3.0
    assert estimate_key(c_major)[0] == "C major" and estimate_key([0.0] * 12) == (None, 0.0)

"""Intent routing in the spec's order: structured prompt → question → the mixer's
rule table (EDITING) → producer idioms and generation phrases (COMPOSING) → the
language model when there is one → not understood, with the closest examples."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.intent import route
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import Project


@pytest.fixture(scope="module")
def project(composed: Callable[..., Path]) -> Project:
    return open_project(composed("funk groove in E minor", 3, 16)).head


@pytest.mark.parametrize(("text", "mode", "intent"), [
    ("BANDSTAND PROMPT\nMode: ask\nRequest: what key is this?", "REASONING", "structured.ask"),
    ("BANDSTAND PROMPT\nMode: edit\nRequest: mute the drums", "EDITING", "structured.edit"),
    ("what key is this in?", "REASONING", "ask.key"),
    ("why does the bridge feel flat?", "REASONING", "ask.flat"),
    ("mute the drums", "EDITING", "edit.mixer"),
    ("set the tempo to 96", "EDITING", "edit.tempo"),
    ("change the key to G minor", "EDITING", "edit.key"),
    ("the bass louder", "EDITING", "edit.mix"),
    ("play from the chorus", "EDITING", "transport.play"),
    ("keep the drums", "EDITING", "edit.freeze"),
    ("can you mute the drums?", "EDITING", "edit.mixer"),
    ("make the bass busier", "COMPOSING", "compose.edit"),
    ("switch to dorian", "COMPOSING", "compose.edit"),
    ("add a string pad to the chorus", "COMPOSING", "compose.edit"),
    ("write a bassline", "COMPOSING", "compose.parts"),
    ("make a new song, a funk groove", "COMPOSING", "compose.new"),
    ("make it more romantic", "COMPOSING", "compose.mood"),
    ("love it", "REASONING", "praise"),
])
def test_routes(project: Project, text: str, mode: str, intent: str) -> None:
    routed = route(text, project=project)
    assert (routed.mode, routed.intent) == (mode, intent)
    assert 0 < routed.confidence <= 1


def test_without_a_project_a_generation_phrase_is_a_new_song() -> None:
    routed = route("a funk groove at 96 bpm, 16 bars", project=None)
    assert (routed.mode, routed.intent, routed.new_project) == ("COMPOSING", "compose.new", True)


def test_what_nothing_routes_is_for_the_model_or_not_understood(project: Project) -> None:
    with pytest.raises(InvalidInput, match=r"not understood: 'give it more of that thing'; try e\.g\."):
        route("give it more of that thing", project=project)
    routed = route("give it more of that thing", project=project, model=True)
    assert routed.needs_model and routed.confidence == 0


def test_it_means_what_the_conversation_was_about(project: Project) -> None:
    alone = route("make it busier", project=project)
    assert {e.override.role for e in alone.request.edits} == {"*"}  # type: ignore[union-attr]
    focused = route("make it busier", project=project, focus=["Bass"])
    assert {e.override.role for e in focused.request.edits} == {"bass"}  # type: ignore[union-attr]
    everything = route("make everything busier", project=project, focus=["Bass"])
    assert {e.override.role for e in everything.request.edits} == {"*"}  # type: ignore[union-attr]


def test_every_request_has_an_emotion(project: Project) -> None:
    assert route("make it more romantic", project=project).emotion.intimacy > 0.8
    assert route("mute the drums", project=project).emotion.neutral

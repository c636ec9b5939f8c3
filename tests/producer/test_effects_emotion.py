"""Effects inferred from role and style (reverb always through a bus; `no_effects`
turns it off) and the emotion vector, from words, Energy and tempo, as knobs."""

from __future__ import annotations

import pytest

from bandstand.producer.composing.compose_plan import ComposeSpec, PartSpec, compose_plan
from bandstand.producer.requests.effects import infer_effects
from bandstand.producer.requests.emotion import MOOD_EMOTION, derive_emotion
from bandstand.studio import Project


@pytest.mark.parametrize(("role", "style", "expected"), [
    ("drums", "pop", [("compressor", None)]), ("bass", "pop", [("compressor", None)]),
    ("pad", "pop", [("reverb", "Reverb")]), ("lead", "pop", [("reverb", "Reverb")]),
    ("chords", "pop", [("reverb", "Reverb")]),
    ("lead", "metal", [("reverb", "Reverb"), ("distortion", None)]),
    ("lead", "indie rock", [("reverb", "Reverb"), ("distortion", None)]),
    ("drums", "lo-fi hip hop", [("compressor", None), ("filter", None)]),
    ("chords", "lofi", [("reverb", "Reverb"), ("chorus", None)]),
    ("pad", "jazz", [("reverb", "Room")]),
])
def test_effects_follow_role_and_style(role: str, style: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(f.type, f.bus) for f in infer_effects(role, style)] == expected


def test_reverb_is_never_an_insert_and_no_effects_turns_it_off() -> None:
    project = Project(id="p", tempo=100, key="C major")
    parts = (PartSpec("drums", "Drums"), PartSpec("pad", "Pad", 89))
    plan = compose_plan(project, ComposeSpec(text="pop", style="pop", bars=8, parts=parts))
    calls = [c for s in plan.steps for c in s.calls]
    assert not any(c.name == "add_insert_effect" and c.args.get("type") == "reverb" for c in calls)
    assert {"ensure_bus", "add_send"} <= {c.name for c in calls}
    bare = compose_plan(project, ComposeSpec(text="pop", style="pop", bars=8, parts=parts, infer_effects=False))
    assert [s.label for s in bare.steps] == ["Create Drums track", "Add content to Drums", "Create Pad track",
                                             "Add content to Pad"]


def test_the_emotion_of_words_energy_and_tempo() -> None:
    sad = derive_emotion("a sad, lonely ballad")
    happy = derive_emotion("happy summer party")
    assert sad.valence < 0.3 < 0.7 < happy.valence and sad.moods == ("sad",)
    assert derive_emotion("anything", energy=0.9).energy == 0.9
    assert derive_emotion("anything", tempo=170).motion > derive_emotion("anything", tempo=70).motion
    assert derive_emotion("nothing in particular").neutral and derive_emotion("").override() is None
    knobs = derive_emotion("angry aggressive", energy=1.0).knobs()
    assert knobs["density"] > 0.2 and knobs["articulation"] < 0
    tender = derive_emotion("tender intimate lullaby", energy=0.1).knobs()
    assert tender["density"] < -0.2 and tender["articulation"] > 0.2


def test_a_moods_energy_is_the_one_compose_plays_it_at() -> None:
    from bandstand.compose.lexicon.moods import MOODS

    for mood in MOODS:  # "mechanical" once had 0.6 here and 0.4 in the lexicon
        assert MOOD_EMOTION[mood.label][0] == mood.energy, mood.label
    assert derive_emotion("a robot at work").energy == 0.4

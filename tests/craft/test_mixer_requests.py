"""The studio reads the mixer's and the player's words with the same parser the
jam and iteration use (`parse_request(text, studio=True)`): mute, solo, level,
pan, effects, quantize, swing, rename, an empty track, play/stop/loop. Without
`studio` nothing changes for the jam ("solo" is still a musical solo)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.craft.edits import AddPartEdit, MixEdit, SoloEdit, StyleEdit
from bandstand.craft.mixer_edits import (
    AddTrackEdit,
    EffectEdit,
    MuteEdit,
    PanEdit,
    QuantizeEdit,
    RenameEdit,
    SwingEdit,
    TrackSoloEdit,
    TransportEdit,
    VolumeEdit,
)
from bandstand.craft.requests import parse_request, scoped_to
from bandstand.errors import InvalidInput
from bandstand.producer.requests.iteration import vocabulary

CASES = [
    ("mute the drums", [MuteEdit(part="drums", role="drums")]),
    ("unmute the bass and the drums", [MuteEdit(part="bass", role="bass", muted=False),
                                       MuteEdit(part="drums", role="drums", muted=False)]),
    ("solo the bass", [TrackSoloEdit(part="bass", role="bass")]),
    ("set the bass volume to 70%", [VolumeEdit(part="bass", role="bass", level=0.7)]),
    ("make the bass volume 0.7", [VolumeEdit(part="bass", role="bass", level=0.7)]),
    ("turn the drums down 3 dB", [VolumeEdit(part="drums", role="drums", db=-3.0)]),
    ("pan the keys left", [PanEdit(part="keys", role="chords", pan=0.25)]),
    ("pan the guitar 30% right", [PanEdit(part="guitar", role="chords", pan=0.65)]),
    ("center the bass", [PanEdit(part="bass", role="bass", pan=0.5)]),
    ("add reverb to the pad", [EffectEdit(part="pad", role="pad", effect="reverb")]),
    ("compress the drums", [EffectEdit(part="drums", role="drums", effect="compressor")]),
    ("put a delay on the lead", [EffectEdit(part="lead", role="lead", effect="delay")]),
    ("quantize the drums to 8ths at 50%", [QuantizeEdit(part="drums", role="drums", grid="1/2", strength=0.5)]),
    ("apply 60% swing to the hi-hats", [SwingEdit(part="hi-hats", role="drums", amount=0.6)]),
    ("swing the drums 30%", [SwingEdit(part="drums", role="drums", amount=0.3)]),
    ("rename the bass to Sub Bass", [RenameEdit(part="bass", role="bass", name="Sub Bass")]),
    ("call the lead 'Hook'", [RenameEdit(part="lead", role="lead", name="Hook")]),
    ("add a piano track", [AddTrackEdit(name="Piano", role="chords", program=0)]),
    # the clarinet every counter-melody plays when nothing names its instrument (craft.roles.DEFAULT_PROGRAMS)
    ("add a counter melody track", [AddTrackEdit(name="Counter Melody", role="counter_melody", program=71)]),
    ("add a new track called Keys", [AddTrackEdit(name="Keys")]),
    ("play from the chorus", [TransportEdit(action="play", section="chorus")]),
    ("stop", [TransportEdit(action="stop")]),
    ("loop the bridge", [TransportEdit(action="loop", section="bridge")]),
    ("go to bar 17", [TransportEdit(action="seek", bar=17)]),
    ("mute it", [MuteEdit(part="it")]),
    ("less reverb on the lead", [EffectEdit(part="lead", role="lead", effect="reverb", amount="less")]),
    ("a bit more reverb on the pad", [EffectEdit(part="pad", role="pad", effect="reverb", amount="more")]),
    ("add more reverb to the pad", [EffectEdit(part="pad", role="pad", effect="reverb", amount="more")]),
    ("the pad needs less reverb", [EffectEdit(part="pad", role="pad", effect="reverb", amount="less")]),
    ("drier drums", [EffectEdit(part="drums", role="drums", effect="reverb", amount="less")]),
    ("make the lead wetter", [EffectEdit(part="lead", role="lead", effect="reverb", amount="more")]),
    ("take the reverb off the lead", [EffectEdit(part="lead", role="lead", effect="reverb", amount="none")]),
    ("no reverb on the drums", [EffectEdit(part="drums", role="drums", effect="reverb", amount="none")]),
]

LEVEL_WORDS = [
    ("turn the lead down", "lead", 0.8), ("bring the pad up", "pad", 1.25), ("pull the pad back", "pad", 0.8),
    ("the drums are too loud", "drums", 0.8), ("the bass is too quiet", "bass", 1.25),
    ("I can't hear the bass", "bass", 1.25), ("the lead is way too loud", "lead", 0.6),
    ("make the bass louder", "bass", 1.25),
]


@pytest.mark.parametrize(("text", "role", "volume"), LEVEL_WORDS)
def test_level_words_turn_a_part_up_or_down(text: str, role: str, volume: float) -> None:
    request = parse_request(text, vocabulary(), studio=True)
    assert [(e.role, e.volume) for e in request.edits if isinstance(e, MixEdit)] == [(role, volume)]
    assert request.mixer == ()


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_mixer_words(text: str, expected: list[object]) -> None:
    request = parse_request(text, vocabulary(), studio=True)
    assert list(request.mixer) == expected and request.edits == ()


def test_musical_words_are_still_read_beside_the_mixer() -> None:
    request = parse_request("mute the drums and make the bass busier", vocabulary(), studio=True)
    assert request.mixer == (MuteEdit(part="drums", role="drums"),)
    assert [type(e) for e in request.edits] == [StyleEdit] and request.edits[0].override.role == "bass"
    assert isinstance(parse_request("add a string pad", vocabulary(), studio=True).edits[0], AddPartEdit)
    assert parse_request("swing it", vocabulary(), studio=True).mixer == ()


def test_without_the_studio_nothing_changes_for_the_jam() -> None:
    request = parse_request("solo the bass", vocabulary())
    assert request.mixer == () and isinstance(request.edits[0], SoloEdit)
    assert parse_request("mute the drums", vocabulary()).understood is False


def test_scoped_to_aims_edits_for_every_part_at_the_parts_talked_about() -> None:
    request = scoped_to(parse_request("make it darker", vocabulary()), ["pad"])
    assert [e.override.role for e in request.edits if isinstance(e, StyleEdit)] == ["pad"]
    named = parse_request("make the bass darker", vocabulary())
    assert scoped_to(named, ["pad"]) == named


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_reads_or_is_refused_in_one_line(text: str) -> None:
    try:
        request = parse_request(text, vocabulary(), studio=True)
    except InvalidInput as exc:
        assert "\n" not in str(exc)
        return
    for edit in request.mixer:
        assert edit.model_validate(edit.model_dump()) == edit

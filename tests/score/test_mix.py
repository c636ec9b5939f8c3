"""The mix model: the effect table checks every parameter, values are frozen, automation
interpolates by its curve, and solo/mute decide what is heard."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.score import (
    EFFECTS,
    AutomationLane,
    AutomationPoint,
    Bus,
    Effect,
    Send,
    Song,
    Track,
    TrackMix,
    audible,
    automation_parameters,
    parameter_range,
)


def test_every_effect_fills_its_defaults_in_table_order() -> None:
    for etype, specs in EFFECTS.items():
        e = Effect(etype)
        assert list(e.params) == list(specs)
        assert all(e.params[n] == s.default for n, s in specs.items())


def test_effect_params_are_checked_with_suggestions() -> None:
    with pytest.raises(InvalidInput, match="did you mean 'reverb'"):
        Effect("reverbb")
    with pytest.raises(InvalidInput, match="did you mean 'feedback'"):
        Effect("delay", {"feedbak": 0.2})
    with pytest.raises(InvalidInput, match=r"out of range; use -60..0 dB"):
        Effect("compressor", {"threshold_db": 3})
    with pytest.raises(InvalidInput, match="not one of: lowpass, highpass, bandpass"):
        Effect("filter", {"kind": "notch"})
    with pytest.raises(InvalidInput, match="must be a number"):
        Effect("reverb", {"wet": float("nan")})
    with pytest.raises(InvalidInput, match="must be a number"):
        Effect("reverb", {"wet": True})


def test_effect_params_cannot_be_changed_after_construction() -> None:
    e = Effect("reverb", {"wet": 0.4})
    with pytest.raises(TypeError):
        e.params["wet"] = 1.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.type = "delay"  # type: ignore[misc]
    assert e.num("wet") == 0.4


def test_track_mix_ranges() -> None:
    with pytest.raises(InvalidInput, match="volume"):
        TrackMix(volume=1.6)
    with pytest.raises(InvalidInput, match="pan"):
        TrackMix(pan=-0.1)
    with pytest.raises(InvalidInput, match="send level"):
        Send("Reverb", 1.5)
    with pytest.raises(InvalidInput, match="needs a name"):
        Bus(" ")


def test_automation_lanes_sort_and_check_values() -> None:
    lane = AutomationLane("volume", (AutomationPoint(8, 0.0), AutomationPoint(0, 1.0)))
    assert [p.beat for p in lane.points] == [0, 8]
    assert lane.value_at(-1) is None
    assert lane.value_at(4) == pytest.approx(0.5)
    assert lane.value_at(100) == 0.0
    with pytest.raises(InvalidInput, match="out of range"):
        AutomationLane("pan", (AutomationPoint(0, 2.0),))
    with pytest.raises(InvalidInput, match="cannot automate"):
        AutomationLane("filter.kind")
    with pytest.raises(InvalidInput, match="curve"):
        AutomationPoint(0, 1.0, "wobbly")


@pytest.mark.parametrize(("curve", "mid"), [("linear", 0.5), ("step", 0.0), ("smooth", 0.5), ("exp", 0.25),
                                            ("log", 0.5 ** 0.5)])
def test_automation_curves_shape_the_way_to_the_next_point(curve: str, mid: float) -> None:
    lane = AutomationLane("pan", (AutomationPoint(0, 0.0, curve), AutomationPoint(4, 1.0)))
    assert lane.value_at(2) == pytest.approx(mid)


@given(st.lists(st.tuples(st.floats(0, 1000), st.floats(0, 1.5)), min_size=1, max_size=20),
       st.floats(0, 1000))
def test_automation_stays_within_its_points(points: list[tuple[float, float]], beat: float) -> None:
    lane = AutomationLane("volume", tuple(AutomationPoint(b, v) for b, v in points))
    value = lane.value_at(beat)
    if value is not None:
        values = [v for _, v in points]
        assert min(values) - 1e-9 <= value <= max(values) + 1e-9


def test_every_automation_parameter_has_a_range() -> None:
    for name in automation_parameters():
        low, high = parameter_range(name)
        assert low < high


def test_solo_and_mute_decide_what_is_heard() -> None:
    plain, muted, soloed = TrackMix(), TrackMix(mute=True), TrackMix(solo=True)
    assert audible([plain, muted]) == [True, False]
    assert audible([plain, soloed, muted]) == [False, True, False]
    assert audible([TrackMix(solo=True, mute=True)]) == [False]


def test_tracks_and_songs_carry_their_mix() -> None:
    t = Track("Bass", "bass", 33)
    assert t.mix == TrackMix()
    song = Song(tracks=[t], buses=[Bus("Reverb", (Effect("reverb"),))])
    assert song.buses[0].inserts[0].type == "reverb"

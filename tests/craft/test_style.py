"""Style knobs: clamped turns, time feels, overrides scoped by role, section and bars."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bandstand.craft import KNOBS, Style, StyleOverride, resolve


def test_turning_clamps_and_returns_a_new_style() -> None:
    s = Style()
    busier = s.turned({"density": 0.3})
    assert busier.density == pytest.approx(0.8) and s.density == 0.5
    assert s.turned({"density": 2.0}).density == 1.0
    assert s.turned({}, time_feel=0.5).time_feel == 0.5
    with pytest.raises(ValueError, match="unknown style knob"):
        s.turned({"loudness": 0.1})


@given(st.dictionaries(st.sampled_from(KNOBS), st.floats(-1, 1), max_size=len(KNOBS)))
def test_any_turn_stays_in_range(deltas: dict[str, float]) -> None:
    s = Style().turned(deltas)
    assert all(0.0 <= getattr(s, k) <= 1.0 for k in KNOBS)


def test_overrides_are_validated() -> None:
    with pytest.raises(ValidationError, match="unknown style knob"):
        StyleOverride(role="bass", knobs={"busy": 0.3})
    with pytest.raises(ValidationError, match=r"outside -1\.\.1"):
        StyleOverride(role="bass", knobs={"density": 3})
    with pytest.raises(ValidationError, match="time feel"):
        StyleOverride(role="drums", time_feel=3)
    with pytest.raises(ValidationError, match=r"1-based range"):
        StyleOverride(role="drums", bars=(9, 2))


def test_overrides_apply_by_role_section_and_bar() -> None:
    bridge_half = StyleOverride(role="drums", time_feel=0.5, sections=("bridge",))
    busier_bass = StyleOverride(role="bass", knobs={"density": 0.3}, bars=(9, 16))
    everyone_darker = StyleOverride(role="*", knobs={"brightness": -0.2})
    overrides = [bridge_half, busier_bass, everyone_darker]
    assert resolve(Style(), overrides, "drums", "Bridge", "bridge", 40).time_feel == 0.5
    assert resolve(Style(), overrides, "drums", "Verse 1", "verse", 40).time_feel == 1.0
    assert resolve(Style(), overrides, "bass", "Verse 1", "verse", 9).density == pytest.approx(0.8)
    assert resolve(Style(), overrides, "bass", "Verse 1", "verse", 17).density == 0.5
    assert resolve(Style(), overrides, "lead", "Chorus", "chorus", 1).brightness == pytest.approx(0.3)
    assert StyleOverride.model_validate(busier_bass.model_dump(mode="json")) == busier_bass

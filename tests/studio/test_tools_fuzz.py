"""Any sequence of tool calls, sensible or not, leaves a project that is valid: it survives a
JSON round trip unchanged and converts to a song — a refused call changes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import ToolCallError
from bandstand.studio import Project, SeededIds, from_song, to_song
from bandstand.studio.tools import ToolContext, run_batch

from .songs import small_song
from .test_tools import roots

TRACKS = st.sampled_from(["Drums", "bass", "CHORDS", "Keys", "nope"])
REGIONS = st.sampled_from(["Bass/Verse", "Chords/Intro", "Drums/Chorus", "Keys/Riff", "Verse", "x"])
BEAT = st.floats(min_value=0, max_value=40, allow_nan=False) | st.sampled_from([-1.0, 100.0])
SMALL = st.floats(min_value=0.01, max_value=1, allow_nan=False) | st.sampled_from([-0.5, 0.0, 2.0])

CALLS = st.one_of(
    st.builds(lambda t, v: {"name": "set_track_volume", "args": {"track": t, "volume": v}}, TRACKS, SMALL),
    st.builds(lambda t, v: {"name": "set_track_pan", "args": {"track": t, "pan": v}}, TRACKS, SMALL),
    st.builds(lambda n: {"name": "add_midi_track", "args": {"name": n, "gm_program": 4}},
              st.sampled_from(["Keys", "keys", "Strings", ""])),
    st.builds(lambda t, b, n: {"name": "add_midi_region", "args": {"track": t, "start_beat": b, "length_beats": 8,
                                                                   "name": n}},
              TRACKS, BEAT, st.sampled_from(["Riff", "Verse"])),
    st.builds(lambda r, p, s, d: {"name": "add_notes", "args": {"region": r, "notes": [
        {"pitch": p, "start": s, "duration": d}]}}, REGIONS, st.integers(20, 100) | st.sampled_from([-1, 128]), BEAT, SMALL),
    st.builds(lambda r, s: {"name": "transpose_notes", "args": {"region": r, "semitones": s}}, REGIONS,
              st.integers(-12, 12) | st.sampled_from([-60, 60])),
    st.builds(lambda r, g, k: {"name": "quantize_notes", "args": {"region": r, "grid": g, "strength": k}}, REGIONS,
              st.sampled_from(["1/4", "1/3", "2", "1/5", 0.5]), SMALL),
    st.builds(lambda r, a: {"name": "apply_swing", "args": {"region": r, "amount": a}}, REGIONS, SMALL),
    st.builds(lambda r, b: {"name": "move_region", "args": {"region": r, "start_beat": b}}, REGIONS, BEAT),
    st.builds(lambda r: {"name": "duplicate_region", "args": {"region": r}}, REGIONS),
    st.builds(lambda r: {"name": "delete_region", "args": {"region": r}}, REGIONS),
    st.builds(lambda r, i, s, d: {"name": "update_notes", "args": {"region": r, "notes": [
        {"id": i, "start": s, "duration": d}]}}, REGIONS, st.sampled_from(["n1", "n2", "zz"]), BEAT, SMALL),
    st.builds(lambda r, i: {"name": "remove_notes", "args": {"region": r, "note_ids": [i]}}, REGIONS,
              st.sampled_from(["n1", "n2", "zz"])),
    st.builds(lambda r, b, v: {"name": "add_midi_cc", "args": {"region": r, "cc": 74, "events": [
        {"beat": b, "value": v}]}}, REGIONS, BEAT, st.integers(-1, 130)),
    st.builds(lambda r, b, v: {"name": "add_pitch_bend", "args": {"region": r, "events": [{"beat": b, "value": v}]}},
              REGIONS, BEAT, st.integers(-9000, 9000)),
    st.builds(lambda t, e, p: {"name": "add_insert_effect", "args": {"track": t, "type": e, "params": p}}, TRACKS,
              st.sampled_from(["reverb", "delay", "eq", "fuzz"]), st.sampled_from([{}, {"mix": 0.5}, {"wet": 3}])),
    st.builds(lambda n: {"name": "ensure_bus", "args": {"name": n}}, st.sampled_from(["Reverb", "reverb", "Echo"])),
    st.builds(lambda t, b, lv: {"name": "add_send", "args": {"track": t, "bus": b, "level": lv}}, TRACKS,
              st.sampled_from(["Reverb", "Echo"]), SMALL),
    st.builds(lambda t, p, v: {"name": "add_automation", "args": {"track": t, "parameter": p, "points": [
        {"beat": 0, "value": v}]}}, TRACKS, st.sampled_from(["volume", "pan", "delay.mix"]), SMALL),
    st.builds(lambda r, b: {"name": "generate_part", "args": {"role": r, "bars": b}},
              st.sampled_from(["bass", "lead"]), st.integers(0, 3)),
    st.builds(lambda k: {"name": "set_key", "args": {"key": k}}, st.sampled_from(["Eb", "H", "d dorian"])),
    st.builds(lambda n, d: {"name": "set_time_signature", "args": {"numerator": n, "denominator": d}},
              st.integers(0, 13), st.sampled_from([4, 8, 3])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(CALLS, min_size=1, max_size=12))
def test_any_sequence_of_calls_leaves_a_valid_project(calls: list[dict[str, Any]]) -> None:
    project = from_song(small_song(), ids=SeededIds(1))
    ctx = ToolContext(ids=SeededIds(2), generator=roots)
    for call in calls:
        try:
            project = run_batch(project, [call], ctx=ctx).project
        except ToolCallError as exc:
            assert "\n" not in str(exc)
            continue
        assert Project.model_validate_json(project.model_dump_json()) == project
        to_song(project)

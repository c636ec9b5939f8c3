"""The tool registry: every tool runs, the schemas are the models', and the validation rules
(ranges, names with suggestions, placeholders, $N references, all-or-nothing batches, three
strikes per region, ids issued here, modes) hold before anything changes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bandstand import score
from bandstand.errors import ToolCallError
from bandstand.studio import Project, SeededIds, from_song, to_song
from bandstand.studio.tools import (
    MODES,
    TOOLS,
    GeneratedPart,
    PartRequest,
    Strikes,
    ToolContext,
    run_batch,
)
from bandstand.studio.tools.registry import Bender
from bandstand.theory import parse_key, pitch_class

from .songs import small_song

SPEC = {  # spec §2, phase by phase
    "setup": ["read_project", "create_project", "set_tempo", "set_key", "set_time_signature", "add_midi_track",
              "add_midi_region", "set_midi_program", "set_track_name", "set_track_colour"],
    "composition": ["add_notes", "generate_part"],
    "arrangement": ["move_region", "duplicate_region", "delete_region", "transpose_notes", "quantize_notes",
                    "apply_swing", "clear_notes", "update_notes", "remove_notes"],
    "soundDesign": ["add_insert_effect"],
    "expression": ["add_midi_cc", "add_pitch_bend", "add_aftertouch"],
    "mixing": ["set_track_volume", "set_track_pan", "mute_track", "solo_track", "ensure_bus", "add_send",
               "add_automation"],
}


def roots(project: Project, request: PartRequest) -> GeneratedPart:
    """A real (if plain) generator: the key's tonic on every beat, an octave below middle C."""
    tonic = pitch_class(parse_key(request.key or "C major").tonic)
    beats = int(request.bars * project.beats_per_bar)
    return GeneratedPart(notes=[score.Note(float(b), 0.9, 36 + tonic, 90) for b in range(beats)], program=33,
                         description="roots on the beat")


@pytest.fixture
def project() -> Project:
    return from_song(small_song(), ids=SeededIds(1)).model_copy(update={"revision": 1})


def run(project: Project, calls: list[dict[str, Any]], **kw: Any) -> Any:
    return run_batch(project, calls, ctx=ToolContext(ids=SeededIds(5), generator=roots), **kw)


def test_the_registry_is_the_spec_table() -> None:
    by_phase: dict[str, list[str]] = {}
    for tool in TOOLS:
        by_phase.setdefault(tool.phase, []).append(tool.name)
    assert by_phase == SPEC


def test_the_schemas_are_generated_from_the_models() -> None:
    schemas = TOOLS.schemas()
    assert [s["name"] for s in schemas] == [t.name for t in TOOLS]
    for schema, tool in zip(schemas, TOOLS, strict=True):
        expected = tool.params.model_json_schema()
        expected.pop("title")
        expected.pop("description", None)
        assert schema["parameters"] == expected
        assert schema["phase"] == tool.phase and schema["description"]
        assert schema["parameters"]["type"] == "object" and schema["parameters"]["additionalProperties"] is False
    effect = next(s for s in schemas if s["name"] == "add_insert_effect")["parameters"]["properties"]
    titles = [o["title"] for o in effect["params"]["anyOf"]]
    assert titles == [f"{t} parameters" for t in score.EFFECTS]  # from the one table
    ratio = effect["params"]["anyOf"][titles.index("compressor parameters")]["properties"]["ratio"]
    assert (ratio["minimum"], ratio["maximum"], ratio["default"]) == (1.0, 20.0, 3.0)
    assert "reasoning" in MODES and TOOLS.schemas("reasoning") == [schemas[0]]


def test_every_tool_in_one_batch(project: Project) -> None:
    calls: list[dict[str, Any]] = [
        {"name": "set_tempo", "args": {"tempo": 96}},                                              # 0
        {"name": "set_key", "args": {"key": "f# minor"}},                                          # 1
        {"name": "set_time_signature", "args": {"numerator": 4, "denominator": 4}},                # 2
        {"name": "add_midi_track", "args": {"name": "Keys", "gm_program": 4, "role": "keys"}},     # 3
        {"name": "add_midi_region", "args": {"track": "$3.track_id", "start_beat": 0, "length_beats": 16,
                                             "name": "Keys intro"}},                               # 4
        {"name": "add_notes", "args": {"region": "$4.region_id", "notes": [
            {"pitch": 66, "start": 0, "duration": 1}, {"pitch": 69, "start": 1.1, "duration": 0.5, "velocity": 80},
            {"pitch": 73, "start": 2.5, "duration": 0.5}]}},                                       # 5
        {"name": "set_midi_program", "args": {"track": "keys", "gm_program": 5}},                  # 6
        {"name": "set_track_name", "args": {"track": "Keys", "name": "Rhodes"}},                   # 7
        {"name": "set_track_colour", "args": {"track": "rhodes", "colour": "#A0B0C0"}},            # 8
        {"name": "quantize_notes", "args": {"region": "$4.region_id", "grid": "1/2"}},             # 9
        {"name": "apply_swing", "args": {"region": "Keys intro", "amount": 1.0}},                  # 10
        {"name": "transpose_notes", "args": {"region": "Rhodes/Keys intro", "semitones": -12}},    # 11
        {"name": "duplicate_region", "args": {"region": "$4.region_id"}},                          # 12
        {"name": "move_region", "args": {"region": "$12.region_id", "start_beat": 32}},            # 13
        {"name": "add_midi_cc", "args": {"region": "$4.region_id", "cc": 64, "events": [
            {"beat": 0, "value": 127}, {"beat": 3.5, "value": 0}]}},                               # 14
        {"name": "add_pitch_bend", "args": {"region": "$4.region_id", "events": [{"beat": 1, "value": 4096}]}},
        {"name": "add_aftertouch", "args": {"region": "$4.region_id", "events": [{"beat": 1, "value": 60}],
                                            "pitch": 66}},                                         # 16
        {"name": "clear_notes", "args": {"region": "$12.region_id"}},                              # 17
        {"name": "delete_region", "args": {"region": "$12.region_id"}},                            # 18
        {"name": "add_insert_effect", "args": {"track": "Bass", "type": "compressor", "params": {"ratio": 4}}},
        {"name": "ensure_bus", "args": {"name": "Reverb"}},                                        # 20
        {"name": "add_send", "args": {"track": "Rhodes", "bus": "$20.bus_id", "level": 0.4}},      # 21
        {"name": "set_track_volume", "args": {"track": "Bass", "volume": 0.8}},                    # 22
        {"name": "set_track_pan", "args": {"track": "Chords", "pan": 0.3}},                        # 23
        {"name": "mute_track", "args": {"track": "Drums"}},                                        # 24
        {"name": "solo_track", "args": {"track": "Drums", "solo": False}},                         # 25
        {"name": "add_automation", "args": {"track": "Bass", "parameter": "volume", "points": [
            {"beat": 0, "value": 0.5}, {"beat": 16, "value": 1.0, "curve": "smooth"}]}},           # 26
        {"name": "generate_part", "args": {"role": "bass", "bars": 4, "section": "Intro"}},          # 27
        {"name": "read_project", "args": {"include_notes": True}},                                 # 28
    ]
    outcome = run(project, calls)
    p = outcome.project
    assert p.tempo == 96 and p.key == "F# minor"
    rhodes = next(t for t in p.tracks if t.name == "Rhodes")
    assert (rhodes.program, rhodes.colour, rhodes.role) == (5, "#a0b0c0", "keys")
    (region,) = rhodes.regions
    assert [(n.pitch, n.start) for n in region.notes] == [(54, 0.0), (57, 1.0), (61, 2.5 + 1 / 6)]
    assert [(c.cc, c.value) for c in region.cc] == [(64, 127), (64, 0)]
    assert region.pitch_bends[0].value == 4096 and region.aftertouch[0].pitch == 66
    bass = next(t for t in p.tracks if t.name == "Bass")
    assert (bass.volume, bass.inserts[0].type, bass.inserts[0].params["ratio"]) == (0.8, "compressor", 4.0)
    assert bass.automation[0].points[1].curve == "smooth"
    intro = next(r for r in bass.regions if r.name == "Intro")
    assert len(intro.notes) == 16 and intro.notes[0].pitch == 36 + 6  # F# from the project's key
    assert outcome.results[27].result["track_id"] == bass.id
    assert rhodes.sends[0].bus_id == outcome.results[20].result["bus_id"]
    assert p.buses[-1].inserts[0].type == "reverb"  # a new Reverb bus gets a reverb
    drums = p.tracks[0]
    assert drums.mute and not drums.solo and drums.user_touched
    listed = outcome.results[28].result["project"]
    assert [t["name"] for t in listed["tracks"]] == ["Drums", "Bass", "Chords", "Rhodes"]
    assert listed["tracks"][3]["regions"][0]["notes"][0]["pitch"] == 54
    assert outcome.results[-1].entities == p.entities()  # every result echoes every track, region and bus
    assert {"id": outcome.results[3].result["track_id"], "name": "Keys"} in outcome.results[3].entities["tracks"]
    assert {"id": outcome.results[7].result.get("track_id", rhodes.id), "name": "Rhodes"} in \
        outcome.results[7].entities["tracks"]
    assert to_song(p).tracks[3].name == "Rhodes"


def test_idiomatic_bends_take_the_place_of_the_regions_bends(project: Project) -> None:
    """A part written bent (a metal lead) asked for its player's bends gets them once, not twice;
    bends given as events are added to what is there."""
    def scoop(notes: list[tuple[float, float, int]], role: str, style: str, end: float) -> list[tuple[float, int]]:
        return [(start, -1024) for start, _, _ in notes] + [(start + 0.125, 0) for start, _, _ in notes]

    region = next(r for t, r in project.regions() if t.name == "Bass" and r.notes)
    ctx = ToolContext(ids=SeededIds(5), bender=Bender(("bass",), scoop))
    given = run_batch(project, [{"name": "add_pitch_bend", "args": {"region": region.id, "events": [
        {"beat": 0.5, "value": 4096}]}}], ctx=ctx).project
    assert len(given.region_by_id(region.id)[1].pitch_bends) == len(region.pitch_bends) + 1
    for start in (given, project):
        bent = run_batch(start, [{"name": "add_pitch_bend", "args": {"region": region.id, "idiom": True}}],
                         ctx=ctx).project
        bends = bent.region_by_id(region.id)[1].pitch_bends
        assert len(bends) == 2 * len(region.notes) and 4096 not in {b.value for b in bends}
        again = run_batch(bent, [{"name": "add_pitch_bend", "args": {"region": region.id, "idiom": True}}],
                          ctx=ctx).project
        assert again.region_by_id(region.id)[1].pitch_bends == bends


def test_notes_are_moved_resized_revoiced_and_removed_by_id(project: Project) -> None:
    track, region = next((t, r) for t, r in project.regions() if t.name == "Bass" and r.notes)
    first, second, *rest = region.notes
    outcome = run(project, [
        {"name": "update_notes", "args": {"region": region.id, "notes": [
            {"id": first.id, "pitch": first.pitch + 2, "start": 1.5},
            {"id": second.id, "duration": 0.25, "velocity": 30}]}},
        {"name": "remove_notes", "args": {"region": f"Bass/{region.name}", "note_ids": [rest[0].id]}},
    ])
    after = outcome.project.region_by_id(region.id)[1]
    by_id = {n.id: n for n in after.notes}
    assert (by_id[first.id].pitch, by_id[first.id].start, by_id[first.id].duration) == (
        first.pitch + 2, 1.5, first.duration)  # what is left out stays
    assert (by_id[second.id].start, by_id[second.id].duration, by_id[second.id].velocity) == (second.start, 0.25, 30)
    assert rest[0].id not in by_id and len(after.notes) == len(region.notes) - 1
    assert [n.start for n in after.notes] == sorted(n.start for n in after.notes)  # kept in time order
    assert outcome.results[1].result == {"notes_removed": 1, "note_count": len(region.notes) - 1}
    assert outcome.project.track_by_id(track.id).user_touched


@pytest.mark.parametrize(("call", "message"), [
    ({"name": "update_notes", "args": {"region": "Bass/Verse", "notes": [{"id": "nope", "pitch": 40}]}},
     "has no note 'nope'"),
    ({"name": "remove_notes", "args": {"region": "Bass/Verse", "note_ids": ["nope"]}}, "has no note 'nope'"),
    ({"name": "update_notes", "args": {"region": "Bass/Verse", "notes": [{"id": "$first", "start": 999}]}},
     "past the end of region"),
    ({"name": "update_notes", "args": {"region": "Bass/Verse", "notes": [{"id": "$first", "pitch": 1},
                                                                       {"id": "$first", "pitch": 2}]}},
     "listed twice"),
])
def test_note_edits_name_real_notes(project: Project, call: dict[str, Any], message: str) -> None:
    region = next(r for t, r in project.regions() if t.name == "Bass" and r.name == "Verse")
    text = json.dumps(call).replace("$first", region.notes[0].id)
    with pytest.raises(ToolCallError, match=message):
        run(project, [json.loads(text)])


def test_create_project_starts_over(project: Project) -> None:
    p = run(project, [{"name": "create_project", "args": {"name": "New", "tempo": 120, "key": "Eb",
                                                          "time_signature": "6/8"}}]).project
    assert (p.name, p.key, str(p.time_signature), p.tracks, p.revision) == ("New", "Eb major", "6/8", (), 1)


@pytest.mark.parametrize(("call", "message"), [
    ({"name": "set_tempo", "args": {"tempo": 301}},
     "call 0 (set_tempo): tempo 301 is out of range: input should be less than or equal to 300"),
    ({"name": "set_tempoo", "args": {"tempo": 90}}, "unknown tool 'set_tempoo'; did you mean 'set_tempo'?"),
    ({"name": "set_tempo", "args": {"temp": 90}}, "unknown parameter 'temp'; did you mean 'tempo'?"),
    ({"name": "set_tempo", "args": {}}, "tempo is missing; set_tempo(tempo, start_bar?, end_bar?)"),
    ({"name": "set_track_volume", "args": {"track": "Bas", "volume": 0.5}}, "no track 'Bas'; did you mean 'Bass'?"),
    ({"name": "set_track_volume", "args": {"track": "Bass", "volume": 2}}, "volume 2 is out of range"),
    ({"name": "set_track_pan", "args": {"track": "Zither", "pan": 0.5}},
     "no track 'Zither'; the tracks are: 'Drums', 'Bass', 'Chords'"),
    ({"name": "add_notes", "args": {"region": "Vers", "notes": [{"pitch": 60, "start": 0, "duration": 1}]}},
     "no region 'Vers'; did you mean 'Verse'?"),
    ({"name": "add_notes", "args": {"region": "Verse", "notes": [{"pitch": 60, "start": 0, "duration": 1}]}},
     "region name 'Verse' is on several tracks; name one as Track/Region: 'Drums/Verse', 'Bass/Verse'"),
    ({"name": "add_notes", "args": {"region": "Bass/Verse", "notes": [{"pitch": 60, "start": 40, "duration": 1}]}},
     "notes[0] starts at beat 40, past the end of region 'Verse' (32 beats long)"),
    ({"name": "add_insert_effect", "args": {"track": "Bass", "type": "delay", "params": {"feedbak": 0.2}}},
     "delay has no parameter 'feedbak'; did you mean 'feedback'?"),
    ({"name": "add_insert_effect", "args": {"track": "Bass", "type": "reverbb"}}, "did you mean 'reverb'?"),
    ({"name": "add_insert_effect", "args": {"type": "reverb"}}, "give exactly one of track and bus"),
    ({"name": "add_midi_track", "args": {"name": "bass", "gm_program": 33}}, "already a track named 'Bass'"),
    ({"name": "add_midi_track", "args": {"name": "Keys", "gm_program": 1, "drum_kit": 0}},
     "give exactly one of gm_program (0-127) and drum_kit (0-127)"),
    ({"name": "add_midi_region", "args": {"track": "Bass", "start_beat": 20, "length_beats": 8}},
     "beats 20–28 overlap region 'Verse' (beats 16–48) on track 'Bass'"),
    ({"name": "transpose_notes", "args": {"region": "Bass/Verse", "semitones": -48}}, "outside 0..127"),
    ({"name": "quantize_notes", "args": {"region": "Bass/Verse", "grid": "1/5"}}, "grid 1/5 is not one of"),
    ({"name": "set_key", "args": {"key": "H major"}}, "not a key: 'H major'"),
    ({"name": "add_automation", "args": {"track": "Bass", "parameter": "volume", "points": [
        {"beat": 0, "value": 2}]}}, "volume automation value 2 at beat 0 is out of range; use 0..1.5"),
    ({"name": "add_automation", "args": {"track": "Bass", "parameter": "reverb.wett", "points": [
        {"beat": 0, "value": 0.2}]}}, "did you mean 'reverb.wet'?"),
    ({"name": "add_send", "args": {"track": "Bass", "bus": "Reverbb"}}, "no bus 'Reverbb'; did you mean 'Reverb'?"),
    ({"name": "apply_swing", "args": {"region": "Bass/Verse", "amount": 0.5, "grid": "32nds"}},
     "grid '32nds' is not allowed; use one of: 8ths, 16ths"),
    ({"name": "generate_part", "args": {"role": "bass", "bars": 4, "section": "Bridge"}},
     "no section 'Bridge'; the sections are: 'Intro', 'Verse', 'Chorus'"),
])
def test_bad_calls_are_one_clear_line(project: Project, call: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolCallError) as info:
        run(project, [call])
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("args", [
    {"region": "Bass/Verse", "_noteCount": 12},
    {"region": "Bass/Verse", "_summary": "a walking line"},
    {"region": "Bass/Verse", "notes": []},
    {"region": "Bass/Verse", "notes": "twelve notes"},
    {"region": "Bass/Verse", "notes": [{"pitch": 40, "start": 0, "duration": 1, "_why": "root"}]},
])
def test_placeholders_are_refused_with_the_real_format(project: Project, args: dict[str, Any]) -> None:
    with pytest.raises(ToolCallError) as info:
        run(project, [{"name": "add_notes", "args": args}])
    assert "add_notes(region, notes=[{pitch, start, duration, velocity}, …])" in str(info.value)


@pytest.mark.parametrize(("ref", "message"), [
    ("$0.bus_id", "'$0.bus_id': call 0 (add_midi_track) returned no 'bus_id' (it returned track_id)"),
    ("$1.track_id", "'$1.track_id' refers to call 1, but only calls 0..0 come before this one"),
    ("$0track_id", "'$0track_id' is not a reference; write $N.field"),
])
def test_unresolved_references_are_errors_not_strings(project: Project, ref: str, message: str) -> None:
    calls = [{"name": "add_midi_track", "args": {"name": "Keys", "gm_program": 4}},
             {"name": "add_midi_region", "args": {"track": ref, "start_beat": 0, "length_beats": 4}}]
    with pytest.raises(ToolCallError, match="call 1 \\(add_midi_region\\)") as info:
        run(project, calls)
    assert message in str(info.value)


def test_a_batch_is_all_or_nothing(project: Project) -> None:
    calls = [{"name": "set_tempo", "args": {"tempo": 90}},
             {"name": "set_track_volume", "args": {"track": "Bass", "volume": 9}}]
    with pytest.raises(ToolCallError, match="call 1"):
        run(project, calls)
    assert project.tempo == 100  # values are frozen; the caller still holds the old project


def test_three_failed_calls_on_one_region_stop_the_retries(project: Project) -> None:
    strikes = Strikes()
    bad = {"name": "add_notes", "args": {"region": "Bass/Verse", "notes": [{"pitch": 40, "start": 99,
                                                                             "duration": 1}]}}
    for _ in range(3):
        with pytest.raises(ToolCallError, match="past the end"):
            run(project, [bad], strikes=strikes)
    good = {"name": "add_notes", "args": {"region": "bass/verse", "notes": [{"pitch": 40, "start": 1,
                                                                              "duration": 1}]}}
    with pytest.raises(ToolCallError, match="stopped retrying region 'bass/verse': 3 calls on it failed"):
        run(project, [good], strikes=strikes)
    assert run(project, [good], strikes=Strikes()).project != project  # a new request starts afresh


def test_client_ids_are_ignored_and_ids_come_from_the_issuer(project: Project) -> None:
    outcome = run(project, [
        {"name": "add_midi_track", "args": {"name": "Keys", "gm_program": 4, "id": "mine"}},
        {"name": "add_midi_region", "args": {"track": "Keys", "start_beat": 0, "length_beats": 4,
                                             "region_id": "mine too"}},
        {"name": "add_notes", "args": {"region": "$1.region_id", "notes": [
            {"id": "n1", "pitch": 60, "start": 0, "duration": 1}]}}])
    first, second, third = outcome.results
    assert first.result["track_id"] != "mine" and first.ignored == ["id"]
    assert second.result["region_id"] != "mine too" and second.ignored == ["region_id"]
    assert third.ignored == ["notes[].id"] and third.result["note_ids"][0] != "n1"
    with pytest.raises(ToolCallError, match="unknown parameter 'id'"):
        run(project, [{"name": "set_tempo", "args": {"tempo": 90, "id": "x"}}])  # not a creating call


def test_modes_allow_their_phases(project: Project) -> None:
    gen = {"name": "generate_part", "args": {"role": "bass", "bars": 4}}
    with pytest.raises(ToolCallError, match="generate_part is not allowed in editing mode"):
        run(project, [gen], mode="editing")
    with pytest.raises(ToolCallError, match="set_tempo is not allowed in reasoning mode \\(allowed: read_project\\)"):
        run(project, [{"name": "set_tempo", "args": {"tempo": 90}}], mode="reasoning")
    assert run(project, [{"name": "read_project", "args": {}}], mode="reasoning").changed is False
    assert run(project, [gen], mode="composing").project.tracks[1].note_count > project.tracks[1].note_count


def test_generate_part_without_a_generator(project: Project) -> None:
    with pytest.raises(ToolCallError, match="generate_part needs a part generator and none is configured"):
        run_batch(project, [{"name": "generate_part", "args": {"role": "lead", "bars": 2}}],
                  ctx=ToolContext(ids=SeededIds(1)))


def test_generate_part_makes_the_track_it_needs(project: Project) -> None:
    outcome = run(project, [{"name": "generate_part", "args": {"role": "sub_bass", "bars": 2, "start_bar": 3}}])
    track = outcome.project.tracks[-1]
    assert (track.name, track.role, track.program) == ("Sub Bass", "sub_bass", 33)
    assert (track.regions[0].start_beat, track.regions[0].length_beats) == (8.0, 8.0)
    assert outcome.results[0].result["note_count"] == 8

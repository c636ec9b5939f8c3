"""validate_pattern: parses, names, sounds, density, scale, warnings — never raises for bad code."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.errors import InvalidInput, TheoryError
from bandstand.patterns import validate_pattern
from bandstand.patterns.validate import ValidationReport

GOOD = "stack(s('bd').fast(4), note(seq(60, 63, 67)).s('sawtooth'))"


def test_a_good_pattern() -> None:
    report = validate_pattern(GOOD, scale="C minor", cycles=2)
    assert report.valid and report.parses and report.error is None
    assert report.functions == ["stack", "s", "fast", "note", "seq"]
    assert report.unknown_functions == []
    assert report.sounds == ["bd", "sawtooth"]
    assert report.events == 14 and report.events_per_cycle == 7
    assert report.pitched_notes == 6 and report.notes_in_scale == 6 and report.in_scale_ratio == 1
    assert (report.lowest_note, report.highest_note) == (60, 67)
    assert report.warnings == []


def test_report_is_frozen_and_json_round_trips() -> None:
    report = validate_pattern(GOOD)
    again = ValidationReport.model_validate(json.loads(report.model_dump_json()))
    assert again == report
    with pytest.raises(ValueError):
        report.valid = False  # type: ignore[misc]


def test_parse_errors_are_reported_not_raised() -> None:
    report = validate_pattern("s('bd'")
    assert not report.valid and not report.parses
    assert report.error is not None and "expected ')'" in report.error
    assert report.error_column == 7


def test_unknown_functions_are_all_listed() -> None:
    report = validate_pattern("s('bd').fsat(2).revv2().add.sqeeze(1)")
    assert not report.valid and report.parses
    assert report.unknown_functions == ["fsat", "revv2", "add.sqeeze"]
    assert report.functions == ["s", "add"]
    assert report.error is not None and "did you mean 'fast'" in report.error


def test_unknown_sounds() -> None:
    report = validate_pattern("stack(s('bd'), s('kazoo'))")
    assert not report.valid
    assert report.sounds == ["bd"] and report.unknown_sounds == ["kazoo"]
    assert any("kazoo" in w for w in report.warnings)


def test_scale_ratio_and_tolerance() -> None:
    code = "note(seq(60, 62, 63, 66)).s('piano')"
    report = validate_pattern(code, scale="C minor")
    assert report.in_scale_ratio == 0.75 and report.valid
    assert any("outside C minor" in w and "66" in w for w in report.warnings)
    strict = validate_pattern(code, scale="C minor", min_in_scale=0.9)
    assert not strict.valid
    by_classes = validate_pattern(code, scale=[0, 2, 3, 6])
    assert by_classes.in_scale_ratio == 1


def test_bad_scale_is_the_callers_mistake() -> None:
    with pytest.raises(TheoryError):
        validate_pattern(GOOD, scale="H blues")


def test_density_limit_and_huge_repeats_do_not_hang() -> None:
    busy = validate_pattern("s('hh').fast(100)")
    assert not busy.valid and busy.events_per_cycle == 100
    assert any("too dense" in w for w in busy.warnings)
    assert validate_pattern("s('hh').fast(100)", max_events_per_cycle=128).valid
    huge = validate_pattern("s('bd').fast(1000000)")
    assert not huge.valid and huge.error is not None and "too dense" in huge.error


def test_silence_is_valid_with_a_warning() -> None:
    report = validate_pattern("silence")
    assert report.valid and report.events == 0
    assert report.warnings == ["silent: no events in 4 cycles"]


def test_other_warnings() -> None:
    fixed = validate_pattern("n(seq(0, 2)).s('sawtooth')")
    assert any("scale" in w for w in fixed.warnings)
    loud = validate_pattern("s('bd').gain(3)")
    assert any("loud" in w for w in loud.warnings)
    low = validate_pattern("note(5).s('piano')")
    assert any("out of range" in w for w in low.warnings)


def test_failures_while_playing_become_errors() -> None:
    report = validate_pattern("s('bd').every(2, x => 1)")
    assert not report.valid
    assert report.error is not None and "must return a pattern" in report.error


def test_cycles_bounds() -> None:
    assert validate_pattern(GOOD, cycles=1).cycles == 1
    with pytest.raises(InvalidInput):
        validate_pattern(GOOD, cycles=0)


@pytest.mark.parametrize(
    "code",
    [
        's("bd ~ sd ~, hh*8")',
        'note("<c2 ab1 eb2 bb1>*2").s("sawtooth").late(1/3)',
        's("bd*3").off(1/7, x => x.speed(2)).slow(1.5)',
        'n("0 .. 7").sometimes(x => x.add(12)).degradeBy(0.3)',
        "sine",
        "sine.segment(5).range(1, 9)",
        's("<bd sd>/3")',
    ],
)
def test_guarded_queries_find_the_same_events_as_plain_ones(code: str) -> None:
    from bandstand.patterns import evaluate
    from bandstand.patterns.validate import _guarded_events

    pattern = evaluate(code)
    plain = [
        h for c in range(4) for h in pattern.query_arc(c, c + 1) if h.has_onset() or h.whole is None
    ]
    guarded = _guarded_events(pattern, 4, 1024)

    def key(h: Any) -> str:  # parts differ (the spans are cut differently); events do not
        return repr((h.whole, h.value, h.context))

    assert sorted(map(key, guarded)) == sorted(map(key, plain))


@pytest.mark.parametrize(
    "code",
    [
        's("<bd bd*1024>").fast(200)',  # the probe sees one slow cycle of the inner pattern
        's("[~ bd*1024]").fast(1000)',  # the probe sees a rest
        's("bd").fast("<1 1 1 200000>")',  # only the last cycle is dense
        's("bd").ply(1024).fast(1000)',
    ],
)
def test_dense_patterns_that_look_sparse_at_first_are_refused(code: str) -> None:
    report = validate_pattern(code)
    assert not report.valid and report.error is not None and "too dense" in report.error


def test_plain_and_guarded_queries_find_the_same_events() -> None:
    from bandstand.patterns import evaluate
    from bandstand.patterns.validate import _guarded_events, _onset, _plain_events

    for code in [
        GOOD,
        's("bd ~ sd ~, hh*8").fast(2)',
        "sine.segment(5)",
        'n("<0 2> 4").scale("C:minor")',
    ]:
        pattern = evaluate(code)
        plain = sorted(_plain_events(pattern, 4, 1024), key=_onset)
        guarded = sorted(_guarded_events(pattern, 4, 1024), key=_onset)
        assert [(h.whole, h.value) for h in plain] == [(h.whole, h.value) for h in guarded]


def _bound(code: str) -> float | None:
    from bandstand.patterns.density import static_density, walk
    from bandstand.patterns.expr import DEFAULT_LIMITS, parse
    from bandstand.patterns.methods import get_registry

    return static_density(list(walk(parse(code, DEFAULT_LIMITS))), get_registry())


def test_static_density_knows_only_what_it_can_bound() -> None:
    assert _bound('s("bd*16")') is not None and _bound('s("bd*16")') >= 16  # type: ignore[operator]
    assert _bound('s("bd").fast(1000)') >= 1000  # type: ignore[operator]
    assert _bound('s("bd").slow(0.001)') >= 1000  # type: ignore[operator]
    assert _bound('s("bd").sometimes(fast(2))') >= 2  # type: ignore[operator]
    # chained and patterned multipliers multiply, each by the largest value it can take
    assert _bound('s("bd").fast(1000).fast(1000).fast(1000)') >= 1e9  # type: ignore[operator]
    assert _bound('s("bd").fast("<1000000>").fast("<1000000>")') >= 1e12  # type: ignore[operator]
    assert _bound('s("bd").fast("1 200000")') >= 200000  # type: ignore[operator]
    assert _bound('s("bd").ply("<2 [3 4000]>")') >= 4000  # type: ignore[operator]
    assert _bound('s("bd").hurry([2, 300])') >= 300  # type: ignore[operator]
    assert _bound('s("bd").slow("<1 0.001>")') >= 1000  # type: ignore[operator]
    assert _bound('s("bd*<2 3000>")') >= 3000  # type: ignore[operator]
    for code in [
        's("bd").fast(10 * 10)',  # a computed factor
        's("bd").fast(sine.range(1, 8))',  # a continuous factor
        'n("0 .. 7")',  # a range
        's("bd/<2 0.5>")',  # a patterned division
        's("bd(<3 5>,8)")',
        's("bd").chunk(4, x => x.fast(2))',  # a function outside the table
        's("bd").jux(ply)',  # a multiplying function passed as a value
    ]:
        assert _bound(code) is None, code


_ATOM = st.sampled_from(["bd", "~", "hh", "c3", "0", "-2", "sd:3"])
_OP = st.sampled_from(["", "*2", "*3", "!", "!3", "/2", "/0.5", "@3", "?", "(3,8)", "(5,8,2)"])
_STEP = st.tuples(_ATOM, _OP).map("".join)
_SEQ = st.lists(_STEP, min_size=1, max_size=5).map(" ".join)
_MINI = st.one_of(
    _SEQ,
    _SEQ.map(lambda s: f"[{s}]*4"),
    _SEQ.map(lambda s: f"<{s}>"),
    st.tuples(_SEQ, _SEQ).map(lambda ab: f"{ab[0]}, {ab[1]}"),
    _SEQ.map(lambda s: f"{{{s}}}%3"),
)
_METHOD = st.sampled_from(
    [
        "",
        ".fast(3)",
        ".slow(2)",
        ".ply(2)",
        ".off(0.25, x => x.add(12))",
        ".every(2, x => x.fast(2))",
        ".jux(rev)",
        ".segment(4)",
    ]
)


@settings(max_examples=200, deadline=None)
@given(_MINI, _METHOD, _METHOD)
def test_static_density_bounds_the_events_of_every_cycle(
    mini: str, first: str, second: str
) -> None:
    from bandstand.patterns import evaluate

    code = f's("{mini}"){first}{second}'
    bound = _bound(code)
    assert bound is not None, code
    pattern = evaluate(code)
    for cycle in range(4):
        haps = pattern.query_arc(cycle, cycle + 1)
        assert len(haps) <= bound, (code, cycle, len(haps), bound)


def test_check_pattern_keeps_the_pattern_and_events_and_the_scale_costs_nothing_more() -> None:
    from bandstand.patterns.validate import check_pattern

    code = 'n("0 2 4 6").scale("C4:major").s("piano")'
    major, minor = check_pattern(code, scale="C major"), check_pattern(code, scale="C minor")
    assert major.pattern is minor.pattern and major.events is minor.events  # played once
    assert major.report.in_scale_ratio == 1 and minor.report.in_scale_ratio == 0.5
    assert [h.value["note"] for h in major.events] == ["C4", "E4", "G4", "B4"] * 4
    assert major.report.events == len(major.events) == 16
    assert (
        check_pattern("s('bd'").pattern is None and check_pattern("s('bd').fast(1e6)").events == ()
    )


def test_sounds_are_listed_in_order_of_first_onset() -> None:
    report = validate_pattern('stack(s("~ hh"), s("bd ~"), s("<~ cp>"))')
    assert report.sounds == ["bd", "hh", "cp"]

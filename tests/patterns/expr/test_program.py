"""Programs of several statements: bindings, blocks, tempo, and what is accepted but not played.

Each program's sound is checked against Strudel in test_strudel_realworld.py; these
tests pin the rules themselves and the one-line errors.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bandstand.errors import PatternError
from bandstand.patterns import evaluate, run_program


def values(code: str, end: int = 1) -> list[object]:
    program = run_program(code)
    haps = sorted(program.pattern.query_arc(0, end), key=lambda h: (h.part.begin, str(h.value)))
    return [h.value for h in haps]


def test_a_statement_goes_on_across_lines_that_start_with_a_dot() -> None:
    assert values('note("c e")\n  .s("piano")\n  // a comment\n  .gain(0.5)') == [
        {"note": "c", "s": "piano", "gain": 0.5},
        {"note": "e", "s": "piano", "gain": 0.5},
    ]


def test_without_blocks_the_last_statement_plays() -> None:
    assert values('s("bd")\ns("hh")') == [{"s": "hh"}]
    assert values('s("bd"); s("sd")') == [{"s": "sd"}]


def test_blocks_play_together_in_the_order_written() -> None:
    code = '$: s("bd")\nbass: note("c2")\n$drums: s("hh")\ns("ignored")'
    assert values(code) == [{"note": "c2"}, {"s": "bd"}, {"s": "hh"}]


def test_muted_solo_and_replaced_blocks() -> None:
    assert values('$: s("bd")\n_$: s("hh")\nx_: s("cp")') == [{"s": "bd"}]
    assert values('$: s("bd")\nS$: s("hh")\nS$: s("cp")') == [{"s": "cp"}, {"s": "hh"}]
    assert values('a: s("bd")\nb: s("sd")\na: s("hh")') == [{"s": "hh"}, {"s": "sd"}]


def test_const_names_a_value_for_what_follows() -> None:
    code = 'const beat = "bd sd", n = 2\nlet double = x => x.fast(n)\ns(beat).apply(double)'
    assert values(code) == [{"s": "bd"}, {"s": "sd"}] * 2


def test_the_tempo_is_carried_exactly() -> None:
    assert run_program('s("bd")').cps is None
    assert run_program('setcpm(130/4)\ns("bd")').cps == Fraction(65, 120)
    program = run_program('setcps(0.6)\nsetcpm(90)\n$: s("bd")')
    assert program.cps == Fraction(3, 2) and program.cpm == 90


def test_cpm_is_against_the_programs_tempo() -> None:
    assert len(values('s("bd").cpm(60)')) == 2  # against Strudel's 0.5 cycles per second
    assert len(values('setcpm(30)\ns("bd").cpm(60)')) == 2
    assert len(values('setcpm(60)\ns("bd").cpm(60)')) == 1


def test_samples_are_named_and_never_fetched() -> None:
    program = run_program("await samples('https://example.invalid/x.json')\ns(\"bd\")")
    assert program.notes == (
        "samples('https://example.invalid/x.json') is not loaded: bandstand plays its own "
        "sounds offline and never fetches samples",
    )
    assert "a sample map of bd, sd" in run_program('samples({bd: "b.wav", sd: "s.wav"})\ns("bd")').notes[0]


def test_visual_calls_change_no_sound_but_what_strudel_changes() -> None:
    assert values('s("bd").pianoroll({labels: 1})._punchcard().spiral()') == [{"s": "bd"}]
    assert values('s("bd").scope()') == [{"s": "bd", "analyze": 1}]
    assert values('$: s("bd")\nall(x => x.pianoroll())') == [{"s": "bd"}]


def test_math_and_sliders_are_numbers() -> None:
    assert values('s("bd").gain(Math.floor(Math.PI) / Math.max(2, 4))') == [{"s": "bd", "gain": 0.75}]
    assert values("s(\"bd\").lpf(slider(800, 200, 4000))") == [{"s": "bd", "cutoff": 800}]


def test_evaluate_plays_a_program_too() -> None:
    pattern = evaluate('setcpm(30)\n$: s("bd")\n$: s("hh")')
    assert sorted(h.value["s"] for h in pattern.query_arc(0, 1)) == ["bd", "hh"]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ('let x = 1\nx = 2\ns("bd")', "assignment is not part of the pattern language"),
        ('const a = 1\nconst a = 2\ns("bd")', "'a' is declared twice at line 2, column 7"),
        ('$: s("bd")\nconst x = 1', "must end with a pattern, not a const"),
        ('await fetch("x")', "only 'await samples(...)' is accepted"),
        ('s("bd").gain(Math.random())', "Math.random is not pure"),
        ('setcpm("<120 90>")\ns("bd")', "setcpm takes a number"),
        ("setcps(0)\ns('bd')", "the tempo must be above 0"),
        ('s("bd").fast(setcpm(30))', "setcpm(...) belongs to the program"),
        ("$: 3", "the block '$:' must be a pattern"),
        ('note("c e").voicings("lefthand")', "remembers the last chord between queries"),
        ('s("bd").osc()', "sends nothing over OSC"),
        ('s("bd")\n  === 2', "the code must make a pattern, not a boolean"),
    ],
)
def test_refusals_are_one_line_naming_the_construct(code: str, words: str) -> None:
    with pytest.raises(PatternError) as caught:
        run_program(code)
    assert words in caught.value.message and "\n" not in caught.value.message

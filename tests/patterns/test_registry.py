"""The registry: one table, function and method forms, partials, variants, exports."""

from __future__ import annotations

import pytest

import bandstand.patterns as patterns
from bandstand.patterns import Pattern, mini, pure, sequence
from bandstand.patterns.methods import REGISTRY
from bandstand.patterns.registry import Partial, PatternFunction
from tests.patterns.helpers import assert_same_events

ISSUE_FUNCTIONS = [
    "sequence",
    "seq",
    "cat",
    "fastcat",
    "slowcat",
    "stack",
    "timeCat",
    "stepcat",
    "polymeter",
    "arrange",
    "pure",
    "silence",
    "fast",
    "slow",
    "early",
    "late",
    "rev",
    "every",
    "firstOf",
    "lastOf",
    "sometimes",
    "often",
    "rarely",
    "almostNever",
    "almostAlways",
    "sometimesBy",
    "degrade",
    "degradeBy",
    "undegradeBy",
    "euclid",
    "euclidRot",
    "euclidLegato",
    "ply",
    "iter",
    "palindrome",
    "chunk",
    "off",
    "superimpose",
    "layer",
    "struct",
    "mask",
    "segment",
    "range",
    "add",
    "sub",
    "mul",
    "div",
    "mod",
    "round",
    "jux",
    "juxBy",
    "linger",
    "zoom",
    "compress",
    "fastGap",
    "inside",
    "outside",
    "echo",
    "echoWith",
    "plyWith",
    "brak",
    "press",
    "swing",
    "swingBy",
    "repeatCycles",
    "when",
    "within",
    "bite",
    "take",
    "drop",
    "invert",
    "arp",
    "ribbon",
    "pick",
    "inhabit",
    "squeeze",
    "chop",
    "seed",
    "rand",
    "irand",
    "choose",
    "chooseCycles",
    "wchooseCycles",
    "shuffle",
    "scramble",
    "perlin",
    "sine",
    "cosine",
    "saw",
    "isaw",
    "tri",
    "square",
    "run",
    "note",
    "n",
    "s",
    "sound",
    "bank",
    "gain",
    "velocity",
    "pan",
    "lpf",
    "cutoff",
    "hpf",
    "resonance",
    "room",
    "size",
    "delay",
    "delaytime",
    "delayfeedback",
    "distort",
    "crush",
    "speed",
    "legato",
    "attack",
    "release",
    "orbit",
    "scale",
]


def test_every_function_of_the_issue_is_registered() -> None:
    missing = [name for name in ISSUE_FUNCTIONS if name not in REGISTRY]
    assert missing == []


def test_entries_describe_themselves() -> None:
    for name, entry in REGISTRY.items():
        assert isinstance(entry, PatternFunction)
        assert entry.kind in ("transform", "constructor", "operator", "control", "value"), name
        if entry.kind == "transform":
            assert entry.arity >= 1 and callable(entry.func), name
            assert all(0 <= i < entry.arity - 1 for i in entry.function_args), name
        if entry.kind == "value":
            assert isinstance(entry.value, Pattern) and not entry.method, name
    assert REGISTRY["every"].function_args == frozenset({1})
    assert REGISTRY["superimpose"].variadic_functions
    assert REGISTRY["slow"] is REGISTRY["sparsity"]


def test_function_and_method_forms_agree() -> None:
    p = mini("a b c")
    fast = REGISTRY["fast"]
    assert_same_events((0, 3), fast(2, p), p.fast(2))
    assert_same_events((0, 3), fast(mini("<1 2>"), p), p.fast(mini("<1 2>")))
    assert_same_events((0, 3), p.fast(1, 2), p.fast(sequence(1, 2)))  # several args are sequenced


def test_partial_application_waits_for_the_pattern() -> None:
    partial = REGISTRY.call("fast", 2)
    assert isinstance(partial, Partial)
    p = mini("a b")
    assert_same_events((0, 4), p.every(2, partial), p.every(2, lambda x: x.fast(2)))


def test_operator_variants() -> None:
    p = mini("0 2")
    assert [h.value for h in p.add(1).query_arc(0, 1)] == [1, 3]
    assert sum(h.has_onset() for h in p.add.out(mini("10 20 30")).query_arc(0, 1)) == 3
    assert [h.value for h in p.add.squeeze(mini("10 20")).query_arc(0, 1)] == [10, 20, 12, 22]
    assert [h.value for h in REGISTRY.call("add", 5, p).query_arc(0, 1)] == [5, 7]
    with pytest.raises(AttributeError):
        _ = p.add.sideways


def test_controls_and_values() -> None:
    note = REGISTRY["note"]
    assert [h.value for h in note(mini("c e")).s("piano").query_arc(0, 1)] == [
        {"note": "c", "s": "piano"},
        {"note": "e", "s": "piano"},
    ]
    assert [h.value for h in REGISTRY["s"](mini("bd:3:0.5")).query_arc(0, 1)] == [
        {"s": "bd", "n": 3, "gain": 0.5}
    ]
    assert REGISTRY.call("sine") is REGISTRY["sine"].value
    assert REGISTRY.closest("sometimesby") == "sometimesBy"
    assert REGISTRY.closest("fsat") == "fast"


def test_unknown_method_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        pure(1).notAFunction(2)


def test_public_api_is_pinned() -> None:
    assert sorted(patterns.__all__) == sorted(
        [
            "CompileCache",
            "Hap",
            "Pattern",
            "Program",
            "QueryBudget",
            "TimeSpan",
            "cat",
            "check_pattern",
            "check_pattern_async",
            "evaluate",
            "fastcat",
            "gap",
            "mini",
            "nothing",
            "pattern_to_song",
            "pure",
            "reify",
            "run_program",
            "seq",
            "sequence",
            "silence",
            "slowcat",
            "stack",
            "steady",
            "stepcat",
            "timecat",
            "to_time",
            "validate_async",
            "validate_pattern",
        ]
    )
    for name in patterns.__all__:
        assert getattr(patterns, name) is not None

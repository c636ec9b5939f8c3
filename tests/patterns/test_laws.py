"""Pattern laws as hypothesis properties (Tidal's and Strudel's algebra)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.patterns import Pattern, mini, pure, sequence, slowcat, stack, stepcat
from bandstand.patterns.methods import REGISTRY
from bandstand.patterns.time import TimeSpan
from tests.patterns.helpers import FACTORS, assert_same_events, events, patterns, spans

fast = REGISTRY["fast"]
rev = REGISTRY["rev"]
SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(patterns(), spans(), st.sampled_from(FACTORS))
def test_fast_then_slow_is_identity(p: Pattern, span: TimeSpan, k: Fraction) -> None:
    assert_same_events(span, p.fast(k).slow(k), p)


@SETTINGS
@given(patterns(), spans(), st.sampled_from(FACTORS), st.sampled_from(FACTORS))
def test_fast_composes_by_multiplication(
    p: Pattern, span: TimeSpan, a: Fraction, b: Fraction
) -> None:
    assert_same_events(span, p.fast(a).fast(b), p.fast(a * b))


@SETTINGS
@given(patterns(), spans(within_cycle=True))
def test_rev_twice_is_identity(p: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, p.rev().rev(), p)


@SETTINGS
@given(patterns(), spans(), st.sampled_from([Fraction(1, 4), Fraction(2, 3), Fraction(5, 2)]))
def test_early_then_late_is_identity(p: Pattern, span: TimeSpan, t: Fraction) -> None:
    assert_same_events(span, p.early(t).late(t), p)


@SETTINGS
@given(patterns(), patterns(), patterns(), spans())
def test_stack_is_associative(a: Pattern, b: Pattern, c: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, stack(a, stack(b, c)), stack(stack(a, b), c))
    assert_same_events(span, stack(a, b, c), stack(stack(a, b), c))


@SETTINGS
@given(patterns(), patterns(), patterns(), spans(within_cycle=True))
def test_weighted_concatenation_is_associative(
    a: Pattern, b: Pattern, c: Pattern, span: TimeSpan
) -> None:
    left = stepcat([1, a], [2, stepcat([1, b], [1, c])])
    right = stepcat([2, stepcat([1, a], [1, b])], [1, c])
    assert_same_events(span, left, stepcat([1, a], [1, b], [1, c]))
    assert_same_events(span, right, stepcat([1, a], [1, b], [1, c]))


@SETTINGS
@given(patterns(), patterns(), spans())
def test_stack_is_commutative_up_to_order(a: Pattern, b: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, stack(a, b), stack(b, a))


@SETTINGS
@given(patterns(), spans(within_cycle=True))
def test_every_one_applies_always(p: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, p.every(1, fast(2)), p.fast(2))


@SETTINGS
@given(patterns(), spans(within_cycle=True))
def test_zoom_and_compress_of_the_whole_cycle_are_identity(p: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, p.zoom(0, 1), p)
    assert_same_events(span, p.compress(0, 1), p)


@SETTINGS
@given(patterns(), spans(within_cycle=True))
def test_adding_zero_changes_nothing(p: Pattern, span: TimeSpan) -> None:
    assert_same_events(span, p.add(0), p)


@SETTINGS
@given(patterns(), st.integers(0, 5))
def test_palindrome_plays_forwards_on_even_cycles(p: Pattern, cycle: int) -> None:
    span = (2 * cycle, 2 * cycle + 1)
    assert_same_events(span, p.palindrome(), p)
    odd = (2 * cycle + 1, 2 * cycle + 2)
    assert_same_events(odd, p.palindrome(), p.rev())


@SETTINGS
@given(patterns(), st.integers(1, 5))
def test_iter_starts_unshifted(p: Pattern, n: int) -> None:
    assert_same_events((0, 1), p.iter(n), p)


@SETTINGS
@given(st.lists(st.integers(0, 9), min_size=1, max_size=6), spans())
def test_mini_sequence_is_fastcat(values: list[int], span: TimeSpan) -> None:
    text = " ".join(str(v) for v in values)
    assert_same_events(span, mini(text).strip_context(), sequence(*values))
    assert_same_events(span, mini(f"<{text}>").strip_context(), slowcat(*values))
    assert_same_events(span, mini(f"[{text}]*2").strip_context(), sequence(*values).fast(2))


@SETTINGS
@given(st.integers(0, 8), st.integers(1, 8), st.integers(0, 7))
def test_euclid_has_k_onsets_per_cycle(k: int, n: int, cycle: int) -> None:
    k = min(k, n)
    haps = pure("x").euclid(k, n).query_arc(cycle, cycle + 1)
    assert sum(h.has_onset() for h in haps) == k


@SETTINGS
@given(st.lists(st.integers(0, 9), min_size=2, max_size=6), st.integers(0, 50))
def test_shuffle_is_a_permutation_of_each_cycle(values: list[int], cycle: int) -> None:
    n = len(values)
    shuffled = sequence(*values).shuffle(n).query_arc(cycle, cycle + 1)
    assert sorted(h.value for h in shuffled) == sorted(values)


@SETTINGS
@given(spans())
def test_rand_is_in_the_unit_interval(span: TimeSpan) -> None:
    from bandstand.patterns.signals import rand

    for h in rand.segment(8).query_arc(span.begin, span.end):
        assert 0 <= h.value < 1


@SETTINGS
@given(patterns(), spans())
def test_degrade_keeps_a_subset(p: Pattern, span: TimeSpan) -> None:
    kept = events(p.degradeBy(0.5), span)
    everything = events(p, span)
    assert all(e in everything for e in kept)


@SETTINGS
@given(patterns(), spans(within_cycle=True))
def test_sometimes_by_splits_between_original_and_function(a: Pattern, span: TimeSpan) -> None:
    # each event goes either way, never both, never neither (within a cycle: no fragments)
    both = events(a.sometimesBy(0.5, lambda x: x.add(100)), span)
    original = events(a, span)
    assert len(both) == len(original)

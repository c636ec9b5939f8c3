"""The jam's bridge to the pattern engine: verdicts, and what validation evaluated and
played reused by the transport, the recorder and the musicians listening to each other."""

from __future__ import annotations

from fractions import Fraction

from bandstand.jam.musicians._craft import events_per_cycle, kick_steps, listen
from bandstand.jam.sound import PatternBook, compile_pattern, cycle_events, onsets, validate
from bandstand.patterns import evaluate
from bandstand.patterns.validate import check_pattern

C_MINOR = ["c", "d", "eb", "f", "g", "ab", "bb"]


def _plain_onsets(code: str, cycles: int) -> list[tuple[Fraction, object]]:
    haps = evaluate(code).query_arc(0, cycles)
    return sorted((Fraction(h.whole.begin), repr(h.value)) for h in haps if h.has_onset())


def test_a_validated_pattern_is_evaluated_and_played_once() -> None:
    code = 's("bd [~ bd] ~ bd, ~ sd").gain(0.8).fast(2) '  # stripped before validation
    assert validate(code, C_MINOR).ok
    book = PatternBook()  # an engine's own: what it validated, it plays, and no one else sees
    assert book.validate(code, C_MINOR).ok
    # the pattern validation evaluated is the one the transport plays: not evaluated again
    played = book.compile(code.strip())
    assert played is check_pattern(code.strip(), cache=book.analyses).pattern
    assert played is not compile_pattern(code.strip())  # the module's default book is another
    for cycles in (1, 2, 4):
        heard = sorted(
            (Fraction(h.whole.begin), repr(h.value)) for h in book.onsets(code.strip(), cycles)
        )
        assert heard == _plain_onsets(code, cycles)
        assert sorted(
            (Fraction(h.whole.begin), repr(h.value)) for h in onsets(code.strip(), cycles)
        ) == heard
    assert kick_steps(code.strip(), 16) == [0, 3, 6, 8, 11, 14]
    assert events_per_cycle(code.strip()) == 8


def test_listening_to_code_never_validated_queries_it() -> None:
    code = 'note("c3 eb3 g3 bb3").s("sawtooth").slow(2)'
    assert sorted((t, repr(v)) for t, v in listen(code, 4)) == _plain_onsets(code, 4)
    assert [e.note for e in cycle_events("GROOVE", code, 1)] == [55, 58]


def test_an_invalid_pattern_keeps_nothing_and_its_verdict_says_why() -> None:
    verdict = validate('s("bd").fast(1000000)', C_MINOR)
    assert not verdict.ok and "too dense" in verdict.error
    assert listen("s('bd'", 1) == ()  # does not parse: listening hears nothing, never fails
    out_of_key = validate('note("c4 db4 e4 gb4").s("piano")', C_MINOR)
    assert not out_of_key.ok and "outside" in out_of_key.error

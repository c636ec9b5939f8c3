"""Issue 16: `note("a b").pace(0)` changed the process-wide `silence` (its steps became 0)
for every later jam. Patterns are values now: every method returns a new pattern and no
attribute of a built pattern can be set."""

from __future__ import annotations

import pytest

from bandstand.patterns import evaluate, mini, pure, silence
from bandstand.patterns.constructors import nothing
from bandstand.patterns.methods import get_registry


def test_pace_zero_leaves_silence_alone() -> None:
    before = (silence.steps, nothing.steps)
    evaluate('note("a b").pace(0)').query_arc(0, 1)
    evaluate('s("~ ~").pace(0).expand(3)').query_arc(0, 1)
    assert (silence.steps, nothing.steps) == before == (1, 0)
    assert evaluate('s("bd sd").pace(4)').steps == 4


def test_shared_patterns_cannot_be_changed() -> None:
    sine = get_registry().call("sine")
    for shared in (silence, nothing, sine):
        with pytest.raises(AttributeError, match="cannot be changed"):
            shared.steps = 0
        with pytest.raises(AttributeError, match="cannot be changed"):
            del shared.steps


def test_methods_return_new_patterns() -> None:
    p = mini("a b c")
    q = p.set_steps(7)
    assert (p.steps, q.steps) == (3, 7)
    assert p.copy() is not p and p.copy().steps == p.steps
    r = pure(1)
    assert r.with_loc(0, 1) is not r and r._pure_loc is None


async def test_each_jam_engine_owns_its_compile_cache() -> None:
    from bandstand.jam.engine import JamEngine
    from bandstand.jam.persona import resolve_members
    from bandstand.jam.transport import Transport

    first, second = JamEngine(resolve_members(["beat"])), JamEngine(resolve_members(["beat"]))
    assert first.patterns is not second.patterns
    await first.start()
    try:
        Transport(first).advance()
        code = first.composition.layers[0][1]
        assert code in first.patterns.patterns and code not in second.patterns.patterns
        assert first.patterns.known_verdict(code, first.context.scale) is not None
        assert second.patterns.known_verdict(code, second.context.scale) is None
        assert second.patterns.compile(code) is not first.patterns.compile(code)
    finally:
        await first.stop()

"""Reading a client's frame: the nesting depth is measured without recursion, exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.server.frames import json_depth, read_frame

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab:,'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\x'), inner, max_size=3),
    max_leaves=30,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@given(values)
def test_the_depth_is_that_of_the_value(value: Any) -> None:
    text = json.dumps(value)
    assert json_depth(text) == depth(value)
    assert read_frame(text, max_bytes=len(text), max_depth=depth(value)) == value


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "0" + "}" * 50_000])
def test_a_frame_too_deep_is_refused_without_recursion(text: str) -> None:
    with pytest.raises(InvalidInput, match="nest arrays and objects at most 32 deep"):
        read_frame(text, max_bytes=len(text))


def test_text_that_is_not_json_or_too_big_is_refused() -> None:
    with pytest.raises(InvalidInput, match="must be JSON text"):
        read_frame("{nope", max_bytes=100)
    with pytest.raises(InvalidInput, match="at most 4 bytes"):
        read_frame('"long"', max_bytes=4)


@pytest.mark.parametrize("text", ['"\\"\\"\\"[[[', '"[[[', '["a", "\\"[[', '"' + '\\"' * 20_000 + "[["])
def test_an_unterminated_string_runs_to_the_end_in_one_pass(text: str) -> None:
    # brackets after an unclosed quote are inside the string; every quote of '"\\"\\"…' once
    # started its own scan to the end (quadratic: 17 s for 42 KB); benchmarks/jam_server.py times it
    assert json_depth(text) == (1 if text.startswith("[") else 0)
    with pytest.raises(InvalidInput, match="must be JSON text"):
        read_frame(text, max_bytes=len(text))

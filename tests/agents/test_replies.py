"""Reply extraction and validation: fences, prose, invalid replies, never raising."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from bandstand.agents import extract_json, parse_reply, repair_prompt
from bandstand.agents.replies import ReplyFormatError


class Pattern(BaseModel):
    pattern: str
    thoughts: str = ""
    energy: int = 5


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
objects = st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4)
prose = st.text(alphabet=st.characters(blacklist_characters="{}`"), max_size=40)


@given(objects)
def test_bare_object(obj: dict) -> None:
    assert extract_json(json.dumps(obj)) == obj


@given(prose, objects, prose)
def test_object_inside_prose(before: str, obj: dict, after: str) -> None:
    assert extract_json(f"{before}{json.dumps(obj)}{after}") == obj


@given(prose, objects, prose, st.sampled_from(["json", "JSON", ""]))
def test_object_inside_a_fence(before: str, obj: dict, after: str, lang: str) -> None:
    text = f"{before}\n```{lang}\n{json.dumps(obj, indent=2)}\n```\n{after}"
    assert extract_json(text) == obj


@given(st.text(max_size=200))
def test_parse_reply_never_raises(text: str) -> None:
    parsed = parse_reply(text, Pattern)
    assert parsed.ok == (parsed.value is not None)


def test_no_object_is_a_format_error() -> None:
    try:
        extract_json("I think the bass should rest. [1, 2]")
    except ReplyFormatError as exc:
        assert "no JSON object" in str(exc)
    else:
        raise AssertionError("expected ReplyFormatError")


def test_skips_broken_braces_before_the_object() -> None:
    assert extract_json('use {braces} like {"pattern": "bd*4"} ok') == {"pattern": "bd*4"}


def test_validation_error_names_the_field() -> None:
    parsed = parse_reply('Sure! ```json\n{"thoughts": "x", "energy": "loud"}\n```', Pattern)
    assert not parsed.ok and parsed.value is None
    assert "pattern" in parsed.error and "energy" in parsed.error


def test_valid_reply_in_prose() -> None:
    parsed = parse_reply('Here you go: {"pattern": "s(\\"bd*4\\")", "energy": 7} — enjoy', Pattern)
    assert parsed.ok and parsed.value == Pattern(pattern='s("bd*4")', energy=7)


def test_dict_input_is_validated_directly() -> None:
    assert parse_reply({"pattern": "hh*8"}, Pattern).value == Pattern(pattern="hh*8")


def test_repair_prompt_quotes_error_and_schema() -> None:
    text = repair_prompt("pattern: Field required", Pattern)
    assert "pattern: Field required" in text and '"required":["pattern"]' in text

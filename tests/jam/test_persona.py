"""Personas: the built-in band and user persona files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.jam.persona import builtin_personas, load_persona, resolve_members

KEYS = """---
name: KEYS
emoji: 🎹
role: melody
aliases: [keys, organ]
stubbornness: 20
catchphrases: ["Comping is listening"]
register: c3-c5
palette: [square, sine]
---
You are KEYS, a soul organ player.
"""


def test_the_default_band_matches_the_spec() -> None:
    band = builtin_personas()
    assert {n: (p.role, p.stubbornness, p.ego) for n, p in band.items()} == {
        "BEAT": ("drums", 70, "high"),
        "GROOVE": ("bass", 30, "low"),
        "ARIA": ("melody", 50, "medium"),
        "GLITCH": ("fx", 60, "high"),
    }
    assert "The groove is sacred" in band["BEAT"].catchphrases
    assert band["GROOVE"].pitch_range == "c1-c3"
    assert band["BEAT"].colour == "#e5484d"


def test_a_user_persona_file_joins_the_band(tmp_path) -> None:
    path = tmp_path / "keys.md"
    path.write_text(KEYS, encoding="utf-8")
    keys = load_persona(path)
    assert keys.handles() == {"keys", "melody", "organ"}
    assert "soul organ" in keys.system_prompt() and '"pattern"' in keys.system_prompt()
    band = resolve_members(["beat", "keys"], [keys])
    assert [p.name for p in band] == ["BEAT", "KEYS"]
    assert [p.name for p in resolve_members(None, [keys])] == ["BEAT", "GROOVE", "ARIA", "GLITCH", "KEYS"]


def test_bad_persona_files_and_names_are_user_errors(tmp_path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("no front matter", encoding="utf-8")
    with pytest.raises(InvalidInput, match="front matter"):
        load_persona(path)
    path.write_text("---\nname: X\nrole: drums\nstubbornness: 300\n---\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="stubbornness"):
        load_persona(path)
    with pytest.raises(InvalidInput, match="unknown band member 'tuba'; known: ARIA, BEAT"):
        resolve_members(["tuba"])


def test_the_pattern_guide_examples_are_valid_in_c_minor() -> None:
    from bandstand.jam.guide import EXAMPLES, GUIDE
    from bandstand.jam.sound import validate

    scale = ["c", "d", "eb", "f", "g", "ab", "bb"]
    for role, code in EXAMPLES.items():
        assert validate(code, scale).ok, (role, validate(code, scale).error)
        assert code in GUIDE


def test_a_persona_file_that_is_not_utf8_is_a_user_error(tmp_path: Path) -> None:
    persona = tmp_path / "keys.md"
    persona.write_bytes(b"\xff\xfe" + KEYS.encode("utf-8"))
    with pytest.raises(InvalidInput, match=r"keys\.md is not UTF-8 text"):
        load_persona(persona)


def test_a_member_named_twice_is_refused_like_the_server_does(capsys: pytest.CaptureFixture[str]) -> None:
    from bandstand.cli import run

    assert run(["jam", "--headless", "--members", "beat,groove,Beat", "--cycles", "1", "--no-wav"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["bandstand: error: BEAT named more than once; name each member once"]

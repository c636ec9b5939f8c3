"""Issue #23, start-up: a command loads what it uses. `compose --help` builds no pydantic
adapter, a compose does not load the jam's and the studio's protocol families, the tool
registry, the agents' backends, asyncio, numpy.ma, the audio stack without audio or the HTTP
generator when none is named; and what was made lazy answers as before
(package exports, CLI coercion, the lexicon scan)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import bandstand.agents
import bandstand.protocol
from bandstand.cli import run
from bandstand.compose.intent import scan


def _loaded(code: str, names: tuple[str, ...]) -> list[str]:
    probe = f"{code}\nimport sys\nprint('LOADED=' + ','.join(m for m in {names!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return [m for m in out.strip().splitlines()[-1].removeprefix("LOADED=").split(",") if m]


def test_compose_help_imports_no_pydantic_and_no_music() -> None:
    code = "import contextlib, io\nfrom bandstand.cli import run\nwith contextlib.redirect_stdout(io.StringIO()):\n" \
           "    assert run(['compose', '--help']) == 0"
    assert _loaded(code, ("pydantic", "typer._adapters", "numpy", "bandstand.compose.api", "rich")) == []


def test_a_compose_loads_only_what_it_uses(tmp_path: Path) -> None:
    code = ("import contextlib, io\nfrom bandstand.cli import run\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    assert run(['compose', 'Trap beat, dark, 140 BPM, key of Am', '--seed', '7', '--bars', '8', "
            f"'--no-audio', '--out', {str(tmp_path)!r}]) == 0")
    unused = ("bandstand.protocol.jam", "bandstand.protocol.studio", "bandstand.protocol.streams",
              "bandstand.protocol.introspect", "bandstand.studio.tools", "bandstand.agents.config",
              "bandstand.agents.claude_code", "bandstand.agents.registry", "asyncio", "numpy.ma",
              # the piano roll draws without the audio stack; the HTTP generator loads when named
              "bandstand.render.audio", "bandstand.render.synth", "bandstand.compose.parts.remote", "urllib.request")
    assert _loaded(code, unused) == []
    assert list(tmp_path.glob("session-*/midi/full-arrangement.mid"))


@pytest.mark.parametrize("package", [bandstand.protocol, bandstand.agents])
def test_lazy_exports_are_the_exports(package) -> None:
    assert set(package._LAZY) == set(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is not None
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018


def test_the_protocol_compose_family_alone() -> None:
    assert _loaded("from bandstand.protocol import compose", ("bandstand.protocol.jam", "bandstand.protocol.studio",
                                                             "bandstand.protocol.emitter")) == []


def test_options_left_unset_and_values_given_come_out_as_before(tmp_path: Path, capsys) -> None:
    assert run(["compose", "x", "--seed", "-1"]) == 2
    assert "invalid value for '--seed' / '-s': Input should be greater than or equal to 0" in capsys.readouterr().err
    assert run(["compose", "x", "--bars", "four"]) == 2
    assert "invalid value for '--bars' / '-b': Input should be a valid integer" in capsys.readouterr().err
    assert run(["compose", "bossa nova", "--seed", "3", "--bars", "8", "--no-audio", "--json", "--approve", "harmony",
                "--out", str(tmp_path)]) == 0
    assert '"status": "paused"' in capsys.readouterr().out


def _whole(text: str) -> list[tuple[int, int, str]]:
    """What the one alternation of every phrase, longest first, finds (as the scan did before)."""
    phrases = tuple(phrase for phrase, _ in scan._lexicon()[1])
    return [(m.start(), m.end(), m.group(0)) for m in scan._alternation(phrases).finditer(text)]


TEXTS = [
    "Frank Ocean meets Burial, late-night vibes", "Trap beat, dark, 140 BPM, key of Am",
    "Jazz house, complex chords, 4-on-floor, 122 BPM", "Lo-fi piano with 808s, no drums except kick",
    "deep  house with a  deep-house bassline and Swedish House Mafia synths", "HIP-HOP hip hop Hip   Hop",
    "ÉLECTRO swing, café jazz, ſoul, Kelvin K-pop", "drum and bass / drum & bass / d&b / dnb, liquid",
    "", "   ", "a", "neo-soul r&b uk garage 2-step", "ambient\tsoundscape\ndreamy Brian Eno",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_scan_with_its_candidates_finds_what_the_whole_alternation_finds(text: str) -> None:
    candidates = scan._candidates(text)
    found = [(m.start(), m.end(), m.group(0)) for m in scan._alternation(candidates).finditer(text)] \
        if candidates else []
    assert found == _whole(text)
    assert len(candidates) < len(scan._lexicon()[1]) or not text.isascii()


def test_phrase_starts_are_compared_lower_cased_soundly() -> None:
    """The candidates compare a word's first letters lower-cased: that is the case-insensitive
    match only if phrases are lower case and no letter of a phrase's start other than an ASCII
    one matches an ASCII character."""
    for phrase, first in scan._lexicon()[1]:
        assert phrase == phrase.lower() and phrase.startswith(first) and " " not in first
        for c in first:
            if not c.isascii():
                assert not any(re.fullmatch(re.escape(c), chr(a), re.IGNORECASE) for a in range(128)), phrase

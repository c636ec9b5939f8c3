"""Headless jam input checks: a bad --out, directive or persona fails before the jam plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.errors import InvalidInput
from bandstand.jam.headless import schedule


def _fails_cleanly(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing played, nothing printed
    line = captured.err.strip()
    assert "\n" not in line and line.startswith("bandstand: error: ")
    for word in words:
        assert word in line


@pytest.mark.parametrize("sub", ["", "rec"])
def test_out_under_a_file_fails_before_the_jam(tmp_path: Path, capsys: pytest.CaptureFixture[str], sub: str) -> None:
    blocker = tmp_path / "taken.txt"
    blocker.write_text("x")
    out = blocker / sub if sub else blocker
    _fails_cleanly(capsys, ["jam", "--headless", "--cycles", "2", "--no-wav", "--out", str(out)], "is a file, not a folder", "--out")
    assert blocker.read_text() == "x"


@pytest.mark.parametrize(
    ("directive", "words"),
    [
        ("", ("needs some words",)),
        ("@nobody hi", ("@nobody",)),
        ("99:hello", ("cycle 99", "--cycles")),
    ],
)
def test_bad_directive_fails_before_the_jam(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], directive: str, words: tuple[str, ...]
) -> None:
    out = tmp_path / "rec"
    _fails_cleanly(capsys, ["jam", "--headless", "--cycles", "2", "--no-wav", "--directive", directive, "--out", str(out)], *words)
    assert not out.exists()


def test_every_beyond_the_jam_is_an_error_not_silence() -> None:
    with pytest.raises(InvalidInput, match="--every 100"):
        schedule(["hi"], cycles=4, every=100)


def test_evenly_spaced_directives_stay_inside_a_short_jam() -> None:
    assert [s.cycle for s in schedule(["a", "b", "c"], cycles=2)] == [1, 1, 1]
    assert [s.cycle for s in schedule(["a"], cycles=1)] == [0]



def test_an_llm_backend_that_cannot_work_here_fails_before_the_jam(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # it used to play a jam of silent, failing members and exit 0
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BANDSTAND_CLAUDE_BIN", str(tmp_path / "no-such-claude"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "rec"
    _fails_cleanly(capsys, ["jam", "--headless", "--backend", "claude-code", "--cycles", "1", "--out", str(out)], "--backend claude-code cannot be used here", "agents check")
    _fails_cleanly(capsys, ["jam", "--headless", "--backend", "openai", "--cycles", "1", "--out", str(out)], "OPENAI_API_KEY")
    assert not out.exists()


def test_a_usable_llm_backend_passes_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claude_bin: Path) -> None:
    from bandstand.jam.backends import backend_factory

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BANDSTAND_CLAUDE_BIN", str(claude_bin))
    assert callable(backend_factory("claude-code"))
    assert callable(backend_factory("openai", base_url="http://127.0.0.1:1/v1"))  # a local server needs no key

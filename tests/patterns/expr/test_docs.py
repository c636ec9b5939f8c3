"""Every example in docs/patterns.md runs and prints what the page says."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from bandstand.cli import run

DOC = Path(__file__).resolve().parents[3] / "docs" / "patterns.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def python_examples() -> list[tuple[str, str]]:
    found = blocks()
    return [
        (body, found[i + 1][1])
        for i, (kind, body) in enumerate(found)
        if kind == "python" and i + 1 < len(found) and found[i + 1][0] == "text"
    ]


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ` line of the console blocks."""
    out: list[tuple[str, str]] = []
    for kind, body in blocks():
        if kind != "console":
            continue
        for chunk in re.split(r"^\$ ", body, flags=re.MULTILINE)[1:]:
            command, _, expected = chunk.partition("\n")
            out.append((command, expected))
    return out


def test_the_page_has_examples() -> None:
    assert len(python_examples()) == 6
    assert len(console_examples()) == 7


@pytest.mark.parametrize("index", range(6))
def test_python_examples_print_what_the_page_shows(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, shown = python_examples()[index]
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    assert out.getvalue() == shown


@pytest.mark.parametrize("index", range(7))  # the refused example's budget counts CPU time: a busy machine is fine
def test_commands_print_what_the_page_shows(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    command, expected = console_examples()[index]
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command)
    assert argv[0] == "bandstand"
    code = run(argv[1:])
    captured = capsys.readouterr()
    assert code == (2 if expected.startswith("bandstand: error") else 0)
    assert captured.out + captured.err == expected
    for word in argv:
        if word.endswith((".mid", ".wav")):
            assert (tmp_path / word).stat().st_size > 0

"""Every example in docs/render.md runs and prints what the page says."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from bandstand.cli import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "render.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_python_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = blocks()
    kinds = [kind for kind, _ in found]
    code = found[kinds.index("python")][1]
    shown = found[kinds.index("python") + 1][1]
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    assert out.getvalue() == shown
    assert {p.name for p in tmp_path.iterdir()} == {"night-bus.mid", "night-bus.png", "night-bus.wav"}


def test_every_python_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = blocks()
    monkeypatch.chdir(tmp_path)
    examples = [(code, found[i + 1][1]) for i, (kind, code) in enumerate(found) if kind == "python"]
    assert len(examples) >= 2
    for code, shown in examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
        assert out.getvalue() == shown


def test_commands_print_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    test_python_example_prints_what_the_page_shows(tmp_path, monkeypatch)  # makes night-bus.mid
    found = blocks()
    kinds = [kind for kind, _ in found]
    commands = found[kinds.index("bash")][1].splitlines()
    shown = found[kinds.index("bash") + 1][1]
    capsys.readouterr()
    for line in commands:
        assert run(shlex.split(line)[1:]) == 0
    assert capsys.readouterr().out == shown
    assert (tmp_path / "roll.png").exists() and (tmp_path / "mix.wav").exists()


def test_error_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    block = next(body for kind, body in blocks() if kind == "text" and body.startswith("$ "))
    command, expected = block.splitlines()
    monkeypatch.chdir(tmp_path)
    assert run(shlex.split(command[2:])[1:]) == 2
    assert capsys.readouterr().err.strip() == expected

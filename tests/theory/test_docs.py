"""Every example in docs/theory.md runs and prints what the page shows."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from bandstand.cli import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "theory.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def _blocks(kind: str) -> list[str]:
    return [body for k, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if k == kind]


def _sessions(body: str) -> list[tuple[str, str]]:
    """Split a console block into (command, expected output) pairs."""
    out: list[tuple[str, str]] = []
    for chunk in re.split(r"^\$ ", body, flags=re.MULTILINE)[1:]:
        command, _, shown = chunk.partition("\n")
        out.append((command, shown))
    return out


def _run_python_examples() -> None:
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {}
    for index, body in enumerate(_blocks("pycon")):
        test = parser.get_doctest(body, globs, f"theory.md[{index}]", str(DOC), 0)
        test.globs = globs  # the page's examples build on each other
        runner.run(test, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 20
    assert result.failed == 0


def test_python_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _run_python_examples()
    assert (tmp_path / "lament.mid").exists()


def test_console_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _run_python_examples()  # writes lament.mid for `bandstand theory key`
    capsys.readouterr()
    sessions = [s for body in _blocks("console") for s in _sessions(body)]
    assert len(sessions) >= 6
    for command, shown in sessions:
        argv = shlex.split(command)
        assert argv[0] == "bandstand"
        code = run(argv[1:])
        captured = capsys.readouterr()
        if shown.startswith("bandstand: error:"):
            assert code == 2
            assert captured.err == shown, command
        else:
            assert code == 0, captured.err
            assert captured.out == shown, command

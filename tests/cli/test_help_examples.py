"""`--help` of jam, render, team run and resume, agents check; bare groups; no Python types as metavars."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from bandstand.cli import run

PAGES = [["jam"], ["render"], ["team", "run"], ["team", "resume"], ["agents", "check"], ["compose"], ["resume"]]


@pytest.mark.parametrize("argv", PAGES, ids=[" ".join(a) for a in PAGES])
def test_help_has_examples_and_readable_metavars(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*argv, "--help"]) == 0
    text = capsys.readouterr().out
    assert "Examples:" in text
    assert "list[" not in text  # e.g. '--persona <list[Path]>' said nothing to a user
    block = text.split("Examples:", 1)[1].split("\n\n", 1)[0]  # up to the next block (compose's exit codes)
    examples = [line.strip() for line in block.splitlines() if "bandstand " in line]
    assert examples
    for line in examples:
        words = shlex.split(line.split("  #", 1)[0], comments=False)
        words = words[next(i for i, w in enumerate(words) if w == "bandstand") + 1 :]
        assert words[: len(argv)] == argv  # each example is for this command


def test_render_example_options_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the options the examples use exist: a missing file is the only complaint
    code = run(["render", str(tmp_path / "song.mid"), "--no-audio", "--width", "1200", "--height", "600"])
    assert code == 2 and "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("group", [["theory"], ["agents"], ["team"], ["board"], ["board", "hook"]], ids=" ".join)
def test_a_bare_group_is_one_line_missing_command(group: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # it used to print the whole help page as the "error", prefixed with 'bandstand: error: Usage:'
    assert run(group) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"bandstand: error: missing command. (see 'bandstand {' '.join(group)} --help')"

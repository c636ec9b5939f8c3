"""The root command: help, version, unknown commands, exit codes."""

from __future__ import annotations

import subprocess
import sys

import bandstand
from bandstand.cli import COMMANDS, run


def test_top_level_exports_are_pinned() -> None:
    assert bandstand.__all__ == ["__version__", "compose"]


def test_help_lists_every_command(capsys) -> None:
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_version(capsys) -> None:
    assert run(["--version"]) == 0
    assert bandstand.__version__ in capsys.readouterr().out


def test_unknown_command_is_one_line_exit_2(capsys) -> None:
    assert run(["compse"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "compse" in err[0] and "compose" in err[0]


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys; from bandstand.cli import run; run(['--help']);"
        "heavy = [m for m in ('numpy', 'symusic', 'pydantic', 'fastapi', 'matplotlib', 'music21', 'rich', 'scipy', 'pyloudnorm') if m in sys.modules];"
        "print('HEAVY=' + ','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "HEAVY="

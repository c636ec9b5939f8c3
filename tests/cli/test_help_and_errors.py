"""The CLI's manners: a bare `bandstand` shows the help; help pages never break a word across
lines and name values instead of showing Python types; an option typed before its sub-command
says where it goes; every error line continues "bandstand: error: " in lower case."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bandstand.errors
from bandstand.cli import COMMANDS, load_command, run

SRC = Path(bandstand.errors.__file__).parent


def bandstand_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_a_bare_bandstand_prints_the_help() -> None:
    done = bandstand_cli()  # it said "Missing command." and exited 2
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("Usage: bandstand ")
    assert all(name in done.stdout for name in COMMANDS)


def _leaves(command: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    subs = getattr(command, "commands", None) or {}
    if not subs:
        return [(path, command)]
    out = [(path, command)]
    for name, sub in subs.items():
        out += _leaves(sub, [*path, name])
    return out


PAGES = [leaf for name in COMMANDS for leaf in _leaves(load_command(name), [name])]


@pytest.mark.parametrize(("path", "command"), PAGES, ids=[" ".join(p) for p, _ in PAGES])
def test_help_pages_keep_words_whole_and_name_their_values(path: list[str], command: Any,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*path, "--help"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"<(int|float|str|path|bool|text|list\[[^>]*\])[^>]*>", out), out
    usage = out.split("\n\n")[0]
    # typer's {FILE.mid} for a required argument; braces stay only around alternatives {a|b}
    assert not re.search(r"\{[^|}]*\}", usage), usage
    flat = " ".join(out.split())
    for param in command.params:
        for word in (getattr(param, "help", None) or "").split():
            # a word of the help that is not in the page whole was broken across two lines
            assert word in flat, f"{' '.join(path)} --help broke {word!r}"


def test_an_option_before_its_sub_command_says_where_it_goes() -> None:
    done = bandstand_cli("theory", "--json", "chord", "Am7")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("bandstand: error: --json goes after the sub-command: 'bandstand theory chord")
    done = bandstand_cli("--json", "sessions", "list")
    assert done.returncode == 2
    assert "--json goes after the sub-command: 'bandstand sessions list … --json'" in done.stderr


MISTAKES = [
    ["compose"],                                  # click: missing argument
    ["compose", "x", "--bars", "many"],           # click: invalid value
    ["compose", "x", "--frobnicate"],             # click: no such option
    ["theory"],                                   # click: missing command
    ["compse"],                                   # ours: no such command
    ["compose", ""],                              # ours: the prompt is empty
    ["render", "/nonexistent/x.mid"],             # ours: no such file
    ["theory", "chord", "H7"],                    # ours: a chord that does not parse
]


@pytest.mark.parametrize("argv", MISTAKES, ids=" ".join)
def test_error_lines_continue_in_lower_case(argv: list[str]) -> None:
    done = bandstand_cli(*argv)
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith("bandstand: error: ")
    rest = first.removeprefix("bandstand: error: ")
    assert not re.match(r"[A-Z][a-z]+[ ,.;]", rest), first  # "No such option", "Missing argument", …


def _error_classes() -> set[str]:
    return {name for name, value in vars(bandstand.errors).items()
            if isinstance(value, type) and issubclass(value, bandstand.errors.BandstandError)}


def _messages() -> list[tuple[str, int, str]]:
    """(file, line, first words) of every message bandstand raises as one of its own errors."""
    classes = _error_classes()
    found = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name not in classes or not node.exc.args:
                continue
            first = node.exc.args[0]
            if isinstance(first, ast.JoinedStr):
                first = next((v for v in first.values if isinstance(v, ast.Constant)), None)  # type: ignore[assignment]
                if first is None or node.exc.args[0].values[0] is not first:  # type: ignore[attr-defined]
                    continue  # starts with a value: a name as written
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((str(path.relative_to(SRC)), node.lineno, first.value[:40]))
    return found


def test_every_error_message_bandstand_raises_starts_in_lower_case() -> None:
    messages = _messages()
    assert len(messages) > 200  # the scan sees the messages
    capitalised = [m for m in messages if re.match(r"[A-Z][a-z]+(?![\w:])", m[2])]
    # allowed: a prompt's field as written ("Key: 'H' is not a key"), an acronym (MIDI), a name (BEAT)
    assert capitalised == [], capitalised


def test_sentence_lowers_only_a_plain_capitalised_word() -> None:
    from bandstand.cli import sentence

    assert sentence("No such option: --x") == "no such option: --x"
    assert sentence("Missing argument 'PROMPT'.") == "missing argument 'PROMPT'."
    assert sentence("MIDI file too long") == "MIDI file too long"
    assert sentence("Key: 'H' is not a key") == "Key: 'H' is not a key"
    assert sentence("BEAT is not in the band") == "BEAT is not in the band"

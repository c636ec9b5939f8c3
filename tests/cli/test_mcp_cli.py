"""`bandstand mcp`: its help, and without the mcp extra one line that says how to install
it (exit 2)."""

from __future__ import annotations

import sys

import pytest

from bandstand.cli import run


def test_without_the_sdk_it_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if the extra were not installed
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    assert run(["mcp"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("bandstand: error: the MCP server needs the official mcp SDK: install the mcp extra "
                            "(scripts/setup mcp in the checkout, or pip install -e '.[mcp]' from it)\n")


def test_help_shows_examples_and_the_client_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["mcp", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--out" in text and "--backend" in text and "Examples:" in text
    assert '"args": ["mcp", "--out", "DIR"]' in text

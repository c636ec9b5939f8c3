"""`bandstand jam` (the server): a busy port or a wrong --host is one line and exit 2."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from bandstand.cli import run


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    line = captured.err.strip()
    assert "\n" not in line and line.startswith("bandstand: error: ") and "internal error" not in line
    for word in words:
        assert word in line


def test_a_busy_port_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        _one_line(capsys, ["jam", "--no-browser", "--port", str(port)], f"cannot listen on 127.0.0.1:{port}", "--port")


@pytest.mark.parametrize(("args", "word"), [
    (["--host", ""], "--host is empty"),
    (["--host", "nosuchhost.invalid"], "--host nosuchhost.invalid would let other machines reach the server; add --allow-remote"),
    (["--host", "nosuchhost.invalid", "--allow-remote"], "cannot listen on nosuchhost.invalid"),
])
def test_a_wrong_host_is_a_user_error(capsys: pytest.CaptureFixture[str], args: list[str], word: str) -> None:
    _one_line(capsys, ["jam", "--no-browser", *args], word)


def test_the_summary_line_counts_in_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["jam", "--headless", "--members", "beat", "--cycles", "1", "--no-wav", "--out", str(tmp_path / "r")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"recorded 1 cycle, 1 round → {tmp_path / 'r'}"


KEYS = """---
name: KEYS
emoji: 🎹
role: melody
---
You are KEYS.
"""


def test_a_persona_left_out_of_members_is_an_error_not_silence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    persona = tmp_path / "keys.md"
    persona.write_text(KEYS)
    out = tmp_path / "r"
    _one_line(capsys, ["jam", "--headless", "--members", "beat", "--persona", str(persona), "--cycles", "1", "--no-wav", "--out", str(out)],
              "plays KEYS, who is not in --members beat", "--members beat,keys")
    assert not out.exists()
    assert run(["jam", "--headless", "--members", "beat,keys", "--persona", str(persona), "--cycles", "1", "--no-wav", "--out", str(out)]) == 0
    assert "KEYS" in capsys.readouterr().out

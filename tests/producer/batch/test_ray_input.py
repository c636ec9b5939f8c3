"""`--on ray` mistakes that need no cluster: Ray not installed, an address nobody answers, an
object store as the output folder, --runtime-env that is not JSON — one line each, exit 2,
nothing written."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from bandstand.cli import run


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when we return: nothing listens there


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    path = tmp_path / "p.txt"
    path.write_text("funk\n")
    return path


def test_without_ray_installed_one_line_says_how_to_install_it(prompts: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets where Ray is not installed
    assert run(["batch", str(prompts), "--on", "ray", "--out", str(tmp_path / "songs")]) == 2
    assert "--on ray needs Ray, which is not installed here: pip install '.[ray]'" in _one_line(capsys)
    assert not (tmp_path / "songs").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--on", "ray://127.0.0.1:{port}"], "no Ray cluster answers at ray://127.0.0.1:{port}"),
    (["--on", "ray://nowhere"], "write ray://HOST:PORT"),
    (["--on", "ray", "--out", "s3://bucket/songs"], "object stores are not supported"),
    (["--on", "ray", "--runtime-env", "{pip"], "--runtime-env: not JSON"),
    (["--on", "ray", "--board", "b.db"], "drop --board"),
])
def test_ray_mistakes_are_one_line_exit_2(args: list[str], message: str, prompts: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    port = _closed_port()
    args = [a.replace("{port}", str(port)) for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "songs")]
    assert run(["batch", str(prompts), *args, *out]) == 2
    assert message.replace("{port}", str(port)) in _one_line(capsys)
    assert not (tmp_path / "songs").exists()

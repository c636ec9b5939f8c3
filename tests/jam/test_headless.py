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


@pytest.mark.parametrize(
    ("directives", "words"),
    [
        (["4:chords F# B C#"], ("'chords F# B C#' (cycle 4) would be refused", "root outside c minor")),
        # in D major after the first, Bm G D A fit (not in C minor); Bb is outside D major
        (["2:switch to D major", "5:chords Bm G D A", "6:chords Bb F"], ("'chords Bb F' (cycle 6)", "d major")),
    ],
)
def test_a_directive_the_jam_would_refuse_mid_run_fails_before_any_sound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], directives: list[str], words: tuple[str, ...]
) -> None:
    out = tmp_path / "rec"
    argv = ["jam", "--headless", "--cycles", "8", "--no-wav", "--out", str(out)]
    _fails_cleanly(capsys, [*argv, *(x for d in directives for x in ("-d", d))], *words)
    assert not out.exists()


def test_a_directive_without_headless_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the browser jam used to start and ignore it
    _fails_cleanly(capsys, ["jam", "--no-browser", "--directive", "more energy"], "--directive is for --headless")


def test_an_out_folder_holding_an_edited_project_is_refused_before_the_jam(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rec"
    assert run(["jam", "--headless", "--members", "beat", "--cycles", "2", "--no-wav", "--out", str(out)]) == 0
    assert run(["jam", "--headless", "--members", "beat", "--cycles", "2", "--no-wav", "--out", str(out)]) == 0  # a jam's take: replaced
    capsys.readouterr()
    assert run(["tool", str(out), "set_track_volume", "--no-audio", "--args", '{"track": "BEAT drums", "volume": 0.5}']) == 0
    capsys.readouterr()
    before = (out / "jam.mid").read_bytes()
    _fails_cleanly(capsys, ["jam", "--headless", "--members", "beat", "--cycles", "2", "--no-wav", "--out", str(out)],
                   "holds a studio project with 2 revisions", "another --out")
    assert (out / "jam.mid").read_bytes() == before


def test_a_jam_whose_members_all_failed_exits_non_zero_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # an LLM server nobody listens on: it used to record silence and exit 0
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "rec"
    code = run(["jam", "--headless", "--members", "beat,groove", "--cycles", "3", "--no-wav", "--out", str(out),
                "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "local", "--turn-timeout", "5"])
    line = capsys.readouterr().err.strip()
    assert code == 1 and "\n" not in line
    assert line.startswith("bandstand: error: every member failed, nothing was recorded: BEAT: openai: connection failed")
    assert "agents check" in line and not (out / "jam.mid").exists()

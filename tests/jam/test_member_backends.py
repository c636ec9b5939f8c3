"""Each member its own backend: `--member-backend NAME=BACKEND` or the persona's `backend:`,
checked before the jam plays; a real headless jam with one LLM member on the local peer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.errors import InvalidInput
from bandstand.jam.backends import member_backends
from bandstand.jam.persona import parse_persona, resolve_members

KEYS = parse_persona("---\nname: KEYS\nrole: keys\nbackend: openai\n---\nA keys player.")


def test_flags_beat_the_persona_field_which_beats_the_band_default() -> None:
    band = [*resolve_members(["BEAT", "ARIA"]), KEYS]
    assert member_backends(band, "algorithmic", []) == {"BEAT": "algorithmic", "ARIA": "algorithmic", "KEYS": "openai"}
    chosen = member_backends(band, "algorithmic", ["aria=anthropic", "keys=algorithmic", "drums=claude-code"])
    assert chosen == {"BEAT": "claude-code", "ARIA": "anthropic", "KEYS": "algorithmic"}


@pytest.mark.parametrize(("flag", "words"), [
    ("NOBODY=openai", "no member 'NOBODY' in the band"),
    ("ARIA=gpt", "unknown backend 'gpt'"),
    ("ARIA", "write NAME=BACKEND"),
])
def test_a_bad_assignment_names_the_choices(flag: str, words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        member_backends(resolve_members(None), "algorithmic", [flag])


def test_a_bad_persona_backend_is_refused() -> None:
    odd = parse_persona("---\nname: ODD\nrole: keys\nbackend: telepathy\n---\n")
    with pytest.raises(InvalidInput, match="ODD's backend: unknown backend 'telepathy'"):
        member_backends([odd], "algorithmic", [])


def test_the_cli_refuses_a_bad_member_backend_before_the_jam(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rec"
    assert run(["jam", "--headless", "--cycles", "1", "--out", str(out), "--member-backend", "SAX=openai"]) == 2
    captured = capsys.readouterr()
    line = captured.err.strip()
    assert captured.out == "" and "\n" not in line and "no member 'SAX'" in line
    assert not out.exists()


def test_one_llm_member_in_a_headless_jam(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch, openai_server) -> None:
    reply = {"pattern": 'n("0 2 4 ~").scale("C4:minor").s("sine")', "thoughts": "A small phrase.", "reaction": "",
             "comply_with_boss": True}
    openai_server.reply_for = lambda user, system, n: json.dumps(reply)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "rec"
    argv = ["jam", "--headless", "--cycles", "2", "--no-wav", "--no-autopilot", "--out", str(out),
            "--member-backend", "ARIA=openai", "--base-url", openai_server.url + "/v1", "--model", "local"]
    assert run(argv) == 0, capsys.readouterr().err
    players = {r["body"]["messages"][0]["content"].split("player of a live band")[0].rsplit("You are ", 1)[1] for r in openai_server.requests}
    assert players == {"🎹 ARIA, the melody "}  # only ARIA asked the model; the others are built in
    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert rounds[0]["members"]["ARIA"]["pattern"] == reply["pattern"]
    assert rounds[0]["members"]["BEAT"]["pattern"].startswith("stack(")


@pytest.mark.parametrize("command", ["jam", "serve"])
def test_a_persona_files_backend_is_checked_by_jam_and_serve(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              command: str) -> None:
    odd = tmp_path / "odd.md"
    odd.write_text("---\nname: ODD\nrole: keys\nbackend: telepathy\n---\nA keys player.\n", encoding="utf-8")
    argv = [command, "--persona", str(odd), "--members", "beat,odd", "--port", "0"]
    assert run(argv + (["--no-browser"] if command == "jam" else [])) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and "ODD's backend: unknown backend 'telepathy'" in line

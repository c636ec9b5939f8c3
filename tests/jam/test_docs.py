"""Every example in docs/jam.md runs: the commands (as real processes), the persona
file, the directives, the Python snippet, the turn text and the reply."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.jam.context import MusicalContext
from bandstand.jam.directives import parse_directive
from bandstand.jam.persona import builtin_personas, parse_persona
from bandstand.jam.sound import validate
from bandstand.jam.turn import BandMate, JamReply, TurnInput, render_turn_text
from tests.server.jam_process import stop

DOC = Path(__file__).resolve().parents[2] / "docs" / "jam.md"
BLOCK = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block whose language is `kind`."""
    found = [(info.strip(), body) for info, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))]
    return [(info, body) for info, body in found if info.split(" ")[0] == kind]


def commands() -> list[str]:
    return [line[2:] for _, body in blocks("console") for line in body.splitlines() if line.startswith("$ ")]


def test_the_doc_has_examples_of_every_kind() -> None:
    assert len(commands()) >= 5 and blocks("directives") and blocks("python") and blocks("markdown") and blocks("json")


@pytest.mark.e2e
def test_every_command_runs(tmp_path: Path) -> None:
    for info, body in blocks("markdown"):
        (tmp_path / info.split(" ")[1]).write_text(body, encoding="utf-8")
    for command in commands():
        argv = shlex.split(command)
        assert argv[0] == "bandstand"
        run = [sys.executable, "-m", "bandstand", *argv[1:]]
        if argv[1] not in ("jam", "serve"):  # one-shot commands on what the jam recorded (jam-to-song, edit)
            done = subprocess.run(run, capture_output=True, text=True, timeout=240, cwd=tmp_path)
            assert done.returncode == 0, (command, done.stderr)
            continue
        if "--headless" in argv:
            done = subprocess.run(run, capture_output=True, text=True, timeout=240, cwd=tmp_path)
            assert done.returncode == 0, (command, done.stderr)
            out = tmp_path / argv[argv.index("--out") + 1]
            assert (out / "jam.mid").exists() and (out / "rounds.jsonl").exists()
            continue
        # the server commands: start, see the URL line, stop (an LLM backend is only configured,
        # never called, until a jam starts)
        if "--no-browser" not in argv:
            run.append("--no-browser")
        if "--port" in run and run[run.index("--port") + 1] != "0":
            run[run.index("--port") + 1] = "0"
        proc = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True)
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            assert "http://127.0.0.1:" in line, (command, line, proc.stderr.read() if proc.stderr else "")
            # Ctrl-C once it answers (a busy machine may still be starting it up: stopping a server
            # mid-start took longer than a fixed wait, and the process outlived the test)
            page = "http://" + line.split("http://", 1)[1].split()[0]
            assert answers(page, proc), (command, proc.stderr.read() if proc.stderr else "")
        finally:
            stop(proc, signal.SIGINT, timeout=120)  # SIGKILL if it hangs (and a TimeoutExpired)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


def answers(url: str, proc: subprocess.Popen[str]) -> bool:
    """Whether the server at `url` answers HTTP before it exits (within two minutes)."""
    import httpx

    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=10)
            return True
        except httpx.TransportError:
            time.sleep(0.1)
    return False


def test_every_directive_example_means_something() -> None:
    band = list(builtin_personas().values())
    for _, body in blocks("directives"):
        for line in body.strip().splitlines():
            d = parse_directive(line, band)
            assert d.to or d.intents or d.changes_context, line


def test_the_persona_example_parses() -> None:
    for info, body in blocks("markdown"):
        persona = parse_persona(body, source=info)
        assert persona.name == "KEYS" and "comping" in persona.handles()


def test_the_turn_text_example_is_what_llm_members_get() -> None:
    (text,) = [body for info, body in blocks("text") if info == "text"]
    turn = TurnInput(
        round=4, member="BEAT", role="drums", context=MusicalContext(energy=7),
        band=[
            BandMate(name="BEAT", emoji="🥁", role="drums", thoughts="Adding ghost notes", pattern='s("bd ~ sd ~, hh*8")'),
            BandMate(name="GROOVE", emoji="🎸", role="bass", thoughts="Locked to the kick", pattern='note("<c2 ab1 eb2 bb1>").s("sawtooth")'),
        ],
        directive="double time", directive_to_you=True, last_pattern='s("bd ~ sd ~, hh*8")',
    )
    assert render_turn_text(turn) == text.rstrip("\n")


def test_the_rejection_example_is_what_a_refused_member_is_told() -> None:
    (text,) = [body for info, body in blocks("text") if info == "text rejected"]
    code = 'note("c2 c#2 e2 f#2 b1").s("sawtooth")'
    verdict = validate(code, MusicalContext().scale)
    turn = TurnInput(round=5, member="GROOVE", role="bass", context=MusicalContext(), band=[],
                     rejected=code, rejected_because=verdict.error)
    assert render_turn_text(turn).endswith(text.rstrip("\n"))


def test_the_reply_example_validates() -> None:
    for _, body in blocks("json"):
        assert JamReply.model_validate(json.loads(body)).comply_with_boss is True


def test_the_python_example_runs(tmp_path: Path) -> None:
    for _, body in blocks("python"):
        done = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == "D major 7"
        assert done.stdout.splitlines()[1].startswith("stack(")

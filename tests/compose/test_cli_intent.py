"""`bandstand compose` reading the prompt, in a real process: a language model whose reply is
not JSON (the local OpenAI-compatible peer) leaves the rules to read it, with a warning; a
backend that cannot work here is refused before any session folder exists; a key bandstand does
not know is said, not silently replaced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.peers.openai_server import OpenAIServer


def bandstand(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=180,
                          check=False, env=env, cwd=cwd)


def test_a_reply_that_is_not_json_falls_back_to_the_rules(tmp_path: Path) -> None:
    with OpenAIServer() as server:
        server.reply_for = lambda user, system, n: "Sure! I think this is a trap song, probably in A minor."
        env = {**os.environ, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": "test-key",
               "BANDSTAND_OPENAI_MODEL": "local"}
        done = bandstand("compose", "Trap beat, dark, 140 BPM, key of Am", "--intent-backend", "openai", "--bars", "8",
                         "--seed", "3", "--no-audio", "--out", str(tmp_path / "out"), env=env, cwd=tmp_path)
        asked = len(server.requests)
    assert done.returncode == 0, done.stderr
    assert asked >= 1  # the model was asked, and its garbage did not fail the run (it was LLM_PARSE_FAILED ×4)
    assert "warning: the language model's reading of the prompt could not be used" in done.stderr
    session = next((tmp_path / "out").glob("session-*"))
    state = json.loads((session / "state" / "pipeline-state.json").read_text())
    assert state["status"] == "completed"
    assert state["nodes"]["intent"]["attempts"] == []  # no retries spent on it
    intent = state["intent"]
    assert intent["genre"] == ["trap"] and (intent["key"], intent["mode"], intent["tempo"]) == ("A", "minor", 140)
    assert any(a["field"] == "extraction" and a["default"] == "rules" for a in intent["ambiguities"])


def test_an_intent_backend_without_a_key_is_refused_up_front(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env["BANDSTAND_CONFIG"] = ""
    done = bandstand("compose", "trap", "--intent-backend", "anthropic", "--bars", "8", "--no-audio", "--out",
                     str(tmp_path / "out"), env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("bandstand: error: --intent-backend anthropic")
    assert "ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # no session folder


def test_a_key_bandstand_does_not_know_is_a_warning(tmp_path: Path) -> None:
    done = bandstand("compose", "trap in the key of Z", "--bars", "8", "--seed", "1", "--no-audio", "--out",
                     str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "warning: 'Z' is not a key bandstand knows" in done.stderr

"""`bandstand pattern chat` as a real process: code and words in, what plays out; the context
commands, the reference, a preview WAV; a mistake is one line and the chat goes on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_a_chat_plays_code_and_words_and_goes_on_after_a_mistake(tmp_path: Path) -> None:
    lines = ['s("bd sd, hh*8")', ":key D dorian", "a dreamy melody", ":tempo 90", 'note("c3 e3").fast(',
             ":ref echoWith", ":preview", ":nonsense", ":stop", ":quit", 's("never read")']
    run = subprocess.run([sys.executable, "-m", "bandstand", "pattern", "chat", "--out", str(tmp_path)],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert out[0] == "Strudel assistant in C minor at 120 BPM. ':help' for commands."
    assert out[1] == "playing: 120 BPM; 10 events per cycle; sounds: bd, hh, sd"
    assert "key: D dorian" in out and "tempo: 90 BPM" in out and "stopped" in out
    melody = out[out.index("key: D dorian") + 1]
    assert 'scale("D' in melody and "dorian" in melody  # the band wrote it in the chat's key
    assert any(line.startswith("- `echoWith`") for line in out)
    wrote = next(line for line in out if line.startswith("wrote "))
    assert Path(wrote.removeprefix("wrote ")).is_file()
    errors = run.stderr.splitlines()
    assert errors == ["error: expected ')' to close '(' at column 19 but found the end of the code at column 20",
                      "error: unknown command :nonsense; ':help' lists them"]
    assert "never read" not in run.stdout

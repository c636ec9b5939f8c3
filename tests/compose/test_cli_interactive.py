"""`bandstand compose` on a terminal (a real process on a pseudo-terminal): a typo answering the
genre question is asked again; after a step is redone at an approval gate the summary does not
claim that the seed gives the song again."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A process on a pseudo-terminal: wait for text, type answers."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "COLUMNS": "200", "LINES": "50", "TERM": "xterm"}
        self.proc = subprocess.Popen([sys.executable, "-m", "bandstand", *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=cwd, env=env, start_new_session=True)
        os.close(slave)
        self.seen = ""

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the process closed the terminal
            return False
        if not data:
            return False
        self.seen += ANSI.sub("", data.decode("utf-8", "replace"))
        return True

    def expect(self, pattern: str, after: int = 0) -> int:
        """Wait for `pattern` (a regex) in the output after position `after`; its end."""
        for _ in range(1200):  # a bound on the loop, not on the time: 120 s of 0.1 s reads at most
            found = re.search(pattern, self.seen[after:])
            if found:
                return after + found.end()
            if not self._read(0.1) and self.proc.poll() is not None:
                break
        raise AssertionError(f"never saw {pattern!r} in:\n{self.seen[-3000:]}")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self) -> int:
        while self._read(0.1) and self.proc.poll() is None:
            pass
        while self._read(0.05):
            if self.proc.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                break
        code = self.proc.wait(timeout=120)
        os.close(self.master)
        return code


def test_a_typo_at_the_genre_question_is_asked_again(tmp_path: Path) -> None:
    term = Terminal(["compose", "Something warm", "--bars", "8", "--seed", "1", "--no-audio", "--out", "out"], tmp_path)
    at = term.expect(r"Which genre\?")
    term.type("hosue\n")  # it aborted the run: "unknown genre 'hosue'"
    at = term.expect(r"unknown genre 'hosue'; did you mean 'house'\?.*Which genre\?", at)
    term.type("house\n")
    term.expect(r"completed", at)
    assert term.finish() == 0, term.seen[-2000:]
    assert "--seed 1 --genre house gives the same song" in term.seen


def test_after_a_redo_the_summary_does_not_claim_the_seed_gives_the_song(tmp_path: Path) -> None:
    term = Terminal(["compose", "trap beat", "--approve", "harmony", "--bars", "8", "--seed", "5", "--no-audio",
                     "--out", "out"], tmp_path)
    at = term.expect(r"\[a\]pprove, \[r\]edo with a new seed, or \[p\]ause")
    term.type("r\n")
    at = term.expect(r"\[a\]pprove, \[r\]edo with a new seed, or \[p\]ause", at)
    term.type("a\n")
    term.expect(r"completed", at)
    assert term.finish() == 0, term.seen[-2000:]
    text = " ".join(term.seen.split())
    assert "--seed 5 gives the same song" not in text  # it claimed so, and the seed gave the first take
    assert "--seed 5 gives the first take, not this song" in text

"""Issue 26: form words in a prompt were dropped without a word — "a rock anthem" was any rock
song, "a house loop" a full house arrangement, "an intro-only piece" a whole song. Now an anthem
has its big chorus once more at the end, a loop is a loop form, and an intro-only piece is its
intro — through real `bandstand compose` processes, read from the manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _sections(prompt: str, out: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "bandstand", "compose", prompt, "--seed", "1", "--no-audio",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (manifest,) = out.glob("*/manifest.json")
    return [s["name"] for s in json.loads(manifest.read_text())["sections"]]


@pytest.mark.parametrize(("prompt", "expected"), [
    ("an intro-only synthwave piece", ["Intro"]),
    ("a house loop", ["Intro", "Loop A", "Loop B", "Loop A", "Outro"]),
])
def test_a_form_word_picks_the_form(prompt: str, expected: list[str], tmp_path: Path) -> None:
    assert _sections(prompt, tmp_path) == expected


def test_an_anthem_has_its_chorus_once_more_at_the_end(tmp_path: Path) -> None:
    anthem = _sections("a rock anthem", tmp_path / "anthem")
    plain = _sections("a rock song", tmp_path / "plain")
    assert anthem[-3:-1] == ["Chorus 3", "Chorus 4"] and anthem[-1] == "Outro", anthem
    assert sum(s.startswith("Chorus") for s in anthem) == sum(s.startswith("Chorus") for s in plain) + 1
